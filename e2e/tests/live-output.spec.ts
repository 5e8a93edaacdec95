import { test, expect } from '../fixtures';

// Reading a turn as it happens: the state line says "Writing" while text
// streams, and a running command's output shows in its card before the
// command ends, with the time it has run.
test('text streaming says Writing; a command shows its output while it runs', async ({ page, myco, fake }) => {
  myco.useModels(fake.url, { approvals: { bash: 'allow' } });
  const id = myco.writeSession({ title: 'Live' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');
  const chip = page.getByTestId('turn-status');

  await input.fill('tell me [[text:150]] [[delay:20ms]]');
  await input.press('Enter');
  await expect(chip).toHaveText(/Writing/);
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false', { timeout: 30_000 });

  // The command runs 6 s: long enough, on a loaded machine, for every
  // check below to see it still running.
  await input.fill('count [[tool:bash {"command":"for i in 1 2 3; do echo line-$i; sleep 2; done"}]]');
  await input.press('Enter');
  const live = page.getByTestId('tool-live');
  await expect(live).toContainText('line-1');
  await expect(chip).toContainText('bash');
  // Seen while the command still runs: no result yet, the time ticking.
  await expect(page.getByTestId('tool-result')).toHaveCount(0);
  await expect(page.getByTestId('tool-elapsed')).toHaveText(/^[1-9]\d* s$/);
  // Then the result replaces the live tail.
  await expect(page.getByTestId('tool-result')).toHaveCount(1, { timeout: 30_000 });
  await expect(live).toHaveCount(0);
  await expect(page.getByTestId('tool-result')).toContainText('line-3');
});

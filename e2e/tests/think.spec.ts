import { test, expect } from '../fixtures';

// /think high, then an answer that thinks first: its reasoning shows in a
// folded block that opens, and is still there after a reload.
test('/think high shows the thinking folded, and it survives a reload', async ({ page, myco, fake }) => {
  // The fake model is not a claude- model: settings say it reasons.
  myco.useModels(fake.url, { models: { 'anthropic/fake-model': { thinking: true } } });
  const id = myco.writeSession({ title: 'Think' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');

  const input = page.getByTestId('composer-input');
  await input.fill('/think high');
  await input.press('Enter');
  await expect(page.getByTestId('steering-chip')).toHaveText('think high');

  await input.fill('[[think:first I weigh the options]] [[say:the answer]]');
  await input.press('Enter');
  const answer = page.locator('[data-testid="message"][data-role="assistant"]').last();
  await expect(answer).toContainText('the answer', { timeout: 30_000 });
  const box = answer.getByTestId('thinking');
  await expect(box).toHaveCount(1);
  await expect(box.getByTestId('thinking-summary')).toHaveText(/^Thought/);
  await expect(box.getByTestId('thinking-text')).toBeHidden();
  await box.getByTestId('thinking-summary').click();
  await expect(box.getByTestId('thinking-text')).toHaveText('first I weigh the options');

  // The reloaded page has the chip from the server: it reads nothing more.
  const reads: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/steering')) reads.push(r.url());
  });
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  expect(reads).toEqual([]);
  const again = page.locator('[data-testid="message"][data-role="assistant"]').last().getByTestId('thinking');
  await expect(again.getByTestId('thinking-summary')).toHaveText(/^Thought/);
  await again.getByTestId('thinking-summary').click();
  await expect(again.getByTestId('thinking-text')).toHaveText('first I weigh the options');
  await expect(page.getByTestId('steering-chip')).toHaveText('think high');
});

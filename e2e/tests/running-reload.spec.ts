import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect } from '../fixtures';
import type { Page } from '@playwright/test';

// A tab that connects while a command runs (a reload, a second tab) shows
// the command as the tab that saw it start does: its output from the
// first line, "running…" and the time it has run; then its result
// (issue 20, item 2). The command waits for files the test writes, so
// every check sees it running without counting on time.

async function expectRunning(page: Page, lines: number) {
  const call = page.getByTestId('tool-call');
  const live = call.getByTestId('tool-live');
  const want = Array.from({ length: lines }, (_, i) => `out line ${i + 1}`).join('\n');
  await expect(live).toHaveText(new RegExp(`^${want}\\s*$`));
  await expect(call).toHaveAttribute('data-running', '');
  await expect(call.locator('.tool-state')).toHaveText('running…');
  await expect(call.getByTestId('tool-elapsed')).toHaveText(/^\d+ s$/);
  await expect(call.getByTestId('tool-result')).toHaveCount(0);
}

test('a reload and a second tab mid-command show its output so far, running, with its time', async ({ page, browser, myco, fake }) => {
  // Three page loads and a second browser context: on a loaded machine
  // that alone nears the default minute.
  test.setTimeout(120_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-running-'));
  myco.useModels(fake.url, { approvals: { bash: 'allow' } });
  const id = myco.writeSession({ title: 'Running', cwd: dir });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');

  const wait = (gate: string) => `while [ ! -e ${gate} ]; do sleep 0.1; done`;
  const cmd = `for i in 1 2 3; do echo out line $i; done; ${wait('g1')}; echo out line 4; echo out line 5; ${wait('g2')}; echo out line 6`;
  const input = page.getByTestId('composer-input');
  await input.fill(`[[tool:bash ${JSON.stringify({ command: cmd })}]]`);
  await input.press('Enter');
  await expectRunning(page, 3);

  const reloaded = Date.now();
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expectRunning(page, 3);
  expect(Number(await page.getByTestId('tool-call').getAttribute('data-started'))).toBeLessThan(reloaded);

  // Printed after the reload: it joins what the snapshot brought.
  fs.writeFileSync(path.join(dir, 'g1'), '');
  await expectRunning(page, 5);

  // The time counts from the command's start, by the server's count, not
  // from the tab's opening: the clock of a tab opened now started before.
  const opened = Date.now();
  const other = await (await browser.newContext()).newPage();
  await other.goto(myco.link(`/s/${id}`));
  await expect(other.locator('body')).toHaveAttribute('data-stream', 'open');
  await expectRunning(other, 5);
  const started = Number(await other.getByTestId('tool-call').getAttribute('data-started'));
  expect(started).toBeLessThan(opened);
  expect(Number(await page.getByTestId('tool-call').getAttribute('data-started'))).toBeLessThan(opened);

  fs.writeFileSync(path.join(dir, 'g2'), '');
  for (const p of [page, other]) {
    const result = p.getByTestId('tool-result');
    await expect(result).toContainText('out line 6', { timeout: 30_000 });
    await expect(result).toContainText('out line 1');
    await expect(p.getByTestId('tool-live')).toHaveCount(0);
    await expect(p.getByTestId('tool-elapsed')).toHaveCount(0);
    await expect(p.getByTestId('tool-call').locator('.tool-state')).toHaveCount(0);
  }
  await other.context().close();
  fs.rmSync(dir, { recursive: true, force: true });
});

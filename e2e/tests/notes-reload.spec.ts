import { test, expect } from '../fixtures';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Waiting notes are rendered by the server: a reload shows the note card,
// the command's outcome and the attachment chip the live tab showed; the
// chips go once their message is sent.
test('waiting notes and chips survive a reload; chips clear when sent', async ({ page, myco, fake }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-notes-'));
  fs.writeFileSync(path.join(dir, 'hello.txt'), 'hello there\n');
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Notes after reload', model: 'anthropic/fake-model', cwd: dir });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');

  const res = await myco.cli('send', '--from', 'nightly build', id, 'tests failed in pkg/x');
  expect(res.code, res.stderr).toBe(0);
  await expect(page.getByTestId('note-card')).toContainText('tests failed in pkg/x');
  const input = page.getByTestId('composer-input');
  await input.fill('!echo from-the-shell');
  await input.press('Enter');
  await expect(page.getByTestId('command-output')).toContainText('from-the-shell');
  // An attachment waits as a chip until the next message goes.
  await page.evaluate(async (url) => {
    const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ path: 'hello.txt' }) });
    if (!r.ok) throw new Error(`attach: ${r.status}`);
  }, `/api/sessions/${id}/attach`);
  await expect(page.getByTestId('attachment-chip')).toContainText('@hello.txt');

  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(page.getByTestId('note-card')).toHaveCount(1);
  await expect(page.getByTestId('note-card')).toContainText('Note from nightly build');
  await expect(page.getByTestId('command-head')).toContainText('echo from-the-shell');
  await expect(page.getByTestId('command-output')).toContainText('from-the-shell');
  await expect(page.getByTestId('attachment-chip')).toHaveCount(1);
  await expect(page.getByTestId('attachment-chip')).toContainText('@hello.txt');

  for (const [w, h, name] of [[1280, 800, 'desktop'], [390, 844, 'phone']] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.screenshot({ path: `/tmp/shots-notes2/${name}.png` });
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  await input.fill('[[say:seen]] what now?');
  await input.press('Enter');
  await expect(page.getByTestId('attachment-chip')).toHaveCount(0);
  await expect.poll(async () => ((await myco.doc(id)).notes || []).every((n: { delivered_in?: string }) => !!n.delivered_in)).toBe(true);
  await page.reload();
  await expect(page.getByTestId('attachment-chip')).toHaveCount(0);
});

// Stop reaches a !command too: the button shows while it runs, and the
// outcome says it was stopped.
test('Stop stops a running !command', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Stop a command', model: 'anthropic/fake-model' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');
  await input.fill('!echo started; sleep 60');
  await input.press('Enter');
  await expect(page.getByTestId('tool-live')).toContainText('started');
  await page.getByTestId('stop-button').click();
  await expect(page.getByTestId('command-output')).toContainText('stopped by the person');
  await expect(page.getByTestId('stop-button')).toBeHidden();
  await expect(page.getByTestId('turn-status')).toHaveAttribute('data-status', 'idle');
});

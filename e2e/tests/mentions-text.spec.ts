import { test, expect } from '../fixtures';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Issue 20, item 8: only an @path that names a file or folder of the
// session's folder is an attachment; @alice, @property, @Override stay
// text and the message goes; punctuation after a path is not part of it.
test('@words that name no file stay text; a path before punctuation attaches', async ({ page, myco, fake }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-mention-'));
  fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha\n');
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Mentions', model: 'anthropic/fake-model', cwd: dir });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');

  await input.fill('[[say:first answer]] ask @alice about @property and @Override');
  await input.press('Enter');
  await expect(page.getByText('first answer', { exact: true })).toBeVisible();
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');

  await input.fill('[[say:second answer]] see @a.txt, then @a.txt.');
  await input.press('Enter');
  await expect(page.getByText('second answer', { exact: true })).toBeVisible();
  // One attachment, a.txt, however often it was named.
  type Note = { kind?: string; path?: string };
  const files = async () => ((await myco.doc(id)).notes || []).filter((n: Note) => n.kind === 'file').map((n: Note) => n.path);
  await expect.poll(files).toEqual(['a.txt']);
});

// Issue 20, item 9: /build TASK switches to build mode and sends TASK.
test('/build TASK switches and sends the task', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Build task', model: 'anthropic/fake-model' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');
  await input.fill('/plan');
  await input.press('Enter');
  await expect.poll(async () => (await myco.doc(id)).mode).toBe('plan');
  await input.fill('/build [[say:building it now]] add the flag');
  await input.press('Enter');
  await expect(page.getByText('building it now', { exact: true })).toBeVisible();
  await expect.poll(async () => (await myco.doc(id)).mode ?? 'build').toBe('build');
});

// Issue 20, item 9: /compact TEXT tells the summary what to keep (the fake
// model echoes it as "keep: …").
test('/compact TEXT reaches the summary', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Compact focus', model: 'anthropic/fake-model' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');
  await input.fill('[[say:noted]] the port is 8123');
  await input.press('Enter');
  await expect(page.getByText('noted', { exact: true })).toBeVisible();
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  await input.fill('/compact the port number');
  await input.press('Enter');
  await expect(page.getByTestId('thread-boundary')).toHaveCount(1);
  await expect.poll(async () => (await myco.doc(id)).threads.length).toBe(2);
  expect((await myco.doc(id)).threads[1].summary).toContain('keep: the port number');
});

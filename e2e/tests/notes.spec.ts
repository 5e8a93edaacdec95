import { test, expect } from '../fixtures';

test('a note sent with myco send appears in the open tab', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Notes', model: 'anthropic/fake-model' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const res = await myco.cli('send', '--from', 'nightly build', id, 'tests failed in pkg/x');
  expect(res.code, res.stderr).toBe(0);
  const card = page.getByTestId('note-card');
  await expect(card).toContainText('Note from nightly build');
  await expect(card).toContainText('tests failed in pkg/x');
  await expect.poll(async () => ((await myco.doc(id)).notes || []).length).toBe(1);
});

test('!command shows its output', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Shell', model: 'anthropic/fake-model' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');
  await input.fill('!echo hello-from-shell');
  await input.press('Enter');
  await expect(page.getByTestId('command-head')).toContainText('echo hello-from-shell');
  await expect(page.getByTestId('command-output')).toContainText('hello-from-shell');
  await expect(input).toHaveValue('');
});

test('@path attaches a file', async ({ page, myco, fake }) => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-at-'));
  fs.writeFileSync(path.join(dir, 'hello.txt'), 'hello there\n');
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Attach', model: 'anthropic/fake-model', cwd: dir });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');
  await input.fill('look at @hel');
  await input.press('Tab');
  await expect(input).toHaveValue('look at @hello.txt');
  await input.press('Enter');
  // The chip goes with its message (notes-reload.spec.ts shows it waiting).
  await expect.poll(async () => ((await myco.doc(id)).notes || [])[0]?.delivered_in ?? '').not.toBe('');
  const note = (await myco.doc(id)).notes[0];
  expect(note.kind).toBe('file');
  expect(note.text).toContain('hello there');
});

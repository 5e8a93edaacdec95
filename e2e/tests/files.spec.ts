import { test as base, expect, send, openSession } from '../fixtures';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Each test gets its own folder for the session to work in.
const test = base.extend<{ work: string }>({
  work: async ({}, use) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-e2e-work-'));
    await use(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  },
});

async function openNew(page, myco, fake, cwd: string) {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Files', cwd });
  await myco.start();
  await openSession(page, myco, id);
  return id;
}

const lastAgentMessage = (page) => page.locator('[data-testid="message"][data-role="assistant"]').last();

// readThenEdit scripts the agent: read notes.txt, then propose one edit.
const readThenEdit =
  '[[steps: tool:read_file {"path":"notes.txt"} ;; ' +
  'tool:edit_file {"path":"notes.txt","edits":[{"old_text":"colour = red","new_text":"colour = blue"}]} ;; say:done]]';

test('an edit shows its diff for approval, and approval writes it to disk', async ({ page, myco, fake, work }) => {
  const file = path.join(work, 'notes.txt');
  fs.writeFileSync(file, 'name = box\ncolour = red\nsize = 3\n', { mode: 0o640 });
  await openNew(page, myco, fake, work);
  await send(page, `paint it blue ${readThenEdit}`);

  const card = page.getByTestId('approval');
  await expect(card).toHaveAttribute('data-tool', 'edit_file');
  const diff = card.getByTestId('diff');
  await expect(diff.locator('.line.del')).toHaveText('-colour = red');
  await expect(diff.locator('.line.add')).toHaveText('+colour = blue');
  await expect(diff.locator('.line.hunk')).toHaveText(/^@@ -1,3 \+1,3 @@/);
  expect(fs.readFileSync(file, 'utf8')).toBe('name = box\ncolour = red\nsize = 3\n');

  await card.locator('[data-decision="once"]').click();
  await expect(lastAgentMessage(page)).toContainText('done');
  await expect.poll(() => fs.readFileSync(file, 'utf8')).toBe('name = box\ncolour = blue\nsize = 3\n');
  expect(fs.statSync(file).mode & 0o777).toBe(0o640);

  // The outcome on the page carries the diff, coloured, and so does the
  // page built from the document.
  for (const reload of [false, true]) {
    if (reload) await page.reload();
    const shown = page.locator('[data-testid="tool-call"][data-tool="edit_file"] [data-testid="tool-result"]');
    await expect(shown).toContainText('Edited');
    await expect(shown.getByTestId('diff').locator('.line.add')).toHaveText('+colour = blue');
    await expect(shown.getByTestId('diff').locator('.line.del')).toHaveText('-colour = red');
  }
});

test('denying an edit leaves the file as it was, and the agent is told', async ({ page, myco, fake, work }) => {
  const file = path.join(work, 'notes.txt');
  fs.writeFileSync(file, 'name = box\ncolour = red\n');
  await openNew(page, myco, fake, work);
  await send(page, `paint it blue ${readThenEdit}`);

  const card = page.getByTestId('approval');
  await expect(card.getByTestId('diff').locator('.line.add')).toHaveText('+colour = blue');
  await card.locator('[data-decision="deny"]').click();
  // The denial reaches the agent; the last agent call (not a title
  // request) carries it, and the file is as it was.
  await expect.poll(async () => JSON.stringify((await fake.chatRequests()).at(-1)?.body)).toContain('denied this change');
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  expect(fs.readFileSync(file, 'utf8')).toBe('name = box\ncolour = red\n');
  const shown = page.locator('[data-testid="tool-call"][data-tool="edit_file"] [data-testid="tool-result"]');
  await expect(shown).toHaveAttribute('data-is-error', 'true');
});

test('a long diff is folded, in the approval and on the page', async ({ page, myco, fake, work }) => {
  await openNew(page, myco, fake, work);
  const content = Array.from({ length: 100 }, (_, i) => `row ${i + 1}`).join('\\n') + '\\n';
  await send(page, `[[tool:write_file {"path":"sub/long.txt","content":"${content}"}]]`);

  const card = page.getByTestId('approval');
  const diff = card.getByTestId('diff');
  await expect(diff.locator('.line.add').first()).toHaveText('+row 1');
  const rest = diff.locator('[data-diff-rest]');
  await expect(rest).toBeHidden();
  const toggle = diff.getByTestId('diff-toggle');
  await expect(toggle).toHaveText('Show all 103 lines (63 more)');
  await toggle.click();
  await expect(rest).toBeVisible();
  await expect(diff.locator('.line.add').last()).toHaveText('+row 100');
  await card.locator('[data-decision="once"]').click();
  const long = path.join(work, 'sub', 'long.txt');
  await expect.poll(() => (fs.existsSync(long) ? fs.readFileSync(long, 'utf8').split('\n').length : 0)).toBe(101);
  await expect(page.locator('[data-testid="tool-call"][data-tool="write_file"] [data-testid="tool-result"]')).toHaveCount(1);
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');

  const shown = page.locator('[data-testid="tool-call"][data-tool="write_file"] [data-testid="diff"]');
  await expect(shown.locator('[data-diff-rest]')).toBeHidden();
  await shown.getByTestId('diff-toggle').click();
  await expect(shown.locator('.line.add').last()).toBeVisible();
  await expect(shown.getByTestId('diff-toggle')).toHaveText('Show fewer lines');
});

import { test as base, expect, send, openSession } from '../fixtures';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Project instructions (README "Project instructions"): a project's
// AGENTS.md shows in the side panel and reaches the model in the system
// prompt; a change reaches it only after /init reload, which the panel
// follows.

const test = base.extend<{ work: string }>({
  work: async ({}, use) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-e2e-instructions-'));
    fs.mkdirSync(path.join(dir, '.git'));
    fs.mkdirSync(path.join(dir, 'svc'));
    await use(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  },
});

// systemOf is the system prompt of a recorded Anthropic request.
const systemOf = (r: any): string => (Array.isArray(r.body?.system) ? r.body.system.map((b: any) => b.text).join('') : String(r.body?.system ?? ''));

test("a project's AGENTS.md shows in the side panel and reaches the model, again after /init reload", async ({ page, myco, fake, work }) => {
  const first = 'Run the tests with go test ./...\n';
  const second = 'Run the tests with task test, never go test directly.\n';
  fs.writeFileSync(path.join(work, 'AGENTS.md'), first);
  fs.writeFileSync(path.join(work, 'svc', 'AGENTS.md'), 'In svc, keep handlers small.\n');
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Instructions', cwd: path.join(work, 'svc') });
  await myco.start();
  await openSession(page, myco, id);

  const rows = page.getByTestId('instructions-panel').getByTestId('instruction-file');
  await expect(rows).toHaveCount(2);
  await expect(rows.locator('code')).toHaveText(['../AGENTS.md', 'AGENTS.md']);
  await expect(rows.first()).toHaveAttribute('data-loaded', 'true');
  await expect(rows.first()).toHaveAttribute('data-cut', 'false');
  await expect(rows.first()).toContainText(`${first.length} bytes`);

  await send(page, 'hello');
  await expect(page.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText('You said: hello', { timeout: 30_000 });
  await expect.poll(async () => (await fake.chatRequests()).length).toBe(1);
  let system = systemOf((await fake.chatRequests())[0]);
  expect(system).toContain('Run the tests with go test ./...');
  expect(system.indexOf('go test ./...')).toBeLessThan(system.indexOf('keep handlers small'));

  // Changed on disk: the next request still sends what was read.
  fs.writeFileSync(path.join(work, 'AGENTS.md'), second);
  await send(page, 'again');
  await expect(page.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText('You said: again', { timeout: 30_000 });
  await expect.poll(async () => (await fake.chatRequests()).length).toBe(2);
  expect(systemOf((await fake.chatRequests())[1])).toBe(system);

  await send(page, '/init reload');
  await expect(rows.first()).toContainText(`${second.length} bytes`);
  await send(page, 'after reload');
  await expect(page.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText('You said: after reload', { timeout: 30_000 });
  await expect.poll(async () => (await fake.chatRequests()).length).toBe(3);
  system = systemOf((await fake.chatRequests())[2]);
  expect(system).toContain('task test, never go test directly');
  expect(system).not.toContain('Run the tests with go test ./...');

  const doc = await myco.doc(id);
  expect(doc.instructions.map((f: any) => f.path)).toEqual([path.join(work, 'AGENTS.md'), path.join(work, 'svc', 'AGENTS.md')]);
});

// The project's memory (README "Memory"): the agent's remember asks with
// the file's diff, the side panel edits the file, and a new session of
// the project reads it; /init sends the request to write an AGENTS.md.
test("remember saves a fact to the project's memory, which the panel edits and a new session reads", async ({ page, myco, fake, work }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Memory', cwd: path.join(work, 'svc') });
  await myco.start();
  await openSession(page, myco, id);
  const memory = path.join(work, '.myco', 'memory.md');

  await send(page, 'note it [[tool:remember {"fact":"Tests run with task test."}]]');
  const card = page.getByTestId('approval');
  await expect(card).toBeVisible({ timeout: 30_000 });
  await expect(card).toContainText(memory);
  await expect(card).toContainText('+- Tests run with task test.');
  await expect(card.locator('[data-decision="session"]')).toHaveText('Allow saving facts for this session');
  expect(fs.existsSync(memory)).toBe(false);
  await card.locator('[data-decision="once"]').click();
  await expect(page.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText('Saved to ', { timeout: 30_000 });
  expect(fs.readFileSync(memory, 'utf8')).toMatch(/- Tests run with task test\.\n$/);

  // The side panel opens the file, and saving writes it and reloads the
  // session's instructions: the memory is listed.
  const panel = page.getByTestId('instructions-panel');
  await panel.getByRole('button', { name: 'Edit project memory' }).click();
  const area = panel.getByTestId('memory-text');
  await expect(area).toHaveValue(/Tests run with task test\./);
  await area.fill('- Tests run with task test.\n- The API lives in svc/.\n');
  await panel.getByTestId('memory-save').click();
  await expect(area).toBeHidden();
  expect(fs.readFileSync(memory, 'utf8')).toBe('- Tests run with task test.\n- The API lives in svc/.\n');
  await expect(panel.getByTestId('instruction-file').filter({ hasText: 'memory.md' })).toHaveAttribute('data-loaded', 'true');

  // A new session of the project carries the memory in its system prompt.
  const other = myco.writeSession({ title: 'Later', cwd: work });
  await openSession(page, myco, other);
  const before = (await fake.chatRequests()).length;
  await send(page, 'hello');
  await expect(page.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText('You said: hello', { timeout: 30_000 });
  await expect.poll(async () => (await fake.chatRequests()).length).toBeGreaterThan(before);
  const reqs = await fake.chatRequests();
  expect(systemOf(reqs[reqs.length - 1])).toContain('The API lives in svc/.');

  // /init asks the agent to write an AGENTS.md, as a message of the person's.
  await send(page, '/init');
  await expect(page.locator('[data-testid="message"][data-role="user"]').last()).toContainText('write an AGENTS.md', { timeout: 30_000 });
});

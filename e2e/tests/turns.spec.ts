import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect, send, openSession } from '../fixtures';

// How a turn ends when something goes wrong around it: a failed answer
// retried by the person, a session archived while its command runs.

async function openNew(page, myco, fake, settings = {}, cwd?: string) {
  myco.useModels(fake.url, settings);
  const id = myco.writeSession({ title: 'Turns', cwd });
  await myco.start();
  await openSession(page, myco, id);
  return id;
}

const messages = (doc) => doc.threads.flatMap((t) => t.messages);
const textOf = (m) => (m.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('');

test('retry after a failed turn shows the message once, the earlier answer folded', async ({ page, myco, fake }) => {
  const id = await openNew(page, myco, fake);
  // Every attempt of the turn itself (the first and its two retries) is cut
  // after half its text; the person's /retry is the fourth and succeeds.
  const asked = 'Tell me about the parser [[text:20]] [[fault:cutx3]]';
  await send(page, asked);
  await expect(page.getByTestId('message-error')).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  const failedAnswer = async () => messages(await myco.doc(id)).find((m) => m.role === 'assistant' && m.stop_reason === 'error');
  await expect.poll(async () => textOf((await failedAnswer()) ?? {})).toMatch(/^alpha bravo/);
  const failed = await failedAnswer();
  const attempts = (await fake.chatRequests()).length;

  await send(page, '/retry');

  // The new answer: all twenty words, finished.
  const newAnswer = async () => messages(await myco.doc(id)).find((m) => m.role === 'assistant' && m.stop_reason === 'end_turn');
  await expect.poll(async () => textOf((await newAnswer()) ?? {}), { timeout: 30_000 }).toMatch(/tango$/);
  const answer = await newAnswer();
  const doc = await myco.doc(id);
  const humans = messages(doc).filter((m) => m.human && textOf(m) === asked);
  expect(humans, 'the person\'s message is stored once').toHaveLength(1);
  const earlier = messages(doc).find((m) => m.id === failed.id);
  expect(earlier, 'the failed answer stays in the document').toBeTruthy();
  expect(earlier.replaced_by).toBe(answer.id);

  // What the model was sent for the retry: the person's words once, and
  // not the answer that failed.
  const reqs = await fake.chatRequests();
  expect(reqs.length).toBeGreaterThan(attempts);
  const retried = reqs[reqs.length - 1].body.messages as any[];
  const sent = JSON.stringify(retried);
  expect(sent.split('Tell me about the parser').length - 1).toBe(1);
  expect(sent).not.toContain(textOf(failed));

  // The page, live and then built from the document.
  const shownOnce = async () => {
    await expect(page.locator('[data-testid="message"][data-role="user"]').filter({ hasText: 'Tell me about the parser' })).toHaveCount(1);
    const shown = page.locator(`[data-testid="message"][data-message-id="${answer.id}"]`);
    await expect(shown).toBeVisible();
    await expect(shown).toContainText('tango');
    await expect(page.locator(`[data-testid="replaced-answer"] [data-message-id="${answer.id}"]`)).toHaveCount(0);
  };
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  await shownOnce();
  // Folded live, without a reload.
  const liveFolded = page.getByTestId('replaced-answer').locator(`[data-message-id="${failed.id}"]`);
  await expect(liveFolded).toHaveCount(1);
  await expect(liveFolded).toBeHidden();
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await shownOnce();
  const folded = page.getByTestId('replaced-answer');
  await expect(folded).toHaveCount(1);
  await expect(folded).not.toHaveAttribute('open', /.*/);
  await expect(folded.locator(':scope > summary')).toContainText('replaced by a retry');
  const inside = folded.locator(`[data-testid="message"][data-message-id="${failed.id}"]`);
  await expect(inside).toBeHidden();
  await folded.locator(':scope > summary').click();
  await expect(inside).toBeVisible();
  await expect(inside).toContainText(textOf(failed).slice(0, 30));
});

test('archiving during a running command lets it finish, and its output is in the session when restored', async ({ page, myco, fake }) => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-e2e-work-'));
  try {
    const id = await openNew(page, myco, fake, { approvals: { bash: 'allow' } }, work);
    await send(page, 'run it [[tool:bash {"command":"sleep 2; echo finished-ok"}]]');
    await expect(page.locator('[data-testid="tool-call"][data-tool="bash"][data-running]')).toHaveCount(1);

    const archived = await myco.api('POST', `/api/sessions/${id}/archive`);
    expect(archived.status, await archived.text()).toBe(200);

    // The command runs on; the turn ends with the agent quoting its output.
    const result = async () => {
      const blocks = messages(await myco.doc(id)).flatMap((m) => m.content ?? []);
      return blocks.find((b) => b.type === 'tool_result');
    };
    // The first result recorded is the outcome: a command killed by the
    // archive would show here as stopped, and waiting longer changes nothing.
    await expect.poll(async () => (await result()) !== undefined, { timeout: 30_000 }).toBe(true);
    expect(JSON.stringify(await result())).toContain('finished-ok');
    const last = async () => messages(await myco.doc(id)).at(-1);
    await expect.poll(async () => textOf((await last()) ?? {}), { timeout: 30_000 }).toContain('Tool result: finished-ok');
    const saved = await result();
    expect(saved.interrupted ?? false).toBe(false);
    expect(saved.is_error ?? false).toBe(false);
    expect(JSON.stringify(saved.content)).not.toMatch(/stopped|interrupted/i);
    expect((await last()).stop_reason).toBe('end_turn');
    expect((await myco.doc(id)).archived).toBe(true);
    // The open tab stays read-only after the turn ended: it was archived.
    await expect(page.getByTestId('turn-status')).toHaveAttribute('data-status', 'archived');
    await expect(page.getByTestId('turn-status')).toHaveAttribute('data-running', 'false');
    await expect(page.getByTestId('composer-input')).toBeDisabled();

    const restored = await myco.api('POST', `/api/sessions/${id}/restore`);
    expect(restored.status, await restored.text()).toBe(200);
    await expect.poll(async () => (await myco.doc(id)).archived).toBe(false);

    await page.goto(myco.link(`/s/${id}`));
    await expect(page.getByTestId('archived-banner')).toHaveCount(0);
    const shown = page.locator('[data-testid="tool-call"][data-tool="bash"] [data-testid="tool-result"]');
    await expect(shown).toHaveCount(1);
    await expect(shown).toContainText('finished-ok');
    await expect(shown).toHaveAttribute('data-is-error', 'false');
    await expect(shown).toHaveAttribute('data-interrupted', 'false');
    await expect(page.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText('Tool result: finished-ok');
    await expect(page.getByTestId('stop-marker')).toHaveCount(0);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});

import { test, expect, send, openSession } from '../fixtures';

// Errors stay: a failed turn's error is saved with its answer, shown in
// words a person can act on, still there after a reload, and the answer
// has a Retry button that works.

async function openNew(page, myco, fake) {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Errors' });
  await myco.start();
  await openSession(page, myco, id);
  return id;
}

const messages = (doc) => doc.threads.flatMap((t) => t.messages);
const textOf = (m) => (m.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('');

test('a refused API key says which variable holds it, stays after a reload, and Retry answers', async ({ page, myco, fake }) => {
  const id = await openNew(page, myco, fake);
  // A 401 is not retried by the turn; x1: the person's Retry passes.
  await send(page, 'hello [[fault:401x1]]');
  const card = page.getByTestId('message-error');
  // The fixture's settings read the key from MYCO_E2E_KEY (api_key_env);
  // without that setting it would be ANTHROPIC_API_KEY.
  const refused = 'The API key was refused by anthropic. It is read from MYCO_E2E_KEY (settings providers.anthropic.api_key_env).';
  await expect(card).toHaveText(refused);
  await expect(card).toHaveAttribute('data-kind', 'auth');
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  // One card, in the message: no second line that a reload would lose.
  await expect(page.getByTestId('turn-error')).toHaveCount(0);
  const retry = page.getByTestId('retry-button');
  await expect(retry).toBeVisible();

  // Saved: the document has it, and the reloaded page shows it.
  const failed = messages(await myco.doc(id)).at(-1);
  expect(failed.role).toBe('assistant');
  expect(failed.stop_reason).toBe('error');
  expect(failed.error).toMatchObject({ kind: 'auth', status: 401, provider: 'anthropic', message: refused });
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const shown = page.locator(`[data-testid="message"][data-message-id="${failed.id}"]`);
  await expect(shown.getByTestId('message-error')).toHaveText(refused);
  // The card says it all: no second "Failed" line above it.
  await expect(shown.getByTestId('stop-marker')).toHaveCount(0);
  await expect(retry).toBeVisible();

  await retry.click();
  const answer = page.locator('[data-testid="message"][data-role="assistant"]').last();
  await expect(answer).toContainText('You said: hello', { timeout: 30_000 });
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  // The failed answer is folded, without its Retry; nothing left to retry.
  const folded = page.getByTestId('replaced-answer');
  await expect(folded).toHaveCount(1);
  await expect(folded.locator(`[data-message-id="${failed.id}"]`)).toBeHidden();
  await expect(page.getByTestId('retry-button')).toHaveCount(0);
  await expect.poll(async () => messages(await myco.doc(id)).find((m) => m.id === failed.id)?.replaced_by).toBeTruthy();
  const doc = await myco.doc(id);
  const last = messages(doc).at(-1);
  expect(textOf(last)).toBe('You said: hello');
  expect(messages(doc).find((m) => m.id === failed.id).replaced_by).toBe(last.id);
  // The model was never sent the error.
  const reqs = await fake.chatRequests();
  expect(JSON.stringify(reqs.at(-1).body.messages)).not.toContain('refused');
});

test('a provider that stays overloaded says it is busy; the retrying state stays one line', async ({ page, myco, fake }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openNew(page, myco, fake);
  const chip = page.getByTestId('turn-status');
  const oneLine = await chip.evaluate((el) => el.getBoundingClientRect().height);
  await send(page, 'busy now [[fault:529]]');
  await expect(chip).toHaveAttribute('data-status', 'retrying', { timeout: 30_000 });
  await expect(chip).toHaveAttribute('title', /The provider is overloaded \(anthropic, 529\)\.$/);
  // However long its words, the chip keeps the height of one line.
  expect(await chip.evaluate((el) => el.getBoundingClientRect().height)).toBeLessThanOrEqual(oneLine + 1);
  await expect(page.getByTestId('message-error')).toHaveText('The provider is overloaded (anthropic, 529). myco retried twice; try again in a minute.', { timeout: 30_000 });
  await expect(page.getByTestId('message-error')).toHaveAttribute('data-kind', 'overloaded');
  await expect(page.getByTestId('retry-button')).toBeVisible();
});

test('only the last failed or interrupted answer offers Retry', async ({ page, myco, fake }) => {
  await openNew(page, myco, fake);
  await send(page, 'first [[text:3000]] [[delay:10ms]]');
  await expect(page.locator('[data-testid="message"][data-streaming]')).toContainText(/\w+ \w+ \w+/);
  await page.keyboard.press('Escape');
  const interrupted = page.locator('[data-testid="message"][data-role="assistant"]').last();
  await expect(interrupted.getByTestId('stop-marker')).toHaveAttribute('data-stop-reason', 'interrupted');
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  await expect(interrupted.getByTestId('retry-button')).toBeVisible();

  // The model gets both messages as one (the interrupted answer between
  // them is kept), so the fake reads both scripts: this turn fails at once.
  await send(page, 'second [[fault:401]]');
  await expect(page.getByTestId('message-error')).toHaveCount(1);
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  // The interrupted answer is history now: its button is not shown.
  const buttons = page.getByTestId('retry-button');
  await expect(buttons).toHaveCount(2);
  await expect(buttons.first()).toBeHidden();
  await expect(buttons.last()).toBeVisible();
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(buttons).toHaveCount(2);
  await expect(buttons.first()).toBeHidden();
  await expect(buttons.last()).toBeVisible();
});

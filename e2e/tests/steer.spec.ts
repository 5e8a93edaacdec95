import { test, expect, send, openSession } from '../fixtures';

// Steering a turn from the tab (issue 12): the Ctrl-K palette, /steer
// while a tool round runs, a queued message edited before it starts.

async function openNew(page, myco, fake) {
  myco.useModels(fake.url, {});
  const id = myco.writeSession({ title: 'Steer' });
  await myco.start();
  await openSession(page, myco, id);
  return id;
}

const messages = (doc) => doc.threads.flatMap((t) => t.messages);
const textOf = (m) => (m.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('');

test('the palette finds a command by a fuzzy match and runs it', async ({ page, myco, fake }) => {
  await openNew(page, myco, fake);
  const palette = page.getByTestId('palette');
  await page.keyboard.press('Control+k');
  await expect(palette).toBeVisible();
  await page.getByTestId('palette-input').fill('usg');
  const first = palette.locator('[data-palette-item]:not([hidden])').first();
  await expect(first).toHaveAttribute('data-command', 'usage');
  await expect(first).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(palette).toBeHidden();
  const card = page.getByTestId('usage-card');
  await expect(card).toContainText('Session');
  await card.getByTestId('dismiss-card').click();
  await expect(card).toHaveCount(0);

  // A command that needs an argument goes into the composer instead.
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill('tit');
  await page.keyboard.press('Enter');
  const input = page.getByTestId('composer-input');
  await expect(input).toHaveValue('/title ');
  await expect(input).toBeFocused();
  // Esc closes it without running anything.
  await page.keyboard.press('Control+k');
  await expect(palette).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(palette).toBeHidden();
});

// A command run from the palette never loses what was typed: one that runs
// at once leaves the draft as it was, one that needs an argument sets it
// aside and puts it back once it has run.
test('the palette keeps the draft', async ({ page, myco, fake }) => {
  await openNew(page, myco, fake);
  const input = page.getByTestId('composer-input');
  const palette = page.getByTestId('palette');
  await input.fill('half a thought about the parser');
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill('usage');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('usage-card')).toContainText('Session');
  await expect(input).toHaveValue('half a thought about the parser');

  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill('title');
  await page.keyboard.press('Enter');
  await expect(palette).toBeHidden();
  await expect(input).toHaveValue('/title ');
  await input.pressSequentially('Parser notes');
  await input.press('Enter');
  await expect(page.getByTestId('session-title')).toHaveText('Parser notes');
  await expect(input).toHaveValue('half a thought about the parser');
  await page.reload();
  await expect(page.getByTestId('composer-input')).toHaveValue('half a thought about the parser');
});

// Enter acts on what the query lists: a query without "/" waits for the
// sessions, and Enter pressed before they came ran the list it replaced.
test('the palette waits for its list before Enter acts', async ({ page, myco, fake }) => {
  await openNew(page, myco, fake);
  await page.route(/\/api\/sessions$/, async (route) => {
    await new Promise((r) => setTimeout(r, 1500));
    await route.continue();
  });
  const input = page.getByTestId('composer-input');
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill('title');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('palette')).toBeHidden();
  await expect(input).toHaveValue('/title ');
});

test('a steer sent mid-turn appears in the conversation where it went in', async ({ page, myco, fake }) => {
  const id = await openNew(page, myco, fake);
  await send(page, '[[tool:bash {"command":"echo round-one"}]]');
  const approval = page.getByTestId('approval');
  await expect(approval).toBeVisible({ timeout: 30_000 });
  await send(page, '/steer keep the answer short');
  // Waiting for the round to end: listed above the composer, marked.
  await expect(page.locator('[data-testid="queued"][data-steer]')).toContainText('keep the answer short');
  await approval.getByRole('button', { name: 'Allow once' }).click();
  const steer = page.getByTestId('message').filter({ hasText: 'keep the answer short' });
  await expect(steer).toHaveAttribute('aria-label', 'You · steer', { timeout: 30_000 });
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  await expect(page.locator('[data-testid="queued"]')).toHaveCount(0);
  const doc = await myco.doc(id);
  const kept = messages(doc).find((m) => m.steer);
  expect(textOf(kept)).toBe('keep the answer short');
});

test('a queued message is edited before it starts', async ({ page, myco, fake }) => {
  const id = await openNew(page, myco, fake);
  await send(page, '[[tool:bash {"command":"echo hold"}]]');
  const approval = page.getByTestId('approval');
  await expect(approval).toBeVisible({ timeout: 30_000 });
  await send(page, '/queue [[say:the old words]]');
  const queued = page.getByTestId('queued');
  await expect(queued).toContainText('the old words');
  await queued.getByTestId('queued-edit').click();
  await page.getByTestId('queued-editor').fill('[[say:the new words]]');
  await queued.getByTestId('queued-save').click();
  await expect(queued).toContainText('the new words');
  await approval.getByRole('button', { name: 'Allow once' }).click();
  await expect(page.getByTestId('message').filter({ hasText: /^(?!.*say:).*the new words/ }).last()).toBeVisible({ timeout: 30_000 });
  await expect(queued).toHaveCount(0);
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  const said = messages(await myco.doc(id)).filter((m) => m.human).map(textOf);
  expect(said).toEqual(['[[tool:bash {"command":"echo hold"}]]', '[[say:the new words]]']);
});

import { test, expect, send, openSession } from '../fixtures';

// Input history (issue 24): in an empty composer ↑ recalls the person's
// previous message of the session and ↓ the next, as a shell does; past
// the newest the composer is empty again, and text being typed is never
// replaced.
test('↑ and ↓ walk the messages sent in this session', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'History' });
  await myco.start();
  await openSession(page, myco, id);
  const answers = page.locator('[data-testid="message"][data-role="assistant"]');
  for (const [i, text] of ['first question', 'second question'].entries()) {
    await send(page, text);
    await expect(answers).toHaveCount(i + 1, { timeout: 30_000 });
  }
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  const input = page.getByTestId('composer-input');
  await input.focus();
  await input.press('ArrowUp');
  await expect(input).toHaveValue('second question');
  await input.press('ArrowUp');
  await expect(input).toHaveValue('first question');
  await input.press('ArrowUp'); // the oldest: it stays
  await expect(input).toHaveValue('first question');
  await input.press('ArrowDown');
  await expect(input).toHaveValue('second question');
  await input.press('ArrowDown');
  await expect(input).toHaveValue('');

  // A recalled message changed is the person's text: ↑ moves the caret.
  await input.press('ArrowUp');
  await input.press('End');
  await input.type(' again');
  await input.press('ArrowUp');
  await expect(input).toHaveValue('second question again');
  await input.fill('typed');
  await input.press('ArrowUp');
  await expect(input).toHaveValue('typed');
});

// /title alone says the title; /export [md|json|html] downloads the
// session from the composer, as the panel's links do (issue 24).
test('/title alone says the title, and /export downloads the session', async ({ page, myco }) => {
  const id = myco.writeSession({ title: 'Exported' });
  await myco.start();
  await openSession(page, myco, id);
  // /title takes TEXT: the first Enter completes it, the second runs it
  // as it is.
  await send(page, '/title');
  await expect(page.getByTestId('composer-input')).toHaveValue('/title ');
  await page.getByTestId('composer-input').press('Enter');
  await expect(page.locator('[data-composer-note]')).toContainText('The title is “Exported”');
  const download = page.waitForEvent('download');
  await send(page, '/export json');
  const file = await (await download).path();
  const doc = JSON.parse(require('node:fs').readFileSync(file, 'utf8'));
  expect(doc.id).toBe(id);
  await send(page, '/export pdf');
  await expect(page.getByTestId('error-toast')).toContainText('md, json or html');
});

import { test, expect, send, openSession } from '../fixtures';

// A model that stops answering is noticed: after stream_idle_timeout
// without a byte the stream counts as broken, each retry is shown, and the
// answer then fails saying the model stopped answering, keeping the text
// that came. Before, the tab said "thinking" for as long as the provider
// kept the connection open.

async function openNew(page, myco, fake) {
  myco.useModels(fake.url, { stream_idle_timeout: 1 });
  const id = myco.writeSession({ title: 'Silent' });
  await myco.start();
  await openSession(page, myco, id);
  return id;
}

test('a model that goes silent mid-answer is retried, then fails saying it stopped answering', async ({ page, myco, fake }) => {
  await openNew(page, myco, fake);
  await send(page, 'tell me [[text:8]] [[silent]]');
  const chip = page.getByTestId('turn-status');
  await expect(chip).toHaveAttribute('data-status', 'retrying', { timeout: 30_000 });
  await expect(chip).toHaveAttribute('title', /The model stopped answering \(anthropic sent nothing for 1s\)\.$/);
  const card = page.getByTestId('message-error');
  await expect(card).toHaveText(
    "The model stopped answering (anthropic sent nothing for 1s). myco retried twice; try again, and check the provider's status if it happens again.",
    { timeout: 30_000 },
  );
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  await expect(page.getByTestId('retry-button')).toBeVisible();
});

test('a model that never sends its headers once is retried, and the retry answers', async ({ page, myco, fake }) => {
  await openNew(page, myco, fake);
  await send(page, '[[say:Here at last.]] [[hang:1]]');
  await expect(page.locator('.message.assistant').last()).toContainText('Here at last.', { timeout: 30_000 });
  await expect(page.getByTestId('message-error')).toHaveCount(0);
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
});

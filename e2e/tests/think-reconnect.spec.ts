import { test, expect } from '../fixtures';

// A tab opened while the model is still thinking shows the thinking so far
// (the snapshot's partial), then the rest as it streams.
test('a reload mid-thought shows the thinking so far', async ({ page, myco, fake }) => {
  myco.useModels(fake.url, { models: { 'anthropic/fake-model': { thinking: true } } });
  const id = myco.writeSession({ title: 'Think reconnect' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');
  await input.fill('/think high');
  await input.press('Enter');
  await expect(page.getByTestId('steering-chip')).toHaveText('think high');

  const words = Array.from({ length: 120 }, (_, i) => `w${String(i + 1).padStart(3, '0')}`).join(' ');
  await input.fill(`[[think:${words}]] [[delay:150ms]] [[say:the answer]]`);
  await input.press('Enter');
  const streaming = page.locator('[data-testid="message"][data-streaming] [data-testid="thinking-text"]');
  await expect(streaming).toContainText('w003');

  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  // Still thinking: the block starts from the first word, not from the
  // reconnect.
  await expect(streaming).toContainText('w001 w002 w003');
  const answer = page.locator('[data-testid="message"][data-role="assistant"]').last();
  await expect(answer).toContainText('the answer', { timeout: 45_000 });
  await answer.getByTestId('thinking-summary').click();
  await expect(answer.getByTestId('thinking-text')).toHaveText(words);
});

import { test, expect } from '../fixtures';

test('compaction shows as it happens, the gauge reads against the threshold, and the earlier thread stays expandable', async ({ page, myco, fake }) => {
  myco.useModels(fake.url, { models: { 'anthropic/fake-model': { context_window: 100000, auto_compact_at: 5000 } } });
  const id = myco.writeSession({ title: 'Long work', model: 'anthropic/fake-model' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const gauge = page.getByTestId('context-gauge');
  await expect(gauge).toContainText('of 5,000 tokens before it compacts');

  const input = page.getByTestId('composer-input');
  await input.fill('first question about the parser [[say:the parser is fine]] [[usage:in=6000,out=20]]');
  await input.press('Enter');
  await expect(page.getByTestId('thread-boundary')).toHaveCount(1);
  await expect(page.getByTestId('thread-boundary')).toContainText(/compacted here/i);
  await expect(page.getByTestId('turn-usage')).toHaveCount(1);
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  // The reload renders from the document, which may be saved a moment
  // after the page was told.
  await expect.poll(async () => (await myco.doc(id)).threads.length).toBe(2);

  // The same page, reloaded: the earlier thread is collapsed behind its
  // summary and opens on demand; the latest thread carries on.
  await page.reload();
  const earlier = page.getByTestId('earlier-thread');
  await expect(earlier).toHaveCount(1);
  await expect(earlier).toContainText(/Summary: .*first question about/);
  await expect(earlier.getByText('the parser is fine', { exact: true })).toBeHidden();
  await earlier.locator('summary').click();
  await expect(earlier.getByText('the parser is fine', { exact: true })).toBeVisible();

  // By hand: the button (and /compact) make another successor.
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await page.getByTestId('compact-button').click();
  await expect(page.getByTestId('thread-boundary')).toHaveCount(2);
  await expect.poll(async () => (await myco.doc(id)).threads.length).toBe(3);
  expect((await myco.doc(id)).threads[0].messages.length).toBe(2);
});

test('a failed compaction says so and turns automatic compaction off', async ({ page, myco, fake }) => {
  myco.useModels(fake.url, { models: { 'anthropic/fake-model': { context_window: 100000, auto_compact_at: 5000 } } });
  const id = myco.writeSession({ title: 'Fails', model: 'anthropic/fake-model' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');
  await input.fill('go [[summary_fault:500]] [[say:ok]] [[usage:in=6000,out=20]]');
  await input.press('Enter');
  await expect(page.getByTestId('compaction-error')).toContainText('Compaction failed');
  await expect(page.getByTestId('context-off')).toContainText('Automatic compaction is off');
  await expect(page.getByTestId('context-gauge')).toHaveAttribute('data-auto', 'off');
});

import { test, expect } from '../fixtures';

// Archive shows "Archived · Undo" for a few seconds; Undo brings the
// session back where it was, in the list and on disk.
test('archiving from the home page can be undone', async ({ page, myco }) => {
  const older = myco.writeSession({ title: 'Older', updated_at: '2026-11-01T10:00:00Z', messages: [{ role: 'user', text: 'a' }] });
  const id = myco.writeSession({ title: 'Keep me', updated_at: '2026-11-02T10:00:00Z', messages: [{ role: 'user', text: 'b' }] });
  await myco.start();
  await page.goto(myco.link('/'));
  const rows = page.getByTestId('session-row');
  await expect(rows).toHaveCount(2);
  await rows.filter({ hasText: 'Keep me' }).getByRole('button', { name: /archive/i }).click();
  await expect(rows).toHaveCount(1);
  const notice = page.getByTestId('undo-notice');
  await expect(notice).toContainText('Archived');
  await expect.poll(async () => (await myco.doc(id)).archived).toBe(true);
  await page.getByTestId('undo-button').click();
  await expect(notice).toHaveCount(0);
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText('Keep me');
  await expect.poll(async () => (await myco.doc(id)).archived).toBe(false);
  expect(older).toBeTruthy();
});

// The profile stream can tell the page of the archive, and its rows be
// fetched again, before the archive's own answer is read (a loaded
// machine): Undo is still offered, and brings the session back.
test('Undo is offered when the listing refreshed before the archive answered', async ({ page, myco }) => {
  myco.writeSession({ title: 'Older', updated_at: '2026-11-01T10:00:00Z', messages: [{ role: 'user', text: 'a' }] });
  const id = myco.writeSession({ title: 'Keep me', updated_at: '2026-11-02T10:00:00Z', messages: [{ role: 'user', text: 'b' }] });
  await myco.start();
  await page.goto(myco.link('/'));
  await expect(page.locator('body')).toHaveAttribute('data-listing', 'open');
  const rows = page.getByTestId('session-row');
  await expect(rows).toHaveCount(2);
  // The archive is done at once; its answer reaches the page 1.5 s later,
  // well after the stream's refresh has replaced the rows.
  await page.route('**/api/sessions/*/archive', async (route) => {
    const response = await route.fetch();
    await new Promise((r) => setTimeout(r, 1500));
    await route.fulfill({ response });
  });
  await rows.filter({ hasText: 'Keep me' }).getByTestId('archive-button').click();
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId('undo-notice')).toContainText('Archived “Keep me”');
  await page.getByTestId('undo-button').click();
  await expect.poll(async () => (await myco.doc(id)).archived).toBe(false);
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: 'Keep me' })).toHaveCount(1);
});

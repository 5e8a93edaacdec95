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

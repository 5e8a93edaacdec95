import { test, expect } from '../fixtures';

// Errors come one at a time, in plain words, and go by themselves; the
// archive notice names the session and leaves the header's buttons in
// reach (issue 20, item 12).
test('one error toast at a time, in plain words, gone by itself', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Toasts', messages: [{ role: 'user', text: 'a' }, { role: 'assistant', text: 'b' }] });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');
  for (const c of ['/aa', '/bb', '/cc']) {
    await input.fill(c);
    await input.press('Enter');
  }
  const toasts = page.getByTestId('error-toast');
  await expect(toasts).toHaveCount(1);
  await expect(toasts).toContainText('There is no command /cc');
  // An API refusal reads as words, not as its kind.
  await input.fill('/rewind 5');
  await input.press('Enter');
  await expect(toasts).toContainText('cannot drop 5 turns');
  await expect(toasts).not.toContainText('bad input');
  await expect(toasts).toHaveCount(1);
  // Gone by itself, without a click.
  await expect(toasts).toHaveCount(0, { timeout: 20_000 });
});

for (const [name, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]] as const) {
  test(`the archive notice names the session and leaves "New session" in reach (${name})`, async ({ page, myco }) => {
    await page.setViewportSize(viewport);
    myco.writeSession({ title: 'Quarterly report draft', messages: [{ role: 'user', text: 'a' }] });
    await myco.start();
    await page.goto(myco.link('/'));
    const rows = page.getByTestId('session-row');
    await rows.first().getByRole('button', { name: /archive/i }).click();
    const notice = page.getByTestId('undo-notice');
    await expect(notice).toContainText('Archived “Quarterly report draft”');
    const button = page.getByTestId('new-session-button');
    const a = await notice.boundingBox();
    const b = await button.boundingBox();
    expect(a && b).toBeTruthy();
    const overlap = a!.x < b!.x + b!.width && b!.x < a!.x + a!.width && a!.y < b!.y + b!.height && b!.y < a!.y + a!.height;
    expect(overlap).toBe(false);
    await button.click();
    await expect(page.getByTestId('new-session-dialog')).toBeVisible();
  });
}

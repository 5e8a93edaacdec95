import { test, expect } from '../fixtures';

// Plan mode: /plan TASK shows the PLAN badge and plans at once; when the
// plan turn ends the tab asks "Build this plan?", and "Build now" leaves
// plan mode and sends "Build the plan above.". The mode survives a reload.
test('plan mode badge and "Build this plan?" build now', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Plan' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const badge = page.getByTestId('plan-badge');
  const toggle = page.getByTestId('plan-toggle');
  await expect(badge).toBeHidden();
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');

  const input = page.getByTestId('composer-input');
  await input.fill('/plan tidy the config [[say:1. Read config.toml. 2. Remove the dead keys.]]');
  await input.press('Enter');
  await expect(badge).toBeVisible();
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');

  const card = page.getByTestId('plan-ready');
  await expect(card).toBeVisible({ timeout: 30_000 });
  await expect(card).toContainText('Build this plan?');
  await expect(page.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText('Remove the dead keys');

  // A reload keeps the mode (the header's) and the card still offered
  // (the snapshot's).
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(page.getByTestId('plan-badge')).toBeVisible();
  await expect(card).toBeVisible();

  // The card again, from a second plan turn; then Build now.
  await input.fill('one more look [[say:3. Run the tests.]]');
  await input.press('Enter');
  await expect(card).toBeVisible({ timeout: 30_000 });
  await card.getByTestId('plan-build-now').click();
  await expect(card).toBeHidden();
  await expect(page.getByTestId('plan-badge')).toBeHidden();
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await expect(page.locator('[data-testid="message"][data-role="user"]').last()).toContainText('Build the plan above.', { timeout: 30_000 });
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false', { timeout: 30_000 });
  // Build mode asks nothing at the end of a turn.
  await expect(card).toBeHidden();
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(page.getByTestId('plan-badge')).toBeHidden();
});

// The toggle and Alt+P switch the mode without sending anything;
// "Keep planning" puts the card away and stays in plan mode.
test('the toggle, Alt+P and Keep planning', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Plan toggle' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const badge = page.getByTestId('plan-badge');
  await page.getByTestId('plan-toggle').click();
  await expect(badge).toBeVisible();
  const input = page.getByTestId('composer-input');
  await input.focus();
  await input.press('Alt+p');
  await expect(badge).toBeHidden();
  await expect(input).toBeFocused();
  await expect(input).toHaveValue('');
  await input.press('Alt+p');
  await expect(badge).toBeVisible();
  // Shift+Tab is the browser's: focus moves back out of the message box,
  // and the mode stays.
  await input.press('Shift+Tab');
  await expect(input).not.toBeFocused();
  await expect(badge).toBeVisible();

  await input.fill('look around [[say:A plan.]]');
  await input.press('Enter');
  const card = page.getByTestId('plan-ready');
  await expect(card).toBeVisible({ timeout: 30_000 });
  const kept = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().endsWith('/mode'));
  await card.getByTestId('plan-keep').click();
  expect((await kept).status()).toBe(200);
  await expect(card).toBeHidden();
  await expect(badge).toBeVisible();
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(page.getByTestId('plan-badge')).toBeVisible();
  await expect(card).toBeHidden(); // answered: not offered again
});

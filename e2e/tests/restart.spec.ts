import { test, expect } from '../fixtures';

// A profile keeps its address and token across restarts (address.json), so
// a tab left open on a session reconnects by itself once myco is back, and
// works: no new link to open, no token to paste.

test('a tab left open reconnects by itself after a restart, and works', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Survives a restart', model: 'anthropic/fake-model' });
  await myco.start();
  const { url, token } = myco;
  await page.goto(myco.link(`/s/${id}`));
  const body = page.locator('body');
  await expect(body).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');
  await input.fill('before [[say:answered before the restart]]');
  await input.press('Enter');
  await expect(page.getByText('answered before the restart', { exact: true })).toBeVisible();
  await expect(body).toHaveAttribute('data-turn-running', 'false');

  await myco.stop();
  await expect(body).toHaveAttribute('data-stream', 'closed');
  // No --addr: the profile's remembered address and token.
  await myco.start([], null);
  expect(myco.url).toBe(url);
  expect(myco.token).toBe(token);

  // The same tab, never reloaded: its stream comes back and a turn runs.
  await expect(body).toHaveAttribute('data-stream', 'open');
  await input.fill('after [[say:answered after the restart]]');
  await input.press('Enter');
  await expect(page.getByText('answered after the restart', { exact: true })).toBeVisible();

  // A bookmark (the address without the token) opens in a new tab, and
  // would after the browser's restart too: the cookie outlives it.
  const [cookie] = await page.context().cookies(url);
  expect(cookie.expires * 1000).toBeGreaterThan(Date.now() + 7 * 24 * 3600 * 1000);
  const bookmark = await page.context().newPage();
  await bookmark.goto(`${url}/s/${id}`);
  await expect(bookmark.getByText('answered after the restart', { exact: true })).toBeVisible();
});

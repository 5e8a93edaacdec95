import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect } from '../fixtures';

// The first minute: a new profile's home page starts a session in a folder
// the person picks, without curl.

function tempFolder(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'myco-start-'));
}

test('the first session starts from an empty home page and answers', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  await myco.start();
  const folder = tempFolder();
  try {
    await page.goto(myco.link('/'));
    const empty = page.getByTestId('empty-list');
    await expect(empty).toContainText('No sessions yet');
    await expect(page.getByTestId('provider-line')).toHaveCount(0);
    await page.screenshot({ path: '/tmp/h10-home-empty-desktop.png' });

    await expect(empty.getByTestId('start-button')).toBeFocused(); // Enter opens the form
    await page.keyboard.press('Enter');
    const dialog = page.getByTestId('new-session-dialog');
    await expect(dialog).toBeVisible();
    const cwd = dialog.getByTestId('new-session-cwd');
    await expect(cwd).toBeFocused();
    await expect(cwd).not.toHaveValue(''); // the folder myco was started from
    await cwd.fill(folder);
    await dialog.getByTestId('new-session-title').fill('First steps');
    await dialog.getByTestId('new-session-create').click();

    await expect(page).toHaveURL(/\/s\/[0-9a-f-]{36}$/);
    await expect(page.getByTestId('session-title')).toHaveText('First steps');
    const input = page.getByTestId('composer-input');
    await expect(input).toBeFocused();
    await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');

    await page.keyboard.type('hello there');
    await page.keyboard.press('Enter');
    await expect(page.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText('You said: hello there', {
      timeout: 30_000,
    });
    const id = new URL(page.url()).pathname.split('/').pop()!;
    expect((await myco.doc(id)).cwd).toBe(folder);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
});

test('a folder the server refuses says why in the form, which stays open', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  await myco.start();
  await page.goto(myco.link('/'));
  await page.getByTestId('new-session-button').click();
  const dialog = page.getByTestId('new-session-dialog');
  const cwd = dialog.getByTestId('new-session-cwd');
  const error = dialog.getByTestId('new-session-error');

  const missing = path.join(os.tmpdir(), 'myco-start-missing-' + Date.now());
  await cwd.fill(missing);
  await cwd.press('Enter'); // Enter submits
  await expect(error).toHaveText(`folder ${missing} does not exist`);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: '/tmp/h10-dialog-phone.png' });
  await expect(cwd).toHaveAttribute('aria-invalid', 'true');
  await expect(cwd).toBeFocused();

  await cwd.fill('relative/path');
  await cwd.press('Enter');
  await expect(error).toContainText('is relative');

  await cwd.fill(myco.profileDir); // denied: myco's own files
  await cwd.press('Enter');
  await expect(error).toContainText('is denied');

  await cwd.fill('x');
  await expect(error).toBeHidden(); // typing clears the refusal
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(/\/(\?token=.*)?$/);
  expect(await (await myco.api('GET', '/api/sessions')).json()).toEqual([]);
});

test('the key opens the form from a session page, with recent folders', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const recent = tempFolder();
  try {
    const id = myco.writeSession({ title: 'Earlier work', cwd: recent, messages: [{ role: 'user', text: 'hi' }] });
    await myco.start();
    await page.goto(myco.link(`/s/${id}`));
    await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
    const input = page.getByTestId('composer-input');
    await expect(input).toBeFocused();
    await expect(page.getByTestId('composer')).toContainText('new session'); // the key hint

    await page.keyboard.press('Control+Shift+O');
    const dialog = page.getByTestId('new-session-dialog');
    await expect(dialog).toBeVisible();
    await expect(input).toHaveValue(''); // the key typed nothing into the composer
    const folder = dialog.getByTestId('recent-folder');
    await expect(folder).toHaveText(recent);

    // Esc closes the dialog and leaves the page as it was.
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(page).toHaveURL(new RegExp(`/s/${id}`));

    // The header's button opens it too; a recent folder fills the field.
    await page.getByTestId('new-session-button').click();
    await expect(dialog).toBeVisible();
    // Tab goes from Folder to Title (the chips are for a pointer), so a
    // title with spaces lands in the title, not in the folder.
    const cwd = dialog.getByTestId('new-session-cwd');
    const title = dialog.getByTestId('new-session-title');
    await cwd.focus();
    const typed = await cwd.inputValue();
    await page.keyboard.press('Tab');
    await expect(title).toBeFocused();
    await page.keyboard.type('Look at the logs');
    await expect(title).toHaveValue('Look at the logs');
    await expect(cwd).toHaveValue(typed);
    await dialog.getByTestId('recent-folder').click();
    await expect(cwd).toHaveValue(recent);
    await expect(title).toBeFocused();
    await dialog.getByTestId('new-session-create').click();
    await expect(page).not.toHaveURL(new RegExp(`/s/${id}`));
    await expect(page).toHaveURL(/\/s\/[0-9a-f-]{36}$/);
    await expect(page.getByTestId('composer-input')).toBeFocused();
  } finally {
    fs.rmSync(recent, { recursive: true, force: true });
  }
});

test('without a provider the pages say so in one line, and nothing covers the conversation', async ({ page, myco }) => {
  const long = Array.from({ length: 12 }, (_, i) => ({ role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant', text: `Message number ${i}. `.repeat(8) }));
  const id = myco.writeSession({ title: 'No provider yet', messages: long });
  await myco.start(); // no settings: no provider

  for (const size of [
    { width: 1280, height: 800, name: 'desktop' },
    { width: 390, height: 844, name: 'phone' },
  ]) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto(myco.link('/'));
    const line = page.getByTestId('provider-line');
    await expect(line).toBeVisible();
    await expect(line.getByRole('link', { name: 'set one up in Settings' })).toHaveAttribute('href', '/settings');
    // The header's Settings link (a gear on a phone) leaves "+ New" in view.
    await expect(page.getByRole('link', { name: 'Settings', exact: true })).toBeVisible();
    await expect(page.getByTestId('new-session-button')).toBeInViewport({ ratio: 1 });
    await page.screenshot({ path: `/tmp/h10-home-noprovider-${size.name}.png` });

    await page.goto(myco.link(`/s/${id}`));
    await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
    const help = page.getByTestId('provider-help');
    await expect(help).toBeVisible();
    await expect(help).toContainText('No model provider is configured');
    // One line, not a box over the conversation.
    const box = (await help.boundingBox())!;
    expect(box.height).toBeLessThan(size.width < 500 ? 70 : 40);
    const composer = (await page.getByTestId('composer').boundingBox())!;
    expect(composer.height).toBeLessThan(size.height / 3);
    await page.screenshot({ path: `/tmp/h10-session-noprovider-${size.name}.png` });
  }

  // The link leads to the Settings page, which sets a provider up.
  await page.getByTestId('provider-help').getByRole('link', { name: 'set one up in Settings' }).click();
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page.getByTestId('provider-row').filter({ hasText: 'anthropic' }).getByTestId('key-status')).toContainText('ANTHROPIC_API_KEY is not set');
  await expect(page.getByTestId('key-form').filter({ hasText: 'anthropic' })).toBeVisible();
});

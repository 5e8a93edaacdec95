import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { test, expect } from '../fixtures';

// Issue 24's composing parts: the @ picker (fuzzy, by Enter on a desk and
// by a tap on a phone), a session started in plan mode, the xhigh level
// of /think, and the app's manifest (Chromium finds it installable).

// project makes a session folder with a file to find, and others the
// picker must leave out (dependencies, build output, hidden files).
function project(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-picker-'));
  for (const f of ['src/app/runtime.ts', 'src/app/main.ts', 'README.md', 'node_modules/rt/runtime.ts', 'dist/runtime.js', '.venv/runtime.py', '.hidden/runtime.ts']) {
    fs.mkdirSync(path.join(dir, path.dirname(f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), 'export {};\n');
  }
  return dir;
}

const sizes = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, phone: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, phone: true },
];

for (const size of sizes) {
  test(`@rntm is picked from the list (${size.name})`, async ({ browser, myco, fake }) => {
    myco.useModels(fake.url);
    const dir = project();
    const id = myco.writeSession({ title: 'Picker', cwd: dir });
    await myco.start();
    const ctx = await browser.newContext({ viewport: size.viewport, isMobile: size.phone, hasTouch: size.phone });
    const page = await ctx.newPage();
    await page.goto(myco.link(`/s/${id}`));
    await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');

    const input = page.getByTestId('composer-input');
    await input.click();
    await input.pressSequentially('look at @rntm');
    const picker = page.getByTestId('path-picker');
    await expect(picker).toBeVisible();
    await expect(picker).toHaveAttribute('role', 'listbox');
    const options = picker.getByTestId('path-option');
    await expect(options.first()).toHaveAttribute('data-path', 'src/app/runtime.ts');
    await expect(options.first()).toHaveAttribute('aria-selected', 'true');
    await expect(input).toHaveAttribute('aria-activedescendant', 'path-option-0');
    // Dependencies, build output and hidden folders are left out.
    const all = await options.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.path));
    expect(all.filter((p) => /node_modules|dist|venv|hidden/.test(p || ''))).toEqual([]);

    if (size.phone) await options.first().tap();
    else await input.press('Enter');
    await expect(input).toHaveValue('look at @src/app/runtime.ts');
    await expect(picker).toBeHidden();
    await expect(input).toBeFocused();

    // Esc closes the list, and a word that names nothing stays text.
    await input.pressSequentially(' and @zzqqxx');
    await expect(picker).toBeHidden();
    await input.pressSequentially(' @READ');
    await expect(picker).toBeVisible();
    await input.press('Escape');
    await expect(picker).toBeHidden();
    await expect(input).toHaveValue('look at @src/app/runtime.ts and @zzqqxx @READ');
    await ctx.close();
  });

  test(`New session in plan mode shows the plan badge (${size.name})`, async ({ browser, myco, fake }) => {
    myco.useModels(fake.url);
    const dir = project();
    await myco.start();
    const ctx = await browser.newContext({ viewport: size.viewport, isMobile: size.phone, hasTouch: size.phone });
    const page = await ctx.newPage();
    await page.goto(myco.link('/'));
    await page.getByTestId('new-session-button').first().click();
    const dialog = page.getByTestId('new-session-dialog');
    await expect(dialog).toBeVisible();
    await dialog.getByTestId('new-session-cwd').fill(dir);
    await dialog.getByTestId('new-session-plan').check();
    await dialog.getByTestId('new-session-create').click();
    await expect(page).toHaveURL(/\/s\//);
    await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
    await expect(page.getByTestId('plan-badge')).toBeVisible();
    const sid = new URL(page.url()).pathname.split('/').pop()!;
    expect((await myco.doc(sid)).mode).toBe('plan');
    await ctx.close();
  });
}

test('/think xhigh is a level between high and max; reasoning expanded or folded per session', async ({ page, myco, fake }) => {
  myco.useModels(fake.url, { models: { 'anthropic/fake-model': { thinking: true } } });
  const id = myco.writeSession({ title: 'Think' });
  await myco.start();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');
  await input.fill('/think xhigh');
  await input.press('Enter');
  await expect(page.getByTestId('steering-chip')).toHaveText('think xhigh');
  await input.fill('/think');
  await input.press('Enter');
  await expect(page.getByTestId('composer')).toContainText('Thinking: xhigh');
  await expect(page.getByTestId('composer')).toContainText('high, xhigh, max');
  await input.fill('/think nonsense');
  await input.press('Enter');
  await expect(page.getByTestId('steering-chip')).toHaveText('think xhigh');

  // Reasoning shown expanded in this session: streamed, ended, reloaded.
  await input.fill('/think expanded');
  await input.press('Enter');
  await input.fill('[[think:first I weigh the options]] [[say:the answer]]');
  await input.press('Enter');
  const answer = page.locator('[data-testid="message"][data-role="assistant"]').last();
  await expect(answer).toContainText('the answer', { timeout: 30_000 });
  await expect(answer.getByTestId('thinking-summary')).toHaveText(/^Thought/);
  await expect(answer.getByTestId('thinking-text')).toHaveText('first I weigh the options');
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(answer.getByTestId('thinking-text')).toBeVisible();
  await input.fill('/think folded');
  await input.press('Enter');
  await expect(answer.getByTestId('thinking-text')).toBeHidden();
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(answer.getByTestId('thinking-summary')).toBeVisible();
  await expect(answer.getByTestId('thinking-text')).toBeHidden();
});

test('the manifest makes the app installable, and needs no token', async ({ myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Installable' });
  await myco.start();
  // Without the token: the manifest and its icons, nothing else.
  const bare = await fetch(`${myco.url}/manifest.webmanifest`);
  expect(bare.status).toBe(200);
  expect(bare.headers.get('content-type')).toContain('application/manifest+json');
  const manifest = await bare.json();
  expect(manifest).toMatchObject({ name: 'myco', start_url: '/', display: 'standalone' });
  expect(JSON.stringify(manifest)).not.toContain(myco.token);
  for (const icon of manifest.icons) {
    const r = await fetch(`${myco.url}${icon.src}`);
    expect(r.status, icon.src).toBe(200);
  }
  expect((await fetch(`${myco.url}/icons/../api/sessions`)).status).not.toBe(200);
  expect((await fetch(`${myco.url}/api/sessions`)).status).toBe(401);

  // A browser profile of its own: Chromium installs nothing in an
  // incognito context, which Playwright's contexts are.
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.MYCO_CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 800 },
  });
  try {
    const app = await browser.newPage();
    await installable(app, myco.link(`/s/${id}`));
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
});

async function installable(page, link: string) {
  await page.goto(link);
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(page).toHaveTitle(/Installable/);
  const cdp = await page.context().newCDPSession(page);
  await expect
    .poll(async () => {
      const r = await cdp.send('Page.getInstallabilityErrors');
      return r.installabilityErrors.map((e) => e.errorId);
    })
    .toEqual([]);
  const app = await cdp.send('Page.getAppManifest');
  expect(app.errors).toEqual([]);
}

// Tab completes an @word whole while the picker's own answer is on its
// way: the list that answer opens for the shorter word must not take the
// Enter that sends ("@hel", Tab, Enter once sent nothing, the fresh-clone
// run's notes.spec failure).
test('a Tab-completed file leaves Enter to send', async ({ page, myco, fake }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-at-'));
  fs.writeFileSync(path.join(dir, 'hello.txt'), 'hello there\n');
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Attach', model: 'anthropic/fake-model', cwd: dir });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  // The picker's answer lands first, the completion's after it.
  await page.route(/\/paths\?q=/, async (route) => {
    await new Promise((r) => setTimeout(r, 300));
    await route.continue();
  });
  await page.route(/\/paths\?prefix=/, async (route) => {
    await new Promise((r) => setTimeout(r, 1200));
    await route.continue();
  });
  const input = page.getByTestId('composer-input');
  await input.fill('look at @hel');
  await input.press('Tab');
  await expect(page.getByTestId('path-option').first()).toBeVisible(); // the list for "hel"
  await expect(input).toHaveValue('look at @hello.txt');
  await expect(page.getByTestId('path-option').first()).toBeHidden();
  await input.press('Enter');
  await expect.poll(async () => ((await myco.doc(id)).notes || [])[0]?.delivered_in ?? '').not.toBe('');
  await expect(input).toHaveValue('');
});

import fs from 'node:fs';
import type { Page } from '@playwright/test';
import { test, expect, send } from '../fixtures';

// Switching sessions in place (static/swap.js): a link to another session
// swaps the session's part of the page and keeps the document, its
// sidebar and the profile's stream.

const shots = '/tmp/shots-switch';
test.beforeAll(() => fs.mkdirSync(shots, { recursive: true }));

// mark sets a value on the document's window: a full page load loses it,
// a swap keeps it.
const mark = (page: Page) => page.evaluate(() => ((window as unknown as { __kept: number }).__kept = 1));
const kept = (page: Page) => page.evaluate(() => (window as unknown as { __kept?: number }).__kept === 1);

// shows waits for the page to show the titled session, live and ready to
// type in, as a page load of it would.
async function shows(page: Page, id: string, title: string) {
  await expect(page).toHaveURL(new RegExp(`/s/${id}$`));
  await expect(page.getByTestId('session-title')).toHaveText(title);
  await expect(page).toHaveTitle(title);
  await expect(page.locator('body')).toHaveAttribute('data-session-id', id);
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(page.getByTestId('composer-input')).toBeFocused();
  const current = page.locator('#sidebar a[aria-current="page"]');
  await expect(current).toHaveCount(1);
  await expect(current).toContainText(title);
}

function sidebarLink(page: Page, id: string) {
  return page.locator(`#sidebar [data-session-id="${id}"] a.sidebar-link`);
}

test('the sidebar swaps sessions in place: streams, history, reload, no listener left behind', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const ids = ['Alpha', 'Bravo', 'Charlie'].map((title) =>
    myco.writeSession({
      title,
      messages: [
        { role: 'user', text: `A question to ${title}` },
        { role: 'assistant', text: `An answer from ${title}` },
      ],
    }),
  );
  const [a, b, c] = ids;
  await myco.start();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(myco.link(`/s/${a}`));
  await shows(page, a, 'Alpha');
  await mark(page);

  // A → B: swapped, not loaded.
  await sidebarLink(page, b).click();
  await shows(page, b, 'Bravo');
  expect(await kept(page)).toBe(true);
  await expect(page.getByTestId('message')).toHaveCount(2);
  await expect(page.locator('#main > .session')).toContainText('An answer from Bravo');
  await expect(page.locator('#main > .session')).not.toContainText('Alpha');
  await expect(page.getByTestId('sidebar-row')).toHaveCount(3);
  await expect(page.locator('body')).toHaveAttribute('data-listing', 'open');

  // B → C → B: switched twice; then a message sent in B is one turn,
  // drawn once (a stream or a handler left over would draw it twice).
  await sidebarLink(page, c).click();
  await shows(page, c, 'Charlie');
  await sidebarLink(page, b).click();
  await shows(page, b, 'Bravo');
  expect(await kept(page)).toBe(true);
  const before = (await fake.chatRequests()).length;
  await send(page, '[[say:Bravo speaks once.]]');
  const answers = page.locator('[data-testid="message"][data-role="assistant"]').filter({ hasText: 'Bravo speaks once.' });
  await expect(answers).toHaveCount(1);
  await expect(page.locator('[data-testid="message"][data-streaming]')).toHaveCount(0);
  await expect(page.locator('[data-testid="message"][data-role="user"]').filter({ hasText: 'Bravo speaks once.' })).toHaveCount(1);
  expect((await answers.textContent())?.split('Bravo speaks once.').length).toBe(2);
  await expect(page.getByTestId('message')).toHaveCount(4);
  await expect.poll(async () => (await fake.chatRequests()).length).toBe(before + 1);

  // A turn in A, the session shown first, does not reach B's page.
  const r = await myco.api('POST', `/api/sessions/${a}/messages`, { text: '[[say:Alpha answers elsewhere.]]' });
  expect(r.status).toBe(202);
  await expect.poll(async () => (await fake.chatRequests()).length).toBe(before + 2);
  await expect
    .poll(async () => {
      const doc = await (await myco.api('GET', `/api/sessions/${a}`)).json();
      return JSON.stringify(doc);
    })
    .toContain('Alpha answers elsewhere.');
  await expect(page.locator('#main > .session')).not.toContainText('Alpha answers elsewhere.');
  await expect(page.getByTestId('message')).toHaveCount(4);

  // Back and forward swap too: B ← C ← B ← A, then forward to B.
  await page.goBack();
  await shows(page, c, 'Charlie');
  await page.goBack();
  await shows(page, b, 'Bravo');
  await page.goBack();
  await shows(page, a, 'Alpha');
  await expect(page.locator('#main > .session')).toContainText('Alpha answers elsewhere.'); // the page reads the document anew
  await page.goForward();
  await shows(page, b, 'Bravo');
  expect(await kept(page)).toBe(true);
  await page.screenshot({ path: `${shots}/switched-1280.png` });

  // A reload shows the same page, loaded whole.
  await page.reload();
  await shows(page, b, 'Bravo');
  expect(await kept(page)).toBe(false);
  await expect(answers).toHaveCount(1);
  await expect(page.getByTestId('message')).toHaveCount(4);
});

test('on a phone the drawer closes on a switch; a session that cannot be swapped is loaded', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const a = myco.writeSession({ title: 'Phone one', messages: [{ role: 'user', text: 'hello one' }] });
  const b = myco.writeSession({ title: 'Phone two', messages: [{ role: 'user', text: 'hello two' }] });
  await myco.start();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(myco.link(`/s/${a}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await mark(page);
  await page.getByTestId('sidebar-toggle').click();
  await sidebarLink(page, b).click();
  await expect(page.getByTestId('session-title')).toHaveText('Phone two');
  await expect(page.locator('body')).not.toHaveAttribute('data-drawer', 'open');
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  expect(await kept(page)).toBe(true);
  await page.screenshot({ path: `${shots}/switched-390.png` });

  // A session gone meanwhile: the swap falls back to loading the page,
  // which says what happened.
  expect((await myco.api('POST', `/api/sessions/${a}/archive`)).ok).toBe(true);
  expect((await myco.api('DELETE', `/api/sessions/${a}`)).ok).toBe(true);
  await page.evaluate((id) => {
    const link = document.createElement('a');
    link.href = `/s/${id}`;
    link.textContent = 'gone';
    link.id = 'gone-link';
    document.querySelector('#main')?.prepend(link);
  }, a);
  await page.locator('#gone-link').click();
  await expect(page).toHaveURL(new RegExp(`/s/${a}$`));
  await expect(page.locator('.error-page')).toBeVisible();
});

test('a message on its way when the tab swaps sessions lands in its own session and leaves the other composer alone', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const a = myco.writeSession({ title: 'Sender', messages: [{ role: 'user', text: 'first' }] });
  const b = myco.writeSession({ title: 'Elsewhere', messages: [{ role: 'user', text: 'second' }] });
  await myco.start();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(myco.link(`/s/${a}`));
  await shows(page, a, 'Sender');
  // The POST of A's message is held until B is on screen with the same
  // words typed in its composer.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(`**/api/sessions/${a}/messages`, async (route) => {
    await held;
    await route.continue();
  });
  const text = '[[say:Sent from A.]] same words';
  await page.getByTestId('composer-input').fill(text);
  await page.getByTestId('composer-input').press('Enter');
  await sidebarLink(page, b).click();
  await shows(page, b, 'Elsewhere');
  await page.getByTestId('composer-input').fill(text);
  release();
  await expect
    .poll(async () => JSON.stringify(await (await myco.api('GET', `/api/sessions/${a}`)).json()))
    .toContain('Sent from A.');
  // B's composer keeps what was typed there, with no note or error of A's.
  await page.waitForTimeout(300);
  await expect(page.getByTestId('composer-input')).toHaveValue(text);
  await expect(page.getByTestId('alerts')).toBeEmpty();
  // Back in A the message is in, and its draft does not come back.
  await sidebarLink(page, a).click();
  await shows(page, a, 'Sender');
  await expect(page.getByTestId('composer-input')).toHaveValue('');
  await expect(page.locator('[data-testid="message"][data-role="user"]').filter({ hasText: 'same words' })).toHaveCount(1);
});

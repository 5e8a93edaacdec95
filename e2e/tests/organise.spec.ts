import fs from 'node:fs';
import path from 'node:path';
import { test, expect } from '../fixtures';
import type { Myco } from '../fixtures';

// Organising sessions from the home page: pin (to the top, kept across a
// reload), rename in place, tags (chips that filter; bad ones refused
// with the reason), several rows archived at once and brought back by one
// Undo; and a row's menu in the session page's sidebar. At a desk's size
// and a phone's.

// seed writes four sessions, oldest first; "Infra work" is tagged infra
// in its header, as a person's PATCH would leave it.
function seed(myco: Myco): string[] {
  const t0 = Date.parse('2026-11-20T10:00:00Z');
  const ids = ['Oldest notes', 'Infra work', 'Draft the talk', 'Newest idea'].map((title, i) =>
    myco.writeSession({ title, updated_at: new Date(t0 + i * 60_000).toISOString(), messages: [{ role: 'user', text: 'hi' }] }),
  );
  const file = path.join(myco.sessionDir, `${ids[1]}.json`);
  fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), tags: ['infra'] }, null, 1));
  return ids;
}

for (const size of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
  const phone = size.width < 500;
  test.describe(`at ${size.width}×${size.height}`, () => {
    test.use({ viewport: size, hasTouch: phone, isMobile: phone });

    test('pin, rename in place, tag chips filter, bulk archive with one Undo', async ({ page, myco }) => {
      const [oldest, infra, draft] = seed(myco);
      await myco.start();
      await page.goto(myco.link('/'));
      await expect(page.locator('body')).toHaveAttribute('data-listing', 'open');
      const rows = page.getByTestId('session-row');
      await expect(rows).toHaveCount(4);
      await expect(rows.first()).toContainText('Newest idea');

      // Pin the oldest: it moves to the top, and stays there after a reload.
      const row = (title: string) => rows.filter({ hasText: title });
      await row('Oldest notes').getByTestId('row-menu').click();
      await expect(page.getByTestId('row-menu-list')).toBeVisible();
      await page.getByTestId('menu-pin').click();
      await expect(rows.first()).toContainText('Oldest notes');
      await expect(rows.first().getByTestId('pin-mark')).toBeVisible();
      await page.reload();
      await expect(rows.first()).toContainText('Oldest notes');
      await expect.poll(async () => (await myco.doc(oldest)).pinned).toBe(true);

      // The menu is reachable from the keyboard: Escape gives the focus back.
      await row('Draft the talk').getByTestId('row-menu').focus();
      await page.keyboard.press('Enter');
      await expect(page.getByTestId('menu-rename')).toBeFocused();
      await page.keyboard.press('ArrowDown');
      await expect(page.getByTestId('menu-pin')).toBeFocused();
      await page.keyboard.press('Escape');
      await expect(page.getByTestId('row-menu-list')).toHaveCount(0);
      await expect(row('Draft the talk').getByTestId('row-menu')).toBeFocused();

      // Rename in place.
      await row('Draft the talk').getByTestId('row-menu').click();
      await page.getByTestId('menu-rename').click();
      const input = page.getByTestId('rename-input');
      await expect(input).toBeFocused();
      await input.fill('Talk for Friday');
      await input.press('Enter');
      await expect(row('Talk for Friday')).toHaveCount(1);
      await expect.poll(async () => (await myco.doc(draft)).title).toBe('Talk for Friday');

      // Tags: a bad one is refused with the reason, and what was typed stays.
      await row('Talk for Friday').getByTestId('row-menu').click();
      await page.getByTestId('menu-tags').click();
      const tags = page.getByTestId('tags-input');
      await tags.fill(`talks, ${'x'.repeat(33)}`);
      await tags.press('Enter');
      await expect(page.getByTestId('error-toast')).toContainText('the most is 32');
      await expect(tags).toHaveValue(`talks, ${'x'.repeat(33)}`);
      await tags.fill('talks, infra');
      await tags.press('Enter');
      await expect(row('Talk for Friday').getByTestId('tag-chip')).toHaveText(['talks', 'infra']);

      // A chip filters the listing by its tag.
      await row('Infra work').getByTestId('tag-chip').click();
      await expect(page).toHaveURL(/\?tag=infra/);
      await expect(page.getByTestId('tag-filter')).toContainText('infra');
      await expect(rows).toHaveCount(2);
      await expect(row('Oldest notes')).toHaveCount(0);
      await page.getByTestId('tag-filter-clear').click();
      await expect(rows).toHaveCount(4);

      // Three rows at once: a checkbox, then Shift on the third's.
      await rows.nth(1).getByTestId('row-select').check();
      await rows.nth(3).getByTestId('row-select').click({ modifiers: ['Shift'] });
      await expect(page.getByTestId('bulk-count')).toHaveText('3 selected');
      await page.getByTestId('bulk-archive').click();
      await expect(rows).toHaveCount(1);
      await expect(rows.first()).toContainText('Oldest notes');
      await expect(page.getByTestId('undo-notice')).toContainText('3 sessions archived');
      await expect(page.getByTestId('bulk-bar')).toBeHidden();
      await page.getByTestId('undo-button').click();
      await expect(rows).toHaveCount(4);
      await expect(rows.first()).toContainText('Oldest notes');
      await expect.poll(() => myco.exists(`${infra}.json`)).toBe(true);
      await page.screenshot({ path: test.info().outputPath(`home-${size.width}.png`) });
    });

    test('the sidebar row menu pins and archives', async ({ page, myco }) => {
      const [oldest, , , newest] = seed(myco);
      await myco.start();
      await page.goto(myco.link(`/s/${newest}`));
      if (phone) await page.getByTestId('sidebar-toggle').click();
      const rows = page.getByTestId('sidebar-row');
      await expect(rows).toHaveCount(4);
      await expect(rows.filter({ hasText: 'Infra work' }).getByTestId('tag-chip')).toHaveText('infra');
      await rows.filter({ hasText: 'Oldest notes' }).getByTestId('row-menu').click();
      await page.getByTestId('menu-pin').click();
      await expect(rows.first()).toContainText('Oldest notes');
      await expect(rows.first().getByTestId('pin-mark')).toBeVisible();
      await page.screenshot({ path: test.info().outputPath(`sidebar-${size.width}.png`) });
      await rows.filter({ hasText: 'Oldest notes' }).getByTestId('row-menu').click();
      await page.getByTestId('menu-archive').click();
      await expect(page.getByTestId('undo-notice')).toContainText('“Oldest notes” archived');
      await expect(rows).toHaveCount(3);
      await expect.poll(() => myco.exists('archived', `${oldest}.json`)).toBe(true);
    });
  });
}

// A change elsewhere (another tab, the CLI, an agent's title) refreshes the
// listing; while a row's menu is open, or its title is edited in place,
// that refresh waits, so the row is not replaced under the person: the
// rename lands on the row they chose, and the change shows after it.
test('a listing change waits while a row is worked on', async ({ page, myco }) => {
  const [oldest, infra] = seed(myco);
  await myco.start();
  await page.goto(myco.link('/'));
  await expect(page.locator('body')).toHaveAttribute('data-listing', 'open');
  const rows = page.getByTestId('session-row');
  const row = (title: string) => rows.filter({ hasText: title });
  await row('Oldest notes').getByTestId('row-menu').click();
  const menuRow = await row('Oldest notes').elementHandle();
  expect((await myco.api('PATCH', `/api/sessions/${infra}`, { title: 'Infra, renamed elsewhere' })).status).toBe(200);
  // The profile stream tells the page; its refresh would land well within this.
  await page.waitForTimeout(1500);
  expect(await menuRow!.evaluate((e) => e.isConnected)).toBe(true);
  await expect(row('Infra, renamed elsewhere')).toHaveCount(0);

  await page.getByTestId('menu-rename').click();
  const input = page.getByTestId('rename-input');
  await expect(input).toBeFocused();
  await page.waitForTimeout(1000);
  await input.fill('Oldest, renamed here');
  await input.press('Enter');
  await expect.poll(async () => (await myco.doc(oldest)).title).toBe('Oldest, renamed here');
  await expect(row('Oldest, renamed here')).toHaveCount(1);
  await expect(row('Infra, renamed elsewhere')).toHaveCount(1);
});

import fs from 'node:fs';
import path from 'node:path';
import { test, expect, newID } from '../fixtures';

test('home lists sessions newest first, search filters, damaged rows have no actions', async ({ page, myco }) => {
  const t0 = Date.parse('2026-11-20T10:00:00Z');
  const ids = ['Fix the flaky test', 'Refactor the parser', 'Write release notes'].map((title, i) =>
    myco.writeSession({ title, model: i === 1 ? 'openai/gpt-4.1' : 'anthropic/claude-sonnet-4-5', updated_at: new Date(t0 + i * 60_000).toISOString(), messages: [{ role: 'user', text: 'hi' }] }),
  );
  const damaged = newID();
  fs.writeFileSync(path.join(myco.sessionDir, `${damaged}.json`), '{"schema": 1, "id": "' + damaged + '", "title": "cut');
  await myco.start();

  await page.goto(myco.link('/'));
  const rows = page.getByTestId('session-row');
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText('Write release notes');
  await expect(rows.nth(2)).toContainText('Fix the flaky test');
  await expect(rows.nth(0)).toContainText('1 message');
  // Plain links: a click stays in the tab, Ctrl-click or middle-click opens a new one.
  await expect(page.getByTestId('session-link').first()).not.toHaveAttribute('target', /./);
  await expect(page.getByTestId('session-link').first()).toHaveAttribute('href', `/s/${ids[2]}`);

  const bad = page.getByTestId('damaged-row');
  await expect(bad).toHaveCount(1);
  await expect(bad).toContainText(damaged);
  await expect(bad.getByRole('button')).toHaveCount(0);

  await page.getByTestId('search-input').fill('PARSER');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Refactor the parser');
  await page.getByTestId('search-input').fill('gpt-4.1');
  await expect(rows).toHaveCount(1);
  await page.getByTestId('search-input').fill(ids[0].slice(-8));
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Fix the flaky test');
  await page.getByTestId('search-input').fill('');
  await expect(rows).toHaveCount(3);
});

test('archive then restore moves the files and keeps the archived URL archived', async ({ page, myco }) => {
  const id = myco.writeSession({ title: 'Archive me', messages: [{ role: 'user', text: 'hello' }] });
  fs.writeFileSync(path.join(myco.sessionDir, `${id}.console`), '$ make test\nok\n');
  await myco.start();

  await page.goto(myco.link('/'));
  await page.getByTestId('session-row').filter({ hasText: 'Archive me' }).getByTestId('archive-button').click();
  await expect(page.getByTestId('session-row')).toHaveCount(0);
  // The files move after the row goes: wait for each of them.
  await expect.poll(() => myco.exists('archived', `${id}.json`)).toBe(true);
  await expect.poll(() => myco.exists('archived', `${id}.console`)).toBe(true);
  await expect.poll(() => myco.exists(`${id}.json`)).toBe(false);
  expect(myco.exists(`${id}.lock`) || !myco.exists('archived', `${id}.lock`)).toBe(true);

  // The archived page opens read-only, and opening it does not restore it.
  await page.goto(`${myco.url}/s/${id}`);
  await expect(page.getByTestId('archived-banner')).toBeVisible();
  await expect(page.getByTestId('composer')).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('archived-banner')).toBeVisible();
  expect(myco.exists('archived', `${id}.json`)).toBe(true);
  await expect(page.getByTestId('sidecar')).toContainText('Console');

  await page.goto(`${myco.url}/archived`);
  const row = page.getByTestId('session-row').filter({ hasText: 'Archive me' });
  await expect(row).toHaveCount(1);
  await row.getByTestId('restore-button').click();
  await expect(row).toHaveCount(0);
  await expect.poll(() => myco.exists(`${id}.json`)).toBe(true);
  await expect.poll(() => myco.exists(`${id}.console`)).toBe(true);
  await expect.poll(() => myco.exists('archived', `${id}.json`)).toBe(false);

  await page.goto(`${myco.url}/`);
  await expect(page.getByTestId('session-row')).toHaveCount(1);
});

test('restore from the archived session page', async ({ page, myco }) => {
  const id = myco.writeSession({ title: 'Old one', archived: true }, 'archived');
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.getByTestId('archived-banner')).toBeVisible();
  await page.getByTestId('restore-button').click();
  await expect(page.getByTestId('archived-banner')).toHaveCount(0);
  await expect.poll(() => myco.exists(`${id}.json`)).toBe(true);
});

// The listing's columns fit their contents and line up down the page, and
// the title takes the rest: at 1280 px a 50-character title is whole
// (fixed columns once left it 190 px, cut after 20 characters).
test('the title column takes the room the other columns leave', async ({ page, myco }) => {
  const long = 'Fix the flaky integration test in the payments service';
  myco.writeSession({ title: long, model: 'anthropic/claude-sonnet-4-5', messages: [{ role: 'user', text: 'hi' }] });
  myco.writeSession({ title: 'Short', model: 'openai/gpt-4.1', messages: [{ role: 'user', text: 'hi' }] });
  await myco.start();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(myco.link('/'));
  const rows = page.getByTestId('session-row');
  await expect(rows).toHaveCount(2);
  const title = rows.filter({ hasText: long }).getByTestId('session-link');
  const cut = await title.evaluate((el) => el.scrollWidth > el.clientWidth);
  expect(cut, 'the long title is cut off').toBe(false);
  // Every column starts at the same x in both rows.
  const lefts = await rows.evaluateAll((els) =>
    els.map((row) => ['.model', '.when', '.count', '.actions'].map((sel) => Math.round(row.querySelector(sel)!.getBoundingClientRect().left))),
  );
  expect(lefts[0]).toEqual(lefts[1]);
});

import fs from 'node:fs';
import { test, expect, Myco } from '../fixtures';
import type { Page } from '@playwright/test';

// Fork, rewind, lineage and delete in the tab (issue 11). Screenshots of a
// fork's page and of the archived page asking before a delete go to
// /tmp/shots-fork/, at a desktop and a phone size.

const shots = '/tmp/shots-fork';
const sizes = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
];

async function screenshots(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  const was = page.viewportSize();
  for (const s of sizes) {
    await page.setViewportSize({ width: s.width, height: s.height });
    await page.evaluate(() => window.scrollTo(0, 0)); // the title and what is under it
    await page.screenshot({ path: `${shots}/${name}-${s.name}.png` });
  }
  if (was) await page.setViewportSize(was);
}

// threeTurns is a session of three questions and their answers.
function threeTurns(myco: Myco, title: string): string {
  return myco.writeSession({
    title,
    messages: [
      { role: 'user', text: 'Why is TestServe flaky?' },
      { role: 'assistant', text: 'It binds a fixed port.' },
      { role: 'user', text: 'Try port 0 instead' },
      { role: 'assistant', text: 'Done: it listens on port 0 now.' },
      { role: 'user', text: 'And the other test?' },
      { role: 'assistant', text: 'That one sleeps; it should wait on the event.' },
    ],
  });
}

test('Fork on a message opens the fork with its lineage; the link lands on the fork point; the parent lists the fork', async ({ page, myco }) => {
  const parent = threeTurns(myco, 'Flaky tests');
  await myco.start();
  await page.goto(myco.link(`/s/${parent}`));
  const messages = page.getByTestId('message');
  await expect(messages).toHaveCount(6);
  await expect(page.getByTestId('forks-panel')).toHaveCount(0);

  // Fork at the second answer: the fork keeps the first two turns.
  const at = messages.nth(3);
  const atID = await at.getAttribute('data-message-id');
  await at.hover();
  await at.getByTestId('fork-message').click();
  await expect(page).not.toHaveURL(new RegExp(parent));
  await expect(page.getByTestId('session-title')).toHaveText('Fork of Flaky tests');
  await expect(page).toHaveTitle('Fork of Flaky tests');
  const lineage = page.getByTestId('lineage');
  await expect(lineage).toContainText('Forked from Flaky tests');
  await expect(lineage).toContainText('at turn 2, “Try port 0 instead”');
  await expect(messages).toHaveCount(4);
  await expect(messages.last()).toContainText('Done: it listens on port 0 now.');
  const forkID = new URL(page.url()).pathname.split('/').pop()!;
  const row = page.locator(`[data-testid="sidebar-row"][data-session-id="${forkID}"]`);
  await expect(row.getByTestId('sidebar-parent')).toHaveText('↳ from Flaky tests');
  await expect(page.getByTestId('panel-parent')).toHaveText('Flaky tests');
  await screenshots(page, 'fork-page');

  // The home page marks the fork too.
  await page.goto(myco.link('/'));
  const homeRow = page.locator(`[data-testid="session-row"][data-session-id="${forkID}"]`);
  await expect(homeRow.getByTestId('row-parent')).toHaveText('↳ from Flaky tests');
  await expect(homeRow.getByTestId('session-link')).toContainText('Fork of Flaky tests');

  // Back to the parent at the fork point, highlighted as a search hit is.
  await page.goBack();
  await expect(page.getByTestId('session-title')).toHaveText('Fork of Flaky tests');
  await page.getByTestId('lineage-link').click();
  await expect(page).toHaveURL(new RegExp(`/s/${parent}#m-${atID}$`));
  await expect(page.locator(`[data-message-id="${atID}"]`)).toHaveClass(/search-target/);
  await expect(page.locator(`[data-message-id="${atID}"]`)).toBeInViewport();

  // The parent lists its fork, which opens it.
  const forks = page.getByTestId('forks-panel');
  await expect(forks.getByTestId('fork-link')).toHaveText(['Fork of Flaky tests']);
  await forks.getByTestId('fork-link').click();
  await expect(page).toHaveURL(new RegExp(`/s/${forkID}$`));

  // The parent was only read.
  expect((await myco.doc(parent)).threads[0].messages).toHaveLength(6);
});

test('no Fork on an earlier thread’s messages', async ({ page, myco }) => {
  const id = myco.writeSession({
    title: 'Compacted',
    threads: [
      { messages: [{ role: 'user', text: 'old question' }, { role: 'assistant', text: 'old answer' }] },
      { compacted_from: 0, summary: 'We talked.', messages: [{ role: 'user', text: 'new question' }, { role: 'assistant', text: 'new answer' }] },
    ],
  });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  const latest = page.getByTestId('thread');
  await expect(latest.getByTestId('fork-message')).toHaveCount(2);
  const earlier = page.getByTestId('earlier-thread');
  await earlier.locator('summary').first().click();
  await expect(earlier.getByTestId('message')).toHaveCount(2);
  await expect(earlier.getByTestId('fork-message')).toHaveCount(0);
});

test('/rewind leaves out the last turn and opens the fork; too many turns says why', async ({ page, myco }) => {
  const parent = threeTurns(myco, 'Rewound');
  await myco.start();
  await page.goto(myco.link(`/s/${parent}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');
  await input.fill('/rewind');
  await input.press('Enter');
  await expect(page).not.toHaveURL(new RegExp(parent));
  await expect(page.getByTestId('session-title')).toHaveText('Fork of Rewound');
  const messages = page.getByTestId('message');
  await expect(messages).toHaveCount(4);
  await expect(messages.last()).toContainText('Done: it listens on port 0 now.');
  await expect(page.getByTestId('lineage')).toContainText('at turn 2');

  // The fork has two turns: leaving out five is the server's error, shown.
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await input.fill('/rewind 5');
  await input.press('Enter');
  await expect(page.locator('#alerts')).toContainText('cannot drop 5 turns: the latest thread has 2');
  await expect(input).toHaveValue('/rewind 5');
  expect((await myco.doc(parent)).threads[0].messages).toHaveLength(6);
});

test('/fork copies the whole session; /resume @last opens the newest other session', async ({ page, myco }) => {
  const older = myco.writeSession({ title: 'Older', updated_at: '2026-01-01T10:00:00Z', messages: [{ role: 'user', text: 'hi' }] });
  const parent = threeTurns(myco, 'Whole');
  await myco.start();
  await page.goto(myco.link(`/s/${parent}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');
  await input.fill('/fork');
  await input.press('Enter');
  await expect(page.getByTestId('session-title')).toHaveText('Fork of Whole');
  await expect(page.getByTestId('message')).toHaveCount(6);
  await expect(page.getByTestId('lineage')).toContainText('at turn 3');

  // From the parent, @last is not the parent itself but the fork, the
  // newest other one; from the older session it is the newest of all.
  const forkID = new URL(page.url()).pathname.split('/').pop()!;
  await page.goto(myco.link(`/s/${older}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await input.fill('/resume @last');
  await input.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/s/${forkID}$`));
});

test('the archived page deletes a session after asking; the archived page of a session deletes it too', async ({ page, myco }) => {
  const gone = myco.writeSession({ title: 'Old experiment', messages: [{ role: 'user', text: 'x' }] }, 'archived');
  const kept = myco.writeSession({ title: 'Keep me', messages: [{ role: 'user', text: 'y' }] }, 'archived');
  await myco.start();
  await page.goto(myco.link('/archived'));
  const row = page.locator(`[data-testid="session-row"][data-session-id="${gone}"]`);
  const confirm = row.getByTestId('delete-confirm');
  await expect(confirm).toBeHidden();

  // The first Delete only asks; Cancel takes it back.
  await row.getByTestId('delete-button').click();
  await expect(row).toContainText('Delete for good?');
  await expect(confirm).toBeVisible();
  await expect(row.getByTestId('delete-cancel')).toBeFocused();
  await screenshots(page, 'archived-delete-confirm');
  await row.getByTestId('delete-cancel').click();
  await expect(confirm).toBeHidden();
  await expect(row.getByTestId('delete-button')).toBeFocused();
  expect((await myco.api('GET', `/api/sessions/${gone}`)).status).toBe(200);

  await row.getByTestId('delete-button').click();
  await confirm.click();
  await expect(row).toHaveCount(0);
  expect((await myco.api('GET', `/api/sessions/${gone}`)).status).toBe(404);
  await expect(page.locator(`[data-testid="session-row"][data-session-id="${kept}"]`)).toBeVisible();

  // The archived session's own page: Delete beside Restore, then the
  // archived listing.
  await page.goto(myco.link(`/s/${kept}`));
  const banner = page.getByTestId('archived-banner');
  await banner.getByTestId('delete-button').click();
  await banner.getByTestId('delete-confirm').click();
  await expect(page).toHaveURL(/\/archived$/);
  expect((await myco.api('GET', `/api/sessions/${kept}`)).status).toBe(404);
});

import fs from 'node:fs';
import { test, expect } from '../fixtures';

const shots = '/tmp/shots-sidebar';

test.beforeAll(() => fs.mkdirSync(shots, { recursive: true }));

test('the sidebar follows the CLI, new sessions, archives; its rows are plain links', async ({ page, context, myco }) => {
  const t0 = Date.now() - 3 * 3600_000;
  const ids = ['Fix the flaky test', 'Refactor the parser', 'Write release notes'].map((title, i) =>
    myco.writeSession({
      title,
      cwd: i === 1 ? '/tmp' : '/var/tmp',
      updated_at: new Date(t0 + i * 60_000).toISOString(),
      messages: [{ role: 'user', text: 'hi' }],
    }),
  );
  await myco.start();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(myco.link(`/s/${ids[1]}`));
  await expect(page.locator('body')).toHaveAttribute('data-listing', 'open');

  const side = page.getByTestId('sidebar');
  const rows = side.getByTestId('sidebar-row');
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText('Write release notes');
  await expect(side.getByTestId('sidebar-link').and(page.locator('[aria-current="page"]'))).toContainText('Refactor the parser');

  // Renamed from the CLI: `myco sessions title` goes through the running server.
  const r = await myco.cli('sessions', 'title', ids[0], 'Fixed by the CLI');
  expect(r.code, r.stderr).toBe(0);
  await expect(rows.filter({ hasText: 'Fixed by the CLI' })).toHaveCount(1);

  // A session another process writes into the profile appears.
  myco.writeSession({ title: 'Written elsewhere', cwd: '/tmp', messages: [{ role: 'user', text: 'hi' }] });
  await expect(rows.first()).toContainText('Written elsewhere');

  // One created through the API appears; an archived one leaves.
  const made = await (await myco.api('POST', '/api/sessions', { title: 'Made by a script' })).json();
  await expect(rows.filter({ hasText: 'Made by a script' })).toHaveCount(1);
  await myco.api('POST', `/api/sessions/${made.id}/archive`);
  await expect(rows.filter({ hasText: 'Made by a script' })).toHaveCount(0);
  await expect(rows).toHaveCount(4);

  // Grouped by folder, remembered across pages.
  await side.getByTestId('sidebar-group').click();
  await expect(side.getByTestId('sidebar-folder')).toHaveCount(2);
  await expect(side.getByTestId('sidebar-folder').first()).toContainText('/tmp');
  await expect(side.getByTestId('sidebar-folder').nth(1)).toContainText('/var/tmp');
  await page.screenshot({ path: `${shots}/sidebar-1280-grouped.png` });
  await page.reload();
  await expect(side.getByTestId('sidebar-folder')).toHaveCount(2);
  await side.getByTestId('sidebar-group').click();
  await expect(side.getByTestId('sidebar-folder')).toHaveCount(0);

  // Search: titles, models and IDs.
  await side.getByTestId('sidebar-search').fill('parser');
  await expect(rows).toHaveCount(1);
  await side.getByTestId('sidebar-search').fill('');
  await expect(rows).toHaveCount(4);
  await page.screenshot({ path: `${shots}/sidebar-1280.png` });

  // Ctrl-click opens a new tab and leaves this one where it is.
  const link = rows.filter({ hasText: 'Write release notes' }).getByTestId('sidebar-link');
  const opened = context.waitForEvent('page');
  await link.click({ modifiers: ['Control'] });
  const tab = await opened;
  await tab.waitForLoadState();
  expect(new URL(tab.url()).pathname).toBe(`/s/${ids[2]}`);
  expect(new URL(page.url()).pathname).toBe(`/s/${ids[1]}`);
  await tab.close();

  // A plain click moves this tab to the session.
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/s/${ids[2]}$`));
  await expect(page.getByTestId('session-title')).toHaveText('Write release notes');

  // Hidden, and remembered.
  await expect(page.locator('body')).toHaveAttribute('data-listing', 'open');
  const toggle = page.getByTestId('sidebar-toggle');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await toggle.click();
  await expect(side).toBeHidden();
  await page.reload();
  await expect(side).toBeHidden();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.click();
  await expect(side).toBeVisible();
});

test('a session waiting for an approval says so in the sidebar and on the home page', async ({ page, context, myco, fake }) => {
  myco.useModels(fake.url);
  const busy = myco.writeSession({ title: 'Needs a yes', model: 'anthropic/fake-model' });
  const other = myco.writeSession({ title: 'Bystander', model: 'anthropic/fake-model' });
  await myco.start();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(myco.link(`/s/${other}`));
  await expect(page.locator('body')).toHaveAttribute('data-listing', 'open');
  const home = await context.newPage();
  await home.goto(myco.link('/'));
  await expect(home.locator('body')).toHaveAttribute('data-listing', 'open');

  const r = await myco.api('POST', `/api/sessions/${busy}/messages`, { text: '[[tool:bash {"command":"echo hi"}]]' });
  expect(r.status).toBe(202);
  const row = page.getByTestId('sidebar-row').filter({ hasText: 'Needs a yes' });
  await expect(row).toHaveAttribute('data-status', 'waiting');
  await expect(row.getByTestId('session-status')).toContainText('Waiting');
  const homeRow = home.getByTestId('session-row').filter({ hasText: 'Needs a yes' });
  await expect(homeRow).toHaveAttribute('data-status', 'waiting');
  await expect(homeRow.getByTestId('session-status')).toContainText('Waiting for you');
  await page.screenshot({ path: `${shots}/sidebar-1280-waiting.png` });
  await home.screenshot({ path: `${shots}/home-1280-waiting.png` });

  // Answered (through the API, as the approval card would): no longer waiting.
  await expect
    .poll(async () => {
      const doc = await myco.doc(busy);
      const msgs = doc.threads.at(-1).messages;
      return msgs.flatMap((m: any) => m.content).filter((b: any) => b.type === 'tool_use').map((b: any) => b.id);
    })
    .toHaveLength(1);
  const doc = await myco.doc(busy);
  const toolID = doc.threads.at(-1).messages.flatMap((m: any) => m.content).find((b: any) => b.type === 'tool_use').id;
  const ok = await myco.api('POST', `/api/sessions/${busy}/approvals/${toolID}`, { decision: 'once' });
  expect(ok.status).toBe(200);
  await expect(page.getByTestId('sidebar-row').filter({ hasText: 'Needs a yes' })).toHaveAttribute('data-status', 'idle');
  await expect(homeRow).toHaveAttribute('data-status', 'idle');
});

test('on a phone the sidebar is a drawer over the conversation', async ({ page, myco }) => {
  const ids = ['First', 'Second'].map((title) => myco.writeSession({ title, messages: [{ role: 'user', text: 'hello' }] }));
  await myco.start();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(myco.link(`/s/${ids[0]}`));
  await expect(page.locator('body')).toHaveAttribute('data-listing', 'open');
  const side = page.getByTestId('sidebar');
  const toggle = page.getByTestId('sidebar-toggle');
  await expect(side).toBeHidden();
  await expect(page.getByTestId('composer')).toBeVisible();
  await page.screenshot({ path: `${shots}/session-390.png` });

  await toggle.click();
  await expect(side).toBeVisible();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  const box = (await side.boundingBox())!;
  expect(box.x).toBe(0);
  expect(box.width).toBeLessThan(390);
  await page.screenshot({ path: `${shots}/drawer-390.png` });
  await page.keyboard.press('Escape');
  await expect(side).toBeHidden();
  await expect(toggle).toBeFocused();

  await toggle.click();
  await side.getByTestId('sidebar-link').filter({ hasText: 'Second' }).click();
  await expect(page).toHaveURL(new RegExp(`/s/${ids[1]}$`));
  await expect(side).toBeHidden();
});

test('tabs share one listing stream, and another tab takes it over when its holder closes', async ({ context, myco }) => {
  const id = myco.writeSession({ title: 'First', messages: [{ role: 'user', text: 'hi' }] });
  await myco.start();
  let streams = 0;
  context.on('request', (req) => {
    if (new URL(req.url()).pathname === '/api/events') streams++;
  });
  const first = await context.newPage();
  await first.goto(myco.link(`/s/${id}`));
  await expect(first.locator('body')).toHaveAttribute('data-listing', 'open');
  const second = await context.newPage();
  await second.goto(myco.link('/'));
  await expect(second.locator('body')).toHaveAttribute('data-listing', 'open');
  expect(streams).toBe(1);

  // The holder goes: the other tab opens the stream and still follows.
  await first.close();
  await expect.poll(() => streams).toBe(2);
  await myco.api('POST', '/api/sessions', { title: 'Made after the handover' });
  await expect(second.getByTestId('session-row').filter({ hasText: 'Made after the handover' })).toHaveCount(1);
});

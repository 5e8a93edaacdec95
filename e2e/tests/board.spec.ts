import { test, expect } from '../fixtures';

// The board on the home page follows the profile live: a session that
// waits for an approval needs you, one whose turn runs works, and an
// answer nobody looked at is done since you last looked, until its page
// is opened. A session page's sidebar says how many need you.
test('the board says what needs you, what works, and what is done', async ({ page, myco, fake, context }) => {
  test.setTimeout(90_000);
  myco.useModels(fake.url);
  const asking = myco.writeSession({ title: 'Asking' });
  const busy = myco.writeSession({ title: 'Busy' });
  const quiet = myco.writeSession({ title: 'Quiet' });
  await myco.start();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(myco.link('/'));
  await expect(page.locator('body')).toHaveAttribute('data-listing', 'open');
  const board = page.getByTestId('board');
  await expect(board).toBeHidden(); // nothing needs anyone yet

  const post = async (id: string, text: string) =>
    expect((await myco.api('POST', `/api/sessions/${id}/messages`, { text })).status).toBe(202);
  await post(asking, 'look [[tool:bash {"command":"echo hi"}]]');
  await post(busy, '[[text:300]] [[delay:100ms]]');
  await post(quiet, '[[say:finished the report]]');

  const needs = board.getByTestId('board-needs');
  const working = board.getByTestId('board-working');
  const done = board.getByTestId('board-done');
  await expect(needs.locator(`[data-session="${asking}"]`)).toContainText('waits for your approval');
  await expect(working.locator(`[data-session="${busy}"]`)).toContainText('Busy');
  await expect(done.locator(`[data-session="${quiet}"]`)).toContainText('Quiet');
  await page.screenshot({ path: '/tmp/shots-board/home-desktop.png' });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: '/tmp/shots-board/home-phone.png' });
  await page.setViewportSize({ width: 1280, height: 800 });

  // A session page's sidebar counts them, and links to the board.
  const other = await context.newPage();
  await other.setViewportSize({ width: 1280, height: 800 });
  await other.goto(myco.link(`/s/${quiet}`));
  await expect(other.getByTestId('sidebar-board')).toContainText('1 needs you');
  await expect(other.getByTestId('sidebar-board')).toContainText('working');
  await other.screenshot({ path: '/tmp/shots-board/sidebar.png' });
  await other.close();
  // Looking at the quiet session took it off the board (which the home
  // page fetches again as the listing changes, or on its next load).
  await page.reload();
  await expect(page.getByTestId('board-needs').locator(`[data-session="${asking}"]`)).toHaveCount(1);
  await expect(page.getByTestId('board').locator(`[data-session="${quiet}"]`)).toHaveCount(0);

  // Its row opens the session that asks; approving takes it off.
  await needs.locator(`[data-session="${asking}"] a`).click();
  await expect(page).toHaveURL(new RegExp(`/s/${asking}$`));
  await page.getByTestId('approval').locator('[data-decision="once"]').click();
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false', { timeout: 30_000 });
  await page.goto(myco.link('/'));
  await expect(page.getByTestId('board-needs')).toHaveCount(0);
  await expect(page.getByTestId('board').locator(`[data-session="${asking}"]`)).toHaveCount(0);
});

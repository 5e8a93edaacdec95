import { test, expect } from '../fixtures';

// /goal runs two turns on its own: the bar above the composer shows the
// turn count while it runs, and says done when the agent reports it.
test('/goal runs two turns and shows done', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Goal' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const bar = page.getByTestId('goal-bar');
  await expect(bar).toBeHidden();

  const input = page.getByTestId('composer-input');
  // The delay keeps each turn running long enough to be seen: the first
  // turn's long note streams as a dozen pieces of tool input, about five
  // seconds, so a loaded machine's checks end before the turn does.
  await input.fill('/goal --turns 5 tidy up [[goal: working first pass over the whole tree, folder by folder, file by file, then a second turn ;; done all tidy]] [[delay:400ms]]');
  await input.press('Enter');

  await expect(bar).toBeVisible();
  await expect(bar.getByTestId('goal-text')).toContainText('tidy up');
  await expect(bar.getByTestId('goal-turns')).toHaveText('turn 1 of 5');
  await expect(bar.getByTestId('goal-state')).toHaveText('running');
  await expect(bar.getByTestId('goal-pause')).toBeVisible();
  await expect(bar.getByTestId('goal-turns')).toHaveText('turn 2 of 5', { timeout: 30_000 });
  await expect(bar.getByTestId('goal-state')).toHaveText('done', { timeout: 30_000 });
  await expect(bar.getByTestId('goal-note')).toHaveText('all tidy');

  // Each turn started with the goal's message, shown in the conversation.
  const conv = page.locator('.threads');
  await expect(conv.getByText('Goal, turn 1 of 5: tidy up', { exact: false })).toHaveCount(1);
  await expect(conv.getByText('Goal, turn 2 of 5: tidy up', { exact: false })).toHaveCount(1);
  await expect(page.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText('Turn 2: done.', { timeout: 30_000 });

  // /goal alone says where it stands; a reload shows the bar as it was.
  await input.fill('/goal');
  await input.press('Enter');
  await expect(page.locator('[data-composer-note]')).toContainText('turn 2 of 5, done');
  await page.reload();
  await expect(page.getByTestId('goal-bar').getByTestId('goal-state')).toHaveText('done');
});

// Pause and Resume from the bar: paused, no more turns start; resumed, the
// next one does.
test('the goal bar pauses and resumes the goal', async ({ page, myco, fake }) => {
  // Four slow turns: a bound that only turns a hang into a failure.
  test.setTimeout(150_000);
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Goal pause' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');
  // Turns long enough that the goal cannot run out before Pause is
  // clicked: the bar is drawn again at each turn, and three turns of
  // 250 ms once ended before the click landed, leaving no Pause to click.
  await input.fill('/goal --turns 4 keep going [[goal: working]] [[delay:800ms]]');
  await input.press('Enter');
  const bar = page.getByTestId('goal-bar');
  await expect(bar.getByTestId('goal-state')).toHaveText('running');
  await bar.getByTestId('goal-pause').click();
  await expect(bar.getByTestId('goal-state')).toHaveText('paused');
  await expect(bar.getByTestId('goal-resume')).toBeVisible();
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false', { timeout: 30_000 });
  await bar.getByTestId('goal-resume').click();
  await expect(bar.getByTestId('goal-state')).toHaveText('off', { timeout: 90_000 });
  await expect(bar.getByTestId('goal-turns')).toHaveText('turn 4 of 4');
});

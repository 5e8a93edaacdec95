import { test, expect, send } from '../fixtures';

// Sub-agents as a person meets them: the agent calls task twice in one
// round, and the task cards follow the two sub-agents live. One waits for
// an approval (its strip says so), which the person gives in the
// sub-agent's own page; the other is stopped from its strip. The answers
// come back to the parent, the cards link to the sessions, the sub-agents'
// pages say whose they are, and the home page lists them apart.

const task = (description: string, prompt: string) =>
  `[[tool:task ${JSON.stringify({ description, prompt })}]]`;

const shots = '/tmp/shots-subagents';

test('task cards follow their sub-agents: approval, stop, answer, links', async ({ page, myco, fake, context }) => {
  test.setTimeout(120_000);
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Parent' });
  await myco.start();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');

  // The docs sub-agent writes for minutes: it is still writing when the
  // person stops it, however slow the machine made the steps before.
  await send(page, `look around ${task('check the build', '⟦tool:bash {"command":"echo built-ok"}⟧')} ${task('read the docs', '⟦text:3000⟧ ⟦delay:100ms⟧')}`);

  const strips = page.getByTestId('subagent');
  await expect(strips).toHaveCount(2);
  const build = page.locator('[data-testid="subagent"]', { hasText: 'check the build' });
  const docs = page.locator('[data-testid="subagent"]', { hasText: 'read the docs' });
  // The sub-agent that runs bash waits for the person, and its strip says so.
  await expect(build).toHaveAttribute('data-status', 'approval', { timeout: 30_000 });
  await expect(build.getByTestId('subagent-state')).toHaveText('waits for your approval');
  await expect(docs).toHaveAttribute('data-status', 'writing', { timeout: 30_000 });
  await page.screenshot({ path: `${shots}/running-desktop.png` });

  // /subagents lists both, each under this session.
  const input = page.getByTestId('composer-input');
  await input.fill('/subagents');
  await input.press('Enter');
  const card = page.getByTestId('subagents-card');
  await expect(card.getByTestId('subagents-row')).toHaveCount(2);
  await expect(card).toContainText('Parent');
  await card.getByTestId('dismiss-card').click();

  // The person approves in the sub-agent's page, which says whose it is.
  const href = await build.getByTestId('subagent-link').getAttribute('href');
  expect(href).toMatch(/^\/s\//);
  const child = await context.newPage();
  await child.goto(myco.link(href!));
  await expect(child.getByTestId('lineage')).toContainText('Sub-agent of');
  await expect(child.getByTestId('lineage-link')).toHaveText('Parent');
  await child.getByTestId('approval').locator('[data-decision="once"]').click();
  await expect(child.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText('built-ok', { timeout: 30_000 });
  await child.close();

  // Its card says it answered; Stop on the other stops it.
  await expect(build).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(build.getByTestId('subagent-stop')).toHaveCount(0);
  await docs.getByTestId('subagent-stop').click();
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false', { timeout: 30_000 });

  // Both outcomes are recorded, each linking its session, and the parent's
  // model read them: the answer quotes the one that answered.
  const results = page.locator('[data-testid="tool-call"][data-tool="task"] [data-testid="tool-result"]');
  await expect(results).toHaveCount(2);
  await expect(page.locator('[data-testid="tool-call"][data-tool="task"]', { hasText: 'check the build' }).getByTestId('tool-result')).toHaveAttribute('data-is-error', 'false');
  await expect(page.locator('[data-testid="tool-call"][data-tool="task"]', { hasText: 'read the docs' }).getByTestId('tool-result')).toHaveAttribute('data-is-error', 'true');
  await expect(page.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText('built-ok');
  await expect(page.getByTestId('subagent-session')).toHaveCount(2);
  await page.reload();
  await expect(page.getByTestId('subagent-session')).toHaveCount(2);
  // The side panel lists them under this session, apart from its forks.
  await expect(page.getByTestId('subagents-panel').getByTestId('fork-row')).toHaveCount(2);
  await expect(page.getByTestId('forks-panel')).toHaveCount(0);
  await page.screenshot({ path: `${shots}/done-desktop.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${shots}/done-phone.png`, fullPage: true });

  // The home page lists the person's session, not the sub-agents'; the
  // sub-agents' listing has them.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(myco.link('/'));
  await expect(page.getByTestId('session-list').locator('li', { hasText: 'Parent' })).toHaveCount(1);
  await expect(page.getByTestId('session-list')).not.toContainText('check the build');
  await page.getByTestId('subagents-link').click();
  await expect(page).toHaveURL(/\/subagents$/);
  await expect(page.getByTestId('session-list')).toContainText('check the build');
  await expect(page.getByTestId('session-list')).toContainText('read the docs');
  await page.screenshot({ path: `${shots}/listing-desktop.png` });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect, send, openSession } from '../fixtures';

// What the tab says about a call, a steer or a goal stays true once it
// has changed (issue 20, items 5 and 7): an approved command says it is
// running, a steer's hint goes when the steer goes in, a goal's hint says
// how the goal ended.

async function openNew(page, myco, fake, doc = {}) {
  myco.useModels(fake.url, {});
  const id = myco.writeSession({ title: 'Hints', ...doc });
  await myco.start();
  await openSession(page, myco, id);
  return id;
}

test('an approved command says it is running, in this tab and another', async ({ page, context, myco, fake }) => {
  // The command runs until the test lets it end: its run is observed
  // while it lasts, not raced.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-hints-'));
  const id = await openNew(page, myco, fake, { cwd: dir });
  await send(page, '[[tool:bash {"command":"echo started; while [ ! -e release ]; do sleep 0.05; done; echo released"}]]');
  const approval = page.getByTestId('approval');
  await expect(approval).toBeVisible({ timeout: 30_000 });
  const call = page.getByTestId('tool-call');
  await expect(call.locator('.tool-state')).toHaveText('waiting for your approval');

  const other = await context.newPage();
  await other.goto(myco.link(`/s/${id}`));
  await expect(other.getByTestId('approval')).toBeVisible();
  await expect(other.getByTestId('tool-call').locator('.tool-state')).toHaveText('waiting for your approval');

  await approval.getByRole('button', { name: 'Allow once' }).click();
  for (const p of [page, other]) {
    await expect(p.getByTestId('tool-live')).toContainText('started', { timeout: 30_000 });
    await expect(p.getByTestId('turn-status')).toHaveAttribute('data-status', 'tool');
    await expect(p.getByTestId('tool-call')).toHaveAttribute('data-running', '');
    await expect(p.getByTestId('tool-call').locator('.tool-state')).toHaveText('running…');
    // The decision is made: no tab offers it again.
    await expect(p.getByTestId('approval')).toHaveCount(0);
  }
  fs.writeFileSync(path.join(dir, 'release'), '');
  for (const p of [page, other]) {
    await expect(p.getByTestId('tool-result')).toContainText('released', { timeout: 30_000 });
    await expect(p.getByTestId('tool-call').locator('.tool-state')).toHaveCount(0);
  }
});

test('a steer hint goes once the steer is in, and is not back after a reload', async ({ page, myco, fake }) => {
  await openNew(page, myco, fake);
  await send(page, '[[tool:bash {"command":"echo round-one"}]]');
  const approval = page.getByTestId('approval');
  await expect(approval).toBeVisible({ timeout: 30_000 });
  await send(page, '/steer keep the answer short');
  const hint = page.locator('[data-composer-note]');
  await expect(hint).toHaveText('Steer: it goes in after the current step.');
  await expect(page.locator('[data-testid="queued"][data-steer]')).toBeVisible();
  await approval.getByRole('button', { name: 'Allow once' }).click();
  // The queue event that takes the steer off the list is the one that
  // says it went in: once the list is empty, the hint is gone too.
  await expect(page.getByTestId('message').filter({ hasText: 'keep the answer short' })).toHaveAttribute('aria-label', 'You · steer', { timeout: 30_000 });
  await expect(page.locator('[data-testid="queued"]')).toHaveCount(0);
  expect(await hint.textContent()).not.toContain('Steer:');
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(page.locator('[data-composer-note]')).not.toContainText('Steer:');
});

// /goal writes where the goal stands under the composer; the goal's events
// keep that line true to its end: done, blocked, or off (its turns used up,
// as after Stop).
for (const [end, last, said] of [
  ['done', 'done all tidy', /turn 2 of 2, done \(all tidy\)$/],
  ['blocked', 'blocked no key', /turn 2 of 2, blocked \(no key\)$/],
  ['off', 'working', /turn 2 of 2, off/],
] as const) {
  test(`a goal's hint says it is ${end} once it is`, async ({ page, myco, fake }) => {
    await openNew(page, myco, fake);
    // A turn that waits for its approval holds the goal back (its first
    // turn starts after the running one) while /goal is asked.
    await send(page, '[[tool:bash {"command":"echo hold"}]]');
    const approval = page.getByTestId('approval');
    await expect(approval).toBeVisible({ timeout: 30_000 });
    await send(page, `/goal --turns 2 tidy up [[goal: working ;; ${last}]]`);
    const hint = page.locator('[data-composer-note]');
    await expect(hint).toContainText('Goal: tidy up');
    // /goal alone: the line stays until something else is said.
    await send(page, '/goal');
    await expect(hint).toHaveText(/turn 0 of 2, running$/);
    await approval.getByRole('button', { name: 'Allow once' }).click();
    const bar = page.getByTestId('goal-bar');
    await expect(bar.getByTestId('goal-state')).toHaveText(end, { timeout: 30_000 });
    // The goal event that says so is the one that changes the line.
    expect(await hint.textContent()).toMatch(said);
  });
}

test("the hint /goal leaves does not say running once the goal is done", async ({ page, myco, fake }) => {
  await openNew(page, myco, fake);
  await send(page, '/goal --turns 4 tidy up [[goal: done all tidy]]');
  const hint = page.locator('[data-composer-note]');
  await expect(hint).toContainText('Goal: tidy up');
  await expect(page.getByTestId('goal-bar').getByTestId('goal-state')).toHaveText('done', { timeout: 30_000 });
  // It is told once (and goes after a few seconds): it is never left
  // saying the goal still runs.
  expect(await hint.textContent()).not.toContain('running');
});

import { test, expect } from '../fixtures';
import type { Page } from '@playwright/test';

// Telling the person: a hidden tab notifies (once allowed) when an
// approval waits or a long turn ends, and its title carries a marker until
// it is seen again. The page's visibility is driven by the test, and
// Notification is wrapped to record what the page showed.
const hooks = () => {
  // Date.now runs ahead by what the test says a turn took.
  let ahead = 0;
  const now = Date.now.bind(Date);
  Date.now = () => now() + ahead;
  (window as any).__advance = (ms: number) => (ahead += ms);
  let state: DocumentVisibilityState = 'visible';
  Object.defineProperty(document, 'visibilityState', { get: () => state, configurable: true });
  Object.defineProperty(document, 'hidden', { get: () => state === 'hidden', configurable: true });
  (window as any).__setVisible = (v: boolean) => {
    state = v ? 'visible' : 'hidden';
    document.dispatchEvent(new Event('visibilitychange'));
  };
  const shown: { title: string; body: string; tag: string }[] = [];
  (window as any).__notifications = shown;
  const Real = window.Notification;
  class Recorded extends Real {
    constructor(title: string, opts: NotificationOptions = {}) {
      super(title, opts);
      shown.push({ title, body: opts.body || '', tag: opts.tag || '' });
    }
  }
  Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
  (Recorded as any).requestPermission = Real.requestPermission.bind(Real);
  (window as any).Notification = Recorded;
};

const notifications = (page: Page) => page.evaluate(() => (window as any).__notifications as { title: string; body: string; tag: string }[]);
const setVisible = (page: Page, v: boolean) => page.evaluate((v) => (window as any).__setVisible(v), v);

// turnRunner sends a message and waits for its answer, the page's clock
// moved on by ranFor ms while it streams: the turn "ran" that long.
const turnRunner = (page: Page) => async (text: string, ranFor: number) => {
  const input = page.getByTestId('composer-input');
  const answers = page.locator('[data-testid="message"][data-role="assistant"]:not([data-streaming])');
  const before = await answers.count();
  await input.fill(text);
  await input.press('Enter');
  // A short turn may end before a check could see it stream: only a
  // long one is caught mid-way, to move the clock on.
  if (ranFor) {
    await expect(page.locator('[data-testid="message"][data-streaming]')).toHaveCount(1);
    await page.evaluate((ms) => (window as any).__advance(ms), ranFor);
  }
  await expect(answers).toHaveCount(before + 1);
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
};

test('an approval waiting in a hidden tab notifies, and marks the title until the tab is seen', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Deploy', model: 'anthropic/fake-model' });
  await myco.start();
  await page.context().grantPermissions(['notifications'], { origin: myco.url });
  await page.addInitScript(hooks);
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(page.getByTestId('notify-button')).toHaveAttribute('aria-pressed', 'true');
  await expect(page).toHaveTitle('Deploy');

  const input = page.getByTestId('composer-input');
  await setVisible(page, false);
  await input.fill('run it [[tool:bash {"command":"echo hi"}]]');
  await input.press('Enter');
  await expect(page.getByTestId('approval')).toBeVisible();
  await expect.poll(() => notifications(page)).toEqual([
    { title: 'Deploy', body: 'Waiting for your approval: bash.', tag: expect.stringContaining(`myco:${id}:approval:`) },
  ]);
  await expect(page).toHaveTitle('(!) Deploy');

  // A title change keeps the marker in front.
  await myco.api('PATCH', `/api/sessions/${id}`, { title: 'Deploy v2' });
  await expect(page.getByTestId('session-title')).toHaveText('Deploy v2');
  await expect(page).toHaveTitle('(!) Deploy v2');

  await setVisible(page, true);
  await expect(page).toHaveTitle('Deploy v2');
  await page.getByRole('button', { name: 'Deny' }).click();
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  expect(await notifications(page)).toHaveLength(1);
});

test('a long turn that ends in a hidden tab notifies; a short one, or one in view, does not', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Long', model: 'anthropic/fake-model' });
  await myco.start();
  await page.context().grantPermissions(['notifications'], { origin: myco.url });
  await page.addInitScript(hooks);
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const turn = turnRunner(page);

  // In view: nothing, however long.
  await turn('[[text:30]] [[delay:100ms]]', 12_000);
  // Hidden, short: nothing.
  await setVisible(page, false);
  await turn('[[text:3]] [[delay:100ms]]', 0);
  expect(await notifications(page)).toEqual([]);
  await expect(page).toHaveTitle('Long');
  // Hidden, 10 s or longer: told.
  await turn('[[text:30]] [[delay:100ms]]', 11_000);
  await expect.poll(() => notifications(page)).toEqual([
    { title: 'Long', body: expect.stringMatching(/^The turn ended after \d+ s\.$/), tag: expect.stringContaining(`myco:${id}:turn:`) },
  ]);
  await expect(page).toHaveTitle('● Long');
  await setVisible(page, true);
  await expect(page).toHaveTitle('Long');
});

test('the setting off leaves the bell out', async ({ page, myco, fake }) => {
  myco.useModels(fake.url, { notifications: false });
  const id = myco.writeSession({ title: 'Quiet', model: 'anthropic/fake-model' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(page.locator('body')).toHaveAttribute('data-notifications', 'off');
  await expect(page.getByTestId('notify-button')).toHaveCount(0);
});

test('the bell is there, quiet, before the person allowed notifications', async ({ page, myco }) => {
  const id = myco.writeSession({ title: 'Bell' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  const bell = page.getByTestId('notify-button');
  await expect(bell).toBeVisible();
  await expect(bell).toHaveAttribute('aria-pressed', 'false');
  await expect(bell).toHaveAttribute('title', 'Notify me when a turn ends or needs me');
});

// The bell answers every click: an undecided permission asked and not
// given says what to do; once granted, the bell cycles every
// notification, approvals only, none, for this browser, and a reload
// keeps the choice (issue 20, 15; issue 25).
test('the bell says why nothing changed, and turns notifications off once allowed', async ({ page, myco }) => {
  const id = myco.writeSession({ title: 'Bell' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  const bell = page.getByTestId('notify-button');
  await bell.click();
  await expect(page.getByTestId('error-toast')).toContainText(/notifications/i);
  await expect(bell).toHaveAttribute('aria-pressed', 'false');

  await page.context().grantPermissions(['notifications'], { origin: myco.url });
  await page.reload();
  await expect(bell).toHaveAttribute('aria-pressed', 'true');
  await bell.click();
  await expect(bell).toHaveAttribute('data-permission', 'approvals');
  await expect(bell).toHaveAttribute('title', /approvals only/);
  await bell.click();
  await expect(bell).toHaveAttribute('aria-pressed', 'false');
  await expect(bell).toHaveAttribute('title', /off in this browser/);
  await page.reload();
  await expect(bell).toHaveAttribute('aria-pressed', 'false');
  await bell.click();
  await expect(bell).toHaveAttribute('aria-pressed', 'true');
});

test('a goal that a budget pauses in a hidden tab notifies, however short its last turn', async ({ page, myco, fake }) => {
  // Room for one goal turn's first call, not for the call after it.
  myco.useModels(fake.url, { budgets: { session_tokens: 25000 } });
  const id = myco.writeSession({ title: 'Overnight', model: 'anthropic/fake-model' });
  await myco.start();
  await page.context().grantPermissions(['notifications'], { origin: myco.url });
  await page.addInitScript(hooks);
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(page.getByTestId('notify-button')).toHaveAttribute('aria-pressed', 'true');

  await setVisible(page, false);
  await myco.api('POST', `/api/sessions/${id}/goal`, { text: 'tidy up [[goal: working]] [[usage:in=20000,out=10]]', turns: 5 });
  await expect.poll(() => notifications(page)).toEqual([
    {
      title: 'Overnight',
      body: expect.stringMatching(/^The goal is paused: the session's budget of 25,000 tokens is spent: 20,010 used, this call could use up to [\d,]+; raise budgets\.session_tokens in Settings$/),
      tag: `myco:${id}:goal`,
    },
  ]);
  await expect(page).toHaveTitle('● Overnight');
  // The page says why too, where the turn failed.
  await setVisible(page, true);
  await expect(page.getByTestId('message-error').last()).toContainText("the session's budget of 25,000 tokens is spent");
});

// notify_after sets how long a turn must run for its end to notify; the
// bell's "approvals only" keeps turn ends quiet and still tells of an
// approval (issue 25).
test('notify_after and approvals-only decide what a hidden tab is told', async ({ page, myco, fake }) => {
  myco.useModels(fake.url, { notify_after: 30 });
  const id = myco.writeSession({ title: 'Threshold', model: 'anthropic/fake-model' });
  await myco.start();
  await page.context().grantPermissions(['notifications'], { origin: myco.url });
  await page.addInitScript(hooks);
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-notify-after', '30');
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const turn = turnRunner(page);
  const input = page.getByTestId('composer-input');
  await setVisible(page, false);
  await turn('[[text:30]] [[delay:100ms]]', 12_000); // over the default 10 s, under 30
  expect(await notifications(page)).toEqual([]);
  await turn('[[text:30]] [[delay:100ms]]', 31_000);
  await expect.poll(async () => (await notifications(page)).length).toBe(1);

  // Approvals only: a long turn's end is not told, an approval is.
  await setVisible(page, true);
  await page.getByTestId('notify-button').click();
  await expect(page.getByTestId('notify-button')).toHaveAttribute('data-permission', 'approvals');
  await setVisible(page, false);
  await turn('[[text:30]] [[delay:100ms]]', 31_000);
  expect((await notifications(page)).length).toBe(1);
  await input.fill('[[tool:bash {"command":"echo hi"}]]');
  await input.press('Enter');
  await expect.poll(async () => (await notifications(page)).map((n) => n.body)).toContainEqual(expect.stringContaining('Waiting for your approval'));
});

import { test, expect, openSession } from '../fixtures';

// At a phone's width the conversation fills the screen: the side panel is
// a drawer behind the header's Details button, so following an answer
// keeps its newest text and the composer in view.
test('on a phone the answer and the composer stay in view; Details opens the panel', async ({ browser, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Phone', model: 'anthropic/fake-model' });
  await myco.start();
  // A phone: touch, and the mobile viewport (scroll anchoring and the
  // visual viewport behave as on one).
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await phone.newPage();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');

  const words = Array.from({ length: 150 }, (_, i) => `w${i}`).join(' ');
  const answer = `# Plan\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n\`\`\`go\nfunc main() {}\n\`\`\`\n\n${words} LAST`;
  const input = page.getByTestId('composer-input');
  // About 6 s of streaming, so the checks made while it streams find it
  // streaming on a machine under load too.
  await input.fill(`[[say:${answer}]] [[delay:40ms]]`);
  await input.press('Enter');
  const streaming = page.locator('[data-testid="message"][data-streaming]');
  // While it streams, its newest text is on screen: blocks inserted at once
  // must not let go of the bottom.
  await expect(streaming.locator('table')).toBeAttached();
  // The tail is a new element at every delta: asked of one element at a
  // time (toBeInViewport), the check kept finding it replaced. One
  // IntersectionObserver reading of the tail as it is now, polled.
  const tailInView = () => page.evaluate(() => new Promise<number>((done) => {
    const tail = document.querySelector('[data-testid="message"][data-streaming] .streaming-tail') as HTMLElement | null;
    if (!tail || tail.hidden) return done(0);
    const o = new IntersectionObserver((es) => {
      o.disconnect();
      done(es[0].intersectionRatio);
    });
    o.observe(tail);
  }));
  await expect.poll(tailInView).toBeGreaterThan(0);
  const done = page.locator('[data-testid="message"][data-role="assistant"]:not([data-streaming])');
  await expect(done).toContainText('LAST');
  await expect(done.getByText('LAST', { exact: false })).toBeInViewport();
  await expect(input).toBeInViewport();

  const panel = page.getByTestId('side-panel');
  await expect(panel).toBeHidden();
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
  const details = page.getByTestId('details-toggle');
  await details.click();
  await expect(panel).toBeVisible();
  await expect(details).toHaveAttribute('aria-expanded', 'true');
  await expect(panel.getByTestId('session-model')).toBeInViewport();
  await page.screenshot({ path: test.info().outputPath('details-390.png') });
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(details).toBeFocused();

  // Wide again, the panel is the column beside the conversation.
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(panel).toBeVisible();
  await expect(details).toBeHidden();
});

const shots = '/tmp/shots-phone';

// phonePage is a tab on a phone: touch, and the mobile viewport.
async function phonePage(browser) {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  return phone.newPage();
}

// uncovered says whether the middle of loc is what a finger there would
// touch: in view is not enough when a fixed or sticky box lies over it.
const uncovered = (loc) =>
  loc.evaluate((e: Element) => {
    const r = e.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !!hit && (hit === e || e.contains(hit));
  });

// scrollTo puts the page at a fraction of its height (0 the top, 1 the end).
const scrollTo = (page, at: number) =>
  page.evaluate((at: number) => {
    const s = document.scrollingElement!;
    s.scrollTop = (s.scrollHeight - s.clientHeight) * at;
  }, at);

const chat = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant',
    text: `Message ${i}. ${'Some words to make a message a few lines long on a phone. '.repeat(4)}`,
  }));

// The header (the sessions menu, Details, New) is at the top of the screen
// wherever the reader is in a long session, and the composer at its foot.
test('on a phone the header and the composer stay on screen anywhere in a long session', async ({ browser, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Long on a phone', messages: chat(60) });
  await myco.start();
  const page = await phonePage(browser);
  await openSession(page, myco, id);
  const menu = page.getByTestId('sidebar-toggle');
  const details = page.getByTestId('details-toggle');
  const input = page.getByTestId('composer-input');
  expect(await page.evaluate(() => document.scrollingElement!.scrollHeight)).toBeGreaterThan(844 * 5);
  for (const at of [1, 0.5, 0]) {
    await scrollTo(page, at);
    for (const b of [menu, details, page.getByTestId('new-session-button'), input]) {
      await expect(b).toBeInViewport({ ratio: 1 });
      expect(await uncovered(b)).toBe(true);
    }
    await page.screenshot({ path: `${shots}/long-${at}.png` });
  }
  // From the middle, the menu opens the sessions drawer.
  await scrollTo(page, 0.5);
  await menu.click();
  await expect(page.getByTestId('sidebar')).toBeVisible();
});

// A command waiting for approval is a sheet above the composer: the
// composer can still be typed in, and the card scrolls inside the sheet
// to its buttons.
test('on a phone an approval is a sheet that leaves the composer usable', async ({ browser, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Approval on a phone', messages: chat(20) });
  await myco.start();
  const page = await phonePage(browser);
  await openSession(page, myco, id);
  const input = page.getByTestId('composer-input');
  const lines = Array.from({ length: 60 }, (_, i) => `echo line ${i}`).join('\\n');
  await input.fill(`run it [[tool:bash {"command":"${lines}"}]]`);
  await input.press('Enter');
  const card = page.getByTestId('approval');
  const allow = card.locator('[data-decision="once"]');
  await expect(allow).toBeFocused();
  await page.screenshot({ path: `${shots}/approval.png` });

  const sheet = page.locator('[data-approvals]');
  expect((await sheet.boundingBox())!.height).toBeLessThanOrEqual(844 / 2 + 1);
  await expect(input).toBeInViewport({ ratio: 1 });
  expect(await uncovered(input)).toBe(true);
  await input.tap();
  await page.keyboard.type('while it waits');
  await expect(input).toHaveValue('while it waits');
  await expect(input).toBeFocused();

  // Every button is reached by scrolling the sheet, not the page.
  await sheet.evaluate((e: Element) => (e.scrollTop = e.scrollHeight));
  for (const d of ['once', 'session', 'deny']) {
    const b = card.locator(`[data-decision="${d}"]`);
    await expect(b).toBeInViewport({ ratio: 1 });
    expect(await uncovered(b)).toBe(true);
  }
  await page.screenshot({ path: `${shots}/approval-scrolled.png` });
  await card.locator('[data-decision="deny"]').tap();
  await expect(card).toHaveCount(0);
  await expect(input).toHaveValue('while it waits');
});

// "Build this plan?" is on screen when the plan turn ends, above the
// composer and not under it.
test('on a phone the plan card is in view, above the composer', async ({ browser, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Plan on a phone', messages: chat(20) });
  await myco.start();
  const page = await phonePage(browser);
  await openSession(page, myco, id);
  const input = page.getByTestId('composer-input');
  const plan = Array.from({ length: 30 }, (_, i) => `${i + 1}. Step ${i + 1} of the plan.`).join('\n');
  await input.fill(`/plan tidy the config [[say:${plan}]]`);
  await input.press('Enter');
  const card = page.getByTestId('plan-ready');
  await expect(card).toBeVisible({ timeout: 30_000 });
  await page.screenshot({ path: `${shots}/plan.png` });
  await expect(card.getByText('Build this plan?')).toBeInViewport({ ratio: 1 });
  for (const b of ['plan-build-now', 'plan-switch', 'plan-keep']) {
    await expect(card.getByTestId(b)).toBeInViewport({ ratio: 1 });
    expect(await uncovered(card.getByTestId(b))).toBe(true);
  }
  await expect(input).toBeInViewport({ ratio: 1 });
  expect(await uncovered(input)).toBe(true);
  const c = (await card.boundingBox())!;
  const i = (await input.boundingBox())!;
  expect(c.y + c.height).toBeLessThanOrEqual(i.y);
});

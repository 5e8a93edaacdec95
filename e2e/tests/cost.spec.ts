import fs from 'node:fs';
import { test, expect, send } from '../fixtures';

// Cost, honestly (issue 19): every figure is the server's, rendered from
// the document, so the live page, a reload, /usage and the home page say
// the same. The fake model is priced in settings at Sonnet's list prices
// (dollars per million tokens), so the figures do not move with the
// catalogue.
const price = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75, cache_write_1h: 6 };

// Turn 1: (3×1,000 + 15×1,000 + 0.3×10,000 + 3.75×400) / 1e6 = $0.0225;
// 10,000 of 11,400 input tokens from the cache = 87%.
const turn1 = { usage: 'in=1000,out=1000,cache_read=10000,cache_write=400', cost: '$0.0225', hit: '87% cache hit' };
// Turn 2: (3×500 + 0.3×20,000) / 1e6 = $0.0075; 20,000 of 20,500 = 97%.
const turn2 = { usage: 'in=500,out=0,cache_read=20000,cache_write=0', cost: '$0.0075', hit: '97% cache hit' };
// The session: $0.0300; 30,000 of 31,900 = 94%.
const session = { cost: '$0.0300', hit: '94% cache hit', panelHit: '94%', tokens: 'in 1,500 · out 1,000 · cache read 30,000 · cache write 400' };

// SHOTS, when set, is a folder for screenshots of the line and the panel.
const shots = process.env.COST_SHOTS;

async function expectFigures(page) {
  const lines = page.getByTestId('turn-usage');
  await expect(lines).toHaveCount(2);
  await expect(lines.nth(0).getByTestId('usage-cost')).toHaveText(turn1.cost);
  await expect(lines.nth(0).getByTestId('usage-hit')).toHaveText(turn1.hit);
  await expect(lines.nth(0).getByTestId('usage-tokens')).toHaveText('in 1,000 · out 1,000 · cache read 10,000 · cache write 400');
  await expect(lines.nth(1).getByTestId('usage-cost')).toHaveText(turn2.cost);
  await expect(lines.nth(1).getByTestId('usage-hit')).toHaveText(turn2.hit);
  // Each line follows its turn's answer.
  const after = await lines.nth(1).getAttribute('data-after');
  await expect(page.locator(`[data-testid="message"][data-message-id="${after}"] + [data-testid="turn-usage"]`)).toHaveCount(1);
  await expect(page.getByTestId('session-cost')).toHaveText(session.cost);
  await expect(page.getByTestId('session-hit')).toHaveText(session.panelHit);
  await expect(page.getByTestId('session-usage')).toHaveText(session.tokens);
}

async function expectUsageCard(page) {
  await send(page, '/usage');
  const card = page.getByTestId('usage-card');
  await expect(card.getByTestId('usage-turn').getByTestId('usage-cost')).toHaveText(turn2.cost);
  await expect(card.getByTestId('usage-turn').getByTestId('usage-hit')).toHaveText(turn2.hit);
  await expect(card.getByTestId('usage-session').getByTestId('usage-cost')).toHaveText(session.cost);
  await expect(card.getByTestId('usage-session').getByTestId('usage-hit')).toHaveText(session.hit);
  // What the budgets leave: the session's is off by default, today's $50.
  await expect(card.getByTestId('usage-budget-session')).toContainText('no limit');
  await expect(card.getByTestId('usage-budget-day')).toContainText('of $50.00 used');
  await card.getByTestId('dismiss-card').click();
  await expect(card).toHaveCount(0);
}

test('each turn, the side panel, /usage and the home row show tokens, cost and cache hit, the same after a reload', async ({ page, myco, fake }) => {
  myco.useModels(fake.url, { models: { 'anthropic/fake-model': { price } } });
  const id = myco.writeSession({ title: 'Priced', model: 'anthropic/fake-model' });
  await myco.start();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');

  await send(page, `first [[say:One.]] [[usage:${turn1.usage}]]`);
  await expect(page.getByTestId('turn-usage')).toHaveCount(1);
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  await send(page, `second [[say:Two.]] [[usage:${turn2.usage}]]`);
  await expectFigures(page);
  await expectUsageCard(page);
  if (shots) {
    fs.mkdirSync(shots, { recursive: true });
    await page.getByTestId('turn-usage').last().screenshot({ path: `${shots}/line-1280.png` });
    await page.getByTestId('side-panel').screenshot({ path: `${shots}/panel-1280.png` });
    await page.screenshot({ path: `${shots}/page-1280.png` });
  }

  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expectFigures(page);
  await expectUsageCard(page);

  await page.goto(myco.link('/'));
  const row = page.locator(`[data-testid="session-row"][data-session-id="${id}"]`);
  await expect(row.getByTestId('row-cost')).toHaveText('$0.0300 · 94% cached');
  if (shots) await page.screenshot({ path: `${shots}/home-1280.png` });
});

test('an answer from a model without a price says so, on its line, in the panel, in /usage and on the home page', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  // A model no catalogue or setting prices, from a provider not on this
  // machine (one on loopback is taken to be free).
  const model = 'openai/gpt-9-preview';
  const id = myco.writeSession({ title: 'Unpriced', model, messages: [] });
  const file = `${myco.sessionDir}/${id}.json`;
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  doc.threads[0].messages = [
    { id: 'h1', role: 'user', human: true, at: doc.created_at, content: [{ type: 'text', text: 'hi' }] },
    {
      id: 'a1', role: 'assistant', at: doc.created_at, model, stop_reason: 'end_turn',
      usage: { input_tokens: 70, output_tokens: 30, cache_read_input_tokens: 30 },
      content: [{ type: 'text', text: 'Hello.' }],
    },
  ];
  fs.writeFileSync(file, JSON.stringify(doc));
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');

  const line = page.getByTestId('turn-usage');
  await expect(line.getByTestId('usage-cost')).toHaveText('price unknown');
  await expect(line.getByTestId('usage-hit')).toHaveText('30% cache hit');
  await expect(page.getByTestId('session-cost')).toHaveText('price unknown');
  await send(page, '/usage');
  await expect(page.getByTestId('usage-card').getByTestId('usage-turn').getByTestId('usage-cost')).toHaveText('price unknown');

  await page.goto(myco.link('/'));
  await expect(page.locator(`[data-testid="session-row"][data-session-id="${id}"]`).getByTestId('row-cost')).toHaveText('price unknown · 30% cached');
});

test('on a phone the usage line and the panel stay compact', async ({ browser, myco, fake }) => {
  myco.useModels(fake.url, { models: { 'anthropic/fake-model': { price } } });
  const id = myco.writeSession({ title: 'Phone', model: 'anthropic/fake-model' });
  await myco.start();
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await phone.newPage();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await send(page, `first [[say:One.]] [[usage:${turn1.usage}]]`);
  await expect(page.getByTestId('turn-usage')).toHaveCount(1);
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
  if (shots) fs.mkdirSync(shots, { recursive: true });
  if (shots) await page.screenshot({ path: `${shots}/page-390.png` });
  await page.getByTestId('details-toggle').click();
  await expect(page.getByTestId('side-panel')).toBeVisible();
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
  if (shots) await page.screenshot({ path: `${shots}/panel-390.png` });
  await page.goto(myco.link('/'));
  await expect(page.getByTestId('row-cost').first()).toBeVisible();
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
  if (shots) await page.screenshot({ path: `${shots}/home-390.png` });
  await phone.close();
});

import { test, expect, openSession, send } from '../fixtures';
import type { Page } from '@playwright/test';

// The conversation is one tab stop (a roving tabindex, static/messagekeys.js):
// from the composer, Shift+Tab leaves a long conversation in a few steps,
// not through every message's Copy and Fork; the arrows, Home and End go
// from message to message, and Tab from a message reaches its Copy.

const chat = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant',
    text: `Message ${i}: **bold** words.`,
  }));

// where says where the focus is: in a message (its index among the
// conversation's messages), on one of its actions, or elsewhere.
const where = (page: Page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    const all = [...document.querySelectorAll('.threads article[data-testid="message"]')];
    const m = a?.closest('article[data-testid="message"]');
    const i = m ? all.indexOf(m) : -1;
    if (!m) return { in: document.querySelector('.threads')?.contains(a) ? 'threads' : 'out', i };
    return { in: a === m ? 'message' : (a as HTMLElement).dataset.testid ?? a!.tagName, i };
  });

test('Shift+Tab leaves a 30-message conversation in a few stops; the keys reach a message\'s Copy', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  // 30 messages: as many as a page opens with (web.PageRecentLimit), so
  // no earlier ones load while the keys move about; still 60 Copy and
  // Fork stops, were each a tab stop.
  const id = myco.writeSession({ title: 'Keys', messages: chat(30) });
  await myco.start();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: myco.url });
  await openSession(page, myco, id);
  const messages = page.locator('.threads article[data-testid="message"]');
  const n = await messages.count();
  expect(n).toBe(30);

  const input = page.getByTestId('composer-input');
  await input.focus();
  let stops = 0;
  const seen: string[] = [];
  for (; stops < 20; stops++) {
    await page.keyboard.press('Shift+Tab');
    const w = await where(page);
    seen.push(`${w.in}${w.i >= 0 ? ` ${w.i}` : ''}`);
    if (w.in === 'out' && w.i < 0 && seen.some((s) => s.startsWith('message'))) break;
  }
  expect(stops, `stops: ${seen.join(', ')}`).toBeLessThan(10);
  // On the way it passed the newest message, once.
  expect(seen.filter((s) => s.startsWith('message'))).toEqual([`message ${n - 1}`]);

  // Back to the newest message; up two, Home, End, and to a chosen one.
  await page.keyboard.press('Tab');
  await expect.poll(() => where(page)).toEqual({ in: 'message', i: n - 1 });
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await expect.poll(() => where(page)).toEqual({ in: 'message', i: n - 3 });
  await page.keyboard.press('Home');
  await expect.poll(() => where(page)).toEqual({ in: 'message', i: 0 });
  await page.keyboard.press('End');
  await expect.poll(() => where(page)).toEqual({ in: 'message', i: n - 1 });
  for (let k = 0; k < 4; k++) await page.keyboard.press('ArrowUp');
  const chosen = n - 5;
  await expect.poll(() => where(page)).toEqual({ in: 'message', i: chosen });
  await expect(messages.nth(chosen)).toBeInViewport();
  // Not under the composer pinned at the foot of the window.
  expect(await messages.nth(chosen).locator('.message-head').evaluate((h) => {
    const r = h.getBoundingClientRect();
    return h.contains(document.elementFromPoint(r.left + 5, r.top + r.height / 2));
  })).toBe(true);

  // Tab goes into the chosen message's actions; Enter copies it.
  await page.keyboard.press('Tab');
  const copy = messages.nth(chosen).getByTestId('copy-message');
  await expect(copy).toBeFocused();
  await expect(copy).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(copy).toHaveText('Copied');
  const text = await messages.nth(chosen).evaluate((m) => m.querySelector('.md, .plain')?.textContent?.trim());
  expect(text).toContain(`Message`);
  const want = `Message ${30 - n + chosen}: **bold** words.`;
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(want);

  // Still one stop: Shift+Tab from the Copy is the chosen message, and
  // from there, out of the conversation.
  await page.keyboard.press('Shift+Tab');
  await expect.poll(() => where(page)).toEqual({ in: 'message', i: chosen });
  await page.keyboard.press('Shift+Tab');
  expect((await where(page)).i).toBe(-1);
});

// A message that comes with a turn takes the stop while the person is
// elsewhere, so Tab into the conversation lands on the newest one.
test('the newest message is the tab stop once a turn adds one', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Keys live', messages: chat(6) });
  await myco.start();
  await openSession(page, myco, id);
  await send(page, 'one more [[say:The newest answer.]]');
  const last = page.locator('.threads article[data-testid="message"]').last();
  await expect(last).toContainText('The newest answer.');
  await expect(page.locator('.threads article[data-testid="message"][tabindex="0"]')).toHaveCount(1);
  await expect(last).toHaveAttribute('tabindex', '0');
});

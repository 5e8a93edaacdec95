import { test as base, expect, send, openSession } from '../fixtures';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Approval cards and tool cards are the server's rendering (web/approval.templ,
// web/message.templ): the same live and after a reload. "Allow once" takes
// the keyboard, in view, unless the person is typing; on a phone the card
// fits the width and its buttons are a finger's size.

const test = base.extend<{ work: string }>({
  work: async ({}, use) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-e2e-approvals-'));
    await use(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  },
});

const shots = '/tmp/shots-approvals';

async function openNew(page, myco, fake, cwd: string) {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Approvals', cwd });
  await myco.start();
  await openSession(page, myco, id);
  return id;
}

// longWrite asks for a new file of n lines, every tenth one long: its diff
// has n+3 lines.
function longWrite(n: number) {
  const rows = Array.from({ length: n }, (_, i) => (i % 10 === 9 ? `row ${i + 1} ${'wide '.repeat(40)}` : `row ${i + 1}`));
  return `[[tool:write_file {"path":"long.txt","content":"${rows.join('\\n')}\\n"}]]`;
}

// overflow lists what reaches past the right edge of a page width wide:
// nothing, when the page has no horizontal scroll.
const overflow = (page, width: number) =>
  page.evaluate((width: number) => {
    if (document.documentElement.scrollWidth <= width) return [];
    const past = [`the page is ${document.documentElement.scrollWidth} px wide`];
    for (const e of document.querySelectorAll('body *')) {
      const r = e.getBoundingClientRect();
      if (r.width > 0 && r.right > width) past.push(`${e.tagName.toLowerCase()}.${e.className} ends at ${r.right}`);
    }
    return past.slice(0, 20);
  }, width);

const html = (loc) => loc.evaluate((e: Element) => e.outerHTML);

test('a card is the same live and after a reload, and so is the tool card once it ran', async ({ page, myco, fake, work }) => {
  await openNew(page, myco, fake, work);
  await send(page, `look [[tool:bash {"command":"echo '<hello>' && sleep 0.2"}]]`);

  const card = page.getByTestId('approval');
  await expect(card).toHaveAttribute('data-tool', 'bash');
  await expect(card.getByTestId('approval-command')).toHaveText(`echo '<hello>' && sleep 0.2`);
  const live = await html(card);
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(card).toHaveCount(1);
  expect(await html(card)).toBe(live);
  // The reloaded page's call waits too, and "Allow once" has the keyboard.
  const call = page.locator('[data-testid="tool-call"][data-tool="bash"]');
  await expect(call).toHaveAttribute('data-awaiting', '');
  await expect(card.locator('[data-decision="once"]')).toBeFocused();

  await card.locator('[data-decision="once"]').click();
  await expect(card).toHaveCount(0);
  const result = call.getByTestId('tool-result');
  await expect(result).toHaveAttribute('data-is-error', 'false');
  // Live, the outcome has what the page's has: its duration.
  await expect(result.locator('.duration')).toHaveText(/\d/);
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  const ran = await html(call);
  await page.reload();
  await expect(call.getByTestId('tool-result')).toHaveCount(1);
  expect(await html(call)).toBe(ran);
});

test('in a 300-line diff, "Allow once" has the focus with the buttons in view', async ({ page, myco, fake, work }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openNew(page, myco, fake, work);
  await send(page, `write it ${longWrite(300)}`);

  const card = page.getByTestId('approval');
  const allow = card.locator('[data-decision="once"]');
  await expect(allow).toBeFocused();
  for (const d of ['once', 'session', 'deny']) await expect(card.locator(`[data-decision="${d}"]`)).toBeInViewport({ ratio: 1 });
  await page.screenshot({ path: `${shots}/long-diff-1280.png` });

  // Unfolded, the diff scrolls inside the card; the buttons stay in view.
  await card.getByTestId('diff-toggle').click();
  await expect(card.locator('[data-diff-rest]')).toBeVisible();
  for (const d of ['once', 'session', 'deny']) await expect(card.locator(`[data-decision="${d}"]`)).toBeInViewport({ ratio: 1 });
  await page.screenshot({ path: `${shots}/long-diff-1280-unfolded.png` });

  // A reload shows the card from the snapshot, focused the same way.
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(allow).toBeFocused();
  await expect(allow).toBeInViewport({ ratio: 1 });

  await page.keyboard.press('Enter');
  await expect(card).toHaveCount(0);
  await expect.poll(() => (fs.existsSync(path.join(work, 'long.txt')) ? 'written' : '')).toBe('written');
  // The last card gone, the keyboard is the composer's again.
  await expect(page.getByTestId('composer-input')).toBeFocused();
});

test('an approval never takes the keyboard from a person typing', async ({ page, myco, fake, work }) => {
  await openNew(page, myco, fake, work);
  await send(page, 'two [[steps: tool:bash {"command":"echo one"} ;; tool:bash {"command":"echo two"} ;; say:done]]');

  const first = page.locator('[data-testid="approval"]', { hasText: 'echo one' });
  await expect(first.locator('[data-decision="once"]')).toBeFocused();
  const input = page.getByTestId('composer-input');
  await input.click();
  await input.pressSequentially('a draft');
  // Answered without moving the keyboard (a click event only, no focus).
  await first.locator('[data-decision="once"]').dispatchEvent('click');
  const second = page.locator('[data-testid="approval"]', { hasText: 'echo two' });
  await expect(second).toBeVisible();
  await expect(input).toBeFocused();
  await input.pressSequentially(' goes on');
  await expect(input).toHaveValue('a draft goes on');
  await second.locator('[data-decision="deny"]').click();
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
});

test('on a phone the card fits the width and its buttons are a finger\'s size', async ({ page, myco, fake, work }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openNew(page, myco, fake, work);
  await send(page, `write it ${longWrite(300)}`);

  const card = page.getByTestId('approval');
  await expect(card.locator('[data-decision="once"]')).toBeFocused();
  await page.screenshot({ path: `${shots}/long-diff-390.png` });
  // No horizontal scroll of the page: long lines scroll inside the diff.
  expect(await overflow(page, 390)).toEqual([]);
  const box = await card.boundingBox();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  const pre = card.locator('pre.diff');
  expect(await pre.evaluate((e: Element) => e.scrollWidth > e.clientWidth)).toBe(true);
  for (const d of ['once', 'session', 'deny']) {
    const b = card.locator(`[data-decision="${d}"]`);
    await expect(b).toBeInViewport({ ratio: 1 });
    const bb = await b.boundingBox();
    expect(bb!.height).toBeGreaterThanOrEqual(44);
    expect(bb!.x + bb!.width).toBeLessThanOrEqual(390);
  }
  await card.getByTestId('diff-toggle').click();
  await expect(card.locator('[data-decision="deny"]')).toBeInViewport({ ratio: 1 });
  await page.screenshot({ path: `${shots}/long-diff-390-unfolded.png` });
  await card.locator('[data-decision="deny"]').click();
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
});

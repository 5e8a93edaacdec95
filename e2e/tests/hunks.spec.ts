import { test as base, expect, send, openSession } from '../fixtures';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Review by hunk: an edit of two places in a file comes as two hunks, each
// with its own toggle in the approval card (web/approval.templ). Rejecting
// one and allowing writes the other alone, the agent is told which was
// rejected, and the result's diff is the one applied.

const test = base.extend<{ work: string }>({
  work: async ({}, use) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-e2e-hunks-'));
    await use(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  },
});

const shots = '/tmp/shots-hunks';

async function openNew(page, myco, fake, cwd: string) {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Hunks', cwd });
  await myco.start();
  await openSession(page, myco, id);
  return id;
}

// twenty lines; the edit changes line 2 and line 18: two hunks.
const original = Array.from({ length: 20 }, (_, i) => `row ${i + 1}`).join('\n') + '\n';
const readThenEdit =
  '[[steps: tool:read_file {"path":"rows.txt"} ;; ' +
  'tool:edit_file {"path":"rows.txt","edits":[{"old_text":"row 2\\n","new_text":"ROW TWO\\n"},' +
  '{"old_text":"row 18\\n","new_text":"ROW EIGHTEEN\\n"}]} ;; say:done]]';

const overflow = (page, width: number) =>
  page.evaluate((width: number) => document.documentElement.scrollWidth > width, width);

for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
  test(`rejecting one of two hunks writes only the other (${viewport.width} px)`, async ({ page, myco, fake, work }) => {
    await page.setViewportSize(viewport);
    const file = path.join(work, 'rows.txt');
    fs.writeFileSync(file, original);
    await openNew(page, myco, fake, work);
    await send(page, `fix two rows ${readThenEdit}`);

    const card = page.getByTestId('approval');
    await expect(card).toHaveAttribute('data-tool', 'edit_file');
    const hunks = card.getByTestId('approval-hunk');
    await expect(hunks).toHaveCount(2);
    await expect(hunks.nth(0).locator('.line.add')).toHaveText('+ROW TWO');
    await expect(hunks.nth(1).locator('.line.add')).toHaveText('+ROW EIGHTEEN');
    const toggles = card.locator('input[data-hunk-accept]');
    await expect(toggles.nth(0)).toBeChecked();
    await expect(toggles.nth(1)).toBeChecked();
    await expect(card.getByTestId('approval-hunks-status')).toHaveText('All 2 hunks accepted');

    // "Allow once" has the keyboard; Shift+Tab back to the second hunk's
    // toggle, Space rejects it: the toggles are keyboard reachable.
    const once = card.locator('[data-decision="once"]');
    await expect(once).toBeFocused();
    await page.keyboard.press('Shift+Tab');
    await expect(toggles.nth(1)).toBeFocused();
    await page.keyboard.press('Space');
    await expect(toggles.nth(1)).not.toBeChecked();
    await expect(card.getByTestId('approval-hunks-status')).toHaveText(/^1 of 2 hunks accepted/);
    if (viewport.width === 390) {
      expect(await overflow(page, 390)).toBe(false);
      const row = await hunks.nth(1).locator('label').boundingBox();
      expect(row!.height).toBeGreaterThanOrEqual(44);
      expect(row!.x + row!.width).toBeLessThanOrEqual(390);
      await expect(once).toBeInViewport({ ratio: 1 });
    }
    await page.screenshot({ path: `${shots}/hunks-${viewport.width}.png` });

    await once.click();
    await expect(card).toHaveCount(0);
    await expect.poll(() => fs.readFileSync(file, 'utf8')).toBe(original.replace('row 2\n', 'ROW TWO\n'));

    // The agent is told which hunk was rejected, and where it is.
    await expect
      .poll(async () => JSON.stringify((await fake.chatRequests()).at(-1)?.body))
      .toContain('Hunk 2 (lines 15');
    const last = JSON.stringify((await fake.chatRequests()).at(-1)?.body);
    expect(last).toContain('Applied hunk 1 of 2');
    expect(last).toContain('was rejected by the person');
    await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');

    // The result's diff is the one applied, live and after a reload.
    for (const reload of [false, true]) {
      if (reload) await page.reload();
      const shown = page.locator('[data-testid="tool-call"][data-tool="edit_file"] [data-testid="tool-result"]');
      await expect(shown).toContainText('Applied hunk 1 of 2');
      const diff = shown.getByTestId('diff');
      await expect(diff.locator('.line.add')).toHaveText(['+ROW TWO']);
      await expect(diff.locator('.line.del')).toHaveText(['-row 2']);
      await expect(diff).not.toContainText('EIGHTEEN');
    }
  });
}

test('rejecting every hunk is a denial', async ({ page, myco, fake, work }) => {
  const file = path.join(work, 'rows.txt');
  fs.writeFileSync(file, original);
  await openNew(page, myco, fake, work);
  await send(page, `fix two rows ${readThenEdit}`);

  const card = page.getByTestId('approval');
  const toggles = card.locator('input[data-hunk-accept]');
  await toggles.nth(0).uncheck();
  await toggles.nth(1).uncheck();
  await expect(card.getByTestId('approval-hunks-status')).toHaveText(/^No hunk accepted/);
  await card.locator('[data-decision="once"]').click();
  await expect
    .poll(async () => JSON.stringify((await fake.chatRequests()).at(-1)?.body))
    .toContain('denied this change');
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  expect(fs.readFileSync(file, 'utf8')).toBe(original);
  const shown = page.locator('[data-testid="tool-call"][data-tool="edit_file"] [data-testid="tool-result"]');
  await expect(shown).toHaveAttribute('data-is-error', 'true');
});

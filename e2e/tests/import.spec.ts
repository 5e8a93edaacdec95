import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { test, expect } from '../fixtures';

// axe runs axe-core on the page as it is (as a11y.spec.ts does) and fails
// on any violation.
async function axe(page: Page) {
  await page.addScriptTag({ path: require.resolve('axe-core') });
  const violations: { id: string; nodes: { html: string }[] }[] = await page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return r.violations;
  });
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`).join('\n')).toBe('');
}

// The Import page as a person uses it: from the home page, point the
// Claude Code form at a folder of transcripts, watch the import go, read
// what it made (the damaged line, what was kept as text, the file that is
// no session), open the imported session; importing again makes nothing.
test('import page: a Claude Code folder, progress, the report, the session opens', async ({ page, browser, myco }) => {
  const src = path.join(myco.home, 'claude-projects');
  fs.cpSync(path.join(__dirname, '..', '..', 'importer', 'testdata', 'claude-code'), src, { recursive: true });
  const transcript = path.join(src, '-w-demo', 'cc111111-1111-4111-8111-111111111111.jsonl');
  const before = fs.readFileSync(transcript);
  await myco.start();
  await page.goto(myco.link('/'));
  await page.getByTestId('import-link').click();
  await expect(page.getByTestId('import-page')).toBeVisible();
  // Each tool's form shows where that tool keeps its sessions.
  await expect(page.getByTestId('import-path-codex')).toHaveValue(/\.codex\/sessions$/);

  await page.getByTestId('import-path-claude-code').fill(src);
  await page.getByTestId('import-submit-claude-code').click();
  const status = page.getByTestId('import-status');
  await expect(status).toBeVisible();
  await expect(status).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('import-progress')).toHaveJSProperty('value', 2);
  await expect(page.getByTestId('import-count')).toHaveText('2 of 2 sessions');
  await expect(page.getByTestId('import-summary')).toHaveText('1 imported, 0 imported before, 0 failed, 1 file not a session');
  const item = page.locator('[data-testid="import-item"][data-outcome="imported"]');
  await expect(item).toContainText('1 damaged line skipped');
  await expect(item).toContainText('abandoned branches');
  await expect(page.locator('[data-testid="import-item"][data-outcome="not_session"]')).toContainText('notes.jsonl');
  await page.screenshot({ path: test.info().outputPath('import-1280.png'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: test.info().outputPath('import-390.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });

  // The session opens, with the conversation and its tool call.
  await page.getByTestId('import-session-link').first().click();
  await expect(page).toHaveURL(/\/s\/[0-9a-f-]+$/);
  await expect(page.locator('h1, [data-testid="session-title"]').first()).toContainText('Run the demo tests');
  await expect(page.getByText('The tests pass.')).toBeVisible();
  await expect(page.getByText('A green pixel.')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('imported-session-1280.png'), fullPage: true });
  await page.goto(myco.link('/'));
  await expect(page.getByTestId('session-list')).toContainText('Run the demo tests');

  // Again: nothing new, and the source is as it was. (In a tab that lets
  // axe-core's script in, past the page's CSP.)
  const tab = await (await browser.newContext({ bypassCSP: true })).newPage();
  await tab.goto(myco.link('/import'));
  await tab.getByTestId('import-path-claude-code').fill(src);
  await tab.getByTestId('import-submit-claude-code').click();
  await expect(tab.getByTestId('import-summary')).toHaveText('0 imported, 1 imported before, 0 failed, 1 file not a session');
  expect(fs.readFileSync(transcript).equals(before)).toBe(true);
  await axe(tab);
});

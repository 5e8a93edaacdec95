import { test, expect, openSession, send, type Myco } from '../fixtures';
import type { Browser, Page } from '@playwright/test';

// Accessibility, checked by axe-core (the npm package, pinned in
// package.json) on every kind of page the tab has: the list of sessions,
// a session with what a turn brings (messages, a tool call, an approval
// waiting, the side panel), the settings, full-text search and the New
// session dialog, wide, on a phone and in the dark theme. Any violation, whatever its impact,
// fails the test with the rule, the elements and what to fix.

interface AxeNode { target: unknown[]; failureSummary?: string; html: string }
interface AxeViolation { id: string; impact: string | null; help: string; helpUrl: string; nodes: AxeNode[] }

// axe runs axe-core on the page as it is now and fails on any violation,
// listed readably. The script goes in as a tag: the context bypasses the
// page's CSP (script-src 'self'), which forbids inline scripts.
async function axe(page: Page, what: string) {
  await page.addScriptTag({ path: require.resolve('axe-core') });
  const violations: AxeViolation[] = await page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return r.violations;
  });
  expect(violations.map(describe).join('\n\n'), `axe-core on ${what}`).toBe('');
}

function describe(v: AxeViolation): string {
  const nodes = v.nodes.map((n) => `  at ${n.target.join(' ')}\n    ${n.html}\n    ${(n.failureSummary ?? '').replace(/\n/g, '\n    ')}`);
  return `${v.impact} ${v.id}: ${v.help} (${v.helpUrl})\n${nodes.join('\n')}`;
}

const sizes = [
  { name: 'wide', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  // The dark theme has colours of its own, contrast included.
  { name: 'wide, dark', viewport: { width: 1280, height: 800 }, colorScheme: 'dark' as const },
];

async function tab(browser: Browser, size: (typeof sizes)[number]): Promise<Page> {
  const { name: _, ...options } = size;
  const ctx = await browser.newContext({ ...options, bypassCSP: true });
  return ctx.newPage();
}

// history is a conversation with what Markdown renders: a list, code, a table.
const history = [
  { role: 'user' as const, text: 'How do I read the config?' },
  {
    role: 'assistant' as const,
    text: 'Like this:\n\n```go\ncfg, err := config.Load("config.toml")\n```\n\n| key | value |\n| --- | --- |\n| a | 1 |\n\n- one\n- two',
  },
  { role: 'user' as const, text: 'And the zanzibar key?' },
  { role: 'assistant' as const, text: 'The zanzibar key is read last.' },
];

function seed(myco: Myco): string {
  myco.writeSession({ title: 'Other work', messages: [{ role: 'user', text: 'nothing here' }] });
  return myco.writeSession({ title: 'Config', messages: history });
}

// axe-core walks the whole page, every rule: a few runs in one test take
// a minute on a loaded machine, so these tests get the longer timeout.
test.beforeEach(() => test.slow());

for (const size of sizes) {
  test(`no axe-core violation on the home page, search and the New session dialog (${size.name})`, async ({ browser, myco, fake }) => {
    myco.useModels(fake.url);
    seed(myco);
    await myco.start();
    const page = await tab(browser, size);
    await page.goto(myco.link('/'));
    await expect(page.getByTestId('session-row')).toHaveCount(2);
    await axe(page, 'the home page');

    await page.getByTestId('search-input').fill('zanzibar');
    await expect(page.getByTestId('search-hit').first()).toBeVisible();
    await axe(page, 'search results');

    await page.getByTestId('new-session-button').click();
    await expect(page.getByTestId('new-session-dialog')).toBeVisible();
    await axe(page, 'the New session dialog');
  });

  test(`no axe-core violation on the settings page (${size.name})`, async ({ browser, myco, fake }) => {
    myco.useModels(fake.url);
    await myco.start();
    const page = await tab(browser, size);
    await page.goto(myco.link('/settings'));
    await expect(page.locator('body')).toHaveAttribute('data-page', 'settings');
    await axe(page, 'the settings page');
  });

  test(`no axe-core violation on a session with a tool call, an approval waiting and the panel open (${size.name})`, async ({ browser, myco, fake }) => {
    myco.useModels(fake.url);
    const id = seed(myco);
    await myco.start();
    const page = await tab(browser, size);
    await openSession(page, myco, id);
    await send(page, 'look [[steps: tool:read_file {"path":"config.toml"} ;; tool:bash {"command":"cat config.toml"} ;; say:Read.]]');
    const card = page.getByTestId('approval');
    await expect(card).toBeVisible();
    await expect(page.getByTestId('tool-call')).toHaveCount(2);
    // The commands list open under the composer (the combobox's popup).
    await page.getByTestId('composer-input').fill('/co');
    await expect(page.locator('#command-list')).toBeVisible();
    await axe(page, 'a session page');

    // On a phone the side panel is a drawer behind Details.
    const details = page.getByTestId('details-toggle');
    if (await details.isVisible()) await details.click();
    await expect(page.getByTestId('side-panel')).toBeVisible();
    await axe(page, 'a session page with its side panel');
    await page.keyboard.press('Escape');
    await card.locator('[data-decision="deny"]').click();
    await expect(card).toHaveCount(0);
  });
}

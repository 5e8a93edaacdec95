import { test, expect, openSession } from '../fixtures';
import type { Page } from '@playwright/test';

// Accessibility of the dialogs issue 24 adds, checked by axe-core as
// a11y.spec.ts checks the pages: the palette listing sessions and
// commands, and the keyboard-shortcut sheet, wide, on a phone and in the
// dark theme chosen in the tab (<html data-theme="dark">).

interface AxeNode { target: unknown[]; failureSummary?: string; html: string }
interface AxeViolation { id: string; impact: string | null; help: string; helpUrl: string; nodes: AxeNode[] }

async function axe(page: Page, what: string) {
  await page.addScriptTag({ path: require.resolve('axe-core') });
  const violations: AxeViolation[] = await page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return r.violations;
  });
  const text = violations.map((v) => `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `  at ${n.target.join(' ')}\n    ${n.html}\n    ${n.failureSummary ?? ''}`).join('\n')}`);
  expect(text.join('\n\n'), `axe-core on ${what}`).toBe('');
}

const sizes = [
  { name: 'wide', use: { viewport: { width: 1280, height: 800 }, bypassCSP: true } },
  { name: 'phone', use: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, bypassCSP: true } },
  { name: 'wide, dark chosen', use: { viewport: { width: 1280, height: 800 }, bypassCSP: true }, dark: true },
];

test.beforeEach(() => test.slow());

for (const size of sizes) {
  test.describe(size.name, () => {
    test.use(size.use);
    test('no axe-core violation in the palette and the shortcut sheet', async ({ page, myco, fake }) => {
      myco.useModels(fake.url);
      myco.writeSession({ title: 'Other work' });
      const id = myco.writeSession({ title: 'Config', messages: [{ role: 'user', text: 'hello' }, { role: 'assistant', text: 'hi' }] });
      await myco.start();
      if (size.dark) {
        await page.goto(myco.link('/settings'));
        await page.getByTestId('theme-dark').check();
      }
      await openSession(page, myco, id);
      await page.getByTestId('palette-open').click();
      await expect(page.getByTestId('palette').getByTestId('palette-session')).toHaveCount(1);
      await axe(page, 'the palette with nothing typed');
      await page.getByTestId('palette-input').fill('/model ');
      await expect(page.getByTestId('palette').getByTestId('palette-arg').first()).toBeVisible();
      await axe(page, 'the palette listing models');
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+/');
      await expect(page.getByTestId('shortcut-sheet')).toBeVisible();
      await axe(page, 'the shortcut sheet');
      await page.keyboard.press('Escape');
      // The home page's palette (a phone's header there has no Find
      // button: the page's own search finds sessions).
      await page.goto(myco.link('/'));
      await page.keyboard.press('Control+k');
      await page.getByTestId('palette-input').fill('conf');
      // Config first; the other session may match too, by its folder: the
      // palette matches paths as well, and the test's folder has a random
      // name ("myco-work-DNf1bW" holds c, o, n and f in that order).
      await expect(page.getByTestId('palette').getByTestId('palette-session').first()).toContainText('Config');
      await axe(page, 'the home page palette');
    });
  });
}

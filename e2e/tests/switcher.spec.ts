import path from 'node:path';
import { test, expect, openSession, newID } from '../fixtures';

// The palette as a session switcher (issue 24): Ctrl-K (or the header's
// Find button, on a phone) finds a session by a few letters of its title
// and opens it; Alt-` goes back to the session the tab showed before;
// arguments complete in the / menu and the palette; /session says where
// the session lives; the theme chosen outlives a reload; ? opens the
// sheet of shortcuts. Each at a laptop's size and a phone's.

const sizes = [
  { name: 'laptop', use: { viewport: { width: 1280, height: 800 } } },
  { name: 'phone', use: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } },
];

// sessions writes 40 sessions, among them the three the tests look for,
// with others between them in the listing.
function sessions(myco) {
  const ids: Record<string, string> = {};
  const now = Date.now();
  for (let i = 0; i < 40; i++) {
    myco.writeSession({ id: newID(now - 100_000 - i * 1000), title: `Filler task ${i}`, updated_at: new Date(now - 100_000 - i * 1000).toISOString() });
  }
  ids.parser = myco.writeSession({ id: newID(now - 50_000), title: 'Rewrite the parser', updated_at: new Date(now - 50_000).toISOString() });
  ids.deploy = myco.writeSession({ id: newID(now - 40_000), title: 'Deploy notes', updated_at: new Date(now - 40_000).toISOString() });
  ids.home = myco.writeSession({ id: newID(now - 30_000), title: 'Home base', updated_at: new Date(now - 30_000).toISOString() });
  return ids;
}

for (const size of sizes) {
  test.describe(size.name, () => {
    test.use(size.use);
    const phone = size.name === 'phone';

    // openPalette opens it as a person there would: Ctrl-K, or a tap.
    async function openPalette(page) {
      if (phone) await page.getByTestId('palette-open').tap();
      else await page.keyboard.press('Control+k');
      await expect(page.getByTestId('palette')).toBeVisible();
    }

    test('the switcher opens a session by three letters of its title, and Alt-` goes back', async ({ page, myco, fake }) => {
      myco.useModels(fake.url);
      const ids = sessions(myco);
      await myco.start();
      await openSession(page, myco, ids.home);

      await openPalette(page);
      await page.getByTestId('palette-input').fill('prs');
      const first = page.getByTestId('palette').locator('[data-palette-item]:not([hidden])').first();
      await expect(first).toHaveAttribute('data-session', ids.parser);
      await expect(first).toContainText('Rewrite the parser');
      if (phone) await first.tap();
      else await page.keyboard.press('Enter');
      await expect(page.getByTestId('palette')).toBeHidden();
      await expect(page).toHaveURL(new RegExp(`/s/${ids.parser}$`));
      await expect(page.getByTestId('session-title')).toHaveText('Rewrite the parser');

      // Back to the previous session, and forth again.
      await page.keyboard.press('Alt+Backquote');
      await expect(page).toHaveURL(new RegExp(`/s/${ids.home}$`));
      await expect(page.getByTestId('session-title')).toHaveText('Home base');
      await page.keyboard.press('Alt+Backquote');
      await expect(page).toHaveURL(new RegExp(`/s/${ids.parser}$`));

      // With nothing typed, the session this tab showed before comes
      // first: Ctrl-K Enter is the same toggle.
      await openPalette(page);
      await expect(page.getByTestId('palette').locator('[data-palette-item]:not([hidden])').first()).toHaveAttribute('data-session', ids.home);

      // By its ID's start and by its folder too, and from the home page.
      // (A phone's header there has no Find button: the page's own search
      // finds sessions; a keyboard's Ctrl-K works.)
      await page.goto(myco.link('/'));
      await page.keyboard.press('Control+k');
      await expect(page.getByTestId('palette')).toBeVisible();
      await page.getByTestId('palette-input').fill(ids.deploy.slice(0, 13));
      await expect(page.getByTestId('palette').locator('[data-palette-item]:not([hidden])').first()).toHaveAttribute('data-session', ids.deploy);
      await page.getByTestId('palette-input').fill(path.basename((await myco.doc(ids.deploy)).cwd));
      await expect(page.getByTestId('palette').getByTestId('palette-session')).not.toHaveCount(0);
      await page.getByTestId('palette-input').fill('depl');
      await page.keyboard.press('Enter');
      await expect(page).toHaveURL(new RegExp(`/s/${ids.deploy}$`));
      // Alt-` from the page reached by navigation: the one before it.
      await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
      await page.keyboard.press('Alt+Backquote');
      await expect(page).toHaveURL(new RegExp(`/s/${ids.parser}$`));
    });

    test('arguments complete: /model in the / menu, the help text in the palette, /theme', async ({ page, myco, fake }) => {
      myco.useModels(fake.url);
      const id = myco.writeSession({ title: 'Completion' });
      await myco.start();
      await openSession(page, myco, id);
      const input = page.getByTestId('composer-input');

      await input.fill('/model ');
      const options = page.locator('#command-list [data-arg]');
      await expect(options.first()).toBeVisible();
      const names = await options.evaluateAll((os) => os.map((o) => (o as HTMLElement).dataset.arg));
      expect(names).toContain('default');
      const pick = names.find((n) => n && n !== 'default' && n.includes('/'))!;
      expect(pick).toBeTruthy();
      const option = page.locator(`#command-list [data-arg="${pick}"]`);
      if (phone) await option.tap();
      else await option.click();
      await expect(input).toHaveValue(`/model ${pick}`);
      await expect(page.locator('#command-list')).toBeHidden();
      await input.press('Enter');
      await expect(page.getByTestId('session-model')).toHaveText(pick);

      // "markdown" is in /export's help, not its name.
      await openPalette(page);
      await page.getByTestId('palette-input').fill('markdown');
      const first = page.getByTestId('palette').locator('[data-palette-item]:not([hidden])').first();
      await expect(first).toHaveAttribute('data-command', 'export');

      // /think in the palette lists the levels; picking one runs it.
      await page.getByTestId('palette-input').fill('/think ');
      const levels = page.getByTestId('palette').getByTestId('palette-arg');
      await expect(levels.first()).toBeVisible();
      await expect(levels).toContainText(['off', 'low', 'medium', 'high']);
      await page.getByTestId('palette-input').fill('/think hig');
      await expect(levels.first()).toHaveAttribute('data-arg', 'high');
      if (phone) await levels.first().tap();
      else await page.keyboard.press('Enter');
      await expect(page.getByTestId('palette')).toBeHidden();
      await expect.poll(async () => (await myco.doc(id)).think ?? '').toBe('high');
    });

    test('/session says the ID, the file and the folder', async ({ page, myco, fake }) => {
      myco.useModels(fake.url);
      const id = myco.writeSession({ title: 'Where' });
      await myco.start();
      await openSession(page, myco, id);
      const input = page.getByTestId('composer-input');
      await input.fill('/session');
      await input.press('Enter');
      const note = page.locator('[data-composer-note]');
      await expect(note).toContainText(id);
      await expect(note).toContainText(path.join(myco.sessionDir, `${id}.json`));
      await expect(note).toContainText((await myco.doc(id)).cwd);
    });

    test('the dark theme outlives a reload, and ? opens the shortcut sheet', async ({ page, myco, fake }) => {
      myco.useModels(fake.url);
      const id = myco.writeSession({ title: 'Colours' });
      await page.emulateMedia({ colorScheme: 'light' });
      await myco.start();
      await openSession(page, myco, id);
      const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(await bg()).toBe('rgb(252, 252, 251)');

      await openPalette(page);
      await page.getByTestId('palette-input').fill('/theme dark');
      await expect(page.getByTestId('palette').getByTestId('palette-arg').first()).toHaveAttribute('data-arg', 'dark');
      await page.keyboard.press('Enter');
      await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
      expect(await bg()).toBe('rgb(18, 20, 22)');
      await page.reload();
      await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
      expect(await bg()).toBe('rgb(18, 20, 22)');

      // Settings shows the choice and changes it back to the system's.
      await page.goto(myco.link('/settings'));
      await expect(page.getByTestId('theme-dark')).toBeChecked();
      await page.getByTestId('theme-system').check();
      await expect(page.locator('html')).not.toHaveAttribute('data-theme', /./);
      expect(await bg()).toBe('rgb(252, 252, 251)');
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await bg()).toBe('rgb(18, 20, 22)');
      await page.getByTestId('theme-light').check();
      expect(await bg()).toBe('rgb(252, 252, 251)');

      // ? outside a text field opens the sheet; in the composer it is typed.
      await openSession(page, myco, id);
      const input = page.getByTestId('composer-input');
      await input.fill('why');
      await input.press('?');
      await expect(input).toHaveValue('why?');
      await expect(page.getByTestId('shortcut-sheet')).toBeHidden();
      await input.press('Control+/');
      const sheet = page.getByTestId('shortcut-sheet');
      await expect(sheet).toBeVisible();
      await expect(sheet).toContainText('Alt-`');
      await page.keyboard.press('Escape');
      await expect(sheet).toBeHidden();
      await page.locator('body').click({ position: { x: 5, y: 300 } });
      await page.keyboard.press('?');
      await expect(sheet).toBeVisible();
      await expect(sheet).toContainText('Find a session');
      await sheet.getByTestId('shortcut-sheet-close').click();
      await expect(sheet).toBeHidden();
    });
  });
}

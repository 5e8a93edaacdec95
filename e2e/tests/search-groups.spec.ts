import { test, expect } from '../fixtures';

// Search by session (issue 20, item 14): a session that says a word fifty
// times takes one group and does not hide the session that says it once;
// excerpts are the text a reader sees, not Markdown; each says who wrote
// it and when; "N more in this session" shows the rest of a group.
for (const [name, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]] as const) {
  test(`a flood of hits in one session does not hide another (${name})`, async ({ page, myco }) => {
    await page.setViewportSize(viewport);
    const at = '2026-11-30T10:00:00Z';
    const real = myco.writeSession({
      title: 'The real one',
      updated_at: '2026-11-30T10:05:00Z',
      messages: [
        { role: 'user', text: 'Where does it live?' },
        { role: 'assistant', text: '## Habitat\n\nThe **quagga** lived in `the Karoo`, see [notes](https://example.com/q).', at },
      ],
    });
    myco.writeSession({
      title: 'Flood',
      messages: Array.from({ length: 50 }, (_, i) => ({
        role: 'assistant' as const,
        text: `# Quagga ${i}\n\n- a **quagga** item\n- another`,
      })),
    });
    await myco.start();
    await page.goto(myco.link('/'));
    await page.locator('input[type="search"]').first().fill('quagga');

    // The session with one hit is shown below the flood.
    const hits = page.getByTestId('text-hits');
    await expect(hits.locator('.hit').first()).toBeVisible();
    const realTitle = hits.getByText('The real one');
    await expect(realTitle).toHaveCount(1);
    await realTitle.scrollIntoViewIfNeeded();
    await expect(realTitle).toBeVisible();

    // Plain text, not Markdown.
    for (const ex of await hits.locator('.hit-excerpt').allTextContents()) {
      expect(ex).not.toContain('**');
      expect(ex).not.toContain('#');
      expect(ex).not.toContain('`');
    }

    // One group per session, three hits of the flood shown.
    const groups = page.getByTestId('search-group');
    await expect(groups).toHaveCount(2);
    const flood = groups.filter({ hasText: 'Flood' });
    const one = groups.filter({ hasText: 'The real one' });
    await expect(flood.getByTestId('search-hit')).toHaveCount(3);
    const hit = one.getByTestId('search-hit');
    await expect(hit).toHaveCount(1);
    await expect(hit.getByTestId('hit-excerpt')).toContainText('Habitat The quagga lived in the Karoo, see notes.');
    await expect(hit.locator('mark')).toHaveText('quagga');
    // Who and when, the time as the page's other times are.
    await expect(hit.getByTestId('hit-who')).toHaveText('Agent');
    await expect(hit.locator('time')).toHaveAttribute('datetime', at);
    await expect(hit.locator('time')).not.toBeEmpty();

    // Nothing reaches past the right edge.
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    await page.screenshot({ path: test.info().outputPath(`search-groups-${name}.png`), fullPage: true });

    // "47 more in this session" shows the rest, and focus goes on at the
    // first hit that was not shown.
    const more = flood.getByTestId('search-more');
    await expect(more).toHaveText('47 more in this session');
    await more.click();
    const expanded = page.getByTestId('search-group').filter({ hasText: 'Flood' });
    await expect(expanded.getByTestId('search-hit')).toHaveCount(50);
    await expect(expanded.getByTestId('search-more')).toHaveCount(0);
    await expect(expanded.getByTestId('search-hit').nth(3).locator('a')).toBeFocused();

    // The one hit opens its session at the message.
    await hit.locator('a').click();
    await expect(page).toHaveURL(new RegExp(`/s/${real}#m-`));
    await expect(page.locator('.search-target')).toContainText('quagga');
  });
}

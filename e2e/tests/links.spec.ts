import { test, expect } from '../fixtures';

// A link to a message (a search hit, "Forked from", a #m- URL reloaded)
// ends with that message in view and highlighted, and stays there while
// the session goes on, until the reader scrolls to the bottom themselves
// (issue 20, item 1).
for (const [name, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]] as const) {
  test(`a link to a message lands on it and stays (${name})`, async ({ page, myco, fake }) => {
    await page.setViewportSize(viewport);
    myco.useModels(fake.url);
    const messages = Array.from({ length: 60 }, (_, i) => ({
      role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant',
      text: `Message number ${i}. `.repeat(6),
    }));
    const id = myco.writeSession({ title: 'Long', messages });
    await myco.start();
    const doc = await myco.doc(id);
    const target = doc.threads[0].messages[10].id;
    await page.goto(myco.link('/')); // the token, as a cookie
    await page.goto(`${myco.url}/s/${id}#m-${target}`);
    await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
    const el = page.locator(`[data-message-id="${target}"]`).first();
    await expect(el).toHaveClass(/search-target/);
    await expect(el).toBeInViewport();
    // The session goes on (another tab sends): the reader stays put.
    const r = await myco.api('POST', `/api/sessions/${id}/messages`, { text: 'more [[text:60]]' });
    expect(r.status).toBe(202);
    await expect(page.getByTestId('message').filter({ hasText: 'more' })).toHaveCount(1);
    await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false', { timeout: 30_000 });
    await expect(el).toBeInViewport();
    // At the bottom, the page follows again.
    await page.keyboard.press('End');
    await expect(page.getByTestId('composer-input')).toBeInViewport();
  });
}

// Scrolled up while an answer streams, the reader gets a way back to the
// newest text (issue 20, item 19).
for (const [name, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]] as const) {
  test(`"New messages" takes a reader who scrolled up back to the newest text (${name})`, async ({ page, myco, fake }) => {
    await page.setViewportSize(viewport);
    myco.useModels(fake.url);
    const messages = Array.from({ length: 40 }, (_, i) => ({
      role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant',
      text: `Message number ${i}. `.repeat(6),
    }));
    const id = myco.writeSession({ title: 'Long', messages });
    await myco.start();
    await page.goto(myco.link(`/s/${id}`));
    await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
    const more = page.getByTestId('new-below');
    await expect(more).toBeHidden();
    await page.mouse.wheel(0, -3000);
    // The wheel scrolls smoothly, over several frames: send only once the
    // reader is well away from the bottom, or the first answer text can
    // arrive while they are still within reach of it and pull them back.
    await expect.poll(() => page.evaluate(() => {
      const s = document.scrollingElement!;
      return s.scrollHeight - s.scrollTop - s.clientHeight;
    })).toBeGreaterThan(500);
    const r = await myco.api('POST', `/api/sessions/${id}/messages`, { text: 'more [[text:80]]' });
    expect(r.status).toBe(202);
    await expect(more).toBeVisible();
    await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false', { timeout: 30_000 });
    await more.click();
    await expect(more).toBeHidden();
    const last = page.locator('[data-testid="message"][data-role="assistant"]').last();
    await expect(last).toContainText('alpha bravo');
    await expect(last).toBeInViewport();
  });
}

// A page with nothing below the fold has no "New messages" to offer, even
// when it opened held at a message (a link, a version opened in place):
// the answer that comes in is already in view.
test('"New messages" is not offered when the new text is in view', async ({ page, myco, fake }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Short', messages: [
    { role: 'user', text: 'First question' },
    { role: 'assistant', text: 'First answer' },
  ] });
  await myco.start();
  const target = (await myco.doc(id)).threads[0].messages[0].id;
  await page.goto(myco.link('/'));
  await page.goto(`${myco.url}/s/${id}#m-${target}`);
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const r = await myco.api('POST', `/api/sessions/${id}/messages`, { text: 'more [[say:A short answer.]]' });
  expect(r.status).toBe(202);
  await expect(page.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText('A short answer.');
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false', { timeout: 30_000 });
  await expect(page.getByTestId('new-below')).toBeHidden();
});

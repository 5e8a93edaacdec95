import { test, expect } from '../fixtures';

// At a phone's width the conversation fills the screen: the side panel is
// a drawer behind the header's Details button, so following an answer
// keeps its newest text and the composer in view.
test('on a phone the answer and the composer stay in view; Details opens the panel', async ({ browser, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Phone', model: 'anthropic/fake-model' });
  await myco.start();
  // A phone: touch, and the mobile viewport (scroll anchoring and the
  // visual viewport behave as on one).
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await phone.newPage();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');

  const words = Array.from({ length: 150 }, (_, i) => `w${i}`).join(' ');
  const answer = `# Plan\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n\`\`\`go\nfunc main() {}\n\`\`\`\n\n${words} LAST`;
  const input = page.getByTestId('composer-input');
  await input.fill(`[[say:${answer}]] [[delay:10ms]]`);
  await input.press('Enter');
  const streaming = page.locator('[data-testid="message"][data-streaming]');
  // While it streams, its newest text is on screen: blocks inserted at once
  // must not let go of the bottom.
  await expect(streaming.locator('table')).toBeAttached();
  await expect(streaming.locator('.streaming-tail')).toBeInViewport();
  const done = page.locator('[data-testid="message"][data-role="assistant"]:not([data-streaming])');
  await expect(done).toContainText('LAST');
  await expect(done.getByText('LAST', { exact: false })).toBeInViewport();
  await expect(input).toBeInViewport();

  const panel = page.getByTestId('side-panel');
  await expect(panel).toBeHidden();
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
  const details = page.getByTestId('details-toggle');
  await details.click();
  await expect(panel).toBeVisible();
  await expect(details).toHaveAttribute('aria-expanded', 'true');
  await expect(panel.getByText('Scratchpad')).toBeInViewport();
  await page.screenshot({ path: test.info().outputPath('details-390.png') });
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(details).toBeFocused();

  // Wide again, the panel is the column beside the conversation.
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(panel).toBeVisible();
  await expect(details).toBeHidden();
});

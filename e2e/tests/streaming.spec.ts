import { Page } from '@playwright/test';
import { test, expect, send } from '../fixtures';

// An answer with a heading, a table and a code block first, then a long
// paragraph that keeps it streaming: the blocks above are complete (a later
// line began another block) long before the answer ends.
function answer(words: number): string {
  const tail = Array.from({ length: words }, (_, i) => `word${i}`).join(' ');
  return [
    '# Streaming plan',
    '',
    'A first paragraph.',
    '',
    '| name | value |',
    '| --- | ---: |',
    '| alpha | 1 |',
    '| beta | 2 |',
    '',
    '```go',
    'func main() { fmt.Println("hi") }',
    '```',
    '',
    `The rest: ${tail} END.`,
  ].join('\n');
}

// blocksHTML is the markup of the rendered blocks of the message being
// written (its plain tail left out).
function blocksHTML(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const run = document.querySelector('[data-testid="message"][data-streaming] .streaming-text');
    return [...(run?.children || [])].filter((c) => !c.classList.contains('streaming-tail')).map((c) => c.outerHTML);
  });
}

test('a heading, a table and highlighted code render while the answer still streams', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Streaming', model: 'anthropic/fake-model' });
  await myco.start();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');

  await send(page, `[[say:${answer(300)}]] [[delay:40ms]]`); // 12 s: longer than the checks take on a loaded machine
  const streaming = page.locator('[data-testid="message"][data-streaming]');
  await expect(streaming.locator('h1')).toHaveText('Streaming plan');
  await expect(streaming.locator('table td').first()).toHaveText('alpha');
  const code = streaming.locator('.code-block[data-lang="go"]');
  await expect(code.locator('.hl-chroma .hl-nx').first()).toBeVisible(); // highlighted
  await expect(code.getByTestId('copy-code')).toBeVisible();
  // Still streaming: the paragraph after them is plain text, growing.
  const tail = streaming.locator('.streaming-tail');
  await expect(tail).toContainText('The rest: word');
  await expect(streaming).not.toContainText('END.');
  await expect(streaming).not.toContainText('| alpha |'); // the raw table went
  const mid = await blocksHTML(page);
  expect(mid.length).toBeGreaterThanOrEqual(4); // h1, p, table, code block

  // message.end: the same blocks, in the same places, and the tail rendered.
  const done = page.locator(`[data-testid="message"][data-role="assistant"]:not([data-streaming])`);
  await expect(done).toContainText('END.', { timeout: 30_000 });
  const final = await done.locator('.md').first().evaluate((md) => [...md.children].map((c) => c.outerHTML));
  expect(final.slice(0, mid.length)).toEqual(mid);
  expect(final.length).toBe(mid.length + 1);
  await expect(done.locator('h1')).toHaveCount(1);
  await expect(done.locator('.streaming-text')).toHaveCount(0);
});

test('the reader who scrolled up stays where they are while blocks arrive', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Scroll', model: 'anthropic/fake-model' });
  await myco.start();
  await page.setViewportSize({ width: 1280, height: 500 });
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');

  // Many short paragraphs: each completes a block as the next begins.
  // Enough of them that a loaded machine's checks end long before the answer.
  const paras = Array.from({ length: 100 }, (_, i) => `Paragraph ${i} of the answer.`).join('\n\n');
  await send(page, `[[say:${paras}]] [[delay:30ms]]`);
  const streaming = page.locator('[data-testid="message"][data-streaming]');
  await expect(streaming.locator('p', { hasText: 'Paragraph 12 of' })).toBeVisible();
  await page.mouse.wheel(0, -300);
  await expect.poll(() => page.evaluate(() => {
    const s = document.scrollingElement!;
    return s.scrollHeight - s.scrollTop - s.clientHeight;
  })).toBeGreaterThan(150);
  const at = await page.evaluate(() => document.scrollingElement!.scrollTop);
  await expect(streaming.locator('p', { hasText: 'Paragraph 30 of' })).toHaveCount(1);
  expect(await page.evaluate(() => document.scrollingElement!.scrollTop)).toBe(at);
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false', { timeout: 30_000 });
  expect(await page.evaluate(() => document.scrollingElement!.scrollTop)).toBe(at);
});

test('a tab reloaded mid-answer shows the blocks rendered so far, then the rest once', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Reload', model: 'anthropic/fake-model' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');

  // 400 words at 40 ms: the answer must still be streaming when the
  // reloaded tab's checks run; with 150 it ended under load before them
  // (twice on fresh clones), and the streaming message was gone.
  await send(page, `[[say:${answer(400)}]] [[delay:40ms]]`);
  const streaming = page.locator('[data-testid="message"][data-streaming]');
  await expect(streaming.locator('.code-block')).toBeVisible();
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  // From the snapshot: the blocks as HTML, the tail as text.
  await expect(streaming.locator('h1')).toHaveText('Streaming plan');
  await expect(streaming.locator('table td').first()).toHaveText('alpha');
  await expect(streaming.locator('.code-block[data-lang="go"] .hl-chroma')).toBeVisible();
  await expect(streaming.locator('.streaming-tail')).toContainText('The rest: word');
  await expect(streaming).not.toContainText('# Streaming plan');

  const done = page.locator(`[data-testid="message"][data-role="assistant"]:not([data-streaming])`);
  await expect(done).toContainText('END.', { timeout: 30_000 });
  await expect(done.locator('h1')).toHaveCount(1);
  await expect(done.locator('table')).toHaveCount(1);
  const text = await done.innerText();
  expect(text.split('word42 ').length).toBe(2); // the text once, not twice
});

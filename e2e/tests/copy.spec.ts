import { test, expect } from '../fixtures';

// Reading and copying: every code block of an answer shows its language
// and a Copy button that puts the code on the clipboard.
test('a code block shows its language and copies its code', async ({ page, myco }) => {
  const code = 'package main\n\nfunc main() {\n\tprintln("hi <there>")\n}';
  const id = myco.writeSession({
    title: 'Code',
    messages: [
      { role: 'user', text: 'show me' },
      { role: 'assistant', text: 'Here:\n\n```go\n' + code + '\n```\n\nand\n\n```\nplain text\n```\n' },
    ],
  });
  await myco.start();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: myco.url });
  await page.goto(myco.link(`/s/${id}`));
  // The Copy buttons work once the page's modules run (copy.js): a click
  // before that, on a loaded machine, did nothing.
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const blocks = page.locator('.code-block');
  await expect(blocks).toHaveCount(2);
  await expect(blocks.first().locator('.code-lang')).toHaveText('go');
  await expect(blocks.nth(1).locator('.code-lang')).toHaveText('text');
  const copy = blocks.first().getByTestId('copy-code');
  await copy.click();
  await expect(copy).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(code);
});

// Every message with words copies its Markdown source, not its rendering:
// after a reload, and on an answer that just finished streaming.
test('a message copies its Markdown, after a reload and once it streamed in', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const answer = '# Plan\n\n- **one** step\n- `two`';
  const id = myco.writeSession({
    title: 'Markdown',
    model: 'anthropic/fake-model',
    messages: [
      { role: 'user', text: 'a *plan*, please' },
      { role: 'assistant', text: answer },
    ],
  });
  await myco.start();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: myco.url });
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const messages = page.getByTestId('message');
  await expect(messages).toHaveCount(2);

  const copyOf = (i: number) => messages.nth(i).getByTestId('copy-message');
  await messages.nth(1).hover();
  await copyOf(1).click();
  await expect(copyOf(1)).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(answer);
  await copyOf(0).click();
  await expect(copyOf(0)).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('a *plan*, please');

  const input = page.getByTestId('composer-input');
  await input.fill('[[say:Streamed **bold** words.]]');
  await input.press('Enter');
  await expect(messages).toHaveCount(4);
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  await expect(messages.nth(3).getByTestId('copy-message')).toHaveCount(1);
  await copyOf(3).click();
  await expect(copyOf(3)).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('Streamed **bold** words.');
});

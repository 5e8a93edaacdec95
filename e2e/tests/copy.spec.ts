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
  const blocks = page.locator('.code-block');
  await expect(blocks).toHaveCount(2);
  await expect(blocks.first().locator('.code-lang')).toHaveText('go');
  await expect(blocks.nth(1).locator('.code-lang')).toHaveText('text');
  const copy = blocks.first().getByTestId('copy-code');
  await copy.click();
  await expect(copy).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(code);
});

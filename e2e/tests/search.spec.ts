import { test, expect } from '../fixtures';

// Search what was said: a word from inside a conversation, typed in the
// home page's search, shows the message it is in with the word marked,
// and opens the session at that message, highlighted.
test('a word from an answer is found from the home page and opens its message', async ({ page, myco }) => {
  const id = myco.writeSession({
    title: 'Parser work',
    messages: [
      { role: 'user', text: 'Why does the tokenizer drop the last line?' },
      { role: 'assistant', text: 'The scanner stops at EOF before flushing the zanzibarbuffer, so the final line is lost.' },
      { role: 'user', text: 'Fix it please.' },
      { role: 'assistant', text: 'Done: the buffer is flushed at EOF.' },
    ],
  });
  myco.writeSession({ title: 'Other', messages: [{ role: 'user', text: 'nothing to see here' }] });
  await myco.start();
  await page.goto(myco.link('/'));
  const box = page.getByRole('searchbox').or(page.locator('input[type="search"]')).first();
  await box.fill('Zanzibarbuffer');
  const hit = page.getByTestId('search-hit');
  await expect(hit).toHaveCount(1);
  await expect(page.getByTestId('search-group')).toContainText('Parser work');
  await expect(hit.locator('mark')).toHaveText('zanzibarbuffer');
  await hit.locator('a').click();
  await expect(page).toHaveURL(new RegExp(`/s/${id}#m-`));
  const target = page.locator('.search-target');
  await expect(target).toHaveCount(1);
  await expect(target).toContainText('zanzibarbuffer');
  await expect(target).toBeInViewport();
});

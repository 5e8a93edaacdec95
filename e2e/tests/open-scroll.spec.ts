import { test, expect, openSession } from '../fixtures';

// A session page opens at "the bottom": the conversation's end, with its
// composer, at the viewport's bottom. Beside a short conversation the side
// panel is the taller column, and the page's own bottom used to hide the
// title and the first messages (scrolled ~140 px at 1280×800) to show the
// panel's last lines.

const chat = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant',
    text: `Message ${i}: a short line.`,
  }));

const sizes = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
];

for (const size of sizes) {
  test(`a short session opens with its title in view; a long one at its end (${size.name})`, async ({ page, myco, fake }) => {
    myco.useModels(fake.url);
    const short = myco.writeSession({ title: 'Short one', messages: chat(2) });
    const long = myco.writeSession({ title: 'Long one', messages: chat(40) });
    await myco.start();
    await page.setViewportSize({ width: size.width, height: size.height });

    await openSession(page, myco, short);
    await expect(page.getByRole('heading', { level: 1, name: 'Short one' })).toBeInViewport();
    await expect(page.getByTestId('composer-input')).toBeInViewport();
    expect(await page.evaluate(() => scrollY)).toBe(0);

    await openSession(page, myco, long);
    await expect(page.getByTestId('composer-input')).toBeInViewport();
    await expect(page.getByText('Message 39: a short line.')).toBeInViewport();
    await expect(page.getByRole('heading', { level: 1, name: 'Long one' })).not.toBeInViewport();
  });
}

import { test, expect, send } from '../fixtures';
import type { Page } from '@playwright/test';

// The session page's side panel (issue 20, items 3 and 4): the agent's
// checklist shows as the agent writes it and after a reload, and the
// steering chip sits outside the facts grid, so the model's name stays one
// line and nothing is cut off, on a desktop and on a phone.

test('the todo checklist shows as the agent writes it, and after a reload', async ({ page, myco, fake }) => {
  myco.useModels(fake.url, { todo: true });
  const id = myco.writeSession({ title: 'Todo' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(page.getByTestId('todo')).toBeHidden();

  const items = [
    { text: 'Read the code', state: 'done' },
    { text: 'Write the test', state: 'doing' },
    { text: 'Fix the bug', state: 'todo' },
  ];
  await send(page, `[[steps: tool:todo_write ${JSON.stringify({ items })} ;; say:listed]]`);
  await expect(page.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText('listed', { timeout: 30_000 });

  const expectList = async () => {
    const todo = page.getByTestId('side-panel').getByTestId('todo');
    await expect(todo).toBeVisible();
    await expect(todo.locator('.todo-item')).toHaveCount(3);
    await expect(todo.locator('.todo-item .todo-text')).toHaveText(items.map((it) => it.text));
    expect(await todo.locator('.todo-item').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.state))).toEqual(items.map((it) => it.state));
    await expect(todo.locator('.todo-counts')).toHaveText('1 of 3 done');
  };
  await expectList();
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expectList();
});

// expectPanelWhole checks the facts grid holds only its dt/dd pairs, the
// model's name is one line, the chip shows, and nothing overflows the
// panel or the window.
async function expectPanelWhole(page: Page) {
  const panel = page.getByTestId('side-panel');
  const chip = panel.getByTestId('steering-chip');
  await expect(chip).toHaveText('think high');
  await expect(chip).toBeVisible();
  const model = panel.getByTestId('session-model');
  await expect(model).toHaveText('anthropic/fake-model');
  const lines = await model.evaluate((el) => {
    const lh = parseFloat(getComputedStyle(el).lineHeight) || 20;
    return Math.round(el.getBoundingClientRect().height / lh);
  });
  expect(lines).toBe(1);

  // Every label is whole: none is cut to a sliver by a wrong column.
  const cut = await panel.locator('dl.facts > dt').evaluateAll((dts) =>
    dts.filter((dt) => dt.scrollWidth > dt.clientWidth + 1 || dt.getBoundingClientRect().width < 20).map((dt) => dt.textContent),
  );
  expect(cut).toEqual([]);

  const over = await page.evaluate(() => {
    const side = document.querySelector('[data-testid="side-panel"]') as HTMLElement;
    const r = side.getBoundingClientRect();
    const chip = document.querySelector('[data-testid="steering-chip"]') as HTMLElement;
    const c = chip.getBoundingClientRect();
    return {
      page: document.documentElement.scrollWidth > window.innerWidth,
      panel: side.scrollWidth > side.clientWidth + 1,
      chip: c.left < r.left - 1 || c.right > r.right + 1,
    };
  });
  expect(over).toEqual({ page: false, panel: false, chip: false });
  // The grid holds only its label/value pairs.
  await expect(panel.locator('dl.facts > :not(dt, dd)')).toHaveCount(0);
}

for (const size of [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
]) {
  test(`/think high keeps the side panel whole at ${size.width}×${size.height}, and after a reload`, async ({ browser, myco, fake }) => {
    myco.useModels(fake.url, { models: { 'anthropic/fake-model': { thinking: true } } });
    const id = myco.writeSession({ title: 'Steering', model: 'anthropic/fake-model' });
    await myco.start();
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
    const page = await context.newPage();
    const open = async () => {
      await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
      if (size.name === 'phone') {
        await page.getByTestId('details-toggle').click();
        await expect(page.getByTestId('side-panel')).toBeInViewport();
      }
    };
    await page.goto(myco.link(`/s/${id}`));
    await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
    await send(page, '/think high');
    await open();
    await expectPanelWhole(page);
    // A panel event (here the turn's) redraws the facts; the chip stays.
    if (size.name === 'phone') await page.keyboard.press('Escape');
    await send(page, '[[say:done]]');
    await expect(page.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText('done', { timeout: 30_000 });
    await expect(page.getByTestId('session-counts')).toHaveText('2 in 1 thread');
    await open();
    await expectPanelWhole(page);
    if (process.env.PANEL_SHOTS) await page.screenshot({ path: `${process.env.PANEL_SHOTS}/panel-${size.width}.png` });

    await page.reload();
    await open();
    await expectPanelWhole(page);
    await context.close();
  });
}

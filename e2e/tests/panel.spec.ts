import { test, expect } from '../fixtures';

test('a link the agent adds shows in the panel without a reload', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Links', model: 'anthropic/fake-model' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const links = page.getByTestId('links-panel');
  await expect(links).toContainText('None yet.');
  await expect(page.getByTestId('session-counts')).toContainText('0 in 1 thread');

  const input = page.getByTestId('composer-input');
  await input.fill('keep this [[tool:session_meta {"action":"add_link","url":"https://example.com/x","link_title":"X"}]]');
  await input.press('Enter');
  await expect(links.getByRole('link', { name: 'X', exact: true })).toHaveAttribute('href', 'https://example.com/x');
  await expect(links).not.toContainText('None yet.');
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  await expect(page.getByTestId('session-counts')).not.toContainText('0 in 1 thread');
});

test('links and the scratchpad edited in one tab show in another', async ({ page, context, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Notes', model: 'anthropic/fake-model' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  const other = await context.newPage();
  await other.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(other.locator('body')).toHaveAttribute('data-stream', 'open');

  const pad = page.getByTestId('scratchpad');
  await pad.fill('remember: run vet');
  await pad.press('Control+Enter');
  await expect(other.getByTestId('scratchpad')).toHaveValue('remember: run vet');
  await expect.poll(async () => (await myco.doc(id)).scratchpad).toBe('remember: run vet');

  await page.getByTestId('link-url').fill('https://go.dev/doc');
  await page.getByTestId('link-title').fill('Go docs');
  await page.getByTestId('link-add-button').click();
  const otherLinks = other.getByTestId('links-panel');
  await expect(otherLinks.getByRole('link', { name: 'Go docs' })).toHaveAttribute('href', 'https://go.dev/doc');

  await other.getByTestId('link-remove').click();
  await expect(page.getByTestId('links-panel')).toContainText('None yet.');
});

test('the gauge turns amber at 70% and red at 90%, and shows the new thread after a compaction', async ({ page, myco, fake }) => {
  myco.useModels(fake.url, { models: { 'anthropic/fake-model': { context_window: 100000, auto_compact_at: 10000 } } });
  const id = myco.writeSession({ title: 'Gauge', model: 'anthropic/fake-model' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const gauge = page.getByTestId('context-gauge');
  const input = page.getByTestId('composer-input');
  const send = async (text: string) => {
    await input.fill(text);
    await input.press('Enter');
    await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  };

  await send('small [[say:ok]] [[usage:in=6000,out=10]]');
  await expect(gauge).toHaveAttribute('data-used', '6010');
  await expect(gauge).not.toHaveClass(/context-warn|context-full/);

  await send('more [[say:ok]] [[usage:in=7500,out=10]]');
  await expect(gauge).toHaveClass(/context-warn/);
  await expect(gauge).not.toHaveClass(/context-full/);

  await send('most [[say:ok]] [[usage:in=9200,out=10]]');
  await expect(gauge).toHaveClass(/context-full/);
  await expect(gauge).not.toHaveClass(/context-warn/);

  // Over the threshold: it compacts, and the gauge shows the new thread's
  // estimated context, not 0.
  await send('over [[say:ok]] [[usage:in=12000,out=10]]');
  await expect(page.getByTestId('thread-boundary')).toHaveCount(1);
  await expect.poll(async () => Number(await gauge.getAttribute('data-used'))).toBeGreaterThan(0);
  await expect.poll(async () => Number(await gauge.getAttribute('data-used'))).toBeLessThan(7000);
  await expect(gauge).not.toHaveClass(/context-full/);

  // And so after a reload, where the messages carried into the new
  // thread are shown once, in the earlier thread, their place marked.
  await expect.poll(async () => (await myco.doc(id)).threads.length).toBe(2);
  const carried = (await myco.doc(id)).threads[1].carried;
  expect(carried).toBeGreaterThan(0);
  await page.reload();
  await expect.poll(async () => Number(await page.getByTestId('context-gauge').getAttribute('data-used'))).toBeGreaterThan(0);
  await expect(page.getByTestId('carried')).toContainText(`${carried} message${carried === 1 ? '' : 's'} carried from the thread above`);
  await expect(page.getByTestId('message').filter({ hasText: 'over [[say:ok]]' })).toHaveCount(0);
  await page.getByTestId('carried-button').click();
  await expect(page.getByTestId('message').filter({ hasText: 'over [[say:ok]]' })).toHaveCount(1);
  await expect(page.getByTestId('message').filter({ hasText: 'over [[say:ok]]' })).toBeVisible();
});

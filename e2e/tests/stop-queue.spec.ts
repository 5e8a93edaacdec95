import { test, expect } from '../fixtures';

// Stop stops everything (issue 20, item 13): the running answer, and the
// message queued and the steer waiting behind it. No turn runs for them;
// they come back into the composer of the tab that pressed Stop, after
// its draft, in the order they were sent; every tab's queue empties.

const messages = (doc) => doc.threads.flatMap((t) => t.messages);

test('Esc stops the answer and the queue, and puts what was queued back in the composer', async ({ page, browser, myco, fake }) => {
  test.setTimeout(120_000); // two tabs and a reload, on a loaded machine
  myco.useModels(fake.url, {});
  const id = myco.writeSession({ title: 'Stop the queue' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');
  const queued = page.getByTestId('queued');

  await input.fill('tell me a long story [[text:3000]] [[delay:30ms]]');
  await input.press('Enter');
  await expect(page.getByTestId('turn-status')).toHaveText(/Writing/);
  await input.fill('[[say:the queued answer]] then run the tests');
  await input.press('Enter');
  await expect(queued).toHaveCount(1);
  await input.fill('/steer keep it short');
  await input.press('Enter');
  await expect(page.locator('[data-testid="queued"][data-steer]')).toContainText('keep it short');

  const other = await (await browser.newContext()).newPage();
  await other.goto(myco.link(`/s/${id}`));
  await expect(other.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(other.getByTestId('queued')).toHaveCount(2);

  await input.fill('a draft');
  await input.press('Escape');
  await expect(page.getByTestId('turn-status')).toHaveAttribute('data-status', 'idle');
  await expect(input).toHaveValue('a draft\n\n[[say:the queued answer]] then run the tests\n\nkeep it short');
  await expect(input).toBeFocused();
  await expect(queued).toHaveCount(0);
  await expect(other.getByTestId('queued')).toHaveCount(0);
  await expect(other.getByTestId('composer-input')).toHaveValue('');
  await expect(other.getByTestId('turn-status')).toHaveAttribute('data-status', 'idle');

  // Idle, with nothing started after the stop: one model call, and the
  // person's only message the first.
  expect((await fake.chatRequests()).length).toBe(1);
  const doc = await myco.doc(id);
  expect(doc.queued ?? []).toEqual([]);
  expect(messages(doc).filter((m) => m.human).length).toBe(1);
  expect(messages(doc).some((m) => m.steer)).toBe(false);

  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(page.getByTestId('queued')).toHaveCount(0);
  await expect(page.getByTestId('composer-input')).toHaveValue(/^a draft\n\n\[\[say:the queued answer\]\] then run the tests\n\nkeep it short$/);
  expect((await fake.chatRequests()).length).toBe(1);
  await other.context().close();
});

// The Stop button and /stop do the same: /stop's own text goes, the
// queued message comes back.
test('the Stop button and /stop put the queue back too', async ({ page, myco, fake }) => {
  test.setTimeout(120_000); // two turns stopped, on a loaded machine
  myco.useModels(fake.url, {});
  const id = myco.writeSession({ title: 'Stop button' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');
  for (const how of ['button', '/stop']) {
    await input.fill('tell me a long story [[text:3000]] [[delay:30ms]]');
    await input.press('Enter');
    await expect(page.getByTestId('turn-status')).toHaveText(/Writing/);
    await input.fill(`queued before the ${how}`);
    await input.press('Enter');
    await expect(page.getByTestId('queued')).toHaveCount(1);
    if (how === 'button') await page.locator('[data-stop]').click();
    else {
      await input.fill('/stop');
      await input.press('Enter');
    }
    await expect(page.getByTestId('turn-status')).toHaveAttribute('data-status', 'idle');
    await expect(input).toHaveValue(`queued before the ${how}`);
    await expect(page.getByTestId('queued')).toHaveCount(0);
    await input.fill('');
  }
  const doc = await myco.doc(id);
  expect(messages(doc).filter((m) => m.human).length).toBe(2);
  expect((await fake.chatRequests()).length).toBe(2);
});

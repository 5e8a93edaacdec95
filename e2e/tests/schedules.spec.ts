import { test, expect } from '../fixtures';

// The Schedules page as a person uses it: a bad when is refused with the
// parser's reason beside the form; a schedule added shows its next run;
// Run now runs it, its last outcome links to the run's session, and its
// answer waits as a note in the session it is delivered to.
test('schedules page: add, next run, run now, outcome link, bad when', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const inbox = myco.writeSession({ title: 'Inbox', model: 'anthropic/fake-model' });
  await myco.start();
  await page.goto(myco.link('/'));
  await page.getByTestId('schedules-link').click();
  await expect(page.getByTestId('schedules-page')).toBeVisible();
  await expect(page.getByTestId('schedules-empty')).toBeVisible();

  const form = page.getByTestId('schedule-form');
  await form.getByLabel('Name').fill('Morning build');
  await form.getByLabel('When').fill('every morning');
  await form.getByLabel('Prompt').fill('[[say:Build is green.]]');
  await form.getByLabel('Deliver the answer to').fill(inbox);
  await page.getByTestId('schedule-add').click();
  const error = page.getByTestId('schedule-error');
  await expect(error).toContainText('expected exactly 5 fields, found 2');
  await expect(form.getByLabel('When')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('schedule-row')).toHaveCount(0);

  await form.getByLabel('When').fill('0 9 * * *');
  await page.getByTestId('schedule-add').click();
  const row = page.getByTestId('schedule-row');
  await expect(row).toHaveCount(1);
  await expect(error).toBeHidden();
  await expect(row.getByTestId('schedule-name')).toHaveText('Morning build');
  // Next run: 09:00 local, today or tomorrow.
  await expect(row.getByTestId('next-run')).toContainText('09:00');
  await expect(row.getByTestId('last-outcome')).toHaveText('none yet');
  await page.screenshot({ path: test.info().outputPath('schedules-1280.png'), fullPage: true });

  await row.getByTestId('schedule-run').click();
  await expect(row.getByTestId('last-outcome')).toHaveAttribute('data-outcome', 'done');
  await expect(row.getByTestId('last-outcome')).toHaveText('done');
  const link = row.getByTestId('last-session');
  const href = await link.getAttribute('href');
  expect(href).toMatch(/^\/s\/[0-9a-f-]+$/);

  // The answer waits in the inbox as a note from the schedule.
  await expect.poll(async () => ((await myco.doc(inbox)).notes || []).map((n: any) => `${n.from}: ${n.text}`).join('|')).toContain('Morning build: Build is green.');

  // Disable, then enable again.
  await row.getByTestId('schedule-toggle').click();
  await expect(row).toHaveAttribute('data-enabled', 'false');
  await expect(row.getByTestId('next-run')).toHaveText('none');
  await row.getByTestId('schedule-toggle').click();
  await expect(row).toHaveAttribute('data-enabled', 'true');
  await expect(row.getByTestId('next-run')).toContainText('09:00');

  await page.screenshot({ path: test.info().outputPath('schedules-1280-ran.png'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: test.info().outputPath('schedules-390.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });

  // The outcome's link opens the run's session, titled after the schedule.
  await link.click();
  await expect(page).toHaveURL(new RegExp(`${href}$`));
  await expect(page).toHaveTitle(/⏰ Morning build/);
  await expect(page.locator('[data-role="assistant"]').last()).toContainText('Build is green.');

  // Delete it, from the page, in two steps.
  await page.goto(myco.link('/schedules'));
  await page.getByTestId('schedule-delete').click();
  await page.getByTestId('schedule-delete-confirm').click();
  await expect(page.getByTestId('schedule-row')).toHaveCount(0);
  const list = await (await myco.api('GET', '/api/schedules')).json();
  expect(list).toEqual([]);
});

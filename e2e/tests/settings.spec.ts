import { test, expect, send } from '../fixtures';
import fs from 'node:fs';
import path from 'node:path';

// The Settings page writes settings.json and the running myco applies it
// to the next turn, without a restart; an edit of the file by hand is
// picked up too, and a broken file says so on every page until fixed.

test('a change on the Settings page applies to the next turn, without a restart', async ({ page, context, myco, fake }) => {
  // Two tabs, a turn and a full-page screenshot: past the minute on a
  // machine under load.
  test.setTimeout(120_000);
  myco.useModels(fake.url, { models: { 'anthropic/fake-model': { context_window: 100000, auto_compact_at: 50000 } } });
  const id = myco.writeSession({ title: 'Settings apply', model: 'anthropic/fake-model' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const gauge = page.getByTestId('context-gauge');
  await expect(gauge).toContainText('of 50,000 tokens before it compacts');

  // Another tab, reached from the session page's header.
  const tab = await context.newPage();
  await tab.goto(myco.link(`/s/${id}`));
  await tab.getByTestId('settings-link').click();
  await expect(tab).toHaveURL(/\/settings$/);
  const model = tab.getByTestId('model-row').filter({ hasText: 'anthropic/fake-model' });
  await model.locator('input[name$=".auto_compact_at"]').fill('12345');
  await model.locator('input[name$=".price.input"]').fill('3');
  await tab.locator('select[name="approvals.bash"]').selectOption('allow');
  await tab.getByTestId('settings-save').click();
  await expect(tab.getByTestId('settings-saved')).toBeVisible();
  const file = JSON.parse(fs.readFileSync(path.join(myco.profileDir, 'settings.json'), 'utf8'));
  expect(file.models['anthropic/fake-model']).toEqual({ context_window: 100000, auto_compact_at: 12345, price: { input: 3 } });
  const applied = await (await myco.api('GET', '/api/settings')).json();
  expect(applied.settings.models['anthropic/fake-model'].price.input).toBe(3);
  expect(file.approvals).toEqual({ bash: 'allow' });

  // The open session tab's next turn: bash runs without asking, and the
  // gauge reads against the new threshold.
  await send(page, 'run it [[tool:bash {"command":"echo settings-applied"}]]');
  const call = page.locator('[data-testid="tool-call"][data-tool="bash"]');
  await expect(call.getByTestId('tool-result')).toContainText('settings-applied');
  await expect(page.getByTestId('approval')).toHaveCount(0);
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');
  await expect(gauge).toContainText('of 12,345 tokens before it compacts');

  // A value the settings cannot hold is refused beside its field.
  await model.locator('input[name$=".auto_compact_at"]').fill('200000');
  await tab.getByTestId('settings-save').click();
  const refused = tab.locator('[data-testid="field-error"][data-field$=".auto_compact_at"]');
  await expect(refused).toContainText('must not be larger than context_window');
  await tab.screenshot({ path: '/tmp/shots-settings/refused.png', fullPage: true });
  expect(JSON.parse(fs.readFileSync(path.join(myco.profileDir, 'settings.json'), 'utf8')).models['anthropic/fake-model'].auto_compact_at).toBe(12345);
});

test('a broken settings file keeps the last good settings and says so on every page until fixed', async ({ page, myco, fake }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Broken settings', model: 'anthropic/fake-model' });
  await myco.start();
  const file = path.join(myco.profileDir, 'settings.json');
  const good = fs.readFileSync(file, 'utf8');
  // problem is what the server says is wrong with the file now.
  const problem = async () => (await (await myco.api('GET', '/api/settings')).json()).problem.error;
  await page.goto(myco.link('/'));
  const banner = page.getByTestId('settings-banner');
  await expect(banner).toHaveCount(0);
  // The profile's stream, which brings the banner to an open tab.
  await expect(page.locator('body')).toHaveAttribute('data-listing', 'open');

  // As an editor saves: a new file renamed over the old one.
  const save = (text: string) => {
    fs.writeFileSync(file + '.tmp', text, { mode: 0o600 });
    fs.renameSync(file + '.tmp', file);
  };
  save(good.replace('"default_model": "anthropic/fake-model",', '"default_model": "anthropic/fake-model",\n  "approvals": {"bash": "whenever"},'));
  // The file is watched; the open tab is told, without a reload.
  await expect(banner).toBeVisible();
  expect(await problem()).toContain('whenever');
  await expect(page.getByTestId('settings-banner-where')).toHaveText(new RegExp(`^${file}:3:\\d+$`));
  await page.screenshot({ path: '/tmp/shots-settings/banner.png' });
  await expect(banner).toContainText('whenever');
  // Every page renders it too.
  await page.goto(myco.link(`/s/${id}`));
  await expect(banner).toContainText('cannot be used');
  await expect(page.locator('body')).toHaveAttribute('data-listing', 'open');
  // The last good settings still answer.
  await send(page, 'still there? [[say:yes, still here]]');
  await expect(page.getByText('yes, still here', { exact: true })).toBeVisible();

  // Fixed: the open session tab drops the banner, and so does a reload.
  save(good);
  await expect(banner).toHaveCount(0);
  expect(await problem()).toBe('');
  await page.reload();
  await expect(page.getByTestId('composer-input')).toBeVisible();
  await expect(banner).toHaveCount(0);
  await page.goto(myco.link('/'));
  await expect(page.getByTestId('session-list')).toBeVisible();
  await expect(banner).toHaveCount(0);
});

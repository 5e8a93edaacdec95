import { test, expect } from '../fixtures';

// The README's local setup: one OpenAI-compatible server, no Anthropic key,
// title_model left at its (Anthropic) default. /model lists what the server
// serves with window and price, refuses a model that cannot work in plain
// words, /model default follows the profile's default, and the session still
// gets its title from its own model.
test('/model lists the served models and refuses a bad one', async ({ page, myco, fake }) => {
  myco.useModels(fake.url, {
    default_model: 'openai/fake-model',
    title_model: 'anthropic/claude-haiku-4-5',
    providers: { openai: { base_url: `${fake.url}/v1` } },
  });
  const id = myco.writeSession({ model: 'openai/fake-model' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');

  await input.fill('hello [[title:Local Title]]');
  await input.press('Enter');
  await expect(page.getByTestId('session-title')).toHaveText('Local Title');

  await input.fill('/model');
  await input.press('Enter');
  const list = page.getByTestId('model-list');
  await expect(list).toBeVisible();
  const choices = list.getByTestId('model-choice');
  await expect(choices).toHaveText([
    'openai/claude-sonnet-4-5-20250929',
    'openai/fake-fast',
    'openai/fake-model',
    'openai/fake-title',
    'openai/gpt-4.1',
    'openai/llama3.1:8b',
  ]);
  await expect(list.locator('li', { has: page.locator('[data-model="openai/gpt-4.1"]') })).toContainText('$2 in / $8 out per M tokens');
  await expect(list.locator('li', { has: page.locator('[data-model="openai/llama3.1:8b"]') })).toContainText('free (local)');
  await expect(list.locator('[data-model="openai/fake-model"]')).toHaveAttribute('aria-current', 'true');
  await expect(list).not.toContainText('anthropic/');

  await list.locator('[data-model="openai/gpt-4.1"]').click();
  await expect(list).toBeHidden();
  await expect(page.getByTestId('session-model')).toHaveText('openai/gpt-4.1');

  await input.fill('/model nosuch/model');
  await input.press('Enter');
  await expect(page.getByTestId('alerts')).toContainText(
    '/model failed: provider "nosuch" is not configured, so nosuch/model cannot be used; choose one of openai/claude-sonnet-4-5-20250929',
  );
  await expect(page.getByTestId('session-model')).toHaveText('openai/gpt-4.1');

  await input.fill('/model default');
  await input.press('Enter');
  await expect(page.locator('[data-composer-note]')).toContainText('Model: default');
  await expect(page.getByTestId('session-model')).toHaveText('default');
  await expect.poll(async () => (await myco.doc(id)).model ?? '').toBe('');
});

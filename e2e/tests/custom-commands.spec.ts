import { test as base, expect, send, openSession } from '../fixtures';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Custom commands (README "Custom commands and skills"): a Markdown file
// in the project's .myco/commands is a command in the composer's `/`
// menu with its description; running it sends its text, the arguments
// put in, as the person's message; /commands lists it with its folder.

const test = base.extend<{ work: string }>({
  work: async ({}, use) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-e2e-commands-'));
    fs.mkdirSync(path.join(dir, '.git'));
    fs.mkdirSync(path.join(dir, '.myco', 'commands', 'frontend'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, '.myco', 'commands', 'review.md'),
      '---\ndescription: Review a file for bugs\nargument-hint: [file]\n---\nPlease review $1 and report bugs.\n',
    );
    fs.writeFileSync(path.join(dir, '.myco', 'commands', 'frontend', 'test-all.md'), '---\ndescription: Run the frontend tests\n---\nRun the frontend tests.\n');
    await use(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  },
});

const lastAnswer = (page: any) => page.locator('[data-testid="message"][data-role="assistant"]').last();

test('a custom command is in the / menu with its description, sends its expansion, and /commands lists it', async ({ page, myco, fake, work }) => {
  myco.useModels(fake.url);
  const id = myco.writeSession({ title: 'Commands', cwd: work });
  await myco.start();
  await openSession(page, myco, id);

  const input = page.getByTestId('composer-input');
  await input.fill('/rev');
  const option = page.locator('#command-list [data-command="review"]');
  await expect(option).toBeVisible();
  await expect(option).toContainText('/review [file]');
  await expect(option).toContainText('Review a file for bugs');

  // A namespaced name completes as typed.
  await input.fill('/frontend:');
  await expect(page.locator('#command-list [data-command="frontend:test-all"]')).toContainText('Run the frontend tests');

  await send(page, '/review main.go');
  await expect(lastAnswer(page)).toContainText('You said: Please review main.go and report bugs.', { timeout: 30_000 });
  const mine = page.locator('[data-testid="message"][data-role="user"]').last();
  await expect(mine.getByTestId('command-typed')).toHaveText('/review main.go');
  await expect(mine.getByTestId('command-expansion')).not.toHaveAttribute('open', '');
  await mine.getByTestId('command-expansion').locator('summary').click();
  await expect(mine.getByTestId('command-expansion')).toContainText('Please review main.go and report bugs.');
  const reqs = await fake.chatRequests();
  expect(JSON.stringify(reqs[reqs.length - 1].body.messages)).toContain('Please review main.go and report bugs.');

  await send(page, '/commands');
  const listed = page.getByTestId('custom-commands').locator('[data-testid="custom-command"][data-name="review"]');
  await expect(listed).toBeVisible();
  await expect(listed).toContainText('Review a file for bugs');
  await expect(listed).toContainText('project · .myco/commands');
  await expect(listed.locator('.custom-command-source')).toHaveAttribute('title', path.join(work, '.myco', 'commands', 'review.md'));

  // A reload keeps the message as the command, and /help lists it too.
  await page.reload();
  await expect(page.locator('[data-testid="message"][data-role="user"]').last().getByTestId('command-typed')).toHaveText('/review main.go');
  await send(page, '/help');
  await expect(page.getByTestId('command-help').locator('[data-command="review"]')).toContainText('Review a file for bugs');
});

import fs from 'node:fs';
import { test, expect, Myco, openSession, longSession } from '../fixtures';
import type { Page } from '@playwright/test';

// Edit, regenerate, and the ‹ 1 / 2 › of a message's versions (issue 24),
// at a desktop and a phone size. Screenshots go to /tmp/shots-versions/.

const shots = '/tmp/shots-versions';
const sizes = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
];

// threeTurns is a session of three questions and their answers, on the
// fake model.
function threeTurns(myco: Myco): string {
  return myco.writeSession({
    title: 'Flaky tests',
    model: 'anthropic/fake-model',
    messages: [
      { role: 'user', text: 'Why is TestServe flaky?' },
      { role: 'assistant', text: 'It binds a fixed port.' },
      { role: 'user', text: 'Try port 0 instead' },
      { role: 'assistant', text: 'Done: it listens on port 0 now.' },
      { role: 'user', text: 'And the other test?' },
      { role: 'assistant', text: 'That one sleeps; it should wait on the event.' },
    ],
  });
}

async function sessionID(page: Page): Promise<string> {
  return (await page.locator('body').getAttribute('data-session-id')) || '';
}

for (const size of sizes) {
  test.describe(`at ${size.name} size`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test('an earlier message edited: the version opens in place, ‹ 1 / 2 › switches back and forth, and a reload keeps both', async ({ page, myco, fake }) => {
      myco.useModels(fake.url);
      // Eight exchanges: the page scrolls, so the place of a message can be kept.
      const parent = myco.writeSession({ title: 'Build steps', model: 'anthropic/fake-model', messages: longSession(16) });
      const first = 'Question 4: what does step 4 change in the build?';
      await myco.start();
      await openSession(page, myco, parent);
      const messages = page.getByTestId('message');
      await expect(messages).toHaveCount(16);

      const question = messages.nth(8);
      await question.evaluate((e) => e.scrollIntoView({ block: 'center' }));
      await question.hover();
      await question.getByTestId('edit-message').click();
      const editor = question.getByTestId('message-editor-text');
      await expect(editor).toBeFocused();
      await expect(editor).toHaveValue(first);
      // Esc cancels and keeps the message as it was.
      await editor.press('Escape');
      await expect(question.getByTestId('message-editor')).toHaveCount(0);
      await expect(question).toContainText(first);

      await question.getByTestId('edit-message').click();
      await editor.fill('What does step 4 change in the tests? [[say:Only the fixtures.]]');
      fs.mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: `${shots}/editing-${size.name}.png` });
      await editor.press('Enter');

      // The version is a fork, opened in place, with the answer to the
      // edited words, and the message in view (the version's page ends
      // with its turn: the page may have no room to hold it higher).
      await expect.poll(() => sessionID(page)).not.toBe(parent);
      const fork = await sessionID(page);
      await expect(page).toHaveURL(new RegExp(`/s/${fork}$`));
      await expect(messages).toHaveCount(10);
      const edited = messages.nth(8);
      await expect(edited).toContainText('What does step 4 change in the tests?');
      await expect(messages.nth(9)).toContainText('Only the fixtures.');
      await expect(edited.getByTestId('version-label')).toHaveText('2 / 2');
      await expect(edited).toBeInViewport();
      await page.screenshot({ path: `${shots}/edited-${size.name}.png` });

      // ‹ back to the first version, › forth to the second; the first
      // version has room below: the message stays where it stood.
      const at = (await edited.boundingBox())!.y;
      await edited.getByTestId('version-prev').click();
      await expect.poll(() => sessionID(page)).toBe(parent);
      await expect(messages).toHaveCount(16);
      await expect(messages.nth(8)).toContainText(first);
      await expect(messages.nth(8).getByTestId('version-label')).toHaveText('1 / 2');
      await expect.poll(async () => Math.abs(Math.round((await messages.nth(8).boundingBox())!.y - at))).toBeLessThanOrEqual(2);
      await expect(messages.nth(8).getByTestId('version-prev')).toBeDisabled();
      await messages.nth(8).getByTestId('version-next').click();
      await expect.poll(() => sessionID(page)).toBe(fork);
      await expect(messages.nth(8)).toContainText('What does step 4 change in the tests?');
      await expect(messages.nth(8).getByTestId('version-label')).toHaveText('2 / 2');

      // After a reload, each version reads as it did.
      await page.reload();
      await expect(messages.nth(8)).toContainText('What does step 4 change in the tests?');
      await expect(messages.nth(8).getByTestId('version-label')).toHaveText('2 / 2');
      await messages.nth(8).getByTestId('version-prev').click();
      await expect.poll(() => sessionID(page)).toBe(parent);
      await page.reload();
      await expect(messages.nth(8)).toContainText(first);
      await expect(messages.nth(8).getByTestId('version-label')).toHaveText('1 / 2');
      await expect(messages).toHaveCount(16);
    });

    test('a middle answer regenerated with another model: the fake model is asked for that model, and the versions switch', async ({ page, myco, fake }) => {
      myco.useModels(fake.url);
      const parent = threeTurns(myco);
      await myco.start();
      await openSession(page, myco, parent);
      const messages = page.getByTestId('message');
      await expect(messages).toHaveCount(6);

      const answer = messages.nth(3);
      await answer.hover();
      await answer.getByTestId('regenerate-with').click();
      const menu = answer.getByTestId('regenerate-menu');
      await expect(menu).toBeVisible();
      await page.screenshot({ path: `${shots}/regenerate-menu-${size.name}.png` });
      const calls = (await fake.chatRequests()).length;
      await menu.locator('[data-model="anthropic/fake-fast"]').click();

      await expect.poll(() => sessionID(page)).not.toBe(parent);
      await expect(messages).toHaveCount(4);
      await expect(messages.nth(2)).toContainText('Try port 0 instead');
      const regenerated = messages.nth(3);
      await expect(regenerated.getByTestId('version-label')).toHaveText('2 / 2');
      await expect(regenerated).not.toContainText('Done: it listens on port 0 now.');
      const asked = (await fake.chatRequests()).slice(calls);
      expect(asked.map((r) => r.body.model)).toEqual(['fake-fast']);
      // The model saw the conversation up to the question, not the old answer.
      expect(JSON.stringify(asked[0].body.messages)).not.toContain('Done: it listens on port 0 now.');
      await page.screenshot({ path: `${shots}/regenerated-${size.name}.png` });

      await regenerated.getByTestId('version-prev').click();
      await expect.poll(() => sessionID(page)).toBe(parent);
      await expect(messages.nth(3)).toContainText('Done: it listens on port 0 now.');
      await expect(messages.nth(3).getByTestId('version-label')).toHaveText('1 / 2');
    });
  });
}

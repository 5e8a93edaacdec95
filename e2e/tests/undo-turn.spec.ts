import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect } from '../fixtures';

// /undo takes back a turn that changed files with a command: the card
// lists the files (one restored, one made by the turn to delete, one the
// turn deleted to create, one changed by hand since), and once confirmed
// the turn's messages leave the page and the files are as they were.
// /redo brings both back; /diff shows what changed since the first turn.
test('/undo lists the files, then takes the turn back', async ({ page, myco, fake }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-e2e-undo-'));
  const file = (n: string) => path.join(dir, n);
  fs.writeFileSync(file('edit.txt'), 'original\n');
  fs.writeFileSync(file('gone.txt'), 'keep me\n');
  fs.writeFileSync(file('hand.txt'), 'first\n');
  myco.useModels(fake.url, { approvals: { bash: 'allow' } });
  const id = myco.writeSession({ title: 'Undo', cwd: dir });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const input = page.getByTestId('composer-input');

  await input.fill(
    'change the files [[steps: tool:bash {"command":"echo edited > edit.txt && echo new > made.txt && rm gone.txt && echo turn > hand.txt"} ;; say:All changed.]]',
  );
  await input.press('Enter');
  const answer = page.locator('[data-testid="message"][data-role="assistant"]').getByText('All changed.');
  await expect(answer).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false', { timeout: 30_000 });
  expect(fs.readFileSync(file('edit.txt'), 'utf8')).toBe('edited\n');
  fs.writeFileSync(file('hand.txt'), 'by hand\n'); // after the turn

  // /diff: the changes since the first turn, counted.
  await input.fill('/diff');
  await input.press('Enter');
  const diff = page.getByTestId('diff-card');
  await expect(diff.locator('[data-testid="diff-file"]')).toHaveCount(4);
  await expect(diff.locator('[data-testid="diff-file"][data-path="edit.txt"]')).toContainText('+1');
  await diff.getByTestId('diff-close').click();
  await expect(diff).toHaveCount(0);
  // Esc closes it too, as it closes the composer's panels.
  await input.fill('/diff');
  await input.press('Enter');
  await expect(diff).toBeVisible();
  await input.press('Escape');
  await expect(diff).toHaveCount(0);
  await expect(page.locator('body')).toHaveAttribute('data-turn-running', 'false');

  await input.fill('/undo');
  await input.press('Enter');
  const card = page.getByTestId('undo-card');
  await expect(card).toBeVisible();
  await expect(card.getByTestId('undo-turn')).toContainText('change the files');
  const row = (p: string) => card.locator(`[data-testid="undo-file"][data-path="${p}"]`);
  await expect(row('edit.txt')).toHaveAttribute('data-action', 'restore');
  await expect(row('made.txt')).toHaveAttribute('data-action', 'delete');
  await expect(row('gone.txt')).toHaveAttribute('data-action', 'create');
  await expect(row('hand.txt')).toHaveAttribute('data-action', 'restore');
  await expect(row('hand.txt').getByTestId('undo-by-hand')).toBeVisible();
  await expect(row('edit.txt').getByTestId('undo-by-hand')).toHaveCount(0);
  // Nothing changed before the confirmation.
  expect(fs.existsSync(file('made.txt'))).toBe(true);

  await card.getByTestId('undo-confirm').click();
  await expect(card).toHaveCount(0);
  await expect(answer).toBeHidden();
  await expect(page.locator('[data-testid="message"]').getByText('change the files')).toBeHidden();
  // Its usage line goes with it.
  await expect(page.getByTestId('turn-usage')).toBeHidden();
  expect(fs.readFileSync(file('edit.txt'), 'utf8')).toBe('original\n');
  expect(fs.readFileSync(file('gone.txt'), 'utf8')).toBe('keep me\n');
  expect(fs.readFileSync(file('hand.txt'), 'utf8')).toBe('first\n');
  expect(fs.existsSync(file('made.txt'))).toBe(false);
  // The document keeps the turn, marked undone.
  const doc = await myco.doc(id);
  const msgs = doc.threads[0].messages;
  expect(msgs.length).toBeGreaterThan(0);
  expect(msgs.every((m: { undone?: boolean }) => m.undone === true)).toBe(true);

  // A reload shows the page as the undo left it: the turn hidden.
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  await expect(answer).toBeHidden();
  await expect(page.locator('[data-testid="message"]').getByText('change the files')).toBeHidden();
  await expect(page.getByTestId('turn-usage')).toBeHidden();

  // /redo brings it back, without a reload.
  await input.fill('/redo');
  await input.press('Enter');
  await page.getByTestId('undo-card').getByTestId('undo-confirm').click();
  await expect(answer).toBeVisible();
  await expect(page.getByTestId('turn-usage')).toBeVisible();
  expect(fs.readFileSync(file('edit.txt'), 'utf8')).toBe('edited\n');
  expect(fs.existsSync(file('gone.txt'))).toBe(false);
  fs.rmSync(dir, { recursive: true, force: true });
});

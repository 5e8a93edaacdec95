import * as fs from 'node:fs';
import * as path from 'node:path';
import { test, expect, openSession, send } from '../fixtures';

// Documents: a PDF picked with the file button and a .go file dropped on
// the composer are shown as chips, sent with the message, kept on it (a
// reload too) and seen by the model: the fake echoes the PDF's document
// block and the .go file's text block.
const pdfPath = path.join(__dirname, '..', '..', 'testdata', 'documents', 'hello.pdf');
const goSource = 'package main\n\nfunc main() { println("hi") }\n';

for (const vp of [
  { name: 'desktop', width: 1280, height: 800, mobile: false },
  { name: 'phone', width: 390, height: 844, mobile: true },
]) {
  test(`a PDF and a .go file attached are shown as chips and reach the model (${vp.name})`, async ({ browser, myco, fake }) => {
    myco.useModels(fake.url);
    const id = myco.writeSession({ title: 'Documents', model: 'anthropic/fake-model' });
    await myco.start();
    const ctx = await browser.newContext({ viewport: { width: vp.width, height: vp.height }, isMobile: vp.mobile, hasTouch: vp.mobile });
    const page = await ctx.newPage();
    await openSession(page, myco, id);

    // The picker: the file button's input.
    await page.getByTestId('file-input').setInputFiles(pdfPath);
    const chips = page.getByTestId('file-attachment');
    await expect(chips.first()).toHaveAttribute('data-state', 'done');
    await expect(chips.first()).toContainText('hello.pdf');
    await expect(chips.first()).toContainText('601 B');
    await expect(chips.first()).toHaveAttribute('data-icon', 'pdf');

    // A drop on the composer.
    await page.evaluate((src) => {
      const dt = new DataTransfer();
      dt.items.add(new File([src], 'main.go', { type: 'text/x-go' }));
      const zone = document.querySelector('#composer')!;
      zone.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, goSource);
    await expect(chips).toHaveCount(2);
    await expect(chips.nth(1)).toHaveAttribute('data-state', 'done');
    await expect(chips.nth(1)).toContainText('main.go');
    await expect(chips.nth(1)).toHaveAttribute('data-icon', 'code');
    await page.screenshot({ path: test.info().outputPath(`composer-${vp.width}.png`) });

    await send(page, 'what do these say?');
    await expect(chips).toHaveCount(0);
    const mine = page.locator('[data-testid="message"][data-role="user"]');
    await expect(mine.getByTestId('file-chip')).toHaveCount(2);
    const answer = page.locator('[data-testid="message"][data-role="assistant"]:not([data-streaming])');
    await expect(answer).toContainText('document hello.pdf: PDF, 601 bytes');
    await expect(answer).toContainText('Attached file: main.go');
    const sent = async () => JSON.stringify((await fake.chatRequests()).at(-1)?.body ?? {});
    await expect.poll(sent).toContain('"type":"document"');
    expect(await sent()).toContain('println(\\"hi\\")');
    await page.screenshot({ path: test.info().outputPath(`sent-${vp.width}.png`) });

    // Kept with the message: after a reload too, and each opens with a safe type.
    await page.reload();
    await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
    const kept = page.locator('[data-testid="message"][data-role="user"]').getByTestId('file-chip');
    await expect(kept).toHaveCount(2);
    await expect(kept.first()).toContainText('hello.pdf');
    const href = await kept.first().getAttribute('href');
    const res = await page.request.get(myco.link(href!));
    expect(res.headers()['content-type']).toBe('application/pdf');
    expect(res.headers()['x-content-type-options']).toBe('nosniff');
    expect(Buffer.from(await res.body()).equals(fs.readFileSync(pdfPath))).toBe(true);
    const goRes = await page.request.get(myco.link((await kept.nth(1).getAttribute('href'))!));
    expect(goRes.headers()['content-type']).toBe('text/plain; charset=utf-8');
    expect(await goRes.text()).toBe(goSource);

    // A binary file is refused, naming it.
    await page.getByTestId('file-input').setInputFiles({ name: 'tool.bin', mimeType: 'application/octet-stream', buffer: Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]) });
    await expect(page.getByTestId('error-toast')).toContainText(/tool\.bin could not be attached: .*tool\.bin is binary data/i);
    await expect(chips).toHaveCount(0);
    await ctx.close();
  });
}

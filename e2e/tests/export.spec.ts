import { test, expect } from '../fixtures';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

// A 2×2 PNG, so an embedded image has a size to check once decoded.
function tinyPNG(): Buffer {
  const raw = Buffer.from([0, 255, 0, 0, 255, 0, 0, 255, 255, 0, 0, 0, 255, 255, 0, 0, 255, 0, 0, 255, 255]);
  const crcTable = (buf: Buffer) => {
    let c = ~0;
    for (const x of buf) { c ^= x; for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1)); }
    return ~c >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4); crc.writeUInt32BE(crcTable(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13); ihdr.writeUInt32BE(2, 0); ihdr.writeUInt32BE(2, 4); ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

test('the HTML export downloads from the session page and reads offline, with its image, running no script', async ({ page, browser, myco }) => {
  const sha = myco.putImage(tinyPNG());
  const id = myco.writeSession({
    title: 'Export me',
    threads: [
      { messages: [
        { role: 'user', text: 'the first thread, compacted later' },
        { role: 'assistant', text: 'noted' },
      ] },
      { compacted_from: 0, summary: 'They talked.', messages: [
        { role: 'user', content: [{ type: 'text', text: 'here is the screenshot' }, { type: 'image', sha256: sha, media_type: 'image/png' }] },
        { role: 'assistant', content: [
          { type: 'text', text: 'Looking. <script>alert("ran")</script>' },
          { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } },
        ] },
        { role: 'user', human: false, content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt\nb.txt' }] },
      ] },
    ],
  });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));

  const links = page.getByTestId('export-links');
  await expect(links.getByTestId('export-md')).toHaveAttribute('href', `/api/sessions/${id}/export?format=md`);
  const downloading = page.waitForEvent('download');
  await links.getByTestId('export-html').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`export-me-${id.slice(0, 8)}.html`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'myco-export-'));
  const file = path.join(dir, download.suggestedFilename());
  await download.saveAs(file);
  expect(fs.readFileSync(file, 'utf8')).not.toMatch(/<script/i);

  // Offline, from the file: no server, no network.
  const offline = await browser.newContext();
  await offline.setOffline(true);
  const tab = await offline.newPage();
  const dialogs: string[] = [];
  tab.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
  const requests: string[] = [];
  tab.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) requests.push(r.url()); });
  await tab.goto('file://' + file);

  await expect(tab.getByRole('heading', { level: 1 })).toHaveText('Export me');
  await expect(tab.getByTestId('export-thread')).toHaveCount(2);
  await expect(tab.getByTestId('export-thread').first().getByRole('heading', { level: 2 })).toHaveText('Compacted thread 1');
  await expect(tab.getByTestId('export-message')).toHaveCount(5);
  await expect(tab.getByText('the first thread, compacted later')).toBeVisible();
  await expect(tab.getByText('here is the screenshot')).toBeVisible();
  await expect(tab.getByText('a.txt')).toBeVisible();
  // The model's <script> is text on the page, not an element.
  await expect(tab.getByText('<script>alert("ran")</script>')).toBeVisible();

  const img = tab.getByTestId('export-image');
  await expect(img).toHaveAttribute('src', /^data:image\/png;base64,/);
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(2);

  expect(await tab.locator('script').count()).toBe(0);
  expect(dialogs).toEqual([]);
  expect(requests).toEqual([]);
  await offline.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test, expect } from '../fixtures';

// A 4x3 red PNG, built here so the test needs no binary fixture.
function redPNG(): Buffer {
  const w = 4, h = 3;
  const raw = Buffer.alloc((w * 4 + 1) * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) raw.set([255, 0, 0, 255], y * (w * 4 + 1) + 1 + x * 4);
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td) >>> 0);
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0); ihdr.writeUInt32BE(h, 4); ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}
function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) { c ^= b; for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1)); }
  return ~c;
}

test('messages render markdown, tool calls, images; title is the heading and tab title', async ({ page, myco }) => {
  const sha = myco.putImage(redPNG());
  const id = myco.writeSession({
    title: 'Look at the build',
    links: [{ url: 'https://go.dev/doc', title: 'Go docs' }],
    scratchpad: 'remember: run vet',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'What is **this**?' }, { type: 'image', sha256: sha, media_type: 'image/png' }] },
      { role: 'assistant', content: [
        { type: 'text', text: 'Running **this**:\n\n```go\nfunc main() {}\n```' },
        { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls -la' } },
      ] },
      { role: 'user', human: false, content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'total 0\nREADME.md', duration_ms: 12 }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ],
  });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));

  await expect(page.getByTestId('session-title')).toHaveText('Look at the build');
  await expect(page).toHaveTitle(/Look at the build/);
  // The agent's text is markdown; what a person typed is shown as typed.
  await expect(page.locator('strong', { hasText: 'this' })).toHaveCount(1);
  await expect(page.getByText('What is **this**?')).toBeVisible();
  await expect(page.locator('pre code').first()).toContainText('func main()');
  const img = page.locator(`img[src="/images/${sha}"]`);
  await expect(img).toBeVisible();
  expect(await img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(4);
  await expect(page.getByTestId('tool-call')).toContainText('bash');
  await expect(page.getByTestId('tool-call')).toContainText('ls -la');
  await expect(page.getByTestId('tool-result')).toContainText('README.md');
  await expect(page.getByTestId('links-panel')).toContainText('Go docs');
  await expect(page.getByTestId('scratchpad')).toContainText('remember: run vet');
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
});

test('a title changed through the API reaches the open tab live', async ({ page, myco, request }) => {
  const id = myco.writeSession({ title: 'Before' });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  await expect(page.locator('body')).toHaveAttribute('data-stream', 'open');
  const resp = await request.patch(`${myco.url}/api/sessions/${id}`, {
    headers: { Authorization: `Bearer ${myco.token}` },
    data: { title: 'After <img src=x onerror=alert(1)>' },
  });
  expect(resp.status()).toBe(200);
  await expect(page.getByTestId('session-title')).toHaveText('After <img src=x onerror=alert(1)>');
  await expect(page).toHaveTitle(/After/);
  await expect(page.locator('h1 img')).toHaveCount(0);
});

test('script, onerror and javascript: payloads in messages, titles and links are inert', async ({ page, myco }) => {
  const payload = '<script>window.__xss = 1; alert(1)</script><img src=x onerror="window.__xss = 2; alert(2)">';
  const id = myco.writeSession({
    title: `<script>alert(3)</script><img src=x onerror=alert(4)>`,
    links: [{ url: 'javascript:alert(5)', title: 'click me' }],
    messages: [
      { role: 'user', text: payload + '\n\n[a link](javascript:alert(6)) <a href="javascript:alert(7)">raw</a> <iframe src="javascript:alert(8)"></iframe>' },
      { role: 'assistant', content: [{ type: 'text', text: '![x](javascript:alert(9)) <svg onload=alert(10)>' }] },
    ],
  });
  await myco.start();
  let dialogs = 0;
  page.on('dialog', async (d) => { dialogs++; await d.dismiss(); });
  await page.goto(myco.link('/'));
  await expect(page.getByTestId('session-link')).toContainText('<script>alert(3)</script>');
  await page.goto(`${myco.url}/s/${id}`);
  await expect(page.getByTestId('session-title')).toContainText('<script>alert(3)</script>');
  await expect(page.getByTestId('message')).toHaveCount(2);

  // Click everything that looks like a link in the messages and the panel.
  for (const a of await page.locator('.conversation a, aside a').all()) {
    const href = (await a.getAttribute('href')) ?? '';
    expect(href.toLowerCase()).not.toContain('javascript:');
  }
  await page.getByText('click me').click({ trial: false }).catch(() => {});
  expect(await page.evaluate(() => (window as any).__xss)).toBeUndefined();
  expect(await page.locator('.conversation script, .conversation iframe, .conversation svg, [onerror], [onload]').count()).toBe(0);
  expect(dialogs).toBe(0);
});

test('a long session opens on its latest messages and loads earlier ones on demand', async ({ page, myco }) => {
  const messages = Array.from({ length: 250 }, (_, i) => ({ role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant', text: `message number ${i}` }));
  const id = myco.writeSession({
    title: 'Long',
    threads: [
      { messages: [{ role: 'user', text: 'the very first thread' }, { role: 'assistant', text: 'old answer' }] },
      { compacted_from: 0, summary: 'We talked about **old** things.', messages },
    ],
  });
  await myco.start();
  await page.goto(myco.link(`/s/${id}`));
  const latest = page.getByTestId('thread');
  await expect(latest.getByTestId('message').last()).toContainText('message number 249');
  await expect(latest.getByText('message number 0', { exact: true })).toHaveCount(0);
  const before = await latest.getByTestId('message').count();
  expect(before).toBeLessThan(250);
  // The button, without scrolling to it: scrolling up loads earlier
  // messages by itself (earlier.js), and would replace the button under a
  // pointer click.
  await latest.getByTestId('load-earlier').first().dispatchEvent('click');
  await expect.poll(() => latest.getByTestId('message').count()).toBeGreaterThan(before);
  // Scrolling up reads on without a click, back to the first message.
  await expect(async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect(latest.getByText('message number 0', { exact: true })).toHaveCount(1, { timeout: 1000 });
  }).toPass();
  await expect(latest.getByTestId('load-earlier')).toHaveCount(0);
  await expect(latest.getByTestId('message')).toHaveCount(250);

  await expect(page.getByTestId('thread-boundary')).toContainText(/compacted here/i);
  const earlier = page.getByTestId('earlier-thread');
  await expect(earlier).toContainText('old');
  await expect(earlier.getByText('the very first thread')).toBeHidden();
  await earlier.locator('summary').click();
  await expect(earlier.getByText('the very first thread')).toBeVisible();
});

test('a session locked by another process opens read-only with a banner naming it', async ({ page, myco }) => {
  const id = myco.writeSession({ title: 'Busy elsewhere', messages: [{ role: 'user', text: 'hi' }] });
  const lock = path.join(myco.sessionDir, `${id}.lock`);
  fs.writeFileSync(lock, JSON.stringify({ pid: 4242, url: 'http://127.0.0.1:45678' }) + '\n');
  // util-linux flock(1) takes the same flock(2) lock myco uses.
  const holder = spawn('flock', ['--nonblock', lock, 'sleep', '120'], { stdio: 'ignore' });
  try {
    await myco.start();
    await expect.poll(async () => {
      const r = await fetch(`${myco.url}/api/sessions/${id}/archive`, { method: 'POST', headers: { Authorization: `Bearer ${myco.token}` } });
      return r.status;
    }).toBe(409);
    await page.goto(myco.link(`/s/${id}`));
    const banner = page.getByTestId('locked-banner');
    await expect(banner).toContainText('4242');
    await expect(banner.getByRole('link')).toHaveAttribute('href', `http://127.0.0.1:45678/s/${id}`);
    await expect(page.getByTestId('composer')).toHaveCount(0);
  } finally {
    holder.kill();
  }
});

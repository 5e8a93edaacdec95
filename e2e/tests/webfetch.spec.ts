import { test, expect, send, openSession } from '../fixtures';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// web_fetch: the agent reads a web page after the person approves its
// host. The page comes from this spec's own server on loopback, which
// myco's e2e build (tag myco_e2e) reaches as docs.test only because
// MYCO_E2E_WEB_HOSTS names it (cmd/myco/webfetch_e2e.go); nothing goes to
// the internet. The card names the host; "Allow docs.test for this
// session" lets the second fetch from it go without asking; the result
// card shows the page as Markdown.

const shots = '/tmp/shots-webfetch';

const pageHTML = (title: string) => `<!doctype html><html><head><title>${title}</title></head><body>
<nav><a href="/">Home</a> · <a href="/blog">Blog</a></nav>
<article><h1>${title}</h1>
<p>The <code>pathlib</code> module gives paths as <strong>objects</strong> rather than strings, with methods for
everything a script does with a path. This page is long enough to count as an article.</p>
<h2>Joining</h2><p>Use the slash operator: <a href="/ref#join">the reference</a> has the details.</p>
</article><footer>© footer text</footer></body></html>`;

test('web_fetch asks once for a host, then shows the page as Markdown', async ({ page, myco, fake }) => {
  let hits = 0;
  const site = http.createServer((req, res) => {
    hits++;
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(pageHTML(req.url === '/guide' ? 'Pathlib guide' : 'Second page'));
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const { port } = site.address() as AddressInfo;
  try {
    const env = myco.env.bind(myco);
    myco.env = () => ({ ...env(), MYCO_E2E_WEB_HOSTS: `docs.test=127.0.0.1:${port}` });
    myco.useModels(fake.url);
    const id = myco.writeSession({ title: 'Web fetch' });
    await myco.start();
    await openSession(page, myco, id);

    await send(page, 'read the guide [[steps: tool:web_fetch {"url":"http://docs.test/guide"} ;; tool:web_fetch {"url":"http://docs.test/second"} ;; say:read both pages]]');
    const card = page.getByTestId('approval');
    await expect(card).toHaveAttribute('data-tool', 'web_fetch');
    await expect(card.getByTestId('approval-host')).toHaveText('docs.test');
    await expect(card.getByTestId('approval-url')).toHaveText('http://docs.test/guide');
    await expect(card.getByTestId('approval-note')).toContainText('web_fetch.allowed_hosts');
    expect(hits).toBe(0); // nothing is fetched before the person says so
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: `${shots}/approval-1280.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${shots}/approval-390.png` });
    await page.setViewportSize({ width: 1280, height: 800 });

    await card.getByRole('button', { name: 'Allow docs.test for this session' }).click();
    await expect(page.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText('read both pages', { timeout: 30_000 });
    await expect(card).toHaveCount(0);
    expect(hits).toBe(2);

    const results = page.locator('[data-testid="tool-call"][data-tool="web_fetch"] [data-testid="tool-result"]');
    await expect(results).toHaveCount(2);
    const first = results.first();
    await expect(first).toHaveAttribute('data-is-error', 'false');
    await first.locator('summary').click();
    const text = first.locator('pre');
    await expect(text).toBeVisible();
    await expect(text).toContainText('Title: Pathlib guide');
    await expect(text).toContainText('gives paths as **objects** rather than strings');
    await expect(text).toContainText('[the reference](http://docs.test/ref#join)');
    await expect(text).not.toContainText('footer text');
    await page.screenshot({ path: `${shots}/result-1280.png` });

    // The document asked once: the second call has no approval of its own.
    const doc = await myco.doc(id);
    const outcomes = doc.threads[0].messages.flatMap((m) => m.content).filter((b) => b.type === 'tool_result');
    expect(outcomes.map((b) => b.is_error ?? false)).toEqual([false, false]);
  } finally {
    site.close();
  }
});

import http from 'node:http';
import { test, expect } from '../fixtures';

// raw sends a request with full control over Host and Origin, which the
// browser (rightly) does not allow a page to set.
function raw(url: string, opts: { method?: string; headers?: Record<string, string> }): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(opts.method === 'POST' ? '{}' : undefined);
  });
}

test('requests without the token, with a wrong Host, or a foreign Origin are refused', async ({ page, myco }) => {
  const id = myco.writeSession({ title: 'Target' });
  await myco.start();
  const auth = { Authorization: `Bearer ${myco.token}` };
  const host = new URL(myco.url).host;

  expect(await raw(`${myco.url}/`, {})).toBe(401);
  expect(await raw(`${myco.url}/api/sessions`, {})).toBe(401);
  expect(await raw(`${myco.url}/api/sessions/${id}/events`, {})).toBe(401);
  expect(await raw(`${myco.url}/api/sessions`, { headers: { Authorization: 'Bearer wrong' } })).toBe(401);
  expect(await raw(`${myco.url}/api/sessions`, { headers: auth })).toBe(200);
  expect(await raw(`${myco.url}/api/sessions`, { headers: { ...auth, Host: `attacker.example:${host.split(':')[1]}` } })).toBe(403);
  expect(await raw(`${myco.url}/api/sessions/${id}/archive`, { method: 'POST', headers: { ...auth, Origin: 'http://attacker.example', 'Content-Type': 'application/json' } })).toBe(403);
  expect(myco.exists(`${id}.json`)).toBe(true);

  // In the browser: a page without the token gets nothing; with it, a cookie.
  const resp = await page.goto(`${myco.url}/`);
  expect(resp?.status()).toBe(401);
  await page.goto(myco.link('/'));
  await expect(page).toHaveURL(`${myco.url}/`);
  await expect(page.getByTestId('session-row')).toHaveCount(1);

  // A page of another origin cannot change anything, even with the cookie
  // set. It is served from 127.0.0.1 on another port: the same site, so the
  // browser sends the SameSite=Strict cookie and only the Origin check stands
  // in the way (from localhost, a different site, the cookie would never go).
  const evil = http.createServer((req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(`<script>fetch(${JSON.stringify(myco.url)} + '/api/sessions/${id}/archive', {method: 'POST', mode: 'no-cors', credentials: 'include'}).finally(() => document.title = 'sent')</script>`);
  });
  await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
  try {
    const port = (evil.address() as any).port;
    await page.goto(`http://127.0.0.1:${port}/`);
    await expect(page).toHaveTitle('sent');
    expect(myco.exists(`${id}.json`)).toBe(true);
    expect(myco.exists('archived', `${id}.json`)).toBe(false);
  } finally {
    evil.close();
  }
});

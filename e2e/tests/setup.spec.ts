import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test, expect } from '@playwright/test';

// The Chromium check of setup.sh, run with fake versions: Debian's next
// security update, older or newer, must never turn a fresh machine red while
// the pair works; only a smoke test that fails may.
const script = path.join(__dirname, '..', 'check-chromium.mjs');

function check(...args: string[]) {
  const r = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stderr: r.stderr };
}

// The version rule alone (--no-smoke): it only ever warns.
const versions = [
  { name: 'the same major is silent', have: 'Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)', says: [] as RegExp[] },
  { name: 'two majors newer warns and names the release', have: 'Chromium 158.0.1.2', says: [/WARNING/, /158 is 2 majors newer/, /1\.64\.1/, /1\.65\.1/] },
  { name: 'four majors older warns', have: 'Chromium 152.0.1.2', says: [/WARNING/, /4 majors older/, /usually works/] },
  { name: 'a known major names its release exactly', have: 'Chromium 159.0.8154.6', says: [/pin @playwright\/test 1\.65\.1/] },
  { name: 'eight majors older (Debian 148) only warns', have: 'Chromium 148.0.7778.167 built on Debian GNU/Linux 12 (bookworm)', says: [/WARNING/, /148 is 8 majors older/, /smoke test decides/] },
  { name: 'eight majors newer only warns', have: 'Chromium 164.0.1.2', says: [/WARNING/, /164 is 8 majors newer/, /smoke test decides/] },
  { name: 'no version at all only warns', have: 'not a browser', says: [/WARNING/, /no version number/] },
];

for (const c of versions) {
  test(`chromium check: ${c.name}`, () => {
    const r = check('--have', c.have, '--want', '156', '--no-smoke');
    expect(r.code, r.stderr).toBe(0);
    if (c.says.length === 0) expect(r.stderr).toBe('');
    for (const re of c.says) expect(r.stderr).toMatch(re);
  });
}

// The smoke test against the real Chromium decides: a large drift either
// way passes when the pair works. A launch on a loaded machine can take tens
// of seconds; the bound only turns a hang into a failure.
test.describe.configure({ timeout: 180_000 });
for (const have of ['Chromium 148.0.7778.167', 'Chromium 164.0.1.2']) {
  test(`chromium check: ${have} with a working browser passes the smoke test`, () => {
    const r = check('--have', have, '--want', '156');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/WARNING/);
    expect(r.stderr).not.toMatch(/ERROR/);
  });
}

test('chromium check: a browser that cannot be driven fails with the error', () => {
  const r = check('--have', 'Chromium 156.0.1.2', '--want', '156', '--executable', '/bin/false');
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toMatch(/ERROR: Debian's chromium does not work with the pinned Playwright: smoke test failed launching \/bin\/false/);
});

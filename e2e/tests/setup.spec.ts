import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test, expect } from '@playwright/test';

// The Chromium check of setup.sh, run with fake versions: Debian's next
// security update must not turn a fresh machine red, a large drift must.
const script = path.join(__dirname, '..', 'check-chromium.mjs');

function check(have: string, want: number) {
  const r = spawnSync(process.execPath, [script, '--have', have, '--want', String(want)], { encoding: 'utf8' });
  return { code: r.status, stderr: r.stderr };
}

const cases = [
  { name: 'the same major is silent', have: 'Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)', want: 156, code: 0, says: [] as RegExp[] },
  { name: 'two majors newer warns and names the release', have: 'Chromium 158.0.1.2', want: 156, code: 0, says: [/WARNING/, /158 is 2 majors newer/, /1\.64\.1/, /1\.65\.1/] },
  { name: 'four majors older still only warns', have: 'Chromium 152.0.1.2', want: 156, code: 0, says: [/WARNING/, /4 majors older/] },
  { name: 'a known major names its release exactly', have: 'Chromium 159.0.8154.6', want: 156, code: 0, says: [/pin @playwright\/test 1\.65\.1/] },
  { name: 'five majors newer fails', have: 'Chromium 161.0.1.2', want: 156, code: 1, says: [/ERROR/, /5 majors newer/, /release built for Chromium 161/] },
  { name: 'six majors older fails', have: 'Chromium 150.0.1.2', want: 156, code: 1, says: [/ERROR/, /6 majors older/] },
  { name: 'no version at all fails', have: 'not a browser', want: 156, code: 1, says: [/no version number/] },
];

for (const c of cases) {
  test(`chromium check: ${c.name}`, () => {
    const r = check(c.have, c.want);
    expect(r.code, r.stderr).toBe(c.code);
    if (c.says.length === 0) expect(r.stderr).toBe('');
    for (const re of c.says) expect(r.stderr).toMatch(re);
  });
}

import { execFileSync } from 'node:child_process';
import path from 'node:path';

// Builds myco, the fake model server and the test MCP server once; every test starts its own.
// MYCO_E2E_RACE=1 builds myco with the race detector, to find a data race
// only a real browser's traffic reaches (a failed test attaches myco's
// stderr, where the race report goes). myco is built with the tag
// myco_e2e: web_fetch can then reach a spec's own web server on loopback,
// named by MYCO_E2E_WEB_HOSTS (cmd/myco/webfetch_e2e.go); a myco built
// without it has no such seam.
export default function globalSetup() {
  const root = path.resolve(__dirname, '..');
  const race = process.env.MYCO_E2E_RACE === '1' ? ['-race'] : [];
  for (const [out, pkg] of [['myco', './cmd/myco'], ['fakellm', './e2e/fakellm/cmd/fakellm'], ['mcptest', './e2e/mcptest/cmd/mcptest']]) {
    const flags = out === 'myco' ? [...race, '-tags', 'myco_e2e'] : [];
    // myco as the README's start command builds it (CGO_ENABLED=0), but
    // the race detector needs cgo.
    const env = out === 'myco' && race.length === 0 ? { ...process.env, CGO_ENABLED: '0' } : process.env;
    execFileSync('go', ['build', ...flags, '-o', path.join(__dirname, '.bin', out), pkg], { cwd: root, stdio: 'inherit', env });
  }
}

import { execFileSync } from 'node:child_process';
import path from 'node:path';

// Builds myco and the fake model server once; every test starts its own.
export default function globalSetup() {
  const root = path.resolve(__dirname, '..');
  for (const [out, pkg] of [['myco', './cmd/myco'], ['fakellm', './e2e/fakellm/cmd/fakellm']]) {
    execFileSync('go', ['build', '-o', path.join(__dirname, '.bin', out), pkg], { cwd: root, stdio: 'inherit' });
  }
}

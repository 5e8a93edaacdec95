import { execFileSync } from 'node:child_process';
import path from 'node:path';

// Builds the myco binary once; every test starts its own server from it.
export default function globalSetup() {
  const root = path.resolve(__dirname, '..');
  execFileSync('go', ['build', '-o', path.join(__dirname, '.bin', 'myco'), './cmd/myco'], {
    cwd: root,
    stdio: 'inherit',
  });
}

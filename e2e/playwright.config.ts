import { defineConfig } from '@playwright/test';

// Debian's Chromium, never a downloaded browser; the flags keep it from
// reaching for the network, which this machine's sandbox refuses.
//
// Run from the repository root (where package.json and node_modules are):
// npx playwright test -c e2e/playwright.config.ts. Paths here are relative
// to this file, so e2e/ keeps its tests, fixtures and outputs together.
export default defineConfig({
  testDir: './tests',
  globalSetup: './global-setup.ts',
  // Without it, artifacts would land beside package.json, at the root.
  outputDir: './test-results',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    launchOptions: {
      // MYCO_CHROMIUM runs the suite on another build (an older Debian
      // package unpacked with dpkg -x, say); check-chromium.mjs reads it too.
      executablePath: process.env.MYCO_CHROMIUM || '/usr/bin/chromium',
      args: [
        '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--disable-quic',
      ],
    },
    trace: 'retain-on-failure',
  },
});

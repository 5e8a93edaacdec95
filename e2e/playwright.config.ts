import { defineConfig } from '@playwright/test';

// Debian's Chromium, never a downloaded browser; the flags keep it from
// reaching for the network, which this machine's sandbox refuses.
export default defineConfig({
  testDir: './tests',
  globalSetup: './global-setup.ts',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--disable-quic',
      ],
    },
    trace: 'retain-on-failure',
  },
});

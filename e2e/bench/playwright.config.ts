import { defineConfig } from '@playwright/test';
import base from '../playwright.config';

// The tab's figures (task bench:tab): the same Chromium and fixtures as the
// browser tests, but outside their run. A benchmark asserts nothing about
// time (machines are noisy); it prints a table and writes
// e2e/test-results/tab-bench.json, which docs/PERFORMANCE.md quotes.
export default defineConfig({
  ...base,
  testDir: '.',
  testMatch: '*.bench.ts',
  globalSetup: '../global-setup.ts',
  outputDir: '../test-results/bench',
  timeout: 180_000,
  workers: 1,
  // A trace being recorded slows the page it measures.
  use: { ...base.use, trace: 'off' },
});

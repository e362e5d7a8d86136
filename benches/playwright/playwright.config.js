// The Playwright Test side of the comparison (see compare.sh): the same
// 6 x 5-step suite as benches/evidence_suite.rs, against the same demo app,
// with full evidence (a screenshot after every test, a trace of every test:
// DOM snapshots and screenshots of each action, console and network), one
// worker (harshjudge runs with --test-threads 1), the system Chromium.
const { defineConfig } = require('@playwright/test');

module.exports = defineConfig({
  testDir: __dirname,
  testMatch: 'suite.spec.js',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  reporter: 'line',
  outputDir: process.env.PW_OUTPUT_DIR || '/tmp/hj-playwright-results',
  use: {
    baseURL: process.env.BASE_URL,
    headless: true,
    viewport: { width: 1280, height: 720 },
    screenshot: 'on',
    trace: 'on',
    launchOptions: {
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    },
  },
});

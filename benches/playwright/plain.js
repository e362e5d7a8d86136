// The runner-less side of the comparison (see compare.sh): suite.spec.js's
// 6 x 5-step suite run by plain playwright-core, no test runner, doing the
// evidence work harshjudge does per step and nothing more:
// - one Chromium for the run, a new browser context and page per scenario
//   (harshjudge isolates scenarios the same way), viewport 1280 x 720;
// - at every step boundary (before step 1, then after each step) one
//   viewport screenshot written as a PNG, and the console and network entries
//   since the last boundary written as JSON: harshjudge's before.png /
//   after.png, console.json and network.json.
// The scenarios are suite.spec.js itself: `require('@playwright/test')` is
// answered with a `test` that only records the scenarios and their steps,
// and Playwright's own `expect` (the assertion library, no runner).
//
//   BASE_URL=http://127.0.0.1:PORT node benches/playwright/plain.js
//
// NODE_PATH must hold @playwright/test and playwright-core (compare.sh
// installs them into target/playwright); CHROMIUM is the browser
// (/usr/bin/chromium by default; compare.sh sets it for all three);
// PLAIN_OUTPUT_DIR where the evidence goes.
'use strict';
const fs = require('fs');
const path = require('path');
const Module = require('module');
const { chromium } = require('playwright-core');
const { expect } = require('@playwright/test');

const base = process.env.BASE_URL;
if (!base) {
  console.error('plain.js: set BASE_URL to the demo app (compare.sh does)');
  process.exit(2);
}
const out = process.env.PLAIN_OUTPUT_DIR || '/tmp/hj-plain-results';

// suite.spec.js's `test`: scenarios recorded here; each step runs between
// two boundaries of the running scenario (`current`, set by `run`).
const scenarios = [];
let current = null;
const test = (name, body) => scenarios.push({ name, body });
test.step = async (title, body) => {
  await current.begin();
  await body();
  await current.end();
};
const load = Module._load;
Module._load = function (request, ...rest) {
  if (request === '@playwright/test') return { test, expect };
  return load.call(this, request, ...rest);
};
require('./suite.spec.js');
Module._load = load;

// A screenshot, asked again while a navigation commits under it (Chromium
// answers "Unable to capture screenshot" or "Not attached to an active
// page" then, more often in the headless shell), as harshjudge asks again.
async function shot(page) {
  for (let i = 0; ; i++) {
    try {
      return await page.screenshot();
    } catch (e) {
      if (i >= 20 || !/Unable to capture screenshot|Not attached to an active page/.test(e.message)) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function run(browser, scenario) {
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  let console_ = [];
  let network = [];
  page.on('console', (m) => console_.push({ level: m.type(), text: m.text(), url: m.location().url }));
  page.on('pageerror', (e) => console_.push({ level: 'error', text: String(e) }));
  page.on('response', (r) =>
    network.push({ method: r.request().method(), url: r.url(), status: r.status() }));
  page.on('requestfailed', (r) =>
    network.push({ method: r.method(), url: r.url(), failure: r.failure() && r.failure().errorText }));
  const dir = path.join(out, scenario.name);
  const write = (n, name, bytes) => {
    const step = path.join(dir, `step-${String(n).padStart(2, '0')}`);
    fs.mkdirSync(step, { recursive: true });
    fs.writeFileSync(path.join(step, name), bytes);
  };
  // One screenshot per boundary: the after of a step is the before of the next.
  let n = 0;
  let state = await shot(page);
  current = {
    begin: async () => {
      n += 1;
      write(n, 'before.png', state);
    },
    end: async () => {
      state = await shot(page);
      write(n, 'after.png', state);
      write(n, 'console.json', JSON.stringify(console_, null, 2));
      write(n, 'network.json', JSON.stringify(network, null, 2));
      console_ = [];
      network = [];
    },
  };
  try {
    await scenario.body({ page });
  } finally {
    await context.close();
  }
}

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  let failed = 0;
  for (const s of scenarios) {
    try {
      await run(browser, s);
      console.log(`ok ${s.name}`);
    } catch (e) {
      failed += 1;
      console.log(`FAILED ${s.name}: ${e.message}`);
    }
  }
  await browser.close();
  console.log(`${scenarios.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})();

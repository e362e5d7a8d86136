// Playwright's figure for benches/protocols.rs: playwright-core on the system
// Chromium (launched over its debugging pipe, as Playwright does), one page of
// the demo app, `page.locator('h1').textContent()` and `page.evaluate(() => 1)`
// timed call by call with performance.now().
//
//   PW_CORE=…/node_modules/playwright-core PW_CHROMIUM=/usr/bin/chromium \
//   PW_URL=http://127.0.0.1:PORT/ node text_content.js [--serve]
//
// With --serve (how the bench runs it) it opens the page, prints
// `ready {"startup_ms": …}` and then answers one line per command on stdin:
//   `text_content WARM N` / `evaluate WARM N` → `times [ms, …]` (N timed
//   calls after WARM untimed ones), `startup` → `startup_ms MS` (a second
//   browser: launch, new page, goto, first textContent, close), `quit`.
// Without it, it runs 5 rounds of 50 + 300 calls of each and prints medians.
const { chromium } = require(process.env.PW_CORE || 'playwright-core');

const url = process.env.PW_URL;
const launchOptions = {
  executablePath: process.env.PW_CHROMIUM || '/usr/bin/chromium',
  args: ['--disable-dev-shm-usage'],
};
const H1 = 'Demo App';

async function open() {
  const t0 = performance.now();
  const browser = await chromium.launch(launchOptions);
  const page = await browser.newPage();
  await page.goto(url);
  const text = await page.locator('h1').textContent();
  if (text !== H1) throw new Error(`h1 is ${JSON.stringify(text)}, not ${H1}`);
  return { browser, page, ms: performance.now() - t0 };
}

async function timed(page, op, warm, n) {
  const call = op === 'text_content'
    ? async () => { if ((await page.locator('h1').textContent()) !== H1) throw new Error('wrong h1'); }
    : async () => { if ((await page.evaluate(() => 1)) !== 1) throw new Error('wrong value'); };
  for (let i = 0; i < warm; i++) await call();
  const times = new Array(n);
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call();
    times[i] = performance.now() - t;
  }
  return times;
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

async function serve() {
  const { browser, page, ms } = await open();
  console.log(`ready ${JSON.stringify({ startup_ms: ms })}`);
  const rl = require('readline').createInterface({ input: process.stdin });
  for await (const line of rl) {
    const [cmd, warm, n] = line.trim().split(/\s+/);
    if (cmd === 'quit') break;
    if (cmd === 'startup') {
      const second = await open();
      await second.browser.close();
      console.log(`startup_ms ${second.ms}`);
    } else if (cmd === 'text_content' || cmd === 'evaluate') {
      console.log(`times ${JSON.stringify(await timed(page, cmd, Number(warm), Number(n)))}`);
    } else {
      console.log(`error unknown command ${cmd}`);
    }
  }
  await browser.close();
}

async function standalone() {
  const { browser, page } = await open();
  for (let round = 1; round <= 5; round++) {
    for (const op of ['text_content', 'evaluate']) {
      console.log(`round ${round} ${op}: median ${median(await timed(page, op, 50, 300)).toFixed(3)} ms`);
    }
  }
  await browser.close();
}

(process.argv.includes('--serve') ? serve() : standalone())
  .catch((e) => { console.error(e); process.exit(1); });

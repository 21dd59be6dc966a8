// Firefox for the page tests, `make wpt` and `make bench ENGINE=firefox`: Debian's Firefox ESR
// (or $FIREFOX) driven by puppeteer-core over WebDriver BiDi. The same shape as lib/webkit.mjs:
//
//   const firefox = await launchFirefox();
//   const page = await firefox.page();   // a new tab
//   await page.goto(url);
//   await page.evaluate(async (arg) => …, arg);   // a function run in the page, its result back
//   page.errors();                        // console errors and uncaught errors, so far
//   await page.close();
//   await firefox.close();

import fs from 'node:fs';

export const FIREFOX = process.env.FIREFOX || '/usr/bin/firefox-esr';

/** What is missing to run Firefox here, or ''. */
export function firefoxMissing() {
  return fs.existsSync(FIREFOX) ? '' : `${FIREFOX} (make deps installs firefox-esr)`;
}

/**
 * Starts Firefox headless. `protocolTimeoutMs` bounds one driver command (an `evaluate` that runs
 * long, such as a benchmark's, needs more than puppeteer's default); `prefs` are set in its
 * profile. The returned object's `version` is the browser's ("firefox/153.0…").
 */
export async function launchFirefox({ protocolTimeoutMs, prefs } = {}) {
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    ...(protocolTimeoutMs ? { protocolTimeout: protocolTimeoutMs } : {}),
    ...(prefs ? { extraPrefsFirefox: prefs } : {}),
  });
  return {
    version: await browser.version(),
    async page() {
      const p = await browser.newPage();
      p.setDefaultTimeout(60_000);
      const problems = [];
      p.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      p.on('pageerror', (e) => problems.push(e.message));
      return {
        goto: (url) => p.goto(url),
        evaluate: (fn, arg) => p.evaluate(fn, arg),
        errors: () => problems,
        close: () => p.close(),
      };
    },
    close: () => browser.close(),
  };
}

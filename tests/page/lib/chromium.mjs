// Launching Debian's Chromium with playwright-core (no downloaded browser on these machines).

import { chromium } from 'playwright-core';
import fs from 'node:fs';

/** The browser binary: $CHROMIUM, else Debian's /usr/bin/chromium. */
export const CHROMIUM_PATH = process.env.CHROMIUM || '/usr/bin/chromium';

/** Flags for every launch (the same set webdriver.json gives wasm-bindgen-test, plus no QUIC). */
export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

/** The switch that turns on Chromium's own (native) WebMCP implementation. */
export const NATIVE_WEBMCP_ARGS = ['--enable-features=WebMCP'];

/**
 * Launch Chromium. Playwright gives every launch a fresh temporary user-data dir and removes it
 * when the browser closes.
 * @param {object} [options]
 * @param {boolean} [options.nativeWebMCP=false] add --enable-features=WebMCP
 * @param {string[]} [options.args=[]] extra command-line flags
 * @returns {Promise<import('playwright-core').Browser>}
 */
export async function launchChromium({ nativeWebMCP = false, args = [] } = {}) {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} not found: run \`make deps\` (or set CHROMIUM=/path/to/chromium)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, ...(nativeWebMCP ? NATIVE_WEBMCP_ARGS : []), ...args],
    timeout: 60_000,
  });
}

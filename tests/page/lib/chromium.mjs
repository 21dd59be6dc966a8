// Launching Debian's Chromium with playwright-core (no downloaded browser on these machines).

import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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

/**
 * Starts Chromium apart from Playwright (no DevTools client unless `args` opens a port for one),
 * with `args` after the usual flags, a fresh user-data directory and its own process group.
 * `exited` resolves when it exits (with its exit code, or the spawn error when it could not
 * start). `stop()` kills the whole group, waits for the exit and removes the directory: killing
 * only the main process leaves its renderer and helpers writing there.
 * @param {string[]} args
 * @param {object} [options]
 * @param {import('node:child_process').StdioOptions} [options.stdio='ignore']
 */
export function spawnChromium(args, { stdio = 'ignore' } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-'));
  const child = spawn(CHROMIUM_PATH, [...CHROMIUM_ARGS, `--user-data-dir=${dir}`, ...args], { stdio, detached: true });
  const exited = new Promise((resolve) => {
    child.once('exit', resolve);
    child.once('error', resolve); // (not started: no 'exit' follows)
  });
  const stop = async () => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // (already gone)
    }
    await exited;
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  };
  return { child, exited, dir, stop };
}

// WebKit for the page tests: Debian's WebKitGTK MiniBrowser driven by its WebKitWebDriver over
// classic WebDriver (plain HTTP, no client library), on a virtual display (xvfb-run): the engine
// of Safari. `make deps` installs the three (webkit2gtk-driver, xvfb, xauth).
//
//   const webkit = await launchWebKit();
//   const page = await webkit.page();   // a new top-level browsing context (a window)
//   await page.goto(url);
//   await page.evaluate(async (arg) => …, arg);   // a function run in the page, its result back
//   await page.close();
//   await webkit.close();
//
// WebDriver classic has no console events: a page that needs them collects its own.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { freePort } from './ports.mjs';

export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER || '/usr/bin/WebKitWebDriver';
export const WEBKIT_BROWSER = process.env.WEBKIT_BROWSER || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/** Whether the driver, the browser and xvfb-run are installed (what is missing, or ''). */
export function webkitMissing() {
  return [WEBKIT_DRIVER, WEBKIT_BROWSER, '/usr/bin/xvfb-run'].filter((f) => !fs.existsSync(f)).join(', ');
}

/**
 * Starts the driver (on its own virtual display) and one session, whose scripts may run for
 * `scriptTimeoutMs`. The returned object's `version` is the browser's, as the session gives it.
 */
export async function launchWebKit({ scriptTimeoutMs = 60_000 } = {}) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn('xvfb-run', ['-a', WEBKIT_DRIVER, `--port=${port}`], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const send = async (method, path, body) => {
    const r = await fetch(base + path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const { value } = await r.json();
    if (!r.ok) throw new Error(`WebDriver ${method} ${path}: ${value?.error}: ${value?.message}`);
    return value;
  };
  for (let i = 0; ; i++) {
    let why = 'not ready';
    try {
      if ((await send('GET', '/status')).ready) break;
    } catch (e) {
      why = e.message;
    }
    if (i > 200) throw new Error(`${WEBKIT_DRIVER} did not start in 10 s: ${why}\n${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const { sessionId, capabilities } = await send('POST', '/session', {
    capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary: WEBKIT_BROWSER, args: ['--automation'] } } },
  });
  const session = (path) => `/session/${sessionId}${path}`;
  await send('POST', session('/timeouts'), { script: scriptTimeoutMs, pageLoad: 60_000 });
  const first = await send('GET', session('/window'));
  let windows = 0;

  return {
    version: capabilities?.browserVersion ?? 'unknown',
    async page() {
      const handle = windows++ === 0 ? first : (await send('POST', session('/window/new'), { type: 'window' })).handle;
      const use = () => send('POST', session('/window'), { handle });
      await use();
      return {
        async goto(url) {
          await use();
          await send('POST', session('/url'), { url });
        },
        /** Runs `fn(arg)` (awaited) in the page; its result, or the error it threw as { thrown }. */
        async evaluate(fn, arg) {
          await use();
          const script = `const done = arguments[1];
            Promise.resolve().then(() => (${fn.toString()})(arguments[0]))
              .then((v) => done({ v }), (e) => done({ thrown: String((e && e.message) || e).split('\\n')[0] }));`;
          const r = await send('POST', session('/execute/async'), { script, args: [arg === undefined ? null : arg] });
          if (r && 'thrown' in r) throw new Error(r.thrown);
          return r?.v;
        },
        async close() {
          await use();
          // The session's first window stays until the end, on an empty page.
          if (handle === first) return send('POST', session('/url'), { url: 'about:blank' });
          await send('DELETE', session('/window'));
          // (New windows are opened from the current one, which must exist.)
          await send('POST', session('/window'), { handle: first });
        },
      };
    },
    async close() {
      try {
        await send('DELETE', session(''));
      } finally {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          // (already gone)
        }
      }
    },
  };
}

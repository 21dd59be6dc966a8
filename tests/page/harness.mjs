// Page-test harness: one static server per test file (serving the repository root), Chromium via
// playwright-core, and `withPage` to run a test body against a fresh page.
//
//   import { test } from 'node:test';
//   import assert from 'node:assert/strict';
//   import { withPage } from './harness.mjs';
//
//   test('the polyfill installs', () =>
//     withPage(async ({ page }) => {
//       assert.equal(await page.evaluate(() => typeof document.modelContext), 'object');
//     }, { html: '<script src="/dist/modelcontext.iife.js"></script>' }));
//
// Test files are tests/page/*.test.mjs; run them with `node --test tests/page/*.test.mjs`
// (or `make test-page`). Browsers are shared within a test file (one per distinct launch
// configuration) and closed when the file's tests are done; each withPage call gets its own
// browser context (separate cookies, storage, cache) and page.

import { after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, DIST_DIR, crateInfo } from '../../scripts/lib/project.mjs';
import { startStaticServer } from '../../scripts/lib/static-server.mjs';
import { launchChromium, CHROMIUM_ARGS, CHROMIUM_PATH } from './lib/chromium.mjs';

export { REPO_ROOT, DIST_DIR, CHROMIUM_ARGS, CHROMIUM_PATH };

/** The crate version from Cargo.toml. */
export const CRATE_VERSION = crateInfo().version;

let serverPromise;
/**
 * The shared static server for this test file: serves the repository root on 127.0.0.1 with an
 * ephemeral port. `server.origin` is http://127.0.0.1:PORT, `server.altOrigin` http://localhost:PORT
 * (a second origin for cross-origin tests); `server.url(path, { alt })`; `server.route(path, spec)`.
 */
export function getServer() {
  serverPromise ??= startStaticServer({ root: REPO_ROOT, port: 0, log: !!process.env.PAGE_TEST_LOG }).then((s) => {
    s.unref();
    return s;
  });
  return serverPromise;
}

/**
 * Serves at `url` (on the shared server) `source`, an ES module's text importing packages from
 * node_modules, bundled by esbuild into one classic script, as an app would bundle them (for
 * peers a page cannot import unbundled, such as those that load CommonJS).
 */
export async function serveBundle(url, source) {
  const { build } = await import('esbuild');
  const out = await build({
    stdin: { contents: source, resolveDir: REPO_ROOT },
    bundle: true,
    format: 'iife',
    write: false,
    logLevel: 'silent',
  });
  (await getServer()).route(url, { body: out.outputFiles[0].text, type: 'text/javascript; charset=utf-8' });
}

const browsers = new Map();
const browserKey = ({ nativeWebMCP = false, args = [] } = {}) => JSON.stringify([nativeWebMCP, args]);
/** A shared Chromium for this launch configuration (`{ nativeWebMCP, args }`). */
export function getBrowser({ nativeWebMCP = false, args = [] } = {}) {
  const key = browserKey({ nativeWebMCP, args });
  if (!browsers.has(key)) browsers.set(key, launchChromium({ nativeWebMCP, args }));
  return browsers.get(key);
}

after(async () => {
  const all = [...browsers.values()];
  browsers.clear();
  await Promise.all(all.map((p) => p.then((b) => b.close()).catch(() => {})));
  if (serverPromise) await (await serverPromise).close();
});

let inlineCounter = 0;
/**
 * Serve `html` from the shared server and return its path (e.g. `/__inline/3.html`). Pages served
 * this way have a real http://127.0.0.1 / http://localhost origin, so they are secure contexts.
 */
export async function inlinePage(html) {
  const server = await getServer();
  const p = `/__inline/${process.pid}-${++inlineCounter}.html`;
  server.route(p, { body: html.startsWith('<!doctype') ? html : `<!doctype html><meta charset="utf-8">\n${html}` });
  return p;
}

/**
 * A page script (the text inside a `<script>`) defining `window.__until(f, what = 'condition',
 * ms = 2000)`: calls f() (awaiting it) every 20 ms until it gives a truthy value, and returns
 * that value; after ms / 20 tries it throws "timed out waiting for <what>". It counts tries, not
 * time, so a loaded machine whose timers run late makes it wait longer, never shorter.
 */
export const PAGE_UNTIL = `window.__until = async (f, what = 'condition', ms = 2000) => {
  for (let i = 0; i < ms / 20; i++) {
    const v = await f();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('timed out waiting for ' + what);
};`;

/** Throw a helpful error when dist/ has not been built. */
export function requireDist(...files) {
  for (const f of files.length ? files : ['modelcontext.js', 'modelcontext.iife.js']) {
    if (!fs.existsSync(path.join(DIST_DIR, f))) throw new Error(`dist/${f} missing: run \`make build\` first`);
  }
}

/**
 * Run `fn` with a fresh page.
 *
 * @param {(ctx: {
 *   page: import('playwright-core').Page,
 *   context: import('playwright-core').BrowserContext,
 *   browser: import('playwright-core').Browser,
 *   server: Awaited<ReturnType<typeof getServer>>,
 *   goto: (path: string, opts?: { alt?: boolean }) => Promise<unknown>,
 *   pageErrors: Error[],
 *   consoleMessages: { type: string, text: string }[],
 * }) => Promise<T>} fn
 * @param {object} [options]
 * @param {boolean} [options.nativeWebMCP=false] launch Chromium with --enable-features=WebMCP
 * @param {string[]} [options.args] extra Chromium flags
 * @param {string} [options.path] navigate here (a path on the server) before calling fn
 * @param {string} [options.html] or serve this HTML and navigate to it before calling fn
 * @param {boolean} [options.alt=false] navigate on http://localhost:PORT instead of http://127.0.0.1:PORT
 * @param {boolean} [options.allowPageErrors=false] by default an uncaught page error fails the test
 * @param {number} [options.timeout=15000] default timeout for page operations, ms
 * @returns {Promise<T>} what fn returns
 * @template T
 */
export async function withPage(fn, options = {}) {
  const { nativeWebMCP = false, args = [], alt = false, allowPageErrors = false, timeout = 15_000 } = options;
  const server = await getServer();
  const browser = await getBrowser({ nativeWebMCP, args });
  const context = await browser.newContext();
  const page = await context.newPage();
  if (CPU_THROTTLE > 1) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_THROTTLE });
  }
  page.setDefaultTimeout(timeout);
  const pageErrors = [];
  const consoleMessages = [];
  page.on('pageerror', (e) => pageErrors.push(e));
  page.on('console', (m) => consoleMessages.push({ type: m.type(), text: m.text() }));
  const goto = (p, { alt: onAlt = alt } = {}) => page.goto(server.url(p, { alt: onAlt }));
  try {
    if (options.html !== undefined) await goto(await inlinePage(options.html));
    else if (options.path !== undefined) await goto(options.path);
    // A test that never finishes (a page.evaluate whose promise never settles is not bound
    // by the page's default timeout) fails instead of hanging the run.
    const limit = Math.max(120_000, 4 * timeout);
    let timer;
    const overdue = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`withPage: the test did not finish in ${limit / 1000} s`)), limit);
    });
    let result;
    try {
      result = await Promise.race([fn({ page, context, browser, server, goto, pageErrors, consoleMessages }), overdue]);
    } finally {
      clearTimeout(timer);
    }
    if (!allowPageErrors && pageErrors.length) {
      assert.fail(`uncaught error(s) in the page:\n${pageErrors.map((e) => e.stack || e.message).join('\n')}`);
    }
    return result;
  } catch (e) {
    if (process.env.PAGE_TEST_LOG && consoleMessages.length) {
      console.error(consoleMessages.map((m) => `[console.${m.type}] ${m.text}`).join('\n'));
    }
    throw e;
  } finally {
    await closeContext(context, { nativeWebMCP, args });
  }
}

/**
 * PAGE_TEST_CPU_THROTTLE=N runs each page's main thread N times slower (Chromium's CPU
 * throttling, as DevTools emulates a slow device): a way to find tests that hold only on a
 * fast machine. Off (1) by default.
 */
const CPU_THROTTLE = Number(process.env.PAGE_TEST_CPU_THROTTLE || 1);

/** How long a test's context may take to close before its browser is replaced (ms). */
const CLOSE_LIMIT = 20_000;

/**
 * Closes a test's context. On a loaded machine Chromium has been seen never to finish closing a
 * page that a form submission was navigating (the test's own checks had passed; the close
 * waited until the renderer was killed). After CLOSE_LIMIT the browser of this configuration
 * is closed and forgotten, so the next test launches a new one, and stderr says so.
 * `config` is the context's launch configuration (`{ nativeWebMCP, args }`, as getBrowser's).
 */
export async function closeContext(context, config, limitMs = CLOSE_LIMIT) {
  let timer;
  const limit = new Promise((resolve) => {
    timer = setTimeout(() => resolve(false), limitMs);
  });
  const closed = await Promise.race([context.close().then(() => true, () => true), limit]);
  clearTimeout(timer);
  if (closed) return;
  console.error(`withPage: a page did not close in ${limitMs / 1000} s; its Chromium is closed, the next test starts a new one`);
  const key = browserKey(config);
  const browser = browsers.get(key);
  browsers.delete(key);
  const gone = browser?.then((b) => b.close()).catch(() => {});
  await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, limitMs).unref())]);
}

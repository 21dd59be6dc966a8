#!/usr/bin/env node
// `make wpt WPT=<dir>`: the web-platform-tests of WebMCP (a checkout's `webmcp/`) run against
// this polyfill (the classic build loaded first in every page) in Debian's Chromium without its
// WebMCP switch, in Firefox ESR and in WebKitGTK (each where `make deps` installed it), and
// against native Chromium (`--enable-features=WebMCP`, nothing loaded), side by side: each
// subtest's status in each, then the totals. It measures; it does not judge (not in `make test`:
// the tests are not part of this repository, and the machines CI runs on cannot fetch them).
//
//   node scripts/wpt.mjs <wpt-checkout>                   every .html under webmcp/
//   node scripts/wpt.mjs <wpt-checkout> webmcp/imperative/object-arguments.https.html …
//
// What it needs of the checkout: `resources/testharness.js`, `webmcp/`, and `common/` for the
// pages those tests load (`common/blank.html`). The rest of WPT's server is stood in for here:
// the checkout is served on two loopback origins (`http://127.0.0.1:PORT`, the tests' own, and
// `http://localhost:PORT`, their "remote" one: both secure contexts, so the `.https.` tests run
// over plain HTTP); `resources/testharnessreport.js`, the part of the harness each browser
// vendor writes, hands the results to this script; `common/get-host-info.sub.js` names those two
// origins (and an unused third, not same-site); other `.sub.` substitutions are not made.
// Needs dist/ (make build), node_modules (make deps) and Debian's Chromium.

import fs from 'node:fs';
import path from 'node:path';
import { DIST_DIR } from './lib/project.mjs';
import { startStaticServer } from './lib/static-server.mjs';
import { launchChromium } from '../tests/page/lib/chromium.mjs';
import { launchWebKit, webkitMissing } from '../tests/page/lib/webkit.mjs';
import { launchFirefox, firefoxMissing } from '../tests/page/lib/firefox.mjs';

const STATUS = ['PASS', 'FAIL', 'TIMEOUT', 'NOTRUN', 'PRECONDITION_FAILED'];
const HARNESS_STATUS = ['OK', 'ERROR', 'TIMEOUT', 'PRECONDITION_FAILED'];
/** How long one test file may take, beyond its own harness timeout ("long": 60 s). */
const FILE_LIMIT_MS = 90_000;

/** The vendor part of testharness.js: the results, where this script reads them. */
const REPORTER = `add_completion_callback((tests, status) => {
  window.__wptResults = {
    harness: status.status,
    message: status.message,
    tests: tests.map((t) => ({ name: t.name, status: t.status, message: t.message })),
  };
});`;

function hostInfo(server) {
  const main = new URL(server.origin);
  const remote = new URL(server.altOrigin);
  return `function get_host_info() {
  return {
    HTTP_ORIGIN: ${JSON.stringify(server.origin)}, HTTPS_ORIGIN: ${JSON.stringify(server.origin)},
    HTTP_REMOTE_ORIGIN: ${JSON.stringify(server.altOrigin)}, HTTPS_REMOTE_ORIGIN: ${JSON.stringify(server.altOrigin)},
    HTTP_NOTSAMESITE_ORIGIN: ${JSON.stringify(server.altOrigin)}, HTTPS_NOTSAMESITE_ORIGIN: ${JSON.stringify(server.altOrigin)},
    OTHER_NOTSAMESITE_ORIGIN: 'http://127.0.0.3:9', HTTPS_OTHER_NOTSAMESITE_ORIGIN: 'http://127.0.0.3:9',
    ORIGINAL_HOST: ${JSON.stringify(main.hostname)}, REMOTE_HOST: ${JSON.stringify(remote.hostname)},
    HTTP_PORT: ${JSON.stringify(main.port)}, HTTPS_PORT: ${JSON.stringify(main.port)},
  };
}`;
}

/** Every file under `dir` (relative to `root`) whose name ends with `ext`, sorted; none when
 * there is no such directory. */
function filesUnder(root, dir, ext) {
  const out = [];
  if (!fs.existsSync(path.join(root, dir))) return out;
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = path.posix.join(rel, e.name);
      if (e.isDirectory()) walk(r);
      else if (e.name.endsWith(ext)) out.push(r);
    }
  };
  walk(dir);
  return out.sort();
}

/** Routes every page of the checkout's `webmcp/` and `common/`, with `prefix` at its start. */
function routePages(server, root, prefix) {
  for (const rel of [...filesUnder(root, 'webmcp', '.html'), ...filesUnder(root, 'common', '.html')]) {
    const text = fs.readFileSync(path.join(root, rel), 'utf8');
    // After the doctype, when there is one (a script before it would put the page in quirks mode).
    const body = text.replace(/^(\s*<!doctype[^>]*>)?/i, (doctype) => `${doctype}${prefix}`);
    server.route(`/${rel}`, { body, type: 'text/html; charset=utf-8' });
  }
}

/**
 * The browsers, in column order: `open()` starts one and gives `{ version, page(), close() }`,
 * a page having `goto(url)`, `evaluate(fn)` and `close()` (Playwright's, puppeteer's and
 * lib/webkit.mjs's pages all do); `missing()` says why one cannot run here.
 */
const BROWSERS = [
  { name: 'polyfill', polyfill: true, open: () => playwrightBrowser(false) },
  {
    name: 'Firefox',
    polyfill: true,
    missing: firefoxMissing,
    open: () => launchFirefox(),
  },
  {
    name: 'WebKit',
    polyfill: true,
    missing: webkitMissing,
    async open() {
      const w = await launchWebKit();
      return { version: `WebKitGTK ${w.version}`, page: () => w.page(), close: () => w.close() };
    },
  },
  { name: 'native', polyfill: false, open: () => playwrightBrowser(true) },
];

async function playwrightBrowser(nativeWebMCP) {
  const b = await launchChromium({ nativeWebMCP });
  return { version: `Chromium ${b.version()}`, page: () => b.newPage(), close: () => b.close() };
}

/** Runs `files` in a fresh page each; returns { file → results | { error } }. */
async function runFiles(browser, server, files) {
  const out = {};
  for (const file of files) {
    const page = await browser.page();
    try {
      await page.goto(server.url(`/${file}`));
      const limit = Date.now() + FILE_LIMIT_MS;
      let results;
      while (!(results = await page.evaluate(() => window.__wptResults ?? null))) {
        if (Date.now() > limit) throw new Error(`no results after ${FILE_LIMIT_MS / 1000} s`);
        await new Promise((r) => setTimeout(r, 200));
      }
      out[file] = results;
    } catch (e) {
      out[file] = { error: String(e.message).split('\n')[0] };
    } finally {
      await page.close();
    }
  }
  return out;
}

async function main() {
  const [dir, ...only] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: node scripts/wpt.mjs <wpt-checkout> [test files relative to it …]');
    process.exit(2);
  }
  const root = path.resolve(dir);
  for (const need of ['resources/testharness.js', 'webmcp']) {
    if (!fs.existsSync(path.join(root, need))) {
      console.error(`${root}: no ${need} (a web-platform-tests checkout is needed)`);
      process.exit(2);
    }
  }
  const files = only.length ? only : filesUnder(root, 'webmcp', '.html').filter((f) => !f.includes('/resources/'));
  const server = await startStaticServer({ root });
  server.route('/resources/testharnessreport.js', { body: REPORTER });
  server.route('/common/get-host-info.sub.js', { body: hostInfo(server) });
  for (const f of fs.readdirSync(DIST_DIR)) {
    server.route(`/__polyfill__/${f}`, { body: fs.readFileSync(path.join(DIST_DIR, f)) });
  }

  const results = {};
  const versions = [];
  const columns = [];
  for (const b of BROWSERS) {
    const missing = b.missing?.();
    if (missing) {
      console.error(`${b.name}: not run, missing ${missing}`);
      continue;
    }
    routePages(server, root, b.polyfill ? '<script src="/__polyfill__/modelcontext.iife.js"></script>' : '');
    const browser = await b.open();
    versions.push(`${b.name}: ${browser.version}`);
    try {
      results[b.name] = await runFiles(browser, server, files);
      columns.push(b.name);
    } finally {
      await browser.close();
    }
  }
  await server.close();

  const totals = Object.fromEntries(columns.map((c) => [c, 0]));
  let subtests = 0;
  console.log(`web-platform-tests ${root}: ${files.length} files (${versions.join('; ')})\n`);
  console.log(`${columns.map((c) => c.padEnd(10)).join('')}subtest`);
  for (const file of files) {
    const notes = columns
      .map((c) => [c, results[c][file]])
      .filter(([, r]) => r.error || r.harness)
      .map(([c, r]) => `  ${c}: ${r.error ?? `harness ${HARNESS_STATUS[r.harness]}${r.message ? `: ${r.message}` : ''}`}`);
    console.log(`${file}${notes.join('')}`);
    const names = [...new Set(columns.flatMap((c) => results[c][file].tests ?? []).map((t) => t.name))];
    for (const name of names) {
      subtests++;
      const got = columns.map((c) => [c, results[c][file].tests?.find((t) => t.name === name)]);
      for (const [c, t] of got) if (t?.status === 0) totals[c]++;
      console.log(`  ${got.map(([, t]) => (t ? STATUS[t.status] : '-').padEnd(10)).join('')}${name}`);
      for (const [c, t] of got) {
        if (t && t.status !== 0 && t.message) console.log(`      ${c}: ${t.message.split('\n')[0].slice(0, 200)}`);
      }
    }
  }
  console.log(`\npassed of ${subtests}: ${columns.map((c) => `${c === 'polyfill' ? 'polyfill (Chromium)' : c === 'native' ? 'native Chromium' : `polyfill (${c})`} ${totals[c]}`).join(', ')}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

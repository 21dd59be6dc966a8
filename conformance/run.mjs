#!/usr/bin/env node
// Runs the conformance page (conformance/index.html) headless and prints each case.
//
//   node conformance/run.mjs                    this polyfill (dist/modelcontext.js); exit 1 on a failure
//   node conformance/run.mjs --impl classic     this polyfill's classic-script build
//   node conformance/run.mjs --impl native      Chromium's own WebMCP (--enable-features=WebMCP)
//   node conformance/run.mjs --impl mcp-b       @mcp-b/global (node_modules/@mcp-b/global/dist/index.iife.js)
//   node conformance/run.mjs --impl url:<path>  any implementation served from the repository
//   node conformance/run.mjs --compare          polyfill, native and @mcp-b/global side by side
//   options: --only <substring> (case ids), --json (machine-readable results)
//
// Needs dist/ (make build), npm playwright-core and Debian's Chromium (make deps).

import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../scripts/lib/project.mjs';
import { startStaticServer } from '../scripts/lib/static-server.mjs';
import { launchChromium } from '../tests/page/lib/chromium.mjs';

export const MCP_B_GLOBAL = '/node_modules/@mcp-b/global/dist/index.iife.js';

/** The implementations --compare runs, in column order. */
export const IMPLEMENTATIONS = {
  polyfill: { label: 'polyfill', query: 'impl=polyfill', native: false, ours: true },
  classic: { label: 'polyfill (classic)', query: 'impl=classic', native: false, ours: true },
  native: { label: 'native Chromium', query: 'impl=native', native: true, ours: false },
  'mcp-b': { label: '@mcp-b/global', query: `impl=url&src=${encodeURIComponent(MCP_B_GLOBAL)}`, native: false, ours: false },
};

function implementation(name) {
  if (IMPLEMENTATIONS[name]) return IMPLEMENTATIONS[name];
  if (name.startsWith('url:')) {
    const src = name.slice(4);
    return { label: src, query: `impl=url&src=${encodeURIComponent(src)}`, native: false, ours: false };
  }
  throw new Error(`unknown implementation ${JSON.stringify(name)}: use polyfill, classic, native, mcp-b or url:<path>`);
}

/**
 * Runs the page against one implementation and resolves to
 * `{ label, results: [{ id, group, title, pass, detail }], error }`.
 * `server` and `browsers` may be shared between runs (browsers: a Map of native flag → Browser).
 */
export async function runConformance(name, { server, browsers, only, timeoutMs = 120_000 } = {}) {
  const impl = implementation(name);
  const ownServer = !server;
  server ??= await startStaticServer({ root: REPO_ROOT, port: 0 });
  const ownBrowsers = !browsers;
  browsers ??= new Map();
  try {
    if (!browsers.has(impl.native)) browsers.set(impl.native, launchChromium({ nativeWebMCP: impl.native }));
    const browser = await browsers.get(impl.native);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const pageErrors = [];
      page.on('pageerror', (e) => pageErrors.push(e.message));
      const query = impl.query + (only ? `&only=${encodeURIComponent(only)}` : '');
      await page.goto(server.url(`/conformance/index.html?${query}`));
      await page.waitForFunction(() => window.__conformance && window.__conformance.done, null, { timeout: timeoutMs });
      const state = await page.evaluate(() => window.__conformance);
      return { name, label: impl.label, ours: impl.ours, results: state.results, error: state.error, pageErrors };
    } finally {
      await context.close().catch(() => {});
    }
  } finally {
    if (ownBrowsers) for (const b of browsers.values()) await (await b).close().catch(() => {});
    if (ownServer) await server.close();
  }
}

function tally(results) {
  const passed = results.filter((r) => r.pass).length;
  return { passed, failed: results.length - passed };
}

function printOne(run) {
  console.log(`conformance page — ${run.label}`);
  if (run.error) console.log(`  could not run: ${run.error}`);
  run.results.forEach((r, i) => {
    const n = String(i + 1).padStart(2);
    console.log(`${n} ${r.pass ? 'pass' : 'FAIL'}  [${r.group}] ${r.id}${r.pass ? '' : `\n         ${r.detail}`}`);
  });
  const { passed, failed } = tally(run.results);
  console.log(`${passed} passed, ${failed} failed`);
}

function printComparison(runs) {
  const ids = runs[0].results.map((r) => r.id);
  const width = Math.max(...ids.map((id) => id.length)) + 2;
  const colWidth = Math.max(...runs.map((r) => r.label.length), '99 passed, 99 failed'.length) + 2;
  const pad = (s, w) => s + ' '.repeat(Math.max(0, w - s.length));
  console.log(pad('case', width) + pad('group', 9) + runs.map((r) => pad(r.label, colWidth)).join(''));
  for (const id of ids) {
    const group = runs[0].results.find((r) => r.id === id).group;
    const cells = runs.map((run) => {
      const r = run.results.find((x) => x.id === id);
      return pad(r ? (r.pass ? 'pass' : 'FAIL') : '—', colWidth);
    });
    console.log(pad(id, width) + pad(group, 9) + cells.join(''));
  }
  const totals = runs.map((run) => {
    const { passed, failed } = tally(run.results);
    return pad(`${passed} passed, ${failed} failed`, colWidth);
  });
  console.log(pad('total', width + 9) + totals.join(''));
  for (const group of ['webmcp', 'project', 'session']) {
    const cells = runs.map((run) => {
      const rs = run.results.filter((r) => r.group === group);
      return pad(`${tally(rs).passed}/${rs.length}`, colWidth);
    });
    console.log(pad(`  ${group}`, width + 9) + cells.join(''));
  }
  for (const run of runs) {
    const failures = run.results.filter((r) => !r.pass);
    if (run.error) console.log(`\n${run.label}: could not run: ${run.error}`);
    if (!failures.length) continue;
    console.log(`\n${run.label} — failures:`);
    for (const f of failures) console.log(`  ${f.id}: ${f.detail}`);
  }
}

async function main(argv) {
  const args = argv.slice(2);
  const flag = (f) => args.includes(f);
  const value = (f) => {
    const i = args.indexOf(f);
    return i >= 0 ? args[i + 1] : undefined;
  };
  for (const f of ['modelcontext.js', 'modelcontext.iife.js']) {
    if (!fs.existsSync(path.join(REPO_ROOT, 'dist', f))) {
      console.error(`dist/${f} missing: run \`make build\` first`);
      return 2;
    }
  }
  const only = value('--only');
  const server = await startStaticServer({ root: REPO_ROOT, port: 0 });
  const browsers = new Map();
  try {
    if (flag('--compare')) {
      const runs = [];
      for (const name of ['polyfill', 'native', 'mcp-b']) runs.push(await runConformance(name, { server, browsers, only }));
      if (flag('--json')) console.log(JSON.stringify(runs, null, 2));
      else printComparison(runs);
      const ours = runs[0];
      return ours.error || tally(ours.results).failed ? 1 : 0;
    }
    const run = await runConformance(value('--impl') || 'polyfill', { server, browsers, only });
    if (flag('--json')) console.log(JSON.stringify(run, null, 2));
    else printOne(run);
    if (!run.ours) return 0;
    return run.error || !run.results.length || tally(run.results).failed ? 1 : 0;
  } finally {
    for (const b of browsers.values()) await (await b).close().catch(() => {});
    await server.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv).then(
    (code) => process.exit(code),
    (e) => {
      console.error(e);
      process.exit(2);
    },
  );
}

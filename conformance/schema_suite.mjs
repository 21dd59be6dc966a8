#!/usr/bin/env node
// The official JSON-Schema-Test-Suite through the polyfill's validator inside headless Chromium
// (the validator module's test build, target/validator-suite/: the module pages load with its
// run_schema_suite export kept; src/schema/module.rs), printed beside the
// crate's native counts on the same files (`cargo run --example schema_suite`). The two run the
// same pure runner (src/schema/suite.rs), so they must agree; a difference is a bug in the glue.
//
//   node conformance/schema_suite.mjs [--suite DIR] [--dialects draft2020-12,draft7] [--no-native]
//                                     [--validator-wasm PATH]  (serve PATH as dist/modelcontext_validator.wasm;
//                                      default: the test build scripts/build.mjs writes)
//
// DIR defaults to ../shared/spec/json-schema-test-suite beside the repository ($JSON_SCHEMA_TEST_SUITE
// overrides). Exit 1 when the browser's counts differ from the native ones. Needs dist/ (make build).

import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, VALIDATOR_SUITE_WASM } from '../scripts/lib/project.mjs';
import { startStaticServer } from '../scripts/lib/static-server.mjs';
import { launchChromium } from '../tests/page/lib/chromium.mjs';

export const DEFAULT_SUITE = process.env.JSON_SCHEMA_TEST_SUITE || path.resolve(REPO_ROOT, '../shared/spec/json-schema-test-suite');
export const DEFAULT_DIALECTS = ['draft2020-12', 'draft7'];

/** Every .json under `root` as [path relative to root with '/', parsed], sorted by path. */
function readTree(root) {
  const out = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.json')) out.push(p);
    }
  };
  walk(root);
  out.sort();
  return out.map((p) => [path.relative(root, p).split(path.sep).join('/'), JSON.parse(fs.readFileSync(p, 'utf8'))]);
}

/**
 * Serves the suite to conformance/schema-suite.html and returns what the page computed:
 * [{ dialect, required: {passed, failed, failures}, optional: {…}, ms }].
 * `server` (a static server rooted at the repository) is created when not given.
 */
export async function runInBrowser({ suite = DEFAULT_SUITE, dialects = DEFAULT_DIALECTS, server, browser, validatorWasm = VALIDATOR_SUITE_WASM } = {}) {
  if (!fs.existsSync(validatorWasm)) throw new Error(`${validatorWasm} missing: run \`make build\` first`);
  const ownServer = !server;
  server ??= await startStaticServer({ root: REPO_ROOT, port: 0 });
  const ownBrowser = !browser;
  browser ??= await launchChromium();
  const unroute = [];
  try {
    unroute.push(server.route('/dist/modelcontext_validator.wasm', { body: fs.readFileSync(validatorWasm), type: 'application/wasm' }));
    unroute.push(server.route('/__suite/remotes.json', { body: JSON.stringify(readTree(path.join(suite, 'remotes'))) }));
    for (const d of dialects) {
      unroute.push(server.route(`/__suite/tests/${d}.json`, { body: JSON.stringify(readTree(path.join(suite, 'tests', d))) }));
    }
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(server.url(`/conformance/schema-suite.html?dialects=${dialects.join(',')}`));
      await page.waitForFunction(() => window.__schemaSuite && window.__schemaSuite.done, null, { timeout: 300_000 });
      const state = await page.evaluate(() => window.__schemaSuite);
      if (state.error) throw new Error(`the page failed: ${state.error}`);
      return state.results.map((r) => ({ ...r, runner: state.runner }));
    } finally {
      await context.close();
    }
  } finally {
    unroute.forEach((u) => u());
    if (ownBrowser) await browser.close();
    if (ownServer) await server.close();
  }
}

/**
 * `cargo run --example schema_suite -- --verbose` → Map(label → {passed, failed, failures: [id]}),
 * labels like `draft7 optional`.
 */
export function runNative({ suite = DEFAULT_SUITE } = {}) {
  const r = spawnSync('cargo', ['run', '--quiet', '--example', 'schema_suite', '--', suite, '--verbose'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`cargo run --example schema_suite failed (${r.status}):\n${r.stderr}`);
  const counts = new Map();
  let current = null;
  for (const line of r.stdout.split('\n')) {
    const m = /^(\S+(?: optional)?): (\d+) passed, (\d+) failed$/.exec(line.trim());
    if (m) {
      current = { passed: Number(m[2]), failed: Number(m[3]), failures: [] };
      counts.set(m[1], current);
      continue;
    }
    const f = /^ {2}FAIL (.*)$/.exec(line);
    if (f && current) current.failures.push(f[1]);
  }
  return counts;
}

/** Browser and native counts side by side: [{ label, browser, native, agree }]. */
export function compare(browserResults, nativeCounts) {
  const rows = [];
  for (const r of browserResults) {
    for (const [label, c] of [[r.dialect, r.required], [`${r.dialect} optional`, r.optional]]) {
      const native = nativeCounts?.get(label) ?? null;
      const browserIds = c.failures.map((f) => f.id).sort();
      const sameFailures = !native || JSON.stringify(browserIds) === JSON.stringify([...native.failures].sort());
      const agree = !native || (native.passed === c.passed && native.failed === c.failed && sameFailures);
      rows.push({ label, browser: { passed: c.passed, failed: c.failed, failures: browserIds }, native, agree, ms: r.ms });
    }
  }
  return rows;
}

async function main(argv) {
  const args = argv.slice(2);
  const value = (f) => {
    const i = args.indexOf(f);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const suite = value('--suite') ?? DEFAULT_SUITE;
  const dialects = (value('--dialects') ?? DEFAULT_DIALECTS.join(',')).split(',');
  if (!fs.existsSync(path.join(REPO_ROOT, 'dist', 'modelcontext_glue_bg.wasm'))) {
    console.error('dist/ missing: run `make build` first');
    return 2;
  }
  const browser = await runInBrowser({ suite, dialects, validatorWasm: value('--validator-wasm') });
  const native = args.includes('--no-native') ? null : runNative({ suite });
  const rows = compare(browser, native);
  const fmt = (c) => (c ? `${c.passed} passed, ${c.failed} failed` : '—');
  const w = Math.max(...rows.map((r) => r.label.length)) + 2;
  console.log(`JSON-Schema-Test-Suite (${suite}); browser: Chromium, the ${browser[0]?.runner}`);
  console.log(`${'dialect'.padEnd(w)}${'browser (wasm, Chromium)'.padEnd(28)}native (cargo run --example schema_suite)`);
  for (const r of rows) console.log(`${r.label.padEnd(w)}${fmt(r.browser).padEnd(28)}${fmt(r.native)}${r.agree ? '' : '   ← DIFFERS'}`);
  const differ = rows.filter((r) => !r.agree);
  if (differ.length) {
    console.log(`\nthe browser and native results differ for ${differ.map((r) => r.label).join(', ')}: a bug in the wasm glue`);
    for (const r of differ) {
      const nat = new Set(r.native.failures);
      const bro = new Set(r.browser.failures);
      for (const id of bro) if (!nat.has(id)) console.log(`  fails only in the browser: ${id}`);
      for (const id of nat) if (!bro.has(id)) console.log(`  fails only natively: ${id}`);
    }
    return 1;
  }
  if (native) console.log('browser and native agree (counts and the failing tests, test by test)');
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv).then(
    (code) => process.exit(code),
    (e) => {
      console.error(e.stack || e.message);
      process.exit(2);
    },
  );
}

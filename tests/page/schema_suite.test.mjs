// The official JSON-Schema-Test-Suite (drafts 2020-12 and 7, with remotes) through the polyfill's
// validator in Chromium — the test build of the validator module, which is the shipped module's
// code with its run_schema_suite export kept — must give the crate's native results on the same
// files, test by test (conformance/schema_suite.mjs; native: cargo run --example schema_suite).
// Both run src/schema/suite.rs, so any difference is a bug in the wasm glue.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { getServer, getBrowser, requireDist } from './harness.mjs';
import { runInBrowser, runNative, compare, DEFAULT_SUITE, DEFAULT_DIALECTS } from '../../conformance/schema_suite.mjs';

requireDist('modelcontext_glue.js', 'modelcontext_glue_bg.wasm');

test('JSON-Schema-Test-Suite: the browser (wasm) gives the native results, test by test', { timeout: 600_000 }, async (t) => {
  if (!fs.existsSync(path.join(DEFAULT_SUITE, 'tests'))) {
    t.skip(`no suite at ${DEFAULT_SUITE}`);
    return;
  }
  const browserResults = await runInBrowser({ server: await getServer(), browser: await getBrowser() });
  assert.deepEqual(browserResults.map((r) => r.dialect), DEFAULT_DIALECTS);
  for (const r of browserResults) assert.ok(r.required.passed > 500, `${r.dialect}: only ${r.required.passed} required tests passed`);
  const rows = compare(browserResults, runNative());
  for (const r of rows) {
    t.diagnostic(`${r.label}: browser ${r.browser.passed} passed, ${r.browser.failed} failed; native ${r.native.passed} passed, ${r.native.failed} failed`);
  }
  const differ = rows.filter((r) => !r.agree).map((r) => r.label);
  assert.deepEqual(differ, [], 'the browser and native results differ (see conformance/schema_suite.mjs)');
});

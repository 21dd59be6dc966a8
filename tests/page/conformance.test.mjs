// The conformance page (conformance/index.html + cases.js) against this polyfill, both builds:
// every case must pass. `node conformance/run.mjs --compare` shows native Chromium and
// @mcp-b/global beside it (informational; their failures are theirs or documented differences).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, requireDist } from './harness.mjs';

requireDist();

for (const impl of ['polyfill', 'classic']) {
  test(`conformance page: every case passes against this polyfill (impl=${impl})`, () =>
    withPage(
      async ({ page }) => {
        await page.waitForFunction(() => window.__conformance && window.__conformance.done, null, { timeout: 60_000 });
        const state = await page.evaluate(() => window.__conformance);
        assert.equal(state.error, null, `the page could not run: ${state.error}`);
        assert.ok(state.results.length >= 40, `only ${state.results.length} cases ran`);
        const failures = state.results.filter((r) => !r.pass).map((r) => `${r.id}: ${r.detail}`);
        assert.deepEqual(failures, [], `failing cases:\n${failures.join('\n')}`);
      },
      { path: `/conformance/index.html?impl=${impl}`, timeout: 60_000 },
    ));
}

// The package in Firefox (Gecko): Debian's Firefox ESR (or $FIREFOX), driven by puppeteer-core
// over WebDriver BiDi, pages served by the same static server as the Chromium tests. What is
// checked there is lib/engines.mjs's (each build with every wasm module, the W3C and frame
// cases, the official client, a form tool, the CSP refusal); below, where Firefox's own
// behaviour makes a frame case's record differ.
//
// Firefox gives every document `originAgentCluster === false` (it origin-keys none), which the
// spec's origin-keyed step would refuse; the polyfill serves there (src/browser/store.rs).

import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engineTests } from './lib/engines.mjs';
import { launchFirefox, firefoxMissing } from './lib/firefox.mjs';

let firefox;

before(async () => {
  const missing = firefoxMissing();
  assert.ok(!missing, `missing: ${missing}`);
  firefox = await launchFirefox();
});

after(() => firefox?.close());

/** lib/engines.mjs's page(): a new Firefox page; its console errors and uncaught errors. */
const page = () => firefox.page();

engineTests(
  {
    name: 'Firefox',
    page,
    // Firefox reports a CSP violation as an error of the page (Chromium writes it to the console),
    // beside the polyfill's own console error, which names the fix.
    cspReport: /^(Content-Security-Policy: .*\(Missing 'wasm-unsafe-eval' or 'unsafe-eval'\)|modelcontext-polyfill: the core module cannot start: .*'wasm-unsafe-eval'.*)$/,
  },
  {
    frameDifferences: {
      // Firefox runs no promise job of a document that is not fully active, whichever realm
      // awaits the promise: a detached frame's promises (its own Promise.reject(…) too) never
      // settle there. (The top document's executeTool of that frame's tool does reject with
      // InvalidStateError.)
      "document: a detached frame's modelContext rejects with InvalidStateError": {
        skip: "Firefox settles no promise of a detached frame's realm, not even an already-rejected one",
      },
      // Firefox origin-keys no document (originAgentCluster is false in every page), so the
      // spec's origin-keyed step would refuse every call in it; the polyfill serves there.
      'document: a document that is not origin-keyed gets SecurityError': {
        why: 'served: Firefox origin-keys no document',
        record: { originAgentCluster: false, registerTool: 'ok', getTools: ['a'], executeTool: 'a ran in top', badInputFirst: 'TypeError' },
      },
      // The case reads the frame's policy with document.featurePolicy, which only Chromium has.
      'frames: allow="tools \'none\'" on a same-origin frame': {
        why: 'no document.featurePolicy in Firefox',
        record: { allows: 'none', registerTool: 'NotAllowedError', getTools: 'NotAllowedError', executeTool: 'NotAllowedError' },
      },
    },
  },
);

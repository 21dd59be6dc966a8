// The package in WebKit, Safari's engine: Debian's WebKitGTK MiniBrowser driven by its
// WebKitWebDriver (lib/webkit.mjs), pages served by the same static server as the Chromium
// tests. What is checked there is lib/engines.mjs's (each build with every wasm module, the W3C
// and frame cases, the official client, a form tool, the CSP refusal); below, where WebKit's own
// behaviour makes a frame case's record differ.

import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engineTests } from './lib/engines.mjs';
import { launchWebKit, webkitMissing } from './lib/webkit.mjs';

let webkit;

before(async () => {
  const missing = webkitMissing();
  assert.equal(missing, '', `missing: ${missing} (make deps installs webkit2gtk-driver, xvfb and xauth)`);
  webkit = await launchWebKit();
});

after(() => webkit?.close());

// WebDriver classic reports no console messages: a page given as `html` collects its errors
// itself (console.error, uncaught errors and rejections) from its first script on; another page
// reports none.
const COLLECT = `<script>window.__errors = [];
addEventListener('error', (e) => __errors.push(String(e.message)));
addEventListener('unhandledrejection', (e) => __errors.push('unhandled rejection: ' + String(e.reason && e.reason.message || e.reason)));
const __consoleError = console.error;
console.error = (...a) => { __errors.push(a.map(String).join(' ')); __consoleError.apply(console, a); };</script>`;

/** lib/engines.mjs's page(): a new WebKit window; the errors its page collected. */
async function page() {
  const p = await webkit.page();
  return { ...p, errors: () => p.evaluate(() => window.__errors || []) };
}

engineTests(
  { name: 'WebKit', page, htmlPrefix: COLLECT },
  {
    frameDifferences: {
      // WebKit has no originAgentCluster (WebDriver returns its undefined as null) and origin-keys
      // no document; the polyfill serves there, as in Firefox (src/browser/store.rs).
      'document: a document that is not origin-keyed gets SecurityError': {
        why: 'served: WebKit has no origin-keyed agent clusters',
        record: { originAgentCluster: null, registerTool: 'ok', getTools: ['a'], executeTool: 'a ran in top', badInputFirst: 'TypeError' },
      },
      // The case reads the frame's policy with document.featurePolicy, which only Chromium has.
      'frames: allow="tools \'none\'" on a same-origin frame': {
        why: 'no document.featurePolicy in WebKit',
        record: { allows: 'none', registerTool: 'NotAllowedError', getTools: 'NotAllowedError', executeTool: 'NotAllowedError' },
      },
    },
  },
);

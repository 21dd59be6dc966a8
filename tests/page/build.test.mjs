// The two dist builds load in a page and install before page code runs.
// The installer marks the global with globalThis[Symbol.for('modelcontext-polyfill')] =
// { version, format, modelContext, native } (polyfill/src/install.js).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, requireDist, CRATE_VERSION } from './harness.mjs';

const marker = () => {
  const m = globalThis[Symbol.for('modelcontext-polyfill')];
  return m && { version: m.version, format: m.format, same: m.modelContext === document.modelContext };
};

test('ESM build: import installs before the importing module body runs', () => {
  requireDist('modelcontext.js', 'modelcontext_glue.js', 'modelcontext_glue_bg.wasm');
  return withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    assert.deepEqual(await page.evaluate(() => window.seenInModuleBody),
      { marker: true, document: 'object', navigator: 'object' });
    assert.deepEqual(await page.evaluate(marker), { version: CRATE_VERSION, format: 'esm', same: true });
    assert.equal(await page.evaluate(() => 'wasm_bindgen' in globalThis), false);
  }, { path: '/tests/page/fixtures/esm.html' });
});

test('classic build: the next <script> sees the polyfill synchronously, no wasm_bindgen global', () => {
  requireDist('modelcontext.iife.js');
  return withPage(async ({ page }) => {
    assert.equal(await page.evaluate(() => window.seen), true);
    assert.deepEqual(await page.evaluate(marker), { version: CRATE_VERSION, format: 'classic', same: true });
    assert.equal(await page.evaluate(() => 'wasm_bindgen' in globalThis), false);
    assert.equal(await page.evaluate(() => typeof wasm_bindgen), 'undefined');
  }, { path: '/tests/page/fixtures/classic.html' });
});

test('classic build works on the second origin (http://localhost)', () => {
  requireDist('modelcontext.iife.js');
  return withPage(async ({ page, server }) => {
    assert.equal(new URL(page.url()).origin, server.altOrigin);
    assert.equal(await page.evaluate(() => window.isSecureContext), true);
    assert.equal(await page.evaluate(() => window.seen), true);
  }, { path: '/tests/page/fixtures/classic.html', alt: true });
});

test('the wasm itself reports the crate version (polyfillVersion())', () => {
  requireDist('modelcontext.js', 'modelcontext_glue.js');
  return withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    // The glue module instance is the one modelcontext.js initialized (same URL), so its exports
    // call into the live wasm instance.
    const v = await page.evaluate(async () => (await import('/dist/modelcontext_glue.js')).polyfillVersion());
    assert.equal(v, CRATE_VERSION);
  }, { path: '/tests/page/fixtures/esm.html' });
});

// The harness itself: both launch modes and both origins behave as the other tests assume.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, inlinePage, getBrowser, closeContext } from './harness.mjs';

test('without the flag Chromium has no WebMCP (the polyfill installs there)', () =>
  withPage(async ({ page }) => {
    assert.deepEqual(await page.evaluate(() => [typeof document.modelContext, typeof navigator.modelContext, typeof ModelContext]),
      ['undefined', 'undefined', 'undefined']);
  }, { html: '<title>plain</title>' }));

test('nativeWebMCP: true gives Chromium\'s own document.modelContext', () =>
  withPage(async ({ page }) => {
    assert.equal(await page.evaluate(() => document.modelContext instanceof ModelContext), true);
    assert.equal(await page.evaluate(() => typeof document.modelContext.registerTool), 'function');
  }, { html: '<title>native</title>', nativeWebMCP: true }));

test('the server is reachable on two origins, both secure contexts', () =>
  withPage(async ({ page, server, goto }) => {
    assert.notEqual(server.origin, server.altOrigin);
    const path = await inlinePage('<title>two origins</title>');
    for (const alt of [false, true]) {
      await goto(path, { alt });
      assert.equal(new URL(page.url()).origin, alt ? server.altOrigin : server.origin);
      assert.equal(await page.evaluate(() => window.isSecureContext), true);
    }
  }));

test('a context that does not close in time: its browser is closed, the next test gets a new one', async () => {
  const config = { args: ['--lang=en-GB'] }; // a launch configuration of this test's own
  const first = await getBrowser(config);
  const stuck = { close: () => new Promise(() => {}) };
  const t0 = performance.now();
  await closeContext(stuck, config, 300);
  assert.ok(performance.now() - t0 >= 290, 'it waited for the limit');
  assert.equal(first.isConnected(), false);
  const second = await getBrowser(config);
  assert.notEqual(second, first);
  assert.equal(second.isConnected(), true);
  // A context that closes in time changes nothing.
  const context = await second.newContext();
  await closeContext(context, config, 5000);
  assert.equal(await getBrowser(config), second);
});

// The harness itself: both launch modes and both origins behave as the other tests assume.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, inlinePage } from './harness.mjs';

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

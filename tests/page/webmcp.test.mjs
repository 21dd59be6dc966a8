// The W3C WebMCP API, exactly: every case in webmcp.cases.mjs runs twice — against the polyfill
// (Chromium without the WebMCP switch, classic build loaded) and against native Chromium
// (`--enable-features=WebMCP`, no polyfill). The polyfill must produce each case's expected
// record; native Chromium must produce the same record except for NATIVE_DIFFERENCES below, the
// exact list explained in tests/page/NATIVE_DIFFERENCES.md. A new difference fails the test, and
// so does a listed difference that went away.
//
//   node --test tests/page/webmcp.test.mjs
//   WEBMCP_DUMP=/tmp/dir node --test tests/page/webmcp.test.mjs   also writes every record to
//                                            /tmp/dir/{polyfill,native}.json

import { test } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { withPage, requireDist } from './harness.mjs';
import { CASES, HELPERS } from './webmcp.cases.mjs';

/**
 * Where native Chromium 156 differs from spec/WEBMCP.md + webmcp.idl, and so from the polyfill:
 * case name → { record key → what native Chromium gives there }. Native's record must equal the
 * case's expected record with exactly these keys replaced. Every entry is explained, with the
 * reason the polyfill does not copy it, in tests/page/NATIVE_DIFFERENCES.md (same numbering).
 */
export const NATIVE_DIFFERENCES = {
  // D1. Native events are trusted; a script (the polyfill) cannot make trusted events.
  'registerTool: resolves to undefined after toolchange': {
    event: ['Event', 'toolchange', false, false, true, true],
  },
  // D1 + D2. toolactivated and toolcancel: native fires them only at the ModelContext.
  'executeTool: execute, then toolactivated': {
    log: ['returned', 'execute', 'modelContext ToolActivatedEvent a', 'resolved'],
    event: ['toolactivated', false, false, true, true],
  },
  'executeTool: cancelling through options.signal': {
    log: ['abort() returned', 'promise settled', 'execute signal aborted', 'modelContext ToolCancelEvent slow'],
    event: ['toolcancel', false, false, true],
  },
  // D6 + D7. Result serialization: "" becomes "Operation succeeded"; unserializable → "undefined".
  'executeTool: result serialization': {
    emptyString: { result: 'Operation succeeded' },
    function: { result: 'undefined' },
    toJSONUndefined: { result: 'undefined' },
  },
  // D8. UnknownError drops the tool's own message.
  'executeTool: a throwing or rejecting execute → UnknownError': {
    asyncThrow: { name: 'UnknownError', ctor: 'DOMException', keepsMessage: false },
    rejectString: { name: 'UnknownError', ctor: 'DOMException', keepsMessage: false },
    syncThrow: { name: 'UnknownError', ctor: 'DOMException', keepsMessage: false },
  },
  // D9. No input validation against inputSchema (this project goes beyond the spec).
  'executeTool: input that violates the inputSchema → DataError': {
    wrongType: 'ran',
    missing: 'ran',
    belowMinimum: 'ran',
    ran: 4,
  },
};

const POLYFILL_HTML = `<script src="/dist/modelcontext.iife.js"></script>\n<script>${HELPERS}</script>`;
const NATIVE_HTML = `<script>${HELPERS}</script>`;

/** Runs every case, each in a fresh page, and returns { name → record | { thrown } }. */
async function runAll({ native }) {
  return withPage(async ({ page, goto }) => {
    const here = new URL(page.url()).pathname;
    const records = {};
    for (const c of CASES) {
      if (native && c.skipNative) continue;
      await goto(here);
      const ready = await page.evaluate(() => !!(window.__t && document.modelContext));
      assert.ok(ready, 'the page has document.modelContext and the helpers');
      try {
        records[c.name] = await page.evaluate(c.run);
      } catch (e) {
        records[c.name] = { thrown: String(e.message).split('\n')[0] };
      }
    }
    return records;
  }, { html: native ? NATIVE_HTML : POLYFILL_HTML, nativeWebMCP: native, timeout: 10_000 });
}

function dump(name, records) {
  const dir = process.env.WEBMCP_DUMP;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(records, null, 1));
}

let polyfillRecords;
let nativeRecords;

test('the W3C API cases against the polyfill', async (t) => {
  requireDist('modelcontext.iife.js');
  polyfillRecords = await runAll({ native: false });
  dump('polyfill', polyfillRecords);
  for (const c of CASES) {
    await t.test(c.name, () => assert.deepEqual(polyfillRecords[c.name], c.expect));
  }
});

test('the W3C API cases against native Chromium (--enable-features=WebMCP)', async (t) => {
  nativeRecords = await runAll({ native: true });
  dump('native', nativeRecords);
  for (const c of CASES) {
    await t.test(c.name, { skip: c.skipNative }, () => {
      const listed = NATIVE_DIFFERENCES[c.name] ?? {};
      assert.deepEqual(nativeRecords[c.name], { ...c.expect, ...listed },
        'native Chromium differs from the spec (and the polyfill) exactly as NATIVE_DIFFERENCES lists');
    });
  }
});

test('NATIVE_DIFFERENCES lists only real differences of existing cases', () => {
  const cases = new Map(CASES.map((c) => [c.name, c]));
  for (const [name, listed] of Object.entries(NATIVE_DIFFERENCES)) {
    const c = cases.get(name);
    assert.ok(c, `no case named ${name}`);
    for (const [k, v] of Object.entries(listed)) {
      assert.ok(k in c.expect, `${name}: the record has no key ${k}`);
      assert.notDeepEqual(v, c.expect[k], `${name}: ${k} is listed but equals the spec's value`);
    }
  }
});

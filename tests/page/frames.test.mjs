// WebMCP across documents (frames.cases.mjs), side by side: every case runs against the polyfill
// (Chromium without the WebMCP switch, classic build loaded in every frame) and against native
// Chromium (`--enable-features=WebMCP`, no polyfill). The polyfill must produce each case's
// expected record; native Chromium the same record except for FRAME_NATIVE_DIFFERENCES, which
// tests/page/NATIVE_DIFFERENCES.md explains. Cases marked `todo` are behaviour not built yet: they
// run and report, visibly, without failing the suite.
//
//   node --test tests/page/frames.test.mjs
//   FRAMES_DUMP=/tmp/dir node --test tests/page/frames.test.mjs   also writes every record

import { test } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { withPage, requireDist, getServer } from './harness.mjs';
import { CASES, HELPERS } from './frames.cases.mjs';

/** Case name → { record key → what native Chromium gives there } (NATIVE_DIFFERENCES.md). */
export const FRAME_NATIVE_DIFFERENCES = {
  // D10. Native Chromium 156 takes only an object: a JSON string is a TypeError.
  'executeTool: a JSON string input (Chromium ≤ 154) is parsed': {
    object: 'TypeError',
    emptyObject: 'TypeError',
    array: 'TypeError',
    seen: [],
  },
};

const PAGES = {
  polyfill: `<!doctype html><meta charset="utf-8"><script src="/dist/modelcontext.iife.js"></script><script>${HELPERS}</script><body>`,
  native: `<!doctype html><meta charset="utf-8"><script>${HELPERS}</script><body>`,
};

/** Serves the two pages (plain and `Origin-Agent-Cluster: ?0`) and returns their paths. */
async function routes(kind) {
  const server = await getServer();
  const plain = `/__frames/${kind}.html`;
  const oac0 = `/__frames/${kind}-oac0.html`;
  server.route(plain, { body: PAGES[kind] });
  server.route(oac0, { body: PAGES[kind], headers: { 'Origin-Agent-Cluster': '?0' } });
  return { plain, oac0 };
}

/** Runs every case in a fresh page and returns { name → record | { thrown } }. */
async function runAll(kind) {
  const paths = await routes(kind);
  const records = {};
  for (const c of CASES) {
    records[c.name] = await withPage(async ({ page, goto }) => {
      await goto(c.page === 'oac0' ? paths.oac0 : paths.plain);
      try {
        const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), 8000).unref());
        return await Promise.race([page.evaluate(c.run), timeout]);
      } catch (e) {
        return { thrown: String(e.message).split('\n')[0] };
      }
    }, { nativeWebMCP: kind === 'native', timeout: 10_000, allowPageErrors: true });
  }
  const dir = process.env.FRAMES_DUMP;
  if (dir) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${kind}.json`), JSON.stringify(records, null, 1));
  }
  return records;
}

test('the cases across documents against the polyfill', async (t) => {
  requireDist('modelcontext.iife.js');
  const records = await runAll('polyfill');
  for (const c of CASES) {
    await t.test(c.name, { todo: c.todo }, () => assert.deepEqual(records[c.name], c.expect));
  }
});

test('the cases across documents against native Chromium (--enable-features=WebMCP)', async (t) => {
  const records = await runAll('native');
  for (const c of CASES) {
    await t.test(c.name, () => {
      const listed = FRAME_NATIVE_DIFFERENCES[c.name] ?? {};
      assert.deepEqual(records[c.name], { ...c.expect, ...listed },
        'native Chromium differs from the spec (and the polyfill) exactly as FRAME_NATIVE_DIFFERENCES lists');
    });
  }
});

test('FRAME_NATIVE_DIFFERENCES lists only real differences of existing cases', () => {
  const cases = new Map(CASES.map((c) => [c.name, c]));
  for (const [name, listed] of Object.entries(FRAME_NATIVE_DIFFERENCES)) {
    const c = cases.get(name);
    assert.ok(c, `no case named ${name}`);
    for (const [k, v] of Object.entries(listed)) {
      assert.ok(k in c.expect, `${name}: the record has no key ${k}`);
      assert.notDeepEqual(v, c.expect[k], `${name}: ${k} is listed but equals the spec's value`);
    }
  }
});

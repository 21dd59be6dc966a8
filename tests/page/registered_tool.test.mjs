// polyfill/src/engine_helpers.js `__mcpRegisteredTool`: executeTool's `RegisteredTool`
// conversion (src/browser/webmcp/execute.rs, `which_tool`), as written and after the minifiers
// a page's bundler runs over the core script (webpack's terser, Next.js's swc, esbuild, Vite's
// oxc through rolldown): a minifier must not drop a conversion whose result is unused (the
// description's), since its side effects (a symbol's TypeError, an object's toString) are the
// call's. Run in a fresh V8 context, where a window is an object whose `window` and `self` are
// itself (the helper's test for another realm's Window). The page tests run the same cases
// through executeTool against dist/ and native Chromium (webmcp.cases.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { minify as terser } from 'terser';
import { transform as esbuild } from 'esbuild';
import { minifySync as oxc } from 'rolldown/experimental';
import swc from '@swc/core';
import { REPO_ROOT } from '../../scripts/lib/project.mjs';

const SOURCE = fs.readFileSync(path.join(REPO_ROOT, 'polyfill/src/engine_helpers.js'), 'utf8');

const BUILDS = {
  source: async (s) => s,
  terser: async (s) => (await terser(s, { compress: { passes: 2 }, mangle: true })).code,
  swc: async (s) => (await swc.minify(s, { compress: { passes: 2 }, mangle: true })).code,
  esbuild: async (s) => (await esbuild(s, { minify: true })).code,
  oxc: async (s) => oxc('engine_helpers.js', s, { compress: true, mangle: true }).code,
};

/** The helper of `build`'s output, in a context of its own, and that context's window. */
async function load(build) {
  const code = await BUILDS[build](SOURCE);
  const context = vm.createContext({});
  vm.runInContext(code, context);
  vm.runInContext('globalThis.win = {}; win.window = win; win.self = win; globalThis.log = [];', context);
  // read(expression, origin): the helper called in the context with this context's window.
  const read = (expr, origin = 'https://a.example') =>
    vm.runInContext(`__mcpRegisteredTool(${expr}, win, ${JSON.stringify(origin)})`, context);
  return { read, context };
}

// A tool whose every member read and conversion is logged, in the order it happens.
const LOGGED = `(() => {
  const t = {};
  const member = (k, v) => Object.defineProperty(t, k, { get() { log.push('get ' + k); return v; } });
  const text = (k, s) => ({ toString() { log.push('toString ' + k); return s; } });
  member('window', win);
  member('origin', text('origin', 'https://a.example'));
  member('name', text('name', 'echo'));
  member('description', text('description', 'Echoes'));
  return t;
})()`;

for (const build of Object.keys(BUILDS)) {
  test(`${build}: a tool of this document is its name; another's is [name, origin, window]`, async () => {
    const { read, context } = await load(build);
    assert.equal(read(`({ name: 'echo', description: 'd', origin: 'https://a.example', window: win })`), 'echo');
    const other = read(`({ name: 'echo', description: 'd', origin: 'https://b.example', window: win })`);
    assert.deepEqual([...other].slice(0, 2), ['echo', 'https://b.example']);
    assert.equal(other[2], context.win);
    const frame = vm.runInContext('globalThis.frame = {}; frame.window = frame; frame.self = frame;', context);
    const framed = read(`({ name: 'echo', description: 'd', origin: 'https://a.example', window: frame })`);
    assert.equal(framed[2], frame);
  });

  test(`${build}: members read and converted once each, in lexicographic order`, async () => {
    const { read, context } = await load(build);
    assert.equal(read(LOGGED), 'echo');
    assert.deepEqual([...context.log], [
      'get description', 'toString description',
      'get name', 'toString name',
      'get origin', 'toString origin',
      'get window',
    ]);
  });

  test(`${build}: the conversion's errors, and what is not read after one`, async () => {
    const { read, context } = await load(build);
    const typeError = (expr, message) =>
      assert.throws(() => read(expr), (e) => e.name === 'TypeError' && message.test(e.message));
    // A symbol description throws before the name is read.
    typeError(
      `({ description: Symbol('d'), get name() { log.push('name'); return 'echo'; }, origin: 'x', window: win })`,
      /Symbol/,
    );
    assert.deepEqual([...context.log], []);
    typeError(`({ description: 'd', name: Symbol('n'), origin: 'x', window: win })`, /Symbol/);
    typeError(`({ name: 'echo', origin: 'x', window: win })`, /'description' property from 'RegisteredTool': Required member is undefined/);
    typeError(`({ description: 'd', name: 'echo', origin: 'x' })`, /'window' property from 'RegisteredTool': Required member is undefined/);
    typeError(`({ description: 'd', name: 'echo', origin: 'x', window: {} })`, /not of type 'Window'/);
    typeError(`42`, /parameter 1 is not an object/);
    typeError(`undefined`, /'description' property from 'RegisteredTool': Required member is undefined/);
    typeError(`null`, /'description' property from 'RegisteredTool': Required member is undefined/);
    // A description whose toString throws: that exception, and the name is never read.
    context.log.length = 0;
    assert.throws(
      () => read(`({ description: { toString() { throw new RangeError('no text'); } }, get name() { log.push('name'); return 'n'; }, origin: 'x', window: win })`),
      (e) => e.name === 'RangeError' && e.message === 'no text',
    );
    assert.deepEqual([...context.log], []);
    // And the next tool converts as if nothing had happened.
    assert.equal(read(`({ name: 'echo', description: 'd', origin: 'https://a.example', window: win })`), 'echo');
  });
}

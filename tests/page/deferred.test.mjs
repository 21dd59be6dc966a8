// The core's deferred module (polyfill/src/deferred.js, scripts/lib/core-split.mjs): the file
// builds load the core wasm in two, a first module with what a page's start, its registrations
// and an agent's discovery run and a deferred one, requested when something needs it or an agent
// first sends a message (a page that no agent reaches and that needs nothing of it never loads
// it; a tool form that appears later asks for it). Those never
// wait for the deferred module; calls (an agent's tools/call, the page's executeTool) and the
// session API wait for it, an agent's requests refused with the reason when it cannot be had; the
// declarative forms start once it has arrived (a page with a <form toolname> holds its calls and
// ready until then), and so does the engine of a page whose tab session persists; frames read a
// document's tools once its module has arrived; a function of it needed otherwise before it has
// arrived reads it synchronously; when it cannot be had, the console says why and the first
// module's work goes on.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { withPage, requireDist, inlinePage, DIST_DIR, PAGE_UNTIL } from './harness.mjs';
import { benchPage } from '../../scripts/lib/bench-page.mjs';
import { readModule } from '../../scripts/lib/wasm-module.mjs';
import { PLACEHOLDER_NAMESPACE } from '../../scripts/lib/core-split.mjs';
import { callsThroughTable } from '../../scripts/lib/table-calls.mjs';
import { placeholdersInModule, PLACEHOLDER_LOADER } from '../../scripts/lib/placeholders.mjs';
import { withDeferredCopies } from '../../scripts/lib/deferred-copies.mjs';
import { exportsReadBy } from '../../scripts/lib/glue-names.mjs';
import { wat } from './lib/wat.mjs';
import { CALLS_COPY_MAX_BYTES, CALLS_NAMESPACE, cutCalls } from '../../scripts/lib/calls-cut.mjs';
import { REPO_ROOT } from '../../scripts/lib/project.mjs';

requireDist('modelcontext.js', 'modelcontext_core.js', 'modelcontext.iife.js', 'modelcontext_deferred.wasm', 'modelcontext_calls.wasm');

const DEFERRED = 'modelcontext_deferred.wasm';
// The deferred module's call module (scripts/lib/calls-cut.mjs), requested before it.
const CALLS_WASM = 'modelcontext_calls.wasm';
// The page waits of the harness (`__until`), and `__addForm(name)`: a <form toolname> added to
// the document (the declarative API's work is in the deferred module).
const HELPERS = `<script>${PAGE_UNTIL}
window.__addForm = (name) => {
  const f = document.createElement('form');
  f.setAttribute('toolname', name);
  f.setAttribute('tooldescription', 'A form');
  f.innerHTML = '<input name="q">';
  document.body.append(f);
};</script>`;
const BUILDS = {
  classic: `${HELPERS}<script src="/dist/modelcontext.iife.js"></script>`,
  ESM: `${HELPERS}<script type="module">import '/dist/modelcontext.js';</script>`,
};
const READY = () => globalThis[Symbol.for('modelcontext-polyfill')].ready;
// The core's first part is there (the engine exists, its transport classes with it): `ready`
// waits for the deferred part too.
const STARTED = () =>
  __until(() => Object.keys(globalThis[Symbol.for('modelcontext-polyfill')]?.transports ?? {}).length > 0, 'the engine', 10_000);

// What the first module serves alone (the kept phases of `make split-list`): the page's
// registrations (fifty tools, a throwing tool, a schema the validator module checks, an aborted
// one, one of its own schema, unregisterTool), an agent's connection and listings, isConnected()
// and modelContextTesting.listTools().
const FIRST = async () => {
  const mc = document.modelContext;
  const schema = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] };
  for (let i = 0; i < 50; i++) await mc.registerTool({ name: `t${i}`, description: `T${i}`, inputSchema: schema, execute: ({ a }) => String(a) });
  await mc.registerTool({ name: 'thrower', description: 'Throws', execute: () => { throw new Error('boom'); } });
  window.client = new Bench.Client({ name: 'everyday', version: '1.0.0' });
  await client.connect(new Bench.TabClientTransport({ targetOrigin: location.origin }));
  const listed = (await client.listTools()).tools.length;
  // A pattern only the validator module checks (a Unicode property), and one the core checks.
  const word = { type: 'object', properties: { w: { type: 'string', pattern: '^\\p{Ll}+$' } }, required: ['w'] };
  await mc.registerTool({ name: 'word', description: 'W', inputSchema: word, execute: ({ w }) => w });
  const code = { type: 'object', properties: { c: { type: 'string', pattern: '^[A-Z]{2}-\\d{3}$' } }, required: ['c'] };
  await mc.registerTool({ name: 'code', description: 'C', inputSchema: code, execute: ({ c }) => c });
  const serving = mc.isConnected() && navigator.modelContextTesting.listTools().length === 53;
  const aborted = new AbortController();
  await mc.registerTool({ name: 'scoped', description: 'S', execute: () => 's' }, { signal: aborted.signal });
  aborted.abort();
  mc.unregisterTool('t0');
  // A tool of its own schema (keywords the core checks itself, a description JSON escapes),
  // listed, then unregistered (the schema dropped with it).
  const own = {
    type: 'object',
    properties: {
      day: { enum: ['mon', 'tue'] },
      tags: { type: 'array', items: { type: 'string', maxLength: 10 }, maxItems: 3 },
      at: { type: 'object', properties: { h: { type: 'integer', minimum: 0, maximum: 23 } }, required: ['h'] },
      note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    },
    required: ['day'],
  };
  await mc.registerTool({ name: 'own', description: 'Books a "day" — or not\n', inputSchema: own, execute: () => 'o' });
  const ownListed = (await client.listTools()).tools.some((t) => t.name === 'own' && t.description.startsWith('Books a "day"'));
  mc.unregisterTool('own');
  const after = (await client.listTools()).tools.length;
  return { listed, serving, ownListed, after };
};
const FIRST_RESULT = { listed: 51, serving: true, ownListed: true, after: 52 };

// The calls, which wait for the deferred module: an agent's (valid, invalid, throwing, unknown,
// at once and one by one, a pattern the validator module checks and one the core checks) and the page's
// (modelContextTesting.executeTool, getTools, executeTool). After FIRST.
const CALLS = async () => {
  const mc = document.modelContext;
  const one = await client.callTool({ name: 't1', arguments: { a: 1 } });
  const many = await Promise.all(Array.from({ length: 20 }, (_, i) => client.callTool({ name: `t${i + 1}`, arguments: { a: i } })));
  const invalid = await client.callTool({ name: 't1', arguments: { a: 'x' } });
  const thrown = await client.callTool({ name: 'thrower', arguments: {} });
  const unknown = await client.callTool({ name: 'nope', arguments: {} }).then((r) => r.isError, () => true);
  const words = [await client.callTool({ name: 'word', arguments: { w: 'ok' } }), await client.callTool({ name: 'word', arguments: { w: 'No!' } })];
  const codes = [await client.callTool({ name: 'code', arguments: { c: 'AB-123' } }), await client.callTool({ name: 'code', arguments: { c: 'ab-123' } })];
  const pattern = [words[0].content[0].text, words[1].isError, codes[0].content[0].text, codes[1].isError];
  const testing = await navigator.modelContextTesting.executeTool('t3', '{"a":3}');
  const [t2] = (await mc.getTools()).filter((t) => t.name === 't2');
  const executed = await mc.executeTool(t2, { a: 7 });
  return {
    one: one.content[0].text, many: many.every((r, i) => r.content[0].text === String(i)),
    invalid: invalid.isError, thrown: thrown.isError, unknown, pattern, testing, executed,
  };
};
const CALLS_RESULT = { one: '1', many: true, invalid: true, thrown: true, unknown: true, pattern: ['ok', true, 'AB-123', true], testing: '3', executed: '7' };

/** An agent's `initialize` params in `version`. */
const initializeIn = (version) => ({ protocolVersion: version, capabilities: {}, clientInfo: { name: 'agent', version: '1' } });

/** A page with the bench page's client (the official client over MCP-B's TabClientTransport). */
function clientPage(tag) {
  return inlinePage(`${benchPage({ title: 'deferred' })}\n${tag}`);
}

/**
 * Counts the requests for the deferred module by kind (fetch, xhr); `answer(route, n)` answers the
 * n-th. `asked.calls` counts the call module's the same way; `answerCalls(route)` answers them.
 */
async function watchDeferred(context, answer = (route) => route.continue(), answerCalls = (route) => route.continue()) {
  const asked = [];
  Object.defineProperty(asked, 'calls', { value: [] });
  await context.route(`**/${CALLS_WASM}`, (route) => {
    asked.calls.push(route.request().resourceType());
    return answerCalls(route);
  });
  await context.route(`**/${DEFERRED}`, (route) => {
    asked.push(route.request().resourceType());
    return answer(route, asked.length);
  });
  return asked;
}

/**
 * Holds the requests for the deferred module until `release()`: all of them, or with `firstOnly`
 * the first (the fetch something asked for), the others answered at once. `asked` counts them by kind
 * (watchDeferred); `askedFor()` waits until the first has been made.
 */
async function holdDeferred(context, { firstOnly = false } = {}) {
  let release;
  const held = new Promise((r) => (release = r));
  const asked = await watchDeferred(context, async (route, n) => {
    if (!firstOnly || n === 1) await held;
    return route.continue().catch(() => {});
  });
  const askedFor = async () => {
    const deadline = Date.now() + 10_000;
    while (asked.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  };
  return { asked, release, askedFor };
}

/**
 * The client page of the build `tag` opened on withPage's `p`, with the deferred module's
 * requests held (holdDeferred, with its `options`), once its core has started and FIRST has run:
 * holdDeferred's members.
 */
async function afterFirst({ page, context, goto }, tag, options) {
  const held = await holdDeferred(context, options);
  await goto(await clientPage(tag));
  await page.waitForFunction(() => window.Bench && document.modelContext);
  await page.evaluate(STARTED);
  assert.deepEqual(await page.evaluate(FIRST), FIRST_RESULT);
  return held;
}

/**
 * Runs `body` on the page at `url` (a promise of it, as inlinePage gives) once its core has
 * started, with the deferred module's first request held (holdDeferred, `firstOnly`: a second,
 * synchronous one is answered) until `body` is done; `body` gets withPage's members and
 * holdDeferred's (`asked`, `release`).
 */
function whileDeferredHeld(url, body) {
  return withPage(async (p) => {
    const held = await holdDeferred(p.context, { firstOnly: true });
    try {
      await p.goto(await url);
      await p.page.evaluate(STARTED);
      return await body({ ...p, ...held });
    } finally {
      held.release();
    }
  });
}

/**
 * Counts the requests for the deferred module by document (`top`, `frame`) and kind (fetch,
 * xhr); `answer(route, where)` answers each.
 */
async function watchByDocument(context, answer = (route) => route.continue()) {
  const asked = { top: [], frame: [] };
  await context.route(`**/${DEFERRED}`, (route) => {
    const where = route.request().frame().parentFrame() ? 'frame' : 'top';
    asked[where].push(route.request().resourceType());
    return answer(route, where);
  });
  return asked;
}

/**
 * Holds the requests of the `which` documents (`top`, `frame`) for the deferred module until
 * `release()`; the others' are answered. `asked`: watchByDocument's.
 */
async function holdDocument(context, which) {
  let release;
  const held = new Promise((r) => (release = r));
  const asked = await watchByDocument(context, async (route, where) => {
    if (where === which) await held;
    return route.continue().catch(() => {});
  });
  return { asked, release };
}

/**
 * Two pages on the other origin for frames of a page of this origin, with the build `tag`: each
 * registers a tool `exposed` (exposed to this origin) and records the outcome in
 * `window.outcome` ('registered' or the error's name). Their URLs: `{ allowed, denied }` (the
 * page gives the first allow="tools").
 */
async function twoFrames(server, tag) {
  const register = `<script type="module">
    document.modelContext.registerTool({ name: 'exposed', description: 'E', execute: () => 'ran in the frame' }, { exposedTo: ['${server.origin}'] })
      .then(() => (window.outcome = 'registered'), (e) => (window.outcome = e.name));
  </script>`;
  const url = async () => server.url(await inlinePage(`${tag}${register}`), { alt: true });
  return { allowed: await url(), denied: await url() };
}

/** The outcomes of the frames of `urls` (twoFrames), once both have one: `{ allowed, denied }`. */
async function framesOutcomes(page, urls) {
  const out = {};
  for (const which of ['allowed', 'denied']) {
    let frame;
    while (!(frame = page.frames().find((f) => f.url() === urls[which]))) await new Promise((r) => setTimeout(r, 20));
    await frame.waitForFunction(() => window.outcome, null, { timeout: 10_000 });
    out[which] = await frame.evaluate(() => window.outcome);
  }
  return out;
}

test('the file builds ship the core in two: of the placeholders\' namespace the first module imports their loader alone; the deferred module imports only from it and from its call module, which imports only from the first', () => {
  const first = new WebAssembly.Module(fs.readFileSync(path.join(DIST_DIR, 'modelcontext_glue_bg.wasm')));
  const deferredBytes = fs.readFileSync(path.join(DIST_DIR, DEFERRED));
  const calls = new WebAssembly.Module(fs.readFileSync(path.join(DIST_DIR, CALLS_WASM)));
  // The call module's functions the rest calls are imports of it, not copies (scripts/lib/calls-cut.mjs):
  // each is an export of the call module, of the same kind.
  const fromCalls = WebAssembly.Module.imports(new WebAssembly.Module(deferredBytes)).filter((i) => i.module === CALLS_NAMESPACE);
  assert.ok(fromCalls.length > 100, `${fromCalls.length} functions imported from the call module`);
  const callExports = new Map(WebAssembly.Module.exports(calls).map((e) => [e.name, e.kind]));
  assert.deepEqual(fromCalls.filter((i) => callExports.get(i.name) !== i.kind), []);
  assert.equal(callExports.size, fromCalls.length, 'the call module exports what the rest imports, nothing else');
  assert.deepEqual([...new Set(WebAssembly.Module.imports(calls).map((i) => i.module))], ['primary']);
  const deferred = new WebAssembly.Module(deferredBytes);
  const fromFirst = WebAssembly.Module.imports(deferred).filter((i) => i.module !== CALLS_NAMESPACE);
  // The placeholders are functions of the first module (scripts/lib/placeholders.mjs), the
  // only import of their namespace the loader.
  const loader = WebAssembly.Module.imports(first).filter((i) => i.module === PLACEHOLDER_NAMESPACE);
  assert.deepEqual(loader, [{ module: PLACEHOLDER_NAMESPACE, name: PLACEHOLDER_LOADER, kind: 'function' }]);
  const defined = readModule(deferredBytes).bodies.length;
  assert.ok(defined > 100, `${defined} functions in the deferred module`);
  assert.deepEqual([...new Set(fromFirst.map((i) => i.module))], ['primary']);
  // Each of them is an export of the first module, of the same kind (the build renames both).
  const exported = new Map(WebAssembly.Module.exports(first).map((e) => [e.name, e.kind]));
  const unmatched = fromFirst.filter((i) => exported.get(i.name) !== i.kind);
  assert.deepEqual(unmatched, []);
  assert.ok([...exported.values()].includes('table'), 'the first module exports its function table');
  // The first module's functions the deferred module calls are in its table, not exports: the
  // functions it imports are those the glue reads too (scripts/lib/table-calls.mjs).
  const glue = fs.readFileSync(path.join(DIST_DIR, 'modelcontext_glue.js'), 'utf8');
  const read = new Set(exportsReadBy(glue));
  const functions = fromFirst.filter((i) => i.kind === 'function');
  assert.deepEqual(functions.filter((i) => !read.has(i.name)).map((i) => i.name), []);
  assert.ok(functions.length < 10, `${functions.length} functions imported from the first module`);
});

// What the build does to wasm-split's two parts, on two small modules: the deferred one calls
// functions of the first with i32, i64 and f64 arguments, two results, and one the glue reads.
test('callsThroughTable: the deferred module calls the first module\'s functions through its table, with their arguments and results; an export the glue reads stays one', async () => {
  const first = await wat(`(module
    (table $t (export "table") 1 1 funcref)
    (elem (i32.const 0) $kept)
    (func $add (export "add") (param i32 i64) (result i64) (i64.add (i64.extend_i32_u (local.get 0)) (local.get 1)))
    (func $pair (export "pair") (param f64) (result f64 i32) (f64.mul (local.get 0) (f64.const 2)) (i32.const 7))
    (func $kept (export "kept") (result i32) (i32.const 42)))`);
  const deferred = await wat(`(module
    (import "primary" "table" (table 1 1 funcref))
    (import "primary" "add" (func $add (param i32 i64) (result i64)))
    (import "primary" "pair" (func $pair (param f64) (result f64 i32)))
    (import "primary" "kept" (func $kept (result i32)))
    (func (export "sum") (result i64) (i64.add (call $add (i32.const 2) (i64.const 40)) (i64.extend_i32_u (call $kept))))
    (func (export "pair") (result f64 i32) (call $pair (f64.const 1.25))))`);
  const out = await callsThroughTable(first, deferred, new Set(['kept']));
  assert.equal(out.moved, 2);
  const one = new WebAssembly.Instance(new WebAssembly.Module(out.first));
  assert.deepEqual(Object.keys(one.exports).sort(), ['kept', 'table']);
  assert.equal(one.exports.table.length, 3);
  const twoModule = new WebAssembly.Module(out.deferred);
  assert.deepEqual(WebAssembly.Module.imports(twoModule).map((i) => `${i.module}.${i.name}`).sort(), ['primary.kept', 'primary.table']);
  const two = new WebAssembly.Instance(twoModule, { primary: one.exports });
  assert.equal(two.exports.sum(), 84n);
  assert.deepEqual(two.exports.pair(), [2.5, 7]);
  // Nothing to move: the modules come back as they were.
  const none = await callsThroughTable(first, deferred, new Set(['add', 'pair', 'kept']));
  assert.equal(none.moved, 0);
  assert.equal(Buffer.compare(Buffer.from(none.first), Buffer.from(first)), 0);
});

// The build's cut of the call module (scripts/lib/calls-cut.mjs), on a small deferred module:
// three slots, the first asked for; `$big` is called by it and by the second slot's function,
// `$tiny` (under CALLS_COPY_MAX_BYTES, `$big` over it) by both too. The rest imports `$big` from the call module
// and keeps its own `$tiny`; it writes neither the call module's slot nor any function twice.
test('cutCalls: the call module has the slots asked for and what they call; the rest imports from it what it calls of that, writes the other slots, and each computes what the deferred module did', async () => {
  const deferred = await wat(`(module
    (import "primary" "table" (table 4 4 funcref))
    (elem (i32.const 1) $one $two $three)
    (func $big (param i32) (result i32) (local i32)
      (local.set 1 (i32.mul (local.get 0) (i32.const 1000003)))
      ${'(local.set 1 (i32.xor (i32.mul (local.get 1) (i32.const 2246822519)) (i32.shr_u (local.get 1) (i32.const 15))))\n'.repeat(Math.ceil(CALLS_COPY_MAX_BYTES / 10))}
      (i32.xor (i32.rotl (local.get 1) (i32.const 13)) (i32.shr_u (local.get 1) (i32.const 16))))
    (func $tiny (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
    (func $one (param i32) (result i32) (i32.add (call $big (local.get 0)) (call $tiny (local.get 0))))
    (func $two (param i32) (result i32) (i32.mul (call $big (local.get 0)) (call $tiny (local.get 0))))
    (func $three (param i32) (result i32) (i32.sub (local.get 0) (i32.const 3))))`);
  const sizes = readModule(deferred).bodies;
  assert.ok(sizes[0] > CALLS_COPY_MAX_BYTES && sizes[1] <= CALLS_COPY_MAX_BYTES, `code sizes ${sizes}`);
  const wasmOpt = path.join(REPO_ROOT, 'node_modules', '.bin', 'wasm-opt');
  const cut = await cutCalls(deferred, new Set([1]), wasmOpt, []);
  assert.deepEqual([cut.entries, cut.shared], [1, 1]);
  const callsModule = new WebAssembly.Module(cut.calls);
  const restModule = new WebAssembly.Module(cut.rest);
  assert.deepEqual(WebAssembly.Module.imports(restModule).filter((i) => i.module === CALLS_NAMESPACE).map((i) => i.kind), ['function']);
  assert.deepEqual(WebAssembly.Module.exports(callsModule).map((e) => e.kind), ['function']);
  // What the deferred module computes, slot by slot.
  const table = () => new WebAssembly.Table({ initial: 4, maximum: 4, element: 'anyfunc' });
  const whole = table();
  new WebAssembly.Instance(new WebAssembly.Module(deferred), { primary: { table: whole } });
  const split = table();
  const calls = new WebAssembly.Instance(callsModule, { primary: { table: split } });
  assert.deepEqual([0, 1, 2, 3].map((i) => split.get(i) !== null), [false, true, false, false], 'the call module writes its slot alone');
  const one = split.get(1);
  new WebAssembly.Instance(restModule, { primary: { table: split }, [CALLS_NAMESPACE]: calls.exports });
  assert.equal(split.get(1), one, 'the rest does not write the call module\'s slot again');
  for (const x of [0, 7, 123456, -5]) {
    for (const slot of [1, 2, 3]) assert.equal(split.get(slot)(x), whole.get(slot)(x), `slot ${slot} of ${x}`);
  }
});

// The build's copies for the deferred module (scripts/lib/deferred-copies.mjs), on a small
// module: of the functions the first module keeps, a leaf (14 bytes of code) and one calling it
// (9) are copied, one of 29 bytes is not; the function the first module does not keep calls the
// copy, the kept one the original, and the copy of the caller the copy of the leaf. The copies
// share the module's global with their originals.
test('withDeferredCopies: the moved functions call copies of the kept functions small enough, which call copies in turn; the kept ones call the originals; what each computes is unchanged', async () => {
  const whole = await wat(`(module
    (global $n (mut i32) (i32.const 0))
    (func $leaf (param i32) (result i32) (global.set $n (i32.add (global.get $n) (i32.const 1))) (i32.add (local.get 0) (i32.const 1)))
    (func $small (param i32) (result i32) (call $leaf (i32.mul (local.get 0) (i32.const 2))))
    (func $big (param i32) (result i32) (local i32)
      (local.set 1 (call $leaf (local.get 0)))
      (i32.add (i32.mul (local.get 1) (i32.const 1000003)) (i32.xor (i32.shl (local.get 1) (i32.const 7)) (i32.shr_u (local.get 1) (i32.const 3)))))
    (func (export "kept") (param i32) (result i32) (call $small (local.get 0)))
    (func (export "moved") (param i32) (result i32) (i32.add (call $small (local.get 0)) (call $big (local.get 0))))
    (func (export "count") (result i32) (global.get $n)))`);
  assert.deepEqual(readModule(whole).bodies.slice(0, 3), [14, 9, 29]);
  const out = await withDeferredCopies(whole, [0, 1, 2, 3, 5], 14);
  assert.deepEqual([out.copied, out.codeBytes], [2, 23]);
  assert.equal(readModule(out.bytes).bodies.length, 8);
  // Who calls whom: function i's direct calls, by index.
  const { default: binaryen } = await import('binaryen');
  const module = binaryen.readBinary(out.bytes);
  const text = module.emitText();
  module.dispose();
  const calls = new Map([...text.matchAll(/\(func \$(\d+) [^]*?(?=\n \(func |\n\)\n?$)/g)].map(([body, i]) => [Number(i), [...body.matchAll(/\(call \$(\d+)/g)].map((c) => Number(c[1]))]));
  const leafCopy = [6, 7].find((c) => calls.get(c).length === 0);
  const smallCopy = 13 - leafCopy;
  assert.deepEqual(calls.get(smallCopy), [leafCopy], 'the copy of the caller calls the copy of the leaf');
  assert.deepEqual(calls.get(4), [smallCopy, 2], 'the moved function calls the copy, and the original of the function too large');
  assert.deepEqual(calls.get(3), [1], 'the kept function calls the original');
  assert.deepEqual(calls.get(1), [0]);
  assert.deepEqual(calls.get(2), [0]);
  const before = new WebAssembly.Instance(new WebAssembly.Module(whole)).exports;
  const after = new WebAssembly.Instance(new WebAssembly.Module(out.bytes)).exports;
  for (const x of [0, 3, 1e6]) {
    assert.equal(after.moved(x), before.moved(x));
    assert.equal(after.kept(x), before.kept(x));
  }
  assert.equal(after.count(), before.count(), 'the copies count on the same global as the originals');
  // Nothing small enough: the module comes back as it was.
  const none = await withDeferredCopies(whole, [0, 1, 2, 3, 5], 5);
  assert.equal(none.copied, 0);
  assert.equal(Buffer.compare(Buffer.from(none.bytes), Buffer.from(whole)), 0);
});

// The build's placeholders (scripts/lib/placeholders.mjs), on two small modules: wasm-split's
// first module with two table slots holding placeholders (i32 and i64 arguments, two results)
// and a function it keeps, and a deferred module whose element segment writes the real ones.
test('placeholdersInModule: a placeholder calls the loader, then its slot with its arguments, returning its results; once the loader has filled the slots no placeholder runs; a loader that throws throws through it', async () => {
  const first = await wat(`(module
    (type $add (func (param i32 i64) (result i64)))
    (type $pair (func (param f64) (result f64 i32)))
    (import "${PLACEHOLDER_NAMESPACE}" "1" (func $p1 (type $add)))
    (import "${PLACEHOLDER_NAMESPACE}" "2" (func $p2 (type $pair)))
    (table $t (export "table") 3 3 funcref)
    (elem (i32.const 0) $kept $p1 $p2)
    (func $kept (result i32) (i32.const 42))
    (func (export "add") (param i32 i64) (result i64) (call_indirect (type $add) (local.get 0) (local.get 1) (i32.const 1)))
    (func (export "pair") (param f64) (result f64 i32) (call_indirect (type $pair) (local.get 0) (i32.const 2)))
    (func (export "kept") (result i32) (call_indirect (result i32) (i32.const 0))))`);
  const deferred = await wat(`(module
    (import "primary" "table" (table 3 3 funcref))
    (elem (i32.const 1) $add $pair)
    (func $add (param i32 i64) (result i64) (i64.add (i64.extend_i32_u (local.get 0)) (local.get 1)))
    (func $pair (param f64) (result f64 i32) (f64.mul (local.get 0) (f64.const 2)) (i32.const 7)))`);
  const out = await placeholdersInModule(first, PLACEHOLDER_NAMESPACE);
  assert.equal(out.placeholders, 2);
  const module = new WebAssembly.Module(out.first);
  assert.deepEqual(WebAssembly.Module.imports(module), [{ module: PLACEHOLDER_NAMESPACE, name: PLACEHOLDER_LOADER, kind: 'function' }]);
  const deferredModule = new WebAssembly.Module(deferred);
  const instantiate = (loader) => new WebAssembly.Instance(module, { [PLACEHOLDER_NAMESPACE]: { [PLACEHOLDER_LOADER]: loader } });
  let loads = 0;
  const one = instantiate(() => {
    loads++;
    new WebAssembly.Instance(deferredModule, { primary: one.exports });
  });
  assert.equal(one.exports.kept(), 42);
  assert.equal(loads, 0);
  assert.equal(one.exports.add(2, 40n), 42n);
  assert.equal(loads, 1);
  assert.deepEqual(one.exports.pair(1.25), [2.5, 7]);
  assert.equal(one.exports.add(1, 1n), 2n);
  assert.equal(loads, 1, 'the slots hold the real functions once the deferred module is instantiated');
  // The loader's exception reaches the caller; the next call asks again.
  let asked = 0;
  const failing = instantiate(() => {
    asked++;
    throw new Error('the deferred module cannot be had');
  });
  assert.throws(() => failing.exports.pair(1), /the deferred module cannot be had/);
  assert.throws(() => failing.exports.add(1, 1n), /the deferred module cannot be had/);
  assert.equal(asked, 2);
  assert.equal(failing.exports.kept(), 42);
  // No placeholder: the module comes back as it was.
  const none = await placeholdersInModule(deferred, PLACEHOLDER_NAMESPACE);
  assert.equal(none.placeholders, 0);
  assert.equal(Buffer.compare(Buffer.from(none.first), Buffer.from(deferred)), 0);
});

for (const [build, tag] of Object.entries(BUILDS)) {
  test(`${build} build: a page's start, its registrations and an agent's discovery run in the first module alone (the deferred module answering 404: no second request); an agent's tools/call is refused naming the module, and discovery goes on; the console says why it is missing and that the forms did not start`, () =>
    withPage(async ({ page, context, goto, consoleMessages }) => {
      const asked = await watchDeferred(context, (route) => route.fulfill({ status: 404, body: 'not here' }));
      await goto(await clientPage(tag));
      await page.waitForFunction(() => window.Bench && document.modelContext);
      await page.evaluate(READY);
      assert.deepEqual(await page.evaluate(FIRST), FIRST_RESULT);
      // One request: the fetch `ready` asked for. A second (a synchronous one) would mean that the
      // first module's work ran a function of the deferred module: polyfill/build/core-first.txt
      // is behind the code (`make split-list`).
      assert.deepEqual(asked, ['fetch'], 'the first module needed the deferred module: run make split-list');
      const r = await page.evaluate(async () => ({
        call: await client.callTool({ name: 't1', arguments: { a: 1 } }).then(() => 'answered', (e) => e.message),
        listed: (await client.listTools()).tools.length,
      }));
      assert.match(r.call, /tools\/call cannot be served: .*the core's deferred module .*modelcontext_deferred\.wasm could not be loaded: HTTP 404/);
      assert.equal(r.listed, 52);
      assert.deepEqual(asked, ['fetch'], 'the refused call read the deferred module');
      const warning = consoleMessages.find((m) => m.type === 'warning' && m.text.includes(DEFERRED));
      assert.ok(warning, consoleMessages.map((m) => m.text).join('\n'));
      assert.match(warning.text, /the core's deferred module .*modelcontext_deferred\.wasm could not be loaded: HTTP 404.*modelContextPolyfillConfig\.deferredUrl/);
      // The declarative forms, whose work is in it, did not start, saying why.
      assert.ok(consoleMessages.some((m) => m.type === 'warning' && /^modelcontext-polyfill: the declarative API did not start: the core's deferred module .*HTTP 404/.test(m.text)),
        consoleMessages.map((m) => m.text).join('\n'));
    }));

  test(`${build} build: the tool shapes pages register at their start (annotations, a schema naming its dialect as zod's output does, a Standard Schema, formats, nullable, nested, definitions, fractional numbers, text with JSON escapes) and the registrations refused (a name with a character not allowed, non-ASCII, too long; an exposedTo origin of http) are handled by the first module while the deferred one is on its way (no synchronous read); an agent lists them`, () =>
    whileDeferredHeld(clientPage(tag), async ({ page, asked, askedFor }) => {
      await page.waitForFunction(() => window.Bench);
      const r = await page.evaluate(async () => {
        const mc = document.modelContext;
        const execute = () => 'x';
        const object = (properties, extra = {}) => ({ type: 'object', properties, ...extra });
        const tools = [
          { name: 'annotated', title: 'Annotated', description: 'A', annotations: { title: 'A', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false, untrustedContentHint: true } },
          { name: 'no_hints', description: 'A', annotations: {} },
          { name: 'zod', description: 'Z', inputSchema: object({ url: { type: 'string', format: 'uri' }, n: { anyOf: [{ type: 'number' }, { type: 'null' }] } }, { $schema: 'http://json-schema.org/draft-07/schema#', required: ['url'], additionalProperties: false }) },
          { name: 'dialect', description: 'D', inputSchema: object({ a: { type: 'number' } }, { $schema: 'https://json-schema.org/draft/2020-12/schema' }) },
          { name: 'formats', description: 'F', inputSchema: object({ d: { type: 'string', format: 'date-time' }, e: { type: 'string', format: 'email' } }) },
          { name: 'nullable', description: 'N', inputSchema: object({ a: { type: ['string', 'null'], nullable: true, title: 'A', examples: ['x'], default: null } }) },
          { name: 'nested', description: 'N', inputSchema: object({ o: object({ p: { type: 'array', minItems: 1, items: object({ q: { type: 'integer', enum: [1, 2] } }) } }), c: { const: 'x' }, x: { oneOf: [{ type: 'string' }, { type: 'number' }] } }) },
          { name: 'definitions', description: 'D', inputSchema: object({ a: { $ref: '#/definitions/x' } }, { definitions: { x: { type: 'string' } } }) },
          { name: 'output', description: 'O', outputSchema: object({ r: { type: 'number' } }) },
          // Fractional numbers (a price's bounds and step, as zod's .min(0.01).multipleOf(0.01)).
          { name: 'priced', description: 'P', inputSchema: object({ price: { type: 'number', minimum: 0.01, maximum: 9999.99, multipleOf: 0.01 }, ratio: { type: 'number', exclusiveMaximum: 1.5e-7 } }) },
          // Text JSON escapes (quotes, a line break, a tab, a backslash, a control character in
          // a description; a pattern's backslashes, which the core checks).
          { name: 'escaped', description: 'E', inputSchema: object({ phone: { type: 'string', description: 'A "phone" number,\n\tdigits \\ dashes\u0007', pattern: '^\\d{3}-\\d{4}$' } }) },
          // A Standard Schema (zod 4.2+, as MCP's TypeScript SDK takes them): the library gives
          // its JSON Schema.
          { name: 'standard', description: 'S', inputSchema: { '~standard': { version: 1, vendor: 'test', validate: (value) => ({ value }), jsonSchema: { input: () => object({ q: { type: 'string' } }, { $schema: 'https://json-schema.org/draft/2020-12/schema', required: ['q'] }) } } } },
        ];
        for (const t of tools) await mc.registerTool({ ...t, execute });
        const refused = [];
        for (const name of ['a b!', 'café', 'x'.repeat(129)]) {
          refused.push(await mc.registerTool({ name, description: 'R', execute }).then(() => 'registered', (e) => `${e.name}: ${e.message}`));
        }
        refused.push(await mc.registerTool({ name: 'exposed', description: 'E', execute }, { exposedTo: ['http://example.com'] }).then(() => 'registered', (e) => e.name));
        const client = new Bench.Client({ name: 'shapes', version: '1.0.0' });
        await client.connect(new Bench.TabClientTransport({ targetOrigin: location.origin }));
        const { tools: listed } = await client.listTools();
        return { listed: listed.map((t) => t.name), priced: listed.find((t) => t.name === 'priced').inputSchema.properties, escaped: listed.find((t) => t.name === 'escaped').inputSchema.properties, refused };
      });
      assert.deepEqual(r.listed, ['annotated', 'definitions', 'dialect', 'escaped', 'formats', 'nested', 'no_hints', 'nullable', 'output', 'priced', 'standard', 'zod']);
      assert.deepEqual(r.escaped, { phone: { type: 'string', description: 'A "phone" number,\n\tdigits \\ dashes\u0007', pattern: '^\\d{3}-\\d{4}$' } });
      assert.deepEqual(r.priced, { price: { type: 'number', minimum: 0.01, maximum: 9999.99, multipleOf: 0.01 }, ratio: { type: 'number', exclusiveMaximum: 1.5e-7 } });
      assert.deepEqual(r.refused, [
        'InvalidStateError: Invalid tool name "a b!": character " " is not allowed (use A-Z, a-z, 0-9, \'_\', \'-\', \'.\')',
        'InvalidStateError: Invalid tool name "café": character "é" is not allowed (use A-Z, a-z, 0-9, \'_\', \'-\', \'.\')',
        `InvalidStateError: Invalid tool name "${'x'.repeat(129)}": it is 129 characters long; the limit is 128`,
        'SecurityError',
      ]);
      // (The agent's first message asked for the module: its request reaches the route a moment after.)
      await askedFor();
      assert.deepEqual(asked, ['fetch'], 'the first module needed the deferred module: run make split-list');
    }));

  test(`${build} build: agents' discovery over the tab wire in every protocol version (an agent of each handshake version, a 2026-07-28 agent's stateless listing) and a listing before initialize (refused) are answered by the first module while the deferred one is on its way (no synchronous read)`, async () => {
    // One page for each handshake version (a second initialize on the channel would wait for
    // the deferred module, which retires the first agent's session: the next test).
    for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']) {
      await whileDeferredHeld(clientPage(tag), async ({ page, asked, askedFor }) => {
        const r = await page.evaluate(async (version) => {
          await document.modelContext.registerTool({
            name: 't', description: 'T', annotations: { readOnlyHint: true },
            inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
            outputSchema: { type: 'object', properties: { r: { type: 'number' } } },
            execute: () => ({ r: 1 }),
          });
          const ask = window.__tabAsk;
          const early = (await ask('tools/list')).error.message;
          if (version === '2026-07-28') {
            const meta = { 'io.modelcontextprotocol/protocolVersion': version, 'io.modelcontextprotocol/clientCapabilities': {} };
            return { early, members: (await ask('tools/list', { _meta: meta })).result.tools.map((t) => Object.keys(t).sort().join(' ')) };
          }
          const { result } = await ask('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'agent', version: '1' } });
          const members = (await ask('tools/list')).result.tools.map((t) => Object.keys(t).sort().join(' '));
          return { early, negotiated: result.protocolVersion, members };
        }, version);
        assert.match(r.early, /^Server not initialized: send "initialize" before "tools\/list"/);
        if (version !== '2026-07-28') assert.equal(r.negotiated, version);
        const members = {
          '2024-11-05': 'description inputSchema name',
          '2025-03-26': 'annotations description inputSchema name',
        }[version] ?? 'annotations description inputSchema name outputSchema';
        assert.deepEqual(r.members, [members], version);
        await askedFor();
        assert.deepEqual(asked, ['fetch'], `${version}: the first module needed the deferred module: run make split-list`);
      });
    }
  });

  test(`${build} build: an agent's second initialize on the tab wire while the deferred module is on its way (an agent starting over, or a second one) waits for it, and so does what comes after it (no synchronous read: retiring the first session is the deferred module's); once it has arrived the new session is answered in its own version`, () =>
    whileDeferredHeld(clientPage(tag), async ({ page, asked, release }) => {
      const before = await page.evaluate(async ([first, second]) => {
        await document.modelContext.registerTool({
          name: 't', description: 'T', outputSchema: { type: 'object', properties: { r: { type: 'number' } } }, execute: () => ({ r: 1 }),
        });
        const negotiated = (await __tabAsk('initialize', first)).result.protocolVersion;
        const listed = (await __tabAsk('tools/list')).result.tools.map((t) => Object.keys(t).sort().join(' '));
        const answered = [];
        const note = (what) => (r) => (answered.push(what), r);
        window.again = { answered, both: Promise.all([__tabAsk('initialize', second).then(note('initialize')), __tabAsk('tools/list').then(note('tools/list'))]) };
        return { negotiated, listed };
      }, [initializeIn('2025-06-18'), initializeIn('2024-11-05')]);
      assert.deepEqual(before, { negotiated: '2025-06-18', listed: ['description inputSchema name outputSchema'] });
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(await page.evaluate(() => again.answered), [], 'the second initialize and the listing after it wait');
      assert.deepEqual(asked, ['fetch'], 'the second initialize read the deferred module synchronously');
      release();
      const after = await page.evaluate(async () => {
        const [init, list] = await again.both;
        return { order: again.answered, negotiated: init.result.protocolVersion, listed: list.result.tools.map((t) => Object.keys(t).sort().join(' ')) };
      });
      assert.deepEqual(after, { order: ['initialize', 'tools/list'], negotiated: '2024-11-05', listed: ['description inputSchema name'] });
      assert.deepEqual(asked, ['fetch']);
    }));

  test(`${build} build: with the deferred module answering 404, an agent's second initialize on the tab wire is refused naming it (nothing read synchronously), and the first agent's session goes on listing`, () =>
    withPage(async ({ page, context, goto }) => {
      const asked = await watchDeferred(context, (route) => route.fulfill({ status: 404, body: 'not here' }));
      await goto(await clientPage(tag));
      await page.waitForFunction(() => document.modelContext);
      await page.evaluate(READY);
      const r = await page.evaluate(async ([first, second]) => {
        await document.modelContext.registerTool({ name: 't', description: 'T', execute: () => 't' });
        const negotiated = (await __tabAsk('initialize', first)).result.protocolVersion;
        const refused = (await __tabAsk('initialize', second)).error;
        const listed = (await __tabAsk('tools/list')).result.tools.map((t) => Object.keys(t).sort().join(' '));
        return { negotiated, refused, listed };
      }, [initializeIn('2025-06-18'), initializeIn('2024-11-05')]);
      assert.equal(r.negotiated, '2025-06-18');
      assert.match(r.refused.message, /^initialize cannot be served: .*modelcontext_deferred\.wasm/);
      assert.deepEqual(r.listed, ['description inputSchema name']);
      assert.deepEqual(asked, ['fetch']);
    }));

  test(`${build} build: with the deferred module and its call module answering 404, the page's promise-returning calls that need it (getTools, executeTool, connect, with a server transport made then) reject naming it, each asking for it again (a synchronous read), and throw nothing; the page goes on registering and an agent listing`, () =>
    withPage(async ({ page, context, goto }) => {
      const missing = (route) => route.fulfill({ status: 404, body: 'not here' });
      const asked = await watchDeferred(context, missing, missing);
      await goto(await clientPage(tag));
      await page.waitForFunction(() => window.Bench && document.modelContext);
      await page.evaluate(READY);
      const r = await page.evaluate(async () => {
        const mc = document.modelContext;
        const { PostMessageServerTransport } = globalThis[Symbol.for('modelcontext-polyfill')].transports;
        const transport = new PostMessageServerTransport(new MessageChannel().port1);
        const outcome = (f) => {
          try {
            return f().then(() => 'fulfilled', (e) => `${e.name}: ${e.message}`);
          } catch (e) {
            return `threw ${e.name}`;
          }
        };
        const calls = [
          await outcome(() => mc.getTools()),
          await outcome(() => mc.executeTool('none', '{}')),
          await outcome(() => mc.connect({ transport })),
        ];
        await mc.registerTool({ name: 'after', description: 'A', execute: () => 'a' });
        const client = new Bench.Client({ name: 'after', version: '1.0.0' });
        await client.connect(new Bench.TabClientTransport({ targetOrigin: location.origin }));
        return { calls, listed: (await client.listTools()).tools.map((t) => t.name), type: transport.type };
      });
      for (const c of r.calls) assert.match(c, /^NotSupportedError: modelcontext-polyfill: the core's deferred module .*modelcontext_deferred\.wasm was needed before it had arrived and could not be read: HTTP 404/);
      assert.deepEqual(r.listed, ['after']);
      assert.equal(r.type, 'postMessage');
      assert.deepEqual(asked, ['fetch', 'xhr', 'xhr', 'xhr']);
    }));

  test(`${build} build: a function of the deferred module the page needs before it has arrived runs through its placeholder, which reads the module synchronously (and nothing requests it after): a schema nested deeper than the engine reads (70 levels) registers with the warning, getTools() reporting it whole; an agent lists and calls the tool`, () =>
    withPage(async ({ page, context, goto, consoleMessages }) => {
      const asked = await watchDeferred(context);
      await goto(await clientPage(tag));
      await page.evaluate(STARTED);
      await page.waitForFunction(() => window.Bench);
      const registered = await page.evaluate(async () => {
        let schema = { type: 'string' };
        for (let i = 0; i < 70; i++) schema = { type: 'object', properties: { a: schema }, required: ['a'] };
        window.deepSchema = schema;
        return document.modelContext
          .registerTool({ name: 'deep', description: 'D', inputSchema: schema, execute: () => 'deep' })
          .then(() => 'registered', (e) => `${e.name}: ${e.message}`);
      });
      assert.equal(registered, 'registered');
      // The warning is written by the deferred module's code, with the arguments its
      // placeholder passed on.
      assert.deepEqual(asked, ['xhr']);
      const warning = consoleMessages.find((m) => m.type === 'warning' && m.text.includes('"deep"'));
      assert.match(warning?.text ?? '', /the inputSchema of tool "deep" cannot validate arguments \(.*\); the tool is registered and its input is not validated/);
      const r = await page.evaluate(async () => {
        const [tool] = await document.modelContext.getTools();
        const client = new Bench.Client({ name: 'deep', version: '1.0.0' });
        await client.connect(new Bench.TabClientTransport({ targetOrigin: location.origin }));
        const listed = (await client.listTools()).tools.map((t) => t.name);
        const called = await client.callTool({ name: 'deep', arguments: { a: 1 } });
        return { kept: JSON.stringify(tool.inputSchema) === JSON.stringify(window.deepSchema), listed, called: called.content[0].text };
      });
      assert.deepEqual(r, { kept: true, listed: ['deep'], called: 'deep' });
      assert.deepEqual(asked, ['xhr'], 'the module read is the one compiled: no request after it');
    }));

  test(`${build} build: while the deferred module is on its way the page registers and an agent lists (FIRST), and the calls wait, then are answered without a synchronous read, the page's getTools too; everything works after it`, () =>
    withPage(async (p) => {
      const { page } = p;
      const { asked, release } = await afterFirst(p, tag);
      await page.evaluate(() => {
        window.seen = [];
        client.callTool({ name: 't1', arguments: { a: 1 } }).then((r) => seen.push(`call ${r.content[0].text}`));
        client.callTool({ name: 't2', arguments: { a: 'x' } }).then((r) => seen.push(`invalid ${r.isError}`));
        document.modelContext.getTools().then((tools) => seen.push(`getTools ${tools.length}`));
      });
      await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
      assert.deepEqual(await page.evaluate(() => window.seen), []);
      release();
      await page.waitForFunction(() => window.seen.length === 3);
      const seen = await page.evaluate(() => window.seen);
      // (Delivered in order; the refusal of the invalid call is answered before the tool's
      // promise has settled.)
      assert.deepEqual(seen.filter((s) => !s.startsWith('getTools')).sort(), ['call 1', 'invalid true']);
      assert.ok(seen.includes('getTools 52'), JSON.stringify(seen));
      assert.deepEqual(await page.evaluate(CALLS), CALLS_RESULT);
      assert.deepEqual(asked, ['fetch']);
    }));

  // The call module (scripts/lib/calls-cut.mjs) serves an agent's calls before the deferred
  // module has arrived (src/transport/held.rs); the deferred module's first request is held
  // throughout, and a synchronous read of it would be a second request.
  test(`${build} build: with the call module there and the deferred module on its way, an agent's calls (one, 200 at once, an async tool's, an object's result, a CallToolResult of each content kind, other JSON values and none, results checked by an outputSchema, invalid arguments, a throwing tool, an unknown one, patterns the validator module and the core check) are answered without reading the deferred module; a message that needs it holds the calls after it, which are answered in order once it has arrived`, () =>
    withPage(async (p) => {
      const { page } = p;
      // (A synchronous read is answered, and counted.)
      const { asked, release } = await afterFirst(p, tag, { firstOnly: true });
      const r = await page.evaluate(async () => {
        const mc = document.modelContext;
        const schema = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] };
        await mc.registerTool({ name: 'later', description: 'L', inputSchema: schema, execute: async ({ a }) => String(a) });
        await mc.registerTool({ name: 'record', description: 'R', inputSchema: schema, execute: ({ a }) => ({ a }) });
        await mc.registerTool({ name: 'checked', description: 'C', inputSchema: schema, outputSchema: schema, execute: ({ a }) => ({ a: a < 0 ? 'negative' : a }) });
        await mc.registerTool({ name: 'shaped', description: 'S', inputSchema: { type: 'object', properties: { k: { type: 'string' } } }, execute: ({ k }) => __resultShapes()[k] });
        const shapes = {};
        for (const k of Object.keys(__resultShapes())) shapes[k] = await client.callTool({ name: 'shaped', arguments: { k } });
        const checked = [await client.callTool({ name: 'checked', arguments: { a: 8 } }), await client.callTool({ name: 'checked', arguments: { a: -1 } })];
        const one = await client.callTool({ name: 't1', arguments: { a: 1 } });
        const many = await Promise.all(Array.from({ length: 200 }, (_, i) => client.callTool({ name: 't2', arguments: { a: i } })));
        const later = await client.callTool({ name: 'later', arguments: { a: 5 } });
        const record = await client.callTool({ name: 'record', arguments: { a: 6 } });
        const invalid = await client.callTool({ name: 't1', arguments: { a: 'x' } });
        const thrown = await client.callTool({ name: 'thrower', arguments: {} });
        const unknown = await client.callTool({ name: 'nope', arguments: {} }).then((x) => x.isError, () => true);
        const words = [await client.callTool({ name: 'word', arguments: { w: 'ok' } }), await client.callTool({ name: 'word', arguments: { w: 'No!' } })];
        const codes = [await client.callTool({ name: 'code', arguments: { c: 'AB-123' } }), await client.callTool({ name: 'code', arguments: { c: 'ab-123' } })];
        return {
          one: one.content[0].text, many: many.every((x, i) => x.content[0].text === String(i)), later: later.content[0].text,
          record: record.structuredContent, invalid: invalid.isError, thrown: thrown.isError, unknown,
          pattern: [words[0].content[0].text, words[1].isError, codes[0].content[0].text, codes[1].isError],
          shapes, checked: [checked[0].structuredContent, checked[1].isError && checked[1].content[0].text],
          // (A CallToolResult is answered as the tool gave it.)
          given: Object.fromEntries(Object.entries(__resultShapes()).filter(([, v]) => v?.content)),
        };
      });
      const text = (t) => ({ content: [{ type: 'text', text: t }] });
      const { shapes, checked, given, ...rest } = r;
      assert.deepEqual(shapes, { ...given, number: text('42'), truth: text('true'), list: text('[1,"two",{"three":3}]'), empty: { content: [] }, nothing: { content: [] } });
      assert.deepEqual(checked, [{ a: 8 }, 'Tool checked returned structuredContent that does not match its outputSchema: /a: "negative" is not of type "number" [keyword: type]']);
      assert.deepEqual(rest, { one: '1', many: true, later: '5', record: { a: 6 }, invalid: true, thrown: true, unknown: true, pattern: ['ok', true, 'AB-123', true] });
      assert.deepEqual(asked.calls, ['fetch']);
      assert.deepEqual(asked, ['fetch'], 'the deferred module asked for once, and not read');
      // A message of the deferred module's (a resources/list), then a call: both wait for it.
      await page.evaluate(() => {
        window.seen = [];
        client.listResources().then(() => seen.push('resources'), () => seen.push('resources refused'));
        client.callTool({ name: 't1', arguments: { a: 2 } }).then((x) => seen.push(`call ${x.content[0].text}`));
      });
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
      assert.deepEqual(await page.evaluate(() => window.seen), []);
      release();
      await page.waitForFunction(() => window.seen.length === 2);
      assert.deepEqual(await page.evaluate(() => window.seen), ['resources', 'call 2']);
      assert.deepEqual(asked, ['fetch']);
    }));

  // A call of a tool whose schema only the validator module checks waits for that module when it
  // is still loading: the call module has that wait too (CALLS_UNTRACED in
  // scripts/bench-breakdown.mjs, which `make split-list`'s trace never runs).
  test(`${build} build: an agent's call of a tool whose schema the validator module checks, made while that module loads and the deferred module is on its way, is answered by the call module without reading the deferred module`, () =>
    withPage(async ({ page, context, goto }) => {
      const { asked, release } = await holdDeferred(context, { firstOnly: true });
      let releaseValidator;
      const validatorHeld = new Promise((resolve) => (releaseValidator = resolve));
      await context.route('**/modelcontext_validator.wasm', async (route) => {
        await validatorHeld;
        return route.continue().catch(() => {});
      });
      try {
        await goto(await clientPage(tag));
        await page.waitForFunction(() => window.Bench && document.modelContext);
        await page.evaluate(STARTED);
        await page.evaluate(async () => {
          const word = { type: 'object', properties: { w: { type: 'string', pattern: '^\\p{Ll}+$' } }, required: ['w'] };
          await document.modelContext.registerTool({ name: 'word', description: 'W', inputSchema: word, execute: ({ w }) => w });
          window.client = new Bench.Client({ name: 'validated', version: '1.0.0' });
          await client.connect(new Bench.TabClientTransport({ targetOrigin: location.origin }));
          await client.listTools();
          window.answers = [];
          client.callTool({ name: 'word', arguments: { w: 'ok' } }).then((r) => answers.push(r.content[0].text));
        });
        // (The call module arrives and serves the call, which waits for the validator module.)
        await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 500)));
        assert.deepEqual(await page.evaluate(() => window.answers), []);
        releaseValidator();
        await page.waitForFunction(() => window.answers.length === 1);
        assert.deepEqual(await page.evaluate(() => window.answers), ['ok']);
        assert.deepEqual(asked.calls, ['fetch']);
        assert.deepEqual(asked, ['fetch'], 'the deferred module asked for once, and not read');
      } finally {
        releaseValidator();
        release();
      }
    }));

  // The page's calls go before an agent's: while the page waits for the deferred module, the
  // call module serves none of an agent's calls, so that a call of a tool the page registers
  // meanwhile (through the session API) finds it.
  test(`${build} build: while the page waits for the deferred module (a session-API registration queued), an agent's call waits too, though the call module is there, and finds the tool the page registered`, () =>
    withPage(async (p) => {
      const { page } = p;
      const { asked, release } = await afterFirst(p, tag);
      // (The call module in: a call answered.)
      assert.equal(await page.evaluate(async () => (await client.callTool({ name: 't1', arguments: { a: 3 } })).content[0].text), '3');
      await page.evaluate(() => {
        window.seen = [];
        // (It queues until the deferred module is there, and returns its unregister at once.)
        window.off = document.modelContext.registerTool('session', {
          description: 'Of the session API',
          handler: () => ({ content: [{ type: 'text', text: 'from the session' }] }),
        });
        client.callTool({ name: 'session', arguments: {} }).then((x) => seen.push(`call ${x.isError ? 'error' : x.content[0].text}`));
      });
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
      assert.deepEqual(await page.evaluate(() => window.seen), []);
      release();
      await page.waitForFunction(() => window.seen.length === 1);
      assert.deepEqual(await page.evaluate(() => window.seen), ['call from the session']);
      assert.equal(await page.evaluate(() => typeof window.off), 'function');
      assert.deepEqual(asked, ['fetch']);
    }));

  // The page's idle callbacks are asked for and never called (a page busy from start to end),
  // and each compilation counted: the deferred module waits for the page's start to settle,
  // unless something needs it first.
  const NEVER_IDLE = () => {
    window.idleAsked = 0;
    window.requestIdleCallback = () => ++window.idleAsked;
    window.compiles = 0;
    for (const name of ['compileStreaming', 'compile']) {
      const real = WebAssembly[name];
      WebAssembly[name] = (...a) => (window.compiles++, real.apply(WebAssembly, a));
    }
  };
  const SETTLED = () => __until(() => window.idleAsked > 0, 'the settle wait', 10_000);

  test(`${build} build: the deferred module is not requested at the start: an agent's first message has it requested, and compiled only in the page's first idle moment after; with none (a page busy throughout), an agent's tools/call that needs it has it compiled at once, and is answered`, () =>
    withPage(async ({ page, context, goto }) => {
      const asked = await watchDeferred(context);
      await page.addInitScript(NEVER_IDLE);
      await goto(await clientPage(tag));
      await page.waitForFunction(() => window.Bench && document.modelContext);
      await page.evaluate(STARTED);
      await page.evaluate(SETTLED);
      assert.deepEqual(asked, [], 'no agent yet, nothing needs it');
      assert.deepEqual(await page.evaluate(FIRST), FIRST_RESULT);
      await page.evaluate(() => __until(() => window.idleAsked > 1, 'the settle wait after the agent came', 10_000));
      assert.deepEqual(asked.calls, ['fetch'], 'the call module requested when the agent came');
      assert.deepEqual(asked, [], 'the deferred module once the call module is compiled');
      assert.equal(await page.evaluate(() => window.compiles), 1, 'the page registers and an agent lists with the first module alone compiled');
      const r = await page.evaluate(async () => (await client.callTool({ name: 't1', arguments: { a: 7 } })).content[0].text);
      assert.equal(r, '7');
      // (The call module compiled for the call, then the deferred module requested and compiled.)
      await page.evaluate(() => __until(() => window.compiles === 3, 'the deferred module compiled', 10_000));
      assert.deepEqual(asked.calls, ['fetch'], 'read once, by the request made when the agent came');
      assert.deepEqual(asked, ['fetch']);
    }));

  test(`${build} build: with no idle moment after the start, a page's call of the deferred module (getTools) has it compiled at once, and settles; so do the calls queued behind it`, () =>
    withPage(async ({ page, context, goto }) => {
      const asked = await watchDeferred(context);
      await page.addInitScript(NEVER_IDLE);
      await goto(await inlinePage(tag));
      await page.evaluate(STARTED);
      await page.evaluate(() => document.modelContext.registerTool({ name: 'one', description: 'One', execute: () => '1' }));
      await page.evaluate(SETTLED);
      assert.deepEqual(asked, [], 'not requested: nothing needed it, and no agent came');
      assert.equal(await page.evaluate(() => window.compiles), 1);
      const names = await page.evaluate(async () => {
        const listed = document.modelContext.getTools();
        const second = document.modelContext.registerTool({ name: 'two', description: 'Two', execute: () => '2' });
        await second;
        return (await listed).map((t) => t.name);
      });
      assert.deepEqual(names, ['one']);
      // (The call module and the deferred module, which it goes before.)
      assert.equal(await page.evaluate(() => window.compiles), 3);
      assert.deepEqual(asked, ['fetch']);
      assert.deepEqual(asked.calls, ['fetch']);
    }));

  test(`${build} build: with no idle moment after the start, a page that awaits ready has the deferred module compiled at once: ready resolves`, () =>
    withPage(async ({ page, context, goto }) => {
      const asked = await watchDeferred(context);
      await page.addInitScript(NEVER_IDLE);
      await goto(await inlinePage(tag));
      await page.evaluate(STARTED);
      await page.evaluate(SETTLED);
      assert.equal(await page.evaluate(() => window.compiles), 1, 'nothing asked for it yet (the front reads ready itself)');
      await page.evaluate(READY);
      assert.equal(await page.evaluate(() => window.compiles), 3);
      assert.deepEqual(asked, ['fetch']);
      assert.deepEqual(asked.calls, ['fetch']);
    }));

  test(`${build} build: the deferred module is fetched once, when a page awaits ready, and what it holds works (a form added later is a tool, the legacy provideContext)`, () =>
    withPage(async ({ page, context, goto }) => {
      const asked = await watchDeferred(context);
      await goto(await inlinePage(tag));
      await page.evaluate(READY);
      await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('/modelcontext_deferred.wasm') && e.responseEnd > 0));
      const names = await page.evaluate(async () => {
        document.modelContext.provideContext({ tools: [{ name: 'legacy', description: 'L', execute: () => 'l' }] });
        __addForm('later');
        await __until(() => navigator.modelContextTesting.listTools().length === 2, 'the form and the legacy tool', 5000);
        return navigator.modelContextTesting.listTools().map((t) => t.name).sort();
      }).catch(async (e) => {
        throw new Error(`${e.message}: ${JSON.stringify(await page.evaluate(() => navigator.modelContextTesting.listTools()))}`);
      });
      assert.deepEqual(names, ['later', 'legacy']);
      assert.deepEqual(asked, ['fetch']);
    }));

  test(`${build} build: messages a transport refuses (an agent of another origin, which the tab transport does not serve) have nothing requested; the first message of an agent it serves has the deferred module requested`, () =>
    withPage(async ({ page, context, goto, server }) => {
      const asked = await watchDeferred(context);
      const foreign = await inlinePage(`<script>
        const env = (payload) => ({ channel: 'mcp-default', type: 'mcp', direction: 'client-to-server', payload });
        parent.postMessage(env('mcp-check-ready'), '*');
        parent.postMessage(env({ jsonrpc: '2.0', id: 'far-init', method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'far', version: '1' } } }), '*');
        parent.postMessage(env({ jsonrpc: '2.0', id: 'far-call', method: 'tools/call', params: { name: 't', arguments: {} } }), '*');
        parent.postMessage({ farDone: true }, '*');
      </script>`);
      await goto(await clientPage(tag));
      await page.evaluate(STARTED);
      await page.evaluate(async (src) => {
        await document.modelContext.registerTool({ name: 't', description: 'T', execute: () => 't' });
        const done = new Promise((resolve) => addEventListener('message', (e) => e.data?.farDone && resolve()));
        const frame = document.createElement('iframe');
        frame.src = src;
        document.body.append(frame);
        await done;
        await new Promise((resolve) => setTimeout(resolve, 300));
      }, server.url(foreign, { alt: true }));
      assert.deepEqual(asked, [], 'the refused messages asked for nothing');
      const listed = await page.evaluate(async () => {
        const client = new Bench.Client({ name: 'here', version: '1.0.0' });
        await client.connect(new Bench.TabClientTransport({ targetOrigin: location.origin }));
        return (await client.listTools()).tools.map((t) => t.name);
      });
      assert.deepEqual(listed, ['t']);
      await page.evaluate(() => __until(() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('/modelcontext_deferred.wasm')), 'the request', 10_000));
      assert.deepEqual(asked, ['fetch']);
    }));

  test(`${build} build: a page with no tool form at its start requests the deferred module when one appears, which is a tool then (no agent, no call of the page's): a form added to the document, a form given its toolname later, one added to an open root the HTML declared, one in a closed root attached later`, () =>
    withPage(async ({ page, context, goto }) => {
      const asked = await watchDeferred(context);
      const html = `${tag}<form id="plain" tooldescription="Plain"><input name="q"></form>
        <div id="host"><template shadowrootmode="open"><p>declared</p></template></div>`;
      const appear = {
        added: () => __addForm('added'),
        named: () => document.getElementById('plain').setAttribute('toolname', 'named'),
        declared: () => {
          const t = document.createElement('template');
          t.innerHTML = '<form toolname="declared" tooldescription="D"><input name="q"></form>';
          document.getElementById('host').shadowRoot.append(t.content);
        },
        closed: () => {
          const host = document.body.appendChild(document.createElement('div'));
          host.attachShadow({ mode: 'closed' }).innerHTML = '<form toolname="closed" tooldescription="C"><input name="q"></form>';
        },
      };
      const seen = {};
      for (const [name, make] of Object.entries(appear)) {
        const before = asked.length;
        await goto(await inlinePage(html));
        await page.evaluate(STARTED);
        const untouched = asked.length === before;
        await page.evaluate(`(${make})()`);
        const tools = await page.evaluate((name) => __until(() => {
          const names = navigator.modelContextTesting.listTools().map((t) => t.name);
          return names.includes(name) && names;
        }, `the form ${name} as a tool`, 10_000), name);
        seen[name] = { untouched, tools, asked: asked.slice(before) };
      }
      const one = (name) => ({ untouched: true, tools: [name], asked: ['fetch'] });
      assert.deepEqual(seen, { added: one('added'), named: one('named'), declared: one('declared'), closed: one('closed') });
    }));

  test(`${build} build: a form added before the deferred module has arrived is a tool once it has (no synchronous read); until then the page's tools are served`, () =>
    withPage(async ({ page, context, goto }) => {
      const { asked, release, askedFor } = await holdDeferred(context);
      await goto(await inlinePage(tag));
      await page.evaluate(STARTED);
      await page.evaluate(async () => {
        await document.modelContext.registerTool({ name: 'first', description: 'F', execute: () => 'f' });
        __addForm('later');
      });
      await askedFor();
      await page.evaluate(() => new Promise((r) => setTimeout(r, 200)));
      assert.deepEqual(await page.evaluate(() => navigator.modelContextTesting.listTools().map((t) => t.name)), ['first']);
      release();
      const tools = await page.evaluate(async () => {
        await __until(() => navigator.modelContextTesting.listTools().length === 2, 'the form', 5000);
        return navigator.modelContextTesting.listTools().map((t) => t.name).sort();
      });
      assert.deepEqual(tools, ['first', 'later']);
      assert.deepEqual(asked, ['fetch']);
    }));

  test(`${build} build: another document of the frame tree reading this one's tools while this one's deferred module is on its way gets a promise of them (no synchronous read): getTools() there waits for it and lists them`, () =>
    withPage(async ({ page, context, goto }) => {
      // Only the frame's deferred module is held: the top document's arrives.
      const asked = [];
      let release;
      const held = new Promise((r) => (release = r));
      await context.route(`**/${DEFERRED}`, async (route) => {
        const where = route.request().frame().parentFrame() ? 'frame' : 'top';
        asked.push(`${where} ${route.request().resourceType()}`);
        if (where === 'frame') await held;
        return route.continue().catch(() => {});
      });
      try {
        // (A module script runs after the ESM build's.)
        const frame = await inlinePage(`${tag}<script type="module">document.modelContext.registerTool({ name: 'inner', description: 'I', execute: () => 'i' });</script>`);
        await goto(await inlinePage(`${HELPERS}${tag}<iframe src="${frame}"></iframe>`));
        await page.waitForFunction(() => globalThis[Symbol.for('modelcontext-polyfill')]);
        await page.evaluate(READY);
        await page.evaluate(() => __until(() => frames[0].navigator.modelContextTesting?.listTools().length === 1, 'the frame\'s tool', 10_000));
        await page.evaluate(() => {
          window.seen = [];
          document.modelContext.registerTool({ name: 'top', description: 'T', execute: () => 't' });
          document.modelContext.getTools().then((tools) => seen.push(tools.map((t) => t.name)));
        });
        await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
        assert.deepEqual(await page.evaluate(() => window.seen), []);
        assert.deepEqual(asked.sort(), ['frame fetch', 'top fetch']);
        release();
        await page.waitForFunction(() => window.seen.length === 1);
        assert.deepEqual(await page.evaluate(() => window.seen[0]), ['inner', 'top']);
        // The frame's tool runs in the frame, from the top document.
        const r = await page.evaluate(async () => {
          const [inner] = (await document.modelContext.getTools()).filter((t) => t.name === 'inner');
          return document.modelContext.executeTool(inner, {});
        });
        assert.equal(r, 'i');
        assert.deepEqual(asked.sort(), ['frame fetch', 'top fetch']);
      } finally {
        release();
      }
    }));

  test(`${build} build: a frame of another origin navigated away before its deferred module has arrived tells this document, which it asked its policy (no synchronous read, which a page going away may not make)`, () =>
    withPage(async ({ page, context, goto, server }) => {
      // Only the frames' deferred module is held, until the test ends.
      const { asked, release } = await holdDocument(context, 'frame');
      try {
        const urls = await twoFrames(server, tag);
        await goto(await inlinePage(`${HELPERS}${tag}<iframe allow="tools" src="${urls.allowed}"></iframe>`));
        await page.evaluate(READY);
        await page.evaluate(() => {
          window.heard = [];
          addEventListener('message', (e) => {
            const kind = e.data && e.data.modelcontextPolyfillFrames;
            if (kind) heard.push(kind);
          });
        });
        // The frame has started, had this document's answer to its policy question and
        // registered its tool; its deferred module has not arrived (nothing asked for it).
        const frame = page.frames().find((f) => f.url() === urls.allowed);
        await frame.waitForFunction(() => window.outcome, null, { timeout: 10_000 });
        assert.equal(await frame.evaluate(() => window.outcome), 'registered');
        assert.deepEqual(asked.frame, []);
        // (Navigated away: a removed frame's document is no longer active when its pagehide
        // runs, and what it posts then is not delivered.)
        await page.evaluate(() => (document.querySelector('iframe').src = 'about:blank'));
        await page.evaluate(() => __until(() => window.heard.includes('gone'), 'the frame\'s gone', 5000));
        assert.deepEqual(asked.frame, [], 'the frame read nothing synchronously');
        // This document goes on: its own tool registers and runs.
        const r = await page.evaluate(async () => {
          await document.modelContext.registerTool({ name: 'top', description: 'T', execute: () => 't' });
          const [tool] = (await document.modelContext.getTools()).filter((t) => t.name === 'top');
          return document.modelContext.executeTool(tool, {});
        });
        assert.equal(r, 't');
      } finally {
        release();
      }
    }));

  test(`${build} build: frames of another origin while this document's deferred module is on its way: their policy questions are answered at once (a frame without allow="tools" refused from its first registration), the messages that carry tools wait for it (no synchronous read in any document), and once it has arrived the frame's exposed tool is listed and runs here`, () =>
    withPage(async ({ page, context, goto, server }) => {
      const { asked, release } = await holdDocument(context, 'top');
      try {
        const urls = await twoFrames(server, tag);
        await goto(await inlinePage(`${HELPERS}${tag}<iframe allow="tools" src="${urls.allowed}"></iframe><iframe src="${urls.denied}"></iframe>`));
        const outcomes = await framesOutcomes(page, urls);
        assert.deepEqual(outcomes, { allowed: 'registered', denied: 'NotAllowedError' });
        // The top document's tools as the frame lists them wait for its deferred module.
        await page.evaluate((alt) => {
          window.seen = [];
          document.modelContext.getTools({ fromOrigins: [alt] }).then((tools) => seen.push(tools.map((t) => `${t.name} ${t.origin}`)));
        }, server.altOrigin);
        await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
        assert.deepEqual(await page.evaluate(() => window.seen), []);
        assert.deepEqual(asked.top, ['fetch'], JSON.stringify(asked));
        release();
        await page.waitForFunction(() => window.seen.length === 1);
        assert.deepEqual(await page.evaluate(() => window.seen[0]), [`exposed ${server.altOrigin}`]);
        const r = await page.evaluate(async (alt) => {
          const [t] = await document.modelContext.getTools({ fromOrigins: [alt] });
          return document.modelContext.executeTool(t, {});
        }, server.altOrigin);
        assert.equal(r, 'ran in the frame');
        assert.deepEqual(asked, { top: ['fetch'], frame: ['fetch', 'fetch'] });
      } finally {
        release();
      }
    }));

  test(`${build} build: with this document's deferred module answering 404, frames of another origin are still answered their policy (a frame without allow="tools" refused), and a frame listing this document's tools is answered at once with none (nothing read synchronously)`, () =>
    withPage(async ({ page, context, goto, server }) => {
      const asked = await watchByDocument(context, (route, where) =>
        where === 'top' ? route.fulfill({ status: 404, body: 'not here' }) : route.continue(),
      );
      await page.route('**/__top-tool.js', (route) => route.fulfill({ contentType: 'text/javascript', body: `document.modelContext.registerTool({ name: 'outer', description: 'O', execute: () => 'o' }, { exposedTo: ['${server.altOrigin}'] });` }));
      const urls = await twoFrames(server, tag);
      await goto(await inlinePage(`${HELPERS}${tag}<script type="module" src="/__top-tool.js"></script><iframe allow="tools" src="${urls.allowed}"></iframe><iframe src="${urls.denied}"></iframe>`));
      assert.deepEqual(await framesOutcomes(page, urls), { allowed: 'registered', denied: 'NotAllowedError' });
      const frame = page.frames().find((f) => f.url() === urls.allowed);
      const { listed, replies } = await frame.evaluate(async (top) => {
        // The frame wire's listing replies this frame hears from the top document.
        const replies = [];
        addEventListener('message', (e) => {
          if (e.source === parent && e.data && e.data.modelcontextPolyfillFrames === 'list-reply') replies.push(e.data.tools);
        });
        const tools = await document.modelContext.getTools({ fromOrigins: [top] });
        // (The reply that settled it reaches this listener after the polyfill's.)
        await new Promise((r) => setTimeout(r, 0));
        return { listed: tools.filter((t) => t.origin === top).map((t) => t.name), replies };
      }, server.origin);
      assert.deepEqual(listed, []);
      // Answered (with no tools), not left to the frame's timer.
      assert.deepEqual(replies, [[]]);
      assert.deepEqual(asked, { top: ['fetch'], frame: ['fetch', 'fetch'] });
    }));

  test(`${build} build: a page that makes a tab server transport at its start and connects a session with it reads nothing synchronously: the session waits for the deferred module, then serves its tools on that channel`, () =>
    withPage(async ({ page, context, goto }) => {
      const { asked, release, askedFor } = await holdDeferred(context);
      await goto(await clientPage(tag));
      await page.waitForFunction(() => window.Bench && document.modelContext);
      await page.evaluate(STARTED);
      const made = await page.evaluate(() => {
        const { TabServerTransport } = globalThis[Symbol.for('modelcontext-polyfill')].transports;
        window.transport = new TabServerTransport({ channelId: 'own', allowedOrigins: [location.origin] });
        window.connected = document.modelContext.connect({ transport, serverInfo: { name: 'own', version: '1.0.0' } }).then((session) => {
          session.registerTool('fromSession', { description: 'S', handler: () => 'served' });
          return transport.isConnected;
        });
        return { type: transport.type, channelId: transport.options.channelId, isConnected: transport.isConnected };
      });
      assert.deepEqual(made, { type: 'tab', channelId: 'own', isConnected: false });
      await askedFor();
      assert.deepEqual(asked, ['fetch']);
      release();
      assert.equal(await page.evaluate(() => window.connected), true);
      const r = await page.evaluate(async () => {
        const client = new Bench.Client({ name: 'own', version: '1.0.0' });
        await client.connect(new Bench.TabClientTransport({ targetOrigin: location.origin, channelId: 'own' }));
        return (await client.callTool({ name: 'fromSession', arguments: {} })).content[0].text;
      });
      assert.equal(r, 'served');
      assert.deepEqual(asked, ['fetch']);
    }));

  test(`${build} build: server transport classes made while the deferred module is on its way read nothing synchronously: each constructor reads its options at once (a wrong one throws its TypeError), what a page reads of them answers (the effective options, a broadcast channel's name and generated instance id, the built-in emitter), and connect() waits for the module, then serves on them (a closed one refused)`, () =>
    whileDeferredHeld(inlinePage(tag), async ({ page, asked, release, askedFor }) => {
      const read = await page.evaluate(async () => {
        await document.modelContext.registerTool({ name: 'first', description: 'F', execute: () => 'f' });
        const T = globalThis[Symbol.for('modelcontext-polyfill')].transports;
        const channel = new MessageChannel();
        window.port = channel.port2;
        const options = { messageType: 'own' };
        const good = new T.PostMessageServerTransport(channel.port1, options);
        // (A change to the options object after the constructor does not reach the transport.)
        options.messageType = 'changed';
        const extPort = { postMessage() {}, onMessage: { addListener() {}, removeListener() {} }, onDisconnect: { addListener() {}, removeListener() {} } };
        const frame = document.body.appendChild(document.createElement('iframe'));
        const made = [
          good,
          new T.BroadcastChannelServerTransport({ channelName: 'elsewhere' }),
          new T.IframeChildServerTransport({ parentOrigin: location.origin }),
          new T.IframeParentServerTransport({ iframe: frame, targetOrigin: location.origin }),
          new T.EventServerTransport(),
          new T.ExtensionServerTransport(extPort, { messageType: 'ext' }),
        ];
        const [, broadcast, , , events] = made;
        const thrown = (f) => {
          try {
            f();
            return 'no error';
          } catch (e) {
            return `${e.name}: ${e.message}`;
          }
        };
        const wrong = [
          thrown(() => new T.BroadcastChannelServerTransport({ channelName: '' })),
          thrown(() => new T.ExtensionServerTransport(extPort, { keepAliveInterval: -1 })),
          thrown(() => new T.IframeChildServerTransport({ parentOrigin: 'not an origin' })),
          thrown(() => new T.PostMessageServerTransport(channel.port1, { maxInFlight: 0 })),
          thrown(() => new T.EventServerTransport({ emitter: {} })),
          thrown(() => new T.IframeParentServerTransport({ targetOrigin: '*' })),
        ];
        const closed = new T.EventServerTransport();
        closed.close();
        const settled = (p) => p.then((s) => ({ session: s }), (e) => ({ error: `${e.name}: ${e.message}` }));
        window.outcomes = Promise.all([
          settled(navigator.modelContext.connect({ transport: good })).then(({ session, error }) => {
            if (error) return error;
            session.registerTool('fromSession', { description: 'S', handler: () => 'served' });
            return session.transport === good && good.isConnected && good.options.messageType;
          }),
          settled(navigator.modelContext.connect({ transport: broadcast })).then(({ error }) => error ?? broadcast.isConnected),
          settled(navigator.modelContext.connect({ transport: closed })).then(({ error }) => error),
        ]);
        // The page's synchronous reads answer while the connects wait for the module.
        return {
          made: made.map((t) => [t.type, t.options.type, Object.isFrozen(t.options), t.isConnected, t instanceof T[t.constructor.name]]),
          broadcast: [broadcast.channelName, typeof broadcast.instanceId, broadcast.instanceId === broadcast.options.instanceId],
          emitter: typeof events.emitter?.emit,
          wrong,
          listed: navigator.modelContextTesting.listTools().map((t) => t.name),
          serving: navigator.modelContext.isConnected(),
        };
      });
      assert.deepEqual(read.made, [
        ['postMessage', 'postMessage', true, false, true], ['broadcastChannel', 'broadcastChannel', true, false, true],
        ['iframeChild', 'iframeChild', true, false, true], ['iframeParent', 'iframeParent', true, false, true],
        ['event', 'event', true, false, true], ['extension', 'extension', true, false, true],
      ]);
      assert.deepEqual(read.broadcast, ['elsewhere', 'string', true]);
      assert.equal(read.emitter, 'function');
      assert.deepEqual(read.wrong, [
        'TypeError: new BroadcastChannelServerTransport(options): options.channelName is required (a non-empty string)',
        'TypeError: new ExtensionServerTransport(options): options.keepAliveInterval must be a positive number of milliseconds',
        'TypeError: new IframeChildServerTransport(options): options.parentOrigin: "not an origin" is not an origin (expected e.g. "https://example.com")',
        'TypeError: new PostMessageServerTransport(options): options.maxInFlight must be a positive integer, got 0',
        'TypeError: new EventServerTransport(options): options.emitter must have emit(), on() and off() methods (no emit())',
        'TypeError: new IframeParentServerTransport(options): options.iframe is required: the HTMLIFrameElement the client runs in',
      ]);
      assert.deepEqual(read.listed, ['first']);
      assert.equal(read.serving, true);
      // (The connects asked for the module.)
      await askedFor();
      assert.deepEqual(asked, ['fetch'], 'nothing read synchronously');
      release();
      const [good, broadcast, closed] = await page.evaluate(() => window.outcomes);
      assert.equal(good, 'own');
      assert.equal(broadcast, true);
      assert.match(closed, /^InvalidStateError: This event transport has already been connected/);
      assert.deepEqual(asked, ['fetch']);
      // The session serves its tool on the port.
      const call = await page.evaluate(async () => {
        const rpc = (id, method, params) => new Promise((resolve) => {
          port.onmessage = (e) => e.data?.payload?.id === id && resolve(e.data.payload);
          port.postMessage({ type: 'own', payload: { jsonrpc: '2.0', id, method, params } });
        });
        await rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'p', version: '1' } });
        port.postMessage({ type: 'own', payload: { jsonrpc: '2.0', method: 'notifications/initialized' } });
        return (await rpc(2, 'tools/call', { name: 'fromSession', arguments: {} })).result.content[0].text;
      });
      assert.equal(call, 'served');
    }));

  test(`${build} build: what an agent sends over the page's own extension port or emitter (which keep no queue) while the page's connect() waits for the deferred module is kept, and answered in order once it has arrived`, () =>
    whileDeferredHeld(inlinePage(tag), async ({ page, asked, release, askedFor }) => {
      await page.evaluate(async () => {
        await document.modelContext.registerTool({ name: 't', description: 'T', execute: () => 'ran' });
        const init = (id) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agent', version: '1' } } });
        window.got = { event: [], port: [] };
        // An emitter of the page's.
        const ls = new Map();
        const emitter = {
          on: (t, f) => (ls.get(t) ?? ls.set(t, new Set()).get(t)).add(f),
          off: (t, f) => ls.get(t)?.delete(f),
          emit: (t, m) => [...(ls.get(t) ?? [])].forEach((f) => f(m)),
        };
        emitter.on('mcp:response', (m) => got.event.push(m));
        window.emitter = emitter;
        // An extension port (chrome.runtime.Port's shape), the agent at its other end.
        const listeners = new Set();
        const port = {
          name: 'mcp',
          onMessage: { addListener: (f) => listeners.add(f), removeListener: (f) => listeners.delete(f) },
          onDisconnect: { addListener() {}, removeListener() {} },
          postMessage: (m) => got.port.push(structuredClone(m)),
        };
        window.agentSends = (m) => [...listeners].forEach((f) => f(structuredClone(m), port));
        window.connected = Promise.all([
          document.modelContext.connect({ transport: { type: 'event', emitter } }),
          document.modelContext.connect({ transport: { type: 'extension', port } }),
        ]).then(() => 'connected', (e) => `${e.name}: ${e.message}`);
        // The agents speak at once: the transports do not listen yet.
        emitter.emit('mcp:request', init(1));
        emitter.emit('mcp:request', { jsonrpc: '2.0', method: 'notifications/initialized' });
        emitter.emit('mcp:request', { jsonrpc: '2.0', id: 2, method: 'tools/list' });
        agentSends(init(1));
        agentSends({ jsonrpc: '2.0', method: 'notifications/initialized' });
        agentSends({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      });
      await askedFor();
      assert.deepEqual(await page.evaluate(() => [got.event.length, got.port.length]), [0, 0], 'nothing answered before the module');
      release();
      assert.equal(await page.evaluate(() => connected), 'connected');
      const answers = await page.evaluate(async () => {
        const of = (list) => list.filter((m) => m && m.id !== undefined).map((m) => (m.result?.tools ? m.result.tools.map((t) => t.name) : m.result?.protocolVersion ?? m.error?.message));
        await __until(() => got.event.length >= 2 && got.port.length >= 2, 'the answers', 10_000);
        return { event: of(got.event), port: of(got.port) };
      });
      assert.deepEqual(answers, { event: ['2025-06-18', ['t']], port: ['2025-06-18', ['t']] });
      assert.deepEqual(asked, ['fetch']);
    }));

  test(`${build} build: a page that configures the server (serverInfo, limits, the tab transport's options as an object) starts, registers and is listed without a synchronous read`, () =>
    withPage(async ({ page, context, goto }) => {
      const asked = await watchDeferred(context);
      await goto(await clientPage(`<script>window.modelContextPolyfillConfig = {
  serverInfo: { name: 'configured', version: '2.0.0', title: 'Configured', instructions: 'Call t1.' },
  limits: { maxMessageBytes: 2 * 1024 * 1024, pageSize: 100, toolTimeoutMs: 60000 },
  tab: {
    channelId: 'mcp-default', allowedOrigins: [location.origin], rateLimit: { messages: 1000, perMs: 1000 },
    maxMessageBytes: 1024 * 1024, onOriginViolation: () => {} } };</script>${tag}`));
      await page.waitForFunction(() => window.Bench && document.modelContext);
      await page.evaluate(READY);
      assert.deepEqual(await page.evaluate(FIRST), FIRST_RESULT);
      // (Before the start's trace had such a page, parsing these read the module at once.)
      assert.deepEqual(asked, ['fetch'], 'the first module needed the deferred module: run make split-list');
      assert.deepEqual(await page.evaluate(() => [client.getServerVersion().name, client.getInstructions()]), ['configured', 'Call t1.']);
      assert.deepEqual(await page.evaluate(CALLS), CALLS_RESULT);
    }));

  test(`${build} build: a page whose configuration has mistakes (serverInfo, limits; then the tab transport's options) starts without a synchronous read: each mistake warns, the defaults serve in its place, the rest works`, () =>
    withPage(async ({ page, context, goto, server, consoleMessages }) => {
      const asked = await watchDeferred(context);
      // serverInfo.icons not an array (before, the whole core failed to start), a number for a
      // string, a negative size limit.
      await goto(await clientPage(`<script>window.modelContextPolyfillConfig = {
  serverInfo: { name: 'mistaken', version: 2, icons: 'icon.png' }, limits: { maxMessageBytes: -1 } };</script>${tag}`));
      await page.waitForFunction(() => window.Bench && document.modelContext);
      await page.evaluate(READY);
      assert.deepEqual(await page.evaluate(FIRST), FIRST_RESULT);
      const info = await page.evaluate(() => client.getServerVersion());
      assert.equal(info.name, new URL(server.origin).host);
      assert.deepEqual(asked, ['fetch'], 'a mistake needed the deferred module: make split-list');
      const warned = (re) => consoleMessages.some((m) => m.type === 'warning' && re.test(m.text));
      assert.ok(warned(/serverInfo\.icons must be an array; using the default serverInfo/), JSON.stringify(consoleMessages));
      assert.ok(warned(/limits\.maxMessageBytes must be a positive integer, got -1; using the default limits/), JSON.stringify(consoleMessages));
      // The tab transport's options: no default tab server, the page's tools registered.
      asked.length = 0;
      await goto(await inlinePage(`${HELPERS}<script>window.modelContextPolyfillConfig = { tab: { allowedOrigins: ['not an origin'] } };</script>${tag}`));
      await page.waitForFunction(() => document.modelContext);
      await page.evaluate(READY);
      await page.evaluate(() => document.modelContext.registerTool({ name: 't', description: 'T', execute: () => 't' }));
      assert.deepEqual(await page.evaluate(() => navigator.modelContextTesting.listTools().map((t) => t.name)), ['t']);
      assert.ok(warned(/default tab transport did not start: TypeError: .*allowedOrigins: "not an origin" is not an origin/), JSON.stringify(consoleMessages));
      assert.deepEqual(asked, ['fetch'], 'a mistake needed the deferred module: make split-list');
    }));

  test(`${build} build: with tab.persist and the deferred module answering 404, the tab server starts without persistence, saying so; registrations and an agent's discovery work, its calls are refused naming the module`, () =>
    withPage(async ({ page, context, goto, consoleMessages }) => {
      const asked = await watchDeferred(context, (route) => route.fulfill({ status: 404, body: 'not here' }));
      await goto(await clientPage(`<script>window.modelContextPolyfillConfig = { tab: { persist: true } };</script>${tag}`));
      await page.waitForFunction(() => window.Bench && document.modelContext);
      const r = await page.evaluate(async () => {
        await globalThis[Symbol.for('modelcontext-polyfill')].ready;
        await document.modelContext.registerTool({ name: 'which', description: 'W', execute: () => 'w' });
        window.client = new Bench.Client({ name: 'persisted', version: '1.0.0' });
        await client.connect(new Bench.TabClientTransport({ targetOrigin: location.origin }));
        return {
          listed: (await client.listTools()).tools.map((t) => t.name),
          call: await client.callTool({ name: 'which', arguments: {} }).then(() => 'answered', (e) => e.message),
          saved: sessionStorage.getItem('mcp-tab-session-mcp-default'),
        };
      });
      assert.deepEqual(r.listed, ['which']);
      assert.match(r.call, /tools\/call cannot be served: .*the core's deferred module .*HTTP 404/);
      assert.equal(r.saved, null, 'nothing persisted');
      assert.deepEqual(asked, ['fetch']);
      assert.ok(consoleMessages.some((m) => m.type === 'warning' && /the tab transport's session is not persisted \(modelContextPolyfillConfig\.tab\.persist\): .*HTTP 404/.test(m.text)),
        consoleMessages.map((m) => m.text).join('\n'));
    }));

  test(`${build} build: with the tab transport's session persisted (tab.persist), the engine starts once the deferred module has arrived (no synchronous read; the page's calls wait), and a reload restores the agent's session`, () =>
    withPage(async ({ page, context, goto }) => {
      const { asked, release, askedFor } = await holdDeferred(context, { firstOnly: true });
      try {
        await goto(await clientPage(`<script>window.modelContextPolyfillConfig = { tab: { persist: true } };
window.loads = Number(sessionStorage.getItem('loads') || 0) + 1; sessionStorage.setItem('loads', String(loads));</script>${tag}
<script type="module">window.seen = [];
document.modelContext.registerTool({ name: 'which', description: 'Which load answers', execute: () => 'load ' + loads }).then(() => seen.push('registered'));</script>`));
        await page.waitForFunction(() => window.Bench && globalThis[Symbol.for('modelcontext-polyfill')]);
        await askedFor();
        await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
        assert.deepEqual(await page.evaluate(() => [window.seen, Object.keys(globalThis[Symbol.for('modelcontext-polyfill')].transports).length]), [[], 0]);
        release();
        const first = await page.evaluate(async () => {
          await globalThis[Symbol.for('modelcontext-polyfill')].ready;
          window.client = new Bench.Client({ name: 'persisted', version: '1.0.0' });
          await client.connect(new Bench.TabClientTransport({ targetOrigin: location.origin }));
          const r = await client.callTool({ name: 'which', arguments: {} });
          return [seen, r.content[0].text, !!sessionStorage.getItem('mcp-tab-session-mcp-default')];
        });
        assert.deepEqual(first, [['registered'], 'load 1', true]);
        assert.deepEqual(asked, ['fetch']);
        // The reload: the agent's session goes on (a tools/call without initialize) once the
        // engine has started with the deferred module.
        await page.reload();
        await page.waitForFunction(() => globalThis[Symbol.for('modelcontext-polyfill')]);
        const after = await page.evaluate(async () => {
          const answers = [];
          addEventListener('message', (e) => {
            const d = e.data;
            if (d && d.type === 'mcp' && d.direction === 'server-to-client' && d.payload && d.payload.id === 'c2') answers.push(d.payload);
          });
          await globalThis[Symbol.for('modelcontext-polyfill')].ready;
          postMessage({ channel: 'mcp-default', type: 'mcp', direction: 'client-to-server', payload: { jsonrpc: '2.0', id: 'c2', method: 'tools/call', params: { name: 'which', arguments: {} } } }, '*');
          const [answer] = await __until(() => answers.length && answers, 'the answer', 5000);
          return answer.result?.content?.[0]?.text ?? answer.error;
        });
        assert.equal(after, 'load 2');
        assert.deepEqual(asked, ['fetch', 'fetch']);
      } finally {
        release();
      }
    }));

  test(`${build} build: the session API and the earlier drafts' methods wait for the deferred module (no synchronous read), and the calls after them wait behind them, in order`, () =>
    withPage(async ({ page, context, goto }) => {
      const { asked, release, askedFor } = await holdDeferred(context);
      await goto(await inlinePage(tag));
      await page.evaluate(STARTED);
      await page.evaluate(() => {
        window.seen = [];
        const mc = document.modelContext;
        mc.registerTool({ name: 'before', description: 'B', execute: () => 'b' }).then(() => seen.push('registered before'));
        mc.connect({ serverInfo: { name: 'held', version: '1.0.0' } }).then((session) => {
          seen.push('connected');
          session.registerTool('fromSession', { description: 'S', handler: () => 's' });
        });
        const off = mc.registerTool('defined', { description: 'D', handler: () => 'd' });
        seen.push(`registerTool(name, def) gave ${typeof off}`);
        mc.provideContext({ tools: [{ name: 'legacy', description: 'L', execute: () => 'l' }] });
        mc.registerTool({ name: 'after', description: 'A', execute: () => 'a' }).then(() => seen.push('registered after'));
      });
      await askedFor();
      await page.evaluate(() => new Promise((r) => setTimeout(r, 200)));
      // What does not need the deferred module went through; the rest waits, and 'after' with it,
      // and `ready`.
      assert.deepEqual(await page.evaluate(() => window.seen), ['registerTool(name, def) gave function', 'registered before']);
      await page.evaluate(() => {
        globalThis[Symbol.for('modelcontext-polyfill')].ready.then(() => seen.push('ready'));
      });
      release();
      await page.waitForFunction(() => window.seen.length === 5);
      const r = await page.evaluate(async () => {
        await __until(() => navigator.modelContextTesting.listTools().length === 4, 'the tools', 5000);
        return { seen: window.seen, tools: navigator.modelContextTesting.listTools().map((t) => t.name).sort() };
      });
      assert.deepEqual(r.seen.slice(2).sort(), ['connected', 'ready', 'registered after']);
      // provideContext replaced the W3C tools registered before it ('before'), as it always does.
      assert.ok(['after', 'defined', 'fromSession', 'legacy'].every((t) => r.tools.includes(t)), JSON.stringify(r.tools));
      assert.deepEqual(asked, ['fetch']);
    }));

  test(`${build} build: a tool the page registers with the session API while the deferred module is on its way is found by an agent's tools/call that came after it (held until the module arrived, then answered after the page's registration)`, () =>
    whileDeferredHeld(clientPage(tag), async ({ page, asked, release }) => {
      const before = await page.evaluate(async (init) => {
        document.modelContext.registerTool('early', { description: 'E', handler: () => ({ content: [{ type: 'text', text: 'from early' }] }) });
        const negotiated = (await __tabAsk('initialize', init)).result.protocolVersion;
        window.call = __tabAsk('tools/call', { name: 'early', arguments: {} });
        return negotiated;
      }, initializeIn('2025-06-18'));
      assert.equal(before, '2025-06-18');
      release();
      const answer = await page.evaluate(() => window.call);
      assert.deepEqual(answer.result?.content, [{ type: 'text', text: 'from early' }], JSON.stringify(answer));
      assert.deepEqual(asked, ['fetch']);
    }));

  test(`${build} build: a page with a <form toolname> starts its forms once the deferred module has arrived (no synchronous read); calls made meanwhile and ready wait for them`, () =>
    withPage(async ({ page, context, goto }) => {
      const { asked, release, askedFor } = await holdDeferred(context);
      await goto(await inlinePage(`<form toolname="early" tooldescription="A form"><input name="q"></form>${tag}`));
      await page.waitForFunction(() => globalThis[Symbol.for('modelcontext-polyfill')]);
      await page.evaluate(() => {
        window.seen = [];
        const mc = document.modelContext;
        globalThis[Symbol.for('modelcontext-polyfill')].ready.then(() => seen.push(['ready', navigator.modelContextTesting.listTools().map((t) => t.name)]));
        mc.registerTool({ name: 'script', description: 'S', execute: () => 's' })
          .then(() => mc.getTools())
          .then((tools) => seen.push(['getTools', tools.map((t) => t.name).sort()]));
      });
      await askedFor();
      await page.evaluate(() => new Promise((r) => setTimeout(r, 200)));
      assert.deepEqual(await page.evaluate(() => window.seen), []);
      release();
      await page.waitForFunction(() => window.seen.length === 2);
      const seen = Object.fromEntries(await page.evaluate(() => window.seen));
      assert.ok(seen.ready.includes('early'), JSON.stringify(seen));
      assert.deepEqual(seen.getTools, ['early', 'script']);
      assert.deepEqual(asked, ['fetch']);
    }));
}

test("with the browser's own WebMCP, the page's tools are mirrored on it and its tools served once the deferred module has arrived (no synchronous read); the page registers meanwhile", () =>
  withPage(async ({ page, context, goto }) => {
    const { asked, release, askedFor } = await holdDeferred(context);
    await goto(await inlinePage(`${BUILDS.classic}<script>
      const schema = { type: 'object', properties: { q: { type: 'string' } } };
      window.registered = navigator.modelContext.registerTool({ name: 'mine', description: 'M', inputSchema: schema, execute: () => 'm' }).then(() => 'ok');
      document.modelContext.registerTool({ name: 'native', description: 'N', inputSchema: schema, execute: () => 'n' });
    </script>`));
    await askedFor();
    const names = () => page.evaluate(async () => ({
      native: (await document.modelContext.getTools()).map((t) => t.name).sort(),
      polyfill: navigator.modelContextTesting.listTools().map((t) => t.name).sort(),
    }));
    assert.equal(await page.evaluate(() => window.registered), 'ok');
    await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
    assert.deepEqual(await names(), { native: ['native'], polyfill: ['mine'] });
    release();
    await page.evaluate(() => __until(async () => (await document.modelContext.getTools()).length === 2, 'the mirror', 10_000));
    await page.evaluate(() => __until(() => navigator.modelContextTesting.listTools().length === 2, 'the proxy', 10_000));
    assert.deepEqual(await names(), { native: ['mine', 'native'], polyfill: ['mine', 'native'] });
    assert.deepEqual(asked, ['fetch']);
  }, { nativeWebMCP: true }));

test('the deferred module and its call module are looked for beside a configured coreUrl, or at deferredUrl (the call module beside it), or at callsUrl', () =>
  withPage(async ({ page, context, goto }) => {
    const asked = [];
    await context.route((url) => url.pathname.endsWith('.wasm'), (route) => {
      asked.push(new URL(route.request().url()).pathname);
      return route.continue();
    });
    const threeAsked = async () => {
      const deadline = Date.now() + 10_000;
      while (asked.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return [...asked].sort();
    };
    await goto(await inlinePage(`<script>window.modelContextPolyfillConfig = { coreUrl: '/dist/modelcontext_glue_bg.wasm?moved' };</script>${BUILDS.classic}`));
    await page.evaluate(READY);
    assert.deepEqual(await threeAsked(), ['/dist/modelcontext_calls.wasm', '/dist/modelcontext_deferred.wasm', '/dist/modelcontext_glue_bg.wasm']);
    asked.length = 0;
    // (The call module missing, the deferred module is still asked for; `ready` resolves once
    // neither could be had.)
    await goto(await inlinePage(`<script>window.modelContextPolyfillConfig = { deferredUrl: '/missing/deferred.wasm' };</script>${BUILDS.ESM}`));
    await page.evaluate(READY);
    assert.deepEqual(await threeAsked(), ['/dist/modelcontext_glue_bg.wasm', '/missing/deferred.wasm', '/missing/modelcontext_calls.wasm']);
    asked.length = 0;
    await goto(await inlinePage(`<script>window.modelContextPolyfillConfig = { callsUrl: '/dist/modelcontext_calls.wasm?moved' };</script>${BUILDS.ESM}`));
    await page.evaluate(READY);
    assert.deepEqual(await threeAsked(), ['/dist/modelcontext_calls.wasm', '/dist/modelcontext_deferred.wasm', '/dist/modelcontext_glue_bg.wasm']);
    assert.equal(await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/modelcontext_calls.wasm?moved')).length), 1);
  }));

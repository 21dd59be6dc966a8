// polyfill/src/message_text.js: how every transport measures a received message before anything
// is copied into wasm memory (src/transport/guard.rs, `message_text`). Run in a fresh V8 context
// whose JSON.stringify counts its calls, so each case also shows whether the message was
// serialized at all. The transports' replies to oversized and unserializable messages are
// tested end to end in transport_hostile, tab_transport and transport_recovery.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { REPO_ROOT } from '../../scripts/lib/project.mjs';

const SOURCE = fs.readFileSync(path.join(REPO_ROOT, 'polyfill/src/message_text.js'), 'utf8');

function load() {
  const context = vm.createContext({});
  vm.runInContext(SOURCE, context);
  vm.runInContext(
    `globalThis.serialized = 0;
     const stringify = JSON.stringify;
     JSON.stringify = function (...a) { serialized++; return stringify.apply(this, a); };`,
    context,
  );
  // measure(expression, max): evaluated in the context, so its objects are that realm's.
  const measure = (expr, max) => {
    context.serialized = 0;
    const value = vm.runInContext(`__mcpMessageText(${expr}, ${max})`, context);
    return { value, serialized: context.serialized };
  };
  return { measure, context };
}

test('a message within the limit is its JSON text, serialized once', () => {
  const { measure } = load();
  const msg = `{ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { a: 1, s: 'é' } } }`;
  const r = measure(msg, 4096);
  assert.equal(r.value, '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"a":1,"s":"é"}}}');
  assert.equal(r.serialized, 1);
  // Exactly at the limit (in UTF-16 code units) still fits; one unit less does not.
  const exact = r.value.length;
  assert.equal(measure(msg, exact).value, r.value);
  assert.equal(measure(msg, exact - 1).value, exact);
});

test('strings past the limit among the first values refuse the message without serializing it', () => {
  const { measure } = load();
  const r = measure(`{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { a: 'x'.repeat(100000) } } }`, 1000);
  assert.equal(typeof r.value, 'number');
  // A lower bound: at least the string and its quotes, never more than the real text.
  assert.ok(r.value > 100000, String(r.value));
  assert.ok(r.value <= 100000 + 200, String(r.value));
  assert.equal(r.serialized, 0);
  // In an array too, and in a key's value deep inside.
  assert.equal(measure(`[{ a: 'x'.repeat(5000) }]`, 1000).serialized, 0);
  assert.equal(typeof measure(`{ p: { q: { r: ['y'.repeat(5000)] } } }`, 1000).value, 'number');
});

test('a message long only through what the walk does not count is serialized, then refused by its length', () => {
  const { measure } = load();
  // Numbers count nothing in the bound; the text is longer than the limit.
  const r = measure(`{ n: Array.from({ length: 400 }, (_, i) => i * 1000) }`, 1000);
  assert.equal(typeof r.value, 'number');
  assert.ok(r.value > 1000);
  assert.equal(r.serialized, 1);
  // Beyond the walk's first 48 values, strings are not looked at either.
  const late = measure(`{ many: Array.from({ length: 100 }, () => 'ab'), last: 'z'.repeat(2000) }`, 1000);
  assert.equal(typeof late.value, 'number');
  assert.equal(late.serialized, 1);
});

test('values with their own JSON form count nothing in the bound', () => {
  const { measure } = load();
  // A toJSON returning less than the walk would have counted: the bound must not refuse it.
  const r = measure(`{ big: { s: 'x'.repeat(5000), toJSON() { return 'small'; } } }`, 100);
  assert.equal(r.value, '{"big":"small"}');
  // A class instance, likewise (JSON.stringify sees its own enumerable properties only).
  class Box { constructor() { this.s = 'x'.repeat(5000); } }
  const { context } = load();
  context.Box = Box;
  const m = vm.runInContext(`__mcpMessageText({ b: new Box() }, 10000)`, context);
  assert.match(m, /^\{"b":\{"s":"x+"\}\}$/);
  // A null-prototype object is plain: counted.
  assert.equal(measure(`{ o: Object.assign(Object.create(null), { s: 'x'.repeat(5000) }) }`, 100).serialized, 0);
});

test('no JSON form is undefined; what JSON.stringify throws is thrown', () => {
  const { measure } = load();
  assert.equal(measure(`() => 1`, 100).value, undefined);
  assert.equal(measure(`Symbol('s')`, 100).value, undefined);
  // A cycle, even with a small limit: the walk does not count an object twice.
  const cycle = `(() => { const a = { s: 'abc' }; a.self = a; return a; })()`;
  assert.throws(() => measure(cycle, 20), (e) => e.constructor.name === 'TypeError' && /circular/i.test(e.message));
  assert.throws(() => measure(`{ n: 1n }`, 100), (e) => e.constructor.name === 'TypeError' && /BigInt/.test(e.message));
  assert.throws(() => measure(`{ toJSON() { throw new RangeError('no'); } }`, 100), (e) => e.constructor.name === 'RangeError' && e.message === 'no');
  // Plain strings and numbers are JSON too (the transports answer them as malformed messages).
  assert.equal(measure(`'text'`, 100).value, '"text"');
  assert.equal(measure(`12`, 100).value, '12');
});

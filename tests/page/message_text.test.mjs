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

// A tools/call's long argument strings are held out of the text (__mcpHeldArguments): the core
// gets a marker in each one's place, the transport the strings (src/server/held.rs
// HeldArguments). The text must read as JSON.stringify's of the message with the markers in.
test('a tools/call\'s long argument strings are held out of its text, each replaced by a marker', () => {
  const { measure, context } = load();
  const call = (args, extra = '') => `{ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'take', arguments: ${args} }${extra} }`;
  const r = measure(call(`{ doc: 'x'.repeat(20000), nested: [{ s: 'y'.repeat(16384), t: 'short' }, 'z'.repeat(16383)], n: 1, u: undefined, __proto__: null }`), 1 << 20);
  assert.ok(Array.isArray(r.value), String(r.value).slice(0, 100));
  const [text, ...held] = r.value;
  assert.equal(r.serialized, 1);
  // A marker: the prefix, the message's name (the page's random one, then a count), the index.
  const name = /^\ufdd0arg ([0-9a-z]+\.0) 0$/.exec(held[0])?.[1];
  assert.ok(name, held[0]);
  const m = (i) => `\ufdd0arg ${name} ${i}`;
  assert.equal(text, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"take","arguments":{"doc":"${m(0)}","nested":[{"s":"${m(1)}","t":"short"},"${'z'.repeat(16383)}"],"n":1}}}`);
  assert.deepEqual(held, [m(0), 'x'.repeat(20000), m(1), 'y'.repeat(16384)]);
  // The next message's markers name it: no message's strings are taken for another's.
  const next = measure(call(`{ doc: 'x'.repeat(20000) }`), 1 << 20).value;
  assert.equal(next[1], `\ufdd0arg ${name.replace(/\.0$/, '.1')} 0`);
  // The message itself is left as it was.
  const payload = vm.runInContext(`globalThis.p = ${call(`{ doc: 'x'.repeat(20000) }`)}`, context);
  vm.runInContext(`__mcpMessageText(p, 1 << 20)`, context);
  assert.equal(payload.params.arguments.doc.length, 20000);
  // A member named __proto__ (JSON.parse and structured clones make them) stays a member.
  const proto = vm.runInContext(`__mcpMessageText(JSON.parse('{"method":"tools/call","params":{"arguments":{"__proto__":{"a":1},"d":"' + 'x'.repeat(20000) + '"}}}'), 1 << 20)`, context);
  assert.equal(proto[0], `{"method":"tools/call","params":{"arguments":{"__proto__":{"a":1},"d":"${proto[1]}"}}}`);
});

test('held strings count in the limit; a message they cannot be held from is serialized whole', () => {
  const { measure } = load();
  const call = (args) => `{ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'take', arguments: ${args} } }`;
  // Counted by their length and quotes, as the bound counts them: past the limit, refused with
  // the length the text would have.
  const whole = measure(call(`{ a: 'x'.repeat(20000), b: 'y'.repeat(20000) }`), 1 << 20).value;
  const length = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'take', arguments: { a: 'x'.repeat(20000), b: 'y'.repeat(20000) } } }).length;
  assert.ok(Array.isArray(whole));
  assert.equal(measure(call(`{ a: 'x'.repeat(20000), b: 'y'.repeat(20000) }`), length).value.length, 5);
  assert.equal(measure(call(`{ a: 'x'.repeat(20000), b: 'y'.repeat(20000) }`), length - 1).value, length);
  // Not held (the whole text, serialized once): another method, a batch, a string of the
  // agent's that starts as a marker, a value whose JSON form is its own (toJSON, a class
  // instance, a boxed string), a cycle (which JSON.stringify then refuses), no long string.
  const plainText = (expr) => {
    const r = measure(expr, 1 << 20);
    assert.equal(typeof r.value, 'string', expr.slice(0, 80));
    assert.equal(r.serialized, 1, expr.slice(0, 80));
    return r.value;
  };
  plainText(`{ jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'p', arguments: { a: 'x'.repeat(20000) } } }`);
  const batch = measure(`[${call(`{ a: 'x'.repeat(20000) }`)}]`, 1 << 20);
  assert.equal(typeof batch.value, 'string');
  assert.match(plainText(call(`{ a: 'x'.repeat(20000), m: '\\ufdd0arg 0' }`)), /"m":"\ufdd0arg 0"/);
  assert.match(plainText(call(`{ a: 'x'.repeat(20000), d: { toJSON() { return 'D'; } } }`)), /"d":"D"/);
  assert.match(plainText(call(`{ a: 'x'.repeat(20000), s: new String('boxed') }`)), /"s":"boxed"/);
  // Long together, none long alone.
  assert.match(plainText(call(`{ a: 'x'.repeat(16383), b: 'y'.repeat(16383) }`)), /^\{"jsonrpc":"2.0","id":3,"method":"tools\/call","params":\{"name":"take","arguments":\{"a":"x{16383}","b":"y{16383}"\}\}\}$/);
  assert.equal(typeof measure(call(`{ a: 'x'.repeat(100) }`), 1 << 20).value, 'string');
  const cycle = call(`(() => { const o = { a: 'x'.repeat(20000) }; o.self = o; return o; })()`);
  assert.throws(() => measure(cycle, 1 << 20), (e) => e.constructor.name === 'TypeError' && /circular/i.test(e.message));
  // A value met twice without a cycle is written twice, as JSON.stringify writes it.
  const twice = measure(call(`(() => { const s = { t: 'x'.repeat(20000) }; return { a: s, b: s }; })()`), 1 << 20).value;
  assert.equal(twice.length, 5);
  assert.match(twice[1], / 0$/);
  assert.match(twice[3], / 1$/);
  assert.ok(twice[0].includes(`"a":{"t":"${twice[1]}"},"b":{"t":"${twice[3]}"}`), twice[0]);
});

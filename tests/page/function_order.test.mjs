// A module's functions laid out so that look-alikes are near each other
// (scripts/lib/function-order.mjs): the order on made-up bodies, and a small module renumbered by
// wasm-opt answering as before; build.test.mjs checks the validator make build ships.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import zlib from 'node:zlib';
import { similarityOrder, orderFunctions } from '../../scripts/lib/function-order.mjs';
import { sections, sectionEntries, codeEntries } from '../../scripts/lib/wasm-module.mjs';
import { sleb } from '../../scripts/lib/data-split.mjs';
import { WASM_OPT_FEATURES, WASM_OPT_STRIP } from '../../scripts/lib/project.mjs';
import { REPO_ROOT } from './harness.mjs';
import { wat } from './lib/wat.mjs';
import { random } from './lib/random.mjs';

const WASM_OPT = path.join(REPO_ROOT, 'node_modules', '.bin', 'wasm-opt');

/**
 * `families` families of `members` bodies, laid out one of each family after the other (so
 * that a body's relatives are further back than deflate's 32 KB): each body is its family's
 * 3 KB with one byte in 20 changed, then 1 KB of its own.
 */
function interleaved(families, members) {
  const word = random(7);
  const next = () => word() & 0xff;
  const themes = Array.from({ length: families }, () => Buffer.from(Array.from({ length: 3072 }, next)));
  const bodies = [];
  const family = [];
  for (let m = 0; m < members; m++) {
    for (let f = 0; f < families; f++) {
      const body = Buffer.concat([Buffer.from(themes[f]), Buffer.from(Array.from({ length: 1024 }, next))]);
      for (let i = 0; i < 3072; i += 20) body[i + (next() % 20)] = next();
      bodies.push(body);
      family.push(f);
    }
  }
  return { bodies, family };
}

const gzip = (bodies, order) => zlib.gzipSync(Buffer.concat(order.map((i) => bodies[i])), { level: 9 }).length;

test('similarityOrder puts look-alike bodies next to each other: a permutation that gzips smaller', () => {
  const { bodies, family } = interleaved(12, 6);
  const order = similarityOrder(bodies);
  assert.deepEqual([...order].sort((a, b) => a - b), bodies.map((_, i) => i), 'each function once');
  const alike = order.slice(1).filter((f, i) => family[f] === family[order[i]]).length;
  assert.ok(alike >= 0.8 * (order.length - 1), `${alike} of ${order.length - 1} neighbours of the same family`);
  const before = gzip(bodies, bodies.map((_, i) => i));
  const after = gzip(bodies, order);
  assert.ok(after < before * 0.8, `gzip ${before} → ${after}`);
  assert.deepEqual(similarityOrder(bodies), order, 'the same order every time');
  assert.deepEqual(similarityOrder(bodies.slice(0, 2)), [0, 1]);
  assert.deepEqual(similarityOrder([]), []);
});

const MODULE = `(module
  (type $r (func (result i32)))
  (import "env" "add" (func $add (param i32 i32) (result i32)))
  (table $t 3 funcref)
  (elem (i32.const 0) $f0 $f2 $f4)
  (global $g (mut i32) (i32.const 0))
  (func $f0 (result i32) (i32.const 1100))
  (func $f1 (result i32) (call $add (call $f0) (i32.const 1201)))
  (func $f2 (result i32) (i32.add (call $f1) (i32.const 1302)))
  (func $f3 (result i32) (i32.add (call_indirect (type $r) (i32.const 2)) (i32.const 1403)))
  (func $f4 (result i32) (i32.add (global.get $g) (i32.const 1504)))
  (func $start (global.set $g (i32.const 1605)))
  (start $start)
  (export "f1" (func $f1))
  (export "f2" (func $f2))
  (export "f3" (func $f3))
  (export "t" (table $t)))`;
// Each defined function's marker: the first constant it has (an i32.const).
const MARKERS = [1100, 1201, 1302, 1403, 1504, 1605];

/** Which function (by marker) each body of `bytes`'s code section is, in order. */
function bodyMarkers(bytes) {
  return sectionEntries(bytes, 10, codeEntries).map((body) =>
    MARKERS.findIndex((m) => Buffer.from(body).includes(Buffer.concat([Buffer.from([0x41]), sleb(m)]))));
}

/** What the module's exports answer, and its table's functions. */
async function answers(bytes) {
  const { instance } = await WebAssembly.instantiate(bytes, { env: { add: (a, b) => a + b } });
  const { f1, f2, f3, t } = instance.exports;
  return [f1(), f2(), f3(), t.get(0)(), t.get(1)(), t.get(2)()];
}

test('orderFunctions lays the functions out in the order asked, and calls, the table, the exports and the start function answer as before', async () => {
  const original = Buffer.from(await wat(MODULE));
  assert.deepEqual(bodyMarkers(original), [0, 1, 2, 3, 4, 5]);
  const expected = await answers(original);
  // f1 = 1100 + 1201, f2 = f1 + 1302, f3 = f4 + 1403 with f4 = 1605 (the start's) + 1504; the table: f0, f2, f4
  assert.deepEqual(expected, [2301, 3603, 4512, 1100, 3603, 3109]);
  const flags = [...WASM_OPT_FEATURES, ...WASM_OPT_STRIP];
  for (const order of [[5, 4, 3, 2, 1, 0], [2, 0, 5, 1, 4, 3], [0, 1, 2, 3, 4, 5]]) {
    const ordered = await orderFunctions(original, { wasmOpt: WASM_OPT, flags, order: () => order });
    assert.deepEqual(bodyMarkers(ordered), order, `laid out as ${order}`);
    assert.deepEqual(await answers(ordered), expected, `answers with ${order}`);
    assert.ok(!sections(ordered).some((s) => s.id === 0), 'no custom section left (the names added for the sorting)');
  }
  // With the default order too.
  assert.deepEqual(await answers(await orderFunctions(original, { wasmOpt: WASM_OPT, flags })), expected);
});

test('orderFunctions refuses an order that is not a permutation of the functions', async () => {
  const original = Buffer.from(await wat(MODULE));
  const flags = [...WASM_OPT_FEATURES, ...WASM_OPT_STRIP];
  for (const order of [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 4], [0, 1, 2, 3, 4, 6], [0, 1, 2, 3, 4, -1]]) {
    await assert.rejects(orderFunctions(original, { wasmOpt: WASM_OPT, flags, order: () => order }), /not a permutation/);
  }
});

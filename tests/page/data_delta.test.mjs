// A module's data written as differences and put back by a start function
// (scripts/lib/data-delta.mjs), on small modules; build.test.mjs checks the validator make build
// ships.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { deltaData, memoryAfterInstantiation, TABLE_ADDRESS } from '../../scripts/lib/data-delta.mjs';
import { sections } from '../../scripts/lib/wasm-module.mjs';
import { wat } from './lib/wat.mjs';
import { random } from './lib/random.mjs';

const START = 8;

/** `bytes` as a WebAssembly text string literal. */
function literal(bytes) {
  return `"${[...bytes].map((b) => `\\${b.toString(16).padStart(2, '0')}`).join('')}"`;
}

/** Sorted ranges of code points, 8 bytes each, as regex-syntax's Unicode tables are. */
function ranges(count, next) {
  const b = Buffer.alloc(count * 8);
  let cp = 0x41;
  for (let i = 0; i < count; i++) {
    const start = cp + 1 + (next() % 40);
    const end = start + (next() % 12);
    b.writeUInt32LE(start, i * 8);
    b.writeUInt32LE(end, i * 8 + 4);
    cp = end;
  }
  return b;
}

/** A module whose data segments are `segments` ([offset, bytes]), with `sum(from, to)` over its words. */
function moduleText(segments, extra = '') {
  return `(module
    (memory (export "memory") 4)
    ${segments.map(([offset, bytes]) => `(data (i32.const ${offset}) ${literal(bytes)})`).join('\n')}
    ${extra}
    (func (export "sum") (param $from i32) (param $to i32) (result i32) (local $s i32)
      (block $done (loop $next
        (br_if $done (i32.ge_u (local.get $from) (local.get $to)))
        (local.set $s (i32.add (local.get $s) (i32.load (local.get $from))))
        (local.set $from (i32.add (local.get $from) (i32.const 4)))
        (br $next)))
      (local.get $s)))`;
}

const gzip = (b) => zlib.gzipSync(b, { level: 9 }).length;

test('deltaData: tables of code points are written as differences and gzip smaller; instantiated, the module\'s memory is byte for byte the original\'s, the table of strides zero again', async () => {
  const next = random(7);
  const text = Buffer.from('a message the module writes; '.repeat(40));
  const noise = Buffer.alloc(2048);
  for (let i = 0; i < noise.length; i += 4) noise.writeUInt32LE(next(), i);
  // Two tables (one at an address not a multiple of 4), text, words that do not compress, a gap.
  const segments = [[8192, ranges(1500, next)], [8192 + 12000 + 1, ranges(700, next)], [40000, text], [48000, noise]];
  const original = await wat(moduleText(segments));
  const { bytes, blocks, encoded } = deltaData(original);
  assert.ok(WebAssembly.validate(bytes));
  assert.ok(encoded > 0 && encoded < blocks, `${encoded} of ${blocks} blocks encoded`);
  assert.ok(sections(bytes).some((s) => s.id === START), 'a start function');
  assert.ok(gzip(bytes) < gzip(original) * 0.8, `gzip ${gzip(original)} → ${gzip(bytes)}`);

  const before = await memoryAfterInstantiation(original);
  const after = await memoryAfterInstantiation(bytes);
  assert.equal(after.length, before.length);
  assert.ok(Buffer.compare(after, before) === 0, 'the same memory');
  assert.ok(after.subarray(TABLE_ADDRESS, TABLE_ADDRESS + blocks).every((b) => b === 0));
  const sums = [];
  for (const b of [original, bytes]) {
    const { instance } = await WebAssembly.instantiate(b);
    sums.push(instance.exports.sum(8192, 56000));
  }
  assert.equal(sums[1], sums[0]);
});

test('deltaData: a module whose data does not gzip smaller as differences, or that has none, is returned as it was', async () => {
  const next = random(11);
  const noise = Buffer.alloc(4096);
  for (let i = 0; i < noise.length; i += 4) noise.writeUInt32LE(next(), i);
  const noisy = await wat(moduleText([[8192, noise]]));
  assert.deepEqual(deltaData(noisy), { bytes: noisy, blocks: 32, encoded: 0 });
  const empty = await wat(moduleText([]));
  assert.deepEqual(deltaData(empty), { bytes: empty, blocks: 0, encoded: 0 });
});

test('deltaData refuses a module it cannot decode in: one with a start function, one importing its memory, one whose data starts below the end of the table of strides', async () => {
  const table = ranges(600, random(3));
  const started = await wat(moduleText([[8192, table]], '(func $init) (start $init)'));
  assert.throws(() => deltaData(started), /start function already/);
  const imported = await wat(`(module (import "m" "memory" (memory 4)) (data (i32.const 8192) ${literal(table)}))`);
  assert.throws(() => deltaData(imported), /does not define its memory/);
  const low = await wat(moduleText([[1030, table]]));
  assert.throws(() => deltaData(low), /below the table's end/);
});

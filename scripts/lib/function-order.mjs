// A module's functions put in an order that gzip and brotli compress better (scripts/build.mjs,
// after the last wasm-opt step of each module it ships). The order of a module's functions changes no answer: only
// their indices, which binaryen rewrites everywhere they appear (calls, the table's elements,
// exports, the start function).
//
// Deflate finds a repeat only in the 32 KB before it. The validator's 5,000 functions are
// largely alike in pairs and families (one generic function compiled for several types, the
// same prologue and epilogue around different bodies), but the linker and wasm-opt lay them out
// by crate and by call count, so most of a function's look-alikes are further back than that.
// `similarityOrder` chains them greedily: after each function, the one whose byte sequences
// (6-byte grams) occur most, as a share of its own, in the last 32 KB laid out, chosen among
// the unplaced functions nearest to the last one in two sortings (by the bytes of each body from
// its start, and from its end: functions that begin alike or end alike). `orderFunctions` has
// wasm-opt apply it: each function gets a name that sorts where it goes, and binaryen's
// `--reorder-functions-by-name` lays them out by name and renumbers every use.
//
//   similarityOrder(bodies, options?) → the defined functions' indices (0 = the first body),
//   in their new order.
//   orderFunctions(bytes, { wasmOpt, flags }) → (a promise of) the module with its functions in
//   that order.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sections, sectionEntries, codeEntries, importEntries, uleb, wasmName } from './wasm-module.mjs';

const GRAM = 6;
// Counts of the grams in the window, by hash (collisions only blur the score).
const SLOTS = 1 << 22;

/**
 * The greedy order described above.
 * @param {Uint8Array[]} bodies each defined function's body, in the module's order
 * @param {{ window?: number, neighbours?: number }} [options] the bytes looked back over (deflate's
 *   32 KB), and how many unplaced functions each sorting offers as candidates
 * @returns {number[]}
 */
export function similarityOrder(bodies, { window = 32 * 1024, neighbours = 100 } = {}) {
  const count = bodies.length;
  if (count < 3) return bodies.map((_, i) => i);
  const grams = bodies.map((b) => {
    const out = new Int32Array(Math.max(0, b.length - GRAM + 1));
    for (let j = 0; j < out.length; j++) {
      let h = 0x811c9dc5;
      for (let k = 0; k < GRAM; k++) h = Math.imul(h ^ b[j + k], 0x01000193);
      out[j] = (h >>> 0) & (SLOTS - 1);
    }
    return out;
  });
  const reversed = bodies.map((b) => Buffer.from(b).reverse());
  const byStart = bodies.map((_, i) => i).sort((a, b) => Buffer.compare(bodies[a], bodies[b]) || a - b);
  const byEnd = bodies.map((_, i) => i).sort((a, b) => Buffer.compare(reversed[a], reversed[b]) || a - b);
  const sortings = [byStart, byEnd].map((sorted) => {
    const at = new Int32Array(count);
    sorted.forEach((f, i) => (at[f] = i));
    return { sorted, at };
  });

  const counts = new Uint16Array(SLOTS);
  const placed = new Uint8Array(count);
  const recent = [];
  let recentBytes = 0;
  const order = [];
  const place = (f) => {
    placed[f] = 1;
    order.push(f);
    for (const g of grams[f]) counts[g] = Math.min(counts[g] + 1, 0xffff);
    recent.push(f);
    recentBytes += bodies[f].length;
    while (recentBytes - bodies[recent[0]].length >= window) {
      const old = recent.shift();
      recentBytes -= bodies[old].length;
      for (const g of grams[old]) if (counts[g] > 0) counts[g] -= 1;
    }
  };
  let next = 0; // the first unplaced function of byEnd, when no candidate is left
  place(byEnd[0]);
  while (order.length < count) {
    const last = order[order.length - 1];
    let best = -1;
    let bestScore = -1;
    for (const { sorted, at } of sortings) {
      let found = 0;
      for (let d = 1; found < neighbours && (at[last] - d >= 0 || at[last] + d < count); d++) {
        for (const q of [at[last] - d, at[last] + d]) {
          if (q < 0 || q >= count || placed[sorted[q]]) continue;
          found++;
          const f = sorted[q];
          const gs = grams[f];
          let hits = 0;
          for (const g of gs) if (counts[g]) hits++;
          const score = gs.length ? hits / gs.length : 0;
          if (score > bestScore || (score === bestScore && f < best)) {
            bestScore = score;
            best = f;
          }
        }
      }
    }
    if (best < 0) {
      while (placed[byEnd[next]]) next++;
      best = byEnd[next];
    }
    place(best);
  }
  return order;
}

/**
 * `bytes` (a module) with its defined functions laid out in `similarityOrder`, through
 * `wasmOpt --reorder-functions-by-name` (no other pass; `flags`, the module's features and
 * what to strip, are passed on; the name section added for the sorting goes with `--strip-debug`).
 * @param {Uint8Array} bytes
 * @param {{ wasmOpt: string, flags: string[], order?: (bodies: Uint8Array[]) => number[] }} options
 * @returns {Promise<Buffer>}
 */
export async function orderFunctions(bytes, { wasmOpt, flags, order = similarityOrder }) {
  const bodies = sectionEntries(bytes, 10, codeEntries);
  if (!bodies.length) return Buffer.from(bytes);
  // (a module the build hands over has no name section: the one added is the only one)
  if (sections(bytes).some((s) => s.id === 0 && s.name === 'name')) throw new Error('function-order.mjs: the module already has a name section');
  const imported = sectionEntries(bytes, 2, importEntries).filter((e) => e.kind === 0).length;
  const ranks = order(bodies);
  if (ranks.length !== bodies.length || new Set(ranks).size !== bodies.length || ranks.some((f) => !(f >= 0 && f < bodies.length))) {
    throw new Error('function-order.mjs: the order is not a permutation of the module\'s functions');
  }
  const width = String(imported + bodies.length).length;
  const names = new Array(imported + bodies.length);
  // (imports keep their place whatever their names; theirs sort first anyway)
  for (let i = 0; i < imported; i++) names[i] = `a${String(i).padStart(width, '0')}`;
  ranks.forEach((f, rank) => (names[imported + f] = `f${String(rank).padStart(width, '0')}`));
  const entries = names.map((name, i) => Buffer.concat([uleb(i), wasmName(name)]));
  const functionNames = Buffer.concat([uleb(names.length), ...entries]);
  const body = Buffer.concat([wasmName('name'), Buffer.from([1]), uleb(functionNames.length), functionNames]);
  const named = Buffer.concat([bytes, Buffer.from([0]), uleb(body.length), body]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'function-order-'));
  try {
    const input = path.join(dir, 'in.wasm');
    const output = path.join(dir, 'out.wasm');
    fs.writeFileSync(input, named);
    await promisify(execFile)(wasmOpt, ['--reorder-functions-by-name', ...flags, '--strip-debug', input, '-o', output], { maxBuffer: 64 * 1024 * 1024 });
    return fs.readFileSync(output);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// The core's call module, cut from its deferred module (scripts/lib/core-split.mjs): what an
// agent's `tools/call` runs of the deferred module, which the core asks for before the rest, so
// that the first call is answered once it has arrived rather than once the whole deferred module
// has (polyfill/src/deferred.js; src/transport/held.rs holds the calls until then).
//
// The deferred module is a list of functions and element segments that write some of them into
// the first module's function table, each in the slot of its placeholder; everything the first
// module reaches of it, it reaches through those slots. The call module is the deferred module
// with its element segments cut to the slots of the functions the calls run
// (polyfill/build/core-calls.txt names them; wasm-split's placeholder map gives their slots), and
// what nothing then reaches removed (`wasm-opt --remove-unused-module-elements`): the functions
// those reach by direct calls stay, the rest goes. No instruction is rewritten, so a function of
// the rest that a call reaches through the table is still a placeholder there, which reads the
// deferred module at once as it would without the call module.
//
// The deferred module's static data is cut between the two as the core's is between the first
// module and the deferred one (scripts/lib/data-split.mjs): the call module writes the objects its
// code can reach, the rest (the deferred module without those) the others, which nothing that has
// run before it can reach; no byte is written by both, since data written twice would put back
// what the call module's code had changed meanwhile (a static zeroed again, say). The glue
// instantiates the call module first, always. The rest writes the same table slots again with
// its own copies of the same functions.
//
//   cutCalls(deferred, slots, wasmOpt, objects) → { calls, rest, entries, moved }: `slots` the
//   table slots kept, `objects` the linker map's data objects (data-split.mjs's mapObjects),
//   `entries` how many of the deferred module's table entries the call module has, `moved` the
//   bytes of data (not zero) the rest writes.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { WASM_OPT_FEATURES, WASM_OPT_STRIP } from './project.mjs';
import { readWithFeatures } from './table-calls.mjs';
import { dataImage, splitData, withData } from './data-split.mjs';

/**
 * The name under which wasm-split's placeholder map names a function of a module without names:
 * its index among the module's defined functions.
 * @param {string} file the map wasm-split wrote (`slot:name` a line)
 * @returns {Map<number, number>} slot → index of the function among the defined ones
 */
export function readPlaceholderMap(file) {
  const slots = new Map();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^(\d+):(\d+)$/.exec(line.trim());
    if (m) slots.set(Number(m[1]), Number(m[2]));
  }
  return slots;
}

/**
 * The deferred module `deferred` (bytes) cut in two: `calls`, its element segments cut to the
 * table slots `slots` and what nothing reaches then removed (`wasmOpt -Oz`), with the static
 * data its code can reach; `rest`, the deferred module with the rest of its static data.
 * @param {Uint8Array} deferred
 * @param {Set<number>} slots
 * @param {string} wasmOpt npm binaryen's wasm-opt
 * @param {{ start: number, end: number }[]} objects the linker map's data objects (mapObjects)
 */
export async function cutCalls(deferred, slots, wasmOpt, objects) {
  const { default: binaryen } = await import('binaryen');
  const module = readWithFeatures(binaryen, deferred);
  let entries = 0;
  let bytes;
  try {
    const segments = Array.from({ length: module.getNumElementSegments() }, (_, i) => binaryen.getElementSegmentInfo(module.getElementSegmentByIndex(i)));
    for (const s of segments) {
      const offset = binaryen.getExpressionInfo(s.offset);
      if (offset.id !== binaryen.ConstId) throw new Error(`calls-cut.mjs: the deferred module's element segment ${s.name} is not at a constant offset`);
      module.removeElementSegment(s.name);
      // The entries kept, in runs of consecutive slots: a segment each.
      let run = null;
      const flush = () => {
        if (run) module.addActiveElementSegment(s.table, `${s.name}$calls${run.start}`, run.names, module.i32.const(run.start));
        run = null;
      };
      s.data.forEach((name, i) => {
        const slot = offset.value + i;
        if (!slots.has(slot)) return flush();
        entries++;
        if (run && run.start + run.names.length === slot) run.names.push(name);
        else {
          flush();
          run = { start: slot, names: [name] };
        }
      });
      flush();
    }
    if (!module.validate()) throw new Error('calls-cut.mjs: the call module does not validate');
    bytes = module.emitBinary();
  } finally {
    module.dispose();
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-calls-'));
  try {
    const file = path.join(dir, 'calls.wasm');
    fs.writeFileSync(file, bytes);
    execFileSync(wasmOpt, ['--remove-unused-module-elements', '-Oz', ...WASM_OPT_FEATURES, ...WASM_OPT_STRIP, file, '-o', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    const whole = fs.readFileSync(file);
    // (wasm-opt keeps every active segment: the call module writes what the deferred module would.)
    if (Buffer.compare(dataImage(whole), dataImage(deferred)) !== 0) throw new Error('calls-cut.mjs: the call module does not write the deferred module\'s static data');
    const data = splitData(whole, withData(deferred, []), objects, { partial: true });
    return { calls: data.first, rest: data.deferred, entries, moved: data.moved };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

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
// those reach by direct calls stay, the rest goes. No instruction of it is rewritten, so a
// function of the rest that a call reaches through the table is still a placeholder there, which
// reads the deferred module at once as it would without the call module.
//
// What is left, the rest, is what the page downloads as the deferred module: its element
// segments write the other slots, and the call module's functions its code calls are imports
// from the call module (CALLS_NAMESPACE; the call module exports them by short names), but for
// the smallest, of which it keeps copies (CALLS_COPY_MAX_BYTES). So only those are in both, and
// no slot is written twice.
//
// The deferred module's static data is cut between the two as the core's is between the first
// module and the deferred one (scripts/lib/data-split.mjs): the call module writes the objects its
// code can reach, the rest the others, which nothing that has run before it can reach; no byte
// is written by both, since data written twice would put back what the call module's code had
// changed meanwhile (a static zeroed again, say). The glue instantiates the call module first,
// always (the rest imports from it).
//
//   cutCalls(deferred, slots, wasmOpt, objects) → { calls, rest, … }: `slots` the table slots
//   kept, `objects` the linker map's data objects (data-split.mjs's mapObjects).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { WASM_OPT_FEATURES, WASM_OPT_STRIP } from './project.mjs';
import { readWithFeatures } from './table-calls.mjs';
import { dataImage, splitData, withData } from './data-split.mjs';
import { readModule } from './wasm-module.mjs';

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


/** The namespace the rest of the deferred module imports the call module's functions from. */
export const CALLS_NAMESPACE = 'calls';

/**
 * The call module's functions the rest keeps copies of rather than importing them: those whose
 * code is at most this many bytes. A call of an import crosses from one instance to the other,
 * which V8 never inlines, and each import is an export of the call module, bytes the first call
 * waits for. Measured on the core of 2026-12-06 (gzip -9, call module + rest; the deferred module
 * was 179,413 B before, its call module 62,946): all imported (0), 428 imports, 64,976 + 127,312;
 * 32, 306 imports, 63,886 + 128,228; 100, 120 imports, 62,845 + 131,725; 200, 60 imports,
 * 62,800 + 135,212 (with 100, 112 imports once the page's own calls had left the call
 * module). With 32, `make bench`'s 1 MiB object checked by an outputSchema took 1.08 of the time
 * it took before the cut (5 alternating rounds; the ranges apart).
 */
export const CALLS_COPY_MAX_BYTES = 100;

/** The element segments of `module` (binaryen.js's), each cut to the slots `keep(slot)` accepts. */
function cutSegments(binaryen, module, keep) {
  let entries = 0;
  const segments = Array.from({ length: module.getNumElementSegments() }, (_, i) => binaryen.getElementSegmentInfo(module.getElementSegmentByIndex(i)));
  for (const s of segments) {
    const offset = binaryen.getExpressionInfo(s.offset);
    if (offset.id !== binaryen.ConstId) throw new Error(`calls-cut.mjs: the deferred module's element segment ${s.name} is not at a constant offset`);
    module.removeElementSegment(s.name);
    // The entries kept, in runs of consecutive slots: a segment each.
    let run = null;
    const flush = () => {
      if (run) module.addActiveElementSegment(s.table, `${s.name}$${run.start}`, run.names, module.i32.const(run.start));
      run = null;
    };
    s.data.forEach((name, i) => {
      const slot = offset.value + i;
      if (!keep(slot)) return flush();
      entries++;
      if (run && run.start + run.names.length === slot) run.names.push(name);
      else {
        flush();
        run = { start: slot, names: [name] };
      }
    });
    flush();
  }
  return entries;
}

/** Each function of `module` (binaryen.js's) as binaryen.js describes it. */
function functionsOf(binaryen, module) {
  return Array.from({ length: module.getNumFunctions() }, (_, i) => binaryen.getFunctionInfo(module.getFunctionByIndex(i)));
}

/** A short export name for the `n`th function the call module gives the rest. */
const exportName = (n) => n.toString(36);

/**
 * The deferred module `deferred` (bytes) cut in two: `calls`, its element segments cut to the
 * table slots `slots` and what nothing reaches then removed (`wasmOpt -Oz`), with the static
 * data its code can reach; `rest`, the deferred module without the call module's functions
 * (each it still calls an import from the call module, CALLS_NAMESPACE) and without the slots
 * the call module writes, with the rest of the static data.
 * @param {Uint8Array} deferred
 * @param {Set<number>} slots
 * @param {string} wasmOpt npm binaryen's wasm-opt
 * @param {{ start: number, end: number }[]} objects the linker map's data objects (mapObjects)
 * @returns {Promise<{ calls: Uint8Array, rest: Uint8Array, entries: number, functions: number, shared: number, copied: number, moved: number }>}
 *   `entries` the deferred module's table entries the call module has, `functions` its
 *   functions, `shared` how many of them the rest imports, `copied` how many small ones it keeps
 *   copies of, `moved` the bytes of data (not zero) the rest writes
 */
export async function cutCalls(deferred, slots, wasmOpt, objects) {
  const { default: binaryen } = await import('binaryen');
  const sizes = readModule(deferred).bodies;
  const calls = readWithFeatures(binaryen, deferred);
  const rest = readWithFeatures(binaryen, deferred);
  let callsBytes, restBytes, entries, functions, copied;
  const shared = [];
  try {
    // The call module: the slots asked for, and what they reach.
    entries = cutSegments(binaryen, calls, (slot) => slots.has(slot));
    calls.runPasses(['remove-unused-module-elements']);
    const inCalls = new Set(functionsOf(binaryen, calls).filter((f) => !f.module).map((f) => f.name));
    functions = inCalls.size;

    // The rest: the other slots; each function of the call module an import of it, but for
    // the small ones, which it keeps; then what nothing reaches removed, imports included.
    const all = functionsOf(binaryen, rest);
    const imported = all.filter((f) => f.module).length;
    if (all.slice(imported).some((f) => f.module)) throw new Error('calls-cut.mjs: an import after a defined function');
    all.slice(imported).forEach((f, i) => {
      if (!inCalls.has(f.name) || sizes[i] <= CALLS_COPY_MAX_BYTES) return;
      rest.removeFunction(f.name);
      rest.addFunctionImport(f.name, CALLS_NAMESPACE, f.name, f.params, f.results);
    });
    // (After: a segment's references are made anew, of the functions as they now are.)
    cutSegments(binaryen, rest, (slot) => !slots.has(slot));
    rest.runPasses(['remove-unused-module-elements']);
    // (Which of them the rest still calls, and those it copied that it still has.)
    const left = functionsOf(binaryen, rest);
    copied = left.filter((f) => !f.module && inCalls.has(f.name)).length;
    for (const f of left) if (f.module === CALLS_NAMESPACE) shared.push(f.name);
    // Exported by short names, imported by them. (Named once the imports left are known, so
    // that the names are dense: named short before the removal, the candidates' names left
    // gaps, and each module was 16 bytes larger, 9 and 14 gzipped.)
    const names = new Map(shared.map((name, n) => [name, exportName(n)]));
    for (const [name, short] of names) calls.addFunctionExport(name, short);
    for (const name of shared) {
      const f = binaryen.getFunctionInfo(rest.getFunction(name));
      rest.removeFunction(name);
      rest.addFunctionImport(name, CALLS_NAMESPACE, names.get(name), f.params, f.results);
    }
    for (const [what, m] of [['call', calls], ['rest of the deferred', rest]]) {
      if (!m.validate()) throw new Error(`calls-cut.mjs: the ${what} module does not validate`);
    }
    callsBytes = calls.emitBinary();
    restBytes = rest.emitBinary();
  } finally {
    calls.dispose();
    rest.dispose();
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-calls-'));
  try {
    const optimized = [callsBytes, restBytes].map((bytes, i) => {
      const file = path.join(dir, `${i}.wasm`);
      fs.writeFileSync(file, bytes);
      execFileSync(wasmOpt, ['--remove-unused-module-elements', '-Oz', ...WASM_OPT_FEATURES, ...WASM_OPT_STRIP, file, '-o', file], { stdio: ['ignore', 'ignore', 'pipe'] });
      return fs.readFileSync(file);
    });
    // (wasm-opt keeps every active segment: the call module writes what the deferred module would.)
    if (Buffer.compare(dataImage(optimized[0]), dataImage(deferred)) !== 0) throw new Error('calls-cut.mjs: the call module does not write the deferred module\'s static data');
    const data = splitData(optimized[0], withData(optimized[1], []), objects, { partial: true });
    return { calls: data.first, rest: data.deferred, entries, functions, shared: shared.length, copied, moved: data.moved };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// The first module's placeholders as functions of its own instead of imports
// (scripts/lib/core-split.mjs runs it on wasm-split's first module).
//
// wasm-split fills each slot of the first module's function table that reaches a function of the
// deferred module with a placeholder: an import named by its slot, which the glue gave as a JS
// function that instantiated the deferred module (whose element segment writes the real
// functions in the table) and called the slot again. That is some 670 imports, and an import
// costs the page for as long as it lives: the engine keeps data and a call wrapper for each, the
// glue a closure (75–80 KB of JS heap in all, in Chromium), and the instantiation links each one.
// Instead each placeholder becomes a function of the first module that calls the one import
// PLACEHOLDER_LOADER (the glue's function that instantiates the deferred module, when it has not
// been) and then its slot, through the table, with its arguments: by then the slot holds the
// real function. What a placeholder does is unchanged: it is only ever called before the
// deferred module is instantiated (the first module's code reaches the deferred module's
// functions through their slots, which the instantiation overwrites), and a loader that throws
// (the module cannot be had) throws through it as the JS placeholder did.
//
// It reads and writes the module with npm binaryen's JS build, as scripts/lib/table-calls.mjs does.

import { readWithFeatures } from './table-calls.mjs';

/**
 * The name of the one import under the placeholders' namespace that a first module with its
 * placeholders made functions has: the glue's function that instantiates the deferred module.
 */
export const PLACEHOLDER_LOADER = 'l';

/**
 * `first` (wasm-split's first module, bytes) with each function it imports from `namespace` (a
 * placeholder, named by its slot of the function table) made a function of its own that calls
 * the import `namespace`.PLACEHOLDER_LOADER, then its slot. Returns the module's bytes and how
 * many placeholders it has (0, and the bytes as they were, when it imports none).
 * @param {Uint8Array} first
 * @param {string} namespace
 */
export async function placeholdersInModule(first, namespace) {
  const { default: binaryen } = await import('binaryen');
  const module = readWithFeatures(binaryen, first);
  try {
    const placeholders = [];
    for (let i = 0; i < module.getNumFunctions(); i++) {
      const f = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
      if (f.module === namespace) placeholders.push(f);
    }
    if (!placeholders.length) return { first, placeholders: 0 };
    const byName = new Map(placeholders.map((f) => [f.name, f]));
    for (const f of placeholders) {
      if (!/^\d+$/.test(f.base)) throw new Error(`placeholders.mjs: ${namespace}.${f.base} is not named by a slot`);
    }

    // The function table they are in, and the element segments, which are written again once
    // they are functions (a reference to an import is typed as one to any function of its
    // signature, one to a function of the module as one to that very function), every one in
    // its order (where two write a slot, the later one's function stays).
    const segments = Array.from({ length: module.getNumElementSegments() }, (_, i) => binaryen.getElementSegmentInfo(module.getElementSegmentByIndex(i)));
    for (const e of segments) {
      if (!e.table || binaryen.getExpressionId(e.offset) !== binaryen.ConstId) throw new Error(`placeholders.mjs: element segment ${e.name} is not an active one at a constant offset`);
    }
    const tables = new Set(segments.filter((e) => e.data.some((n) => byName.has(n))).map((e) => e.table));
    if (tables.size !== 1) throw new Error(`placeholders.mjs: the placeholders are in ${tables.size} tables, not one`);
    const [table] = tables;
    // (wasm-split names each by the slot it fills: the call below relies on it.)
    const offsets = segments.map((e) => binaryen.getExpressionInfo(e.offset).value);
    segments.forEach((e, i) => e.data.forEach((name, k) => {
      const f = byName.get(name);
      if (f && Number(f.base) !== offsets[i] + k) throw new Error(`placeholders.mjs: ${namespace}.${f.base} fills slot ${offsets[i] + k}`);
    }));

    const load = 'mcp$load_deferred';
    module.addFunctionImport(load, namespace, PLACEHOLDER_LOADER, binaryen.none, binaryen.none);
    for (const f of placeholders) {
      module.removeFunction(f.name);
      const args = binaryen.expandType(f.params).map((type, i) => module.local.get(i, type));
      const body = module.block(null, [
        module.call(load, [], binaryen.none),
        module.call_indirect(table, module.i32.const(Number(f.base)), args, f.params, f.results),
      ], f.results);
      module.addFunction(f.name, f.params, f.results, [], body);
    }
    for (const e of segments) module.removeElementSegment(e.name);
    segments.forEach((e, i) => module.addActiveElementSegment(e.table, e.name, e.data, module.i32.const(offsets[i])));
    if (!module.validate()) throw new Error('placeholders.mjs: the first module does not validate with its placeholders made functions');
    return { first: module.emitBinary(), placeholders: placeholders.length };
  } finally {
    module.dispose();
  }
}

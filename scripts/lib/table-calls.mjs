// A deferred module's calls of its first module's functions, through the first module's function
// table instead of its exports (scripts/lib/core-split.mjs runs it on wasm-split's two parts).
//
// wasm-split exports each function of the first module that the deferred module calls (about
// 690 of them in the core) and the deferred module imports each from `primary`. An export entry
// is a name, a kind and a function index, and the indices do not compress: 3.5 KB gzip of the
// first module, which a page downloads before its tools are listable. Instead, those functions
// are put in the first module's function table, in one element segment after the slots it has
// (a function index each, about 1.1 KB gzip), their exports go, and each of the deferred module's
// imports of one becomes a function of its own that calls that slot (`call_indirect`), which
// wasm-opt may inline at its callers. The exports the glue reads stay exports.
//
// It reads and writes the modules with npm binaryen's JS build (the wasm-opt `make build` runs),
// loaded when first needed (14 MB of JS).

import { WASM_OPT_FEATURES } from './project.mjs';
import { PRIMARY_NAMESPACE } from './glue-names.mjs';

/** The name of wasm-split's export of the first module's function table. */
const TABLE_EXPORT = 'table';

/** binaryen.js's feature flag for each of WASM_OPT_FEATURES' `--enable-…`. */
const FEATURES = {
  'bulk-memory': 'BulkMemory',
  'bulk-memory-opt': 'BulkMemoryOpt',
  'call-indirect-overlong': 'CallIndirectOverlong',
  'nontrapping-float-to-int': 'NontrappingFPToInt',
  'sign-ext': 'SignExt',
  'mutable-globals': 'MutableGlobals',
  'reference-types': 'ReferenceTypes',
  multivalue: 'Multivalue',
};

/** `bytes` read by binaryen.js (`binaryen`, the module) with `make build`'s features. */
export function readWithFeatures(binaryen, bytes) {
  let features = binaryen.Features.MVP;
  for (const flag of WASM_OPT_FEATURES) {
    const name = FEATURES[flag.replace(/^--enable-/, '')];
    if (name === undefined) throw new Error(`table-calls.mjs: no binaryen.js feature for ${flag}`);
    features |= binaryen.Features[name];
  }
  const module = binaryen.readBinary(bytes);
  module.setFeatures(features);
  return module;
}

/** Each export of `module` as binaryen.js gives it: `{ kind, name, value }` (`value`, its internal name). */
function exportsOf(binaryen, module) {
  return Array.from({ length: module.getNumExports() }, (_, i) => binaryen.getExportInfo(module.getExportByIndex(i)));
}

/** Sets the initial size of `table` (binaryen.js's reference), and its maximum when it has one, to `size`. */
function resize(binaryen, table, size) {
  binaryen.Table.setInitial(table, size);
  if (binaryen.Table.hasMax(table)) binaryen.Table.setMax(table, size);
}

/**
 * wasm-split's `first` and `deferred` modules (bytes) with the deferred module's calls of the
 * first module's functions made through its function table, but for the functions the first
 * module exports by a name of `keep` (the whole module's exports, which the glue reads), which
 * stay exports. Returns both modules' bytes and how many functions went into the table.
 * @param {Uint8Array} first
 * @param {Uint8Array} deferred
 * @param {Set<string>} keep
 */
export async function callsThroughTable(first, deferred, keep) {
  const { default: binaryen } = await import('binaryen');
  const one = readWithFeatures(binaryen, first);
  const two = readWithFeatures(binaryen, deferred);
  try {
    // The deferred module's functions imported from the first module, by export name.
    const imported = new Map();
    for (let i = 0; i < two.getNumFunctions(); i++) {
      const f = binaryen.getFunctionInfo(two.getFunctionByIndex(i));
      if (f.module === PRIMARY_NAMESPACE) imported.set(f.base, f);
    }
    const exported = exportsOf(binaryen, one);
    const table = exported.find((e) => e.kind === binaryen.ExternalTable && e.name === TABLE_EXPORT);
    if (!table) throw new Error(`wasm-split's first module exports no function table as ${TABLE_EXPORT}`);
    const moved = exported.filter((e) => e.kind === binaryen.ExternalFunction && imported.has(e.name) && !keep.has(e.name));
    if (!moved.length) return { first, deferred, moved: 0 };

    // The first module: a slot for each after those it has, and no export.
    const tableRef = one.getTable(table.value);
    const base = binaryen.Table.getInitial(tableRef);
    resize(binaryen, tableRef, base + moved.length);
    one.addActiveElementSegment(table.value, 'mcp$calls_through_table', moved.map((e) => e.value), one.i32.const(base));
    for (const e of moved) one.removeExport(e.name);

    // The deferred module: the table it imports as large, and each import a call of its slot.
    let theirs = null;
    for (let i = 0; i < two.getNumTables(); i++) {
      const ref = two.getTableByIndex(i);
      const t = binaryen.getTableInfo(ref);
      if (t.module === PRIMARY_NAMESPACE && t.base === TABLE_EXPORT) theirs = { ref, name: t.name };
    }
    if (!theirs) throw new Error(`wasm-split's deferred module imports no ${TABLE_EXPORT} from ${PRIMARY_NAMESPACE}`);
    resize(binaryen, theirs.ref, base + moved.length);
    moved.forEach((e, slot) => {
      const f = imported.get(e.name);
      two.removeFunction(f.name);
      const args = binaryen.expandType(f.params).map((type, i) => two.local.get(i, type));
      two.addFunction(f.name, f.params, f.results, [], two.call_indirect(theirs.name, two.i32.const(base + slot), args, f.params, f.results));
    });

    for (const [what, m] of [['first', one], ['deferred', two]]) {
      if (!m.validate()) throw new Error(`the ${what} module does not validate with its calls through the table`);
    }
    return { first: one.emitBinary(), deferred: two.emitBinary(), moved: moved.length };
  } finally {
    one.dispose();
    two.dispose();
  }
}

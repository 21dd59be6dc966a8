// The core wasm cut in two by binaryen's `wasm-split`: a first module with the functions a page
// runs every day (polyfill/build/core-first.txt names them) and a deferred module with the rest,
// which the core fetches once it has started (polyfill/src/deferred.js). `make build` runs it on
// the optimized core; `make bench-breakdown` weighs other cuts with it.
//
// How wasm-split leaves the two: each function of the deferred module is a slot of the first
// module's function table, which holds a placeholder until the deferred module is instantiated
// (its element segment then writes the real functions there); wasm-split makes a placeholder an
// import of the namespace PLACEHOLDER_NAMESPACE named by its slot, the build a function of the
// first module that calls the one import of that namespace, the loader, then its slot
// (scripts/lib/placeholders.mjs). The deferred module imports the first's memory, tables, globals
// and functions from the namespace `primary`.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { WASM_OPT_FEATURES, WASM_OPT_STRIP } from './project.mjs';
import { cursor, exportEntries, readModule, sectionEntries, sections, uleb, wasmName, withSection } from './wasm-module.mjs';
import { callsThroughTable } from './table-calls.mjs';
import { placeholdersInModule } from './placeholders.mjs';
import { withDeferredCopies } from './deferred-copies.mjs';
import { readPlaceholderMap } from './calls-cut.mjs';

/**
 * The namespace of the first module's placeholders (wasm-split's `placeholder` by default), and
 * then of their loader (scripts/lib/placeholders.mjs): one letter, as the glue's own imports are
 * (scripts/lib/glue-names.mjs). The glue gives the loader under it (scripts/build.mjs), and the
 * core script (polyfill/src/deferred.js) knows a core cut in two by it.
 */
export const PLACEHOLDER_NAMESPACE = 'b';

/**
 * binaryen's `wasm-split` (Debian's `binaryen` package; npm's `binaryen` has none) with its
 * version and the feature flags of `make build`'s wasm-opt it knows (Debian bookworm's 108 knows
 * neither `bulk-memory-opt` nor `call-indirect-overlong`, and parses the core without them); null
 * when it is not installed.
 */
export function wasmSplitTool() {
  try {
    const help = execFileSync('wasm-split', ['--help'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const version = execFileSync('wasm-split', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return { version, features: WASM_OPT_FEATURES.filter((f) => help.includes(`${f} `)) };
  } catch {
    return null;
  }
}

/** A function's name without the hash rustc appends (`::h` and 16 hex digits). */
export function baseName(name) {
  return name.replace(/::h[0-9a-f]{16}$/, '');
}

/**
 * The functions of the core `wasm-opt` must not inline into their callers (`--no-inline`
 * patterns): the Rust code keeps them apart (`#[inline(never)]`) so that what a page runs first
 * does not carry them, and binaryen would inline them again where they have one caller.
 */
export const CORE_APART = [
  '*::methods::dispatch_other::*',
  '*::methods::tools::tools_call::*',
  '*::transport::persist::persist_session::*',
  '*::SessionInner>::start_later::*',
  '*::SessionInner>::open_listen::*',
  '*::SessionInner::cancelled::*',
  '*::SessionInner::receive_other::*',
  '*::SessionInner::receive_batch::*',
  '*::transport::hub::refuse_unread::*',
  '*::transport::hub::refuse_answer::*',
  '*::transport::hub::Hub::refuse_over_rate::*',
  '*::protocol::jsonrpc::checked_kind::*',
  '*::SessionInner>::admit_to_handler::*',
  '*::js::with_strings_apart::*',
  '*::transport::hub::holding::*',
  '*::session::sent::message_text::*',
  '*::js::well_formed::*',
  '*::transport::guard::with_held_arguments::*',
];

/**
 * The largest function of the first module (bytes of code) the deferred module has a copy of
 * when its code calls it (scripts/lib/deferred-copies.mjs). Without DevTools, alternating loads
 * of the bench's page (10 pairs), the cut core with the copies against it without them: the
 * concurrent calls/s 1.078 (the median of the per-pair ratios; two other runs, 1.064 and 1.045),
 * the sequential round trip 0.975 (0.984, 1.034: no change the runs resolve). The first module
 * is 961 B gzip smaller (the deferred module calls 354 of its functions through the table instead
 * of 728, a slot each), the deferred module 5.2 KB larger. Copying every function it reaches
 * (885, 157 KB of code) gave no more (1.04 / 1.04) for 60 KB more of the deferred module.
 */
export const DEFERRED_COPY_MAX_BYTES = 100;

/**
 * The names of a keep list: one per line, `#` starting a comment line.
 * @param {string} file
 */
export function readKeepList(file) {
  return new Set(
    fs.readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')),
  );
}

/**
 * The defined functions of `named` (the optimized core with its name section) that the first
 * module keeps, by the names of `keep`: a function whose name is there; where none of a base
 * name's functions (the name without rustc's hash) is, because the hashes moved (another rustc,
 * another version of the crate), every function of that base name; and the functions without a
 * name (wasm-bindgen's small shims). Indices count the defined functions only, as binaryen names
 * the functions of a module without names. `missing`: the base names of `keep` the module has
 * not.
 */
export function keptFunctions(named, keep) {
  const { imported, bodies, names } = readModule(named);
  const bases = new Set([...keep].map(baseName));
  const exact = new Set();
  for (const name of names.values()) if (keep.has(name)) exact.add(baseName(name));
  const kept = [];
  const found = new Set();
  for (let i = 0; i < bodies.length; i++) {
    const name = names.get(imported + i);
    if (name === undefined) {
      kept.push(i);
      continue;
    }
    const base = baseName(name);
    if (keep.has(name) || (bases.has(base) && !exact.has(base))) {
      kept.push(i);
      found.add(base);
    }
  }
  return { kept, total: bodies.length, missing: [...bases].filter((n) => !found.has(n)) };
}

/**
 * The export section of `bytes` with the table export `name` pointing at table `index`, as a
 * new module (the other sections as they were).
 */
function withTableExport(bytes, name, index) {
  return withSection(bytes, 7, (body) => {
    const entries = exportEntries(body);
    const e = entries.find((x) => x.name === name && x.kind === 1);
    if (e) e.index = index;
    return Buffer.concat([uleb(entries.length), ...entries.map((x) => Buffer.concat([wasmName(x.name), Buffer.from([x.kind]), uleb(x.index)]))]);
  });
}

/** The element type of each table a module defines (after those it imports): 'funcref', 'externref'. */
function tableTypes(bytes) {
  const imported = readModule(bytes).importedTables;
  const types = [];
  for (const s of sections(bytes)) {
    if (s.id !== 4) continue;
    // A vector of table types: the element type (0x70 funcref, 0x6f externref), then the
    // limits (a flag, the minimum, the maximum when the flag says so).
    const c = cursor(s.body);
    const count = c.u32();
    for (let i = 0; i < count; i++) {
      const t = s.body[c.pos++];
      types.push(t === 0x6f ? 'externref' : t === 0x70 ? 'funcref' : `0x${t.toString(16)}`);
      const flags = s.body[c.pos++];
      c.u32();
      if (flags & 1) c.u32();
    }
  }
  return { imported, types };
}

/**
 * Cuts `whole` (the optimized core, no names) into `first` and `deferred` by `wasm-split`,
 * keeping in the first module the defined functions `kept` (indices among the defined ones).
 * wasm-split 108 points the first module's export `__wbindgen_externrefs` (wasm-bindgen's table
 * of JS values) at the function table; it is pointed back at the externref table, which both
 * modules then share. With `wasmOpt` (npm binaryen's wasm-opt), each part is optimized again
 * (`-Oz`): wasm-split writes what it reads without the optimizations `-Oz` makes to the code as
 * it writes it, and each part then has less to keep (0.6 % and 1.2 % off the two, gzip).
 * Before the cut, the deferred module's code is given copies of the first module's small functions
 * it calls (scripts/lib/deferred-copies.mjs, DEFERRED_COPY_MAX_BYTES).
 * After it, the deferred module calls the first module's functions through its function table
 * instead of its exports (scripts/lib/table-calls.mjs), but for the whole core's exports, and
 * the first module's placeholders are made functions of its own (scripts/lib/placeholders.mjs).
 * Returns both modules' bytes, the slot of the first module's function table each function of
 * the deferred module has (slot → its index among `whole`'s defined functions; the slots keep
 * their numbers through the steps after), how many functions the first module's table took for
 * the deferred module's calls, how many placeholders it has, and how many functions the deferred module has
 * copies of (and their code's size).
 */
export async function splitCore(tool, whole, kept, wasmOpt = null) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-split-'));
  try {
    const input = path.join(dir, 'whole.wasm');
    const list = path.join(dir, 'keep.txt');
    const copies = await withDeferredCopies(whole, kept, DEFERRED_COPY_MAX_BYTES);
    fs.writeFileSync(input, copies.bytes);
    fs.writeFileSync(list, `${kept.join('\n')}\n`);
    const [first, deferred] = [path.join(dir, 'first.wasm'), path.join(dir, 'deferred.wasm')];
    execFileSync('wasm-split', [input, ...tool.features, '--keep-funcs', `@${list}`, '--placeholder-namespace', PLACEHOLDER_NAMESPACE, '--placeholdermap', '-o1', first, '-o2', deferred], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    // (Slot → the function's index among the defined ones; the copies come after the whole's.)
    const slots = readPlaceholderMap(`${first}.placeholders`);
    const firstBytes = fs.readFileSync(first);
    const { imported, types } = tableTypes(firstBytes);
    const externrefs = types.indexOf('externref');
    const exported = sectionEntries(firstBytes, 7, exportEntries).find((e) => e.name === '__wbindgen_externrefs');
    if (externrefs < 0 || !exported) throw new Error('wasm-split: the first module has no externref table or no __wbindgen_externrefs export');
    if (exported.index !== imported + externrefs) fs.writeFileSync(first, withTableExport(firstBytes, '__wbindgen_externrefs', imported + externrefs));
    const keep = new Set(sectionEntries(whole, 7, exportEntries).map((e) => e.name));
    const through = await callsThroughTable(fs.readFileSync(first), fs.readFileSync(deferred), keep);
    const placed = await placeholdersInModule(through.first, PLACEHOLDER_NAMESPACE);
    fs.writeFileSync(first, placed.first);
    fs.writeFileSync(deferred, through.deferred);
    if (wasmOpt) {
      for (const f of [first, deferred]) {
        // The first module until its passes stop shrinking it (`--converge`): one round of
        // `-Oz` leaves it 0.1 % bigger, gzip, than a second (the deferred module, which a
        // second round makes a little bigger, gets one).
        const converge = f === first ? ['--converge'] : [];
        execFileSync(wasmOpt, ['-Oz', ...converge, ...WASM_OPT_FEATURES, ...WASM_OPT_STRIP, f, '-o', f], { stdio: ['ignore', 'ignore', 'pipe'] });
      }
    }
    return { first: fs.readFileSync(first), deferred: fs.readFileSync(deferred), slots, throughTable: through.moved, placeholders: placed.placeholders, copied: copies.copied, copiedBytes: copies.codeBytes };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

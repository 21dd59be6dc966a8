// Short names for what a wasm-bindgen glue and its module give each other. wasm-bindgen names
// each import of the module after the JS it runs and a hash (`__wbg_parse_126f567c5f8fb2cf`, 149
// of them in the core), under the namespace `./<name>_bg.js`, and writes each name twice: in the
// module's import section and as a key of the glue's imports object. Its exports go by the Rust
// names (`engine_registerTool`, `wasm_bindgen__convert__closures_____invoke__h…`), in the
// module's export section and in the glue's every `wasm.<name>`. Hashes do not compress, and
// long names are written once for each use: renaming the imports took 2.2 KB gzip off the core's
// first module, 1.8 KB off its glue and 2.3 KB off the client module (glue and wasm); renaming
// the exports 0.9 KB off the first module, 0.2 KB off its glue and 1.1 KB off the client module.
//
// The build renames them, in the module and in the glue alike, to the shortest JS identifiers
// (`a`, `b`, … `Z`, `aa`, …): the imports in the order the module imports them, under the
// namespace `a`; the exports in the order the module exports them. A core cut in two by wasm-split
// (scripts/lib/core-split.mjs) has more exports in its first module, which its deferred module
// imports from the namespace `primary`: they are named after the whole core's, and the deferred
// module's imports follow. What a page sees of the glue (its exports, the classes) is unchanged.
// `make build` renames the core's and the client's; `make bench-breakdown` renames the named core
// it serves with dist/'s glue, and the cuts it weighs, the same way.

import { cursor, exportEntries, importEntries, sectionEntries, uleb, wasmName, withSection } from './wasm-module.mjs';

/** The namespace the renamed imports are under. */
export const GLUE_NAMESPACE = 'a';

/** The glue's namespace for the module `name` (`modelcontext_glue`): `./modelcontext_glue_bg.js`. */
export function glueNamespace(name) {
  return `./${name}_bg.js`;
}

/** The `i`th shortest JS identifier of ASCII letters and digits: a…z, A…Z, then aa, ab, … */
function identifier(i) {
  const FIRST = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const REST = `${FIRST}0123456789`;
  if (i < FIRST.length) return FIRST[i];
  let n = i - FIRST.length;
  let tail = '';
  let width = 1;
  while (n >= FIRST.length * REST.length ** width) {
    n -= FIRST.length * REST.length ** width;
    width++;
  }
  for (let k = 0; k < width; k++) {
    tail = REST[n % REST.length] + tail;
    n = Math.floor(n / REST.length);
  }
  return FIRST[n] + tail;
}

/** The namespace a deferred module imports its first module's exports from (wasm-split's). */
export const PRIMARY_NAMESPACE = 'primary';

/**
 * The short names of what the glue's module gives and takes: `imports`, a `Map` from the glue's
 * name of each import of `whole` from `namespace` to its short one, in the order `whole` imports
 * them; `exports`, a `Map` from each export's name to its short one, those of `whole` in its
 * order, then those only `first` exports (wasm-split's, for the deferred module of a core cut in
 * two; `first` is that first module).
 * @param {Uint8Array} whole the module as wasm-bindgen's glue knows it
 * @param {string} namespace the glue's namespace (`glueNamespace(name)`)
 * @param {Uint8Array | null} [first]
 */
export function glueNames(whole, namespace, first = null) {
  const imported = sectionEntries(whole, 2, importEntries).filter((e) => e.module === namespace).map((e) => e.name);
  const exported = sectionEntries(whole, 7, exportEntries).map((e) => e.name);
  if (first) {
    const known = new Set(exported);
    exported.push(...sectionEntries(first, 7, exportEntries).map((e) => e.name).filter((n) => !known.has(n)));
  }
  return {
    imports: new Map(imported.map((n, i) => [n, identifier(i)])),
    exports: new Map(exported.map((n, i) => [n, identifier(i)])),
  };
}

/** `names.get(name)`, which must be there. */
function renamed(names, name, what) {
  const short = names.get(name);
  if (short === undefined) throw new Error(`${what} ${name} has no short name`);
  return short;
}

/**
 * `bytes` (the whole module, a first module or a deferred one) with the glue's `names`
 * (`glueNames`): its imports from `namespace` renamed and put under GLUE_NAMESPACE, its imports
 * from PRIMARY_NAMESPACE and its exports renamed (every one must have a short name); the other
 * imports and every other section unchanged.
 */
export function withGlueNames(bytes, namespace, names) {
  let out = withSection(bytes, 2, (body) => {
    const parts = [];
    const all = importEntries(body);
    for (const e of all) {
      const entry = body.subarray(e.at, e.end);
      const head = cursor(entry);
      head.name();
      head.name();
      const rest = entry.subarray(head.pos);
      if (e.module === namespace) parts.push(wasmName(GLUE_NAMESPACE), wasmName(renamed(names.imports, e.name, `the import from ${namespace}`)), rest);
      else if (e.module === PRIMARY_NAMESPACE) parts.push(wasmName(e.module), wasmName(renamed(names.exports, e.name, 'the first module\'s export')), rest);
      else parts.push(entry);
    }
    return Buffer.concat([uleb(all.length), ...parts]);
  });
  out = withSection(out, 7, (body) => {
    const all = exportEntries(body);
    return Buffer.concat([
      uleb(all.length),
      ...all.flatMap((e) => [wasmName(renamed(names.exports, e.name, 'the export')), body.subarray(e.tail, e.end)]),
    ]);
  });
  if (!WebAssembly.validate(out)) throw new Error('the module does not validate with the glue\'s names renamed');
  return out;
}

/**
 * The whole module `whole` and, for a core cut in two, its first and deferred module (`split`:
 * `{ first, deferred }`) with the glue's short names: `{ names, modules }`, `names` as
 * `glueNames` gives them, `modules` `[whole]` or `[whole, first, deferred]` as `withGlueNames`
 * writes them.
 */
export function renameModules(whole, namespace, split = null) {
  const names = glueNames(whole, namespace, split && split.first);
  const modules = (split ? [whole, split.first, split.deferred] : [whole]).map((m) => withGlueNames(m, namespace, names));
  return { names, modules };
}

/** Where a glue reads an export of its module: `wasm.<name>` (not `….wasm`, not `x_wasm.`). */
const READS_EXPORT = /(?<![\w$.])wasm\.([\w$]+)/g;

/**
 * The names of the exports the glue `js` reads, each once, in the order first read. A glue
 * whose names a minifier shortened (dist/'s) keeps its module's exports in another variable:
 * the one wasm-bindgen's `__wbg_finalize_init` assigns `instance.exports` to.
 */
export function exportsReadBy(js) {
  const held = /(?<![\w$.])([\w$]+)\s*=\s*[\w$]+\.exports\s*[,;)]/.exec(js);
  const reads = held && held[1] !== 'wasm'
    ? new RegExp(`(?<![\\w$.])${held[1].replace(/\$/g, '\\$')}\\.([\\w$]+)`, 'g')
    : READS_EXPORT;
  return [...new Set([...js.matchAll(reads)].map((m) => m[1]))];
}

/**
 * wasm-bindgen's glue `js` (`--target web` or `no-modules`, before minifying) with its module's
 * short `names` (`glueNames`): the keys of its imports object renamed and put under
 * GLUE_NAMESPACE, and every `wasm.<export>` renamed (in one pass, so that no new name is renamed
 * again). A name the module does not import (the optimizer dropped it) keeps its key; a
 * `wasm.<name>` the module does not export keeps its name.
 */
export function glueWithNames(js, namespace, names) {
  const start = js.indexOf('function __wbg_get_imports() {');
  const end = js.indexOf(`${JSON.stringify(namespace)}: import0,`, start);
  if (start < 0 || end < 0) throw new Error(`unexpected glue: no __wbg_get_imports returning ${namespace}`);
  let body = js.slice(start, end);
  for (const [name, short] of names.imports) {
    const key = new RegExp(`^(\\s+)${name.replace(/\$/g, '\\$')}(: function\\()`, 'm');
    if (!key.test(body)) throw new Error(`unexpected glue: no import ${name} in __wbg_get_imports`);
    body = body.replace(key, `$1${short}$2`);
  }
  const keyed = js.slice(0, start) + body + `${GLUE_NAMESPACE}: import0,` + js.slice(end + `${JSON.stringify(namespace)}: import0,`.length);
  return keyed.replace(READS_EXPORT, (read, name) => (names.exports.has(name) ? `wasm.${names.exports.get(name)}` : read));
}

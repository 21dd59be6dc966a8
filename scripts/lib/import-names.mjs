// Short names for what a wasm-bindgen glue gives its module. wasm-bindgen names each import of
// the module after the JS it runs and a hash (`__wbg_parse_126f567c5f8fb2cf`, 149 of them in the
// core), under the namespace `./<name>_bg.js`, and writes each name twice: in the module's import
// section and as a key of the glue's imports object. Hashes do not compress: renaming them took
// 2.2 KB gzip off the core's first module, 1.8 KB off its glue and 2.3 KB off the client module
// (glue and wasm). The build renames them, in the
// module and in the glue alike, to the shortest JS identifiers in the order the module imports
// them (`a`, `b`, … `Z`, `aa`, …), and the namespace to `a`: what a page sees of the glue (its
// exports, the classes) is unchanged. `make build` renames the core's and the client's;
// `make bench-breakdown` renames the named core it serves with dist/'s glue the same way.

import { cursor, importEntries, sections, uleb, withSection } from './wasm-module.mjs';

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

/** The import entries of `bytes` (a module): `importEntries` of its import section. */
function imports(bytes) {
  const section = sections(bytes).find((s) => s.id === 2);
  return section ? importEntries(section.body) : [];
}

/**
 * The short name of each import of `bytes` from `namespace`, in the order the module imports
 * them: a `Map` from the glue's name to the short one.
 */
export function shortNames(bytes, namespace) {
  const names = imports(bytes).filter((e) => e.module === namespace).map((e) => e.name);
  return new Map(names.map((n, i) => [n, identifier(i)]));
}

const wasmName = (s) => {
  const b = Buffer.from(s, 'utf8');
  return Buffer.concat([uleb(b.length), b]);
};

/**
 * `bytes` with its imports from `namespace` renamed by `names` (every one must be there) and put
 * under GLUE_NAMESPACE; the other imports and every other section unchanged.
 */
export function withShortImports(bytes, namespace, names) {
  const out = withSection(bytes, 2, (body) => {
    const entries = importEntries(body);
    const parts = [uleb(entries.length)];
    for (const e of entries) {
      const entry = body.subarray(e.at, e.end);
      if (e.module !== namespace) {
        parts.push(entry);
        continue;
      }
      const short = names.get(e.name);
      if (short === undefined) throw new Error(`import ${namespace}.${e.name} has no short name`);
      const head = cursor(entry);
      head.name();
      head.name();
      parts.push(wasmName(GLUE_NAMESPACE), wasmName(short), entry.subarray(head.pos));
    }
    return Buffer.concat(parts);
  });
  if (!WebAssembly.validate(out)) throw new Error('the module does not validate with its imports renamed');
  return out;
}

/**
 * wasm-bindgen's glue `js` (`--target web` or `no-modules`, before minifying) giving its module's
 * imports under their short `names` and GLUE_NAMESPACE: the keys of its imports object renamed.
 * A name the module does not import (the optimizer dropped it) keeps its key.
 */
export function glueWithShortImports(js, namespace, names) {
  const start = js.indexOf('function __wbg_get_imports() {');
  const end = js.indexOf(`${JSON.stringify(namespace)}: import0,`, start);
  if (start < 0 || end < 0) throw new Error(`unexpected glue: no __wbg_get_imports returning ${namespace}`);
  let body = js.slice(start, end);
  for (const [name, short] of names) {
    const key = new RegExp(`^(\\s+)${name.replace(/\$/g, '\\$')}(: function\\()`, 'm');
    if (!key.test(body)) throw new Error(`unexpected glue: no import ${name} in __wbg_get_imports`);
    body = body.replace(key, `$1${short}$2`);
  }
  return js.slice(0, start) + body + `${GLUE_NAMESPACE}: import0,` + js.slice(end + `${JSON.stringify(namespace)}: import0,`.length);
}

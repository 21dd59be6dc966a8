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

import { cursor, sections, uleb } from './wasm-module.mjs';

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

/** The imports of `bytes` (a module): `{ module, name, at, end }`, `at`…`end` the entry's bytes. */
function imports(bytes) {
  const section = sections(bytes).find((s) => s.id === 2);
  if (!section) return { section: null, entries: [] };
  const c = cursor(section.body);
  const count = c.u32();
  const entries = [];
  for (let i = 0; i < count; i++) {
    const at = c.pos;
    const module = c.name();
    const name = c.name();
    const kind = section.body[c.pos++];
    if (kind === 0) c.u32(); // a function: its type
    else if (kind === 1 || kind === 2) {
      if (kind === 1) c.pos++; // a table: its element type, then limits
      const flags = section.body[c.pos++];
      c.u32();
      if (flags & 1) c.u32();
    } else if (kind === 3) c.pos += 2; // a global: its value type and mutability
    else if (kind === 4) {
      c.pos++; // a tag: its attribute and type
      c.u32();
    } else throw new Error(`import ${module}.${name}: unknown kind ${kind}`);
    entries.push({ module, name, at, end: c.pos });
  }
  return { section, entries };
}

/**
 * The short name of each import of `bytes` from `namespace`, in the order the module imports
 * them: a `Map` from the glue's name to the short one.
 */
export function shortNames(bytes, namespace) {
  const names = imports(bytes).entries.filter((e) => e.module === namespace).map((e) => e.name);
  return new Map(names.map((n, i) => [n, identifier(i)]));
}

/** Where section `id` of `bytes` is: from its id byte (`at`) to the end of its body (`end`). */
function sectionBounds(bytes, id) {
  const c = cursor(bytes, 8);
  while (c.pos < bytes.length) {
    const at = c.pos;
    const found = bytes[c.pos++];
    const end = c.u32() + c.pos;
    if (found === id) return { at, end };
    c.pos = end;
  }
  throw new Error(`no section ${id}`);
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
  const { section, entries } = imports(bytes);
  if (!section) return bytes;
  const parts = [uleb(entries.length)];
  for (const e of entries) {
    const desc = section.body.subarray(e.at, e.end);
    if (e.module !== namespace) {
      parts.push(desc);
      continue;
    }
    const short = names.get(e.name);
    if (short === undefined) throw new Error(`import ${namespace}.${e.name} has no short name`);
    const head = cursor(desc);
    head.name();
    head.name();
    parts.push(wasmName(GLUE_NAMESPACE), wasmName(short), desc.subarray(head.pos));
  }
  const body = Buffer.concat(parts);
  const { at, end } = sectionBounds(bytes, 2);
  const out = Buffer.concat([bytes.subarray(0, at), Buffer.from([2]), uleb(body.length), body, bytes.subarray(end)]);
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

// What the size scripts read of a wasm module's binary: its sections; how many functions it
// imports, each defined function's code size, the function names of its name section and its
// data section's size. (`scripts/wasm-sizes.mjs`, `scripts/bench-breakdown.mjs`.) And what the
// build's rewrites of a section need: its import and export entries, a name as written there, a
// module with one section replaced.

/**
 * A cursor over `buf` from `pos`: `u32()` reads an unsigned LEB128 number, `name()` a
 * length-prefixed UTF-8 string; `pos` is where the next read starts.
 */
export function cursor(buf, pos = 0) {
  const c = {
    pos,
    u32() {
      let result = 0;
      let shift = 0;
      for (;;) {
        const b = buf[c.pos++];
        result += (b & 0x7f) * 2 ** shift;
        shift += 7;
        if (!(b & 0x80)) return result;
      }
    },
    name() {
      const len = c.u32();
      const s = Buffer.from(buf.buffer, buf.byteOffset + c.pos, len).toString('utf8');
      c.pos += len;
      return s;
    },
  };
  return c;
}

/** `n` as an unsigned LEB128 number. */
export function uleb(n) {
  const b = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) byte |= 0x80;
    b.push(byte);
  } while (n);
  return Buffer.from(b);
}

/** `s` as a wasm name: its UTF-8 length (unsigned LEB128), then its bytes. */
export function wasmName(s) {
  const b = Buffer.from(s, 'utf8');
  return Buffer.concat([uleb(b.length), b]);
}

/**
 * A module's sections, in order: `{ id, name, body }`, where a custom section (id 0) has its
 * `name` and its `body` starts after it.
 * @param {Uint8Array} buf a module's bytes
 */
export function sections(buf) {
  const out = [];
  const c = cursor(buf, 8);
  while (c.pos < buf.length) {
    const id = buf[c.pos++];
    const end = c.u32() + c.pos;
    const name = id === 0 ? c.name() : undefined;
    out.push({ id, name, body: buf.subarray(c.pos, end) });
    c.pos = end;
  }
  return out;
}

/**
 * The entries of an import section's `body`, in order: `{ module, name, kind, at, end }`, where
 * `kind` is 0 for a function, 1 a table, 2 a memory, 3 a global, 4 a tag, and `at`…`end` are the
 * entry's bytes in `body`.
 */
export function importEntries(body) {
  const c = cursor(body);
  const count = c.u32();
  const entries = [];
  for (let i = 0; i < count; i++) {
    const at = c.pos;
    const module = c.name();
    const name = c.name();
    const kind = body[c.pos++];
    if (kind === 0) c.u32(); // its type
    else if (kind === 1 || kind === 2) {
      if (kind === 1) c.pos++; // a table's element type, then limits
      const flags = c.u32();
      c.u32();
      if (flags & 1) c.u32();
    } else if (kind === 3) c.pos += 2; // a value type and mutability
    else if (kind === 4) {
      c.pos++; // an attribute and a type
      c.u32();
    } else throw new Error(`import ${module}.${name}: unknown kind ${kind}`);
    entries.push({ module, name, kind, at, end: c.pos });
  }
  return entries;
}

/**
 * The entries of an export section's `body`, in order: `{ name, kind, index, at, tail, end }`,
 * where `kind` is as an import's, `index` the exported thing's, `at`…`end` are the entry's bytes
 * in `body` and `tail`…`end` its kind and index (what follows the name).
 */
export function exportEntries(body) {
  const c = cursor(body);
  const count = c.u32();
  const entries = [];
  for (let i = 0; i < count; i++) {
    const at = c.pos;
    const name = c.name();
    const tail = c.pos;
    const kind = body[c.pos++];
    const index = c.u32();
    entries.push({ name, kind, index, at, tail, end: c.pos });
  }
  return entries;
}

/**
 * The bodies of a code section's `body`, in order: each defined function's locals and
 * instructions (a view into `body`), as its size prefix bounds them.
 * @param {Uint8Array} body
 * @returns {Uint8Array[]}
 */
export function codeEntries(body) {
  const c = cursor(body);
  const count = c.u32();
  const entries = [];
  for (let i = 0; i < count; i++) {
    const len = c.u32();
    entries.push(body.subarray(c.pos, c.pos + len));
    c.pos += len;
  }
  return entries;
}

/**
 * The entries of the section `id` of `bytes` (a module), read by `read` (`importEntries`,
 * `exportEntries`, `codeEntries`); none when it has no such section.
 */
export function sectionEntries(bytes, id, read) {
  const section = sections(bytes).find((s) => s.id === id);
  return section ? read(section.body) : [];
}

/**
 * `bytes` (a module) without the custom sections named in `names`, every other section byte for
 * byte as it was (no re-encoding).
 * @param {Uint8Array} bytes a module's bytes
 * @param {string[]} names
 */
export function withoutCustomSections(bytes, names) {
  const out = [bytes.subarray(0, 8)];
  let end = 8;
  for (const s of sections(bytes)) {
    const start = end;
    end = s.body.byteOffset - bytes.byteOffset + s.body.length;
    if (s.id !== 0 || !names.includes(s.name)) out.push(bytes.subarray(start, end));
  }
  return Buffer.concat(out);
}

/**
 * `bytes` (a module) with the body of its section `id` (not a custom one) replaced by
 * `replace(body)`, every other section as it was.
 */
export function withSection(bytes, id, replace) {
  const section = sections(bytes).find((s) => s.id === id);
  return withSections(bytes, new Map(section ? [[id, replace(section.body)]] : []));
}

// The known sections in the order a module has them (the data count, 12, before the code).
const ORDER = [1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11];

/**
 * `bytes` (a module) with the body of each section of `edits` (id → body; not a custom one)
 * replaced, or the section added where its kind goes when the module has none; every other
 * section byte for byte as it was.
 * @param {Uint8Array} bytes
 * @param {Map<number, Uint8Array>} edits
 */
export function withSections(bytes, edits) {
  const out = [bytes.subarray(0, 8)];
  const put = (id, body, name) => {
    const head = id === 0 ? Buffer.concat([uleb(Buffer.byteLength(name)), Buffer.from(name)]) : Buffer.alloc(0);
    out.push(Buffer.from([id]), uleb(head.length + body.length), head, body);
  };
  const left = new Map(edits);
  const order = (id) => ORDER.indexOf(id);
  for (const s of sections(bytes)) {
    // (what the module lacks goes before the first section of a kind that comes after it)
    for (const [id, body] of [...left]) {
      if (s.id !== 0 && order(id) < order(s.id)) {
        put(id, body);
        left.delete(id);
      }
    }
    if (left.has(s.id)) {
      put(s.id, left.get(s.id));
      left.delete(s.id);
    } else put(s.id, s.body, s.name);
  }
  for (const [id, body] of [...left].sort((x, y) => order(x[0]) - order(y[0]))) put(id, body);
  return Buffer.concat(out);
}

/**
 * @param {Uint8Array} buf a module's bytes
 * @returns {{ imported: number, importedTables: number, bodies: number[], names: Map<number, string>,
 *   dataBytes: number }} `bodies[i]` is the code size of function `imported + i`; `names` maps a
 *   function index (imports first, as V8 and the name section count) to its name;
 *   `importedTables`, how many tables it imports (their indices come first).
 */
export function readModule(buf) {
  let imported = 0;
  let importedTables = 0;
  const bodies = [];
  const names = new Map();
  let dataBytes = 0;
  for (const { id, name: sectionName, body } of sections(buf)) {
    const c = cursor(body);
    if (id === 0 && sectionName === 'name') {
      while (c.pos < body.length) {
        const sub = body[c.pos++];
        const subEnd = c.u32() + c.pos;
        if (sub === 1) {
          const count = c.u32();
          for (let i = 0; i < count; i++) {
            const idx = c.u32();
            names.set(idx, c.name());
          }
        }
        c.pos = subEnd;
      }
    } else if (id === 2) {
      for (const { kind } of importEntries(body)) {
        if (kind === 0) imported++;
        else if (kind === 1) importedTables++;
      }
    } else if (id === 10) {
      for (const entry of codeEntries(body)) bodies.push(entry.length);
    } else if (id === 11) {
      dataBytes = body.length;
    }
  }
  return { imported, importedTables, bodies, names, dataBytes };
}

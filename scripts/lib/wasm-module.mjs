// What the size scripts read of a wasm module's binary: its sections; how many functions it
// imports, each defined function's code size, the function names of its name section and its
// data section's size. (`scripts/wasm-sizes.mjs`, `scripts/bench-breakdown.mjs`.) And the one
// number the build's rewrites of a section write (`uleb`).

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
      const count = c.u32();
      for (let i = 0; i < count; i++) {
        c.name();
        c.name();
        const kind = body[c.pos++];
        if (kind === 0) {
          c.u32();
          imported++;
        } else if (kind === 1) {
          importedTables++;
          c.pos++;
          const flags = c.u32();
          c.u32();
          if (flags & 1) c.u32();
        } else if (kind === 2) {
          const flags = c.u32();
          c.u32();
          if (flags & 1) c.u32();
        } else if (kind === 3) {
          c.pos += 2;
        } else if (kind === 4) {
          c.pos++;
          c.u32();
        }
      }
    } else if (id === 10) {
      const count = c.u32();
      for (let i = 0; i < count; i++) {
        const len = c.u32();
        bodies.push(len);
        c.pos += len;
      }
    } else if (id === 11) {
      dataBytes = body.length;
    }
  }
  return { imported, importedTables, bodies, names, dataBytes };
}

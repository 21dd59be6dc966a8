// What the size scripts read of a wasm module's binary: how many functions it imports, each
// defined function's code size, the function names of its name section and its data section's
// size. (`scripts/wasm-sizes.mjs`, `scripts/bench-breakdown.mjs`.)

/**
 * @param {Uint8Array} buf a module's bytes
 * @returns {{ imported: number, bodies: number[], names: Map<number, string>, dataBytes: number }}
 *   `bodies[i]` is the code size of function `imported + i`; `names` maps a function index
 *   (imports first, as V8 and the name section count) to its name.
 */
export function readModule(buf) {
  let pos = 8;
  const u32 = () => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = buf[pos++];
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (!(b & 0x80)) return result;
    }
  };
  const name = () => {
    const len = u32();
    const s = Buffer.from(buf.buffer, buf.byteOffset + pos, len).toString('utf8');
    pos += len;
    return s;
  };

  let imported = 0;
  const bodies = [];
  const names = new Map();
  let dataBytes = 0;
  while (pos < buf.length) {
    const id = buf[pos++];
    const size = u32();
    const end = pos + size;
    if (id === 0) {
      if (name() === 'name') {
        while (pos < end) {
          const sub = buf[pos++];
          const len = u32();
          const subEnd = pos + len;
          if (sub === 1) {
            const count = u32();
            for (let i = 0; i < count; i++) {
              const idx = u32();
              names.set(idx, name());
            }
          }
          pos = subEnd;
        }
      }
    } else if (id === 2) {
      const count = u32();
      for (let i = 0; i < count; i++) {
        name();
        name();
        const kind = buf[pos++];
        if (kind === 0) {
          u32();
          imported++;
        } else if (kind === 1) {
          pos++;
          const flags = u32();
          u32();
          if (flags & 1) u32();
        } else if (kind === 2) {
          const flags = u32();
          u32();
          if (flags & 1) u32();
        } else if (kind === 3) {
          pos += 2;
        } else if (kind === 4) {
          pos++;
          u32();
        }
      }
    } else if (id === 10) {
      const count = u32();
      for (let i = 0; i < count; i++) {
        const len = u32();
        bodies.push(len);
        pos += len;
      }
    } else if (id === 11) {
      dataBytes = size;
    }
    pos = end;
  }
  return { imported, bodies, names, dataBytes };
}

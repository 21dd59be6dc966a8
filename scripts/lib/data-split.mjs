// The core's static data cut in two as its code is (scripts/lib/core-split.mjs): wasm-split
// moves functions only, and leaves every data segment in the first module, so the text of each
// message only the deferred module's code writes (the forms', the tasks', the other transports'…)
// was fetched before the page's start. This moves the data objects nothing in the first module
// can reach into active data segments of the deferred module, at the same addresses: the
// deferred module imports the first one's memory, and its segments are written when it is
// instantiated, before any of its code can run.
//
// What the first module can reach, kept there:
//   - every object (an input section of the linker's map, `wasm-ld --Map`) holding an address
//     that appears in the first module's code or globals as a constant (a static address in
//     wasm32 is always one, an `i32.const` or a load's or store's offset, the object's start,
//     an address inside it, or one past its end, which the next object then holds: kept too).
//     The number a LEB128 encoding starting at any byte would have is taken for one, so bytes
//     that happen to read as an address only keep more.
//   - every object holding an address written in the bytes of an object kept (a vtable, a
//     table of strings), 4 bytes at any offset, until no more are added.
//   - the bytes no object of the map covers (none, when the linker does not merge strings into
//     one object of its own: scripts/build.mjs links the core with -O0).
// The deferred module writes its objects' bytes (their zeros included) and the zeros of padding
// no object holds, never a byte of an object the first module keeps, which may have changed by
// the time it is instantiated.
//
//   splitData(first, deferred, objects, { partial }) → { first, deferred, moved } where `objects`
//   is mapObjects(mapText)'s list and `moved` the number of bytes that moved and are not zero;
//   `partial`: the first module's segments are part of the data (the deferred module's, cut again
//   for its call module: scripts/lib/calls-cut.mjs), and neither part writes a byte they do not.

import { cursor, sections, uleb } from './wasm-module.mjs';

const DATA = 11;
const DATA_COUNT = 12;
const CODE = 10;
const GLOBAL = 6;

/**
 * The data objects of a `wasm-ld --Map` file: `{ start, end }` for each input section placed in
 * an output data section (.rodata, .data, .tdata…), in address order.
 */
export function mapObjects(mapText) {
  const objects = [];
  let inData = false;
  for (const line of mapText.split('\n')) {
    // "    Addr      Off     Size Out     In      Symbol": an output section's name follows the
    // size (the Out column), an input section's 8 spaces further (In), a symbol's 16 (Symbol).
    const m = line.match(/^\s*([0-9a-f]+|-)\s+([0-9a-f]+)\s+([0-9a-f]+) (\s*)(\S.*)$/);
    if (!m) continue;
    const indent = m[4].length;
    if (indent === 0) {
      inData = m[1] !== '-' && /^\.(rodata|data|tdata|bss)/.test(m[5]);
    } else if (inData && indent === 8 && m[1] !== '-') {
      const start = parseInt(m[1], 16);
      const size = parseInt(m[3], 16);
      if (size > 0) objects.push({ start, end: start + size });
    }
  }
  return objects.sort((a, b) => a.start - b.start);
}

/** A signed LEB128 i32 at `buf[pos]`, or null past the end. */
function sleb32(buf, pos, end) {
  let result = 0;
  let shift = 0;
  for (let i = 0; i < 5; i++) {
    if (pos + i >= end) return null;
    const b = buf[pos + i];
    result |= (b & 0x7f) << shift;
    shift += 7;
    if (!(b & 0x80)) {
      if (shift < 32 && b & 0x40) result |= -1 << shift;
      return result >>> 0;
    }
  }
  return null;
}

/** The active data segments of a data section's body: `{ offset, bytes }` (memory 0, i32.const offsets). */
function readSegments(body) {
  const c = cursor(body);
  const n = c.u32();
  const out = [];
  for (let i = 0; i < n; i++) {
    const flag = c.u32();
    if (flag !== 0 || body[c.pos] !== 0x41) throw new Error(`data segment ${i}: not an active segment of memory 0 at an i32.const offset`);
    const offset = sleb32(body, c.pos + 1, body.length);
    c.pos += 1;
    while (body[c.pos++] & 0x80);
    if (body[c.pos++] !== 0x0b) throw new Error(`data segment ${i}: its offset is not a lone i32.const`);
    const len = c.u32();
    out.push({ offset, bytes: body.subarray(c.pos, c.pos + len) });
    c.pos += len;
  }
  return out;
}

/** A data section's body of active segments (memory 0). */
function writeSegments(segments) {
  const parts = [uleb(segments.length)];
  for (const { offset, bytes } of segments) {
    parts.push(Buffer.from([0x00, 0x41]), sleb(offset | 0), Buffer.from([0x0b]), uleb(bytes.length), bytes);
  }
  return Buffer.concat(parts);
}

/** `n` (an i32) as a signed LEB128 number. */
export function sleb(n) {
  const out = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) {
      out.push(b);
      return Buffer.from(out);
    }
    out.push(b | 0x80);
  }
}

/** The module `bytes` with its data section (and data count) replaced by `segments` (`{ offset, bytes }` each, active, memory 0). */
export function withData(bytes, segments) {
  const body = writeSegments(segments);
  const count = uleb(segments.length);
  const out = [bytes.subarray(0, 8)];
  const put = (id, b) => out.push(Buffer.from([id]), uleb(b.length), b);
  let data = false;
  let counted = false;
  const all = sections(bytes);
  const hasCount = all.some((s) => s.id === DATA_COUNT);
  for (const s of all) {
    if (s.id === 0) {
      const head = Buffer.concat([uleb(Buffer.byteLength(s.name)), Buffer.from(s.name)]);
      put(0, Buffer.concat([head, s.body]));
      continue;
    }
    // The data count goes before the code, the data after it.
    if (s.id === CODE && !hasCount && !counted && segments.length) {
      put(DATA_COUNT, count);
      counted = true;
    }
    if (s.id === DATA_COUNT) {
      put(DATA_COUNT, count);
      continue;
    }
    if (s.id === DATA) {
      if (segments.length) put(DATA, body);
      data = true;
      continue;
    }
    put(s.id, s.body);
  }
  if (!data && segments.length) put(DATA, body);
  return Buffer.concat(out);
}

/**
 * Every value a LEB128 number starting at any byte of `body` could have, its low 32 bits (see
 * the header): an `i32.const`'s, a load's or store's offset (where wasm-opt may fold a
 * constant address), the low half of an `i64.const` (two constants stored as one).
 */
function constants(body, into) {
  for (let i = 0; i < body.length; i++) {
    let v = 0;
    for (let k = 0; k < 5 && i + k < body.length; k++) {
      const b = body[i + k];
      v += (b & 0x7f) * 2 ** (7 * k);
      if (!(b & 0x80)) break;
    }
    into.push(v % 2 ** 32);
  }
}

/** The index of the object holding `address` in `objects` (sorted), or -1. */
function holder(objects, address) {
  let lo = 0;
  let hi = objects.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const o = objects[mid];
    if (address < o.start) hi = mid - 1;
    else if (address >= o.end) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/** A module's active data segments: `{ offset, bytes }` each (none without a data section). */
export function dataSegments(bytes) {
  const section = sections(bytes).find((s) => s.id === DATA);
  return section ? readSegments(section.body) : [];
}

/**
 * What a module's data segments write that is not zero, as bytes: the address of the first byte
 * that is not zero (4 bytes, little endian), then the memory from there to the last such byte.
 * Two modules whose images are equal leave memory the same (wasm-opt leaves out zeros).
 */
export function dataImage(bytes) {
  const segments = dataSegments(bytes);
  if (!segments.length) return Buffer.alloc(4);
  const low = Math.min(...segments.map((s) => s.offset));
  const high = Math.max(...segments.map((s) => s.offset + s.bytes.length));
  const memory = Buffer.alloc(high - low);
  for (const s of segments) s.bytes.copy(memory, s.offset - low);
  let from = 0;
  let to = memory.length;
  while (from < to && memory[from] === 0) from++;
  while (to > from && memory[to - 1] === 0) to--;
  const address = Buffer.alloc(4);
  address.writeUInt32LE(low + from, 0);
  return Buffer.concat([address, memory.subarray(from, to)]);
}

export function splitData(first, deferred, objects, { partial = false } = {}) {
  const firstSections = sections(first);
  const dataSection = firstSections.find((s) => s.id === DATA);
  if (!dataSection) return { first, deferred, moved: 0 };
  if (sections(deferred).some((s) => s.id === DATA)) throw new Error('the deferred module has data segments of its own');
  const segments = readSegments(dataSection.body);
  const low = Math.min(...segments.map((s) => s.offset));
  const high = Math.max(...segments.map((s) => s.offset + s.bytes.length));
  const image = Buffer.alloc(high - low);
  for (const s of segments) s.bytes.copy(image, s.offset - low);
  // With `partial` (the first module's segments write part of the data, the rest is another
  // module's), neither part writes a byte they do not: a zero there is not this data's.
  const covered = new Uint8Array(image.length).fill(partial ? 0 : 1);
  if (partial) for (const s of segments) covered.fill(1, s.offset - low, s.offset - low + s.bytes.length);
  const byte = (a) => (a >= low && a < high ? image[a - low] : 0);
  // (A map of another link would not span this data.)
  if (!objects.length || objects[0].start > low || objects[objects.length - 1].end < high) {
    throw new Error(`the map's data objects do not span the module's data (${low}-${high})`);
  }

  const kept = new Uint8Array(objects.length);
  const queue = [];
  const keep = (address) => {
    const i = holder(objects, address);
    if (i >= 0 && !kept[i]) {
      kept[i] = 1;
      queue.push(i);
    }
  };
  const refs = [];
  for (const s of firstSections) if (s.id === CODE || s.id === GLOBAL) constants(s.body, refs);
  refs.forEach(keep);
  while (queue.length) {
    const { start, end } = objects[queue.pop()];
    for (let a = start; a + 4 <= end; a++) keep((byte(a) | (byte(a + 1) << 8) | (byte(a + 2) << 16) | (byte(a + 3) << 24)) >>> 0);
  }

  // Whose each byte is: 1 an object kept, 2 an object that moves, 0 no object's (padding, which
  // nothing reads: either part may write its zeros).
  const owner = new Uint8Array(image.length);
  let moved = 0;
  objects.forEach((o, i) => {
    const from = Math.max(o.start, low) - low;
    const to = Math.min(o.end, high) - low;
    if (from >= to) return;
    owner.fill(kept[i] ? 1 : 2, from, to);
    if (!kept[i]) for (let a = from; a < to; a++) if (image[a] !== 0) moved++;
  });
  if (moved === 0) return { first, deferred, moved: 0 };
  // Each part's segments: the runs of bytes it may write, each from a byte that is not zero to
  // the last such byte before more than 8 zeros (a segment's own cost) or a byte it may not write.
  const runs = (mayWrite) => {
    const out = [];
    let a = 0;
    while (a < image.length) {
      while (a < image.length && !(mayWrite(a) && image[a] !== 0)) a++;
      if (a === image.length) break;
      const start = a;
      let end = ++a;
      for (; a < image.length && mayWrite(a) && a - end <= 8; a++) if (image[a] !== 0) end = a + 1;
      out.push({ offset: low + start, bytes: Buffer.from(image.subarray(start, end)) });
      a = end;
    }
    return out;
  };
  const firstSegments = runs((a) => covered[a] && owner[a] !== 2);
  const deferredSegments = runs((a) => covered[a] && (owner[a] === 2 || (owner[a] === 0 && image[a] === 0)));
  // (What moved and what stayed are the image again, byte for byte.)
  const check = Buffer.alloc(image.length);
  for (const s of [...firstSegments, ...deferredSegments]) s.bytes.copy(check, s.offset - low);
  if (Buffer.compare(check, image) !== 0) throw new Error('the data cut in two is not the data');
  return { first: withData(first, firstSegments), deferred: withData(deferred, deferredSegments), moved };
}

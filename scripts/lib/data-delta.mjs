// A module's static data written as differences where that compresses better, and put back by a
// start function when the module is instantiated (scripts/build.mjs runs it on the validator).
//
// The validator's data is mostly tables of numbers: `regex-syntax`'s Unicode classes (sorted
// pairs of code points, 8 bytes a range), its case folding (a code point, an address, a length),
// Rust's case conversions. gzip sees each number's low bytes as new; written as the difference
// from the number one, two, three or four words before, the same table is mostly small numbers
// that repeat, and gzips to a third.
//
// The data, from the lowest byte a segment writes to the highest, is cut into blocks of BLOCK
// bytes. Each block is written as it is, or each of its 32-bit words (little endian, as wasm
// stores them) minus the word `s` words before it, s = 1…4, whichever deflate (at gzip's level,
// after the WINDOW bytes written before it) makes smallest; a block whose difference gains less
// than 3 bytes stays as it is. The stride of each block is one byte of a table, written by one
// more data segment below the data (at TABLE_ADDRESS, in the stack's part of memory, which
// nothing uses before the module runs); the data segments write the blocks as encoded, leaving
// out runs of zeros (the memory is zero there already).
//
// The start function, which runs when the module is instantiated and before any export can be
// called, adds back, block by block in address order, the word each encoded word was taken from
// (its own words before it are already back), and sets each byte of the table to zero again:
// the module's memory is then byte for byte what the original module's data segments write
// (scripts/build.mjs checks it, instantiating both). It reads each byte of data once: the
// validator's instantiation in Node 20 takes 0.52–0.74 ms with it, 0.49–0.65 without.
//
// A module with a start function of its own, an imported memory, or data segments that are not
// active at a constant address is refused; so is one whose data starts too low for the table.
//
//   deltaData(bytes) → { bytes, blocks, encoded } where `blocks` is the number of blocks and
//   `encoded` how many are written as differences (0, and the bytes as they were, when none
//   compresses better).

import zlib from 'node:zlib';
import { cursor, importEntries, sections, uleb, withSections } from './wasm-module.mjs';
import { dataSegments, sleb, withData } from './data-split.mjs';

/** The size of a block of data, in bytes (a multiple of 4). */
export const BLOCK = 128;
/** Where the table of strides is written, below the data. */
export const TABLE_ADDRESS = 1024;
/** How much encoded data before a block deflate is given when a block's encoding is chosen. */
const WINDOW = 8192;
/** Runs of at least this many zeros are left out of the segments. */
const ZERO_RUN = 32;

const TYPE = 1;
const IMPORT = 2;
const FUNCTION = 3;
const MEMORY = 5;
const START = 8;
const CODE = 10;

/**
 * `bytes` (a module) with its data encoded as the header says and a start function that decodes
 * it.
 * @param {Uint8Array} bytes
 */
export function deltaData(bytes) {
  const input = bytes;
  bytes = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const all = sections(bytes);
  if (all.some((s) => s.id === START)) throw new Error('data-delta.mjs: the module has a start function already');
  const imports = all.find((s) => s.id === IMPORT);
  const imported = imports ? importEntries(imports.body) : [];
  if (imported.some((i) => i.kind === 2) || !all.some((s) => s.id === MEMORY)) throw new Error('data-delta.mjs: the module does not define its memory');
  const segments = dataSegments(bytes);
  if (!segments.length) return { bytes: input, blocks: 0, encoded: 0 };

  // The data as memory holds it once the segments are written, from `base` to `end`.
  const base = Math.min(...segments.map((s) => s.offset)) & ~3;
  const end = (Math.max(...segments.map((s) => s.offset + s.bytes.length)) + 3) & ~3;
  const image = Buffer.alloc(end - base);
  for (const s of segments) s.bytes.copy(image, s.offset - base);

  const { table, encoded } = encode(image);
  const used = table.reduce((n, s) => n + (s ? 1 : 0), 0);
  if (!used) return { bytes: input, blocks: table.length, encoded: 0 };
  if (TABLE_ADDRESS + table.length > base) throw new Error(`data-delta.mjs: the data starts at ${base}, below the table's end (${TABLE_ADDRESS + table.length})`);

  const data = [{ offset: TABLE_ADDRESS, bytes: Buffer.from(table) }, ...withoutZeros(encoded, base)];
  let out = withData(bytes, data);
  out = withStartFunction(out, decoder({ base, end, blocks: table.length }));
  return { bytes: out, blocks: table.length, encoded: used };
}

/**
 * Each block of `image` as it is or as differences (see the header): the table of strides (in
 * words, 0 for a block as it is) and the encoded image.
 * @param {Buffer} image
 */
function encode(image) {
  const blocks = Math.ceil(image.length / BLOCK);
  const table = new Uint8Array(blocks);
  const encoded = Buffer.from(image);
  const candidate = Buffer.alloc(BLOCK);
  for (let k = 0; k < blocks; k++) {
    const from = k * BLOCK;
    const to = Math.min(image.length, from + BLOCK);
    const before = encoded.subarray(Math.max(0, from - WINDOW), from);
    const cost = (block) => zlib.deflateRawSync(block, { level: 9, ...(before.length ? { dictionary: before } : {}) }).length;
    let best = 0;
    let bestCost = cost(image.subarray(from, to)) - 2;
    let bestBytes = null;
    for (let s = 1; s <= 4; s++) {
      if (from < 4 * s) continue;
      const c = candidate.subarray(0, to - from);
      for (let i = from; i < to; i += 4) c.writeInt32LE((image.readInt32LE(i) - image.readInt32LE(i - 4 * s)) | 0, i - from);
      const n = cost(c);
      if (n < bestCost) {
        best = s;
        bestCost = n;
        bestBytes = Buffer.from(c);
      }
    }
    table[k] = best;
    if (bestBytes) bestBytes.copy(encoded, from);
  }
  return { table, encoded };
}

/** `image` (at `base`) as active segments that leave out its runs of ZERO_RUN zeros or more. */
function withoutZeros(image, base) {
  const out = [];
  let i = 0;
  while (i < image.length) {
    while (i < image.length && image[i] === 0) i++;
    if (i === image.length) break;
    let j = i;
    let zeros = 0;
    while (j < image.length && zeros < ZERO_RUN) {
      zeros = image[j] === 0 ? zeros + 1 : 0;
      j++;
    }
    const stop = zeros >= ZERO_RUN ? j - zeros : j;
    out.push({ offset: base + i, bytes: image.subarray(i, stop) });
    i = j;
  }
  return out;
}

/**
 * The start function's body (locals and code): for each block k whose stride s (the table's
 * byte k) is not 0, each word from the block's start to its end (or `end`) gets the word 4·s
 * bytes before it added, and the table's byte is set to zero.
 */
function decoder({ base, end, blocks }) {
  const [k, a, e, back] = [0, 1, 2, 3];
  const op = {
    loop: [0x03, 0x40], if: [0x04, 0x40], end: [0x0b], brIf: (l) => [0x0d, l], select: [0x1b],
    get: (l) => [0x20, l], set: (l) => [0x21, l], tee: (l) => [0x22, l],
    const: (n) => [0x41, ...sleb(n)],
    load: [0x28, 0x02, 0x00], store: [0x36, 0x02, 0x00],
    load8: (offset) => [0x2d, 0x00, ...uleb(offset)], store8: (offset) => [0x3a, 0x00, ...uleb(offset)],
    ne: [0x47], ltU: [0x49], add: [0x6a], sub: [0x6b], mul: [0x6c], shl: [0x74],
  };
  const code = [
    ...op.loop,
    /**/ ...op.get(k), ...op.load8(TABLE_ADDRESS), ...op.const(2), ...op.shl, ...op.tee(back),
    /**/ ...op.if,
    /*   */ ...op.get(k), ...op.const(0), ...op.store8(TABLE_ADDRESS),
    /*   */ ...op.get(k), ...op.const(BLOCK), ...op.mul, ...op.const(base), ...op.add, ...op.tee(a),
    /*   */ ...op.const(BLOCK), ...op.add, ...op.set(e),
    /*   */ ...op.get(e), ...op.const(end), ...op.get(e), ...op.const(end), ...op.ltU, ...op.select, ...op.set(e),
    /*   */ ...op.loop,
    /*     */ ...op.get(a), ...op.get(a), ...op.load, ...op.get(a), ...op.get(back), ...op.sub, ...op.load, ...op.add, ...op.store,
    /*     */ ...op.get(a), ...op.const(4), ...op.add, ...op.tee(a), ...op.get(e), ...op.ltU, ...op.brIf(0),
    /*   */ ...op.end,
    /**/ ...op.end,
    /**/ ...op.get(k), ...op.const(1), ...op.add, ...op.tee(k), ...op.const(blocks), ...op.ne, ...op.brIf(0),
    ...op.end,
    ...op.end,
  ];
  // One run of four i32 locals.
  return Buffer.from([0x01, 0x04, 0x7f, ...code]);
}

/** `bytes` with a function of type () → () whose body is `body` made its start function. */
function withStartFunction(bytes, body) {
  const all = sections(bytes);
  const typeBody = all.find((s) => s.id === TYPE)?.body ?? Buffer.from([0]);
  const types = readTypes(typeBody);
  let type = types.findIndex((t) => t.params === 0 && t.results === 0);
  const edits = new Map();
  if (type < 0) {
    type = types.length;
    edits.set(TYPE, appended(typeBody, types.length, Buffer.from([0x60, 0, 0])));
  }
  const imports = all.find((s) => s.id === IMPORT);
  const importedFunctions = imports ? importEntries(imports.body).filter((i) => i.kind === 0).length : 0;
  const functionBody = all.find((s) => s.id === FUNCTION)?.body ?? Buffer.from([0]);
  const defined = cursor(functionBody).u32();
  edits.set(FUNCTION, appended(functionBody, defined, uleb(type)));
  const codeBody = all.find((s) => s.id === CODE)?.body ?? Buffer.from([0]);
  edits.set(CODE, appended(codeBody, cursor(codeBody).u32(), Buffer.concat([uleb(body.length), body])));
  edits.set(START, uleb(importedFunctions + defined));
  return withSections(bytes, edits);
}

/** A vector's body (`count` entries) with `entry` added at its end. */
function appended(body, count, entry) {
  return Buffer.concat([uleb(count + 1), body.subarray(uleb(count).length), entry]);
}

/** The function types of a type section's body: `{ params, results }` counts. */
function readTypes(body) {
  const c = cursor(body);
  const n = c.u32();
  const out = [];
  for (let i = 0; i < n; i++) {
    if (body[c.pos++] !== 0x60) throw new Error(`data-delta.mjs: type ${i} is not a plain function type`);
    const params = c.u32();
    c.pos += params;
    const results = c.u32();
    c.pos += results;
    out.push({ params, results });
  }
  return out;
}

/**
 * The memory a module's instance has once instantiated (its exported memory, copied), every
 * imported function a function that does nothing: what the build compares before and after.
 * @param {Uint8Array} bytes
 */
export async function memoryAfterInstantiation(bytes) {
  const module = await WebAssembly.compile(bytes);
  const imports = {};
  for (const i of WebAssembly.Module.imports(module)) {
    if (i.kind !== 'function') throw new Error(`data-delta.mjs: the module imports ${i.module}.${i.name}, a ${i.kind}`);
    (imports[i.module] ??= {})[i.name] = () => {};
  }
  const { exports } = await WebAssembly.instantiate(module, imports);
  const memory = Object.values(exports).find((x) => x instanceof WebAssembly.Memory);
  if (!memory) throw new Error('data-delta.mjs: the module exports no memory');
  return Buffer.from(memory.buffer.slice(0));
}

// How many bytes a file costs over the wire, as `make size`, `make bench` and
// `make bench-breakdown` report it: raw, gzip (node's zlib at level 9) and brotli (quality 11).

import zlib from 'node:zlib';

/** `{ raw, gzip, brotli }` byte counts of `bytes`. */
export function compressed(bytes) {
  return {
    raw: bytes.length,
    gzip: zlib.gzipSync(bytes, { level: 9 }).length,
    brotli: zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

#!/usr/bin/env node
// Print every file in dist/ with its raw size and its gzip size (node's zlib, level 9), the
// core and validator wasm modules apart, and what a page downloads for each way of loading the
// polyfill: the critical path (installing) and with the validator (fetched when a tool with a
// schema is first registered).
//   node scripts/size.mjs [--json]

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { DIST_DIR } from './lib/project.mjs';

if (!fs.existsSync(DIST_DIR)) {
  console.error('size: dist/ does not exist; run `make build` first');
  process.exit(1);
}

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  });
}

const rows = walk(DIST_DIR)
  .sort()
  .map((file) => {
    const bytes = fs.readFileSync(file);
    return {
      file: path.relative(DIST_DIR, file),
      raw: bytes.length,
      gzip: zlib.gzipSync(bytes, { level: 9 }).length,
    };
  });

// `files` names what a load is made of (scripts/bench.mjs adds brotli sizes from it).
const sum = (names) => ({
  files: names,
  ...rows.filter((r) => names.includes(r.file)).reduce((a, r) => ({ raw: a.raw + r.raw, gzip: a.gzip + r.gzip }), { raw: 0, gzip: 0 }),
});
const ESM = ['modelcontext.js', 'modelcontext_glue.js', 'modelcontext_glue_bg.wasm'];
const CLASSIC = ['modelcontext.iife.js'];
const VALIDATOR = ['modelcontext_validator.wasm'];
const hasValidator = rows.some((r) => r.file === VALIDATOR[0]);
// The critical path is what a page downloads to install the polyfill; the validator module is
// fetched later, when a tool with a schema is first registered (src/browser/validator.rs).
const bundles = [
  { file: 'core wasm (modelcontext_glue_bg.wasm)', ...sum(['modelcontext_glue_bg.wasm']) },
  ...(hasValidator ? [{ file: 'validator wasm (modelcontext_validator.wasm)', ...sum(VALIDATOR) }] : []),
  { file: 'ESM critical path (modelcontext.js + glue + core wasm)', ...sum(ESM) },
  { file: 'classic critical path (modelcontext.iife.js)', ...sum(CLASSIC) },
  ...(hasValidator
    ? [
        { file: 'ESM + validator (first tool with a schema)', ...sum([...ESM, ...VALIDATOR]) },
        { file: 'classic + validator (first tool with a schema)', ...sum([...CLASSIC, ...VALIDATOR]) },
      ]
    : []),
];

// The peers a page would otherwise load, measured the same way from node_modules (installed by
// `make deps`), so the comparison is printed beside our own numbers in the same run.
const PEERS = [
  ['@mcp-b/global IIFE (peer)', 'node_modules/@mcp-b/global/dist/index.iife.js'],
  ['@mcp-b/webmcp-polyfill IIFE (peer)', 'node_modules/@mcp-b/webmcp-polyfill/dist/index.iife.js'],
];
const peers = PEERS.flatMap(([name, rel]) => {
  const file = path.join(DIST_DIR, '..', rel);
  if (!fs.existsSync(file)) return [];
  const bytes = fs.readFileSync(file);
  return [{ file: name, raw: bytes.length, gzip: zlib.gzipSync(bytes, { level: 9 }).length }];
});

if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ files: rows, loads: bundles, peers }, null, 2));
  process.exit(0);
}

const kb = (n) => (n / 1024).toFixed(1) + ' KiB';
const width = Math.max(...[...rows, ...bundles, ...peers].map((r) => r.file.length), 4);
const cells = (name, a, b, c, d) =>
  `${name.padEnd(width)}  ${a.padStart(10)}  ${b.padStart(10)}  ${c.padStart(11)}  ${d.padStart(11)}`;
const line = (name, raw, gzip) => cells(name, String(raw), String(gzip), kb(raw), kb(gzip));

console.log(cells('dist/', 'raw bytes', 'gzip -9', 'raw', 'gzip'));
console.log('-'.repeat(width + 50));
for (const r of rows) console.log(line(r.file, r.raw, r.gzip));
console.log('-'.repeat(width + 50));
for (const b of bundles) console.log(line(b.file, b.raw, b.gzip));
if (peers.length) {
  console.log('-'.repeat(width + 50));
  for (const p of peers) console.log(line(p.file, p.raw, p.gzip));
}

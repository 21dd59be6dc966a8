#!/usr/bin/env node
// Print every file in dist/ with its raw, gzip (node's zlib, level 9) and brotli (quality 11)
// sizes, the core and validator wasm modules apart, and what a page downloads for each way of
// loading the polyfill: the front (the bytes before document.modelContext exists), the core
// (loaded after it, calls waiting meanwhile), and with the validator (fetched when a tool with a
// schema is first registered).
//   node scripts/size.mjs [--json]

import fs from 'node:fs';
import path from 'node:path';
import { DIST_DIR } from './lib/project.mjs';
import { compressed } from './lib/compressed.mjs';

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
    return { file: path.relative(DIST_DIR, file), ...compressed(bytes) };
  });

// `files` names what a load is made of (scripts/bench.mjs adds brotli sizes from it).
const sum = (names) => ({
  files: names,
  ...rows.filter((r) => names.includes(r.file)).reduce(
    (a, r) => ({ raw: a.raw + r.raw, gzip: a.gzip + r.gzip, brotli: a.brotli + r.brotli }), { raw: 0, gzip: 0, brotli: 0 }),
});
// The front installs document.modelContext; the core (its module, the glue, the core wasm's first
// module) follows.
const FRONT_ESM = ['modelcontext.js'];
const FRONT_CLASSIC = ['modelcontext.iife.js'];
const CORE = ['modelcontext_core.js', 'modelcontext_glue.js', 'modelcontext_glue_bg.wasm'];
// The core wasm's deferred module, requested when something first needs it or an agent comes,
// after its call module, which an agent's calls need (polyfill/src/deferred.js).
const DEFERRED = ['modelcontext_calls.wasm', 'modelcontext_deferred.wasm'];
const ESM = [...FRONT_ESM, ...CORE];
const CLASSIC = [...FRONT_CLASSIC, ...CORE];
const SELF_CONTAINED = ['modelcontext.inline.iife.js'];
const VALIDATOR = ['modelcontext_validator.wasm'];
const hasValidator = rows.some((r) => r.file === VALIDATOR[0]);
// McpClient and the client transports: fetched when a page first makes a client.
const CLIENT = ['modelcontext_client_glue.js', 'modelcontext_client_glue_bg.wasm'];
const hasClient = rows.some((r) => r.file === CLIENT[1]);
// The critical path is what a page downloads to install the polyfill; the validator module is
// fetched later, when a tool with a schema is first registered (src/browser/validator.rs).
const bundles = [
  { file: 'front, ESM (modelcontext.js): before document.modelContext', ...sum(FRONT_ESM) },
  { file: 'front, classic (modelcontext.iife.js): before document.modelContext', ...sum(FRONT_CLASSIC) },
  { file: 'core, loaded after the front (core js + glue + core wasm)', ...sum(CORE) },
  { file: 'core wasm, first module (modelcontext_glue_bg.wasm)', ...sum(['modelcontext_glue_bg.wasm']) },
  { file: 'core wasm, deferred module (modelcontext_deferred.wasm), when first needed', ...sum(['modelcontext_deferred.wasm']) },
  { file: 'core wasm, call module (modelcontext_calls.wasm), before the deferred module', ...sum(['modelcontext_calls.wasm']) },
  ...(hasValidator ? [{ file: 'validator wasm (modelcontext_validator.wasm)', ...sum(VALIDATOR) }] : []),
  ...(hasClient ? [{ file: 'client module (client glue + client wasm), when a page first makes a client', ...sum(CLIENT) }] : []),
  { file: 'ESM, front + core (modelcontext.js, modelcontext_core.js, glue, core wasm)', ...sum(ESM) },
  { file: 'classic, front + core (modelcontext.iife.js, modelcontext_core.js, glue, core wasm)', ...sum(CLASSIC) },
  { file: 'ESM, front + core + deferred module (a page an agent uses, or with forms)', ...sum([...ESM, ...DEFERRED]) },
  { file: 'self-contained classic (modelcontext.inline.iife.js, every wasm inside)', ...sum(SELF_CONTAINED) },
  ...(hasValidator
    ? [
        { file: 'ESM + validator (first schema the core cannot check)', ...sum([...ESM, ...VALIDATOR]) },
        { file: 'classic + validator (first schema the core cannot check)', ...sum([...CLASSIC, ...VALIDATOR]) },
      ]
    : []),
  ...(hasClient ? [{ file: 'ESM + client module (a page that makes an McpClient)', ...sum([...ESM, ...CLIENT]) }] : []),
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
  return [{ file: name, ...compressed(bytes) }];
});

if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ files: rows, loads: bundles, peers }, null, 2));
  process.exit(0);
}

const kb = (n) => (n / 1024).toFixed(1) + ' KiB';
const width = Math.max(...[...rows, ...bundles, ...peers].map((r) => r.file.length), 4);
const cells = (name, ...c) =>
  `${name.padEnd(width)}  ${c.slice(0, 3).map((x) => x.padStart(10)).join('  ')}  ${c.slice(3).map((x) => x.padStart(11)).join('  ')}`;
const line = (r) => cells(r.file, String(r.raw), String(r.gzip), String(r.brotli), kb(r.raw), kb(r.gzip), kb(r.brotli));
const rule = '-'.repeat(width + 76);

console.log(cells('dist/', 'raw bytes', 'gzip -9', 'brotli 11', 'raw', 'gzip', 'brotli'));
console.log(rule);
for (const r of rows) console.log(line(r));
console.log(rule);
for (const b of bundles) console.log(line(b));
if (peers.length) {
  console.log(rule);
  for (const p of peers) console.log(line(p));
}

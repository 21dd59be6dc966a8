#!/usr/bin/env node
// What each part of a wasm module costs: the code size of every function, summed by the crate
// (and, for this crate, the module) its symbol names, read from the module's name section.
// Run it on a module that still has names: the wasm-bindgen output before wasm-opt
// (target/bindgen/release/web/modelcontext_glue_bg.wasm after `make build`), or the validator
// before wasm-metadce (target/wasm-validator/wasm32-unknown-unknown/release/modelcontext_polyfill.wasm).
// wasm-opt -Oz then shrinks every part (the totals it prints are before that); the shares hold.
//
//   node scripts/wasm-sizes.mjs [file.wasm] [--top N] [--depth N] [--grep SUBSTRING]

import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './lib/project.mjs';
import { readModule } from './lib/wasm-module.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : dflt;
};
if (args.includes('--help') || args.includes('-h')) {
  console.log('usage: node scripts/wasm-sizes.mjs [file.wasm] [--top N] [--depth N] [--grep SUBSTRING]');
  process.exit(0);
}
const TOP = Number(opt('--top', 25));
const FILTER = opt('--grep', null);
const DEPTH = Number(opt('--depth', 2));
const unknown = args.find((a) => a.startsWith('-'));
if (unknown) {
  console.error(`wasm-sizes: unknown option ${unknown} (--help lists them)`);
  process.exit(2);
}
const file = args[0] ?? path.join(REPO_ROOT, 'target/bindgen/release/web/modelcontext_glue_bg.wasm');
const buf = fs.readFileSync(file);

const { imported, bodies, names, dataBytes } = readModule(buf);

// Rust's legacy mangling (`_ZN5serde2de...17h0123456789abcdefE`, what rustc leaves when no
// wasm-bindgen demangles the names) → `serde::de::...`.
function demangle(sym) {
  if (!sym || !sym.startsWith('_ZN')) return sym;
  const parts = [];
  let i = 3;
  while (i < sym.length && sym[i] !== 'E') {
    let j = i;
    while (j < sym.length && sym[j] >= '0' && sym[j] <= '9') j++;
    const len = Number(sym.slice(i, j));
    if (!len) break;
    parts.push(sym.slice(j, j + len).replace(/^_\$LT\$/, '$LT$').replaceAll('$LT$', '<').replaceAll('$GT$', '>').replaceAll('$u20$', ' ').replaceAll('..', '::'));
    i = j + len;
  }
  return parts.join('::');
}

// Crate (and module) of a Rust symbol: `<a::b as c::d>::e::h123` → the crate of the first path.
function owner(sym) {
  if (!sym) return '(no name)';
  let s = sym.replace(/::h[0-9a-f]{16}$/, '');
  if (s.startsWith('<')) s = s.slice(1);
  s = s.replace(/^(dyn |&mut |&|impl )+/, '');
  const parts = s.split('::').map((p) => p.replace(/\[[0-9a-f]+\]$/, '').replace(/[<>{} ].*$/, ''));
  if (parts.length < 2) return `(${sym.startsWith('__wbg') || sym.startsWith('__wbindgen') ? 'wasm-bindgen glue' : 'other'})`;
  return parts.slice(0, parts[0] === 'modelcontext_polyfill' ? DEPTH + 1 : DEPTH === 2 && ['core', 'alloc', 'std'].includes(parts[0]) ? 2 : 1).join('::');
}

const totals = new Map();
let code = 0;
bodies.forEach((len, i) => {
  const sym = demangle(names.get(imported + i));
  // --grep PATTERN: each matching function on its own (generic instances show their types).
  const key = FILTER ? (sym && sym.includes(FILTER) ? sym.replace(/::h[0-9a-f]{16}$/, '') : null) : owner(sym);
  if (key === null) return;
  totals.set(key, (totals.get(key) ?? 0) + len);
  code += len;
});
const rows = [...totals].sort((a, b) => b[1] - a[1]);
const pct = (n) => ((100 * n) / code).toFixed(1).padStart(5) + '%';
console.log(`${path.relative(process.cwd(), file)}: ${buf.length.toLocaleString('en')} bytes; code ${code.toLocaleString('en')} (${bodies.length} functions), data ${dataBytes.toLocaleString('en')}`);
for (const [k, v] of rows.slice(0, TOP)) console.log(`${v.toLocaleString('en').padStart(10)} ${pct(v)}  ${k}`);
const rest = rows.slice(TOP).reduce((a, [, v]) => a + v, 0);
if (rest) console.log(`${rest.toLocaleString('en').padStart(10)} ${pct(rest)}  (${rows.length - TOP} more)`);

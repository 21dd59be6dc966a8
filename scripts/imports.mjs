#!/usr/bin/env node
// The import graph of src/, read from the code: which module uses which, the circles
// (strongly connected components) inside each folder and between folders, and the largest files.
//
//   node scripts/imports.mjs            # summary: folder graph, circles, largest files
//   node scripts/imports.mjs --edges    # also every file-to-file edge
//   node scripts/imports.mjs --root DIR # another checkout's src/ (e.g. an older tree)
//
// A module is a file (`src/a/b.rs` is `a::b`, `src/a/mod.rs` is `a`). A reference is any
// `crate::…` or `super::…` path in the code (in `use` trees, braces expanded, and inline), resolved
// to the longest module it names. Comments and string literals are skipped. Exits 1 when a
// circle exists, so it can gate a check.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const args = process.argv.slice(2);
const rootArg = args.includes('--root') ? args[args.indexOf('--root') + 1] : '.';
const src = join(rootArg, 'src');
const showEdges = args.includes('--edges');

function walk(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.rs') ? [p] : [];
  });
}

function moduleOf(file) {
  const parts = relative(src, file).split(sep);
  const last = parts.pop().replace(/\.rs$/, '');
  if (last !== 'mod' && last !== 'lib') parts.push(last);
  return parts.join('::') || 'crate';
}

// Code without comments and string/char literals (lengths kept irrelevant: only paths matter).
function stripped(text) {
  let out = '';
  for (let i = 0; i < text.length; ) {
    const c = text[i];
    const n = text[i + 1];
    if (c === '/' && n === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && n === '*') {
      let depth = 1;
      i += 2;
      while (i < text.length && depth > 0) {
        if (text[i] === '/' && text[i + 1] === '*') (depth++, (i += 2));
        else if (text[i] === '*' && text[i + 1] === '/') (depth--, (i += 2));
        else i++;
      }
    } else if (c === 'r' && /^r#*"/.test(text.slice(i, i + 10)) && !/\w/.test(text[i - 1] ?? '')) {
      const hashes = text.slice(i + 1).match(/^#*/)[0];
      const end = '"' + hashes;
      const stop = text.indexOf(end, i + 2 + hashes.length);
      i = stop < 0 ? text.length : stop + end.length;
      out += '""';
    } else if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      out += '""';
    } else if (c === "'" && /^'(\\.|[^\\'])'/.test(text.slice(i, i + 4))) {
      i += text[i + 1] === '\\' ? text.indexOf("'", i + 2) - i + 1 : 3;
      out += "' '";
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

// Expands `a::{b, c::{d, e}}` into ['a::b', 'a::c::d', 'a::c::e'].
function expandUse(tree) {
  tree = tree.replace(/\s+/g, '');
  const open = tree.indexOf('{');
  if (open < 0) return [tree.replace(/::self$/, '').replace(/\bas\w+$/, '')];
  const prefix = tree.slice(0, open);
  const inner = tree.slice(open + 1, tree.lastIndexOf('}'));
  const items = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= inner.length; i++) {
    const ch = inner[i];
    if (ch === '{') depth++;
    else if (ch === '}') depth--;
    else if ((ch === ',' && depth === 0) || i === inner.length) {
      const item = inner.slice(start, i);
      if (item) items.push(item);
      start = i + 1;
    }
  }
  return items.flatMap((it) => expandUse(it === 'self' ? prefix.replace(/::$/, '') : prefix + it));
}

const files = walk(src).sort();
const modules = new Map(files.map((f) => [moduleOf(f), f]));
const isFolder = (m) => files.some((f) => moduleOf(f).startsWith(m + '::'));

// Re-exports: module -> (name -> the module that defines it), from `pub use child::…` and
// `pub(crate) use child::…` lines naming a child module, so a path through a re-export resolves
// to the file that defines the item (a folder re-exporting its files is not a dependency on the
// folder's mod.rs, and the dependency on the file is not hidden).
const reexports = new Map();
for (const f of files) {
  const from = moduleOf(f);
  const code = stripped(readFileSync(f, 'utf8'));
  for (const m of code.matchAll(/\bpub(?:\([\w:]+\))?\s+use\s+([A-Za-z_]\w*(?:::[^;]+)?);/g)) {
    if (/^(crate|super|self|std|core|alloc)\b/.test(m[1])) continue;
    for (const p of expandUse(m[1])) {
      const segs = p.split('::');
      const name = segs[segs.length - 1].replace(/^.*\bas/, '');
      const child = from === 'crate' ? segs[0] : `${from}::${segs[0]}`;
      if (!modules.has(child) || segs.length < 2) continue;
      if (!reexports.has(from)) reexports.set(from, new Map());
      reexports.get(from).set(name, { module: child, rest: segs.slice(1) });
    }
  }
}

function resolve(from, path) {
  const segs = path.split('::').filter(Boolean);
  let base;
  if (segs[0] === 'crate') {
    base = [];
    segs.shift();
  } else if (segs[0] === 'super') {
    // `super` of a folder's mod.rs is the folder's parent; of a file, its folder.
    base = from === 'crate' ? [] : from.split('::');
    while (segs[0] === 'super') {
      base = base.slice(0, -1);
      segs.shift();
    }
  } else return null;
  return longest([...base, ...segs]);
}

// The longest module `full` names, following re-exports of the item it names next.
function longest(full, seen = 0) {
  for (let n = full.length; n > 0; n--) {
    const m = full.slice(0, n).join('::');
    if (!modules.has(m)) continue;
    const via = n < full.length && reexports.get(m)?.get(full[n]);
    if (via && seen < 8) return longest([...via.module.split('::'), ...via.rest, ...full.slice(n + 1)], seen + 1);
    return m;
  }
  return null;
}

const edges = new Map(); // module -> Set(module)
for (const f of files) {
  const from = moduleOf(f);
  const code = stripped(readFileSync(f, 'utf8'));
  const targets = new Set();
  for (const m of code.matchAll(/\buse\s+((?:crate|super)(?:::[^;]+)?);/g)) {
    for (const p of expandUse(m[1])) targets.add(resolve(from, p));
  }
  for (const m of code.matchAll(/\b(?:crate|super)(?:::(?:super|[A-Za-z_]\w*))+/g)) {
    // (The prefix of a `use` tree's braces: the loop above resolved each of its paths.)
    if (code.startsWith('::{', m.index + m[0].length)) continue;
    targets.add(resolve(from, m[0]));
  }
  targets.delete(null);
  targets.delete(from);
  // A module's own folder (mod.rs) only re-declares it; a file naming its parent folder
  // through `super::x` resolves to the file `x`, not to the folder.
  edges.set(from, targets);
}

// Tarjan's strongly connected components.
function circles(nodes, next) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of next(v)) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of nodes) if (!idx.has(v)) visit(v);
  return out;
}

const folderOf = (m) => (m === 'crate' ? 'crate' : m.split('::')[0]);
// Inside a folder: edges between its files, the folder's mod.rs left out (declaring children
// is not a dependency) unless it holds code others use.
const byFolder = new Map();
for (const [from, tos] of edges) {
  for (const to of tos) {
    if (folderOf(from) !== folderOf(to)) continue;
    if (isFolder(to) && from.startsWith(to + '::')) continue;
    if (isFolder(from) && to.startsWith(from + '::')) continue;
    const folder = folderOf(from);
    if (!byFolder.has(folder)) byFolder.set(folder, new Map());
    const g = byFolder.get(folder);
    if (!g.has(from)) g.set(from, new Set());
    g.get(from).add(to);
  }
}
const inner = [];
for (const [folder, g] of byFolder) {
  for (const c of circles([...g.keys()], (v) => g.get(v) ?? [])) inner.push({ folder, c });
}

const folderEdges = new Map();
for (const [from, tos] of edges) {
  for (const to of tos) {
    const a = folderOf(from);
    const b = folderOf(to);
    if (a === b || a === 'crate' || b === 'crate') continue;
    if (!folderEdges.has(a)) folderEdges.set(a, new Map());
    const m = folderEdges.get(a);
    m.set(b, (m.get(b) ?? 0) + 1);
  }
}
const outer = circles([...folderEdges.keys()], (v) => [...(folderEdges.get(v)?.keys() ?? [])]);

console.log(`import graph of ${src}: ${files.length} files, ${[...edges.values()].reduce((n, s) => n + s.size, 0)} file-to-file references`);
console.log('\nbetween folders (references):');
for (const [a, m] of [...folderEdges].sort()) {
  console.log(`  ${a} -> ${[...m].sort().map(([b, n]) => `${b} (${n})`).join(', ')}`);
}
console.log(`\ncircles between folders: ${outer.length ? outer.map((c) => c.join(' <-> ')).join('; ') : 'none'}`);
console.log(`circles inside folders: ${inner.length ? '' : 'none'}`);
for (const { folder, c } of inner) console.log(`  ${folder}: ${c.length} files: ${c.join(', ')}`);
if (showEdges) {
  console.log('\nedges:');
  for (const [from, tos] of [...edges].sort()) if (tos.size) console.log(`  ${from} -> ${[...tos].sort().join(', ')}`);
}
const sizes = files
  .map((f) => [relative(rootArg, f), readFileSync(f, 'utf8').split('\n').length - 1])
  .sort((a, b) => b[1] - a[1]);
console.log('\nlargest files (lines):');
for (const [f, n] of sizes.slice(0, 10)) console.log(`  ${String(n).padStart(5)}  ${f}`);
console.log(`files over 600 lines: ${sizes.filter(([, n]) => n > 600).length}`);
process.exitCode = outer.length || inner.length ? 1 : 0;

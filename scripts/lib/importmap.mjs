// A bundler-free way to load npm ESM packages in a page: walk the module graph from some
// entry packages in node_modules, resolve every bare specifier the way a bundler targeting
// browsers would (package.json `exports` with the conditions browser → import → default), and
// emit an import map. The static server already serves node_modules/ (it serves the repo root),
// so the page loads the packages' own files, unchanged.
//
//   import { importMapFor, importMapScript } from './lib/importmap.mjs';
//   const map = importMapFor(['@modelcontextprotocol/client', '@mcp-b/transports']);
//   html = importMapScript(map) + '<script type="module">import { Client } from "@modelcontextprotocol/client"; …'
//
// Nested copies (node_modules/a/node_modules/b) get import-map `scopes`, so each package sees the
// version npm installed for it. Only static `import … from '…'`, `export … from '…'`, bare
// `import '…'` and literal dynamic `import('…')` are followed; a dynamic import that cannot be
// resolved is skipped (it is only a failure if the page runs that code path).

import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './project.mjs';

const CONDITIONS = ['browser', 'import', 'module', 'default'];

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** Split `@scope/name/sub/path` into `['@scope/name', './sub/path']`. */
function splitSpecifier(spec) {
  const parts = spec.split('/');
  const n = spec.startsWith('@') ? 2 : 1;
  const name = parts.slice(0, n).join('/');
  const sub = parts.length > n ? `./${parts.slice(n).join('/')}` : '.';
  return [name, sub];
}

/** Pick a target from a conditional `exports` value. */
function pickTarget(value) {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    for (const v of value) {
      const t = pickTarget(v);
      if (t) return t;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (CONDITIONS.includes(k)) {
        const t = pickTarget(v);
        if (t) return t;
      }
    }
  }
  return undefined;
}

/** Resolve `sub` ('.' or './x') against a package.json `exports` field. */
function resolveExports(exportsField, sub) {
  if (typeof exportsField === 'string' || Array.isArray(exportsField)) {
    return sub === '.' ? pickTarget(exportsField) : undefined;
  }
  const keys = Object.keys(exportsField);
  if (!keys.some((k) => k.startsWith('.'))) return sub === '.' ? pickTarget(exportsField) : undefined;
  if (Object.hasOwn(exportsField, sub)) return pickTarget(exportsField[sub]);
  // Subpath patterns: "./features/*": "./dist/features/*.js"
  for (const k of keys) {
    const star = k.indexOf('*');
    if (star < 0) continue;
    const [pre, post] = [k.slice(0, star), k.slice(star + 1)];
    if (sub.startsWith(pre) && sub.endsWith(post) && sub.length >= k.length - 1) {
      const middle = sub.slice(pre.length, sub.length - post.length);
      const t = pickTarget(exportsField[k]);
      return t && t.replaceAll('*', middle);
    }
  }
  return undefined;
}

/** The directory of package `name` as Node would find it from `fromDir`. */
function findPackageDir(name, fromDir) {
  let dir = fromDir;
  for (;;) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Resolve a bare specifier imported from `fromFile` to an absolute file path. */
export function resolveBare(spec, fromFile) {
  const [name, sub] = splitSpecifier(spec);
  const dir = findPackageDir(name, path.dirname(fromFile));
  if (!dir) return undefined;
  const pkg = readJson(path.join(dir, 'package.json'));
  let target;
  if (pkg.exports !== undefined) target = resolveExports(pkg.exports, sub);
  else if (sub === '.') target = (typeof pkg.browser === 'string' && pkg.browser) || pkg.module || pkg.main || 'index.js';
  else target = sub;
  if (!target) return undefined;
  let file = path.join(dir, target);
  if (!fs.existsSync(file) && fs.existsSync(`${file}.js`)) file = `${file}.js`;
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.js');
  return fs.existsSync(file) ? { file, packageDir: dir } : undefined;
}

const IMPORT_RE =
  /(?:\bimport\s*(?:[\w$*{}\s,]+?\s*from\s*)?|\bexport\s*(?:\*(?:\s*as\s+[\w$]+)?|\{[^}]*\})\s*from\s*)(["'])([^"'\n]+)\1|\bimport\s*\(\s*(["'])([^"'\n]+)\3\s*\)/g;

function importsOf(source) {
  const out = [];
  for (const m of source.matchAll(IMPORT_RE)) {
    if (m[2]) out.push({ spec: m[2], dynamic: false });
    else if (m[4]) out.push({ spec: m[4], dynamic: true });
  }
  return out;
}

function toUrl(file, root) {
  return `/${path.relative(root, file).split(path.sep).join('/')}`;
}

/**
 * The import map (`{ imports, scopes }`) that lets a page import `entries` (bare specifiers of
 * packages in `root`/node_modules) and everything they import.
 * @param {string[]} entries
 * @param {{ root?: string }} [options]
 */
export function importMapFor(entries, { root = REPO_ROOT } = {}) {
  const imports = {};
  const scopes = {};
  const seen = new Set();
  const queue = [];
  const rootFile = path.join(root, 'index.js');
  for (const spec of entries) {
    const r = resolveBare(spec, rootFile);
    if (!r) throw new Error(`importMapFor: cannot resolve ${spec} from ${root} (run \`npm ci\`)`);
    imports[spec] = toUrl(r.file, root);
    queue.push(r);
  }
  while (queue.length) {
    const { file, packageDir } = queue.shift();
    if (seen.has(file)) continue;
    seen.add(file);
    const source = fs.readFileSync(file, 'utf8');
    for (const { spec, dynamic } of importsOf(source)) {
      if (spec.startsWith('.') || spec.startsWith('/')) {
        let next = path.resolve(path.dirname(file), spec);
        if (!fs.existsSync(next) && fs.existsSync(`${next}.js`)) next = `${next}.js`;
        if (fs.existsSync(next)) queue.push({ file: next, packageDir });
        continue;
      }
      if (/^[a-z][a-z0-9+.-]*:/i.test(spec)) continue; // node:, data:, https: …
      const r = resolveBare(spec, file);
      if (!r) {
        if (dynamic) continue;
        throw new Error(`importMapFor: cannot resolve ${spec} imported by ${path.relative(root, file)}`);
      }
      const scope = `${toUrl(packageDir, root)}/`;
      (scopes[scope] ??= {})[spec] = toUrl(r.file, root);
      queue.push(r);
    }
  }
  return { imports, scopes };
}

/** `<script type="importmap">…</script>` for `map`. */
export function importMapScript(map) {
  return `<script type="importmap">${JSON.stringify(map).replaceAll('<', '\\u003c')}</script>`;
}

/** The peers the interop tests, the demo and the agent example load in pages. */
export const MCP_PEERS = ['@modelcontextprotocol/client', '@mcp-b/transports'];

/**
 * A classic script that puts `map` in place as an import map (run it before any module that
 * needs it; a parser-blocking `<script src>` in <head> does that). Served by scripts/demo.mjs as
 * /examples/importmap.js.
 */
export function importMapLoaderScript(map, entries = MCP_PEERS) {
  return `// Generated by scripts/lib/importmap.mjs from node_modules/ (not a file in the repository):
// the import map for ${entries.join(', ')}.
(() => {
  const map = ${JSON.stringify(map, null, 2).replaceAll('<', '\\u003c')};
  const s = document.createElement('script');
  s.type = 'importmap';
  s.textContent = JSON.stringify(map);
  const here = document.currentScript;
  if (here) here.after(s);
  else document.head.append(s);
  window.__mcpPeersImportMap = true;
})();
`;
}

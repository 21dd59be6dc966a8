#!/usr/bin/env node
// Stage the npm package `modelcontext-polyfill` and pack it.
//
// polyfill/package.json describes the package as it is published: paths in it are relative to
// the staged package directory, not to polyfill/. This script assembles that directory:
//
//   target/npm/modelcontext-polyfill/
//     package.json   polyfill/package.json (its version must equal Cargo.toml's)
//     dist/          the files `make build` wrote to dist/
//     typings/       typings/**/*.d.ts
//     inline/, iife/, iife/inline/, react/
//                    a package.json for each subpath entry, for tools that do not read `exports`
//     README.md      polyfill/README.md, the package's README for its users (the repository's
//                    README.md is for contributors)
//     LICENSE        the repository's LICENSE
//
// then runs `npm pack` into target/npm/ (→ modelcontext-polyfill-<version>.tgz).
//   node scripts/package.mjs [--no-pack] [--no-check] [--out DIR]   (DIR: instead of target/npm/)
//
// After packing, publint (--strict) and @arethetypeswrong/cli (--profile esm-only: the package is
// ES modules only) check the result; any problem fails (--no-check skips them).

import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT, DIST_DIR, crateInfo } from './lib/project.mjs';

function fail(message) {
  console.error(`package: error: ${message}`);
  process.exit(1);
}

const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'polyfill', 'package.json'), 'utf8'));
const crate = crateInfo();
if (pkg.version !== crate.version) {
  fail(`polyfill/package.json version ${pkg.version} differs from Cargo.toml ${crate.version}; make them equal`);
}
if (!fs.existsSync(path.join(DIST_DIR, 'modelcontext.js'))) fail('dist/ is not built; run `make build`');

const outAt = process.argv.indexOf('--out');
const outRoot = outAt > 0 ? path.resolve(process.argv[outAt + 1]) : path.join(REPO_ROOT, 'target', 'npm');
const stage = path.join(outRoot, pkg.name);
fs.rmSync(stage, { recursive: true, force: true });
fs.mkdirSync(stage, { recursive: true });

fs.writeFileSync(path.join(stage, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
fs.cpSync(DIST_DIR, path.join(stage, 'dist'), { recursive: true });

const typingsDir = path.join(REPO_ROOT, 'typings');
function copyDts(from, to) {
  if (!fs.existsSync(from)) return;
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, e.name);
    if (e.isDirectory()) copyDts(src, path.join(to, e.name));
    else if (e.name.endsWith('.d.ts')) {
      fs.mkdirSync(to, { recursive: true });
      fs.copyFileSync(src, path.join(to, e.name));
    }
  }
}
copyDts(typingsDir, path.join(stage, 'typings'));

// Each subpath entry ('./inline', './react', …) also as a directory with its own package.json,
// for the tools that do not read `exports` and look for node_modules/modelcontext-polyfill/<sub>
// itself: webpack 4, Parcel 2 (where `packageExports` is not turned on), TypeScript's `node10`
// resolution. They point at the files `exports` names; package.json's `files` lists them.
for (const [sub, entry] of Object.entries(pkg.exports)) {
  if (sub === '.' || sub.includes('*') || !entry || typeof entry !== 'object') continue;
  const dir = path.join(stage, sub);
  const up = (file) => path.posix.relative(sub, file);
  fs.mkdirSync(dir, { recursive: true });
  // `module` for the ES modules only; the classic scripts are `main` alone.
  const file = up(entry.default);
  const proxy = { main: file, ...(file.endsWith('.iife.js') ? {} : { module: file }), types: up(entry.types), sideEffects: true };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(proxy, null, 2) + '\n');
  const top = `${sub.slice(2).split('/')[0]}/`;
  if (!pkg.files.includes(top)) fail(`package.json's files does not list ${top}, where the ${sub} entry's directory goes`);
}
for (const [from, to] of [['polyfill/README.md', 'README.md'], ['LICENSE', 'LICENSE']]) {
  if (!fs.existsSync(path.join(REPO_ROOT, from))) fail(`${from} is missing`);
  fs.copyFileSync(path.join(REPO_ROOT, from), path.join(stage, to));
}

// Every file package.json points at must exist in the staged package.
const targets = new Set();
const collect = (v) => {
  if (typeof v === 'string') targets.add(v);
  else if (v && typeof v === 'object') Object.values(v).forEach(collect);
};
['main', 'module', 'browser', 'types', 'unpkg', 'jsdelivr'].forEach((k) => collect(pkg[k]));
collect(pkg.exports);
const missing = [...targets].filter((t) => !t.includes('*') && !fs.existsSync(path.join(stage, t)));
for (const m of missing) {
  const msg = `package.json points at ${m}, which is not in the package`;
  if (m.startsWith('./typings/')) console.warn(`package: warning: ${msg} (typings/ not written yet?)`);
  else fail(msg);
}

console.log(`package: staged ${path.relative(REPO_ROOT, stage)}/`);
if (!process.argv.includes('--no-pack')) {
  const r = spawnSync('npm', ['pack', '--pack-destination', outRoot], { cwd: stage, stdio: 'inherit' });
  if (r.status !== 0) fail('npm pack failed');
  if (!process.argv.includes('--no-check')) {
    const bin = (name) => path.join(REPO_ROOT, 'node_modules', '.bin', name);
    const tarball = path.join(outRoot, `${pkg.name}-${pkg.version}.tgz`);
    for (const [name, argv] of [['publint', ['run', '--strict', stage]], ['attw', [tarball, '--profile', 'esm-only']]]) {
      if (!fs.existsSync(bin(name))) fail(`${name} missing; run \`make deps\``);
      const c = spawnSync(bin(name), argv, { stdio: 'inherit' });
      if (c.status !== 0) fail(`${name} found problems in the package`);
    }
  }
}

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
//     README.md      the repository README
//
// then runs `npm pack` into target/npm/ (→ modelcontext-polyfill-<version>.tgz).
//   node scripts/package.mjs [--no-pack]

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

const outRoot = path.join(REPO_ROOT, 'target', 'npm');
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
if (fs.existsSync(path.join(REPO_ROOT, 'README.md'))) {
  fs.copyFileSync(path.join(REPO_ROOT, 'README.md'), path.join(stage, 'README.md'));
}
for (const extra of ['LICENSE', 'LICENSE-MIT', 'LICENSE.md']) {
  if (fs.existsSync(path.join(REPO_ROOT, extra))) fs.copyFileSync(path.join(REPO_ROOT, extra), path.join(stage, extra));
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
}

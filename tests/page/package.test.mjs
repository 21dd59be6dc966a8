// The npm package as published: `scripts/package.mjs` (what `make package` runs) stages and packs
// it; publint and @arethetypeswrong/cli must find nothing to report, and the tarball must carry
// what a user needs (LICENSE, the users' README, types for every entry, repository links).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT, CRATE_VERSION, requireDist } from './harness.mjs';

const OUT = path.join(REPO_ROOT, 'target', 'package-test');
const STAGE = path.join(OUT, 'modelcontext-polyfill');
const TARBALL = path.join(OUT, `modelcontext-polyfill-${CRATE_VERSION}.tgz`);
const BIN = (name) => path.join(REPO_ROOT, 'node_modules', '.bin', name);

function run(cmd, args, cwd = REPO_ROOT) {
  return spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
}

/** The staged package.json, and the files the tarball holds (paths inside the package). */
const stagedManifest = () => JSON.parse(fs.readFileSync(path.join(STAGE, 'package.json'), 'utf8'));
const tarballFiles = () => run('tar', ['tzf', TARBALL]).stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));

before(() => {
  requireDist('modelcontext.js');
  fs.rmSync(OUT, { recursive: true, force: true });
  const r = run(process.execPath, [path.join(REPO_ROOT, 'scripts', 'package.mjs'), '--no-check', '--out', OUT]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('publint --strict: no errors, warnings or suggestions', () => {
  const r = run(BIN('publint'), ['run', '--strict', STAGE]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /All good!/, r.stdout);
});

test('@arethetypeswrong/cli: every entry resolves its types (ESM-only package: node16 from ESM, bundler)', () => {
  const r = run(BIN('attw'), [TARBALL, '--profile', 'esm-only', '--format', 'json']);
  const report = JSON.parse(r.stdout);
  // The esm-only profile ignores require() resolutions (node10, node16 from CJS): the package has
  // no CommonJS entry, as an ES-module-only package should not.
  const problems = (report.analysis.problems ?? []).filter((p) => !['node10', 'node16-cjs'].includes(p.resolutionKind));
  assert.deepEqual(problems, [], JSON.stringify(problems, null, 2));
  assert.equal(r.status, 0, r.stderr);
  // Each entry with types is resolved to a .d.ts (not to the JavaScript itself).
  const entries = report.analysis.entrypoints;
  for (const entry of ['.', './inline', './iife', './iife/inline', './react', './react/inline']) {
    for (const kind of ['bundler', 'node16-esm']) {
      const res = entries[entry]?.resolutions?.[kind]?.resolution;
      assert.ok(res && res.isTypeScript && res.fileName.endsWith('.d.ts'), `${entry} (${kind}): ${JSON.stringify(res)?.slice(0, 200)}`);
    }
  }
});

test('the tarball holds LICENSE, the users\' README, the typings of every entry, and repository links', () => {
  const pkg = stagedManifest();
  assert.equal(pkg.license, 'MIT');
  for (const k of ['repository', 'homepage', 'bugs']) assert.ok(pkg[k], k);
  // The hook uses only useEffect, useRef, useState and useCallback: React 16.8 and later (React 17
  // apps, Create React App 4's among them, could not install the package under '>=18').
  assert.deepEqual(pkg.peerDependencies, { react: '>=16.8.0' });
  assert.equal(pkg.peerDependenciesMeta.react.optional, true);
  const list = tarballFiles();
  for (const f of ['LICENSE', 'README.md', 'typings/index.d.ts', 'typings/iife.d.ts', 'typings/react.d.ts',
    'dist/modelcontext.js', 'dist/modelcontext_core.js', 'dist/modelcontext_glue_bg.wasm', 'dist/modelcontext_deferred.wasm', 'dist/modelcontext_calls.wasm', 'dist/modelcontext_validator.wasm',
    'dist/modelcontext_client_glue.js', 'dist/modelcontext_client_glue_bg.wasm',
    'dist/modelcontext.iife.js', 'dist/modelcontext.inline.js', 'dist/modelcontext.inline.iife.js', 'dist/react.js', 'dist/react.inline.js']) {
    assert.ok(list.includes(f), `${f} is not in the tarball`);
  }
  assert.match(fs.readFileSync(path.join(REPO_ROOT, 'LICENSE'), 'utf8'), /^MIT License/);
  const readme = fs.readFileSync(path.join(STAGE, 'README.md'), 'utf8');
  assert.match(readme, /npm install modelcontext-polyfill/);
  assert.match(readme, /'wasm-unsafe-eval'/);
  assert.doesNotMatch(readme, /make demo|cargo |apt-get/, 'the contributor README was shipped');
  // Relative links in the README point at files in the package.
  for (const [, href] of readme.matchAll(/\]\((?!https?:|#)([^)]+)\)/g)) {
    assert.ok(list.includes(href.replace(/^\.\//, '')), `README links ${href}, which is not in the package`);
  }
});

test('each subpath entry is also a directory whose package.json names the same files, for tools that do not read exports', () => {
  const pkg = stagedManifest();
  const list = tarballFiles();
  const subpaths = Object.keys(pkg.exports).filter((k) => k !== '.' && !k.includes('*') && k !== './package.json');
  assert.deepEqual(subpaths, ['./inline', './iife', './iife/inline', './react', './react/inline']);
  for (const sub of subpaths) {
    const file = `${sub.slice(2)}/package.json`;
    assert.ok(list.includes(file), `${file} is not in the tarball`);
    const proxy = JSON.parse(fs.readFileSync(path.join(STAGE, file), 'utf8'));
    const at = (rel) => path.posix.join(sub.slice(2), rel);
    assert.equal(`./${at(proxy.main)}`, pkg.exports[sub].default, `${file}: main`);
    assert.equal(`./${at(proxy.types)}`, pkg.exports[sub].types, `${file}: types`);
    if (sub.includes('iife')) assert.equal(proxy.module, undefined, `${file}: a classic script is no module`);
    else assert.equal(`./${at(proxy.module)}`, pkg.exports[sub].default, `${file}: module`);
  }
  // What webpack 4 bundles through ./inline and ./react/inline: the entries, the core and the
  // glue they import, none with import.meta (which it cannot parse).
  for (const f of ['modelcontext.inline.js', 'modelcontext_core.inline.js', 'modelcontext_glue.js', 'modelcontext_client_glue.js', 'react.inline.js']) {
    assert.doesNotMatch(fs.readFileSync(path.join(STAGE, 'dist', f), 'utf8'), /import\.meta/, f);
  }
});

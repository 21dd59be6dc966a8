#!/usr/bin/env node
// Build the browser artifacts into dist/.
//
//   node scripts/build.mjs            release build (what `make build` runs)
//   node scripts/build.mjs --dev      debug build: no LTO, no wasm-opt, symbol names kept (fast)
//   node scripts/build.mjs --no-cargo reuse the .wasm cargo already built
//
// Pipeline:
//   cargo build --release --target wasm32-unknown-unknown --lib
//     → target/wasm32-unknown-unknown/release/<lib>.wasm
//   wasm-bindgen --target web        → target/bindgen/<profile>/web/        (ESM glue)
//   wasm-bindgen --target no-modules → target/bindgen/<profile>/no-modules/ (classic-script glue)
//   wasm-opt -Oz (npm binaryen) on the wasm-bindgen output wasm (both targets emit the same bytes)
//   polyfill/src/*.js, in POLYFILL_SOURCES order, wrapped by polyfill/build/entry.*.js
//
// dist/
//   modelcontext.js           ES module entry: imports the glue, awaits the wasm, installs
//   modelcontext_glue.js      wasm-bindgen `--target web` glue (imported by modelcontext.js)
//   modelcontext_glue_bg.wasm the optimized wasm (fetched via new URL(..., import.meta.url))
//   modelcontext.iife.js      classic script, self-contained: no-modules glue + wasm as base64,
//                             instantiated synchronously

import { spawnSync, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { REPO_ROOT, DIST_DIR, crateInfo, wasmBindgenPin } from './lib/project.mjs';

// The binding layer, concatenated in this order into both outputs. Each file is script-style
// JavaScript (no import/export); together they must define `function install(wasm, env)`.
export const POLYFILL_SOURCES = [
  'webidl.js',
  'events.js',
  'model_context.js',
  'client.js',
  'install.js',
];

// Features rustc's wasm32-unknown-unknown output uses today (LLVM's "generic" CPU). binaryen also
// reads the module's target_features section; naming them keeps older inputs working too.
export const WASM_OPT_FEATURES = [
  '--enable-bulk-memory',
  '--enable-bulk-memory-opt',
  '--enable-call-indirect-overlong',
  '--enable-nontrapping-float-to-int',
  '--enable-sign-ext',
  '--enable-mutable-globals',
  '--enable-reference-types',
  '--enable-multivalue',
];

const GLUE_NAME = 'modelcontext_glue'; // wasm-bindgen --out-name: <name>.js + <name>_bg.wasm
const OUT = {
  esm: 'modelcontext.js',
  glueJs: `${GLUE_NAME}.js`,
  glueWasm: `${GLUE_NAME}_bg.wasm`,
  iife: 'modelcontext.iife.js',
};

const args = new Set(process.argv.slice(2));
for (const a of args) {
  if (!['--dev', '--no-cargo', '--help', '-h'].includes(a)) fail(`unknown option ${a}`);
}
if (args.has('--help') || args.has('-h')) {
  console.log('usage: node scripts/build.mjs [--dev] [--no-cargo]');
  process.exit(0);
}
const DEV = args.has('--dev');
const PROFILE = DEV ? 'debug' : 'release';

function fail(message) {
  console.error(`build: error: ${message}`);
  process.exit(1);
}

function rel(p) {
  return path.relative(REPO_ROOT, p) || '.';
}

const timings = [];
function step(name, fn) {
  const t0 = process.hrtime.bigint();
  console.log(`build: ${name}`);
  const result = fn();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  timings.push([name, ms]);
  return result;
}

function run(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { cwd: REPO_ROOT, stdio: 'inherit', ...opts });
  if (r.error) fail(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) fail(`${cmd} ${argv.join(' ')} exited with ${r.status ?? r.signal}`);
}

// ---------------------------------------------------------------------------------------------
// Tools present and matching

const crate = crateInfo();
const pin = wasmBindgenPin();
if (!pin) fail('Cargo.toml does not pin wasm-bindgen (expected wasm-bindgen = "=X.Y.Z")');

let bindgenVersion;
try {
  bindgenVersion = execFileSync('wasm-bindgen', ['--version'], { encoding: 'utf8' }).trim().split(/\s+/)[1];
} catch {
  fail('wasm-bindgen CLI not found on PATH; run `make deps`');
}
if (bindgenVersion !== pin) {
  fail(`wasm-bindgen CLI is ${bindgenVersion} but Cargo.toml pins =${pin}; run \`make deps\``);
}
const WASM_OPT = path.join(REPO_ROOT, 'node_modules', '.bin', 'wasm-opt');
if (!DEV && !fs.existsSync(WASM_OPT)) fail(`${rel(WASM_OPT)} missing; run \`make deps\``);

// ---------------------------------------------------------------------------------------------
// Polyfill sources: read and check they are script-style

const sources = POLYFILL_SOURCES.map((name) => {
  const file = path.join(REPO_ROOT, 'polyfill', 'src', name);
  if (!fs.existsSync(file)) fail(`POLYFILL_SOURCES lists ${name} but ${rel(file)} does not exist`);
  const text = fs.readFileSync(file, 'utf8');
  text.split(/\r?\n/).forEach((line, i) => {
    if (/^\s*(\/\/|\/\*|\*)/.test(line)) return; // comment line
    if (/^\s*(import\s*[\w{*'"]|export\s)/.test(line) || /\bimport\.meta\b/.test(line)) {
      fail(`${rel(file)}:${i + 1}: polyfill sources are plain scripts (no import/export/import.meta); ` +
        'use the `wasm` and `env` arguments instead');
    }
  });
  try {
    new vm.Script(text, { filename: file }); // syntax check as a classic script
  } catch (e) {
    fail(`${rel(file)}: ${e.message}`);
  }
  return { name, text };
});
const unlisted = fs
  .readdirSync(path.join(REPO_ROOT, 'polyfill', 'src'))
  .filter((f) => f.endsWith('.js') && !POLYFILL_SOURCES.includes(f));
if (unlisted.length) {
  console.warn(`build: warning: polyfill/src has files not in POLYFILL_SOURCES (not built): ${unlisted.join(', ')}`);
}

function concatSources(indent) {
  return sources
    .map(({ name, text }) => {
      const body = text.replace(/\s+$/, '').split('\n').map((l) => (l ? indent + l : l)).join('\n');
      return `${indent}// ---- polyfill/src/${name} ----\n${body}\n`;
    })
    .join('\n');
}

// ---------------------------------------------------------------------------------------------
// cargo → wasm-bindgen → wasm-opt

const cargoWasm = path.join(REPO_ROOT, 'target', 'wasm32-unknown-unknown', PROFILE, `${crate.libName}.wasm`);
if (!args.has('--no-cargo')) {
  step(`cargo build (${PROFILE}, wasm32-unknown-unknown, lib)`, () =>
    run('cargo', ['build', ...(DEV ? [] : ['--release']), '--target', 'wasm32-unknown-unknown', '--lib']));
}
if (!fs.existsSync(cargoWasm)) fail(`${rel(cargoWasm)} missing`);

const bindgenRoot = path.join(REPO_ROOT, 'target', 'bindgen', PROFILE);
function bindgen(target) {
  const outDir = path.join(bindgenRoot, target);
  fs.rmSync(outDir, { recursive: true, force: true });
  run('wasm-bindgen', [
    '--target', target,
    '--out-dir', outDir,
    '--out-name', GLUE_NAME,
    '--no-typescript',
    ...(DEV ? ['--keep-debug'] : []),
    cargoWasm,
  ]);
  return {
    js: fs.readFileSync(path.join(outDir, OUT.glueJs), 'utf8'),
    wasmPath: path.join(outDir, OUT.glueWasm),
  };
}
const web = step('wasm-bindgen --target web', () => bindgen('web'));
const noModules = step('wasm-bindgen --target no-modules', () => bindgen('no-modules'));

if (!fs.readFileSync(web.wasmPath).equals(fs.readFileSync(noModules.wasmPath))) {
  // Both outputs embed one optimized wasm; if wasm-bindgen ever emits different bytes per
  // target, the classic build needs its own wasm-opt run.
  fail('wasm-bindgen emitted different wasm for --target web and --target no-modules');
}
if (/from ['"]\.\/snippets\//.test(web.js)) {
  fail('the crate uses wasm-bindgen inline_js/snippets, which --target no-modules cannot carry');
}

const optimized = path.join(bindgenRoot, `${GLUE_NAME}_bg.opt.wasm`);
if (DEV) {
  fs.copyFileSync(web.wasmPath, optimized);
} else {
  step('wasm-opt -Oz', () =>
    run(WASM_OPT, [
      '-Oz',
      ...WASM_OPT_FEATURES,
      '--strip-debug',
      '--strip-producers',
      web.wasmPath,
      '-o', optimized,
    ]));
}
const wasmBytes = fs.readFileSync(optimized);
if (!WebAssembly.validate(wasmBytes)) fail(`${rel(optimized)} does not validate`);

// ---------------------------------------------------------------------------------------------
// Assemble dist/

function fill(template, values) {
  let out = template;
  for (const [key, value] of Object.entries(values)) {
    // split/join: values contain `$` sequences that String.replace would interpret
    out = out.split(key).join(value);
  }
  const left = out.match(/@@[A-Z_]+@@/);
  if (left) fail(`template placeholder ${left[0]} was not filled`);
  return out;
}

step('assemble dist/', () => {
  const tpl = (name) => fs.readFileSync(path.join(REPO_ROOT, 'polyfill', 'build', name), 'utf8');
  const common = { '@@VERSION@@': crate.version, '@@GLUE_JS@@': OUT.glueJs, '@@GLUE_WASM@@': OUT.glueWasm };

  const esm = fill(tpl('entry.esm.js'), { ...common, '/*@@POLYFILL_SOURCES@@*/': concatSources('  ') });

  const glueNoModules = noModules.js
    .replace(/\s+$/, '')
    .split('\n')
    .map((l) => (l ? '  ' + l : l))
    .join('\n');
  if (!/^\s*let wasm_bindgen = /m.test(glueNoModules)) {
    fail('unexpected --target no-modules glue: no `let wasm_bindgen =`');
  }
  const iife = fill(tpl('entry.iife.js'), {
    ...common,
    '/*@@GLUE_NO_MODULES@@*/': glueNoModules,
    '/*@@POLYFILL_SOURCES@@*/': concatSources('    '),
    '@@WASM_BASE64@@': wasmBytes.toString('base64'),
  });

  // Syntax checks: the classic build as a script, the ESM entry as a module.
  try {
    new vm.Script(iife, { filename: OUT.iife });
  } catch (e) {
    fail(`${OUT.iife} does not parse as a classic script: ${e.message}`);
  }

  fs.rmSync(DIST_DIR, { recursive: true, force: true });
  fs.mkdirSync(DIST_DIR, { recursive: true });
  fs.writeFileSync(path.join(DIST_DIR, OUT.esm), esm);
  fs.writeFileSync(path.join(DIST_DIR, OUT.glueJs), web.js);
  fs.writeFileSync(path.join(DIST_DIR, OUT.glueWasm), wasmBytes);
  fs.writeFileSync(path.join(DIST_DIR, OUT.iife), iife);

  for (const f of [OUT.esm, OUT.glueJs]) {
    const r = spawnSync(process.execPath, ['--check', path.join(DIST_DIR, f)], { encoding: 'utf8' });
    if (r.status !== 0) fail(`${f} does not parse as a module:\n${r.stderr}`);
  }
});

const total = timings.reduce((s, [, ms]) => s + ms, 0);
console.log(`build: ${crate.name} ${crate.version} (${PROFILE}) → ${rel(DIST_DIR)}/`);
for (const f of Object.values(OUT)) {
  console.log(`  ${f.padEnd(28)} ${String(fs.statSync(path.join(DIST_DIR, f)).size).padStart(9)} bytes`);
}
console.log(`build: done in ${(total / 1000).toFixed(1)} s (` +
  timings.map(([n, ms]) => `${n.replace(/ \(.*\)/, '')} ${(ms / 1000).toFixed(1)} s`).join(', ') + ')');

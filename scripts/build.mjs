#!/usr/bin/env node
// Build the browser artifacts into dist/.
//
//   node scripts/build.mjs            release build (what `make build` runs)
//   node scripts/build.mjs --dev      debug build: no LTO, no wasm-opt, symbol names kept, scripts not minified (fast)
//   node scripts/build.mjs --no-cargo reuse the .wasm cargo already built
//   node scripts/build.mjs --force    rebuild even when dist/ is up to date
//   node scripts/build.mjs --check    only say whether dist/ is up to date (exit 0) or not (exit 1)
//
// target/dist-stamp.json records a hash of every input (the crate's sources and manifests, polyfill/,
// this script, the tool versions, the profile) and of the outputs: when both still match, the
// build says so and stops (`make demo` and `make package` then cost nothing).
//
// Pipeline — three wasm modules from the one crate (Cargo.toml [features]):
//   the core (what installing costs a page):
//     cargo build --release --target wasm32-unknown-unknown --lib --no-default-features --features web-server
//       → target/wasm32-unknown-unknown/release/<lib>.wasm
//     wasm-bindgen --target web        → target/bindgen/<profile>/web/        (ESM glue)
//     wasm-bindgen --target no-modules → target/bindgen/<profile>/no-modules/ (classic-script glue)
//     wasm-opt -Oz (npm binaryen) on the wasm-bindgen output wasm (both targets emit the same bytes),
//       keeping the names (…_bg.named.wasm), then without them (…_bg.opt.wasm: the whole core)
//     wasm-split (Debian's binaryen): the whole core cut in two, the first module keeping the
//       functions polyfill/build/core-first.txt names (scripts/lib/core-split.mjs); the deferred
//       module calls the first's functions through its table, not exports (table-calls.mjs)
//     the functions the glue gives the wasm and those it exports renamed short, in the wasm (the
//       deferred module's imports of the first module's too) and in both glues
//       (scripts/lib/glue-names.mjs; the client's too)
//     the deferred module's call module cut from it, the functions polyfill/build/core-calls.txt
//       names and what they call; the rest imports those it calls from the call module (but for
//       small ones, which it copies); the deferred module's static data cut between the two, each
//       writing what its code reaches (scripts/lib/calls-cut.mjs)
//   the client (McpClient and the client transports, loaded when a page first makes one):
//     the same with --features web-client --target-dir target/wasm-client, its glue named
//     modelcontext_client_glue (target/bindgen/<profile>/client-web/, client-no-modules/)
//   the validator (fetched when a tool with a schema is first registered; src/schema/module.rs):
//     cargo build … --no-default-features --features validator,validator-module
//       --target-dir target/wasm-validator (its own cache, so neither build evicts the other),
//       the regex crates without perf and without two Unicode tables (scripts/lib/regex-features.mjs)
//     wasm-metadce (keep only the module's own exports) → wasm-opt -Oz; no wasm-bindgen
//     its data as differences, which a start function puts back (scripts/lib/data-delta.mjs)
//     and once more with the suite runner's export kept → target/validator-suite/ (tests only)
//   polyfill/src/*.js, in POLYFILL_SOURCES order, wrapped by polyfill/build/entry.*.js
//   every script in dist/ minified by esbuild (whitespace, comments, syntax, local names)
//
// dist/ (the README's "dist/ files" table says what each is)
//   modelcontext.js           ES module front: starts the core script, the glue and the core wasm
//                             at once (load_core.import.esm.js), then installs synchronously
//   modelcontext_core.js      the core script: instantiates the glue with the compiled wasm
//   modelcontext_glue.js      wasm-bindgen `--target web` glue (imported by modelcontext.js)
//   modelcontext_glue_bg.wasm the core wasm's first module (fetched via new URL(..., import.meta.url))
//   modelcontext_deferred.wasm the core wasm's deferred module, which modelcontext_core.js fetches
//                             when first needed or an agent comes (polyfill/src/deferred.js)
//   modelcontext_calls.wasm   its call module, what an agent's calls run of it, fetched before it
//                             (scripts/lib/calls-cut.mjs)
//   modelcontext.iife.js      classic-script front, loading the same three (load_core.import.iife.js)
//   *.inline.*                the same with the three wasm modules inside, as base64 (the core whole)
//   modelcontext_validator.wasm the validator module, for both builds (polyfill/src/validator.js
//                             fetches it beside the script, or from config.validatorUrl)
//   modelcontext_client_glue.js, modelcontext_client_glue_bg.wasm
//                             the client module's glue and wasm, which modelcontext_core.js loads
//                             when a page first makes an McpClient or a client transport

import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import * as esbuild from 'esbuild';
import { REPO_ROOT, DIST_DIR, VALIDATOR_SUITE_WASM, VALIDATOR_FEATURES, VALIDATOR_TARGET_DIR, REGEX_COPIES_DIR, CORE_KEEP_LIST, CORE_CALLS_LIST, COMPILE_HINT, crateInfo, wasmBindgenPin, scriptModules, WASM_OPT_FEATURES, WASM_OPT_STRIP } from './lib/project.mjs';
import { wasmSplitTool, readKeepList, keptFunctions, splitCore, CORE_APART, PLACEHOLDER_NAMESPACE } from './lib/core-split.mjs';
import { PLACEHOLDER_LOADER } from './lib/placeholders.mjs';
import { CALLS_NAMESPACE, cutCalls } from './lib/calls-cut.mjs';
import { glueNamespace, renameModules, glueWithNames } from './lib/glue-names.mjs';
import { readModule, withoutCustomSections } from './lib/wasm-module.mjs';
import { mapObjects, dataImage, splitData } from './lib/data-split.mjs';
import { deltaData, memoryAfterInstantiation } from './lib/data-delta.mjs';
import { withFewerFeatures, FEWER_FEATURES } from './lib/regex-features.mjs';
import { loadValidator } from './lib/validator-node.mjs';
import { orderFunctions } from './lib/function-order.mjs';

// The binding layer. Each file is script-style JavaScript (no import/export). The front (what a
// page loads first, installing the object synchronously) is FRONT_SOURCES, which must define
// `function install(env)`; the core (loaded after, with the wasm) adds CORE_SOURCES.
export const FRONT_SOURCES = ['webidl.js', 'events.js', 'model_context.js', 'wasm_fetch.js', 'install.js'];
export const CORE_SOURCES = ['deferred.js', 'form_watch.js', 'client.js', 'validator.js', 'call_options.js', 'gates.js', 'message_text.js', 'json_clone.js', 'form_changes.js', 'form_roots.js', 'standard_schema.js', 'emitter.js', 'engine_helpers.js'];
export const POLYFILL_SOURCES = [...FRONT_SOURCES, ...CORE_SOURCES];

const GLUE_NAME = 'modelcontext_glue'; // wasm-bindgen --out-name: <name>.js + <name>_bg.wasm
const CLIENT_GLUE_NAME = 'modelcontext_client_glue';
const OUT = {
  esm: 'modelcontext.js',
  core: 'modelcontext_core.js',
  glueJs: `${GLUE_NAME}.js`,
  glueWasm: `${GLUE_NAME}_bg.wasm`,
  deferred: 'modelcontext_deferred.wasm',
  calls: 'modelcontext_calls.wasm',
  iife: 'modelcontext.iife.js',
  validator: 'modelcontext_validator.wasm',
  clientGlueJs: `${CLIENT_GLUE_NAME}.js`,
  clientGlueWasm: `${CLIENT_GLUE_NAME}_bg.wasm`,
  inlineEsm: 'modelcontext.inline.js',
  inlineCore: 'modelcontext_core.inline.js',
  inlineIife: 'modelcontext.inline.iife.js',
  react: 'react.js',
  reactInline: 'react.inline.js',
};

// The scripts whose functions a page's start runs, which open with V8's explicit compile hint
// (`//# allFunctionsCalledOnLoad`, Chromium 136 and later; to other engines, a comment): their
// functions are compiled as the script streams in, off the main thread, instead of lazily on it
// at their first call. Measured on the bench page (Chromium 156; README, "Performance",
// startup): the main thread's JS parsing and compiling from the front's import to the first
// registration 14.6 -> 2.9 ms; the JS heap once an agent has listed and called 88 KB larger (the
// bytecode of functions compiled that never run). The client's glue too, which loads when a page first makes a client
// and runs at once: from the client's construction to its first call's answer, 37.4 -> 35.8 ms
// (21 alternating loads, median ratio 0.856). Not the React hook (a few small functions). Not the
// two scripts that carry the wasm modules as base64 (the inline core, the self-contained classic
// build): compiling every function there copies each module's text, a function's string, into
// the JS heap as the script loads, 2.6 MB of it for the validator and the client whether a page
// uses them or not (polyfill/build/inline_wasm.js; without the hint, 5.43 MB of JS heap
// after the start against 8.03, and the start as fast over twenty alternating loads). The hint
// must be the script's first line.
const COMPILE_HINTED = new Set([OUT.esm, OUT.iife, OUT.core, OUT.glueJs, OUT.clientGlueJs, OUT.inlineEsm]);

// The core's and the client's cargo features (see Cargo.toml; the validator's: lib/project.mjs).
export const CORE_FEATURES = ['--no-default-features', '--features', 'web-server'];
export const CLIENT_FEATURES = ['--no-default-features', '--features', 'web-client'];
const CLIENT_TARGET_DIR = 'target/wasm-client';
// What the validator module exports (src/schema/module.rs); wasm-metadce keeps these only.
export const VALIDATOR_EXPORTS = ['memory', 'alloc', 'dealloc', 'compile', 'validate', 'free_schema'];
// The JSON-Schema-Test-Suite runner's export: kept only in the test build of the module
// (VALIDATOR_SUITE_WASM), not in the one pages load (14 KB, 6 KB gzipped, of test code).
const VALIDATOR_SUITE_EXPORTS = [...VALIDATOR_EXPORTS, 'run_schema_suite'];
// Its imports: its own clock (clock.now, src/schema/pattern.rs) and those its dependencies
// bring (getrandom's wasm-bindgen import of crypto.getRandomValues, and two wasm-bindgen
// intrinsics only its error path reaches). polyfill/src/validator.js provides the first two
// and stubs the rest; a new one must be looked at before it ships.
const VALIDATOR_IMPORTS = [/^now$/, /^__wbg_getRandomValues_[0-9a-f]+$/, /^__wbindgen_object_drop_ref$/, /^__wbindgen_externref_statics_end$/];

const args = new Set(process.argv.slice(2));
for (const a of args) {
  if (!['--dev', '--no-cargo', '--force', '--check', '--help', '-h'].includes(a)) fail(`unknown option ${a}`);
}
if (args.has('--help') || args.has('-h')) {
  console.log('usage: node scripts/build.mjs [--dev] [--no-cargo] [--force | --check]');
  process.exit(0);
}
const DEV = args.has('--dev');
const PROFILE = DEV ? 'debug' : 'release';

function fail(message) {
  console.error(`build: error: ${message}`);
  process.exit(1);
}

/** Fails unless the module `bytes` (`what`) imports only from the namespaces `allowed`. */
function importsOnlyFrom(what, bytes, allowed) {
  const foreign = WebAssembly.Module.imports(new WebAssembly.Module(bytes)).find((i) => !allowed.includes(i.module));
  if (foreign) fail(`${what} imports from ${foreign.module}, not only from ${allowed.join(' and ')}`);
}

function rel(p) {
  return path.relative(REPO_ROOT, p) || '.';
}

// Each step's time; steps may overlap (the validator's two builds), so the total is the build's
// own time since it started.
const timings = [];
const STARTED = process.hrtime.bigint();
function step(name, fn) {
  const t0 = process.hrtime.bigint();
  console.log(`build: ${name}`);
  const result = fn();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  timings.push([name, ms]);
  return result;
}

async function stepAsync(name, fn) {
  const t0 = process.hrtime.bigint();
  console.log(`build: ${name}`);
  const result = await fn();
  timings.push([name, Number(process.hrtime.bigint() - t0) / 1e6]);
  return result;
}

/** `run`, not blocking: resolves when `cmd` exits with 0 (the build fails otherwise). */
function runAsync(cmd, argv, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { cwd: REPO_ROOT, stdio: 'inherit', ...opts });
    child.on('error', (e) => fail(`${cmd}: ${e.message}`));
    child.on('close', (code, signal) => {
      if (code !== 0) fail(`${cmd} ${argv.join(' ')} exited with ${code ?? signal}`);
      resolve();
    });
  });
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

// Release builds compile the standard library with the crate (`-Z build-std`) instead of linking
// the prebuilt one, so it gets the profile's `opt-level = "z"` and LTO, core's
// `optimize_for_size` choices, and the `immediate-abort` panic strategy: a panic traps at once,
// as `panic = "abort"` already made it do (the core installs no panic hook, so no message was ever
// shown), without linking the machinery that formats the panic's message. That takes about 7 % off
// the core and 11 % off the client and the validator (gzip). `-Zlocation-detail=none` leaves out
// the file, line and column a panic would have named (nothing shows them: a panic traps): the
// source paths and the records that point at them were data in every module, 2.4 KB gzip of the
// core's first module, 1.0 KB of the client, 1.4 KB of the validator. It needs the toolchain's
// `rust-src` component (`make deps` adds it) and unstable flags: RUSTC_BOOTSTRAP=1 allows them on
// a stable toolchain for this build only. Without `rust-src`, or with a rustc that lacks the
// strategy, the build warns and links the prebuilt std.

/** What `rustc ...args` prints (trimmed), or '' when it fails. */
function rustc(...argv) {
  try {
    return execFileSync('rustc', argv, { encoding: 'utf8', env: { ...process.env, RUSTC_BOOTSTRAP: '1' }, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}
const RUSTC_VERSION = rustc('--version');
const HAS_RUST_SRC = !DEV && fs.existsSync(path.join(rustc('--print', 'sysroot'), 'lib', 'rustlib', 'src', 'rust', 'library', 'Cargo.lock'));
// A rustc from before the `immediate-abort` strategy refuses the flag: build as before then.
const BUILD_STD = HAS_RUST_SRC && rustc('-Zunstable-options', '-Cpanic=immediate-abort', '--print', 'cfg', '--target', 'wasm32-unknown-unknown') !== '';
if (!DEV && !BUILD_STD) {
  console.warn(`build: warning: ${HAS_RUST_SRC ? `${RUSTC_VERSION} has no immediate-abort panic strategy` : 'the rust-src component is missing (`rustup component add rust-src`, or `make deps`)'};` +
    ' linking the prebuilt std: the wasm modules will be about 7-11 % larger than the released ones');
}
const BUILD_STD_ARGS = BUILD_STD ? ['-Z', 'build-std=std,panic_abort', '-Z', 'build-std-features=optimize_for_size'] : [];
const BUILD_STD_ENV = BUILD_STD
  ? {
      ...process.env,
      RUSTC_BOOTSTRAP: '1',
      // RUSTC_BOOTSTRAP also switches symbol names to the v0 scheme, the nightly default; legacy
      // keeps them what stable gives, which scripts/wasm-sizes.mjs reads.
      RUSTFLAGS: [process.env.RUSTFLAGS ?? '', '-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none -Csymbol-mangling-version=legacy'].join(' ').trim(),
    }
  : process.env;
// The core is linked with a map of where the linker put each object of its static data
// (`wasm-ld --Map`): the objects only the deferred module's code reaches move into that module
// (scripts/lib/data-split.mjs); `--Map` only asks the linker for a report of its layout. And without the
// linker's merging of string constants (`-O0`; its code is rustc's, so nothing else changes):
// merged, the strings were one 13 KB object the map cannot cut, which the first module then
// kept whole. Apart, 9.0 KB more of them go with the deferred module: the first module 2,954 B
// gzip smaller, the whole core 108 B larger (the copies the merging had made one).
const CORE_MAP = path.join(REPO_ROOT, 'target', `core-${PROFILE}.map`);
if (/\s/.test(CORE_MAP)) fail(`the repository's path has a space, which RUSTFLAGS cannot carry: ${CORE_MAP}`);
const CORE_ENV = { ...BUILD_STD_ENV, RUSTFLAGS: [BUILD_STD_ENV.RUSTFLAGS ?? '', `-Clink-arg=--Map=${CORE_MAP} -Clink-arg=-O0`].join(' ').trim() };
// The validator module is built with `-Zfmt-debug=shallow` too: a derived `Debug` writes the
// type's name alone (hand-written ones, as `str`'s and jsonschema's type sets', are as they
// were). jsonschema's messages write values with `Display`; what the flag takes off is code no
// answer runs: 12 KB gzip, and the JSON-Schema-Test-Suite's 3,798 instances get byte-identical
// answers from both builds, compile errors and messages included. The core and the client keep
// the default: their messages quote with `{:?}`, and it took 0.7 KB off the core, nothing off
// the client.
const VALIDATOR_ENV = BUILD_STD ? { ...BUILD_STD_ENV, RUSTFLAGS: `${BUILD_STD_ENV.RUSTFLAGS} -Zfmt-debug=shallow` } : BUILD_STD_ENV;
// And with the regex crates built with fewer features (scripts/lib/regex-features.mjs): without
// `perf`, which jsonschema's dependencies turn on and which changes no answer (39 KB gzip), and
// without the Unicode age and segmentation tables, which no ECMA-262 pattern can name (9.6 KB
// gzip). It takes cargo's `-Zlockfile-path` (a lockfile of the build's own), which the same
// unstable options as `-Z build-std` allow; without them the build warns and keeps the features.
const FEWER = Object.keys(FEWER_FEATURES).join(', ');
const CARGO_LOCKFILE_PATH = BUILD_STD && (() => {
  try {
    return execFileSync('cargo', ['-Zhelp'], { encoding: 'utf8', env: BUILD_STD_ENV, stdio: ['ignore', 'pipe', 'ignore'] }).includes('lockfile-path');
  } catch {
    return false;
  }
})();
if (!DEV && BUILD_STD && !CARGO_LOCKFILE_PATH) {
  console.warn(`build: warning: this cargo has no -Zlockfile-path; the validator links ${FEWER} with every feature (perf, every Unicode table): about 49 KB gzip larger than the released one`);
}
if (!DEV && !fs.existsSync(WASM_OPT)) fail(`${rel(WASM_OPT)} missing; run \`make deps\``);
const WASM_METADCE = path.join(REPO_ROOT, 'node_modules', '.bin', 'wasm-metadce');
if (!DEV && !fs.existsSync(WASM_METADCE)) fail(`${rel(WASM_METADCE)} missing; run \`make deps\``);
// A release build cuts the core in two with binaryen's wasm-split (scripts/lib/core-split.mjs),
// which npm's binaryen lacks: Debian's `binaryen` package has it (`make deps` installs it).
const SPLIT = DEV ? null : wasmSplitTool();
if (!DEV && !SPLIT) fail('wasm-split (binaryen) not found on PATH; run `make deps` (it installs Debian\'s binaryen)');

// ---------------------------------------------------------------------------------------------
// Up to date? The inputs' hash against target/dist-stamp.json

// (MODELCONTEXT_BUILD_STAMP moves it, for tests.)
const STAMP = process.env.MODELCONTEXT_BUILD_STAMP || path.join(REPO_ROOT, 'target', 'dist-stamp.json');

/** Every file under `dir` (relative to the repository), sorted. */
function filesUnder(dir) {
  const abs = path.join(REPO_ROOT, dir);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return [dir];
  return fs.readdirSync(abs, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .sort();
}

function hashFiles(files, root) {
  const h = createHash('sha256');
  for (const f of files) {
    h.update(`${f}\0`);
    h.update(fs.readFileSync(path.join(root, f)));
  }
  return h.digest('hex');
}

function inputsHash() {
  // This script and every module of scripts/ it imports, found by following its imports.
  const inputs = ['Cargo.toml', 'Cargo.lock', 'build.rs', '.cargo', 'src', 'polyfill/src', 'polyfill/build', 'polyfill/react', ...scriptModules('scripts/build.mjs')]
    .flatMap(filesUnder);
  const version = (pkg) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version;
    } catch {
      return '';
    }
  };
  const [wasmOpt, minifier] = [version('binaryen'), version('esbuild')];
  return createHash('sha256')
    .update(hashFiles(inputs, REPO_ROOT))
    .update(JSON.stringify({ PROFILE, noCargo: args.has('--no-cargo'), bindgenVersion, wasmOpt, minifier, rustflags: process.env.RUSTFLAGS ?? '', rustc: RUSTC_VERSION, buildStd: BUILD_STD, fewerFeatures: CARGO_LOCKFILE_PATH, wasmSplit: SPLIT?.version ?? '' }))
    .digest('hex');
}

const distFiles = () => (fs.existsSync(DIST_DIR) ? fs.readdirSync(DIST_DIR).sort() : []);
const suiteHash = () =>
  fs.existsSync(VALIDATOR_SUITE_WASM) ? createHash('sha256').update(fs.readFileSync(VALIDATOR_SUITE_WASM)).digest('hex') : null;
const inputs = inputsHash();
function upToDate() {
  try {
    const stamp = JSON.parse(fs.readFileSync(STAMP, 'utf8'));
    return stamp.inputs === inputs && stamp.outputs === hashFiles(distFiles(), DIST_DIR) &&
      stamp.suite === suiteHash();
  } catch {
    return false;
  }
}
if (args.has('--check')) {
  console.log(upToDate() ? 'build: dist/ is up to date' : 'build: dist/ needs a build');
  process.exit(upToDate() ? 0 : 1);
}
if (!args.has('--force') && upToDate()) {
  console.log(`build: dist/ is up to date (its inputs have not changed since it was built); nothing to do (--force rebuilds)`);
  process.exit(0);
}

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

function concatSources(indent, names = POLYFILL_SOURCES) {
  return sources
    .filter(({ name }) => names.includes(name))
    .map(({ name, text }) => {
      const lines = text.replace(/\s+$/, '').split('\n');
      const body = lines.map((l) => (l ? indent + l : l)).join('\n');
      return `${indent}// ---- polyfill/src/${name} ----\n${body}\n`;
    })
    .join('\n');
}

// ---------------------------------------------------------------------------------------------
// cargo → wasm-bindgen → wasm-opt

const cargoWasm = path.join(REPO_ROOT, 'target', 'wasm32-unknown-unknown', PROFILE, `${crate.libName}.wasm`);
const cargoValidatorWasm = path.join(REPO_ROOT, VALIDATOR_TARGET_DIR, 'wasm32-unknown-unknown', PROFILE, `${crate.libName}.wasm`);
const cargoClientWasm = path.join(REPO_ROOT, CLIENT_TARGET_DIR, 'wasm32-unknown-unknown', PROFILE, `${crate.libName}.wasm`);
const cargoWasmArgs = ['build', ...(DEV ? [] : ['--release']), '--target', 'wasm32-unknown-unknown', '--lib', ...BUILD_STD_ARGS];
const withStd = BUILD_STD ? ', std built with it' : '';
if (!args.has('--no-cargo')) {
  step(`cargo build (${PROFILE}, wasm32-unknown-unknown, lib, core: ${CORE_FEATURES.join(' ')}${withStd})`, () =>
    run('cargo', [...cargoWasmArgs, ...CORE_FEATURES], { env: CORE_ENV }));
  step(`cargo build (${PROFILE}, wasm32-unknown-unknown, lib, validator: ${VALIDATOR_FEATURES.join(' ')}${withStd})`, () =>
    run('cargo', [...cargoWasmArgs, ...VALIDATOR_FEATURES, '--target-dir', VALIDATOR_TARGET_DIR,
      ...(CARGO_LOCKFILE_PATH ? withFewerFeatures({ repoRoot: REPO_ROOT, targetDir: REGEX_COPIES_DIR, featureArgs: VALIDATOR_FEATURES, env: VALIDATOR_ENV }) : [])],
    { env: VALIDATOR_ENV }));
  // (-Z build-std resolves the standard library's crates apart, with the same patches, and
  // cargo warns there that it did not use them.)
  if (CARGO_LOCKFILE_PATH) console.log(`build: the validator's ${FEWER} come from ${REGEX_COPIES_DIR}/; cargo's warnings that those patches were not used are of the standard library's own build`);
  step(`cargo build (${PROFILE}, wasm32-unknown-unknown, lib, client: ${CLIENT_FEATURES.join(' ')}${withStd})`, () =>
    run('cargo', [...cargoWasmArgs, ...CLIENT_FEATURES, '--target-dir', CLIENT_TARGET_DIR], { env: BUILD_STD_ENV }));
}
if (!fs.existsSync(cargoWasm)) fail(`${rel(cargoWasm)} missing`);
if (!fs.existsSync(cargoClientWasm)) fail(`${rel(cargoClientWasm)} missing`);
if (!fs.existsSync(cargoValidatorWasm)) fail(`${rel(cargoValidatorWasm)} missing`);

const bindgenRoot = path.join(REPO_ROOT, 'target', 'bindgen', PROFILE);
function bindgen(target, { input = cargoWasm, name = GLUE_NAME, dir = target } = {}) {
  const outDir = path.join(bindgenRoot, dir);
  fs.rmSync(outDir, { recursive: true, force: true });
  run('wasm-bindgen', [
    '--target', target,
    '--out-dir', outDir,
    '--out-name', name,
    '--no-typescript',
    ...(DEV ? ['--keep-debug'] : []),
    input,
  ]);
  return {
    js: patchGlue(fs.readFileSync(path.join(outDir, `${name}.js`), 'utf8'), target, name),
    wasmPath: path.join(outDir, `${name}_bg.wasm`),
  };
}

/**
 * wasm-bindgen's glue with the five changes below (the last two to the ES module glue only, the
 * last to the core's: the classic glue is only the inline build's, whose core is whole).
 */
function patchGlue(js, target, name) {
  const both = catchesInPlace(writesLongText(readsShortAscii(js, target), target), target);
  if (target !== 'web') return both;
  const esm = withoutDefaultUrl(both);
  return name === GLUE_NAME ? withDeferredModule(esm, name) : esm;
}

/**
 * A change to the core's ES module glue: the imports it gives the core wasm get the namespace
 * PLACEHOLDER_NAMESPACE with one function, PLACEHOLDER_LOADER, which the placeholders of the first
 * module of a core cut in two call (scripts/lib/placeholders.mjs), each in its slot of the
 * function table in place of a function of the deferred module, before calling that slot again.
 * It instantiates the deferred module, whose element segment puts the real functions in the
 * table, unless it has been. The core script (polyfill/src/deferred.js) gives the glue the
 * deferred module and its call module (scripts/lib/calls-cut.mjs): `__mcpDeferred(source,
 * calls)`, where `source()` and `calls()` return them compiled, synchronously if they must,
 * `__mcpInstantiateCalls(module)` once the call module has arrived and
 * `__mcpInstantiateDeferred(module)` once the deferred module has; the call module is always
 * instantiated first (the deferred module imports its functions, and reads static data it
 * writes). A whole core imports no loader: `__mcpSplit()` says whether the instantiation asked
 * for it (a flag its getter sets, where `WebAssembly.Module.imports` would list every import, on
 * the start's path).
 */
function withDeferredModule(js, name) {
  const tail = `    return {\n        __proto__: null,\n        "./${name}_bg.js": import0,\n    };\n}\n`;
  if (js.split(tail).length !== 2) fail('unexpected wasm-bindgen --target web glue: __wbg_get_imports does not end as scripts/build.mjs expects');
  if (!/^let wasmModule, wasmInstance, wasm;$/m.test(js)) fail('unexpected wasm-bindgen --target web glue: no `let wasmModule, wasmInstance, wasm;`');
  return js.replace(tail, [
    '    return {',
    '        __proto__: null,',
    `        "./${name}_bg.js": import0,`,
    `        ${PLACEHOLDER_NAMESPACE}: __mcpLoader,`,
    '    };',
    '}',
    '',
    'let __mcpDeferredSource = null;',
    'let __mcpCallsSource = null;',
    'let __mcpDeferredInstance = null;',
    'let __mcpCallsInstance = null;',
    'let __mcpIsSplit = false;',
    'const __mcpLoader = {',
    `    get ${PLACEHOLDER_LOADER}() {`,
    '        __mcpIsSplit = true;',
    '        return __mcpLoadDeferred;',
    '    },',
    '};',
    'function __mcpLoadDeferred() {',
    '    if (__mcpDeferredInstance) return;',
    '    if (!__mcpDeferredSource) throw new Error(\'modelcontext-polyfill: the core\\\'s deferred module was needed before the core script gave its source\');',
    '    __mcpInstantiateDeferred(__mcpDeferredSource());',
    '}',
    '/** The call module first: the deferred module imports functions of it, and reads static data it writes. */',
    'function __mcpInstantiateCalls(module) {',
    '    if (!__mcpCallsInstance) __mcpCallsInstance = new WebAssembly.Instance(module, { primary: wasm });',
    '}',
    'function __mcpInstantiateDeferred(module) {',
    '    if (__mcpDeferredInstance) return;',
    '    if (!__mcpCallsInstance) __mcpInstantiateCalls(__mcpCallsSource());',
    `    __mcpDeferredInstance = new WebAssembly.Instance(module, { primary: wasm, ${CALLS_NAMESPACE}: __mcpCallsInstance.exports });`,
    '}',
    'function __mcpDeferred(source, calls) {',
    '    __mcpDeferredSource = source;',
    '    __mcpCallsSource = calls;',
    '}',
    '/** Whether the module instantiated is a first module, which imports the loader. */',
    'function __mcpSplit() {',
    '    return __mcpIsSplit;',
    '}',
    'export { __mcpDeferred, __mcpInstantiateCalls, __mcpInstantiateDeferred, __mcpSplit };',
    '',
  ].join('\n'));
}

/**
 * A second change, to the ES module glue: its initializer's fallback, `new URL('…_bg.wasm',
 * import.meta.url)` when it is called without a module, goes. Every loader here hands the glue
 * its compiled module (the front's `new URL()`s are what bundlers follow to emit the wasm files);
 * without the fallback the glue holds no `import.meta`, which webpack 4 and other tools from
 * before it cannot parse, so the inline entry that imports the glue builds with them.
 */
function withoutDefaultUrl(js) {
  const fallback = /new URL\('[\w.]+_bg\.wasm', import\.meta\.url\)/g;
  const found = js.match(fallback) ?? [];
  if (found.length !== 1) fail(`unexpected wasm-bindgen --target web glue: ${found.length} default module URLs where scripts/build.mjs removes one`);
  const patched = js.replace(fallback, "(() => { throw new Error('modelcontext-polyfill: the glue is always given its module'); })()");
  if (patched.includes('import.meta')) fail('wasm-bindgen --target web glue: import.meta is left after its default module URL is removed');
  return patched;
}

/**
 * A change to the glue wasm-bindgen writes: an import that catches what it calls
 * (`#[wasm_bindgen(catch)]`: Reflect.get, a function's call, addEventListener…) catches in
 * place, `function(arg0, …) { try { … } catch (e) { handleCaught(e); } }`, where the glue
 * makes a closure of its body on every call and calls it through `handleError(f, arguments)`
 * and `f.apply(this, args)`. The same work: the body reads no `this`, and what it throws is
 * stored for the wasm as `handleError` stores it. Each call materializes an arguments object
 * and a closure: measured on a Reflect.get, 80–117 ns against 7–10 in WebKitGTK 2.50, 295–300
 * against 135–145 in Firefox 153, and the same in Chromium 156 (13–37 against 17–29).
 */
function catchesInPlace(js, target) {
  const wrapped = /^(\s*)(\w+): function\(\) \{ return handleError\(function \(([^)]*)\) \{\n([\s\S]*?)^\1\}, arguments\); \},?$/gm;
  const definition = /^(\s*)function handleError\(f, args\) \{\n\s*try \{\n\s*return f\.apply\(this, args\);\n\s*\} catch \(e\) \{\n([\s\S]*?)\n\s*\}\n\1\}\n/m;
  const uses = (js.match(/\bhandleError\(/g) ?? []).length;
  const found = [...js.matchAll(wrapped)];
  const def = js.match(definition);
  if (!def || found.length !== uses - 1) {
    fail(`unexpected wasm-bindgen --target ${target} glue: ${found.length} of ${uses - 1} handleError imports are the shape scripts/build.mjs patches`);
  }
  if (found.some((m) => /\bthis\b/.test(m[4]))) fail(`wasm-bindgen --target ${target} glue: a handleError import reads \`this\``);
  const [whole, i, caught] = def;
  return js
    .replace(wrapped, (_, indent, key, args, body) =>
      `${indent}${key}: function(${args}) { try {\n${body}${indent}} catch (e) { handleCaught(e); } },`)
    .replace(whole, `${i}function handleCaught(e) {\n${caught}\n${i}}\n`);
}

/**
 * A change to the glue wasm-bindgen writes: `getStringFromWasm0` (every string the core hands
 * to JS) reads short ASCII text itself instead of calling `TextDecoder.decode`. Each string that
 * `decode` returns comes from Blink, which keeps a weak handle on it (its string cache), and the
 * next full garbage collection processes every dead one. A tools/call takes three such strings
 * (the arguments' and the reply's JSON text, the reply's target origin): 60,000 calls made the
 * one full collection that followed take 25 ms, against 7 ms with this change. Up to about
 * 120 bytes the loop is also faster than `decode` in Chromium (0.15 against 0.2 µs at 80 bytes);
 * at the 256-byte limit it costs about 0.1 µs more. Longer text, and text with other bytes,
 * still goes through `decode`.
 */
function readsShortAscii(js, target) {
  const original = /function getStringFromWasm0\(ptr, len\) \{\n(\s*)ptr = ptr >>> 0;\n\s*return decodeText\(getUint8ArrayMemory0\(\)\.subarray\(ptr, ptr \+ len\)\);\n(\s*)\}/;
  const m = js.match(original);
  if (!m) fail(`unexpected wasm-bindgen --target ${target} glue: getStringFromWasm0 is not the one scripts/build.mjs patches`);
  const [, i, end] = m;
  return js.replace(original, [
    'const shortAscii = [];',
    'function getStringFromWasm0(ptr, len) {',
    `${i}ptr = ptr >>> 0;`,
    `${i}const bytes = getUint8ArrayMemory0();`,
    `${i}if (len <= 256) {`,
    `${i}    shortAscii.length = len;`,
    `${i}    let n = 0;`,
    `${i}    for (; n < len; n++) {`,
    `${i}        const b = bytes[ptr + n];`,
    `${i}        if (b > 0x7f) break;`,
    `${i}        shortAscii[n] = b;`,
    `${i}    }`,
    `${i}    if (n === len) return String.fromCharCode.apply(null, shortAscii);`,
    `${i}}`,
    `${i}return decodeText(bytes.subarray(ptr, ptr + len));`,
    `${end}}`,
  ].join('\n'));
}

/**
 * A change to the glue wasm-bindgen writes: `passStringToWasm0` (every string JS hands to the
 * core: a request's JSON text, a tool's result) copies a string of more than 256 UTF-16 units
 * with `TextEncoder.encodeInto` at once, where the glue first copies its ASCII prefix one
 * character at a time in a JS loop. A tool's 1 MiB text result spent 8 ms of its 18 ms
 * tools/call in that loop (Chromium 156, under the profiler). The destination is the same:
 * `len` bytes, which ASCII text fills exactly; the part that does not fit (text with other
 * characters) is written after a `realloc` to three bytes per remaining unit, then trimmed,
 * as the glue does. Shorter text (most of what the core takes: names, origins, small
 * messages) keeps the glue's own path; 256 is readsShortAscii's limit the other way.
 */
function writesLongText(js, target) {
  const start = /\n(\s*)let len = arg\.length;\n\s*let ptr = malloc\(len, 1\) >>> 0;\n/g;
  const found = [...js.matchAll(start)];
  if (found.length !== 1) fail(`unexpected wasm-bindgen --target ${target} glue: passStringToWasm0 is not the one scripts/build.mjs patches`);
  const [, i] = found[0];
  return js.replace(start, (whole) => whole + [
    `${i}if (len > 256) {`,
    `${i}    const first = cachedTextEncoder.encodeInto(arg, getUint8ArrayMemory0().subarray(ptr, ptr + len));`,
    `${i}    let written = first.written;`,
    `${i}    if (first.read !== len) {`,
    `${i}        const rest = arg.slice(first.read);`,
    `${i}        ptr = realloc(ptr, len, len = written + rest.length * 3, 1) >>> 0;`,
    `${i}        written += cachedTextEncoder.encodeInto(rest, getUint8ArrayMemory0().subarray(ptr + written, ptr + len)).written;`,
    `${i}        ptr = realloc(ptr, len, written, 1) >>> 0;`,
    `${i}    }`,
    `${i}    WASM_VECTOR_LEN = written;`,
    `${i}    return ptr;`,
    `${i}}`,
    '',
  ].join('\n'));
}

const web = step('wasm-bindgen --target web', () => bindgen('web'));
const noModules = step('wasm-bindgen --target no-modules', () => bindgen('no-modules'));
const CLIENT = { input: cargoClientWasm, name: CLIENT_GLUE_NAME };
const clientWeb = step('wasm-bindgen --target web (client)', () => bindgen('web', { ...CLIENT, dir: 'client-web' }));
const clientNoModules = step('wasm-bindgen --target no-modules (client)', () => bindgen('no-modules', { ...CLIENT, dir: 'client-no-modules' }));

for (const [w, n] of [[web, noModules], [clientWeb, clientNoModules]]) {
  if (!fs.readFileSync(w.wasmPath).equals(fs.readFileSync(n.wasmPath))) {
    // Both outputs embed one optimized wasm; if wasm-bindgen ever emits different bytes per
    // target, the classic build needs its own wasm-opt run.
    fail('wasm-bindgen emitted different wasm for --target web and --target no-modules');
  }
  if (/from ['"]\.\/snippets\//.test(w.js)) {
    fail('the crate uses wasm-bindgen inline_js/snippets, which --target no-modules cannot carry');
  }
}

/**
 * Runs `make` (which writes `output` from `input`) unless `output` was last made from the same
 * bytes with the same `how`: wasm-opt is most of a build's time, and its output only depends on
 * those (a change to the JavaScript alone then rebuilds in seconds).
 */
function reuse(input, output, how, make) {
  const record = staleKey(input, output, how);
  if (!record) return;
  make();
  record();
}

/** `reuse` with an async `make`. */
async function reuseAsync(input, output, how, make) {
  const record = staleKey(input, output, how);
  if (!record) return;
  await make();
  record();
}

/** null when `output` was made from `input` with `how` (and says so); else what records it. */
function staleKey(input, output, how) {
  const key = `${createHash('sha256').update(fs.readFileSync(input)).digest('hex')} ${how}`;
  const keyFile = `${output}.from`;
  if (fs.existsSync(output) && fs.existsSync(keyFile) && fs.readFileSync(keyFile, 'utf8') === key) {
    console.log(`build: ${rel(output)} is up to date for its input; reused`);
    return null;
  }
  return () => fs.writeFileSync(keyFile, key);
}

// Each shipped module's functions, once optimized, are laid out so that look-alikes are within
// deflate's reach of each other (scripts/lib/function-order.mjs; binaryen renumbers them): in
// gzip, the validator 468.1 → 436.0 KB, the core's first module 108.4 → 106.8, its deferred
// one 183.0 → 176.3, the client 94.1 → 92.0. wasm-opt is given the levels -Oz sets, so that it
// writes the code's stack form as optimized as -Oz wrote it (binaryen's StackIR; at level 0 the
// validator came out 0.9 KB larger in gzip).
const ORDER_LEVELS = ['--optimize-level=2', '--shrink-level=2'];
/** `bytes` (an optimized module) with its functions in scripts/lib/function-order.mjs's order. */
function withFunctionsOrdered(bytes) {
  return orderFunctions(bytes, { wasmOpt: WASM_OPT, flags: [...WASM_OPT_FEATURES, ...WASM_OPT_STRIP, ...ORDER_LEVELS] });
}

/** wasm-bindgen's output `input`, optimized (copied as it is in a dev build); its bytes. */
function optimize(input, name, what) {
  const optimized = path.join(bindgenRoot, `${name}_bg.opt.wasm`);
  if (DEV) {
    fs.copyFileSync(input, optimized);
  } else {
    const opt = ['-Oz', ...WASM_OPT_FEATURES, ...WASM_OPT_STRIP];
    reuse(input, optimized, opt.join(' '), () =>
      step(`wasm-opt -Oz (${what})`, () => run(WASM_OPT, [...opt, input, '-o', optimized])));
  }
  const bytes = fs.readFileSync(optimized);
  if (!WebAssembly.validate(bytes)) fail(`${rel(optimized)} does not validate`);
  return bytes;
}
const clientOptimized = optimize(clientWeb.wasmPath, CLIENT_GLUE_NAME, 'client');
const [clientBytes] = withGlueShortNames(
  DEV ? clientOptimized : await stepAsync('the client\'s functions ordered', () => withFunctionsOrdered(clientOptimized)),
  CLIENT_GLUE_NAME, [clientWeb, clientNoModules],
);

/**
 * The module `bytes` of the glues `glues` (wasm-bindgen's output for `name`), and those glues,
 * with the imports the glue gives the module and its exports renamed short
 * (scripts/lib/glue-names.mjs); with `split`, the first and the deferred module of the core cut
 * in two, renamed alike (`bytes` is then the whole core).
 */
function withGlueShortNames(bytes, name, glues, split = null) {
  const namespace = glueNamespace(name);
  const { names, modules } = renameModules(bytes, namespace, split);
  for (const g of glues) g.js = glueWithNames(g.js, namespace, names);
  return modules;
}

// ---------------------------------------------------------------------------------------------
// The core: optimized keeping its names (target/bindgen/release/modelcontext_glue_bg.named.wasm,
// which `make bench-breakdown` traces and names functions by), the names stripped (the whole
// core, which the inline builds carry), then cut in two (the file builds): the first module
// keeps the functions CORE_KEEP_LIST names, the deferred module has the rest.

const coreNamed = path.join(bindgenRoot, `${GLUE_NAME}_bg.named.wasm`);
let wasmBytes;
let coreFirst = null;
let coreDeferred = null;
// The call module (scripts/lib/calls-cut.mjs): the deferred module's table slots it keeps.
let coreCalls = null;
let callSlots = null;
// The data objects of the linker's map (CORE_MAP), read once: both data cuts use them.
let coreObjects = null;
if (DEV) {
  wasmBytes = optimize(web.wasmPath, GLUE_NAME, 'core');
} else {
  // (The --no-inline marks go before -Oz: wasm-opt runs its passes in the order given.)
  const opt = [...CORE_APART.map((p) => `--no-inline=${p}`), '-Oz', ...WASM_OPT_FEATURES, '-g', '--strip-producers'];
  reuse(web.wasmPath, coreNamed, opt.join(' '), () =>
    step('wasm-opt -Oz (core, names kept)', () => run(WASM_OPT, [...opt, web.wasmPath, '-o', coreNamed])));
  const whole = path.join(bindgenRoot, `${GLUE_NAME}_bg.opt.wasm`);
  // Without the names and the target features (custom sections no page reads), every other
  // section as it was: re-encoding the module, as `wasm-opt --strip-debug` would, loses what
  // `-Oz` did to the code as it wrote it (1.2 KB).
  wasmBytes = withoutCustomSections(fs.readFileSync(coreNamed), ['name', 'target_features']);
  fs.writeFileSync(whole, wasmBytes);
  if (!WebAssembly.validate(wasmBytes)) fail(`${rel(whole)} does not validate`);
  await stepAsync(`wasm-split (core, ${SPLIT.version}) + wasm-opt -Oz of each part`, async () => {
    const { kept, total, missing } = keptFunctions(fs.readFileSync(coreNamed), readKeepList(CORE_KEEP_LIST));
    let throughTable, placeholders, copied, copiedBytes, slots;
    ({ first: coreFirst, deferred: coreDeferred, slots, throughTable, placeholders, copied, copiedBytes } = await splitCore(SPLIT, wasmBytes, kept, WASM_OPT));
    // The call module's slots: those of the functions CORE_CALLS_LIST names, and of every drop
    // glue the deferred module has in the table (what a call's values need to be dropped, some
    // of which the trace that wrote the list does not see run: the held messages' delivery, for
    // one, which a whole core never holds).
    const named = fs.readFileSync(coreNamed);
    const calls = keptFunctions(named, readKeepList(CORE_CALLS_LIST));
    const { imported, names } = readModule(named);
    const wanted = new Set(calls.kept);
    callSlots = new Set([...slots].filter(([, f]) => wanted.has(f) || /^core::ptr::drop_in_place</.test(names.get(imported + f) ?? '')).map(([slot]) => slot));
    // (Which function each slot of the first module's table is for: what a placeholder that ran
    // reads the deferred module for, when one is found running.)
    fs.writeFileSync(path.join(bindgenRoot, 'core-slots.txt'), [...slots].map(([slot, f]) => `${slot} ${callSlots.has(slot) ? 'calls' : 'deferred'} ${names.get(imported + f) ?? `#${f}`}`).join('\n') + '\n');
    if (calls.missing.length) console.log(`build: ${calls.missing.length} names of ${rel(CORE_CALLS_LIST)} are not in the core (renamed or gone)`);
    for (const [what, bytes] of [['first', coreFirst], ['deferred', coreDeferred]]) {
      if (!WebAssembly.validate(bytes)) fail(`wasm-split's ${what} module does not validate`);
    }
    // What the glue (withDeferredModule) relies on: the first module importing only its
    // placeholders' loader from PLACEHOLDER_NAMESPACE and exporting its function table as
    // `table`, the deferred module importing what it needs from the namespace `primary`.
    const mod = new WebAssembly.Module(coreFirst);
    const loader = WebAssembly.Module.imports(mod).filter((i) => i.module === PLACEHOLDER_NAMESPACE).map((i) => i.name);
    if (loader.join() !== PLACEHOLDER_LOADER) fail(`the first module imports ${loader.join(', ') || 'nothing'} from ${PLACEHOLDER_NAMESPACE}, not its placeholders' loader alone`);
    if (!WebAssembly.Module.exports(mod).some((e) => e.name === 'table' && e.kind === 'table')) fail("wasm-split's first module exports no `table`");
    importsOnlyFrom("wasm-split's deferred module", coreDeferred, ['primary']);
    // The static data only the deferred module's code reaches goes with it. The map is of the
    // module cargo linked: the data must be where it put it, byte for byte.
    if (!fs.existsSync(CORE_MAP)) fail(`${rel(CORE_MAP)} missing: the core's cargo build writes it`);
    // (The linker writes both at once; a wasm linked later, without the map, would not match it.)
    if (fs.statSync(CORE_MAP).mtimeMs < fs.statSync(cargoWasm).mtimeMs - 5000) fail(`${rel(CORE_MAP)} is older than ${rel(cargoWasm)}: build without --no-cargo`);
    if (Buffer.compare(dataImage(fs.readFileSync(cargoWasm)), dataImage(wasmBytes)) !== 0) fail(`the core's data is not where ${rel(CORE_MAP)} says: the linker's map does not describe it`);
    coreObjects = mapObjects(fs.readFileSync(CORE_MAP, 'utf8'));
    const data = splitData(coreFirst, coreDeferred, coreObjects);
    ({ first: coreFirst, deferred: coreDeferred } = data);
    for (const [what, bytes] of [['first', coreFirst], ['deferred', coreDeferred]]) {
      if (!WebAssembly.validate(bytes)) fail(`the ${what} module with the data cut in two does not validate`);
    }
    console.log(`build: the core's first module keeps ${kept.length} of ${total} functions ` +
      `(${placeholders} placeholders for the deferred module's; ${throughTable} it calls through the table, ` +
      `${copied} it has copies of, ${copiedBytes} bytes of code); ` +
      `${data.moved} bytes of static data only the deferred module reaches went with it` +
      (missing.length ? `; ${missing.length} names of ${rel(CORE_KEEP_LIST)} are not in the core (renamed or gone)` : ''));
  });
}

// Each module's functions ordered (the whole core, which the inline builds carry, and its first
// module; the deferred module's two parts once it is cut, below).
if (!DEV) {
  await stepAsync('the core\'s functions ordered (whole, first)', async () => {
    [wasmBytes, coreFirst] = await Promise.all([wasmBytes, coreFirst].map((b) => b && withFunctionsOrdered(b)));
  });
}

// The core's glues and the modules they instantiate, what they give each other renamed short.
[wasmBytes, coreFirst = null, coreDeferred = null] = withGlueShortNames(
  wasmBytes, GLUE_NAME, [web, noModules], coreFirst ? { first: coreFirst, deferred: coreDeferred } : null,
);

// The deferred module's call module, cut from it as it will be loaded (its names short); then
// the functions of both parts ordered (`-Oz` of each, after the cut, lays them out its own way).
if (coreDeferred) {
  await stepAsync("the core's call module (cut from the deferred module)", async () => {
    const cut = await cutCalls(coreDeferred, callSlots, WASM_OPT, coreObjects);
    for (const [what, bytes] of [['call', cut.calls], ['deferred', cut.rest]]) {
      if (!WebAssembly.validate(bytes)) fail(`the ${what} module does not validate`);
    }
    // What the glue (withDeferredModule) relies on: the call module importing from `primary`
    // only, the rest from `primary` and the call module.
    importsOnlyFrom('the call module', cut.calls, ['primary']);
    importsOnlyFrom('the deferred module', cut.rest, ['primary', CALLS_NAMESPACE]);
    const before = readModule(coreDeferred).bodies.length;
    [coreCalls, coreDeferred] = await Promise.all([cut.calls, cut.rest].map((b) => withFunctionsOrdered(b)));
    console.log(`build: the core's call module has ${cut.entries} of the deferred module's table entries (${callSlots.size} slots asked for), ` +
      `${cut.functions} of its ${before} functions; the rest imports ${cut.shared} of them from it, keeps copies of ${cut.copied} and has ` +
      `${readModule(coreDeferred).bodies.length} functions; ${cut.moved} bytes of static data only the rest reaches stay with it`);
  });
}

// ---------------------------------------------------------------------------------------------
// The validator module: only its own exports, optimized, imports checked, tried through its loader

const validatorRoot = path.join(REPO_ROOT, 'target', 'validator', PROFILE);
fs.mkdirSync(validatorRoot, { recursive: true });
const validatorOptimized = path.join(validatorRoot, OUT.validator);
const validatorSuiteOptimized = path.join(validatorRoot, `suite-${OUT.validator}`);
if (DEV) {
  fs.copyFileSync(cargoValidatorWasm, validatorOptimized);
  fs.copyFileSync(cargoValidatorWasm, validatorSuiteOptimized);
} else {
  // `-ocimfs 20`: a function with one caller is inlined into it only when it is tiny (binaryen's
  // default inlines it whatever its size). The module is then 0.3 % larger but 3.2 % smaller
  // gzipped (2.8 % with brotli): the bodies that are not merged into their callers are more
  // alike. The JSON-Schema-Test-Suite gives the same results, test by test, in the same time
  // (alternating runs within 2 %), and a call validated by it showed no difference. The core and
  // the client keep the default: there it saved 3–4 % and 3 % of the bytes but cost the calls,
  // the core 2–3 % of the bench's concurrent calls/s (3–5 % of the sequential round trip), the
  // client's McpClient 7 % of its calls/s (9 % of its round trip).
  // `--converge`: the passes again until a round shrinks nothing; one round left the module
  // 1,052 B gzip larger (0.2 %), for about 40 s more of the first build.
  // (the target features stay for the next step's wasm-opt, which strips them)
  const opt = ['-Oz', '-ocimfs', '20', '--converge', ...WASM_OPT_FEATURES, ...WASM_OPT_STRIP.filter((f) => f !== '--strip-target-features')];
  const WASM_BINDGEN_DESCRIPTORS = '__wasm_bindgen_unstable';
  // Then its functions laid out anew (withFunctionsOrdered), by the modules the key names.
  const orderSource = hashFiles(scriptModules('scripts/lib/function-order.mjs'), REPO_ROOT).slice(0, 16);
  // The module pages load, and its test build with the suite runner's export kept: the same
  // cargo output and flags, so the suite checks the code pages run. The two are made at once:
  // npm's wasm-opt keeps one core busy (one took 34 s here, both side by side 39 s).
  await Promise.all([
    [VALIDATOR_EXPORTS, validatorOptimized, 'validator', 'pages'],
    [VALIDATOR_SUITE_EXPORTS, validatorSuiteOptimized, 'validator, suite build', 'suite'],
  ].map(async ([exports, output, what, tag]) => {
    const graph = path.join(validatorRoot, `metadce-graph.${tag}.json`);
    fs.writeFileSync(graph, JSON.stringify(exports.map((e) => ({ name: e, export: e, root: true }))));
    const dce = path.join(validatorRoot, `validator.dce.${tag}.wasm`);
    const oz = path.join(validatorRoot, `validator.oz.${tag}.wasm`);
    await reuseAsync(cargoValidatorWasm, output, `${exports} ${opt.join(' ')} -${WASM_BINDGEN_DESCRIPTORS} ordered:${orderSource} ${ORDER_LEVELS.join(' ')}`, async () => {
      await stepAsync(`wasm-metadce (${what}: its own exports only)`, () =>
        runAsync(WASM_METADCE, ['--graph-file', graph, ...WASM_OPT_FEATURES, cargoValidatorWasm, '-o', dce], { stdio: ['inherit', 'ignore', 'inherit'] }));
      await stepAsync(`wasm-opt -Oz (${what})`, () => runAsync(WASM_OPT, [...opt, dce, '-o', oz]));
      // wasm-bindgen's descriptors of the imports a dependency declares with it (getrandom's):
      // a custom section wasm-bindgen's CLI reads and removes, which this module does not go
      // through. Nothing reads it at run time: 7.9 KB, 2 KB gzip.
      const optimized = withoutCustomSections(fs.readFileSync(oz), [WASM_BINDGEN_DESCRIPTORS]);
      await stepAsync(`its functions ordered (${what})`, async () =>
        fs.writeFileSync(output, await withFunctionsOrdered(optimized)));
    });
  }));
}
// Its data (mostly `regex-syntax`'s Unicode tables) written as differences where that gzips
// smaller, and put back by a start function when the module is instantiated
// (scripts/lib/data-delta.mjs): 493.6 → 436.0 KB gzip, 355.5 → 342.9 KB brotli. The instance's memory is
// checked to be byte for byte the one the module as wasm-opt left it starts with.
const validatorFinal = path.join(validatorRoot, `final-${OUT.validator}`);
const validatorSuiteFinal = path.join(validatorRoot, `final-suite-${OUT.validator}`);
await stepAsync('the validator\'s data as differences (scripts/lib/data-delta.mjs)', async () => {
  for (const [from, to] of [[validatorOptimized, validatorFinal], [validatorSuiteOptimized, validatorSuiteFinal]]) {
    if (DEV) {
      fs.copyFileSync(from, to);
      continue;
    }
    const before = fs.readFileSync(from);
    const { bytes, blocks, encoded } = deltaData(before);
    const [a, b] = await Promise.all([memoryAfterInstantiation(before), memoryAfterInstantiation(bytes)]);
    if (Buffer.compare(a, b) !== 0) fail(`${rel(to)}: the data as differences leaves memory unlike ${rel(from)}'s`);
    console.log(`build: ${rel(to)}: ${encoded} of ${blocks} blocks of data as differences`);
    fs.writeFileSync(to, bytes);
  }
});
const validatorBytes = fs.readFileSync(validatorFinal);
for (const [file, exports] of [[validatorFinal, VALIDATOR_EXPORTS], [validatorSuiteFinal, VALIDATOR_SUITE_EXPORTS]]) {
  const bytes = fs.readFileSync(file);
  if (!WebAssembly.validate(bytes)) fail(`${rel(file)} does not validate`);
  const mod = new WebAssembly.Module(bytes);
  const exported = WebAssembly.Module.exports(mod).map((e) => e.name);
  const missing = exports.filter((e) => !exported.includes(e));
  if (missing.length) fail(`${rel(file)} lacks the exports ${missing.join(', ')}`);
  if (!DEV) {
    const extra = exported.filter((e) => !exports.includes(e));
    if (extra.length) fail(`${rel(file)} exports more than it should: ${extra.join(', ')}`);
    const unknown = WebAssembly.Module.imports(mod).filter(
      (i) => i.kind !== 'function' || !VALIDATOR_IMPORTS.some((re) => re.test(i.name)));
    if (unknown.length) {
      fail(`${rel(file)} has imports polyfill/src/validator.js does not expect: ` +
        unknown.map((i) => `${i.module}.${i.name} (${i.kind})`).join(', ') +
        '; a dependency brought them — find the feature that removes them, or provide them in the loader');
    }
  }
}
fs.mkdirSync(path.dirname(VALIDATOR_SUITE_WASM), { recursive: true });
fs.copyFileSync(validatorSuiteFinal, VALIDATOR_SUITE_WASM);
await stepAsync('check the validator module through polyfill/src/validator.js', () => checkValidator(validatorBytes));

/** Loads `bytes` with the loader as a page would (fetch stubbed) and validates one instance. */
async function checkValidator(bytes) {
  const v = await loadValidator(bytes);
  const { handle } = JSON.parse(v.compile('{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}'));
  const bad = JSON.parse(v.validate(handle, '{"n":"x"}')).violations;
  const good = JSON.parse(v.validate(handle, '{"n":1}')).violations;
  const refused = JSON.parse(v.compile('{"type":5}')).error;
  v.free(handle);
  if (!(bad?.length === 1 && bad[0].instancePath === '/n' && bad[0].keyword === 'type' && good?.length === 0 && refused)) {
    fail(`${OUT.validator} does not validate as expected: ${JSON.stringify({ bad, good, refused })}`);
  }
}

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
  const common = {
    '@@VERSION@@': crate.version, '@@GLUE_JS@@': OUT.glueJs, '@@GLUE_WASM@@': OUT.glueWasm,
    '@@VALIDATOR_WASM@@': OUT.validator, '@@DEFERRED_WASM@@': OUT.deferred, '@@CALLS_WASM@@': OUT.calls, '@@CLIENT_GLUE_JS@@': OUT.clientGlueJs, '@@CLIENT_GLUE_WASM@@': OUT.clientGlueWasm,
    // Why the ES module builds cannot find a wasm file, in the front (the core) and in the core
    // script (the validator); a single-quoted literal.
    '@@NO_URL@@':
      'this bundle has no import.meta.url, so the wasm files beside the polyfill cannot be found ' +
      "(a bundler that does not handle new URL(\\'./file.wasm\\', import.meta.url), such as esbuild or plain Rollup): " +
      "import \\'modelcontext-polyfill/inline\\' instead, or set modelContextPolyfillConfig.coreUrl, validatorUrl and clientUrl",
  };
  const inline = {
    '/*@@INLINE_WASM@@*/': tpl('inline_wasm.js'),
    '@@CORE_BASE64@@': wasmBytes.toString('base64'),
    '@@VALIDATOR_BASE64@@': validatorBytes.toString('base64'),
    '@@CLIENT_BASE64@@': clientBytes.toString('base64'),
  };
  const indented = (text, indent) => text.replace(/\s+$/, '').split('\n').map((l) => (l ? indent + l : l)).join('\n');

  // The front, as an ES module: modelcontext.js loads modelcontext_core.js, modelcontext.inline.js
  // the core with the wasm inline.
  // The file build's front starts the core wasm and the glue beside the core script.
  const front = (core, loader) => fill(tpl('entry.esm.js'), {
    ...common,
    '@@CORE_JS@@': core,
    '/*@@LOAD_CORE@@*/': fill(tpl(loader), { ...common, '@@CORE_JS@@': core }).trim().split('\n').join('\n  '),
    '/*@@FRONT_SOURCES@@*/': concatSources('  ', FRONT_SOURCES),
  });
  const coreSources = concatSources('', [...CORE_SOURCES, 'wasm_fetch.js']);
  const esm = front(OUT.core, 'load_core.import.esm.js');
  const core = fill(tpl('core.esm.js'), { ...common, '/*@@CORE_SOURCES@@*/': coreSources });
  const inlineEsm = front(OUT.inlineCore, 'load_core.inline.esm.js');
  const inlineCore = fill(tpl('core.inline.esm.js'), { ...common, ...inline, '/*@@CORE_SOURCES@@*/': coreSources });

  // The classic scripts: the front alone, loading modelcontext_core.js beside it; and the
  // self-contained one (glue, core sources, the three wasm modules inline; complete at once).
  // The glue's own `exports` parameter is renamed: inside a classic script it is a local, but
  // package linters (publint) read `exports.X =` as CommonJS.
  const classicGlue = (js, indent) => {
    const glue = indented(
      js
        .replace(/^let wasm_bindgen = \(function\(exports\) \{$/m, 'let wasm_bindgen = (function(__wbg_exports) {')
        .replace(/^(\s*)exports\.(\w+) = /gm, '$1__wbg_exports.$2 = ')
        .replace(/\{ initSync \}, exports\);/, '{ initSync }, __wbg_exports);'),
      indent,
    );
    if (/(?<![.\w])exports\b/.test(glue)) fail('unexpected --target no-modules glue: `exports` left after renaming');
    if (!/^\s*let wasm_bindgen = /m.test(glue)) {
      fail('unexpected --target no-modules glue: no `let wasm_bindgen =`');
    }
    return glue;
  };
  const glueNoModules = classicGlue(noModules.js, '  ');
  // The client's classic glue, in a scope of its own (its `wasm_bindgen` is not the core's).
  const clientGlueNoModules = [
    '  const __mcpClientGlue = (function () {',
    classicGlue(clientNoModules.js, '    '),
    '    return wasm_bindgen;',
    '  })();',
  ].join('\n');
  const iife = fill(tpl('entry.iife.js'), {
    ...common,
    '@@VARIANT@@': '',
    '@@SELF@@': OUT.iife,
    '@@CORE_FROM@@': `The core (${OUT.core} beside it, which fetches the core wasm) then loads; calls made meanwhile wait for it, in order.`,
    '/*@@FRONT_SOURCES@@*/': concatSources('  ', FRONT_SOURCES),
    '/*@@GLUE_NO_MODULES@@*/': '',
    '/*@@CLIENT_GLUE_NO_MODULES@@*/': '',
    '/*@@CORE_SOURCES@@*/': '',
    '/*@@LOAD_CORE@@*/': indented(fill(tpl('load_core.import.iife.js'), { ...common, '@@CORE_JS@@': OUT.core }), '  '),
  });
  const inlineIife = fill(tpl('entry.iife.js'), {
    ...common,
    '@@VARIANT@@': ' (self-contained: every wasm module inline)',
    '@@SELF@@': OUT.inlineIife,
    '@@CORE_FROM@@': 'The core wasm is inside it and compiled at once, so the polyfill is complete when it ends; nothing else is fetched.',
    '/*@@FRONT_SOURCES@@*/': concatSources('  ', FRONT_SOURCES),
    '/*@@GLUE_NO_MODULES@@*/': glueNoModules,
    '/*@@CLIENT_GLUE_NO_MODULES@@*/': clientGlueNoModules,
    '/*@@CORE_SOURCES@@*/': concatSources('  ', CORE_SOURCES),
    '/*@@LOAD_CORE@@*/': indented(fill(tpl('load_core.inline.iife.js'), { ...common, ...inline }), '  '),
  });

  // A release build's scripts are minified: whitespace and comments (the `/*!` license header
  // stays), syntax, and the names of what is local to a function or a module (3.1 KB gzip of
  // the 26 KB of script before a page's tools are listable). What a page can see keeps its
  // name as in a --dev build: properties, exports and a script's top-level names are never
  // renamed, and the classes a page reaches name themselves (__mcpMakeInterface, the client's
  // `named`; tests/page/webmcp_install.test.mjs walks every function a page reaches). Nothing is
  // lowered but the inline ES module entry and its core (LOWERED, in --dev builds too): the
  // entry for bundlers that do not follow new URL('./file.wasm', import.meta.url) is also the
  // one for webpack 4, whose parser (acorn 6) reads ES2019 and not what came after (private
  // fields, `?.`, `??`); those two files are written in ES2019 with `import()`, the glue they
  // import has no newer syntax, and none of the three has `import.meta`.
  const LOWERED = new Set([OUT.inlineEsm, OUT.inlineCore]);
  const minify = (text, name) => {
    if (DEV && !LOWERED.has(name)) return text;
    try {
      const { code } = esbuild.transformSync(text, {
        ...(DEV ? {} : { minifyWhitespace: true, minifySyntax: true, minifyIdentifiers: true }),
        ...(LOWERED.has(name) ? { target: 'es2019', supported: { 'dynamic-import': true } } : {}),
        legalComments: 'inline',
        // Non-ASCII characters in strings as escapes: a script with one character past U+00FF
        // is held by V8 two bytes a character, the whole source (checked below).
        charset: 'ascii',
        sourcefile: name,
      });
      // Lowering puts esbuild's helpers (private fields as WeakMaps) first: the license header
      // goes back to the top.
      const header = /\/\*! modelcontext-polyfill [^*]*\*\/\n?/.exec(code);
      return header && header.index > 0 ? header[0] + code.slice(0, header.index) + code.slice(header.index + header[0].length) : code;
    } catch (e) {
      fail(`${name}: the minifier failed: ${e.message}`);
    }
  };

  fs.rmSync(DIST_DIR, { recursive: true, force: true });
  fs.mkdirSync(DIST_DIR, { recursive: true });
  const writeJs = (name, text) => fs.writeFileSync(path.join(DIST_DIR, name), (COMPILE_HINTED.has(name) ? COMPILE_HINT : '') + minify(text, name));
  writeJs(OUT.esm, esm);
  writeJs(OUT.core, core);
  writeJs(OUT.glueJs, web.js);
  // The file builds load the core in two (a --dev build's core is whole); the inline builds
  // carry it whole.
  fs.writeFileSync(path.join(DIST_DIR, OUT.glueWasm), coreFirst ?? wasmBytes);
  // (A --dev build writes an empty module there, which nothing loads: the files, and so what a
  // bundler finds that the core script names, are those of a release build.)
  fs.writeFileSync(path.join(DIST_DIR, OUT.deferred), coreDeferred ?? Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  fs.writeFileSync(path.join(DIST_DIR, OUT.calls), coreCalls ?? Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  writeJs(OUT.clientGlueJs, clientWeb.js);
  fs.writeFileSync(path.join(DIST_DIR, OUT.clientGlueWasm), clientBytes);
  writeJs(OUT.iife, iife);
  fs.writeFileSync(path.join(DIST_DIR, OUT.validator), validatorBytes);
  writeJs(OUT.inlineEsm, inlineEsm);
  writeJs(OUT.inlineCore, inlineCore);
  writeJs(OUT.inlineIife, inlineIife);
  // The React hook, as written (ES2019: webpack 4 reads it), twice: importing the main entry,
  // and importing the inline one (modelcontext-polyfill/react/inline).
  const hook = fs.readFileSync(path.join(REPO_ROOT, 'polyfill', 'react', 'index.js'), 'utf8');
  const mainImport = `import './${OUT.esm}';`;
  if (hook.split(mainImport).length !== 2) fail(`polyfill/react/index.js must have the line ${mainImport} once`);
  fs.writeFileSync(path.join(DIST_DIR, OUT.react), hook);
  fs.writeFileSync(path.join(DIST_DIR, OUT.reactInline), hook.replace(mainImport, `import './${OUT.inlineEsm}';`));

  // Syntax checks of what ships: the classic builds as scripts, the ESM files as modules
  // (a --dev build, not minified, shows a template's mistake where it is).
  for (const f of [OUT.iife, OUT.inlineIife]) {
    try {
      new vm.Script(fs.readFileSync(path.join(DIST_DIR, f), 'utf8'), { filename: f });
    } catch (e) {
      fail(`${f} does not parse as a classic script: ${e.message}`);
    }
  }
  // V8 keeps each script's source in memory (for lazy compilation, outside the JS heap), one
  // byte a character when every character is Latin-1 and two bytes otherwise: one em dash in the
  // license header doubled the core script's 27 KB there (a heap snapshot, Chromium 156), and
  // the inline core's 3.4 MB.
  if (!DEV) {
    for (const f of Object.values(OUT).filter((f) => f.endsWith('.js'))) {
      const text = fs.readFileSync(path.join(DIST_DIR, f), 'utf8');
      const at = text.search(/[^\u0000-\u00ff]/u);
      if (at >= 0) fail(`${f} has a character past U+00FF (${JSON.stringify(text.slice(Math.max(0, at - 30), at + 10))}): the page would hold its source two bytes a character`);
    }
  }
  for (const f of [OUT.esm, OUT.core, OUT.glueJs, OUT.clientGlueJs, OUT.inlineEsm, OUT.inlineCore, OUT.react, OUT.reactInline]) {
    const r = spawnSync(process.execPath, ['--check', path.join(DIST_DIR, f)], { encoding: 'utf8' });
    if (r.status !== 0) fail(`${f} does not parse as a module:\n${r.stderr}`);
  }
});

fs.mkdirSync(path.dirname(STAMP), { recursive: true });
fs.writeFileSync(STAMP, JSON.stringify({ inputs, outputs: hashFiles(distFiles(), DIST_DIR), suite: suiteHash(), profile: PROFILE }) + '\n');

const total = Number(process.hrtime.bigint() - STARTED) / 1e6;
console.log(`build: ${crate.name} ${crate.version} (${PROFILE}) → ${rel(DIST_DIR)}/`);
for (const f of Object.values(OUT)) {
  console.log(`  ${f.padEnd(28)} ${String(fs.statSync(path.join(DIST_DIR, f)).size).padStart(9)} bytes`);
}
console.log(`build: done in ${(total / 1000).toFixed(1)} s (` +
  timings.map(([n, ms]) => `${n.replace(/ \(.*\)/, '')} ${(ms / 1000).toFixed(1)} s`).join(', ') + ')');

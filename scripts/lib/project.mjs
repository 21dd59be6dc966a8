// Facts about the repository the scripts share: where it is, and what Cargo.toml says.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST_DIR = path.join(REPO_ROOT, 'dist');
// The validator module's cargo features and target directory (its own cache, so the core's and
// the client's builds do not evict it), and where its build keeps the copies of the regex crates
// with fewer features (scripts/lib/regex-features.mjs).
export const VALIDATOR_FEATURES = ['--no-default-features', '--features', 'validator,validator-module'];
export const VALIDATOR_TARGET_DIR = 'target/wasm-validator';
export const REGEX_COPIES_DIR = path.join(VALIDATOR_TARGET_DIR, 'regex-features');
// The validator module with the JSON-Schema-Test-Suite runner's export kept (`run_schema_suite`,
// src/schema/module.rs): the same cargo output and wasm-opt flags as dist/'s, which ships without
// it. Written by every build (scripts/build.mjs), read by conformance/schema_suite.mjs.
export const VALIDATOR_SUITE_WASM = path.join(REPO_ROOT, 'target', 'validator-suite', 'modelcontext_validator.wasm');

// The functions the core's first module keeps (scripts/lib/core-split.mjs): their names, one
// per line. `make split-list` writes it from what a page's start, its registrations and an
// agent's discovery run.
export const CORE_KEEP_LIST = path.join(REPO_ROOT, 'polyfill', 'build', 'core-first.txt');

// The functions of the core's deferred module its call module has (scripts/lib/calls-cut.mjs):
// their names, one per line. `make split-list` writes it from what an agent's calls run.
export const CORE_CALLS_LIST = path.join(REPO_ROOT, 'polyfill', 'build', 'core-calls.txt');

// V8's explicit compile hint (Chromium 136 and later), the first line of the scripts whose
// functions run as soon as they have loaded (scripts/build.mjs, COMPILE_HINTED): their functions
// compile as the script streams in, off the main thread.
export const COMPILE_HINT = '//# allFunctionsCalledOnLoad\n';

/** Read a `key = "value"` from a TOML section (enough for Cargo.toml's [package]). */
function tomlString(text, section, key) {
  const lines = text.split(/\r?\n/);
  let current = null;
  for (const line of lines) {
    const header = line.match(/^\s*\[([^\]]+)\]\s*(#.*)?$/);
    if (header) {
      current = header[1].trim();
      continue;
    }
    if (current !== section) continue;
    const m = line.match(new RegExp(`^\\s*${key}\\s*=\\s*"([^"]*)"`));
    if (m) return m[1];
  }
  return undefined;
}

export function cargoToml() {
  return fs.readFileSync(path.join(REPO_ROOT, 'Cargo.toml'), 'utf8');
}

/** `{ name, version, libName }` of the crate. */
export function crateInfo() {
  const text = cargoToml();
  const name = tomlString(text, 'package', 'name');
  const version = tomlString(text, 'package', 'version');
  const libName = tomlString(text, 'lib', 'name') ?? name.replace(/-/g, '_');
  return { name, version, libName };
}

/** The exact wasm-bindgen version the crate pins (`wasm-bindgen = "=X"`), from Cargo.toml. */
export function wasmBindgenPin() {
  const m = cargoToml().match(/^\s*wasm-bindgen\s*=\s*(?:\{[^}]*version\s*=\s*)?"=?\s*([0-9][^"]*)"/m);
  return m ? m[1].trim() : undefined;
}

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

// What wasm-opt strips from every module the build ships (custom sections no page reads; the
// build's named copy of the core keeps its names, and the validator's wasm-bindgen descriptors,
// which no pass removes, go by scripts/lib/wasm-module.mjs's withoutCustomSections).
export const WASM_OPT_STRIP = ['--strip-debug', '--strip-producers', '--strip-target-features'];

/**
 * The repository's script modules `file` loads, itself first then the rest sorted: every module
 * a static `import … from './…'` (or `'../…'`) of one of them names, and theirs, as paths from
 * the repository's root with `/`. (What `make build`'s up-to-date check hashes of scripts/:
 * a change to any of them may change what the build writes.)
 * @param {string} file a path from the repository's root, e.g. 'scripts/build.mjs'
 */
export function scriptModules(file) {
  const found = new Set([file]);
  const walk = (from) => {
    const text = fs.readFileSync(path.join(REPO_ROOT, from), 'utf8');
    for (const [, spec] of text.matchAll(/^import [^;]*? from '(\.{1,2}\/[^']+)';$/gm)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
      if (found.has(target)) continue;
      found.add(target);
      walk(target);
    }
  };
  walk(file);
  return [file, ...[...found].slice(1).sort()];
}

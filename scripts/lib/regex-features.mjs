// The validator's regular-expression crates built with fewer features (scripts/build.mjs, the
// validator's cargo build): without `perf`, and without the Unicode tables ECMA-262 has no
// syntax for.
//
// `regex` and `fancy-regex` turn on, by default, a `perf` feature: literal prefilters
// (`aho-corasick`, `memchr`), the bounded backtracker, more inlining. `regex`'s documentation
// calls them strictly performance oriented: turning them off loses no functionality
// (`fancy-regex`'s `perf` is `regex-automata`'s same features). `fancy-regex` asks
// `regex-automata` for the lazy DFA and the one-pass DFA itself, by name: those stay.
//
// The four crates' `unicode` feature turns on every table `regex-syntax` has, among them two
// families a JSON Schema `pattern` cannot name: a pattern is an ECMA-262 regular expression, whose
// property escapes are the general category, the scripts (`Script`, `Script_Extensions`) and a
// list of binary properties. `unicode-age` (`\p{Age=6.0}`) and `unicode-segment` (the
// `Grapheme_Cluster_Break`, `Word_Break` and `Sentence_Break` properties) are not among them: a
// browser's `RegExp` refuses such a pattern (`SyntaxError`), and without the two features the
// validator refuses it too (the schema does not compile: "is not a \"regex\""), where it
// accepted it before. `\b`, `\w` and case-insensitive matching use the `unicode-perl` and
// `unicode-case` tables, which stay.
//
// Cargo cannot turn off a feature another crate asks for (`jsonschema` depends on `regex` and
// `fancy-regex` with their default features, `jsonschema-regex` on `regex-syntax` with its).
// So the validator's build gives cargo a copy of each crate whose manifest's feature lists leave
// those words out: the crate's own files, as the registry has them, with a few words of
// `Cargo.toml` removed, used through `[patch.crates-io]` on the command line
// (`--config patch.crates-io.<name>.path=…`) and a lockfile of the build's own, so that the
// repository's `Cargo.lock` and every other build (the core, the client, the native tests and
// the suite's native run) are as they were.
//
// The JSON-Schema-Test-Suite's page test compares the module's answers with the crate's native
// run, with every feature, test by test (tests/page/schema_suite.test.mjs); the suite has no
// pattern that names an age or a segmentation property.
//
//   withFewerFeatures({ repoRoot, targetDir, featureArgs, env }) → the cargo arguments that
//   build with the copies.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The regex-syntax features that the `unicode` features of the copies no longer include. */
export const NOT_ECMA_TABLES = ['unicode-age', 'unicode-segment'];

/**
 * Per crate, per feature of its manifest's `[features]` table, the words its list loses.
 * @type {Record<string, Record<string, string[]>>}
 */
export const FEWER_FEATURES = {
  regex: { default: ['perf'], unicode: NOT_ECMA_TABLES },
  'fancy-regex': { default: ['perf'] },
  'regex-automata': { unicode: NOT_ECMA_TABLES },
  'regex-syntax': { unicode: NOT_ECMA_TABLES },
};

/**
 * Makes (or reuses) under `targetDir` a copy of each crate of FEWER_FEATURES that the build of
 * `featureArgs` (cargo's feature arguments) resolves to, its manifest edited by
 * `featuresWithout`, and a lockfile for the build; returns the arguments that make cargo use
 * them. Throws when a crate is not resolved once exactly or its manifest lacks a word to remove.
 * @param {{ repoRoot: string, targetDir: string, featureArgs: string[], env: NodeJS.ProcessEnv }} options
 */
export function withFewerFeatures({ repoRoot, targetDir, featureArgs, env }) {
  const metadata = JSON.parse(execFileSync('cargo', ['metadata', '--format-version', '1', '--filter-platform', 'wasm32-unknown-unknown', ...featureArgs], {
    cwd: repoRoot, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'],
  }));
  const resolved = new Set(metadata.resolve.nodes.map((n) => n.id));
  const dir = path.join(repoRoot, targetDir);
  fs.mkdirSync(dir, { recursive: true });
  const args = [];
  for (const [name, removed] of Object.entries(FEWER_FEATURES)) {
    const packages = metadata.packages.filter((p) => p.name === name && resolved.has(p.id));
    if (packages.length !== 1) throw new Error(`regex-features.mjs: the validator's build resolves ${packages.length} versions of ${name}, not one`);
    const [pkg] = packages;
    const source = path.dirname(pkg.manifest_path);
    const copy = path.join(dir, `${name}-${pkg.version}`);
    const manifest = fs.readFileSync(pkg.manifest_path, 'utf8');
    const edited = featuresWithout(manifest, name, removed);
    const key = createHash('sha256').update(source).update(manifest).update(edited).digest('hex');
    const keyFile = path.join(copy, '.fewer-features');
    // Copied once: a new copy's newer files would make cargo build the crate again.
    if (!fs.existsSync(keyFile) || fs.readFileSync(keyFile, 'utf8') !== key) {
      fs.rmSync(copy, { recursive: true, force: true });
      fs.cpSync(source, copy, { recursive: true });
      fs.writeFileSync(path.join(copy, 'Cargo.toml'), edited);
      fs.writeFileSync(keyFile, key);
    }
    args.push('--config', `patch.crates-io.${name}.path=${JSON.stringify(copy)}`);
  }
  // The build's own lockfile, from the repository's: the same versions, and the patches recorded
  // there, not in Cargo.lock.
  const lockfile = path.join(dir, 'Cargo.lock');
  const lock = fs.readFileSync(path.join(repoRoot, 'Cargo.lock'));
  const lockKey = path.join(dir, 'Cargo.lock.from');
  const lockHash = createHash('sha256').update(lock).digest('hex');
  if (!fs.existsSync(lockfile) || !fs.existsSync(lockKey) || fs.readFileSync(lockKey, 'utf8') !== lockHash) {
    fs.writeFileSync(lockfile, lock);
    fs.writeFileSync(lockKey, lockHash);
  }
  args.push('-Zlockfile-path', '--config', `resolver.lockfile-path=${JSON.stringify(lockfile)}`);
  return args;
}

/**
 * `manifest` (a crate's normalized `Cargo.toml`, as the registry has it) with, for each feature
 * of `removed`, its words left out of that feature's list in the `[features]` table; the rest of
 * the text as it was. Throws when the table, a list or a word is missing.
 * @param {string} manifest
 * @param {string} name the crate's name, for the errors
 * @param {Record<string, string[]>} removed
 */
export function featuresWithout(manifest, name, removed) {
  let text = manifest;
  for (const [feature, words] of Object.entries(removed)) {
    const table = text.match(/^\[features\]\n([\s\S]*?)(?=^\[|(?![\s\S]))/m);
    if (!table) throw new Error(`regex-features.mjs: ${name}'s Cargo.toml has no [features] table`);
    const escaped = feature.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
    const list = table[1].match(new RegExp(`^${escaped} = \\[([^\\]]*)\\]`, 'm'));
    if (!list) throw new Error(`regex-features.mjs: ${name}'s Cargo.toml has no ${feature} features list`);
    const items = list[1].split(',').map((s) => s.trim()).filter(Boolean);
    for (const word of words) {
      if (!items.includes(`"${word}"`)) throw new Error(`regex-features.mjs: ${name}'s ${feature} features (${items.join(', ')}) do not include "${word}"`);
    }
    const kept = items.filter((s) => !words.some((w) => s === `"${w}"`));
    const start = table.index + table[0].indexOf(table[1]) + list.index;
    text = text.slice(0, start) + `${feature} = [${kept.join(', ')}]` + text.slice(start + list[0].length);
  }
  return text;
}

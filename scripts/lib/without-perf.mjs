// The validator's regular-expression crates built without their `perf` features
// (scripts/build.mjs, the validator's cargo build).
//
// `regex` and `fancy-regex` turn on, by default, a `perf` feature: literal prefilters
// (`aho-corasick`, `memchr`), the bounded backtracker, more inlining. `regex`'s documentation
// calls them strictly performance oriented: turning them off loses no functionality
// (`fancy-regex`'s `perf` is `regex-automata`'s same features). The
// validator's dependencies ask for both crates with their default features (`jsonschema` depends
// on `regex` and on `fancy-regex` so), and cargo cannot turn off a default feature that another
// crate asks for. So the validator's build gives cargo a copy of each crate whose manifest lists
// the same default features but `perf`: the crate's own files, as the registry has them, with
// one word of `Cargo.toml` left out, used through `[patch.crates-io]` on the command line
// (`--config patch.crates-io.<name>.path=…`) and a lockfile of the build's own, so that the
// repository's `Cargo.lock` and every other build (the core, the client, the native tests and
// the suite's native run) are as they were. `fancy-regex` asks `regex-automata` for the lazy
// DFA and the one-pass DFA itself, by name: those stay.
//
// The JSON-Schema-Test-Suite's page test compares the module's answers with the crate's native
// run, with `perf`, test by test (tests/page/schema_suite.test.mjs).
//
//   withoutPerf({ repoRoot, targetDir, featureArgs, env }) → the cargo arguments that build with
//   the copies.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The crates built without their default `perf` feature. */
export const WITHOUT_PERF = ['regex', 'fancy-regex'];

/**
 * Makes (or reuses) under `targetDir` a copy of each crate of WITHOUT_PERF that the build of
 * `featureArgs` (cargo's feature arguments) resolves to, whose default features leave
 * out `perf`, and a lockfile for the build; returns the arguments that make cargo use them.
 * Throws when a crate is not resolved once exactly or its manifest has no `perf` among its
 * default features.
 * @param {{ repoRoot: string, targetDir: string, featureArgs: string[], env: NodeJS.ProcessEnv }} options
 */
export function withoutPerf({ repoRoot, targetDir, featureArgs, env }) {
  const metadata = JSON.parse(execFileSync('cargo', ['metadata', '--format-version', '1', '--filter-platform', 'wasm32-unknown-unknown', ...featureArgs], {
    cwd: repoRoot, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'],
  }));
  const resolved = new Set(metadata.resolve.nodes.map((n) => n.id));
  const dir = path.join(repoRoot, targetDir);
  fs.mkdirSync(dir, { recursive: true });
  const args = [];
  for (const name of WITHOUT_PERF) {
    const packages = metadata.packages.filter((p) => p.name === name && resolved.has(p.id));
    if (packages.length !== 1) throw new Error(`without-perf.mjs: the validator's build resolves ${packages.length} versions of ${name}, not one`);
    const [pkg] = packages;
    const source = path.dirname(pkg.manifest_path);
    const copy = path.join(dir, `${name}-${pkg.version}`);
    const manifest = fs.readFileSync(pkg.manifest_path, 'utf8');
    const edited = defaultWithoutPerf(manifest, name);
    const key = createHash('sha256').update(source).update(manifest).update(edited).digest('hex');
    const keyFile = path.join(copy, '.without-perf');
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
 * `manifest` (a crate's normalized `Cargo.toml`, as the registry has it) with `perf` left out of
 * its `[features]` table's `default` list.
 * @param {string} manifest
 * @param {string} name the crate's name, for the error
 */
export function defaultWithoutPerf(manifest, name) {
  const features = manifest.match(/^\[features\]\n([\s\S]*?)(?=^\[|(?![\s\S]))/m);
  const list = features?.[1].match(/^default = \[([^\]]*)\]/m);
  if (!list) throw new Error(`without-perf.mjs: ${name}'s Cargo.toml has no default features list`);
  const items = list[1].split(',').map((s) => s.trim()).filter(Boolean);
  if (!items.includes('"perf"')) throw new Error(`without-perf.mjs: ${name}'s default features (${items.join(', ')}) do not include "perf"`);
  const kept = items.filter((s) => s !== '"perf"');
  const start = features.index + features[0].indexOf(features[1]) + list.index;
  return manifest.slice(0, start) + `default = [${kept.join(', ')}]` + manifest.slice(start + list[0].length);
}

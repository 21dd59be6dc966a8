// The validator's regex crates built without their `perf` features (scripts/lib/without-perf.mjs):
// the manifest edit, and what a release build resolved.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from './harness.mjs';
import { defaultWithoutPerf, withoutPerf, WITHOUT_PERF } from '../../scripts/lib/without-perf.mjs';
import { VALIDATOR_FEATURES, WITHOUT_PERF_DIR } from '../../scripts/lib/project.mjs';

const manifest = (defaults) => `[package]
name = "regex"
version = "1.13.1"

[features]
default = [
${defaults.map((d) => `    "${d}",`).join('\n')}
]
perf = ["perf-cache"]
perf-cache = []

[dependencies.memchr]
version = "2.6.0"
`;

test('defaultWithoutPerf leaves "perf" out of the default features and nothing else', () => {
  const edited = defaultWithoutPerf(manifest(['std', 'perf', 'unicode']), 'regex');
  assert.match(edited, /^default = \["std", "unicode"\]$/m);
  assert.match(edited, /^perf = \["perf-cache"\]$/m, 'the feature itself stays');
  assert.equal(edited.replace(/^default = .*$/m, ''), manifest(['std', 'perf', 'unicode']).replace(/^default = \[[^\]]*\]/m, ''));
  // (a dependency's `default-features = false` is not the features table's list)
  const single = defaultWithoutPerf('[features]\ndefault = ["perf"]\n', 'x');
  assert.equal(single, '[features]\ndefault = []\n');
});

test('defaultWithoutPerf refuses a manifest whose default features have no "perf", or that has none', () => {
  assert.throws(() => defaultWithoutPerf(manifest(['std', 'unicode']), 'regex'), /regex's default features \("std", "unicode"\) do not include "perf"/);
  assert.throws(() => defaultWithoutPerf('[package]\nname = "x"\n\n[dependencies.y]\ndefault-features = false\n', 'x'), /no default features list/);
});

test("a release build's validator resolves regex and fancy-regex to the copies without perf, whose graph has no aho-corasick; the repository's Cargo.lock is untouched", (t) => {
  const lockfile = path.join(REPO_ROOT, WITHOUT_PERF_DIR, 'Cargo.lock');
  if (!fs.existsSync(lockfile)) return t.skip('no release build made with the copies (make build; a cargo without -Zlockfile-path warns and keeps perf)');
  const packages = fs.readFileSync(lockfile, 'utf8').split('[[package]]').slice(1);
  for (const name of WITHOUT_PERF) {
    const entry = packages.find((p) => p.includes(`\nname = "${name}"\n`));
    assert.ok(entry, `${name} is in the build's lockfile`);
    assert.doesNotMatch(entry, /^source = /m, `${name} comes from its copy (a path), not the registry`);
  }
  // What cargo builds for the validator with those arguments: aho-corasick (regex's literal
  // prefilters, `perf-literal`) is not in it, and regex is.
  const env = { ...process.env, RUSTC_BOOTSTRAP: '1' };
  const args = withoutPerf({ repoRoot: REPO_ROOT, targetDir: WITHOUT_PERF_DIR, featureArgs: VALIDATOR_FEATURES, env });
  const tree = (name) => spawnSync('cargo', ['tree', '--target', 'wasm32-unknown-unknown', ...VALIDATOR_FEATURES, ...args, '-e', 'normal', '-i', name], { cwd: REPO_ROOT, env, encoding: 'utf8' });
  const regex = tree('regex');
  assert.equal(regex.status, 0, regex.stderr);
  assert.match(regex.stdout, /^regex v[\d.]+ \(.*without-perf/m);
  const aho = tree('aho-corasick');
  assert.equal(aho.status, 0, aho.stderr);
  assert.equal(aho.stdout.trim(), '', 'nothing in the graph depends on aho-corasick');
  assert.match(aho.stderr, /nothing to print/);
  assert.match(fs.readFileSync(path.join(REPO_ROOT, 'Cargo.lock'), 'utf8'), /^name = "regex"\nversion = "[\d.]+"\nsource = "registry/m, "the repository's Cargo.lock keeps the registry's regex");
});

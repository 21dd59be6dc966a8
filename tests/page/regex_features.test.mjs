// The validator's regex crates built with fewer features (scripts/lib/regex-features.mjs): the
// manifest edit, what a release build resolved, and what the shipped module answers for the
// property escapes it no longer has tables for.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT, DIST_DIR, requireDist } from './harness.mjs';
import { featuresWithout, withFewerFeatures, FEWER_FEATURES, NOT_ECMA_TABLES } from '../../scripts/lib/regex-features.mjs';
import { loadValidator } from '../../scripts/lib/validator-node.mjs';
import { VALIDATOR_FEATURES, REGEX_COPIES_DIR } from '../../scripts/lib/project.mjs';

const manifest = (defaults) => `[package]
name = "regex"
version = "1.13.1"

[features]
default = [
${defaults.map((d) => `    "${d}",`).join('\n')}
]
perf = ["perf-cache"]
perf-cache = []
unicode = [
    "unicode-age",
    "unicode-bool",
    "unicode-segment",
    "regex-syntax/unicode",
]
unicode-age = ["regex-syntax/unicode-age"]

[dependencies.memchr]
version = "2.6.0"
`;

test('featuresWithout leaves the words out of the lists named and changes nothing else', () => {
  const before = manifest(['std', 'perf', 'unicode']);
  const edited = featuresWithout(before, 'regex', { default: ['perf'], unicode: ['unicode-age', 'unicode-segment'] });
  assert.match(edited, /^default = \["std", "unicode"\]$/m);
  assert.match(edited, /^unicode = \["unicode-bool", "regex-syntax\/unicode"\]$/m);
  assert.match(edited, /^perf = \["perf-cache"\]$/m, 'the feature itself stays');
  assert.match(edited, /^unicode-age = \["regex-syntax\/unicode-age"\]$/m, 'and so does a feature whose name is a word removed');
  const rest = (text) => text.replace(/^(default|unicode) = \[[^\]]*\]/gm, '');
  assert.equal(rest(edited), rest(before));
  // (a dependency's `default-features = false` is not the features table's list)
  assert.equal(featuresWithout('[features]\ndefault = ["perf"]\n', 'x', { default: ['perf'] }), '[features]\ndefault = []\n');
  assert.equal(featuresWithout(before, 'regex', {}), before);
});

test('featuresWithout refuses a manifest that lacks a word to remove, its list or a features table', () => {
  assert.throws(() => featuresWithout(manifest(['std', 'unicode']), 'regex', { default: ['perf'] }), /regex's default features \("std", "unicode"\) do not include "perf"/);
  assert.throws(() => featuresWithout(manifest(['perf']), 'regex', { unicode: ['unicode-perl'] }), /regex's unicode features .* do not include "unicode-perl"/);
  assert.throws(() => featuresWithout(manifest(['perf']), 'regex', { 'unicode-case': ['x'] }), /no unicode-case features list/);
  assert.throws(() => featuresWithout('[package]\nname = "x"\n\n[dependencies.y]\ndefault-features = false\n', 'x', { default: ['perf'] }), /no \[features\] table/);
});

/** Whether dist/ is a release build made with the copies (a cargo without -Zlockfile-path keeps every feature). */
function builtWithCopies(t) {
  if (fs.existsSync(path.join(REPO_ROOT, REGEX_COPIES_DIR, 'Cargo.lock'))) return true;
  t.skip('no release build made with the copies (make build; a cargo without -Zlockfile-path warns and keeps every feature)');
  return false;
}

test("a release build's validator resolves the regex crates to the copies: no aho-corasick, no age or segmentation tables; the repository's Cargo.lock is untouched", (t) => {
  if (!builtWithCopies(t)) return;
  const lockfile = path.join(REPO_ROOT, REGEX_COPIES_DIR, 'Cargo.lock');
  const packages = fs.readFileSync(lockfile, 'utf8').split('[[package]]').slice(1);
  for (const name of Object.keys(FEWER_FEATURES)) {
    const entry = packages.find((p) => p.includes(`\nname = "${name}"\n`));
    assert.ok(entry, `${name} is in the build's lockfile`);
    assert.doesNotMatch(entry, /^source = /m, `${name} comes from its copy (a path), not the registry`);
  }
  // What cargo builds for the validator with those arguments: aho-corasick (regex's literal
  // prefilters, `perf-literal`) is not in it, regex is, and regex-syntax's features are all its
  // `unicode` ones but the two.
  const env = { ...process.env, RUSTC_BOOTSTRAP: '1' };
  const args = withFewerFeatures({ repoRoot: REPO_ROOT, targetDir: REGEX_COPIES_DIR, featureArgs: VALIDATOR_FEATURES, env });
  const tree = (...rest) => spawnSync('cargo', ['tree', '--target', 'wasm32-unknown-unknown', ...VALIDATOR_FEATURES, ...args, ...rest], { cwd: REPO_ROOT, env, encoding: 'utf8' });
  const regex = tree('-e', 'normal', '-i', 'regex');
  assert.equal(regex.status, 0, regex.stderr);
  assert.match(regex.stdout, /^regex v[\d.]+ \(.*regex-features/m);
  const aho = tree('-e', 'normal', '-i', 'aho-corasick');
  assert.equal(aho.status, 0, aho.stderr);
  assert.equal(aho.stdout.trim(), '', 'nothing in the graph depends on aho-corasick');
  assert.match(aho.stderr, /nothing to print/);
  const syntax = tree('-e', 'features', '-i', 'regex-syntax', '--prefix', 'none');
  assert.equal(syntax.status, 0, syntax.stderr);
  const features = new Set([...syntax.stdout.matchAll(/^regex-syntax feature "([^"]+)"/gm)].map((m) => m[1]));
  for (const kept of ['unicode', 'unicode-bool', 'unicode-case', 'unicode-gencat', 'unicode-perl', 'unicode-script']) assert.ok(features.has(kept), `regex-syntax keeps ${kept}: ${[...features]}`);
  for (const left of NOT_ECMA_TABLES) assert.ok(!features.has(left), `regex-syntax is built without ${left}: ${[...features]}`);
  assert.match(fs.readFileSync(path.join(REPO_ROOT, 'Cargo.lock'), 'utf8'), /^name = "regex"\nversion = "[\d.]+"\nsource = "registry/m, "the repository's Cargo.lock keeps the registry's regex");
});

// Property escapes, those ECMA-262 has and those it has not; the strings each is tried on.
const ESCAPES = [
  '\\p{L}', '\\P{Lu}', '\\p{Letter}', '\\p{Script=Greek}', '\\p{sc=Latn}', '\\p{Script_Extensions=Latin}',
  '\\p{Emoji}', '\\p{Lowercase}', '\\p{White_Space}',
  '\\p{Age=6.0}', '\\p{Age=V6_0}', '\\p{Grapheme_Cluster_Break=Extend}', '\\p{GCB=Extend}',
  '\\p{Word_Break=ALetter}', '\\p{WB=Numeric}', '\\p{Sentence_Break=Upper}', '\\p{SB=Lower}',
];
const STRINGS = ['a', 'A', 'é', 'Ω', '7', ' ', '\u0301', '😀'];

test("the shipped validator refuses a pattern with an age or segmentation property, as the platform's RegExp does, and answers the others as RegExp", async (t) => {
  requireDist('modelcontext_validator.wasm');
  if (!builtWithCopies(t)) return;
  const v = await loadValidator(fs.readFileSync(path.join(DIST_DIR, 'modelcontext_validator.wasm')));
  let refused = 0;
  for (const escape of ESCAPES) {
    const source = `^${escape}$`;
    let platform = null;
    try {
      platform = new RegExp(source, 'u');
    } catch (e) {
      assert.ok(e instanceof SyntaxError, String(e));
    }
    const compiled = JSON.parse(v.compile(JSON.stringify({ type: 'string', pattern: source })));
    if (!platform) {
      refused += 1;
      assert.equal(compiled.handle, undefined, `${source}: RegExp refuses it, the validator compiled it`);
      assert.match(compiled.error, /is not a "regex"/, source);
      continue;
    }
    assert.equal(typeof compiled.handle, 'number', `${source}: RegExp accepts it, the validator refused it: ${compiled.error}`);
    for (const s of STRINGS) {
      const violations = JSON.parse(v.validate(compiled.handle, JSON.stringify(s))).violations;
      assert.equal(violations.length === 0, platform.test(s), `${source} against ${JSON.stringify(s)}`);
    }
    v.free(compiled.handle);
  }
  assert.equal(refused, 8, 'the age and segmentation escapes');
  // The module still answers after the refusals.
  const { handle } = JSON.parse(v.compile('{"type":"integer"}'));
  assert.equal(JSON.parse(v.validate(handle, '"x"')).violations.length, 1);
  assert.equal(JSON.parse(v.validate(handle, '3')).violations.length, 0);
});

// The two dist builds load in a page and install before page code runs.
// The installer marks the global with globalThis[Symbol.for('modelcontext-polyfill')] =
// { version, format, modelContext, native } (polyfill/src/install.js).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { withPage, requireDist, CRATE_VERSION, REPO_ROOT, DIST_DIR } from './harness.mjs';
import { exportsReadBy } from '../../scripts/lib/glue-names.mjs';
import { sections, readModule, withoutCustomSections } from '../../scripts/lib/wasm-module.mjs';
import { dataSegments, dataImage } from '../../scripts/lib/data-split.mjs';
import { COMPILE_HINT, scriptModules } from '../../scripts/lib/project.mjs';
import { memoryAfterInstantiation } from '../../scripts/lib/data-delta.mjs';

const gzipSize = (b) => zlib.gzipSync(b, { level: 9 }).length;

const marker = () => {
  const m = globalThis[Symbol.for('modelcontext-polyfill')];
  return m && { version: m.version, format: m.format, same: m.modelContext === document.modelContext };
};

test('ESM build: import installs before the importing module body runs', () => {
  requireDist('modelcontext.js', 'modelcontext_glue.js', 'modelcontext_glue_bg.wasm');
  return withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    assert.deepEqual(await page.evaluate(() => window.seenInModuleBody),
      { marker: true, document: 'object', navigator: 'object' });
    assert.deepEqual(await page.evaluate(marker), { version: CRATE_VERSION, format: 'esm', same: true });
    assert.equal(await page.evaluate(() => 'wasm_bindgen' in globalThis), false);
  }, { path: '/tests/page/fixtures/esm.html' });
});

test('classic build: the next <script> sees the polyfill synchronously, no wasm_bindgen global', () => {
  requireDist('modelcontext.iife.js');
  return withPage(async ({ page }) => {
    assert.equal(await page.evaluate(() => window.seen), true);
    assert.deepEqual(await page.evaluate(marker), { version: CRATE_VERSION, format: 'classic', same: true });
    assert.equal(await page.evaluate(() => 'wasm_bindgen' in globalThis), false);
    assert.equal(await page.evaluate(() => typeof wasm_bindgen), 'undefined');
  }, { path: '/tests/page/fixtures/classic.html' });
});

test('classic build works on the second origin (http://localhost)', () => {
  requireDist('modelcontext.iife.js');
  return withPage(async ({ page, server }) => {
    assert.equal(new URL(page.url()).origin, server.altOrigin);
    assert.equal(await page.evaluate(() => window.isSecureContext), true);
    assert.equal(await page.evaluate(() => window.seen), true);
  }, { path: '/tests/page/fixtures/classic.html', alt: true });
});

test('the wasm itself reports the crate version (polyfillVersion())', () => {
  requireDist('modelcontext.js', 'modelcontext_glue.js');
  return withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    // The glue module instance is the one the core (modelcontext_core.js) initialized (same URL),
    // so once the core has loaded its exports call into the live wasm instance.
    const v = await page.evaluate(async () => {
      await globalThis[Symbol.for('modelcontext-polyfill')].ready;
      return (await import('/dist/modelcontext_glue.js')).polyfillVersion();
    });
    assert.equal(v, CRATE_VERSION);
  }, { path: '/tests/page/fixtures/esm.html' });
});

test('a build with unchanged inputs reuses dist/ (target/dist-stamp.json); a changed input or output does not', () => {
  requireDist('modelcontext.js');
  const build = (args, env = {}) =>
    spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'build.mjs'), ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  const mtimes = () => fs.readdirSync(DIST_DIR).map((f) => [f, fs.statSync(path.join(DIST_DIR, f)).mtimeMs]);
  const before = mtimes();
  // `make build` ran before the page tests: nothing to do (what `make demo` and `make package` then cost).
  const again = build([]);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /dist\/ is up to date/);
  assert.deepEqual(mtimes(), before, 'dist/ was rewritten');
  assert.equal(build(['--check']).status, 0);

  // A stamp whose inputs or outputs differ (as after an edit of src/ or of a dist/ file) means a build.
  const stamp = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'target', 'dist-stamp.json'), 'utf8'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelcontext-stamp-'));
  try {
    for (const [name, changed] of [['inputs', { ...stamp, inputs: '0'.repeat(64) }], ['outputs', { ...stamp, outputs: '0'.repeat(64) }], ['same', stamp]]) {
      const file = path.join(dir, `${name}.json`);
      fs.writeFileSync(file, JSON.stringify(changed));
      const r = build(['--check'], { MODELCONTEXT_BUILD_STAMP: file });
      assert.equal(r.status, name === 'same' ? 0 : 1, `${name}: ${r.stdout}`);
    }
    assert.equal(build(['--check'], { MODELCONTEXT_BUILD_STAMP: path.join(dir, 'none.json') }).status, 1, 'no stamp: a build');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// The stamp's inputs take scripts/build.mjs's modules from scriptModules(), which follows its
// imports by reading them: a module it missed would leave dist/ as it was after an edit of it.
// Node's own loading of scripts/build.mjs (its imports are all loaded before `--help` answers),
// with a hook that writes down each module of the repository it resolves, is the reference.
test("the build's up-to-date check hashes every script module scripts/build.mjs loads, as Node loads them", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelcontext-imports-'));
  try {
    const log = path.join(dir, 'resolved.txt');
    const hooks = path.join(dir, 'hooks.mjs');
    fs.writeFileSync(hooks, `import fs from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.url.startsWith('file:')) fs.appendFileSync(log, r.url + '\\n');
  return r;
}
`);
    const register = `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hooks).href)}, { data: { log: ${JSON.stringify(log)} } });`;
    const r = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, path.join(REPO_ROOT, 'scripts', 'build.mjs'), '--help'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const root = pathToFileURL(REPO_ROOT).href + '/';
    const loaded = [...new Set(fs.readFileSync(log, 'utf8').split('\n').filter((u) => u.startsWith(root)).map((u) => u.slice(root.length)))]
      .filter((f) => !f.startsWith('node_modules/')).sort();
    assert.ok(loaded.includes('scripts/lib/placeholders.mjs') && loaded.includes('scripts/lib/regex-features.mjs'), loaded.join(', '));
    assert.deepEqual([...scriptModules('scripts/build.mjs')].sort(), loaded);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the scripts whose functions run as soon as they have loaded (a page's start, the client's glue) open with V8's explicit compile hint; the React hook and the scripts carrying wasm as base64 do not", () => {
  requireDist('modelcontext.js');
  const started = ['modelcontext.js', 'modelcontext.iife.js', 'modelcontext_core.js', 'modelcontext_glue.js', 'modelcontext_client_glue.js',
    'modelcontext.inline.js'];
  for (const f of fs.readdirSync(DIST_DIR).filter((f) => f.endsWith('.js'))) {
    const hinted = fs.readFileSync(path.join(DIST_DIR, f), 'utf8').startsWith(COMPILE_HINT);
    assert.equal(hinted, started.includes(f), `${f}: ${hinted ? 'hinted' : 'not hinted'}`);
  }
});

/** Whether dist/ is a release build; otherwise skips `t`, saying what the other build has (`why`). */
function releaseDist(t, why) {
  const { profile } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'target', 'dist-stamp.json'), 'utf8'));
  if (profile !== 'release') t.skip(`dist/ is a ${profile} build, ${why}`);
  return profile === 'release';
}

test('a release build minifies its scripts, keeping our license headers', (t) => {
  requireDist('modelcontext.js');
  if (!releaseDist(t, 'which keeps its scripts as written')) return;
  for (const f of fs.readdirSync(DIST_DIR).filter((f) => f.endsWith('.js') && !f.startsWith('react.'))) {
    const text = fs.readFileSync(path.join(DIST_DIR, f), 'utf8');
    // Our scripts open with their license header (wasm-bindgen's glue has none of its own),
    // after V8's compile hint where there is one (the next test).
    if (!f.includes('glue')) assert.match(text.replace(COMPILE_HINT, ''), /^\/\*! modelcontext-polyfill /, `${f}: the license header is the first thing`);
    // The sources' own comments and indentation are gone (the build marks each source with a
    // `// ---- polyfill/src/…` comment line before minifying).
    assert.doesNotMatch(text, /\/\/ ---- polyfill\/src\//, `${f}: a source comment is left`);
    assert.doesNotMatch(text, /\n {4}\S/, `${f}: indented lines are left`);
  }
});

// V8 holds a script's source one byte a character only when every character is Latin-1; one
// past U+00FF (an em dash in a header) makes it two bytes a character, the whole script. The
// release build writes non-ASCII text in strings as escapes (what they read is checked where
// they are thrown: session_api, standard_schema) and fails on any such character left.
test("a release build's scripts are Latin-1 throughout", (t) => {
  requireDist('modelcontext.js');
  if (!releaseDist(t, 'whose scripts keep their comments as written')) return;
  const scripts = fs.readdirSync(DIST_DIR).filter((f) => f.endsWith('.js'));
  assert.ok(scripts.length >= 10, `${scripts.length} scripts`);
  for (const f of scripts) {
    const text = fs.readFileSync(path.join(DIST_DIR, f), 'utf8');
    const at = text.search(/[^\u0000-\u00ff]/u);
    assert.equal(at, -1, `${f}: ${JSON.stringify(text.slice(Math.max(0, at - 30), at + 10))}`);
  }
});

// wasm-bindgen's glue makes a closure of a catching import's body on every call and runs it
// through handleError(f, arguments); the build has each catch in place (scripts/build.mjs,
// catchesInPlace). What such an import throws still reaches the wasm: a tool whose execute
// throws, a revoked proxy read (webmcp.cases.mjs) are the behaviour.
test("the glues' catching imports catch in place: no closure and no arguments object per call", (t) => {
  requireDist('modelcontext_glue.js');
  if (!releaseDist(t, 'whose glue is not minified')) return;
  for (const f of ['modelcontext_glue.js', 'modelcontext_client_glue.js']) {
    const text = fs.readFileSync(path.join(DIST_DIR, f), 'utf8');
    assert.doesNotMatch(text, /\barguments\b/, `${f}: an arguments object`);
    assert.doesNotMatch(text, /\.apply\(this\b/, `${f}: a call through apply`);
    const catching = text.match(/\{try\{[^}]*\}catch\((\w+)\)\{\w+\(\1\)\}\}/g) ?? [];
    assert.ok(catching.length >= 15, `${f}: ${catching.length} imports that catch in place`);
  }
});

// Custom sections are for tools, not pages: a browser skips them, and the build leaves none in
// what it ships (names, producers, target features, wasm-bindgen's descriptors in the validator
// module, which does not go through wasm-bindgen's CLI that removes them elsewhere).
test('a release build ships its wasm files without custom sections', (t) => {
  requireDist('modelcontext_glue_bg.wasm');
  if (!releaseDist(t, "whose modules are wasm-bindgen's as they are")) return;
  const files = fs.readdirSync(DIST_DIR).filter((f) => f.endsWith('.wasm')).sort();
  assert.deepEqual(files, ['modelcontext_calls.wasm', 'modelcontext_client_glue_bg.wasm', 'modelcontext_deferred.wasm', 'modelcontext_glue_bg.wasm', 'modelcontext_validator.wasm']);
  for (const f of files) {
    const custom = sections(fs.readFileSync(path.join(DIST_DIR, f))).filter((s) => s.id === 0).map((s) => s.name);
    assert.deepEqual(custom, [], `${f}: custom sections`);
  }
});

// The core's static data is cut as its code is (scripts/lib/data-split.mjs): what only the
// deferred module's code reaches is written by the deferred module's call module where the call
// module's code reaches it (scripts/lib/calls-cut.mjs), else by the rest of the deferred module,
// at the addresses the whole core writes it, and the first module does not carry it.
test("a release build's core: the first module, the call module and the deferred module each write the static data their code reaches that the ones before do not; no byte written by two; together, byte for byte what the whole core writes", (t) => {
  requireDist('modelcontext_deferred.wasm', 'modelcontext_calls.wasm');
  if (!releaseDist(t, 'whose core is whole')) return;
  const whole = path.join(REPO_ROOT, 'target/bindgen/release/modelcontext_glue_bg.opt.wasm');
  const parts = ['modelcontext_glue_bg.wasm', 'modelcontext_calls.wasm', 'modelcontext_deferred.wasm'].map((f) => [f, dataSegments(fs.readFileSync(path.join(DIST_DIR, f)))]);
  const bytes = (segments) => segments.reduce((n, s) => n + s.bytes.filter((b) => b !== 0).length, 0);
  // (Text of messages the first module never writes: the calls' errors, 4.7 KB in the call
  // module; the forms', the tasks', the other transports', the page's executeTool's, 20 KB in
  // the rest.)
  const floor = { 'modelcontext_calls.wasm': 4_000 };
  for (const [f, segments] of parts) assert.ok(bytes(segments) > (floor[f] ?? 5_000), `${f} writes ${bytes(segments)} bytes of data`);
  // No byte that is not zero written by two, and memory once each has written its own (zeros
  // too: a later module's are written over whatever is there) is the whole core's.
  const written = new Map();
  for (const [f, segments] of parts) {
    for (const { offset, bytes: b } of segments) {
      b.forEach((v, i) => {
        if (v === 0) return;
        assert.ok(!written.has(offset + i), `address ${offset + i} is written by ${written.get(offset + i)} and ${f}`);
        written.set(offset + i, f);
      });
    }
  }
  const image = dataImage(fs.readFileSync(whole));
  const low = image.readUInt32LE(0);
  const all = parts.flatMap(([, segments]) => segments);
  const from = Math.min(low, ...all.map((g) => g.offset));
  const to = Math.max(low + image.length - 4, ...all.map((g) => g.offset + g.bytes.length));
  const memory = Buffer.alloc(to - from);
  for (const { offset, bytes: b } of all) b.copy(memory, offset - from);
  const together = Buffer.alloc(image.length - 4);
  memory.copy(together, 0, low - from, low - from + together.length);
  assert.ok(memory.subarray(0, low - from).every((v) => v === 0) && memory.subarray(low - from + together.length).every((v) => v === 0), 'the modules write outside the whole core\'s data');
  assert.equal(Buffer.compare(together, image.subarray(4)), 0, 'the modules do not write what the whole core writes');
});

// wasm-bindgen names each function its glue gives the module after the JS it runs and a hash,
// under `./<name>_bg.js`, and each the module exports after the Rust, in the module and in the
// glue alike; the build renames them short (scripts/lib/glue-names.mjs), and the loader the
// core's placeholders call is under a one-letter namespace too (scripts/lib/placeholders.mjs). Each build's
// pages instantiating them is the rest.
test("a release build's validator module: its data written as differences, and instantiated, the memory of the module wasm-opt made", async (t) => {
  requireDist('modelcontext_validator.wasm');
  if (!releaseDist(t, 'whose validator is as cargo left it')) return;
  const optimized = path.join(REPO_ROOT, 'target', 'validator', 'release', 'modelcontext_validator.wasm');
  const shipped = fs.readFileSync(path.join(DIST_DIR, 'modelcontext_validator.wasm'));
  assert.ok(sections(shipped).some((s) => s.id === 8), 'the shipped module decodes its data when instantiated (a start section)');
  const before = fs.readFileSync(optimized);
  assert.ok(gzipSize(shipped) < gzipSize(before) * 0.95, `gzip ${gzipSize(before)} → ${gzipSize(shipped)}`);
  assert.ok(Buffer.compare(await memoryAfterInstantiation(shipped), await memoryAfterInstantiation(before)) === 0);
});

test("a release build's validator module: its functions laid out by likeness, the module wasm-opt made otherwise", async (t) => {
  requireDist('modelcontext_validator.wasm');
  if (!releaseDist(t, 'whose validator is as cargo left it')) return;
  const dir = path.join(REPO_ROOT, 'target', 'validator', 'release');
  const oz = fs.readFileSync(path.join(dir, 'validator.oz.pages.wasm'));
  const ordered = fs.readFileSync(path.join(dir, 'modelcontext_validator.wasm'));
  const customs = sections(oz).filter((s) => s.id === 0).map((s) => s.name);
  const plain = withoutCustomSections(oz, customs);
  const module = (bytes) => new WebAssembly.Module(bytes);
  assert.deepEqual(WebAssembly.Module.exports(module(ordered)), WebAssembly.Module.exports(module(plain)));
  assert.deepEqual(WebAssembly.Module.imports(module(ordered)), WebAssembly.Module.imports(module(plain)));
  const bodies = (bytes) => readModule(bytes).bodies;
  assert.equal(bodies(ordered).length, bodies(plain).length, 'as many functions');
  assert.notDeepEqual(bodies(ordered), bodies(plain), 'in another order');
  assert.ok(gzipSize(ordered) < gzipSize(plain) * 0.96, `gzip ${gzipSize(plain)} → ${gzipSize(ordered)}`);
  assert.ok(Buffer.compare(await memoryAfterInstantiation(ordered), await memoryAfterInstantiation(plain)) === 0);
});

test('the core\'s and the client\'s modules and their glue give each other their functions under one- and two-letter names, the placeholders\' loader under one letter', () => {
  requireDist('modelcontext_glue_bg.wasm', 'modelcontext_client_glue_bg.wasm', 'modelcontext_glue.js');
  for (const [wasm, js] of [['modelcontext_glue_bg.wasm', 'modelcontext_glue.js'], ['modelcontext_client_glue_bg.wasm', 'modelcontext_client_glue.js']]) {
    const imports = WebAssembly.Module.imports(new WebAssembly.Module(fs.readFileSync(path.join(DIST_DIR, wasm))));
    const fromGlue = imports.filter((i) => i.module === 'a');
    assert.ok(fromGlue.length > 20, `${wasm}: ${fromGlue.length} imports from the glue's namespace a`);
    assert.deepEqual(fromGlue.filter((i) => !/^[A-Za-z][A-Za-z0-9]?$/.test(i.name)).map((i) => i.name), [], wasm);
    const namespaces = [...new Set(imports.map((i) => i.module))].sort();
    assert.deepEqual(namespaces, wasm === 'modelcontext_glue_bg.wasm' ? ['a', 'b'] : ['a'], wasm);
    // The glue gives each under that key, in its imports object under `a`.
    const glue = fs.readFileSync(path.join(DIST_DIR, js), 'utf8');
    assert.ok(/[{,]a:\{__proto__:null,/.test(glue), `${js}: no imports object under a`);
    const missing = fromGlue.filter((i) => !new RegExp(`[{,]${i.name}:function\\(`).test(glue)).map((i) => i.name);
    assert.deepEqual(missing, [], `${js}: imports the glue does not give`);
    // The module's exports (the core's first module's: wasm-bindgen's and wasm-split's) go by
    // such names, and the glue reads only them.
    const exports = WebAssembly.Module.exports(new WebAssembly.Module(fs.readFileSync(path.join(DIST_DIR, wasm)))).map((e) => e.name);
    assert.ok(exports.length > 50, `${wasm}: ${exports.length} exports`);
    assert.deepEqual(exports.filter((n) => !/^[A-Za-z][A-Za-z0-9]?$/.test(n)), [], `${wasm}: exports`);
    const read = exportsReadBy(glue);
    assert.ok(read.length > 20, `${js}: reads ${read.length} exports`);
    assert.deepEqual(read.filter((n) => !exports.includes(n)), [], `${js}: reads what ${wasm} does not export`);
  }
});

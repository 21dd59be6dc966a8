// The package as a web developer meets it: the packed tarball (as `make package` packs it)
// installed into each app of examples/bundlers/<tool>/, built with that bundler's defaults, then
// opened in Chromium. The app registers a tool with an input schema: a valid call resolves, an
// invalid one rejects with DataError (a plain schema checked by the core, and a pattern that needs
// the validator module), an McpClient calls a tool (the client module), and a <form toolname>
// becomes a tool (the core's deferred module): all five wasm files.
//
// Vite (build, and its dev server, which runs dependencies from node_modules/.vite/deps/; Vite 7's
// leaves their new URL()s pointing there, also from where Nuxt keeps its cache),
// webpack 5 and Rspack (no config file), Parcel 2 (no config); Rollup (node-resolve) and
// esbuild (--bundle) with the `inline` entry; and esbuild with the main entry, which copies no
// wasm: a clear error naming the way out. Angular 20: `ng build` with the example's `assets`
// entry, without it (the error names the entry), and `ng serve`, whose pre-bundled dependencies
// live in .angular/cache/; Angular's older webpack builder, which writes file: URLs of the build
// machine into the bundle (the error says so; the URLs set in index.html work). Nuxt 3: its
// build with the Nitro server, and its dev server (Vite 7, its cache in node_modules/.cache/).
// Next.js 16 (App Router, a client component): its builds with Turbopack and with webpack, each
// served by `next start`, and its dev server (Turbopack). SvelteKit 3 (a component, rendered on
// the server for each request): its build with the Node adapter, and its dev server. Astro 7 (a
// page's <script>): its static build served by `astro preview`, and its dev server. Bun's
// bundler (`bun build ./index.html`): the inline entry; the main entry, whose wasm it does not
// copy (the error names the ways out; copied, they work). `deno bundle` (esbuild underneath):
// the inline entry, and the main entry's error. The import on a server (Node, Deno, Bun), where
// it must do nothing.
// And React through modelcontext-polyfill/react in Vite's dev server (React 19 and 17), through
// modelcontext-polyfill/react/inline in webpack 4 (React 17, no Babel: Create React App 4's
// toolchain), and MCP-B's React hooks (@mcp-b/react-webmcp) on this polyfill in Vite; and
// the test runners' DOM emulations, where tests load the package from node_modules under Node:
// Vitest with jsdom and happy-dom, Jest with its jsdom environment (no MessageChannel there).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { freePort } from './lib/ports.mjs';
import { withPage, REPO_ROOT, CRATE_VERSION, requireDist } from './harness.mjs';
import { startStaticServer } from '../../scripts/lib/static-server.mjs';

const EXAMPLES = path.join(REPO_ROOT, 'examples', 'bundlers');
const WORK = path.join(REPO_ROOT, 'target', 'bundlers');
const PACKED = path.join(WORK, 'npm');
const TARBALL = path.join(PACKED, `modelcontext-polyfill-${CRATE_VERSION}.tgz`);
const VITE = new URL(`file://${path.join(REPO_ROOT, 'node_modules', 'vite', 'dist', 'node', 'index.js')}`).href;
const BIN = (name) => path.join(REPO_ROOT, 'node_modules', '.bin', name);

function run(cmd, args, cwd, env = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...env } });
  assert.equal(r.status, 0, `${path.basename(cmd)} ${args.join(' ')} failed in ${cwd}:\n${r.stdout}\n${r.stderr}`);
  return r;
}

before(() => {
  requireDist('modelcontext.js');
  // The tarball, packed from the current dist/ (what `make package` does).
  run(process.execPath, [path.join(REPO_ROOT, 'scripts', 'package.mjs'), '--no-check', '--out', PACKED], REPO_ROOT);
  assert.ok(fs.existsSync(TARBALL), TARBALL);
});

/**
 * Copies examples/bundlers/<example> to <root>/app (and shared/ to <root>/shared), the tarball
 * in its node_modules; returns the app's directory.
 */
function copyApp(root, example) {
  fs.mkdirSync(root, { recursive: true });
  fs.cpSync(path.join(EXAMPLES, 'shared'), path.join(root, 'shared'), { recursive: true });
  const dir = path.join(root, 'app');
  fs.cpSync(path.join(EXAMPLES, example), dir, { recursive: true });
  const pkg = path.join(dir, 'node_modules', 'modelcontext-polyfill');
  fs.mkdirSync(pkg, { recursive: true });
  run('tar', ['xzf', TARBALL, '-C', pkg, '--strip-components=1'], dir);
  return dir;
}

/**
 * Rewrites `file` of a copied example: each `[from, to]` once, in order; each `from` must be
 * there.
 */
function rewrite(file, ...pairs) {
  let text = fs.readFileSync(file, 'utf8');
  for (const [from, to] of pairs) {
    assert.ok(text.includes(from), `${path.relative(WORK, file)} has no ${from}`);
    text = text.replace(from, () => to);
  }
  fs.writeFileSync(file, text);
}

/** The `.bin` of a registry toolchain (registryApp), from its app's directory. */
const TOOLCHAIN_BIN = (dir, name) => path.join(dir, '..', 'node_modules', '.bin', name);
/** The runtimes' toolchain (tests/page/toolchains/runtimes.package-lock.json): Bun and Deno. */
const RUNTIMES = { bun: '1.4.5', deno: '2.9.6' };

/** A fresh copy of examples/bundlers/<tool> (and shared/) with the tarball in its node_modules. */
function app(tool, { main } = {}) {
  const root = path.join(WORK, `${tool}${main ? '-main' : ''}`);
  fs.rmSync(root, { recursive: true, force: true });
  const dir = copyApp(root, tool);
  if (main) toMainEntry(dir);
  return { dir, url: `/target/bundlers/${path.basename(root)}/app/` };
}

/** Rewrites a copied app whose src/ imports the inline entry to import the main one. */
function toMainEntry(dir) {
  const entry = fs.readdirSync(path.join(dir, 'src'))[0];
  rewrite(path.join(dir, 'src', entry), ["'modelcontext-polyfill/inline'", "'modelcontext-polyfill'"]);
}

/**
 * The error of an app at /target/bundlers/runtimes/app/ built with the main entry by a bundler
 * that copies no wasm file: the missing file, the bundlers that copy nothing, the ways out.
 */
const MISSING_BESIDE_RUNTIMES_APP = /^NotSupportedError: modelcontext-polyfill: the core module \S+\/target\/bundlers\/runtimes\/app\/dist\/modelcontext_glue_bg\.wasm could not be loaded: HTTP 404\b.*\(Angular's, esbuild, Bun's\) copy nothing: copy node_modules\/modelcontext-polyfill\/dist\/\*\.wasm there.*import 'modelcontext-polyfill\/inline'/;

/** Opens `url` (on the shared server, or absolute) and returns what the app showed. */
function result(url, { absolute = false } = {}) {
  return withPage(async ({ page, goto, consoleMessages }) => {
    if (absolute) await page.goto(url);
    else await goto(url);
    await page.waitForFunction(() => window.result, null, { timeout: 30_000 });
    return { result: await page.evaluate(() => window.result), errors: consoleMessages.filter((m) => m.type === 'error').map((m) => m.text) };
  }, { timeout: 30_000 });
}

// `add`'s schema is plain (checked by the core); `greet`'s has a pattern, which only the
// validator module checks: both wasm files must load from where the bundler put them.
// Then an McpClient calls `add` through the page's tab server: the client module's wasm too.
// Then a <form toolname> becomes a tool: the core's deferred module, which the form asks for
// (after the call module, which the client's call asks for).
const WORKS = { valid: '5', invalid: 'DataError', patternValid: 'hi ada', patternInvalid: 'DataError', viaClient: '42', formTool: 'subscribe' };

/**
 * Runs `fn(origin)` with Vite serving `dir`: its dev server (`dev`) or `vite preview` of dist/;
 * `config`: more of Vite's inline configuration; `entry`: another Vite's module.
 */
async function withVite(kind, dir, fn, config = {}, entry = VITE) {
  const vite = await import(entry);
  const where = { port: 0, host: '127.0.0.1' };
  const server = kind === 'dev'
    ? await vite.createServer({ root: dir, logLevel: 'silent', server: where, ...config })
    : await vite.preview({ root: dir, logLevel: 'silent', preview: where });
  if (kind === 'dev') await server.listen();
  try {
    return await fn(`http://127.0.0.1:${server.httpServer.address().port}`);
  } finally {
    await server.close();
  }
}

test('Vite build (no config): the five wasm files emitted; valid call resolves, invalid rejects with DataError, the client calls', async () => {
  const { dir } = app('vite');
  run(BIN('vite'), ['build', '--logLevel', 'warn'], dir);
  const assets = fs.readdirSync(path.join(dir, 'dist', 'assets'));
  assert.ok(assets.some((f) => /^modelcontext_glue_bg-.*\.wasm$/.test(f)), assets.join(' '));
  assert.ok(assets.some((f) => /^modelcontext_validator-.*\.wasm$/.test(f)), assets.join(' '));
  assert.ok(assets.some((f) => /^modelcontext_client_glue_bg-.*\.wasm$/.test(f)), assets.join(' '));
  assert.ok(assets.some((f) => /^modelcontext_deferred-.*\.wasm$/.test(f)), assets.join(' '));
  assert.ok(assets.some((f) => /^modelcontext_calls-.*\.wasm$/.test(f)), assets.join(' '));
  // Served by `vite preview`, as the app's users would.
  const r = await withVite('preview', dir, (origin) => result(`${origin}/`, { absolute: true }));
  assert.deepEqual(r.result, WORKS, r.errors.join('\n'));
});

test('Vite dev server (no config): a module imported after the polyfill sees document.modelContext; pre-bundled .vite/deps still find the five wasm files', async () => {
  const { dir } = app('vite');
  const r = await withVite('dev', dir, (origin) => result(`${origin}/`, { absolute: true }));
  assert.deepEqual(r.result, WORKS, r.errors.join('\n'));
});

/**
 * Builds app `tool` with `args` of its CLI (webpack's defaults: dist/main.js), then checks that
 * the five wasm files are beside the bundle, that no chunk holds a build-machine path, and that
 * the app's calls work.
 */
async function builtBesideMain(tool, args) {
  const { dir, url } = app(tool);
  run(BIN(tool), args, dir);
  const files = fs.readdirSync(path.join(dir, 'dist'));
  assert.equal(files.filter((f) => f.endsWith('.wasm')).length, 5, files.join(' '));
  for (const f of files.filter((f) => f.endsWith('.js'))) {
    assert.doesNotMatch(fs.readFileSync(path.join(dir, 'dist', f), 'utf8'), /file:\/\//, `${f} holds a file:// URL`);
  }
  const r = await result(url);
  assert.deepEqual(r.result, WORKS, r.errors.join('\n'));
}

test('webpack 5 (no config file): chunks and wasm beside dist/main.js; no build-machine path in the bundle', () =>
  builtBesideMain('webpack', ['--mode', 'production']));

test('Rspack (no config file): chunks and wasm beside dist/main.js; no build-machine path in the bundle', () =>
  builtBesideMain('rspack', ['build', '--mode', 'production']));

test('Parcel 2 (no config): the five wasm files emitted; valid call resolves, invalid rejects with DataError', async () => {
  const { dir, url } = app('parcel');
  run(BIN('parcel'), ['build', 'index.html', '--no-cache', '--cache-dir', path.join(dir, '.parcel-cache'), '--dist-dir', 'dist', '--public-url', './', '--log-level', 'warn'], dir);
  const files = fs.readdirSync(path.join(dir, 'dist'));
  assert.equal(files.filter((f) => f.endsWith('.wasm')).length, 5, files.join(' '));
  const r = await result(`${url}dist/`);
  assert.deepEqual(r.result, WORKS, r.errors.join('\n'));
});

test("Parcel 2 with the inline entry: Parcel reads no package exports unless told to, and finds the entry's own directory; nothing to copy", async () => {
  const { dir, url } = app('parcel');
  rewrite(path.join(dir, 'src', 'main.js'), ["import 'modelcontext-polyfill';", "import 'modelcontext-polyfill/inline';"]);
  run(BIN('parcel'), ['build', 'index.html', '--no-cache', '--dist-dir', 'dist', '--public-url', './', '--log-level', 'warn'], dir);
  const files = fs.readdirSync(path.join(dir, 'dist'));
  assert.deepEqual(files.filter((f) => f.endsWith('.wasm')), [], files.join(' '));
  const r = await result(`${url}dist/`);
  assert.deepEqual(r.result, WORKS, r.errors.join('\n'));
});

test('Rollup (node-resolve) with the inline entry: works with nothing to copy', async () => {
  const { dir, url } = app('rollup');
  run(BIN('rollup'), ['-c', '--silent'], dir);
  const r = await result(url);
  assert.deepEqual(r.result, WORKS, r.errors.join('\n'));
});

test('esbuild --bundle with the inline entry: works with nothing to copy', async () => {
  const { dir, url } = app('esbuild');
  run(BIN('esbuild'), ['src/main.js', '--bundle', '--outdir=dist', '--log-level=error'], dir);
  const r = await result(url);
  assert.deepEqual(r.result, WORKS, r.errors.join('\n'));
});

test('esbuild --bundle with the main entry: the object exists and the error names the inline entry', async () => {
  const { dir, url } = app('esbuild', { main: true });
  run(BIN('esbuild'), ['src/main.js', '--bundle', '--outdir=dist', '--log-level=error'], dir);
  const r = await result(url);
  assert.match(r.result.error, /^NotSupportedError: modelcontext-polyfill: the core module cannot be found: this bundle has no import\.meta\.url.*import 'modelcontext-polyfill\/inline'/);
  assert.equal(r.errors.filter((e) => e.startsWith('modelcontext-polyfill:')).length, 1, r.errors.join('\n'));
});

/**
 * A toolchain from the registry (`deps`: name → exact version) in target/bundlers/<name>/, for
 * what cannot share the repository's devDependencies, installed with `npm ci` from the lock file
 * tests/page/toolchains/<name>.package-lock.json (so its own dependencies cannot move under
 * the test) and kept there while the two stay the same; and beside it a fresh copy of
 * examples/bundlers/<example> (with shared/), the tarball in its node_modules. Returns the app's
 * directory (the toolchain is found by walking up from it). A new or changed toolchain's lock:
 * `npm install --package-lock-only` in a directory named <name> holding the manifest this writes.
 * `env`: for `npm ci` (modernNodeEnv() for a toolchain that needs a newer Node than this one).
 */
function registryApp(name, example, deps, env = {}) {
  const root = path.join(WORK, name);
  const manifest = JSON.stringify({ private: true, dependencies: deps }, null, 2);
  const lock = fs.readFileSync(path.join(REPO_ROOT, 'tests', 'page', 'toolchains', `${name}.package-lock.json`), 'utf8');
  assert.deepEqual(JSON.parse(lock).packages[''].dependencies, deps, `tests/page/toolchains/${name}.package-lock.json is not of these versions`);
  const same = (file, text) => fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text;
  const installed = same(path.join(root, 'package.json'), manifest) && same(path.join(root, 'package-lock.json'), lock) && fs.existsSync(path.join(root, 'node_modules', '.package-lock.json'));
  if (!installed) {
    fs.rmSync(root, { recursive: true, force: true });
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(path.join(root, 'package.json'), manifest);
    fs.writeFileSync(path.join(root, 'package-lock.json'), lock);
    run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], root, env);
  }
  for (const d of ['app', 'shared']) fs.rmSync(path.join(root, d), { recursive: true, force: true });
  return copyApp(root, example);
}

test('Vite 7 dev server, whose pre-bundled dependencies keep their new URL()s as written: from node_modules/.vite/deps/, and from node_modules/.cache/vite/client/deps/ where Nuxt keeps them, the five wasm files are found in the package', async () => {
  // (Vite 8 rewrites those URLs to the package's files itself.)
  const dir = registryApp('vite7', 'vite', { vite: '7.3.6' });
  const entry = new URL(`file://${path.join(dir, '..', 'node_modules', 'vite', 'dist', 'node', 'index.js')}`).href;
  for (const cacheDir of [path.join(dir, 'node_modules', '.vite'), path.join(dir, 'node_modules', '.cache', 'vite', 'client')]) {
    const r = await withVite('dev', dir, (origin) => result(`${origin}/`, { absolute: true }), { cacheDir }, entry);
    assert.deepEqual(r.result, WORKS, `${cacheDir}: ${r.errors.join('\n')}`);
    const bundled = fs.readFileSync(path.join(cacheDir, 'deps', 'modelcontext-polyfill.js'), 'utf8');
    assert.match(bundled, /new URL\(["']\.\/modelcontext_glue_bg\.wasm["'],\s*import\.meta\.url\)/, 'the URL as the package wrote it');
  }
});

/**
 * examples/bundlers/angular as a developer has it: Angular's toolchain (the example's own
 * package.json, the polyfill left out, and the webpack builder) from the registry
 * (registryApp: the repository's TypeScript 7 is too new for Angular 20). `assets: false` drops
 * angular.json's entry that copies the wasm files; `zoneless: true` makes the app zoneless (no
 * zone.js, whose presence makes the CLI rewrite every async function, the package's included, as
 * generators); `webpack: true` builds with Angular's webpack builder. Returns the app's
 * directory.
 */
function angularApp({ assets = true, zoneless = false, webpack = false, cache = true } = {}) {
  const { dependencies, devDependencies } = JSON.parse(fs.readFileSync(path.join(EXAMPLES, 'angular', 'package.json'), 'utf8'));
  // And Angular's webpack builder, which apps made before Angular 17 still build with.
  const toolchain = { ...dependencies, ...devDependencies, '@angular-devkit/build-angular': devDependencies['@angular/build'] };
  delete toolchain['modelcontext-polyfill'];
  const dir = registryApp('angular', 'angular', toolchain);
  const file = path.join(dir, 'angular.json');
  const config = JSON.parse(fs.readFileSync(file, 'utf8'));
  const options = config.projects.app.architect.build.options;
  if (!assets) delete options.assets;
  // Angular's cache, and with it the dev server's pre-bundling, is off by default where the
  // environment says CI (its `cli.cache.environment` is 'local'); stated here so that the tests
  // build the same on a developer's machine and in CI.
  config.cli = { ...config.cli, cache: cache ? { environment: 'all' } : { enabled: false } };
  if (webpack) {
    // The builder `ng new` made before Angular 17 (@angular-devkit/build-angular:browser): its
    // entry option is `main`, and it writes to outputPath itself (no browser/ directory).
    const build = config.projects.app.architect.build;
    build.builder = '@angular-devkit/build-angular:browser';
    options.main = options.browser;
    delete options.browser;
    options.outputPath = 'dist/browser';
    for (const c of Object.values(build.configurations)) {
      if (c.optimization === false) Object.assign(c, { buildOptimizer: false, vendorChunk: true, namedChunks: true });
    }
  }
  if (zoneless) {
    delete options.polyfills;
    rewrite(path.join(dir, 'src', 'main.ts'),
      ['provideZoneChangeDetection, ', 'provideZonelessChangeDetection, '],
      ['provideZoneChangeDetection({ eventCoalescing: true })', 'provideZonelessChangeDetection()']);
  }
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  return dir;
}

const NG = (dir) => TOOLCHAIN_BIN(dir, 'ng');
const NG_ENV = { NG_CLI_ANALYTICS: 'false', NO_COLOR: '1' };

/** `ng build` of the Angular app in `dir`, its dist/browser/ served by a static server for `fn(origin)`. */
async function withAngularBuild(dir, fn) {
  const r = spawnSync(NG(dir), ['build'], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...NG_ENV } });
  assert.equal(r.status, 0, `ng build failed:\n${r.stdout}\n${r.stderr}`);
  const server = await startStaticServer({ root: path.join(dir, 'dist', 'browser'), port: 0 });
  try {
    return await fn(server.origin);
  } finally {
    await server.close();
  }
}

/**
 * A framework app's results (the shared app's calls), the tools listed once its component
 * registered its own (`component_status`) and that tool's answer, and the console's errors.
 * (A dev server may build the page on its first request: a minute for all of it.)
 */
function componentAppResult(url) {
  return withPage(async ({ page, consoleMessages }) => {
    await page.goto(url, { timeout: 60_000 });
    await page.waitForFunction(() => window.result, null, { timeout: 60_000 });
    const result = await page.evaluate(() => window.result);
    if (result.error) return { result, errors: consoleMessages.filter((m) => m.type === 'error').map((m) => m.text) };
    await page.waitForFunction(async () => (await document.modelContext.getTools()).some((t) => t.name === 'component_status'));
    const tools = await page.evaluate(async () => (await document.modelContext.getTools()).map((t) => t.name).sort());
    const status = await page.evaluate(async () => {
      const tool = (await document.modelContext.getTools()).find((t) => t.name === 'component_status');
      return document.modelContext.executeTool(tool, {});
    });
    return { result, tools, status, errors: consoleMessages.filter((m) => m.type === 'error').map((m) => m.text) };
  }, { timeout: 90_000 });
}

/**
 * Asserts that the framework app at `origin` works: the shared app's calls, its component's
 * tool listed and answering, no console error. `more()`: text to add to a failure's message.
 */
async function assertComponentAppWorks(origin, more = () => '') {
  const r = await componentAppResult(`${origin}/`);
  assert.deepEqual(r.result, WORKS, `${r.errors.join('\n')}\n${more()}`);
  assert.deepEqual(r.tools, ['add', 'component_status', 'greet', 'subscribe']);
  assert.equal(r.status, 'component_status registered');
  assert.deepEqual(r.errors, []);
}

/**
 * Starts `cmd args` in `dir` (a dev server, an app's server), waits until its output names its
 * URL, runs `fn(origin, output)` and stops it, its children included (its process group).
 */
async function withServerProcess(cmd, args, dir, env, fn) {
  const child = spawn(cmd, args, { cwd: dir, env: { ...process.env, NO_COLOR: '1', ...env }, detached: true });
  let output = '';
  try {
    const origin = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${path.basename(cmd)} did not start:\n${output}`)), 120_000);
      const seen = (chunk) => {
        output += chunk;
        const m = /(http:\/\/(?:127\.0\.0\.1|localhost):\d+)/.exec(output.replace(/\x1b\[[0-9;]*m/g, ''));
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      child.stdout.on('data', seen);
      child.stderr.on('data', seen);
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${path.basename(cmd)} exited (${code}):\n${output}`));
      });
    });
    return await fn(origin, () => output);
  } finally {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // (already gone)
    }
  }
}

test("Angular 20 (ng build, the example's assets entry, zone.js): the five wasm files beside the bundle; the calls work; a component's tool", async () => {
  const dir = angularApp();
  await withAngularBuild(dir, async (origin) => {
    const files = fs.readdirSync(path.join(dir, 'dist', 'browser'));
    assert.equal(files.filter((f) => f.endsWith('.wasm')).length, 5, files.join(' '));
    await assertComponentAppWorks(origin);
  });
});

test('Angular 20 (ng build without the assets entry): the error names the entry to add and the inline import', async () => {
  const dir = angularApp({ assets: false });
  await withAngularBuild(dir, async (origin) => {
    assert.deepEqual(fs.readdirSync(path.join(dir, 'dist', 'browser')).filter((f) => f.endsWith('.wasm')), []);
    const r = await componentAppResult(`${origin}/`);
    assert.match(r.result.error, /^NotSupportedError: modelcontext-polyfill: the core module http:\/\/[^ ]+\/modelcontext_glue_bg\.wasm could not be loaded: HTTP 404/);
    assert.match(r.result.error, /\{ "glob": "\*\.wasm", "input": "node_modules\/modelcontext-polyfill\/dist", "output": "\/" \} to the build's "assets"/);
    assert.match(r.result.error, /import 'modelcontext-polyfill\/inline'/);
    assert.equal(r.errors.filter((e) => e.startsWith('modelcontext-polyfill:')).length, 1, r.errors.join('\n'));
  });
});

// One build for both cases: the three URLs set in src/index.html as the error tells a user to,
// then taken out of the built index.html for the page that shows the error.
test("Angular's webpack builder (build-angular:browser) with the assets entry: it writes the build machine's path where the package's URL belongs, and the error says so and the ways out; with the three URLs set in index.html the calls work", async () => {
  const dir = angularApp({ webpack: true });
  const urls = "modelContextPolyfillConfig = { coreUrl: 'modelcontext_glue_bg.wasm', validatorUrl: 'modelcontext_validator.wasm', clientUrl: 'modelcontext_client_glue_bg.wasm' };";
  rewrite(path.join(dir, 'src', 'index.html'), ['</head>', `<script>${urls}</script>\n</head>`]);
  await withAngularBuild(dir, async (origin) => {
    const out = path.join(dir, 'dist', 'browser');
    await assertComponentAppWorks(origin);

    const bundle = fs.readdirSync(out).filter((f) => f.endsWith('.js'));
    assert.ok(bundle.some((f) => fs.readFileSync(path.join(out, f), 'utf8').includes('file:///')), 'the builder still writes file: URLs');
    const unset = fs.readFileSync(path.join(out, 'index.html'), 'utf8').replace(`<script>${urls}</script>`, '');
    assert.doesNotMatch(unset, /modelContextPolyfillConfig/);
    fs.writeFileSync(path.join(out, 'unset.html'), unset);
    const r = await componentAppResult(`${origin}/unset.html`);
    assert.match(r.result.error, /^NotSupportedError: modelcontext-polyfill: the core module file:\/\/\/.*\/modelcontext_glue_bg\.wasm could not be loaded: .*It is a file: URL in a page served over http\(s\): the bundler wrote the path/);
    assert.match(r.result.error, /set modelContextPolyfillConfig\.coreUrl, validatorUrl and clientUrl to their URLs before the polyfill loads, or import 'modelcontext-polyfill\/inline'/);
    assert.doesNotMatch(r.result.error, /opened from disk/);
  });
});

test("Angular 20 dev server (ng serve, no assets entry, zoneless): the dependencies pre-bundled in .angular/cache still find the five wasm files", async () => {
  const dir = angularApp({ assets: false, zoneless: true });
  await withServerProcess(NG(dir), ['serve', '--port', '0', '--host', '127.0.0.1'], dir, NG_ENV, async (origin, output) => {
    await assertComponentAppWorks(origin, output);
  });
});

test("Angular 20 dev server with its cache off (as in CI) and the example's assets entry: nothing pre-bundled, the wasm files served from the assets; the calls work", async () => {
  const dir = angularApp({ zoneless: true, cache: false });
  await withServerProcess(NG(dir), ['serve', '--port', '0', '--host', '127.0.0.1'], dir, NG_ENV, async (origin, output) => {
    await assertComponentAppWorks(origin, output);
    assert.match(output(), /Prebundling has been configured but will not be used/);
  });
});

test('webpack 4 (which reads neither package exports nor import.meta) with modelcontext-polyfill/inline: it builds, nothing to copy; the calls work', async () => {
  const { devDependencies } = JSON.parse(fs.readFileSync(path.join(EXAMPLES, 'webpack4', 'package.json'), 'utf8'));
  const dir = registryApp('webpack4', 'webpack4', devDependencies);
  // Node 17 and later need this for webpack 4's md4 hashes (the example's build script sets it).
  run(TOOLCHAIN_BIN(dir, 'webpack'), ['--mode', 'production'], dir, { NODE_OPTIONS: '--openssl-legacy-provider' });
  const files = fs.readdirSync(path.join(dir, 'dist'));
  assert.deepEqual(files.filter((f) => f.endsWith('.wasm')), [], 'the inline entry has its modules inside');
  assert.ok(files.length > 1, `the core is a chunk of its own: ${files.join(' ')}`);
  const r = await result('/target/bundlers/webpack4/app/');
  assert.deepEqual(r.result, WORKS, r.errors.join('\n'));
});

/**
 * examples/bundlers/<name> with its toolchain from the registry: the example's own pinned
 * dependencies (Nuxt and Vue; Next.js and React), the package aside.
 */
function frameworkApp(name, env = {}) {
  const { dependencies } = JSON.parse(fs.readFileSync(path.join(EXAMPLES, name, 'package.json'), 'utf8'));
  const toolchain = { ...dependencies };
  delete toolchain['modelcontext-polyfill'];
  return registryApp(name, name, toolchain, env);
}

const NUXI = (dir) => TOOLCHAIN_BIN(dir, 'nuxi');
const NUXT_ENV = { NUXT_TELEMETRY_DISABLED: '1' };

test('Nuxt 3 (nuxi build, the Nitro server): the five wasm files emitted; the calls work; a component\'s tool', async () => {
  const dir = frameworkApp('nuxt');
  run(NUXI(dir), ['build'], dir);
  const assets = fs.readdirSync(path.join(dir, '.output', 'public', '_nuxt'));
  assert.equal(assets.filter((f) => f.endsWith('.wasm')).length, 5, assets.join(' '));
  await withServerProcess(process.execPath, ['.output/server/index.mjs'], dir, { ...NUXT_ENV, HOST: '127.0.0.1', PORT: '0' }, async (origin) => {
    await assertComponentAppWorks(origin);
  });
});

test('Nuxt 3 dev server (nuxi dev, Vite 7): the package pre-bundled in node_modules/.cache/vite/client/deps/ still finds the five wasm files', async () => {
  const dir = frameworkApp('nuxt');
  await withServerProcess(NUXI(dir), ['dev', '--host', '127.0.0.1', '--port', '0'], dir, NUXT_ENV, async (origin, output) => {
    await assertComponentAppWorks(origin, output);
    assert.ok(fs.readdirSync(path.join(dir, 'node_modules', '.cache', 'vite', 'client', 'deps')).includes('modelcontext-polyfill.js'), 'pre-bundled there');
  });
});

const NEXT = (dir) => TOOLCHAIN_BIN(dir, 'next');
// NODE_ENV as each command expects it: the Vite the tests above run in this process sets this
// process's, and `next build` under 'development' fails to prerender.
const NEXT_ENV = { NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' };
const NEXT_DEV_ENV = { ...NEXT_ENV, NODE_ENV: 'development' };

for (const [bundler, flags] of [['Turbopack', []], ['webpack', ['--webpack']]]) {
  test(`Next.js 16 (next build with ${bundler}, next start): the page prerendered on the server (where the import runs without a document), the five wasm files emitted; the calls work; a component's tool`, async () => {
    const dir = frameworkApp('next');
    run(NEXT(dir), ['build', ...flags], dir, NEXT_ENV);
    const media = fs.readdirSync(path.join(dir, '.next', 'static', 'media')).filter((f) => f.endsWith('.wasm'));
    assert.equal(media.length, 5, media.join(' '));
    const prerendered = fs.readFileSync(path.join(dir, '.next', 'server', 'app', 'index.html'), 'utf8');
    assert.match(prerendered, /<p>registering<\/p>/, 'the server rendered the component');
    await withServerProcess(NEXT(dir), ['start', '-H', '127.0.0.1', '-p', '0'], dir, NEXT_ENV, (origin) => assertComponentAppWorks(origin));
  });
}

test('Next.js 16 dev server (next dev, Turbopack): the five wasm files found; the calls work; a component\'s tool, under React\'s StrictMode', async () => {
  const dir = frameworkApp('next');
  await withServerProcess(NEXT(dir), ['dev', '-H', '127.0.0.1', '-p', '0'], dir, NEXT_DEV_ENV, (origin, output) => assertComponentAppWorks(origin, output));
});

// SvelteKit 3 and Astro 7 need Node 22.12 or later: their toolchains are installed and run with
// Node 24 from scripts/modern-node.sh (first on PATH: `node` is Node 24, `npm` this machine's).
let modernNode = null;
function modernNodeEnv() {
  if (!modernNode) {
    const node = run(path.join(REPO_ROOT, 'scripts', 'modern-node.sh'), [], REPO_ROOT).stdout.trim();
    const bin = path.join(path.dirname(node), '..', '..', 'bin');
    assert.equal(fs.realpathSync(path.join(bin, 'node')), fs.realpathSync(node));
    modernNode = { PATH: `${bin}${path.delimiter}${process.env.PATH}` };
  }
  return modernNode;
}

/** The page at `origin` as the server sends it (before any script runs). */
async function serverHtml(origin) {
  const r = await fetch(`${origin}/`);
  assert.equal(r.status, 200, `${origin}/ answered ${r.status}`);
  return r.text();
}

// Run through `node <bin>` so that the toolchain's Node is the one on PATH, whatever the bin's
// shebang finds first.
const VITE_JS = (dir) => path.join(dir, '..', 'node_modules', 'vite', 'bin', 'vite.js');
const ASTRO_JS = (dir) => path.join(dir, '..', 'node_modules', 'astro', 'bin', 'astro.mjs');
const ASTRO_ENV = { ASTRO_TELEMETRY_DISABLED: '1' };

test('SvelteKit 3 (vite build with adapter-node, node build): the page rendered on the server for each request (where the import runs without a document), the five wasm files emitted; the calls work; a component\'s tool', async () => {
  const env = modernNodeEnv();
  const dir = frameworkApp('sveltekit', env);
  run('node', [VITE_JS(dir), 'build', '--logLevel', 'error'], dir, env);
  const assets = fs.readdirSync(path.join(dir, 'build', 'client', '_app', 'immutable', 'assets'));
  assert.equal(assets.filter((f) => f.endsWith('.wasm')).length, 5, assets.join(' '));
  const port = String(await freePort());
  await withServerProcess('node', ['build'], dir, { ...env, HOST: '127.0.0.1', PORT: port }, async (origin) => {
    assert.match(await serverHtml(origin), /<p>registering<\/p>/, 'the server rendered the component');
    await assertComponentAppWorks(origin);
  });
});

test('SvelteKit 3 dev server (vite dev): the page rendered on the server through Vite, the package pre-bundled for the browser; the five wasm files found; the calls work; a component\'s tool', async () => {
  const env = modernNodeEnv();
  const dir = frameworkApp('sveltekit', env);
  const port = String(await freePort());
  await withServerProcess('node', [VITE_JS(dir), 'dev', '--host', '127.0.0.1', '--port', port, '--strictPort'], dir, env, async (origin, output) => {
    assert.match(await serverHtml(origin), /<p>registering<\/p>/, 'the server rendered the component');
    await assertComponentAppWorks(origin, output);
    assert.ok(fs.readdirSync(path.join(dir, 'node_modules', '.vite', 'deps')).includes('modelcontext-polyfill.js'), 'pre-bundled there');
  });
});

test('Astro 7 (astro build, astro preview): a static page whose <script> imports the package; the five wasm files emitted; the calls work; the page\'s tool', async () => {
  const env = { ...modernNodeEnv(), ...ASTRO_ENV };
  const dir = frameworkApp('astro', env);
  run('node', [ASTRO_JS(dir), 'build', '--silent'], dir, env);
  const assets = fs.readdirSync(path.join(dir, 'dist', '_astro'));
  assert.equal(assets.filter((f) => f.endsWith('.wasm')).length, 5, assets.join(' '));
  const port = String(await freePort());
  await withServerProcess('node', [ASTRO_JS(dir), 'preview', '--host', '127.0.0.1', '--port', port], dir, env, (origin) => assertComponentAppWorks(origin));
});

test('Astro 7 dev server (astro dev): the package pre-bundled by Vite; the five wasm files found; the calls work; the page\'s tool', async () => {
  const env = { ...modernNodeEnv(), ...ASTRO_ENV };
  const dir = frameworkApp('astro', env);
  const port = String(await freePort());
  await withServerProcess('node', [ASTRO_JS(dir), 'dev', '--host', '127.0.0.1', '--port', port], dir, env, (origin, output) => assertComponentAppWorks(origin, output));
});

test("Bun 1's bundler (bun build ./index.html): with the inline entry, nothing to copy; with the main entry it copies no wasm file, the error names the file and the ways out, and the files copied beside the bundle work", async () => {
  const build = (dir) => run(TOOLCHAIN_BIN(dir, 'bun'), ['build', './index.html', '--outdir', 'dist'], dir);
  const wasmIn = (dir) => fs.readdirSync(path.join(dir, 'dist')).filter((f) => f.endsWith('.wasm'));
  const url = '/target/bundlers/runtimes/app/dist/';

  let dir = registryApp('runtimes', 'bun', RUNTIMES);
  build(dir);
  assert.deepEqual(wasmIn(dir), []);
  let r = await result(url);
  assert.deepEqual(r.result, WORKS, r.errors.join('\n'));

  dir = registryApp('runtimes', 'bun', RUNTIMES);
  toMainEntry(dir);
  build(dir);
  assert.deepEqual(wasmIn(dir), [], 'Bun copied a wasm file: the main entry is then what this app should use');
  r = await result(url);
  assert.match(r.result.error, MISSING_BESIDE_RUNTIMES_APP);
  const shipped = path.join(dir, 'node_modules', 'modelcontext-polyfill', 'dist');
  for (const f of fs.readdirSync(shipped).filter((f) => f.endsWith('.wasm'))) fs.copyFileSync(path.join(shipped, f), path.join(dir, 'dist', f));
  assert.equal(wasmIn(dir).length, 5);
  r = await result(url);
  assert.deepEqual(r.result, WORKS, r.errors.join('\n'));
});

test("Deno 2's bundle (deno bundle --platform browser, esbuild underneath): with the inline entry, nothing to copy; with the main entry the error names the missing file and the ways out", async () => {
  const build = (dir) => run(TOOLCHAIN_BIN(dir, 'deno'), ['bundle', '--platform', 'browser', '-o', 'dist/main.js', 'src/main.js'], dir, { DENO_NO_UPDATE_CHECK: '1' });
  const url = '/target/bundlers/runtimes/app/';

  let dir = registryApp('runtimes', 'deno', RUNTIMES);
  build(dir);
  assert.deepEqual(fs.readdirSync(path.join(dir, 'dist')), ['main.js']);
  let r = await result(url);
  assert.deepEqual(r.result, WORKS, r.errors.join('\n'));

  dir = registryApp('runtimes', 'deno', RUNTIMES);
  toMainEntry(dir);
  build(dir);
  assert.deepEqual(fs.readdirSync(path.join(dir, 'dist')), ['main.js']);
  r = await result(url);
  assert.match(r.result.error, MISSING_BESIDE_RUNTIMES_APP);
});

test('on a server (examples/bundlers/ssr: Node, Deno 2, Bun 1): importing either entry installs nothing, fetches nothing and throws nothing; ready rejects saying why', () => {
  const dir = registryApp('runtimes', 'ssr', RUNTIMES);
  const why = 'modelcontext-polyfill: nothing is installed here (no document and no worker scope)';
  const expected = {
    'modelcontext-polyfill': { ready: why, McpClient: 'undefined' },
    'modelcontext-polyfill/inline': { ready: why, McpClient: 'undefined' },
    installed: 'undefined',
    navigatorModelContext: 'undefined',
    newGlobals: 0,
  };
  // Deno with no permission at all: a fetch or a file read would fail.
  for (const [runtime, cmd, args] of [
    ['Node', process.execPath, ['main.js']],
    ['Deno', TOOLCHAIN_BIN(dir, 'deno'), ['run', '--no-prompt', 'main.js']],
    ['Bun', TOOLCHAIN_BIN(dir, 'bun'), ['main.js']],
  ]) {
    const r = run(cmd, args, dir, { NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' });
    assert.equal(r.stderr, '', `${runtime}: ${r.stderr}`);
    assert.deepEqual(JSON.parse(r.stdout), expected, runtime);
  }
});

/**
 * The checks of examples/bundlers/react at `origin` (a counter whose tool useTool registers, under
 * StrictMode): one registration, the call's state for the UI, invalid input refused, a remount
 * and an unmount; no failed request and no console error.
 */
function assertCounterAppWorks(origin) {
  return withPage(async ({ page, consoleMessages }) => {
    const failed = [];
    page.on('response', (r) => r.status() >= 400 && failed.push(new URL(r.url()).pathname));
    await page.goto(`${origin}/`);
    const text = () => page.textContent('#root');
    await page.waitForFunction(() => document.getElementById('counter'));
    const tools = () => page.evaluate(async () => (await document.modelContext.getTools()).map((t) => t.name));
    await page.waitForFunction(async () => (await document.modelContext.getTools()).length > 0);
    assert.deepEqual(await tools(), ['increment'], 'registered once under StrictMode');

    const call = (input) => page.evaluate(async (input) => {
      const tool = (await document.modelContext.getTools()).find((t) => t.name === 'increment');
      return document.modelContext.executeTool(tool, input).then((v) => v, (e) => e.name);
    }, input);
    assert.equal(await call({ n: 2 }), 'added 2');
    await page.waitForFunction(() => document.getElementById('counter').textContent.includes('calls=1'));
    assert.equal(await text(), 'count=2 running=false last=added 2 error= calls=1');
    assert.equal(await call({ n: 'two' }), 'DataError');
    assert.equal(await text(), 'count=2 running=false last=added 2 error= calls=1', 'invalid input never reaches execute');

    // A running call shows in the state.
    const pending = call({ n: 99 });
    await page.waitForFunction(() => document.getElementById('counter').textContent.includes('running=true'));
    await page.evaluate(() => window.finish());
    assert.equal(await pending, 'added 99');
    await page.waitForFunction(() => document.getElementById('counter').textContent.includes('running=false last=added 99'));

    // Remounting (what hot reload does) several times at once: never "already registered".
    await page.evaluate(() => { window.remount(); window.remount(); window.remount(); });
    await page.waitForFunction(() => document.getElementById('counter').textContent.includes('calls=0'));
    assert.deepEqual(await tools(), ['increment']);
    assert.equal(await call({ n: 1 }), 'added 1');

    // Unmount: the tool goes away.
    await page.evaluate(() => window.toggle());
    await page.waitForFunction(() => document.getElementById('gone'));
    assert.deepEqual(await tools(), []);
    // No failed request (none of Vite's .vite/deps/ misses) and no console error.
    assert.deepEqual(failed, []);
    assert.deepEqual(consoleMessages.filter((m) => m.type === 'error').map((m) => m.text), []);
  }, { timeout: 30_000 });
}

test('React (modelcontext-polyfill/react) in Vite dev under StrictMode: one registration, call state for UI, remount and unmount', async () => {
  const { dir } = app('react');
  // React and react-dom come from the repository's node_modules (devDependencies).
  await withVite('dev', dir, assertCounterAppWorks);
});

test('React 17 (ReactDOM.render; the peer range takes React 16.8 and later) in Vite dev under StrictMode: the same checks', async () => {
  // React 17 from the registry (a lock file, as the other toolchains): the example's app with
  // React 17's root API instead of createRoot.
  const dir = registryApp('react17', 'react', { react: '17.0.2', 'react-dom': '17.0.2' });
  const main = path.join(dir, 'src', 'main.js');
  rewrite(main,
    ["import { createRoot } from 'react-dom/client';", "import { render } from 'react-dom';"],
    ["createRoot(document.getElementById('root')).render(h(StrictMode, null, h(App)));", "render(h(StrictMode, null, h(App)), document.getElementById('root'));"]);
  assert.ok(!fs.readFileSync(main, 'utf8').includes('createRoot'), 'no createRoot left');
  await withVite('dev', dir, assertCounterAppWorks);
});

test('React 17 with webpack 4 (Create React App 4\'s toolchain) and modelcontext-polyfill/react/inline: it builds without Babel, nothing to copy; the same checks', async () => {
  const { dependencies, devDependencies } = JSON.parse(fs.readFileSync(path.join(EXAMPLES, 'webpack4-react', 'package.json'), 'utf8'));
  const toolchain = { ...dependencies, ...devDependencies };
  delete toolchain['modelcontext-polyfill'];
  const dir = registryApp('webpack4-react', 'webpack4-react', toolchain);
  run(TOOLCHAIN_BIN(dir, 'webpack'), ['--mode', 'production'], dir, { NODE_OPTIONS: '--openssl-legacy-provider' });
  const files = fs.readdirSync(path.join(dir, 'dist'));
  assert.deepEqual(files.filter((f) => f.endsWith('.wasm')), [], 'the inline entry has its modules inside');
  const server = await startStaticServer({ root: dir, port: 0 });
  try {
    await assertCounterAppWorks(server.origin);
  } finally {
    await server.close();
  }
});

test("MCP-B's React hooks (@mcp-b/react-webmcp) on this polyfill, in Vite dev under StrictMode: one registration, the call's result and state, invalid input refused, an MCP client's call, unmount", async () => {
  const { dir } = app('react-webmcp');
  await withVite('dev', dir, async (origin) => {
    await withPage(async ({ page, consoleMessages }) => {
      await page.goto(`${origin}/`);
      await page.waitForFunction(async () => document.getElementById('counter') && (await document.modelContext.getTools()).length > 0);
      const r = await page.evaluate(async () => {
        const mc = document.modelContext;
        const tools = await mc.getTools();
        const tool = tools.find((t) => t.name === 'increment');
        const outcome = (p) => p.then((v) => v, (e) => e.name);
        const out = {
          names: tools.map((t) => t.name),
          schema: tool.inputSchema,
          valid: JSON.parse(await mc.executeTool(tool, { by: 2 })),
          invalid: await outcome(mc.executeTool(tool, { by: 'two' })),
        };
        // The same tool over MCP: the package's client on the tab transport (the classes from
        // the polyfill's record, as the app's bundle holds its named exports).
        const record = globalThis[Symbol.for('modelcontext-polyfill')];
        await record.ready;
        const { McpClient, TabClientTransport } = record.client;
        const client = new McpClient(new TabClientTransport({ targetOrigin: location.origin }));
        await client.connect();
        out.viaMcp = await client.callTool('increment', { by: 3 });
        await client.close();
        return out;
      });
      assert.deepEqual(r, {
        names: ['increment'],
        schema: { type: 'object', properties: { by: { type: 'integer' } }, required: ['by'] },
        valid: { content: [{ type: 'text', text: '{"added":2}' }], structuredContent: { added: 2 }, isError: false },
        invalid: 'DataError',
        viaMcp: { content: [{ type: 'text', text: '{"added":3}' }], structuredContent: { added: 3 } },
      });
      await page.waitForFunction(() => document.getElementById('counter').textContent === 'count=5 calls=2');
      await page.evaluate(() => window.toggle());
      await page.waitForFunction(() => document.getElementById('gone'));
      assert.deepEqual(await page.evaluate(async () => (await document.modelContext.getTools()).length), 0);
      assert.deepEqual(consoleMessages.filter((m) => m.type === 'error').map((m) => m.text), []);
    }, { timeout: 30_000 });
  });
});

/**
 * Runs a test runner's `args` (`cmd`, in app `dir`) with a JSON report: each test as
 * `file: title: status`, with the first line of its first failure; and the run's status.
 * NODE_ENV is left unset, as a developer's shell has it (the runners make it 'test'): Vite, run
 * in this process by the tests above, set it to 'production', where React has no act().
 */
function runnerResults(name, cmd, args, dir) {
  const report = path.join(dir, 'report.json');
  const env = { ...process.env, NO_COLOR: '1' };
  delete env.NODE_ENV;
  const r = spawnSync(cmd, [...args, `--outputFile=${report}`], { cwd: dir, encoding: 'utf8', env });
  assert.ok(fs.existsSync(report), `${name} wrote no report (status ${r.status}):\n${r.stdout}\n${r.stderr}`);
  const results = JSON.parse(fs.readFileSync(report, 'utf8')).testResults.flatMap((file) =>
    file.assertionResults.map((a) => `${path.basename(file.name)}: ${a.title}: ${a.status}${a.failureMessages.length ? ` (${a.failureMessages[0].split('\n')[0]})` : ''}`));
  return { results, status: r.status, stderr: r.stderr };
}

test('Vitest (jsdom and happy-dom): a component tool an agent calls, an McpClient over a MessageChannel, the tab transport refused with the way out', () => {
  const { dir } = app('vitest');
  // Node reads the wasm files with process.getBuiltinModule (its fetch() does not read file:).
  assert.equal(typeof process.getBuiltinModule, 'function', `Node ${process.version} has no process.getBuiltinModule (20.16 and later have)`);
  const r = runnerResults('vitest', BIN('vitest'), ['run', '--reporter=json'], dir);
  const titles = [
    'an agent increments the counter through document.modelContext',
    'an McpClient lists and calls the page tools over a MessageChannel',
    'the tab transport, which a DOM emulation cannot carry, names the MessageChannel way',
  ];
  assert.deepEqual(r.results.sort(), ['counter.happy-dom.test.js', 'counter.test.js'].flatMap((f) => titles.map((t) => `${f}: ${t}: passed`)).sort());
  assert.equal(r.status, 0, r.stderr);
});

test('Jest (native ES modules, jsdom): a tool through executeTool, an McpClient over a MessageChannel', () => {
  const { dir } = app('jest');
  const r = runnerResults('jest', process.execPath, ['--experimental-vm-modules', BIN('jest'), '--json'], dir);
  assert.deepEqual(r.results, [
    'tools.test.js: a tool registered on document.modelContext runs through executeTool: passed',
    'tools.test.js: an McpClient calls it over a MessageChannel: passed',
  ]);
  assert.equal(r.status, 0, r.stderr);
});

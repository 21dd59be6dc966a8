// The front (polyfill/src/install.js, model_context.js, wasm_fetch.js): the object exists at
// once in both builds; calls made before the core has loaded wait for it, in order, and then
// behave as they always do; when the core cannot load (a Content-Security-Policy without
// 'wasm-unsafe-eval', a 404, an HTML page instead of wasm, no WebAssembly) the object stays and
// every call fails with one error naming the cause and the fix, shown once on the console.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withPage, requireDist, inlinePage, getServer, DIST_DIR } from './harness.mjs';
import { REPO_ROOT } from '../../scripts/lib/project.mjs';
import { startStaticServer } from '../../scripts/lib/static-server.mjs';
import { heapSnapshot } from '../../scripts/lib/heap-snapshot.mjs';
import { tabAsk } from '../../scripts/lib/bench-page.mjs';

requireDist('modelcontext.js', 'modelcontext_core.js', 'modelcontext.iife.js', 'modelcontext.inline.iife.js');

const CORE_WASM = 'modelcontext_glue_bg.wasm';
const BUILDS = {
  classic: '<script src="/dist/modelcontext.iife.js"></script>',
  ESM: `<script type="module">import '/dist/modelcontext.js';</script>`,
};
const TYPED = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };

// Page code: every kind of call, made at once, recorded in order of settlement.
const EARLY_CALLS = `
  window.log = [];
  const mc = document.modelContext;
  window.early = { exists: mc instanceof ModelContext, connected: mc.isConnected(), testing: navigator.modelContextTesting.listTools().length };
  const note = (what) => (v) => log.push([what, v === undefined ? 'undefined' : v]);
  const fail = (what) => (e) => log.push([what, e.name]);
  mc.registerTool({ name: 'typed', description: 'T', inputSchema: ${JSON.stringify(TYPED)}, execute: ({ n }) => 'n=' + n }).then(note('registered typed'), fail('registered typed'));
  const offB = mc.registerTool('b', { description: 'B', handler: () => 'b' });
  mc.registerTool('c', { description: 'C', handler: () => 'c' });
  offB();
  mc.registerTool({ name: 'bad name!', description: 'x', execute() {} }).then(note('bad'), fail('bad'));
  mc.getTools().then((tools) => {
    log.push(['tools', tools.map((t) => t.name)]);
    const typed = tools.find((t) => t.name === 'typed');
    return Promise.all([
      mc.executeTool(typed, { n: 1 }).then(note('valid'), fail('valid')),
      mc.executeTool(typed, { n: 'x' }).then(note('invalid'), fail('invalid')),
    ]);
  }).then(() => { window.done = true; });
`;

for (const [build, tag] of Object.entries(BUILDS)) {
  test(`${build} build: calls made before the core has loaded wait for it, in order, then behave as always`, () =>
    withPage(async ({ page, context, goto }) => {
      let release;
      const held = new Promise((r) => (release = r));
      await context.route(`**/${CORE_WASM}`, async (route) => {
        await held;
        await route.continue();
      });
      const app = `${tag}<script type="module">${EARLY_CALLS}</script>`;
      await goto(await inlinePage(app));
      await page.waitForFunction(() => window.early);
      // The core is held back: nothing has settled, the object is there.
      await page.evaluate(() => new Promise((r) => setTimeout(r, 200)));
      assert.deepEqual(await page.evaluate(() => ({ early: window.early, log: window.log })),
        { early: { exists: true, connected: false, testing: 0 }, log: [] });
      release();
      // Every call settles (the registration's promise may settle after the calls: it waits for a
      // queued task, and calls of a tool with a plain schema wait for nothing).
      await page.waitForFunction(() => window.done === true && window.log.length === 5);
      const log = await page.evaluate(() => window.log);
      assert.deepEqual(Object.fromEntries(log), {
        'registered typed': 'undefined',
        bad: 'InvalidStateError',
        tools: ['c', 'typed'],
        valid: 'n=1',
        invalid: 'DataError',
      });
      assert.equal(log.length, 5);
      // Once loaded, calls go straight to the engine again.
      assert.equal(await page.evaluate(() => document.modelContext.isConnected()), true);
      assert.equal(await page.evaluate(() => navigator.modelContextTesting.listTools().length), 2);
    }));
}

for (const [build, tag] of Object.entries(BUILDS)) {
  test(`${build} build: the front asks for the core script, the glue and the core wasm at once (none waits for another)`, () =>
    withPage(async ({ page, context, goto }) => {
      // The core script is held back: the glue and the wasm must be asked for all the same.
      let release;
      const held = new Promise((r) => (release = r));
      const asked = [];
      await context.route('**/dist/modelcontext_*', async (route) => {
        const file = new URL(route.request().url()).pathname.split('/').pop();
        asked.push(file);
        if (file === 'modelcontext_core.js') await held;
        await route.continue();
      });
      await goto(await inlinePage(tag));
      await page.waitForFunction(() => document.modelContext);
      const deadline = Date.now() + 10_000;
      while (!(asked.includes('modelcontext_glue.js') && asked.includes(CORE_WASM)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.deepEqual([...asked].sort(), ['modelcontext_core.js', 'modelcontext_glue.js', CORE_WASM].sort());
      assert.equal(await page.evaluate(() => document.modelContext.isConnected()), false);
      release();
      await page.evaluate(() => globalThis[Symbol.for('modelcontext-polyfill')].ready);
      await page.evaluate(() => document.modelContext.registerTool({ name: 'after', description: 'A', execute: () => 'ok' }));
      assert.deepEqual(await page.evaluate(() => navigator.modelContextTesting.listTools().map((t) => t.name)), ['after']);
    }));
}

test('a bad session-API definition queued before the core loaded is reported on the console, and the next call is served', () =>
  withPage(async ({ page, context, goto, consoleMessages }) => {
    let release;
    const held = new Promise((r) => (release = r));
    await context.route(`**/${CORE_WASM}`, async (route) => {
      await held;
      await route.continue();
    });
    await goto(await inlinePage(`${BUILDS.classic}<script>
      document.modelContext.registerTool('bad name!', { description: 'x', handler() {} });
      document.modelContext.registerTool('good', { description: 'ok', handler: () => 'fine' });
    </script>`));
    release();
    const names = await page.evaluate(async () => (await document.modelContext.getTools()).map((t) => t.name));
    assert.deepEqual(names, ['good']);
    const errors = consoleMessages.filter((m) => m.type === 'error').map((m) => m.text);
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(errors[0], /registerTool \(called before the core had loaded\) failed: .*bad name!/);
  }));

/** What page code sees of a polyfill whose core could not load (evaluated in the page). */
async function observeFailure() {
  const mc = document.modelContext;
  const outcome = (p) => p.then(() => 'resolved', (e) => ({ name: e.name, message: e.message }));
  const thrown = (fn) => { try { fn(); return 'returned'; } catch (e) { return { name: e.name, message: e.message }; } };
  return {
    exists: mc instanceof ModelContext && mc === navigator.modelContext,
    register: await outcome(mc.registerTool({ name: 't', description: 'd', execute() {} })),
    getTools: await outcome(mc.getTools()),
    session: thrown(() => mc.registerTool('s', { description: 'd', handler() {} })),
    ready: await outcome(globalThis[Symbol.for('modelcontext-polyfill')].ready),
  };
}

function assertFailure(r, consoleMessages, pattern) {
  assert.equal(r.exists, true);
  for (const k of ['register', 'getTools', 'session', 'ready']) {
    assert.equal(typeof r[k], 'object', `${k}: ${JSON.stringify(r[k])}`);
    assert.match(r[k].message, pattern, k);
  }
  assert.equal(r.register.message, r.getTools.message, 'one error for every call');
  const ours = consoleMessages.filter((m) => m.type === 'error' && m.text.startsWith('modelcontext-polyfill:'));
  assert.equal(ours.length, 1, `one console error: ${ours.map((m) => m.text).join('\n')}`);
  assert.match(ours[0].text, pattern);
}

for (const [build, tag] of Object.entries(BUILDS)) {
  test(`${build} build: a core wasm URL answering 404 fails every call with the URL, the status and the config key`, () =>
    withPage(async ({ page, goto, server, consoleMessages }) => {
      await goto(await inlinePage(`<script>modelContextPolyfillConfig = { coreUrl: '/no/such/core.wasm' };</script>${tag}`));
      await page.waitForFunction(() => document.modelContext);
      const r = await page.evaluate(observeFailure);
      const url = server.url('/no/such/core.wasm').replace(/[.?]/g, '\\$&');
      assertFailure(r, consoleMessages, new RegExp(`core module ${url} could not be loaded: HTTP 404 Not Found; serve it there, or set modelContextPolyfillConfig\\.coreUrl`));
      // A URL the page set is where the page said: no bundler advice.
      assert.doesNotMatch(r.register.message, /beside the script|assets/);
    }, { allowPageErrors: true }));

  test(`${build} build: the core wasm missing from beside the script says where it is looked for and the ways out (a copy, the inline entry, the config key)`, () =>
    withPage(async ({ page, goto, context, consoleMessages }) => {
      await context.route(`**/${CORE_WASM}`, (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' }));
      await goto(await inlinePage(tag));
      await page.waitForFunction(() => document.modelContext);
      const r = await page.evaluate(observeFailure);
      assertFailure(r, consoleMessages, new RegExp(
        `${CORE_WASM} could not be loaded: HTTP 404 Not Found; the file is looked for beside the script that loads it, .*` +
          `copy node_modules/modelcontext-polyfill/dist/\\*\\.wasm there .*"assets".*` +
          `import 'modelcontext-polyfill/inline'.*modelContextPolyfillConfig\\.coreUrl`,
      ));
    }, { allowPageErrors: true }));

  test(`${build} build: HTML served instead of the core wasm says so (content type, URL, config key), not "magic word"`, () =>
    withPage(async ({ page, goto, context, consoleMessages }) => {
      await context.route(`**/${CORE_WASM}`, (route) =>
        route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><p>an app shell</p>' }));
      await goto(await inlinePage(tag));
      await page.waitForFunction(() => document.modelContext);
      const r = await page.evaluate(observeFailure);
      assertFailure(r, consoleMessages, new RegExp(`${CORE_WASM} could not be loaded: it is not WebAssembly: the server answered HTTP 200 with Content-Type text/html.*coreUrl`));
      assert.doesNotMatch(r.register.message, /magic/);
    }));

  test(`${build} build: without WebAssembly the object exists and every call says why`, () =>
    withPage(async ({ page, goto, context, consoleMessages }) => {
      await context.addInitScript(() => { delete globalThis.WebAssembly; });
      await goto(await inlinePage(tag));
      await page.waitForFunction(() => document.modelContext);
      const r = await page.evaluate(observeFailure);
      assertFailure(r, consoleMessages, /this browser has no WebAssembly/);
    }));
}

/** A page served with `csp` as its Content-Security-Policy, loading `script` then app.js. */
async function cspPage(csp, script) {
  const server = await getServer();
  const id = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  server.route(`/__csp/${id}/app.js`, {
    type: 'text/javascript',
    body: `window.appSaw = typeof document.modelContext;
      (async () => {
        const mc = document.modelContext;
        const outcome = (p) => p.then((v) => ({ ok: v }), (e) => ({ name: e.name, message: e.message }));
        // A pattern with a Unicode property: the validator module (compiled under this CSP too)
        // checks the schema.
        await outcome(mc.registerTool({ name: 'typed', description: 'T', inputSchema: { type: 'object', properties: { n: { type: 'integer' }, s: { type: 'string', pattern: '^\\\\p{Ll}' } } }, execute: ({ n }) => 'n=' + n }));
        const tools = await outcome(mc.getTools());
        const typed = tools.ok && tools.ok[0];
        window.result = {
          tools: tools.ok ? tools.ok.map((t) => t.name) : tools,
          valid: typed ? await outcome(mc.executeTool(typed, { n: 2 })) : null,
          invalid: typed ? await outcome(mc.executeTool(typed, { n: 'x' })) : null,
        };
      })();`,
  });
  server.route(`/__csp/${id}/index.html`, {
    headers: { 'Content-Security-Policy': csp },
    body: `<!doctype html><meta charset="utf-8">${script}<script src="app.js"></script>`,
  });
  return `/__csp/${id}/index.html`;
}

for (const [build, src] of [['classic', '/dist/modelcontext.iife.js'], ['self-contained classic', '/dist/modelcontext.inline.iife.js']]) {
  test(`${build} build under script-src 'self': the object exists, every call names 'wasm-unsafe-eval'`, () =>
    withPage(async ({ page, goto, consoleMessages }) => {
      await goto(await cspPage("script-src 'self'", `<script src="${src}"></script>`));
      await page.waitForFunction(() => window.result);
      const r = await page.evaluate(() => ({ saw: window.appSaw, result: window.result }));
      assert.equal(r.saw, 'object', 'the page script after the polyfill sees document.modelContext');
      assert.match(r.result.tools.message, /Content-Security-Policy does not allow WebAssembly\. Add 'wasm-unsafe-eval' to its script-src directive/);
      const ours = consoleMessages.filter((m) => m.type === 'error' && m.text.startsWith('modelcontext-polyfill:'));
      assert.equal(ours.length, 1, ours.map((m) => m.text).join('\n'));
      assert.match(ours[0].text, /'wasm-unsafe-eval'/);
    }));

  // With Trusted Types enforced and no policy allowed, as strict sites run: the polyfill writes
  // to no injection sink (innerHTML, script URLs, eval), or this would throw.
  test(`${build} build under script-src 'self' 'wasm-unsafe-eval' and Trusted Types: everything works`, () =>
    withPage(async ({ page, goto }) => {
      const csp = "script-src 'self' 'wasm-unsafe-eval'; require-trusted-types-for 'script'; trusted-types 'none'";
      await goto(await cspPage(csp, `<script src="${src}"></script>`));
      await page.waitForFunction(() => window.result);
      const r = await page.evaluate(() => window.result);
      assert.deepEqual(r.tools, ['typed']);
      assert.deepEqual(r.valid, { ok: 'n=2' });
      assert.equal(r.invalid.name, 'DataError');
    }));
}

// The hints the README gives for loading the core with the page: the front's own requests must
// take them (one request per file; a request the hint does not match would be a second one, and
// Chromium warns that the preload went unused).
const HINTS = `<link rel="modulepreload" href="/dist/modelcontext_core.js">
<link rel="modulepreload" href="/dist/modelcontext_glue.js">
<link rel="preload" href="/dist/modelcontext_glue_bg.wasm" as="fetch" crossorigin>`;
// The two fronts, as a page loads each beside the hints.
const HINTED_FRONTS = [
  ['ES module', `<script type="module">import '/dist/modelcontext.js';</script>`],
  ['classic', '<script src="/dist/modelcontext.iife.js"></script>'],
];
for (const [build, script] of HINTED_FRONTS) {
  test(`${build} front with the README's preload hints: each core file is fetched once, and used`, () =>
    withPage(async ({ page, goto, consoleMessages }) => {
      const requested = [];
      page.on('request', (r) => requested.push(new URL(r.url()).pathname));
      await goto(await inlinePage(`${HINTS}\n${script}`));
      const tools = await page.evaluate(async () => {
        await globalThis[Symbol.for('modelcontext-polyfill')].ready;
        await document.modelContext.registerTool({ name: 'p', description: 'p', execute: () => 'x' });
        return (await document.modelContext.getTools()).map((t) => t.name);
      });
      assert.deepEqual(tools, ['p']);
      // Chromium reports an unused preload a few seconds after the load.
      await new Promise((r) => setTimeout(r, 3500));
      const core = requested.filter((p) => /^\/dist\/modelcontext_(core\.js|glue\.js|glue_bg\.wasm)$/.test(p)).sort();
      assert.deepEqual(core, ['/dist/modelcontext_core.js', '/dist/modelcontext_glue.js', '/dist/modelcontext_glue_bg.wasm']);
      const unused = consoleMessages.filter((m) => /preload/i.test(m.text));
      assert.deepEqual(unused, []);
    }));
}

// The hint the README gives a page whose agents call at once: the deferred module's call module
// fetched with the page. The request an agent's first message makes must take it (one request, no
// unused preload), and the agent's call is answered.
const CALLS_HINT = '<link rel="preload" href="/dist/modelcontext_calls.wasm" as="fetch" crossorigin>';
for (const [build, script] of HINTED_FRONTS) {
  test(`${build} front with the README's preload hint of the call module: an agent's call is answered, the module fetched once, the hint used`, () =>
    withPage(async ({ page, goto, consoleMessages }) => {
      const requested = [];
      page.on('request', (r) => requested.push(new URL(r.url()).pathname));
      await goto(await inlinePage(`${HINTS}\n${CALLS_HINT}\n${script}`));
      await page.evaluate(`window.__tabAsk = ${tabAsk}`);
      const answers = await page.evaluate(async () => {
        await document.modelContext.registerTool({ name: 'echo', description: 'E', execute: ({ a }) => `a=${a}` });
        // An agent over the tab wire: its initialize, then a call at once.
        const init = await __tabAsk('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agent', version: '1' } });
        const call = await __tabAsk('tools/call', { name: 'echo', arguments: { a: 7 } });
        return { version: init.result?.protocolVersion, text: call.result?.content?.[0]?.text };
      });
      assert.deepEqual(answers, { version: '2025-06-18', text: 'a=7' });
      // Chromium reports an unused preload a few seconds after the load.
      await new Promise((r) => setTimeout(r, 3500));
      assert.deepEqual(requested.filter((p) => p === '/dist/modelcontext_calls.wasm'), ['/dist/modelcontext_calls.wasm']);
      const unused = consoleMessages.filter((m) => /preload/i.test(m.text));
      assert.deepEqual(unused, []);
    }));
}

for (const [build, tag] of Object.entries(BUILDS)) {
  test(`${build} build from a server that sends every file gzip-encoded, as production servers do: every part of the core wasm streams in, a tool registers and runs`, () =>
    withPage(async ({ page }) => {
      const gzipping = await startStaticServer({ root: REPO_ROOT, port: 0, gzip: true });
      try {
        gzipping.route('/gzip.html', { body: `<!doctype html><title>gzip</title>${tag}` });
        await page.addInitScript(() => {
          const compileStreaming = WebAssembly.compileStreaming;
          window.streamed = [];
          WebAssembly.compileStreaming = function (...args) {
            window.streamed.push(args[0] && args[0].url ? new URL(args[0].url).pathname.split('/').pop() : String(args[0]));
            return compileStreaming.apply(this, args);
          };
        });
        const encodings = new Map();
        page.on('response', (r) => encodings.set(new URL(r.url()).pathname, r.headers()['content-encoding']));
        await page.goto(gzipping.url('/gzip.html'));
        const result = await page.evaluate(async (schema) => {
          await globalThis[Symbol.for('modelcontext-polyfill')].ready;
          await document.modelContext.registerTool({ name: 'typed', description: 'T', inputSchema: schema, execute: ({ n }) => 'n=' + n });
          const [tool] = await document.modelContext.getTools();
          return document.modelContext.executeTool(tool, { n: 2 });
        }, TYPED);
        assert.equal(result, 'n=2');
        // Each part of the core wasm once, compiled as it arrives (the deferred one and its call
        // module once `ready` asked for them).
        await page.waitForFunction(() => window.streamed.length === 3);
        assert.deepEqual((await page.evaluate(() => window.streamed)).sort(), [CORE_WASM, 'modelcontext_calls.wasm', 'modelcontext_deferred.wasm'].sort());
        for (const file of ['modelcontext_core.js', 'modelcontext_glue.js', CORE_WASM, 'modelcontext_calls.wasm', 'modelcontext_deferred.wasm']) {
          assert.equal(encodings.get(`/dist/${file}`), 'gzip', `${file} arrived gzip-encoded`);
        }
      } finally {
        await gzipping.close();
      }
    }));
}

/**
 * Runs in the page: uses the validator module (a tool whose schema has a pattern with a Unicode
 * property, called with invalid input) and the client module (an McpClient calling the page's
 * tool `name` over the tab). Returns the call's error name and the client's answer text.
 */
async function useValidatorAndClient(name) {
  await document.modelContext.registerTool({ name: 'typed', description: 'T', inputSchema: { type: 'object', properties: { n: { type: 'integer' }, s: { type: 'string', pattern: '^\\p{Ll}' } } }, execute: () => 'ran' });
  const typed = (await document.modelContext.getTools()).find((t) => t.name === 'typed');
  const invalid = await document.modelContext.executeTool(typed, { n: 'x' }).then(() => 'ran', (e) => e.name);
  const { McpClient, TabClientTransport } = globalThis[Symbol.for('modelcontext-polyfill')].client;
  const client = new McpClient(new TabClientTransport({ targetOrigin: location.origin }));
  await client.connect();
  const viaClient = (await client.callTool(name, {})).content[0].text;
  await client.close();
  return { invalid, viaClient };
}

test('the self-contained classic build is complete when its script ends (sync API, no request for other files, the validator and the client inside)', () =>
  withPage(async ({ page, goto }) => {
    const requested = [];
    page.on('request', (r) => requested.push(new URL(r.url()).pathname));
    await goto(await inlinePage(`<script src="/dist/modelcontext.inline.iife.js"></script><script>
      window.sync = { connected: document.modelContext.isConnected() };
      document.modelContext.registerTool('s', { description: 'd', handler: () => 'x' });
      window.sync.listed = navigator.modelContextTesting.listTools().map((t) => t.name);
      try { document.modelContext.registerTool('bad name!', { description: 'd', handler() {} }); } catch (e) { window.sync.thrown = e.name; }
      // The client module too: a client made now is real at once (a bad option throws).
      const { McpClient, TabClientTransport } = globalThis[Symbol.for('modelcontext-polyfill')].client;
      try { new McpClient(new TabClientTransport({ targetOrigin: 5 })); } catch (e) { window.sync.client = e.name; }
      window.sync.state = new McpClient(new TabClientTransport({ targetOrigin: location.origin })).state;
    </script>`));
    assert.deepEqual(await page.evaluate(() => window.sync), { connected: true, listed: ['s'], thrown: 'InvalidStateError', client: 'TypeError', state: 'idle' });
    assert.deepEqual(await page.evaluate(useValidatorAndClient, 's'), { invalid: 'DataError', viaClient: 'x' });
    assert.deepEqual(requested.filter((p) => p.startsWith('/dist/')), ['/dist/modelcontext.inline.iife.js']);
  }));

// The inline builds carry each wasm module as base64, a function's string (so neither has V8's
// compile hint, which would compile that function as the script loads): the JS heap holds a
// module's text from its first compile on, never before. The core's function is dropped once
// its text is read, which frees the string in the classic build (V8 keeps an ES module's
// functions' code, and so the core's string there: not checked, the engine's business).
for (const [build, file, tag, coreFreed] of [
  ['self-contained classic', 'modelcontext.inline.iife.js', '<script src="/dist/modelcontext.inline.iife.js"></script>', true],
  ['inline ES module', 'modelcontext_core.inline.js', `<script type="module">import '/dist/modelcontext.inline.js';</script>`, false],
]) {
  test(`${build} build: the JS heap holds the validator's and the client's base64 only once they are first used${coreFreed ? ", and the core's not after the start" : ''}`, () =>
    withPage(async ({ page, context, goto }) => {
      await goto(await inlinePage(tag));
      await page.waitForFunction(() => document.modelContext);
      // The length of each module's base64 text, in the order the script gives them.
      const [coreText, validatorText, clientText] = [...fs.readFileSync(path.join(DIST_DIR, file), 'utf8').matchAll(/"(AGFzbQ[A-Za-z0-9+/=]*)"/g)].map((m) => m[1].length);
      assert.equal(new Set([coreText, validatorText, clientText]).size, 3, `three module texts of different lengths: ${[coreText, validatorText, clientText]}`);
      const wasmText = { ...(coreFreed ? { core: coreText } : {}), validator: validatorText, client: clientText };
      const cdp = await context.newCDPSession(page);
      // The modules whose base64 text is a string in the JS heap (a wasm module's text opens
      // with AGFzbQ, its magic number).
      const held = async () => {
        const snap = await heapSnapshot(cdp);
        const f = snap.snapshot.meta.node_fields;
        const [type, name, size] = ['type', 'name', 'self_size'].map((k) => f.indexOf(k));
        const stringType = snap.snapshot.meta.node_types[0].indexOf('string');
        const sizes = [];
        for (let i = 0; i < snap.nodes.length; i += f.length) {
          if (snap.nodes[i + type] === stringType && snap.strings[snap.nodes[i + name]].startsWith('AGFzbQ')) sizes.push(snap.nodes[i + size]);
        }
        // A one-byte string's own size is its length and a header of a few words.
        return Object.keys(wasmText).filter((m) => sizes.some((s) => s >= wasmText[m] && s < wasmText[m] + 64)).sort();
      };
      await page.evaluate(() => document.modelContext.registerTool({ name: 'plain', description: 'd', inputSchema: { type: 'object', properties: { n: { type: 'integer' } } }, execute: () => 'ran' }));
      assert.deepEqual(await held(), [], 'after the start and a plain tool');
      // The validator module (a pattern with a Unicode property) and the client module, used.
      assert.deepEqual(await page.evaluate(useValidatorAndClient, 'plain'), { invalid: 'DataError', viaClient: 'ran' });
      assert.deepEqual(await held(), ['client', 'validator'], 'once both are used (their functions compiled, holding their strings)');
    }));
}

test('importing either ES module entry in Node does nothing and throws nothing', () => {
  for (const entry of ['modelcontext.js', 'modelcontext.inline.js']) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', `
      const before = Object.getOwnPropertyNames(globalThis).length;
      const m = await import(${JSON.stringify(new URL(`file://${DIST_DIR}/${entry}`).href)});
      const reason = await m.ready.then(() => 'resolved', (e) => e.message);
      console.log(JSON.stringify({
        reason, McpClient: typeof m.McpClient,
        mark: typeof globalThis[Symbol.for('modelcontext-polyfill')],
        navigator: typeof globalThis.navigator?.modelContext,
        globals: Object.getOwnPropertyNames(globalThis).length - before,
      }));`], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.deepEqual(JSON.parse(r.stdout), {
      reason: 'modelcontext-polyfill: nothing is installed here (no document and no worker scope)',
      McpClient: 'undefined', mark: 'undefined', navigator: 'undefined', globals: 0,
    });
  }
});

test('in Node, in a DOM test environment at an http URL (jsdom) without process.getBuiltinModule: the error says Node cannot read the file: URL, not that a bundler wrote it', () => {
  // What Vitest's or Jest's jsdom environment gives a test on a Node older than 20.16: the
  // page's globals at http://localhost:3000, the package loaded from node_modules by file: URLs.
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', `
    import { JSDOM } from 'jsdom';
    const dom = new JSDOM('<!doctype html>', { url: 'http://localhost:3000/' });
    for (const k of ['window', 'document', 'Document', 'location', 'origin', 'navigator', 'HTMLElement', 'Element', 'Node', 'MutationObserver', 'ShadowRoot']) {
      if (!(k in globalThis)) globalThis[k] = dom.window[k];
    }
    delete process.getBuiltinModule;
    const errors = [];
    console.error = (m) => errors.push(String(m));
    const m = await import(${JSON.stringify(new URL(`file://${DIST_DIR}/modelcontext.js`).href)});
    const reason = await m.ready.then(() => 'resolved', (e) => e.message);
    const calls = await document.modelContext.getTools().then(() => 'resolved', (e) => e.message);
    console.log(JSON.stringify({ reason, calls, errors }));`], { cwd: REPO_ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const { reason, calls, errors } = JSON.parse(r.stdout);
  assert.match(reason, /^modelcontext-polyfill: the core module file:\/\/\/.*\/modelcontext_glue_bg\.wasm could not be loaded: it could not be fetched \(.*\)\. It is a file: URL, which Node's fetch\(\) does not read, and this Node has no process\.getBuiltinModule .*update Node, or import 'modelcontext-polyfill\/inline'/);
  assert.doesNotMatch(reason, /bundler/);
  assert.equal(calls, reason, 'every call fails with the same error');
  assert.deepEqual(errors, [reason], 'and the console shows it once');
});

test('the classic front copied alone (no modelcontext_core.js beside it): every call names the missing file and the self-contained build', () =>
  withPage(async ({ page, goto, server, consoleMessages }) => {
    server.route('/__alone/modelcontext.iife.js', { type: 'text/javascript', body: fs.readFileSync(path.join(DIST_DIR, 'modelcontext.iife.js')) });
    await goto(await inlinePage('<script src="/__alone/modelcontext.iife.js"></script>'));
    await page.waitForFunction(() => document.modelContext);
    const r = await page.evaluate(observeFailure);
    const url = server.url('/__alone/modelcontext_core.js').replace(/[.?]/g, '\\$&');
    assertFailure(r, consoleMessages, new RegExp(`the core script ${url} could not be loaded .*modelcontext\\.inline\\.iife\\.js, which needs no other file`));
  }));

test('a core wasm URL on another origin without CORS: every call says the server must allow it (CORS), names the origin and the config key', () =>
  withPage(async ({ page, goto, server, consoleMessages }) => {
    // The second origin of the test server sends no Access-Control-Allow-Origin.
    const url = server.url(`/dist/${CORE_WASM}`, { alt: true });
    await goto(await inlinePage(`<script>modelContextPolyfillConfig = { coreUrl: ${JSON.stringify(url)} };</script>${BUILDS.classic}`));
    await page.waitForFunction(() => document.modelContext);
    const r = await page.evaluate(observeFailure);
    const esc = (t) => t.replace(/[.?()]/g, '\\$&');
    assertFailure(r, consoleMessages, new RegExp(
      `core module ${esc(url)} could not be loaded: it could not be fetched \\(.*\\)\\. It is cross-origin to this document \\(${esc(server.origin)}\\): ` +
        `its server must allow that with CORS \\(Access-Control-Allow-Origin\\); or serve it there, or set modelContextPolyfillConfig\\.coreUrl`,
    ));
  }));

test('a core wasm URL the page configured as a file: URL, in a page served over http: every call says so and names the config key, not a bundler', () =>
  withPage(async ({ page, goto, consoleMessages }) => {
    const url = new URL(`file://${DIST_DIR}/${CORE_WASM}`).href;
    await goto(await inlinePage(`<script>modelContextPolyfillConfig = { coreUrl: ${JSON.stringify(url)} };</script>${BUILDS.classic}`));
    await page.waitForFunction(() => document.modelContext);
    const r = await page.evaluate(observeFailure);
    assertFailure(r, consoleMessages, new RegExp(
      `core module ${url.replace(/[.?]/g, '\\$&')} could not be loaded: it could not be fetched \\(.*\\)\\. It is a file: URL, which a page ` +
        `served over http\\(s\\) may not load: serve the file over http\\(s\\) and set modelContextPolyfillConfig\\.coreUrl to its URL there`,
    ));
    assert.doesNotMatch(r.register.message, /bundler|opened from disk/);
  }, { allowPageErrors: true }));

test('a page opened from disk (file:): the classic build says a file: URL cannot be loaded there; the self-contained build works', () =>
  withPage(async ({ page }) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-file-'));
    try {
      for (const f of ['modelcontext.iife.js', 'modelcontext.inline.iife.js']) fs.copyFileSync(path.join(DIST_DIR, f), path.join(dir, f));
      const app = `<script>
        window.result = globalThis[Symbol.for('modelcontext-polyfill')].ready.then(async () => {
          const mc = document.modelContext;
          await mc.registerTool({ name: 't', description: 'd', execute: ({ n }) => 'n=' + n });
          const [tool] = await mc.getTools();
          return { origin, ran: await mc.executeTool(tool, { n: 3 }) };
        }, (e) => ({ failed: e.name + ': ' + e.message }));
      </script>`;
      fs.writeFileSync(path.join(dir, 'classic.html'), `<!doctype html><script src="modelcontext.iife.js"></script>${app}`);
      fs.writeFileSync(path.join(dir, 'inline.html'), `<!doctype html><script src="modelcontext.inline.iife.js"></script>${app}`);
      await page.goto(`file://${dir}/classic.html`);
      const classic = await page.evaluate(() => window.result);
      assert.match(classic.failed, /^NotSupportedError: modelcontext-polyfill: the core script file:\/\/.*modelcontext_core\.js could not be loaded \(.*\)\. It is a file: URL, which a page opened from disk may not load: serve the directory over http \(http:\/\/localhost is a secure context\); or .*load modelcontext\.inline\.iife\.js, which needs no other file\./);
      // Chromium says a file: page is not origin-keyed, and its own WebMCP serves it: so does this one.
      await page.goto(`file://${dir}/inline.html`);
      assert.deepEqual(await page.evaluate(async () => ({ oac: window.originAgentCluster, ...(await window.result) })), { oac: false, origin: 'null', ran: 'n=3' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }));

test("a CDN allowed in script-src but not in connect-src: every call names the page's Content-Security-Policy, the directive and the origin to add", () =>
  withPage(async ({ page, goto, server, consoleMessages }) => {
    // dist/ served from the second origin with CORS, as a CDN serves it.
    const cdn = server.altOrigin;
    const id = `${process.pid}-${Math.random().toString(36).slice(2)}`;
    for (const file of ['modelcontext.iife.js', 'modelcontext_core.js', 'modelcontext_glue.js', CORE_WASM]) {
      server.route(`/__cdn/${id}/${file}`, {
        type: file.endsWith('.wasm') ? 'application/wasm' : 'text/javascript',
        headers: { 'Access-Control-Allow-Origin': '*' },
        body: fs.readFileSync(path.join(DIST_DIR, file)),
      });
    }
    server.route(`/__cdn/${id}/index.html`, {
      headers: { 'Content-Security-Policy': `script-src 'self' 'wasm-unsafe-eval' ${cdn}; connect-src 'self'` },
      body: `<!doctype html><script src="${cdn}/__cdn/${id}/modelcontext.iife.js"></script>`,
    });
    await goto(`/__cdn/${id}/index.html`);
    await page.waitForFunction(() => document.modelContext);
    const r = await page.evaluate(observeFailure);
    const url = `${cdn}/__cdn/${id}/${CORE_WASM}`.replace(/[.?]/g, '\\$&');
    assertFailure(r, consoleMessages, new RegExp(
      `core module ${url} could not be loaded: it could not be fetched \\(.*\\): the page's Content-Security-Policy does not allow it ` +
        `\\(connect-src\\)\\. Add ${cdn.replace(/[.]/g, '\\.')} to connect-src, or serve it there, or set modelContextPolyfillConfig\\.coreUrl`,
    ));
  }));

test('in a sandboxed frame (an opaque origin): the classic build names CORS and the self-contained build, which works there', () =>
  withPage(async ({ page, goto }) => {
    const inner = (src) => inlinePage(`<script src="${src}"></script><script>
      (async () => {
        const outcome = (p) => p.then((v) => ({ ok: v }), (e) => ({ name: e.name, message: e.message }));
        const mc = document.modelContext;
        const registered = await outcome(mc.registerTool({ name: 't', description: 'd', execute: ({ n }) => 'n=' + n + ' at ' + origin }));
        const tools = await outcome(mc.getTools());
        const ran = tools.ok ? await outcome(mc.executeTool(tools.ok[0], { n: 1 })) : null;
        parent.postMessage({ report: { registered, tools: tools.ok ? tools.ok.map((t) => t.name) : tools, ran } }, '*');
      })();
    </script>`);
    await goto(await inlinePage('<!doctype html><title>embedder</title>'));
    const inFrame = (path) => page.evaluate((path) => new Promise((resolve) => {
      addEventListener('message', (e) => e.data && e.data.report && resolve(e.data.report));
      const f = document.createElement('iframe');
      f.sandbox = 'allow-scripts';
      f.src = path;
      document.body.append(f);
    }), path);
    const classic = await inFrame(await inner('/dist/modelcontext.iife.js'));
    assert.equal(classic.registered.name, 'NotSupportedError');
    assert.match(classic.registered.message, /the core script .*modelcontext_core\.js could not be loaded \(.*\)\. It is cross-origin to this document, whose origin is opaque \(a sandboxed frame, a data: URL\): its server must allow that with CORS \(Access-Control-Allow-Origin\); or .*load modelcontext\.inline\.iife\.js, which needs no other file\./);
    const inline = await inFrame(await inner('/dist/modelcontext.inline.iife.js'));
    assert.deepEqual(inline, { registered: { ok: undefined }, tools: ['t'], ran: { ok: 'n=1 at null' } });
  }));

test('a validator URL answered with HTML: the console says so when the first tool with a schema the core cannot check is registered (content type, config key)', () =>
  withPage(async ({ page, goto, context, consoleMessages }) => {
    await context.route('**/modelcontext_validator.wasm', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><p>an app shell</p>' }));
    await goto(await inlinePage(BUILDS.classic));
    await page.evaluate(() => document.modelContext.registerTool({
      // A pattern with a Unicode property: only the validator module checks it (a plain schema,
      // or a pattern the core checks, would not load it).
      name: 'typed', description: 'T', inputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^\\p{Ll}' } } }, execute: () => 'ran',
    }));
    // No call is made: the registration alone starts the load (when the page is idle, within 1 s).
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !consoleMessages.some((m) => /validator module/.test(m.text))) await page.waitForTimeout(100);
    const warnings = consoleMessages.filter((m) => /validator module .*could not be loaded/.test(m.text)).map((m) => m.text);
    assert.equal(warnings.length, 1, consoleMessages.map((m) => m.text).join('\n'));
    assert.match(warnings[0], /it is not WebAssembly: the server answered HTTP 200 with Content-Type text\/html.*modelContextPolyfillConfig\.validatorUrl/);
    // Its URL is the default one, beside the script: the ways out of a bundler that left it behind.
    assert.match(warnings[0], /looked for beside the script that loads it.*"assets".*import 'modelcontext-polyfill\/inline'/);
    assert.doesNotMatch(warnings[0], /magic/);
  }));

// Chromium compiles at most 8 MB on the main thread (`new WebAssembly.Module`); a debug build's
// core is larger. The self-contained classic build then compiles off the main thread.
test('self-contained classic build where the browser refuses to compile a module on the main thread: it compiles off it; calls made meanwhile wait; the client loads the same way', () =>
  withPage(async ({ page, goto }) => {
    await goto(await inlinePage(`<script>
  // Chromium's answer for a module over 8 MB, given here for any module over 100 KB (the
  // core's and the client's).
  window.refused = [];
  // Compiling off the main thread takes a while here, so that the calls below surely wait.
  const compile = WebAssembly.compile;
  WebAssembly.compile = (bytes) => new Promise((r) => setTimeout(r, 300)).then(() => compile(bytes));
  const Real = WebAssembly.Module;
  WebAssembly.Module = new Proxy(Real, {
    construct(T, args) {
      const n = args[0].byteLength;
      if (n > 100000) {
        refused.push(n);
        throw new RangeError('WebAssembly.Compile is disallowed on the main thread, if the buffer size is larger than 8MB.');
      }
      return Reflect.construct(T, args);
    },
  });
</script>
<script src="/dist/modelcontext.inline.iife.js"></script>
<script>
  // (Whether the core is in by now depends on whether the parser yielded after the script.)
  window.early = { exists: document.modelContext instanceof ModelContext };
  window.registered = document.modelContext.registerTool({ name: 'typed', description: 'T', inputSchema: ${JSON.stringify(TYPED)}, execute: ({ n }) => 'n=' + n });
</script>`));
    const r = await page.evaluate(async () => {
      // The record's classes come with `ready` (the core here may still be compiling).
      const { McpClient, TabClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      await window.registered;
      const mc = document.modelContext;
      const [tool] = await mc.getTools();
      const valid = await mc.executeTool(tool, { n: 2 });
      const invalid = await mc.executeTool(tool, { n: 'x' }).then(() => 'resolved', (e) => e.name);
      const coreRefused = window.refused.length;
      const client = new McpClient(new TabClientTransport({ targetOrigin: location.origin }));
      await client.connect();
      const call = await client.callTool('typed', { n: 3 });
      await client.close();
      return { early: window.early, connected: mc.isConnected(), valid, invalid, coreRefused, refused: window.refused.length, call: call.content[0].text };
    });
    assert.deepEqual(r.early, { exists: true });
    assert.equal(r.coreRefused, 1, 'the core was refused once, and compiled off the main thread');
    assert.equal(r.refused, 2, 'then the client module');
    assert.equal(r.connected, true);
    assert.equal(r.valid, 'n=2');
    assert.equal(r.invalid, 'DataError');
    assert.equal(r.call, 'n=3');
  }));

// The polyfill in a service worker. HTML does not let a service worker import() a module, so
// the builds that load their core that way cannot start there: they say so and name the build
// that can (polyfill/src/wasm_fetch.js, __mcpNoImport), without fetching anything.
// modelcontext.inline.iife.js, loaded with importScripts(), carries every module and installs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, requireDist, getServer } from './harness.mjs';

let next = 0;

/**
 * Serves a service worker that loads the polyfill with `load` (`importScripts(url)`, or
 * `import` for a module worker), registers it from a fresh page and returns what it reports:
 * `{ errors, installed, ready, registered, listed, executed, again, fetched }`.
 */
async function inServiceWorker({ load, module = false }) {
  const server = await getServer();
  const url = `/sw-test-${process.pid}-${next++}.js`;
  const body = `${module ? load : ''}
const errors = [];
self.addEventListener('error', (e) => errors.push(e.message));
${module ? '' : `try { ${load} } catch (e) { errors.push('load threw: ' + e.message); }`}
const installed = typeof navigator.modelContext;
const record = self[Symbol.for('modelcontext-polyfill')];
const settled = record.ready.then(() => 'ready', (e) => e.name + ': ' + e.message);
const outcome = (p) => p.then((v) => ['ok', v], (e) => ['rejected', e.name + ': ' + e.message]);
self.addEventListener('message', async (ev) => {
  const ready = await settled;
  const registered = await outcome(navigator.modelContext.registerTool({
    name: 'double', description: 'Doubles n',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    execute: ({ n }) => String(2 * n),
  }));
  const listed = await outcome(Promise.resolve().then(() => navigator.modelContextTesting.listTools().map((t) => t.name)));
  const executed = await outcome(navigator.modelContextTesting.executeTool('double', JSON.stringify({ n: 21 })));
  const invalid = await outcome(navigator.modelContextTesting.executeTool('double', JSON.stringify({ n: 'x' })));
  const again = await outcome(navigator.modelContextTesting.executeTool('double', JSON.stringify({ n: 2 })));
  const fetched = performance.getEntriesByType('resource').map((e) => e.name.split('/').pop());
  ev.source.postMessage({ errors, installed, ready, registered, listed, executed, invalid, again, fetched });
});`;
  server.route(url, { type: 'text/javascript', body });
  return withPage(
    async ({ page }) =>
      page.evaluate(
        async ({ url, module }) => {
          const reg = await navigator.serviceWorker.register(url, module ? { type: 'module' } : {});
          const sw = reg.installing || reg.waiting || reg.active;
          if (sw.state !== 'activated') {
            await new Promise((resolve) => sw.addEventListener('statechange', () => sw.state === 'activated' && resolve()));
          }
          const report = new Promise((resolve) => navigator.serviceWorker.addEventListener('message', (e) => resolve(e.data)));
          sw.postMessage('report');
          return report;
        },
        { url, module },
      ),
    { html: '<!doctype html><title>service worker</title>' },
  );
}

const REFUSED = /^NotSupportedError: modelcontext-polyfill: the core cannot load in a service worker: this build loads it with import\(\), which service workers may not use\. Load modelcontext\.inline\.iife\.js there instead \(importScripts\), which carries the core\.$/;

test('service worker: modelcontext.inline.iife.js installs with importScripts; tools register, validate and run', async () => {
  requireDist('modelcontext.inline.iife.js');
  const r = await inServiceWorker({ load: "importScripts('/dist/modelcontext.inline.iife.js');" });
  assert.deepEqual(r.errors, []);
  assert.equal(r.installed, 'object');
  assert.equal(r.ready, 'ready');
  assert.deepEqual(r.registered, ['ok', undefined]);
  assert.deepEqual(r.listed, ['ok', ['double']]);
  assert.deepEqual(r.executed, ['ok', '42']);
  assert.equal(r.invalid[0], 'rejected');
  assert.match(r.invalid[1], /^DataError: /);
  assert.deepEqual(r.again, ['ok', '4']);
  // Everything came inside the one script.
  assert.deepEqual(r.fetched.filter((f) => f !== 'modelcontext.inline.iife.js'), []);
});

for (const [name, options] of [
  ['modelcontext.iife.js (importScripts)', { load: "importScripts('/dist/modelcontext.iife.js');" }],
  ['modelcontext.js (module worker)', { load: "import '/dist/modelcontext.js';", module: true }],
  ['modelcontext.inline.js (module worker)', { load: "import '/dist/modelcontext.inline.js';", module: true }],
]) {
  test(`service worker: ${name} installs the object, then refuses every call, naming the build that works, and fetches nothing`, async () => {
    requireDist('modelcontext.iife.js', 'modelcontext.js', 'modelcontext.inline.js');
    const r = await inServiceWorker(options);
    assert.deepEqual(r.errors, []);
    assert.equal(r.installed, 'object');
    assert.match(r.ready, REFUSED);
    assert.equal(r.registered[0], 'rejected');
    assert.match(r.registered[1], REFUSED);
    for (const call of [r.listed, r.executed, r.again]) {
      assert.equal(call[0], 'rejected');
      assert.match(call[1], REFUSED);
    }
    assert.deepEqual(r.fetched.filter((f) => /^modelcontext_/.test(f)), []);
  });
}

test('service worker: a session served over a MessagePort answers a page client (inline IIFE)', async () => {
  requireDist('modelcontext.inline.iife.js', 'modelcontext.iife.js');
  const server = await getServer();
  const url = `/sw-test-${process.pid}-${next++}.js`;
  server.route(url, {
    type: 'text/javascript',
    body: `importScripts('/dist/modelcontext.inline.iife.js');
self.addEventListener('message', async (ev) => {
  try {
    const session = await navigator.modelContext.connect({
      serverInfo: { name: 'sw', version: '1' },
      transport: { type: 'postMessage', target: ev.ports[0] },
    });
    session.registerTool('where', {
      description: 'Where it runs',
      inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
      handler: ({ n }) => ({ content: [{ type: 'text', text: (typeof clients) + ' ' + n }] }),
    });
    ev.source.postMessage({ ok: true });
  } catch (e) {
    ev.source.postMessage({ ok: false, error: e.name + ': ' + e.message });
  }
});`,
  });
  const r = await withPage(
    async ({ page }) =>
      page.evaluate(async (url) => {
        const reg = await navigator.serviceWorker.register(url);
        const sw = reg.installing || reg.waiting || reg.active;
        if (sw.state !== 'activated') {
          await new Promise((resolve) => sw.addEventListener('statechange', () => sw.state === 'activated' && resolve()));
        }
        const channel = new MessageChannel();
        const started = new Promise((resolve) => navigator.serviceWorker.addEventListener('message', (e) => resolve(e.data)));
        sw.postMessage('connect', [channel.port2]);
        const start = await started;
        if (!start.ok) return { start };
        const { McpClient, PostMessageClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
        const client = new McpClient(new PostMessageClientTransport({ target: channel.port1 }));
        const init = await client.connect();
        const { tools } = await client.listTools();
        const call = await client.callTool('where', { n: 7 });
        const bad = await client.callTool('where', { n: 'x' });
        const next = await client.callTool('where', { n: 8 });
        await client.close();
        return {
          start, server: init.serverInfo.name, tools: tools.map((t) => t.name),
          call: call.content[0].text, bad: bad.isError === true, next: next.content[0].text,
        };
      }, url),
    { html: '<!doctype html><script src="/dist/modelcontext.iife.js"></script>' },
  );
  assert.deepEqual(r, {
    start: { ok: true }, server: 'sw', tools: ['where'], call: 'object 7', bad: true, next: 'object 8',
  });
});

// The client side (src/client/): McpClient over the exported client transports, against this
// polyfill's own servers — a dedicated Worker's (postMessage), the page's own tab server, an
// iframe's, another page's (BroadcastChannel), an emitter's and an extension port's — and the
// McpClient behaviours: timeout (RequestTimeoutError, the server sees notifications/cancelled),
// close (pending requests reject with TransportClosedError), AbortSignal cancellation, and the
// reconnection schedule with a custom scheduler.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { withPage, getServer, inlinePage, requireDist, DIST_DIR, PAGE_UNTIL } from './harness.mjs';
import { settledHeapSnapshot, countNamed } from '../../scripts/lib/heap-snapshot.mjs';

requireDist();

// The classic build, and the page waits of the harness (`__until`, PAGE_UNTIL).
const CLASSIC = `<script>${PAGE_UNTIL}</script><script src="/dist/modelcontext.iife.js"></script>`;
const ESM = `<script type="module">
  import * as M from '/dist/modelcontext.js';
  await M.ready; // the classes come with the core
  window.M = M;
  window.loaded = true;
</script>`;

// A module worker hosting a server on postMessage (target: self). Tools: echo, hang (never
// settles; reports its cancellation to the page), where. { cmd: 'stop' } disconnects the
// session, { cmd: 'start' } connects a new one.
const WORKER = `
import '/dist/modelcontext.js';
const mc = navigator.modelContext;
await mc.registerTool({ name: 'echo', description: 'Echo', execute: async (input) => ({ echo: input }) });
await mc.registerTool({
  name: 'hang', description: 'Never settles',
  execute: (input, { signal }) => new Promise(() => {
    signal.addEventListener('abort', () => self.postMessage({ cancelled: String(signal.reason?.message ?? signal.reason) }));
  }),
});
await mc.registerTool({
  name: 'where', description: 'Where it runs',
  execute: async () => ({ isWorker: typeof WorkerGlobalScope === 'function' && self instanceof WorkerGlobalScope }),
});
let session;
async function start() {
  session = await mc.connect({ serverInfo: { name: 'worker-server', version: '1.0.0' }, transport: { type: 'postMessage', target: self } });
}
self.addEventListener('message', async (e) => {
  if (e.data?.cmd === 'stop') { session.disconnect(); self.postMessage({ stopped: true }); }
  if (e.data?.cmd === 'start') { await start(); self.postMessage({ started: true }); }
});
await start();
self.postMessage({ ready: true });
`;

let workerUrl;
async function worker() {
  if (!workerUrl) {
    const server = await getServer();
    workerUrl = `/__client/${process.pid}-worker.js`;
    server.route(workerUrl, { body: WORKER, type: 'text/javascript' });
  }
  return workerUrl;
}

test('exports: McpClient, the client transports and the error classes (ESM named exports = the installed copy)', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded);
    const r = await page.evaluate(() => {
      const rec = globalThis[Symbol.for('modelcontext-polyfill')].client;
      const names = Object.keys(rec).sort();
      const same = names.filter((n) => n !== 'load').every((n) => window.M[n] === rec[n]);
      const { RequestTimeoutError, TransportClosedError, TransportError, McpError } = rec;
      const t = new RequestTimeoutError('m', { requestId: 3, method: 'x', timeoutMs: 5 });
      const c = new TransportClosedError('gone', { reason: 'why' });
      const m = new McpError(-32601, 'Method not found', { a: 1 });
      return {
        names, same, frozen: Object.isFrozen(rec),
        timeout: [t instanceof RequestTimeoutError, t instanceof TransportError, t instanceof Error, t.name, t.code, t.requestId, t.method, t.timeoutMs],
        closed: [c instanceof TransportError, c.name, c.code, c.reason],
        mcp: [m instanceof Error, m.name, m.code, m.message, m.data.a],
      };
    });
    assert.deepEqual(r.names, [
      'BroadcastChannelClientTransport', 'EventClientTransport', 'ExtensionClientTransport',
      'IframeParentClientTransport', 'McpClient', 'McpError', 'PostMessageClientTransport',
      'RequestTimeoutError', 'TabClientTransport', 'TransportClosedError', 'TransportError', 'load',
    ]);
    assert.equal(r.same, true);
    assert.equal(r.frozen, true);
    assert.deepEqual(r.timeout, [true, true, true, 'RequestTimeoutError', 'REQUEST_TIMEOUT', 3, 'x', 5]);
    assert.deepEqual(r.closed, [true, 'TransportClosedError', 'TRANSPORT_CLOSED', 'why']);
    assert.deepEqual(r.mcp, [true, 'McpError', -32601, 'MCP error -32601: Method not found', 1]);
  }, { html: ESM }));

// The client classes stand in for the client module's (polyfill/src/client.js): a page that
// makes no client never fetches it; the first client made loads it, once.
test('the client module loads when a page first makes a client: what a stand-in does before and after', () =>
  withPage(async ({ page, goto }) => {
    const asked = [];
    page.on('request', (r) => asked.push(new URL(r.url()).pathname.replace(/^.*\//, '')));
    await goto(await inlinePage(`<script type="module">
      import * as M from '/dist/modelcontext.js';
      await M.ready;
      await navigator.modelContext.registerTool({ name: 'echo', description: 'Echo', execute: ({ a }) => 'echo ' + a });
      window.M = M;
    </script>`));
    await page.waitForFunction(() => window.M);
    const before = asked.filter((f) => f.startsWith('modelcontext_client'));
    const r = await page.evaluate(async () => {
      const { McpClient, TabClientTransport, loadClient } = window.M;
      const notes = [];
      // Made before the module is here: the arguments wait for it; so do handlers.
      const transport = new TabClientTransport({ targetOrigin: location.origin });
      const client = new McpClient(transport, { clientInfo: { name: 'early', version: '1' } });
      const badOptions = new McpClient(transport, { timeoutMs: -1 });
      const idle = [client.state, client.pendingRequests, client.serverInfo, client.transport === transport, transport.isConnected, transport.onmessage];
      client.onclose = () => notes.push('closed');
      const off = client.onNotification('notifications/tools/list_changed', () => notes.push('changed'));
      const removed = client.onNotification('notifications/tools/list_changed', () => notes.push('removed handler ran'));
      removed();
      const syncErrors = [
        (() => { try { client.onNotification(5, () => {}); } catch (e) { return e.name; } })(),
        (() => { try { client.setRequestHandler('roots/list', 5); } catch (e) { return e.name; } })(),
      ];
      client.setRequestHandler('roots/list', () => ({ roots: [] }));
      // A bad option cannot throw before the module is here: it rejects connect() (the
      // transport's, through the client's start of it).
      const bad = new McpClient(new TabClientTransport({ targetOrigin: 5 }));
      const badConnect = await bad.connect().then(() => 'connected', (e) => `${e.name}: ${e.message}`);
      const badOption = await badOptions.connect().then(() => 'connected', (e) => `${e.name}: ${e.message}`);
      const details = await client.connect();
      const connected = [client.state, transport.isConnected, details.serverInfo !== undefined, client.onclose !== null];
      const call = await client.callTool('echo', { a: 1 });
      await navigator.modelContext.registerTool({ name: 'late', description: 'L', execute: () => 'x' });
      const deadline = Date.now() + 3000;
      while (!notes.includes('changed') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      off();
      // Once loaded, a constructor checks its options at once, as the module's classes do.
      await loadClient();
      const now = (() => { try { new TabClientTransport({ targetOrigin: 5 }); return 'no error'; } catch (e) { return `${e.name}: ${e.message}`; } })();
      const after = new McpClient(new TabClientTransport({ targetOrigin: location.origin }));
      const afterState = after.state;
      await after.connect();
      const afterCall = await after.callTool('echo', { a: 2 });
      await after.close();
      await client.close();
      return {
        idle, syncErrors, badConnect, badOption, connected, call: call.content[0].text, notes, now, afterState,
        afterCall: afterCall.content[0].text, instance: client instanceof McpClient && transport instanceof TabClientTransport,
        names: [McpClient.name, TabClientTransport.name],
      };
    });
    assert.deepEqual(before, [], 'the client module is not fetched before a client is made');
    assert.deepEqual(r.idle, ['idle', 0, undefined, true, false, null]);
    assert.deepEqual(r.syncErrors, ['TypeError', 'TypeError']);
    assert.match(r.badConnect, /^TransportError: .*TypeError: .*targetOrigin must be a string/);
    assert.match(r.badOption, /^TypeError: .*timeoutMs must be a non-negative number/);
    assert.deepEqual(r.connected, ['connected', true, true, true]);
    assert.equal(r.call, 'echo 1');
    assert.deepEqual(r.notes, ['changed', 'closed']);
    assert.match(r.now, /^TypeError: .*targetOrigin must be a string/);
    assert.equal(r.afterState, 'idle');
    assert.equal(r.afterCall, 'echo 2');
    assert.equal(r.instance, true);
    assert.deepEqual(r.names, ['McpClient', 'TabClientTransport']);
    assert.deepEqual(asked.filter((f) => f.startsWith('modelcontext_client')).sort(), ['modelcontext_client_glue.js', 'modelcontext_client_glue_bg.wasm']);
  }));

test('preloadClient: the client module loads beside the core, before any client is made, in the file and inline builds', async () => {
  for (const src of ['/dist/modelcontext.js', '/dist/modelcontext.inline.js', '/dist/modelcontext.inline.iife.js']) {
    for (const preload of [true, false]) {
      await withPage(async ({ page, goto }) => {
        // Which wasm modules the page compiles: the client module is the one fetched from its
        // URL, or of its size (the inline builds carry the same bytes).
        await page.addInitScript((clientBytes) => {
          window.compiled = [];
          const note = (source) => (m) => {
            const client = source.byteLength === clientBytes || /modelcontext_client_glue_bg\.wasm$/.test(source.url || '');
            window.compiled.push(client ? 'client' : 'other');
            return m;
          };
          const { compile, compileStreaming, Module } = WebAssembly;
          WebAssembly.compile = (bytes, ...a) => compile.call(WebAssembly, bytes, ...a).then(note(bytes));
          WebAssembly.compileStreaming = (response, ...a) =>
            Promise.resolve(response).then((r) => compileStreaming.call(WebAssembly, r, ...a).then(note(r)));
          // The self-contained classic build compiles synchronously.
          WebAssembly.Module = new Proxy(Module, { construct: (T, a) => note(a[0])(Reflect.construct(T, a)) });
        }, fs.statSync(path.join(DIST_DIR, 'modelcontext_client_glue_bg.wasm')).size);
        const classic = src.endsWith('.iife.js');
        const load = classic ? `<script src="${src}"></script>` : `<script type="module">import '${src}';</script>`;
        await goto(await inlinePage(`<script>window.modelContextPolyfillConfig = { preloadClient: ${preload} };</script>${load}`));
        // No client is made here.
        const r = await page.evaluate(async () => {
          await globalThis[Symbol.for('modelcontext-polyfill')].ready;
          const deadline = Date.now() + 2000;
          while (!window.compiled.includes('client') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
          const { TabClientTransport } = globalThis[Symbol.for('modelcontext-polyfill')].client;
          let now = 'no error';
          // Once the preloaded module is in, a bad option throws from the constructor (a stand-in
          // made before that keeps it for its first promise).
          const until = Date.now() + 2000;
          while (window.compiled.includes('client') && now === 'no error' && Date.now() < until) {
            try { new TabClientTransport({ targetOrigin: 5 }); } catch (e) { now = e.name; }
            await new Promise((r) => setTimeout(r, 10));
          }
          return { client: window.compiled.includes('client'), now };
        });
        assert.deepEqual(r, preload ? { client: true, now: 'TypeError' } : { client: false, now: 'no error' }, `${src} preloadClient ${preload}`);
      });
    }
  }
});

test('a client module that cannot be loaded rejects connect() with the cause and the fix; the page\'s server is unharmed; the next client tries again', () =>
  withPage(async ({ page, goto, server }) => {
    const where = `/__client-missing/${process.pid}/client.wasm`;
    server.route(where, { status: 404, body: 'not here', type: 'text/plain' });
    await goto(await inlinePage(`<script>window.modelContextPolyfillConfig = { clientUrl: '${where}' };</script>
      <script type="module">
      import * as M from '/dist/modelcontext.js';
      await M.ready;
      window.M = M;
    </script>`));
    await page.waitForFunction(() => window.M);
    const r = await page.evaluate(async () => {
      const { McpClient, TabClientTransport } = window.M;
      const client = new McpClient(new TabClientTransport({ targetOrigin: location.origin }));
      const first = await client.connect().then(() => 'connected', (e) => e.message);
      const again = await client.listTools().then(() => 'listed', (e) => e.message);
      // Nothing was made, so there is nothing to close.
      const closed = await client.close().then(() => 'closed', (e) => e.message);
      await navigator.modelContext.registerTool({ name: 't', description: 'T', execute: () => 'ran' });
      const tools = (await navigator.modelContext.getTools()).map((t) => t.name);
      return { first, again, closed, tools };
    });
    assert.match(r.first, /the client module .*\/__client-missing\/.*client\.wasm could not be loaded: HTTP 404.*modelContextPolyfillConfig\.clientUrl/);
    assert.equal(r.again, r.first);
    assert.equal(r.closed, 'closed');
    assert.deepEqual(r.tools, ['t']);
    // The module is there now: the next client loads it and calls.
    server.route(where, { body: fs.readFileSync(path.join(DIST_DIR, 'modelcontext_client_glue_bg.wasm')), type: 'application/wasm' });
    const next = await page.evaluate(async () => {
      const { McpClient, TabClientTransport } = window.M;
      const client = new McpClient(new TabClientTransport({ targetOrigin: location.origin }));
      await client.connect();
      const r = await client.callTool('t', {});
      await client.close();
      return r.content[0].text;
    });
    assert.equal(next, 'ran');
  }));

test('a page calls a dedicated Worker\'s server: PostMessageClientTransport + McpClient', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async (url) => {
      const { McpClient, PostMessageClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const w = new Worker(url, { type: 'module' });
      await new Promise((resolve, reject) => {
        w.addEventListener('message', (e) => e.data?.ready && resolve());
        w.onerror = (e) => reject(new Error(e.message));
      });
      const transport = new PostMessageClientTransport({ target: w });
      const client = new McpClient(transport, { clientInfo: { name: 'page-client', version: '1' } });
      const states = [client.state];
      const init = await client.connect();
      states.push(client.state);
      const { tools } = await client.listTools();
      const echo = await client.callTool('echo', { text: 'hi' });
      const where = await client.callTool('where');
      const ping = await client.ping();
      const unknown = await client.request('nope/nope').catch((e) => [e.name, e.code]);
      // The positional form of the seed: new PostMessageClientTransport(worker).
      const positional = new PostMessageClientTransport(w);
      await client.close();
      states.push(client.state);
      return {
        init, states, tools: tools.map((t) => t.name).sort(), echo: echo.structuredContent,
        where: JSON.parse(where.content[0].text), ping, unknown,
        transportSame: client.transport === transport, connected: transport.isConnected,
        positional: positional instanceof PostMessageClientTransport,
        serverInfo: client.serverInfo, pv: client.protocolVersion,
      };
    }, await worker());
    assert.equal(r.init.protocolVersion, '2025-11-25');
    assert.equal(r.init.serverInfo.name, 'worker-server');
    assert.ok(r.init.capabilities.tools);
    assert.deepEqual(r.states, ['idle', 'connected', 'closed']);
    assert.deepEqual(r.tools, ['echo', 'hang', 'where']);
    assert.deepEqual(r.echo, { echo: { text: 'hi' } });
    assert.deepEqual(r.where, { isWorker: true });
    assert.deepEqual(r.ping, {});
    assert.deepEqual(r.unknown, ['McpError', -32601]);
    assert.equal(r.transportSame, true);
    assert.equal(r.connected, false);
    assert.equal(r.positional, true);
    assert.equal(r.serverInfo.name, 'worker-server');
    assert.equal(r.pv, '2025-11-25');
  }, { html: CLASSIC }));

test('a same-page tab server via TabClientTransport (the page\'s own default tab server)', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const { McpClient, TabClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      await navigator.modelContext.registerTool({
        name: 'add', description: 'Adds',
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        execute: async ({ a, b }) => a + b,
      });
      const client = new McpClient(new TabClientTransport({ targetOrigin: location.origin }));
      const init = await client.connect();
      const { tools } = await client.listTools();
      const sum = await client.callTool('add', { a: 2, b: 3 });
      const bad = await client.callTool('add', { a: 'x' });
      const changed = [];
      client.onNotification('notifications/tools/list_changed', (n) => changed.push(n.method));
      await navigator.modelContext.registerTool({ name: 'late', description: 'Late', execute: async () => 1 });
      await new Promise((r) => setTimeout(r, 50));
      await client.close();
      return { init, tools: tools.map((t) => t.name), sum: sum.content[0].text, bad: bad.isError, changed };
    });
    assert.equal(r.init.protocolVersion, '2025-11-25');
    assert.deepEqual(r.tools, ['add']);
    assert.equal(r.sum, '5');
    assert.equal(r.bad, true);
    assert.deepEqual(r.changed, ['notifications/tools/list_changed']);
  }, { html: CLASSIC }));

// A closed client lets go of the page's functions (the real client's copies, which the client
// module kept as roots of its reference table), and gets them back from the page's client
// object at the next connect(): handlers, hooks and request handlers work across a close.
test('a closed client keeps its notification and request handlers and its hooks for the next connect()', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const { McpClient, TabClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const mc = navigator.modelContext;
      const session = await mc.connect({ transport: { type: 'tab', channelId: 'again' } });
      session.registerTool('ask', {
        description: 'Asks the client for its roots',
        handler: async (args, extra) => extra.sendRequest('roots/list', {}),
      });
      const client = new McpClient(new TabClientTransport({ channelId: 'again' }));
      const changed = [];
      const removed = [];
      client.onNotification('notifications/tools/list_changed', () => changed.push(client.state));
      const off = client.onNotification('notifications/tools/list_changed', () => removed.push(1));
      client.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///again', name: 'again' }] }));
      const closes = [];
      client.onclose = (reason) => closes.push(reason ?? 'close()');
      const round = async (name) => {
        await client.connect();
        const roots = (await client.callTool('ask')).structuredContent?.roots?.[0]?.uri;
        session.registerTool(name, { description: 'Changes the list', handler: () => 'x' });
        await new Promise((r) => setTimeout(r, 100));
        await client.close();
        return roots;
      };
      const first = await round('t1');
      off();
      const hookAfterClose = typeof client.onclose;
      // Added while closed: held by the page's object until the next connect().
      const late = [];
      client.onNotification('notifications/tools/list_changed', () => late.push(client.state));
      const second = await round('t2');
      return { first, second, changed, removed, late, closes, hookAfterClose, state: client.state };
    });
    assert.deepEqual(r, {
      first: 'file:///again', second: 'file:///again', changed: ['connected', 'connected'], removed: [1],
      late: ['connected'], closes: ['close()', 'close()'], hookAfterClose: 'function', state: 'closed',
    });
  }, { html: CLASSIC }));

test('a client whose handlers hold it is collected once closed, or never connected, and dropped', () =>
  withPage(async ({ page, context }) => {
    await page.evaluate(async () => {
      const { McpClient, TabClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      await navigator.modelContext.registerTool({ name: 'echo', description: 'Echoes', execute: async (a) => JSON.stringify(a) });
      window.Marker = class HeldByTheClientsHandlers {};
      // A client with handlers that hold it, as a page's usually do.
      const held = () => {
        const client = new McpClient(new TabClientTransport({ targetOrigin: location.origin }));
        const marker = new Marker();
        client.onNotification('notifications/tools/list_changed', () => client.listTools(marker));
        client.setRequestHandler('roots/list', () => ({ roots: [], marker, client }));
        return { client, marker };
      };
      for (let i = 0; i < 30; i++) {
        const { client, marker } = held();
        client.onerror = () => client.close(marker);
        await client.connect();
        await client.callTool('echo', { i });
        await client.close();
      }
      // Never connected, and given the same functions (and a hook): nothing holds them either.
      for (let i = 0; i < 30; i++) {
        const { client, marker } = held();
        client.onclose = () => client.close(marker);
      }
    });
    const snap = await settledHeapSnapshot(await context.newCDPSession(page), page);
    const kept = countNamed(snap, 'HeldByTheClientsHandlers', 'object');
    assert.ok(kept <= 1, `${kept} of 60 closed or never-connected clients are kept`);
  }, { html: CLASSIC, timeout: 30_000 }));

// Long strings cross out of wasm apart from the JSON text of the rest (src/js from_json), in the
// page's server and in the client module alike: a result's long text and its long structured
// strings arrive equal and in place, and the next call is served.
test('McpClient: a result\'s long strings (escaped, non-ASCII, in arrays and under odd keys) arrive intact from the page\'s server', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const { McpClient, TabClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const long = '"quoted" \\ and\nlines\t日本語 😀 '.repeat(1500);
      const structured = { list: ['short', long, [long]], 'odd "key"\n': { deep: long }, n: 1 };
      navigator.modelContext.registerTool('long', {
        description: 'Long strings',
        outputSchema: { type: 'object' },
        handler: () => ({ content: [{ type: 'text', text: long }], structuredContent: structured }),
      });
      await navigator.modelContext.registerTool({ name: 'echo', description: 'Echoes', execute: ({ s }) => s });
      const client = new McpClient(new TabClientTransport({ targetOrigin: location.origin }));
      await client.connect();
      const got = await client.callTool('long', {});
      const echoed = await client.callTool('echo', { s: long });
      const next = await client.callTool('echo', { s: 'next' });
      await client.close();
      return {
        text: got.content[0].text === long,
        structured: JSON.stringify(got.structuredContent) === JSON.stringify(structured),
        echoed: echoed.content[0].text === long,
        bytes: new TextEncoder().encode(long).length,
        next: next.content[0].text,
      };
    });
    assert.ok(r.bytes > 16 * 1024, `${r.bytes} bytes`);
    assert.deepEqual(r, { text: true, structured: true, echoed: true, bytes: r.bytes, next: 'next' });
  }, { html: CLASSIC }));

// As the core's transports do (tab_transport.test.mjs), the client module's tab and iframe
// transports post from a microtask of their own: with a DevTools client attached, every
// postMessage records its caller's whole stack, wasm frames included.
test('TabClientTransport posts from a microtask of its own (no wasm frame under postMessage), in order', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const { McpClient, TabClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      await navigator.modelContext.registerTool({ name: 'echo', description: 'Echo', execute: async ({ n }) => String(n) });
      const stacks = [];
      const ids = [];
      const post = window.postMessage;
      window.postMessage = function (message, ...rest) {
        if (message && message.direction === 'client-to-server') {
          stacks.push(new Error().stack.split('\n').slice(1));
          if (message.payload && message.payload.id !== undefined) ids.push(message.payload.id);
        }
        return post.call(this, message, ...rest);
      };
      Error.stackTraceLimit = 100;
      const client = new McpClient(new TabClientTransport({ targetOrigin: location.origin }));
      await client.connect();
      const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => client.callTool('echo', { n })));
      await client.close();
      window.postMessage = post;
      return {
        answers: answers.map((a) => a.content[0].text),
        posts: stacks.length,
        ordered: ids.every((id, i) => i === 0 || id > ids[i - 1]),
        requests: ids.length,
        wasm: stacks.flat().filter((f) => /wasm/.test(f)),
      };
    });
    assert.deepEqual(r.answers, ['1', '2', '3', '4', '5']);
    // mcp-check-ready, initialize, notifications/initialized and the five calls at least.
    assert.ok(r.posts >= 8, `${r.posts} posts`);
    assert.ok(r.requests >= 6, `${r.requests} requests`);
    assert.equal(r.ordered, true);
    assert.deepEqual(r.wasm, []);
  }, { html: CLASSIC }));

test('timeout: a never-settling tool rejects with RequestTimeoutError and the server sees notifications/cancelled', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async (url) => {
      const { McpClient, PostMessageClientTransport, RequestTimeoutError, TransportError } =
        (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const w = new Worker(url, { type: 'module' });
      const cancelled = new Promise((resolve) => w.addEventListener('message', (e) => e.data?.cancelled && resolve(e.data.cancelled)));
      await new Promise((resolve) => w.addEventListener('message', (e) => e.data?.ready && resolve()));
      const client = new McpClient(new PostMessageClientTransport({ target: w }), { timeoutMs: 60000 });
      await client.connect();
      const t0 = performance.now();
      const e = await client.callTool('hang', {}, { timeoutMs: 150 }).catch((e) => e);
      const elapsed = performance.now() - t0;
      const serverSaw = await cancelled;
      const stillWorks = (await client.callTool('echo', { n: 1 })).structuredContent;
      await client.close();
      return {
        isTimeout: e instanceof RequestTimeoutError, isTransportError: e instanceof TransportError,
        name: e.name, code: e.code, method: e.method, timeoutMs: e.timeoutMs, requestId: e.requestId,
        message: e.message, elapsed, serverSaw, stillWorks,
      };
    }, await worker());
    assert.equal(r.isTimeout, true);
    assert.equal(r.isTransportError, true);
    assert.equal(r.name, 'RequestTimeoutError');
    assert.equal(r.code, 'REQUEST_TIMEOUT');
    assert.equal(r.method, 'tools/call');
    assert.equal(r.timeoutMs, 150);
    assert.equal(typeof r.requestId, 'number');
    assert.match(r.message, /timed out after 150 ms/);
    assert.ok(r.elapsed >= 145, `${r.elapsed}`);
    assert.match(r.serverSaw, /timed out after 150 ms/);
    assert.deepEqual(r.stillWorks, { echo: { n: 1 } });
  }, { html: CLASSIC }));

test('close: every pending request rejects with TransportClosedError; onclose fires once', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const { McpClient, TabClientTransport, TransportClosedError } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const aborted = [];
      await navigator.modelContext.registerTool({
        name: 'hang', description: 'Never settles',
        execute: (input, { signal }) => new Promise(() => signal.addEventListener('abort', () => aborted.push(1))),
      });
      const client = new McpClient(new TabClientTransport());
      const closes = [];
      client.onclose = (reason) => closes.push(reason ?? null);
      await client.connect();
      const calls = [1, 2, 3].map(() => client.callTool('hang').catch((e) => e));
      await new Promise((r) => setTimeout(r, 50));
      const pendingBefore = client.pendingRequests;
      await client.close();
      const errors = await Promise.all(calls);
      const after = await client.ping().catch((e) => e.name);
      await client.close();
      await new Promise((r) => setTimeout(r, 50));
      return {
        pendingBefore, pendingAfter: client.pendingRequests,
        errors: errors.map((e) => [e instanceof TransportClosedError, e.name, e.code]),
        after, closes, state: client.state, aborted: aborted.length,
      };
    });
    assert.equal(r.pendingBefore, 3);
    assert.equal(r.pendingAfter, 0);
    assert.deepEqual(r.errors, Array(3).fill([true, 'TransportClosedError', 'TRANSPORT_CLOSED']));
    assert.equal(r.after, 'TransportClosedError');
    assert.deepEqual(r.closes, [null]);
    assert.equal(r.state, 'closed');
    assert.equal(r.aborted, 3, 'close() sent notifications/cancelled for each request in flight');
  }, { html: CLASSIC }));

test('a server that stops (mcp-server-stopped) closes the client with its reason, pending requests rejected', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const { McpClient, TabClientTransport, TransportClosedError } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const mc = navigator.modelContext;
      await mc.registerTool({ name: 'hang', description: 'Never settles', execute: () => new Promise(() => {}) });
      const session = await mc.connect({ transport: { type: 'tab', channelId: 'stops' } });
      const client = new McpClient(new TabClientTransport({ channelId: 'stops' }));
      const closes = [];
      client.onclose = (reason) => closes.push(reason);
      await client.connect();
      const pending = client.callTool('hang').catch((e) => e);
      await new Promise((r) => setTimeout(r, 30));
      session.disconnect();
      const e = await pending;
      return { closed: e instanceof TransportClosedError, reason: e.reason, closes, state: client.state };
    });
    assert.equal(r.closed, true);
    assert.match(r.reason, /mcp-server-stopped/);
    assert.equal(r.closes.length, 1);
    assert.match(r.closes[0], /stopped/);
    assert.equal(r.state, 'closed');
  }, { html: CLASSIC }));

test('AbortSignal: aborting sends notifications/cancelled and rejects with the signal\'s reason', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async (url) => {
      const { McpClient, PostMessageClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const w = new Worker(url, { type: 'module' });
      const cancelled = new Promise((resolve) => w.addEventListener('message', (e) => e.data?.cancelled && resolve(e.data.cancelled)));
      await new Promise((resolve) => w.addEventListener('message', (e) => e.data?.ready && resolve()));
      const client = new McpClient(new PostMessageClientTransport({ target: w }));
      await client.connect();
      const ac = new AbortController();
      const p = client.callTool('hang', {}, { signal: ac.signal });
      setTimeout(() => ac.abort(), 30);
      const e = await p.catch((e) => e);
      const serverSaw = await cancelled;
      // A custom reason is what the promise rejects with.
      const ac2 = new AbortController();
      const p2 = client.request('tools/call', { name: 'hang', arguments: {} }, { signal: ac2.signal });
      const mine = new Error('user pressed stop');
      setTimeout(() => ac2.abort(mine), 10);
      const e2 = await p2.catch((e) => e);
      // Already aborted: rejects at once without sending.
      const e3 = await client.ping({ signal: AbortSignal.abort() }).catch((e) => e.name);
      const badSignal = await client.ping({ signal: {} }).catch((e) => e.name);
      await client.close();
      return { name: e.name, isDom: e instanceof DOMException, serverSaw, same: e2 === mine, e3, badSignal, pending: client.pendingRequests };
    }, await worker());
    assert.equal(r.name, 'AbortError');
    assert.equal(r.isDom, true);
    assert.ok(r.serverSaw.length > 0);
    assert.equal(r.same, true);
    assert.equal(r.e3, 'AbortError');
    assert.equal(r.badSignal, 'TypeError');
  }, { html: CLASSIC }));

test('reconnect: a custom scheduler gets (reconnect, delay, attemptCount) on the backoff schedule; close() calls its cancel', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const { McpClient, TabClientTransport, TransportClosedError } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const mc = navigator.modelContext;
      await mc.registerTool({ name: 'echo', description: 'Echo', execute: async (x) => x });
      await mc.registerTool({ name: 'hang', description: 'Never settles', execute: () => new Promise(() => {}) });
      let session = await mc.connect({ transport: { type: 'tab', channelId: 'rc' } });
      const calls = [];
      let cancels = 0;
      let mode = 'fire';
      let held;
      const scheduler = (reconnect, delay, attemptCount) => {
        calls.push([delay, attemptCount]);
        if (mode === 'hold') { held = reconnect; return () => { cancels++; }; }
        // The second attempt finds the server back.
        if (attemptCount === 1) {
          mc.connect({ transport: { type: 'tab', channelId: 'rc' } }).then((s) => { session = s; setTimeout(reconnect, 0); });
          return () => { cancels++; };
        }
        const id = setTimeout(reconnect, 0);
        return () => { cancels++; clearTimeout(id); };
      };
      const client = new McpClient(new TabClientTransport({ channelId: 'rc' }), {
        timeoutMs: 300,
        reconnect: { initialDelayMs: 100, maxDelayMs: 1000, factor: 2, maxRetries: 4, scheduler },
      });
      const events = [];
      client.onreconnect = (info) => events.push(['reconnect', info.attempts, info.protocolVersion]);
      client.onerror = (e) => events.push(['error', e.name]);
      client.onclose = (reason) => events.push(['close', reason ?? null]);
      await client.connect();
      // Its own long timeout: a loaded machine that stalls past the client's 300 ms before
      // the disconnect below must not turn the loss into a timeout.
      const inFlight = client.callTool('hang', {}, { timeoutMs: 10_000 }).catch((e) => e);
      await new Promise((r) => setTimeout(r, 30));
      session.disconnect();
      const lost = await inFlight;
      const stateAfterLoss = client.state;
      // A request made while reconnecting waits for the new connection.
      const queued = client.callTool('echo', { q: 1 }, { timeoutMs: 5000 });
      await __until(() => client.state === 'connected', 'the reconnect', 5000);
      const queuedResult = (await queued).structuredContent;
      const firstRound = calls.slice();
      // Second loss: the scheduler holds the reconnect; close() cancels it; a late call is a no-op.
      mode = 'hold';
      session.disconnect();
      await __until(() => client.state !== 'connected', 'the second loss', 5000);
      const heldState = client.state;
      await client.close();
      held();
      await new Promise((r) => setTimeout(r, 100));
      return {
        lostIsClosed: lost instanceof TransportClosedError, stateAfterLoss, queuedResult, firstRound,
        allCalls: calls, cancels, events, heldState, finalState: client.state,
      };
    });
    assert.equal(r.lostIsClosed, true);
    assert.equal(r.stateAfterLoss, 'reconnecting');
    assert.deepEqual(r.queuedResult, { q: 1 });
    // attempt 0 (100 ms) found no server and timed out; attempt 1 (200 ms) re-initialized.
    assert.deepEqual(r.firstRound, [[100, 0], [200, 1]]);
    assert.deepEqual(r.allCalls, [[100, 0], [200, 1], [100, 0]]);
    assert.equal(r.cancels, 1, 'close() called the pending reconnection\'s cancel once');
    assert.deepEqual(r.events, [
      ['error', 'TransportError'],
      ['reconnect', 2, '2025-11-25'],
      ['close', null],
    ]);
    assert.equal(r.heldState, 'reconnecting');
    assert.equal(r.finalState, 'closed');
  }, { html: CLASSIC }));

test('reconnect: the default scheduler waits initialDelayMs; a scheduler returning nothing is tolerated; maxRetries ends it', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const { McpClient, TabClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const mc = navigator.modelContext;
      let session = await mc.connect({ transport: { type: 'tab', channelId: 'd1' } });
      const client = new McpClient(new TabClientTransport({ channelId: 'd1' }), {
        reconnect: { initialDelayMs: 120, maxRetries: 2 },
      });
      const reconnected = new Promise((resolve) => { client.onreconnect = resolve; });
      await client.connect();
      session.disconnect();
      const lostAt = performance.now();
      session = await mc.connect({ transport: { type: 'tab', channelId: 'd1' } });
      const info = await reconnected;
      const waited = performance.now() - lostAt;
      await client.close();
      session.disconnect();

      // A scheduler that returns nothing, and a server that never comes back.
      const s2 = await mc.connect({ transport: { type: 'tab', channelId: 'd2' } });
      const calls = [];
      const c2 = new McpClient(new TabClientTransport({ channelId: 'd2' }), {
        timeoutMs: 100,
        reconnect: { initialDelayMs: 10, factor: 3, maxRetries: 3, scheduler: (reconnect, delay, n) => { calls.push([delay, n]); setTimeout(reconnect, 0); } },
      });
      const closed = new Promise((resolve) => { c2.onclose = resolve; });
      await c2.connect();
      s2.disconnect();
      const reason = await closed;
      return { info, waited, calls, reason, state: c2.state };
    });
    assert.equal(r.info.attempts, 1);
    assert.ok(r.waited >= 115, `${r.waited}`);
    assert.deepEqual(r.calls, [[10, 0], [30, 1], [90, 2]]);
    assert.match(r.reason, /Reconnection failed after 3 attempt\(s\)/);
    assert.equal(r.state, 'closed');
  }, { html: CLASSIC }));

test('heartbeat: pings while connected; a server that stops answering closes the client', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const { McpClient, EventClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      // An emitter whose delivery to the server can be cut.
      const handlers = new Map();
      let deaf = false;
      const emitter = {
        on: (ev, f) => { (handlers.get(ev) ?? handlers.set(ev, new Set()).get(ev)).add(f); },
        off: (ev, f) => handlers.get(ev)?.delete(f),
        emit: (ev, data) => { if (ev === 'mcp:request' && deaf) return; handlers.get(ev)?.forEach((f) => f(data)); },
      };
      const pings = [];
      emitter.on('mcp:request', (m) => m.method === 'ping' && pings.push(m.id));
      await navigator.modelContext.connect({ transport: { type: 'event', emitter } });
      const client = new McpClient(new EventClientTransport({ emitter }), { heartbeatMs: 40, heartbeatTimeoutMs: 500 });
      const closed = new Promise((resolve) => { client.onclose = resolve; });
      await client.connect();
      // Two pings answered, then cut.
      await __until(() => pings.length >= 2, 'two pings', 5000);
      const alive = client.state;
      deaf = true;
      const reason = await closed;
      return { pings: pings.length, alive, reason, state: client.state };
    });
    assert.ok(r.pings >= 2, `${r.pings} pings`);
    assert.equal(r.alive, 'connected');
    assert.match(r.reason, /heartbeat ping within 500 ms/);
    assert.equal(r.state, 'closed');
  }, { html: CLASSIC }));

test('server-to-client requests: a sampling handler declares the capability and answers; ping is automatic; the SDK\'s request form; a method that is not a string', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const { McpClient, TabClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const mc = navigator.modelContext;
      // A session-API tool asking its client for a sampling.
      const session = await mc.connect({ transport: { type: 'tab', channelId: 'ask' } });
      session.registerTool('ask', {
        description: 'Asks the client',
        handler: async (args, extra) => {
          const answer = await extra.sendRequest('sampling/createMessage', {
            messages: [{ role: 'user', content: { type: 'text', text: '2+2?' } }], maxTokens: 5,
          });
          // The MCP TypeScript SDK's form: the request object, then a result schema (unused).
          const sdkForm = await extra.sendRequest(
            { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: '3+3?' } }], maxTokens: 6 } },
            { parse: () => { throw new Error('the schema is not used'); } },
          );
          const notAMethod = await extra.sendRequest(42, {}).then(() => 'sent', (e) => `${e.name}: ${e.message}`);
          return { answer, sdkForm, notAMethod };
        },
      });
      const client = new McpClient(new TabClientTransport({ channelId: 'ask' }));
      const seen = [];
      client.setRequestHandler('sampling/createMessage', (req, extra) => {
        seen.push([req.method, req.params.maxTokens, typeof extra.requestId, extra.signal instanceof AbortSignal]);
        return { role: 'assistant', content: { type: 'text', text: '4' }, model: 'm' };
      });
      await client.connect();
      const res = await client.callTool('ask').catch((e) => ({ error: e.message }));
      // The session still serves after the refused request.
      const again = await client.callTool('ask').then((x) => x.structuredContent.answer.content.text, (e) => e.message);
      await client.close();
      return { res, seen, again };
    });
    const sampled = { role: 'assistant', content: { type: 'text', text: '4' }, model: 'm' };
    assert.deepEqual(r.res.structuredContent, {
      answer: sampled,
      sdkForm: sampled,
      notAMethod: "TypeError: sendRequest(method, params): method must be a string, such as 'elicitation/create' (or pass the request, { method, params })",
    }, JSON.stringify(r.res));
    assert.deepEqual(r.seen.slice(0, 2), [['sampling/createMessage', 5, 'number', true], ['sampling/createMessage', 6, 'number', true]]);
    assert.equal(r.seen.length, 4);
    assert.equal(r.again, '4');
  }, { html: CLASSIC }));

test('IframeParentClientTransport: an iframe\'s server; a frame without one times out with a clear error', () =>
  withPage(async ({ page, server }) => {
    const child = await inlinePage(`${CLASSIC}
<script>
  navigator.modelContext.registerTool({ name: 'in-frame', description: 'x', execute: async () => location.pathname });
  navigator.modelContext.connect({ transport: { type: 'iframeChild', allowedOrigins: ['${server.origin}'] } });
</script>`);
    const empty = await inlinePage('<p>no server here</p>');
    const r = await page.evaluate(async ({ child, empty, origin }) => {
      const { McpClient, IframeParentClientTransport, TransportError } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const load = (src) => new Promise((resolve) => {
        const f = document.createElement('iframe');
        f.src = src;
        f.onload = () => resolve(f);
        document.body.append(f);
      });
      const frame = await load(child);
      const client = new McpClient(new IframeParentClientTransport({ iframe: frame, targetOrigin: origin }));
      const init = await client.connect();
      const call = await client.callTool('in-frame');
      await client.close();
      const emptyFrame = await load(empty);
      const t0 = performance.now();
      const silent = new IframeParentClientTransport({ iframe: emptyFrame, targetOrigin: origin, connectionTimeout: 300, checkIntervalMs: 50 });
      const e = await silent.start().catch((e) => e);
      const elapsed = performance.now() - t0;
      const viaClient = await new McpClient(new IframeParentClientTransport({ iframe: emptyFrame, targetOrigin: origin, connectionTimeout: 200 }))
        .connect().catch((e) => [e.name, e.code, e.message]);
      let missing;
      try { new IframeParentClientTransport({ iframe: frame }); } catch (err) { missing = `${err.name}: ${err.message}`; }
      return { init: init.serverInfo, call: call.content[0].text, e: [e instanceof TransportError, e.code, e.message], elapsed, viaClient, missing };
    }, { child, empty, origin: server.origin });
    assert.equal(r.init.name, new URL(server.origin).host);
    assert.match(r.call, /^\/__inline\//);
    assert.equal(r.e[0], true);
    assert.equal(r.e[1], 'CONNECTION_FAILED');
    assert.match(r.e[2], /did not answer 'mcp-check-ready' with 'mcp-server-ready' within 300 ms/);
    assert.ok(r.elapsed >= 290, `${r.elapsed}`);
    assert.equal(r.viaClient[0], 'TransportError');
    assert.match(r.viaClient[2], /within 200 ms/);
    assert.match(r.missing, /^TypeError: .*targetOrigin is required/);
  }, { html: `${CLASSIC}<body></body>` }));

// An iframe removed from the document takes its server with it: the transport, which looks at
// the frame's window every second, closes, and the client's call in flight ends then with the
// reason (it waited for its 60 s timeout before, and the client stayed "connected"). A
// transport started before its iframe is in the document is not taken for one removed. A
// PostMessageClientTransport to a window closes when the window does (its frame removed).
test('IframeParentClientTransport and PostMessageClientTransport to a frame\'s window: the frame removed ends the connection and the call in flight; one started before its iframe is inserted connects', () =>
  withPage(async ({ page, server }) => {
    const child = await inlinePage(`${CLASSIC}
<script>
  navigator.modelContext.registerTool({ name: 'slow', description: 'x', execute: () => new Promise((r) => setTimeout(() => r('late'), 5000)) });
  navigator.modelContext.registerTool({ name: 'fast', description: 'x', execute: async () => 'fast' });
  navigator.modelContext.connect({ transport: { type: 'iframeChild', allowedOrigins: ['${server.origin}'] } });
</script>`);
    const pmChild = await inlinePage(`${CLASSIC}
<script>
  navigator.modelContext.registerTool({ name: 'slow', description: 'x', execute: () => new Promise((r) => setTimeout(() => r('late'), 5000)) });
  navigator.modelContext.connect({ transport: { type: 'postMessage', target: parent, origin: '${server.origin}' } })
    .then(() => parent.postMessage('pm-ready', '${server.origin}'));
</script>`);
    const r = await page.evaluate(async ({ child, pmChild, origin }) => {
      const { McpClient, IframeParentClientTransport, PostMessageClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const frame = () => Object.assign(document.createElement('iframe'), { src: child });
      // Connects `client`, starts a call of the slow tool and removes `el` while it runs:
      // what the client's onclose is told, and the call's outcome to come.
      const removedDuringCall = async (client, el) => {
        const closes = [];
        client.onclose = (reason) => closes.push(String(reason?.message ?? reason));
        await client.connect();
        const pending = client.callTool('slow').then(() => 'answered', (e) => [e.name, e.code, e.message]);
        await new Promise((r) => setTimeout(r, 50));
        el.remove();
        return { closes, pending };
      };
      const f = frame();
      await new Promise((r) => { f.onload = r; document.body.append(f); });
      const client = new McpClient(new IframeParentClientTransport({ iframe: f, targetOrigin: origin }));
      const { closes, pending } = await removedDuringCall(client, f);
      const inFlight = await pending;
      const next = await client.callTool('fast').then(() => 'answered', (e) => [e.name, e.code]);
      // Started while its iframe is not in the document (no window yet), then inserted.
      const late = frame();
      const t = new IframeParentClientTransport({ iframe: late, targetOrigin: origin, connectionTimeout: 20_000 });
      const lateClient = new McpClient(t);
      const connecting = lateClient.connect();
      await new Promise((r) => setTimeout(r, 600));
      document.body.append(late);
      await connecting;
      const lateCall = (await lateClient.callTool('fast')).content[0].text;
      await lateClient.close();
      // A PostMessageClientTransport to a frame's window (a server on postMessage there): the
      // window is closed once its frame is removed.
      const pm = frame();
      pm.src = pmChild;
      // (A postMessage server has no handshake: the client speaks once it listens.)
      await new Promise((r) => {
        addEventListener('message', function ready(e) { if (e.data === 'pm-ready') { removeEventListener('message', ready); r(); } });
        document.body.append(pm);
      });
      const pmT = new PostMessageClientTransport({ target: pm.contentWindow, origin });
      const { closes: pmCloses, pending: pmPending } = await removedDuringCall(new McpClient(pmT), pm);
      // Posted before the transport has looked: the closed window fails the send at once.
      const pmSend = await pmT.send({ jsonrpc: '2.0', id: 'x', method: 'ping' }).then(() => 'sent', (e) => [e.code, e.message]);
      const pmInFlight = await pmPending;
      return { inFlight, next, state: client.state, closes, lateCall, lateClosed: t.isConnected, pmInFlight, pmCloses, pmSend };
    }, { child, pmChild, origin: server.origin });
    assert.deepEqual(r.inFlight, ['TransportClosedError', 'TRANSPORT_CLOSED', 'Transport is closed: the iframe was removed from the document']);
    assert.deepEqual(r.next, ['TransportClosedError', 'TRANSPORT_CLOSED']);
    assert.equal(r.state, 'closed');
    assert.deepEqual(r.closes, ['the iframe was removed from the document']);
    assert.equal(r.lateCall, 'fast');
    assert.equal(r.lateClosed, false);
    assert.deepEqual(r.pmInFlight, ['TransportClosedError', 'TRANSPORT_CLOSED', 'Transport is closed: the target window was closed']);
    assert.deepEqual(r.pmCloses, ['the target window was closed']);
    assert.deepEqual(r.pmSend, ['SEND_FAILED', 'PostMessageClientTransport.send(): TypeError: the target window is closed']);
  }, { html: `${CLASSIC}<body></body>`, timeout: 30_000 }));

// A transport whose send() resolves or rejects later (the SDK's Transport shape): a rejected
// send fails its request at once with the failure, as the SDK's own client does (it waited for
// the request's timeout, 60 s by default, before); the client stays connected and serves the
// next request.
test('McpClient: a transport whose send rejects fails that request at once; the next request is served', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const { McpClient } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const answer = (m, result) => queueMicrotask(() => t.onmessage({ jsonrpc: '2.0', id: m.id, result }));
      const t = {
        async start() {},
        async close() { t.onclose?.(); },
        async send(m) {
          if (m.method === 'initialize') return answer(m, { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } });
          if (m.method === 'tools/call' && m.params.name === 'broken') throw new Error('the wire broke');
          if (m.method === 'tools/call') return answer(m, { content: [{ type: 'text', text: 'ok' }] });
        },
      };
      const client = new McpClient(t);
      const errors = [];
      client.onerror = (e) => errors.push(e.message);
      await client.connect();
      const failed = await client.callTool('broken').then(() => 'answered', (e) => [e.name, e.code, e.message]);
      const next = (await client.callTool('fine')).content[0].text;
      return { failed, next, state: client.state, pending: client.pendingRequests, errors };
    });
    assert.deepEqual(r.failed, ['TransportError', 'TRANSPORT_ERROR', 'Transport error: send failed: the wire broke']);
    assert.equal(r.next, 'ok');
    assert.equal(r.state, 'connected');
    assert.equal(r.pending, 0);
    assert.deepEqual(r.errors, [], 'the caller has the error, not onerror');
  }, { html: `${CLASSIC}<body></body>`, timeout: 30_000 }));

test('BroadcastChannelClientTransport: a client page calls a server in another page of the origin', () =>
  withPage(async ({ page, context, server }) => {
    const serverPage = await context.newPage();
    await serverPage.goto(server.url(await inlinePage(CLASSIC)));
    await serverPage.evaluate(async () => {
      await navigator.modelContext.registerTool({ name: 'who', description: 'x', execute: async (x) => ({ from: 'server page', ...x }) });
      await navigator.modelContext.connect({ transport: { type: 'broadcastChannel', channelName: 'bc-test' } });
    });
    const r = await page.evaluate(async () => {
      const { McpClient, BroadcastChannelClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      // Another client on the same channel: its traffic must not confuse ours.
      const other = new McpClient(new BroadcastChannelClientTransport({ channelName: 'bc-test' }));
      const client = new McpClient(new BroadcastChannelClientTransport({ channelName: 'bc-test', instanceId: 'me' }));
      const errors = [];
      client.onerror = (e) => errors.push(e.message);
      await Promise.all([client.connect(), other.connect()]);
      other.onerror = (e) => errors.push(e.message);
      // Same ids on both clients, different answers: each must get its own.
      const [a, b] = await Promise.all([client.callTool('who', { n: 1 }), other.callTool('who', { n: 2 })]);
      const { tools } = await client.listTools();
      await client.close();
      await other.close();
      return { a: a.structuredContent, b: b.structuredContent, tools: tools.map((t) => t.name), errors };
    });
    assert.deepEqual(r.a, { from: 'server page', n: 1 });
    assert.deepEqual(r.b, { from: 'server page', n: 2 });
    assert.deepEqual(r.errors, []);
    assert.ok(r.tools.includes('who'));
    await serverPage.close();
  }, { html: CLASSIC }));

test('EventClientTransport and ExtensionClientTransport (a fake chrome.runtime.Port pair; keep-alives ignored)', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const { McpClient, EventClientTransport, ExtensionClientTransport, TransportClosedError } =
        (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const mc = navigator.modelContext;
      await mc.registerTool({ name: 'hang', description: 'Never settles', execute: () => new Promise(() => {}) });
      // Event: the seed's emitter.
      const handlers = new Map();
      const emitter = {
        on: (ev, f) => { (handlers.get(ev) ?? handlers.set(ev, new Set()).get(ev)).add(f); },
        off: (ev, f) => handlers.get(ev)?.delete(f),
        emit: (ev, data) => handlers.get(ev)?.forEach((f) => f(data)),
      };
      await mc.connect({ transport: { type: 'event', emitter } });
      const ev = new McpClient(new EventClientTransport({ emitter }));
      await ev.connect();
      const evTools = (await ev.listTools()).tools.map((t) => t.name);
      await ev.close();
      const listenersLeft = handlers.get('mcp:response')?.size ?? 0;

      // Extension: two ends of a port.
      function event() {
        const fs = new Set();
        return { addListener: (f) => fs.add(f), removeListener: (f) => fs.delete(f), fire: (...a) => [...fs].forEach((f) => f(...a)), size: () => fs.size };
      }
      function pair() {
        const a = { onMessage: event(), onDisconnect: event() };
        const b = { onMessage: event(), onDisconnect: event() };
        let open = true;
        a.postMessage = (m) => open && queueMicrotask(() => b.onMessage.fire(structuredClone(m)));
        b.postMessage = (m) => open && queueMicrotask(() => a.onMessage.fire(structuredClone(m)));
        a.disconnect = () => { if (open) { open = false; b.onDisconnect.fire(); } };
        b.disconnect = () => { if (open) { open = false; a.onDisconnect.fire(); } };
        return [a, b];
      }
      const [serverPort, clientPort] = pair();
      await mc.connect({ transport: { type: 'extension', port: serverPort } });
      const ext = new McpClient(new ExtensionClientTransport({ port: clientPort }));
      const errors = [];
      ext.onerror = (e) => errors.push(e.message);
      await ext.connect();
      serverPort.postMessage({ type: 'keep-alive', timestamp: Date.now() });
      const extTools = (await ext.listTools()).tools.map((t) => t.name);
      const pending = ext.callTool('hang').catch((e) => e);
      await new Promise((r) => setTimeout(r, 20));
      serverPort.disconnect();
      const e = await pending;
      let bad;
      try { new ExtensionClientTransport({ port: {} }); } catch (err) { bad = err.name; }
      return { evTools, listenersLeft, extTools, errors, closed: e instanceof TransportClosedError, reason: e.reason, state: ext.state, bad };
    });
    assert.deepEqual(r.evTools, ['hang']);
    assert.equal(r.listenersLeft, 0);
    assert.deepEqual(r.extTools, ['hang']);
    assert.deepEqual(r.errors, [], 'keep-alive messages are not errors');
    assert.equal(r.closed, true);
    assert.match(r.reason, /port disconnected/);
    assert.equal(r.state, 'closed');
    assert.equal(r.bad, 'TypeError');
  }, { html: CLASSIC }));

test('transports follow the SDK Transport shape and check their options', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const C = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const err = (f) => { try { f(); return 'no error'; } catch (e) { return `${e.name}: ${e.message}`; } };
      const t = new C.TabClientTransport();
      const shape = ['start', 'send', 'close'].every((m) => typeof t[m] === 'function') && t.onmessage === null && t.isConnected === false;
      const sendEarly = await t.send({ jsonrpc: '2.0', method: 'x' }).catch((e) => e.name);
      await t.start();
      const twice = await t.start().catch((e) => e.name);
      const connected = t.isConnected;
      const closes = [];
      t.onclose = () => closes.push(1);
      await t.close();
      await t.close();
      const closeCount = closes.length;
      // Restartable after close (what reconnection relies on).
      await t.start();
      const again = t.isConnected;
      await t.close();
      return {
        shape, sendEarly, twice, connected, closes: closeCount, again,
        noTarget: err(() => new C.PostMessageClientTransport({})),
        badOrigin: err(() => new C.TabClientTransport({ targetOrigin: 5 })),
        noChannel: err(() => new C.BroadcastChannelClientTransport({})),
        noEmitter: err(() => new C.EventClientTransport({ emitter: {} })),
        notIframe: err(() => new C.IframeParentClientTransport({ iframe: document.body, targetOrigin: '*' })),
        badTransport: err(() => new C.McpClient({})),
        badTimeout: err(() => new C.McpClient(t, { timeoutMs: -1 })),
        badFactor: err(() => new C.McpClient(t, { reconnect: { factor: 0.5 } })),
        badScheduler: err(() => new C.McpClient(t, { reconnect: { scheduler: 5 } })),
        notConnected: await new C.McpClient(t).ping().catch((e) => e.name),
      };
    });
    assert.equal(r.shape, true);
    assert.equal(r.sendEarly, 'InvalidStateError');
    assert.equal(r.twice, 'InvalidStateError');
    assert.equal(r.connected, true);
    assert.equal(r.closes, 1);
    assert.equal(r.again, true);
    assert.match(r.noTarget, /^TypeError: .*target is required/);
    assert.match(r.badOrigin, /^TypeError: .*targetOrigin must be a string/);
    assert.match(r.noChannel, /^TypeError: .*channelName is required/);
    assert.match(r.noEmitter, /^TypeError: .*emitter is required/);
    assert.match(r.notIframe, /^TypeError: .*iframe must be an HTMLIFrameElement/);
    assert.match(r.badTransport, /^TypeError: .*start\(\), send\(\) and close\(\)/);
    assert.match(r.badTimeout, /^TypeError: .*timeoutMs must be a non-negative number/);
    assert.match(r.badFactor, /^TypeError: .*reconnect\.factor/);
    assert.match(r.badScheduler, /^TypeError: .*reconnect\.scheduler must be a function/);
    assert.equal(r.notConnected, 'InvalidStateError');
  }, { html: CLASSIC }));

test('a MessagePort server; onprogress receives the request\'s progress notifications; a handler\'s options do nothing once its call has ended', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const { McpClient, PostMessageClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const ch = new MessageChannel();
      const session = await navigator.modelContext.connect({ transport: { type: 'postMessage', target: ch.port1 } });
      let kept;
      session.registerTool('work', {
        description: 'Reports progress',
        handler: async (args, extra) => {
          kept = extra;
          const during = [extra.reportProgress(1, 2, 'half'), extra.reportProgress(2, 2, 'done')];
          return `worked ${during}`;
        },
      });
      const client = new McpClient(new PostMessageClientTransport({ target: ch.port2 }));
      await client.connect();
      const progress = [];
      const res = await client.callTool('work', {}, { onprogress: (p) => progress.push([p.progress, p.total, p.message]) });
      // Kept past the call: its functions do nothing now, and say so.
      const late = {
        progress: kept.reportProgress(3, 3, 'late'),
        log: kept.log('info', 'late'),
        request: await kept.sendRequest('ping').then(() => 'sent', (e) => e.message),
      };
      const badProgress = await client.ping({ onprogress: 5 }).catch((e) => e.name);
      await client.close();
      return { text: res.content[0].text, progress, late, badProgress };
    });
    assert.equal(r.text, 'worked true,true');
    assert.deepEqual(r.progress, [[1, 2, 'half'], [2, 2, 'done']]);
    assert.equal(r.late.progress, false);
    assert.equal(r.late.log, false);
    assert.match(r.late.request, /this call has ended/);
    assert.equal(r.badProgress, 'TypeError');
  }, { html: CLASSIC }));

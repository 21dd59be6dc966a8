// Interop over the tab transport: MCP-B's TabClientTransport (@mcp-b/transports) carrying the
// official MCP TypeScript client (@modelcontextprotocol/client) talks to the server this
// polyfill runs in the page — a page whose only MCP code is the one-line polyfill import and its
// tool, resource and prompt registrations. Then hostile and malformed traffic on the same
// channel, which the server must ignore or answer with a JSON-RPC error while it keeps serving.
//
// The peers load unbundled from node_modules through an import map (scripts/lib/importmap.mjs).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, inlinePage, requireDist, getServer } from './harness.mjs';
import { importMapFor, importMapScript, MCP_PEERS } from '../../scripts/lib/importmap.mjs';

requireDist('modelcontext.js');
const IMPORT_MAP = importMapScript(importMapFor(MCP_PEERS));

// What the page author writes after the one-line `import '/dist/modelcontext.js'` (in the same
// module: the polyfill's module finishes its top-level await before this code runs, which a
// separate <script type="module"> would not wait for): tools through both doors, a resource and
// a prompt through the session API. `window.calls` records every handler run.
const PAGE_SCRIPT = `
  const mc = navigator.modelContext;
  window.calls = [];
  await mc.registerTool({
    name: 'add',
    title: 'Add',
    description: 'Add two numbers',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    annotations: { readOnlyHint: true },
    execute: ({ a, b }) => { calls.push(['add', a, b]); return String(a + b); },
  });
  document.modelContext.registerTool('greet', {
    description: 'Greet someone by name',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string', minLength: 1 } },
      required: ['name'],
      additionalProperties: false,
    },
    annotations: { idempotentHint: true, openWorldHint: false },
    handler: async ({ name }) => {
      calls.push(['greet', name]);
      return { content: [{ type: 'text', text: 'Hello, ' + name + '!' }] };
    },
  });
  mc.registerResource('notes://today', {
    name: 'today',
    title: "Today's notes",
    mimeType: 'text/plain',
    handler: (uri) => ({ contents: [{ uri: String(uri), mimeType: 'text/plain', text: 'Buy milk' }] }),
  });
  mc.registerPrompt('summarize', {
    description: 'Summarize a topic',
    arguments: [{ name: 'topic', required: true }],
    handler: ({ topic }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarize ' + topic + ' in one line.' } }],
    }),
  });
  window.pageReady = true;
`;

const PEERS_SCRIPT = `
  import { Client } from '@modelcontextprotocol/client';
  import { TabClientTransport } from '@mcp-b/transports';
  // A fresh client connected over the tab transport; \`seen\` collects its notifications.
  window.connectClient = async (name = 'interop-test', options = {}) => {
    const client = new Client({ name, version: '1.0.0' }, options);
    const seen = { listChanged: 0, errors: [] };
    client.setNotificationHandler('notifications/tools/list_changed', () => { seen.listChanged++; });
    client.onerror = (e) => seen.errors.push(String(e && e.message || e));
    const transport = new TabClientTransport({ targetOrigin: location.origin });
    await client.connect(transport);
    return { client, transport, seen };
  };
  window.TabClientTransport = TabClientTransport;
  window.peersReady = true;
`;

// Everything the server posts on the channel, for the raw-traffic tests.
const WIRE_TAP = `
  window.wire = [];
  addEventListener('message', (e) => {
    const d = e.data;
    if (d && d.type === 'mcp' && d.direction === 'server-to-client' && e.source === window) wire.push(d);
  });
`;

// `build`: 'esm' — the one-line module import, in the page's own module; 'classic' — the
// classic script, then the page's module.
function pageHtml({ config = '', build = 'esm' } = {}) {
  const polyfill =
    build === 'classic'
      ? `<script src="/dist/modelcontext.iife.js"></script>\n<script type="module">${PAGE_SCRIPT}</script>`
      : `<script type="module">import '/dist/modelcontext.js';\n${PAGE_SCRIPT}</script>`;
  return `<!doctype html><meta charset="utf-8"><title>interop</title>
${IMPORT_MAP}
<script>${WIRE_TAP}${config}</script>
${polyfill}
<script type="module">${PEERS_SCRIPT}</script>`;
}

async function openPage(page, goto, opts) {
  await goto(await inlinePage(pageHtml(opts)));
  await page.waitForFunction(() => window.pageReady && window.peersReady);
}

for (const build of ['esm', 'classic']) {
  test(`MCP-B TabClientTransport + the official Client (${build} build): initialize, list, call, resources, prompts, list_changed, reconnect`, () =>
    withPage(async ({ page, goto }) => {
      await openPage(page, goto, { build });
      const r = await page.evaluate(async () => {
        const out = {};
        const { client, seen } = await connectClient();
        out.serverVersion = client.getServerVersion();
        out.protocolVersion = client.getNegotiatedProtocolVersion?.();
        out.capabilities = client.getServerCapabilities();

        const { tools } = await client.listTools();
        out.tools = tools;

        out.add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
        out.greet = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
        out.badType = await client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } });
        out.badRequired = await client.callTool({ name: 'greet', arguments: {} });
        out.badExtra = await client.callTool({ name: 'greet', arguments: { name: 'Ada', shout: true } });
        try {
          out.unknown = await client.callTool({ name: 'nope', arguments: {} });
        } catch (e) {
          out.unknownError = { code: e.code, message: e.message };
        }

        out.resources = (await client.listResources()).resources;
        out.read = await client.readResource({ uri: 'notes://today' });
        out.prompts = (await client.listPrompts()).prompts;
        out.prompt = await client.getPrompt({ name: 'summarize', arguments: { topic: 'WebMCP' } });

        // A later registration reaches the connected client as tools/list_changed.
        await navigator.modelContext.registerTool({
          name: 'later',
          description: 'Registered after the client connected',
          execute: () => 'late',
        });
        const t0 = Date.now();
        while (seen.listChanged === 0 && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 20));
        out.listChanged = seen.listChanged;
        out.toolsAfter = (await client.listTools()).tools.map((t) => t.name);

        // Reconnect: close, then a brand-new client and transport on the same channel.
        await client.close();
        const second = await connectClient('interop-test-2');
        out.reconnectTools = (await second.client.listTools()).tools.map((t) => t.name);
        out.reconnectCall = await second.client.callTool({ name: 'add', arguments: { a: 40, b: 2 } });
        out.reconnectServer = second.client.getServerVersion();
        await second.client.close();
        // The first Client object again, on a fresh transport.
        await client.connect(new TabClientTransport({ targetOrigin: location.origin }));
        out.sameClientAgain = await client.callTool({ name: 'greet', arguments: { name: 'again' } });
        await client.close();
        out.errors = [...seen.errors, ...second.seen.errors];
        out.calls = window.calls;
        return out;
      });

      console.log('server:', JSON.stringify(r.serverVersion), 'protocol', r.protocolVersion);
      console.log('tools/list:', JSON.stringify(r.tools.map(({ name, annotations }) => ({ name, annotations }))));
      console.log('add(2,3):', JSON.stringify(r.add));
      console.log('add(a:"two"):', JSON.stringify(r.badType));

      assert.ok(r.serverVersion?.name, 'serverInfo has a name');
      assert.ok(r.capabilities?.tools, 'the server advertises tools');
      assert.equal(r.capabilities.tools.listChanged, true);

      // Both doors, one registry, with their annotations.
      assert.deepEqual(r.tools.map((t) => t.name), ['add', 'greet']);
      const add = r.tools.find((t) => t.name === 'add');
      const greet = r.tools.find((t) => t.name === 'greet');
      assert.equal(add.description, 'Add two numbers');
      assert.equal(add.title, 'Add');
      assert.equal(add.annotations?.readOnlyHint, true);
      assert.deepEqual(add.inputSchema.required, ['a', 'b']);
      assert.equal(greet.annotations?.idempotentHint, true);
      assert.equal(greet.annotations?.openWorldHint, false);

      // Calls.
      assert.notEqual(r.add.isError, true);
      assert.deepEqual(r.add.content, [{ type: 'text', text: '5' }]);
      assert.deepEqual(r.greet.content, [{ type: 'text', text: 'Hello, Ada!' }]);

      // Invalid arguments: a tool result with isError, naming the instance path and the keyword.
      for (const [what, res, path, keyword] of [
        ['wrong type', r.badType, /\/a\b/, /\btype\b/],
        ['missing required', r.badRequired, /name/, /required/],
        ['additional property', r.badExtra, /shout/, /additionalProperties|additional/],
      ]) {
        assert.equal(res.isError, true, `${what}: isError`);
        const text = res.content.map((c) => c.text).join('\n');
        assert.match(text, path, `${what}: names the path: ${text}`);
        assert.match(text, keyword, `${what}: names the keyword: ${text}`);
      }
      // An unknown tool is a protocol error (or an isError result), never a crash.
      assert.ok(r.unknownError || r.unknown?.isError, 'unknown tool is refused');
      if (r.unknownError) assert.match(r.unknownError.message, /nope/);

      // Resource and prompt registered through the session API.
      assert.deepEqual(r.resources.map((x) => x.uri), ['notes://today']);
      assert.equal(r.read.contents[0].text, 'Buy milk');
      assert.equal(r.read.contents[0].uri, 'notes://today');
      assert.deepEqual(r.prompts.map((p) => p.name), ['summarize']);
      assert.equal(r.prompts[0].arguments[0].name, 'topic');
      assert.equal(r.prompt.messages[0].content.text, 'Summarize WebMCP in one line.');

      // list_changed after a later registration.
      assert.ok(r.listChanged >= 1, 'notifications/tools/list_changed arrived');
      assert.deepEqual(r.toolsAfter, ['add', 'greet', 'later']);

      // Reconnect.
      assert.deepEqual(r.reconnectTools, ['add', 'greet', 'later']);
      assert.deepEqual(r.reconnectCall.content, [{ type: 'text', text: '42' }]);
      assert.deepEqual(r.sameClientAgain.content, [{ type: 'text', text: 'Hello, again!' }]);

      // Invalid calls never reached the handlers.
      assert.deepEqual(r.calls, [['add', 2, 3], ['greet', 'Ada'], ['add', 40, 2], ['greet', 'again']]);
      assert.deepEqual(r.errors, [], 'the client saw no transport or protocol errors');
    }));
}

// Raw traffic helpers, run in the page: post an envelope as a client would, and wait until the
// server has answered request `id` (replies to one window arrive in the order they were posted).
const RAW_HELPERS = () => {
  window.envelope = (payload, over = {}) => ({
    channel: 'mcp-default', type: 'mcp', direction: 'client-to-server', payload, ...over,
  });
  window.responses = () => wire.filter((d) => d.payload && typeof d.payload === 'object' && ('result' in d.payload || 'error' in d.payload));
  window.replyTo = async (id, ms = 5000) => {
    const t0 = Date.now();
    for (;;) {
      const r = responses().find((d) => d.payload.id === id);
      if (r) return r.payload;
      if (Date.now() - t0 > ms) throw new Error(`no reply to ${JSON.stringify(id)} within ${ms} ms`);
      await new Promise((res) => setTimeout(res, 10));
    }
  };
};

test('hostile: an iframe on another origin posting into window.parent is ignored; the client keeps working', () =>
  withPage(async ({ page, goto, server }) => {
    await openPage(page, goto);
    await page.evaluate(RAW_HELPERS);
    // The attacker's frame: a well-formed envelope, aimed at the parent, from a different
    // window (event.source !== window) and origin. It reports when it has posted everything.
    const evil = await inlinePage(`<script>
      const env = (payload) => ({ channel: 'mcp-default', type: 'mcp', direction: 'client-to-server', payload });
      parent.postMessage(env('mcp-check-ready'), '*');
      parent.postMessage(env({ jsonrpc: '2.0', id: 'evil-init', method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'evil', version: '1' } } }), '*');
      parent.postMessage(env({ jsonrpc: '2.0', id: 'evil-call', method: 'tools/call',
        params: { name: 'add', arguments: { a: 1, b: 1 } } }), '*');
      parent.postMessage(env({ jsonrpc: '2.0', id: 'evil-list', method: 'tools/list' }), '*');
      parent.postMessage({ evilDone: true }, '*');
    </script>`);
    const r = await page.evaluate(async (src) => {
      const out = {};
      const { client, seen } = await connectClient();
      const readyBefore = wire.filter((d) => d.payload === 'mcp-server-ready').length;
      const done = new Promise((res) => addEventListener('message', (e) => e.data?.evilDone && res()));
      const frame = document.createElement('iframe');
      frame.src = src;
      document.body.append(frame);
      await done;
      // Everything the frame posted has been dispatched (same source, in order). Round-trip
      // one legitimate request so any reply the server might have posted has arrived too.
      out.afterCall = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
      await new Promise((res) => setTimeout(res, 100));
      out.evilReplies = responses().filter((d) => String(d.payload.id).startsWith('evil')).map((d) => d.payload);
      out.readyAnswers = wire.filter((d) => d.payload === 'mcp-server-ready').length - readyBefore;
      out.frameOrigin = new URL(frame.src).origin;
      out.calls = window.calls;
      out.tools = (await client.listTools()).tools.map((t) => t.name);
      out.errors = seen.errors;
      await client.close();
      return out;
    }, server.url(evil, { alt: true }));
    assert.equal(r.frameOrigin, server.altOrigin);
    assert.deepEqual(r.evilReplies, [], 'no reply to any of the frame\'s requests');
    assert.equal(r.readyAnswers, 0, 'no mcp-server-ready in answer to the frame\'s check');
    assert.deepEqual(r.calls, [['add', 20, 22]], 'the frame\'s tools/call never ran the tool');
    assert.deepEqual(r.afterCall.content, [{ type: 'text', text: '42' }]);
    assert.deepEqual(r.tools, ['add', 'greet']);
    assert.deepEqual(r.errors, []);
  }));

test('malformed envelopes (no payload, wrong direction, wrong channel, wrong type, not an object) are ignored', () =>
  withPage(async ({ page, goto }) => {
    await openPage(page, goto);
    await page.evaluate(RAW_HELPERS);
    const r = await page.evaluate(async () => {
      const { client, seen } = await connectClient();
      const ping = (id) => ({ jsonrpc: '2.0', id, method: 'ping' });
      const before = wire.length;
      const junk = [
        envelope(undefined),
        envelope(null),
        { channel: 'mcp-default', type: 'mcp', direction: 'client-to-server' },
        envelope(ping('wrong-direction'), { direction: 'server-to-client' }),
        envelope(ping('no-direction'), { direction: undefined }),
        envelope(ping('wrong-channel'), { channel: 'mcp-other' }),
        envelope(ping('no-channel'), { channel: undefined }),
        envelope(ping('wrong-type'), { type: 'not-mcp' }),
        envelope('mcp-check-ready', { channel: 'mcp-other' }),
        'mcp-check-ready',
        null,
        42,
        [envelope(ping('in-array'))],
        { payload: ping('bare-payload') },
      ];
      for (const m of junk) postMessage(m, '*');
      postMessage(envelope(ping('probe')), '*');
      const probe = await replyTo('probe');
      const replies = wire.slice(before).filter((d) => d.direction === 'server-to-client' && d.payload?.id !== 'probe');
      const after = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
      await client.close();
      return { probe, replies, after, errors: seen.errors };
    });
    assert.deepEqual(r.probe, { jsonrpc: '2.0', id: 'probe', result: {} });
    // The wire tap also sees the one server-to-client envelope the test itself posted.
    assert.deepEqual(r.replies.map((d) => d.payload.id ?? d.payload), ['wrong-direction']);
    assert.equal(r.replies[0].payload.method, 'ping', 'that one is our own junk, not a reply');
    assert.deepEqual(r.after.content, [{ type: 'text', text: '3' }]);
  }));

test('malformed JSON-RPC payloads get -32600/-32700/-32601 replies and the server keeps serving', () =>
  withPage(async ({ page, goto }) => {
    await openPage(page, goto);
    await page.evaluate(RAW_HELPERS);
    const r = await page.evaluate(async () => {
      const { client, seen } = await connectClient();
      // Each malformed payload, then a ping: the reply that arrives between them belongs to it.
      const cases = [
        ['not JSON-RPC (no jsonrpc, no method)', { foo: 1 }],
        ['a number', 42],
        ['an array with nothing in it', []],
        ['jsonrpc 1.0', { jsonrpc: '1.0', id: 'bad-version', method: 'ping' }],
        ['method is not a string', { jsonrpc: '2.0', id: 'bad-method', method: 42 }],
        ['unknown method', { jsonrpc: '2.0', id: 'unknown-method', method: 'no/such/method' }],
        ['a string that is no control message', 'hello server'],
        ['a BigInt (no JSON form)', 10n],
        ['tools/call without params', { jsonrpc: '2.0', id: 'no-params', method: 'tools/call' }],
      ];
      const out = [];
      let n = 0;
      for (const [what, payload] of cases) {
        const before = responses().length;
        postMessage(envelope(payload), '*');
        const probe = `probe-${++n}`;
        postMessage(envelope({ jsonrpc: '2.0', id: probe, method: 'ping' }), '*');
        await replyTo(probe);
        const got = responses().slice(before).map((d) => d.payload).filter((p) => p.id !== probe);
        out.push({ what, got });
      }
      const after = await client.callTool({ name: 'greet', arguments: { name: 'still here' } });
      await client.close();
      return { out, after, errors: seen.errors };
    });
    for (const { what, got } of r.out) console.log(`${what}: ${JSON.stringify(got)}`);
    // The connected official client sees every reply on the channel (MCP-B's tab wire has no
    // per-client addressing); replies to ids it never sent reach its onerror, nothing worse.
    console.log(`the official client's onerror saw ${r.errors.length} replies to ids it did not send, e.g. ${r.errors[0]}`);
    assert.ok(r.errors.every((e) => /unknown message ID/.test(e)), r.errors.join('\n'));
    const expect = {
      'not JSON-RPC (no jsonrpc, no method)': [-32600, null],
      'a number': [-32600, null],
      'an array with nothing in it': [-32600, null],
      'jsonrpc 1.0': [-32600, 'bad-version'],
      'method is not a string': [-32600, 'bad-method'],
      'unknown method': [-32601, 'unknown-method'],
      'a string that is no control message': [-32600, null],
      'a BigInt (no JSON form)': [-32700, null],
      'tools/call without params': [-32602, 'no-params'],
    };
    for (const { what, got } of r.out) {
      const [code, id] = expect[what];
      assert.equal(got.length, 1, `${what}: exactly one reply, got ${JSON.stringify(got)}`);
      assert.equal(got[0].jsonrpc, '2.0', what);
      assert.equal(got[0].error?.code, code, `${what}: ${JSON.stringify(got[0])}`);
      assert.equal(got[0].id ?? null, id, `${what}: id`);
      assert.ok(got[0].error.message.length > 0, `${what}: has a message`);
    }
    assert.deepEqual(r.after.content, [{ type: 'text', text: 'Hello, still here!' }]);
  }));

test('allowedOrigins without our own origin: own-window clients are refused and onOriginViolation reports them', () =>
  withPage(async ({ page, goto }) => {
    const config = `
      window.violations = [];
      window.modelContextPolyfillConfig = {
        tab: { allowedOrigins: ['https://agent.example'], onOriginViolation: (o) => violations.push(o) },
      };`;
    await openPage(page, goto, { config });
    await page.evaluate(RAW_HELPERS);
    const r = await page.evaluate(async () => {
      const before = wire.length;
      postMessage(envelope('mcp-check-ready'), '*');
      postMessage(envelope({ jsonrpc: '2.0', id: 'refused', method: 'ping' }), '*');
      await new Promise((res) => setTimeout(res, 300));
      return { replies: wire.slice(before), violations, origin: location.origin };
    });
    assert.deepEqual(r.replies, []);
    assert.deepEqual(r.violations, [r.origin, r.origin]);
  }));

test('disconnect() posts mcp-server-stopped (MCP-B clients close); connect() serves again', () =>
  withPage(async ({ page, goto }) => {
    await openPage(page, goto);
    const r = await page.evaluate(async () => {
      const out = {};
      const first = await connectClient();
      let closed = false;
      first.client.onclose = () => { closed = true; };
      navigator.modelContext.disconnect();
      const t0 = Date.now();
      while (!closed && Date.now() - t0 < 5000) await new Promise((res) => setTimeout(res, 10));
      out.closed = closed;
      out.connectedAfterDisconnect = navigator.modelContext.isConnected();
      // The session-API tool went with disconnect(); the W3C tool stays.
      await navigator.modelContext.connect();
      out.connectedAgain = navigator.modelContext.isConnected();
      const second = await connectClient('after-reconnect');
      out.tools = (await second.client.listTools()).tools.map((t) => t.name);
      out.call = await second.client.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
      await second.client.close();
      return out;
    });
    assert.equal(r.closed, true, 'the MCP-B client closed on mcp-server-stopped');
    assert.equal(r.connectedAfterDisconnect, false);
    assert.equal(r.connectedAgain, true);
    assert.deepEqual(r.tools, ['add']);
    assert.deepEqual(r.call.content, [{ type: 'text', text: '2' }]);
  }));

test('the official client in versionNegotiation "auto" mode: server/discover, then the modern (2026-07-28) era', () =>
  withPage(async ({ page, goto }) => {
    await openPage(page, goto);
    const r = await page.evaluate(async () => {
      const { client, seen } = await connectClient('modern', { versionNegotiation: { mode: 'auto' } });
      const out = {
        era: client.getProtocolEra?.(),
        version: client.getNegotiatedProtocolVersion?.(),
        server: client.getServerVersion(),
      };
      out.tools = (await client.listTools()).tools.map((t) => [t.name, t.annotations]);
      out.call = await client.callTool({ name: 'add', arguments: { a: 5, b: 6 } });
      out.bad = await client.callTool({ name: 'add', arguments: { a: 5 } });
      out.errors = seen.errors;
      await client.close();
      return out;
    });
    console.log('auto negotiation:', JSON.stringify({ era: r.era, version: r.version, server: r.server }));
    assert.deepEqual(r.tools.map((t) => t[0]), ['add', 'greet']);
    assert.deepEqual(r.call.content, [{ type: 'text', text: '11' }]);
    assert.equal(r.bad.isError, true);
    assert.match(r.bad.content[0].text, /required/);
    assert.deepEqual(r.errors, []);
  }));

test('a legacy client after a modern one on the same channel: initialize always starts a fresh session', () =>
  withPage(async ({ page, goto }) => {
    await openPage(page, goto);
    const r = await page.evaluate(async () => {
      const modern = await connectClient('modern', { versionNegotiation: { mode: 'auto' } });
      const out = { modernEra: modern.client.getProtocolEra?.() };
      out.modernCall = await modern.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
      await modern.client.close();
      const legacy = await connectClient('legacy');
      out.legacyVersion = legacy.client.getNegotiatedProtocolVersion?.();
      out.legacyCall = await legacy.client.callTool({ name: 'add', arguments: { a: 3, b: 4 } });
      out.errors = [...modern.seen.errors, ...legacy.seen.errors];
      await legacy.client.close();
      return out;
    });
    assert.equal(r.modernEra, 'modern');
    assert.deepEqual(r.modernCall.content, [{ type: 'text', text: '3' }]);
    assert.equal(r.legacyVersion, '2025-11-25');
    assert.deepEqual(r.legacyCall.content, [{ type: 'text', text: '7' }]);
    assert.deepEqual(r.errors, []);
  }));

// A page registering tools one await at a time while an agent is connected: with the default
// interval the agent hears a handful of tools/list_changed (the first at once, then at most one
// per 50 ms), not one per registration, and lists every tool; with listChangedIntervalMs: 0 it
// hears one per registration (each is its own turn).
for (const [label, interval, check] of [
  // At once, then at most one per 50 ms: bounded by the time the registrations took.
  ['default interval', undefined, (heard, n, ms) => heard >= 1 && heard <= 2 + Math.floor(ms / 50)],
  ['listChangedIntervalMs: 0', 0, (heard, n) => heard === n],
]) {
  test(`tools/list_changed while a page registers 200 tools one at a time (${label}): the agent lists them all`, () =>
    withPage(async ({ page, goto }) => {
      const config = interval === undefined ? '' : `window.modelContextPolyfillConfig = { limits: { listChangedIntervalMs: ${interval} } };`;
      await openPage(page, goto, { config });
      const r = await page.evaluate(async () => {
        const { client, seen } = await connectClient('bulk');
        const n = 200;
        const t0 = performance.now();
        for (let i = 0; i < n; i++) {
          await navigator.modelContext.registerTool({ name: `bulk_${i}`, description: 'B', execute: () => String(i) });
        }
        const registeredMs = performance.now() - t0;
        // The last announcement comes at most one interval after the last registration.
        await new Promise((res) => setTimeout(res, 300));
        const { tools } = await client.listTools();
        const out = { n, heard: seen.listChanged, registeredMs, listed: tools.filter((t) => t.name.startsWith('bulk_')).length, errors: seen.errors };
        await client.close();
        return out;
      });
      assert.equal(r.listed, r.n);
      assert.ok(check(r.heard, r.n, r.registeredMs), `${r.heard} announcements for ${r.n} registrations in ${r.registeredMs.toFixed(0)} ms`);
      assert.deepEqual(r.errors, []);
    }));
}

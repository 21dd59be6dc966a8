// The tab transport's lifecycle (src/transport/tab.rs): channels, one server per channel,
// stopping, and what happens when the object that owns a server goes away. Raw envelopes only
// (the MCP-B + official-client interop lives in interop_tab.test.mjs).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, requireDist } from './harness.mjs';
import { heapSnapshot } from '../../scripts/lib/heap-snapshot.mjs';

requireDist('modelcontext.js');

const PAGE = `<!doctype html><meta charset="utf-8"><title>tab transport</title>
<script>
  window.wire = [];
  addEventListener('message', (e) => {
    const d = e.data;
    if (d && d.type === 'mcp' && d.direction === 'server-to-client' && e.source === window) wire.push(d);
    // A test's hook on every message, called before the polyfill's listener (added later).
    if (window.onEarlyMessage) window.onEarlyMessage(e);
  });
  window.send = (channel, payload) =>
    postMessage({ channel, type: 'mcp', direction: 'client-to-server', payload }, '*');
  window.replyTo = async (channel, id, ms = 3000) => {
    const t0 = Date.now();
    for (;;) {
      const r = wire.find((d) => d.channel === channel && d.payload && d.payload.id === id && ('result' in d.payload || 'error' in d.payload));
      if (r) return r.payload;
      if (Date.now() - t0 > ms) return null;
      await new Promise((res) => setTimeout(res, 10));
    }
  };
  window.ping = (id) => ({ jsonrpc: '2.0', id, method: 'ping' });
  // A client's initialize on mcp-default (request id 0), answered.
  window.initialize = (protocolVersion = '2025-06-18') => {
    send('mcp-default', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    return replyTo('mcp-default', 0);
  };
  // The default server starts when the polyfill's core has loaded and says so with
  // 'mcp-server-ready' (a client speaking before it would reach no server).
  window.serverReady = async () => {
    while (!wire.some((d) => d.channel === 'mcp-default' && d.payload === 'mcp-server-ready')) {
      await new Promise((res) => setTimeout(res, 10));
    }
  };
  window.settle = () => new Promise((res) => setTimeout(res, 50));
  // The size of every WebAssembly memory the page's instances export.
  const memories = new Set();
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = (...a) => instantiate.apply(WebAssembly, a).then((r) => {
    const instance = r instanceof WebAssembly.Instance ? r : r.instance;
    for (const v of Object.values(instance.exports)) if (v instanceof WebAssembly.Memory) memories.add(v);
    return r;
  });
  window.wasmBytes = () => [...memories].reduce((n, m) => n + m.buffer.byteLength, 0);
</script>
<script src="/dist/modelcontext.iife.js"></script>`;

test('the default server announces itself on mcp-default and answers mcp-check-ready', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      await settle();
      const announced = wire.filter((d) => d.channel === 'mcp-default' && d.payload === 'mcp-server-ready').length;
      send('mcp-default', 'mcp-check-ready');
      await settle();
      return { announced, after: wire.filter((d) => d.payload === 'mcp-server-ready').length };
    });
    // The classic script installs before the listener above could miss it: exactly one
    // announcement at start, one more per check.
    assert.equal(r.announced, 1);
    assert.equal(r.after, 2);
  }, { html: PAGE }));

test('answers are posted from a microtask of their own, not from inside the core (no wasm frame under postMessage), in order', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      // Every post the core makes to this window, with the stack it was made from.
      const stacks = [];
      const post = window.postMessage;
      window.postMessage = function (message, ...rest) {
        if (message && message.direction === 'server-to-client') stacks.push(new Error().stack.split('\n').slice(1));
        return post.call(this, message, ...rest);
      };
      Error.stackTraceLimit = 100;
      send('mcp-default', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } });
      await replyTo('mcp-default', 1);
      for (let id = 2; id < 7; id++) send('mcp-default', ping(id));
      const last = await replyTo('mcp-default', 6);
      window.postMessage = post;
      const ids = wire.filter((d) => d.payload && d.payload.id >= 2).map((d) => d.payload.id);
      return { last, ids, posts: stacks.length, deepest: Math.max(...stacks.map((s) => s.length)), wasm: stacks.flat().filter((f) => /wasm/.test(f)) };
    });
    assert.deepEqual(r.last, { jsonrpc: '2.0', id: 6, result: {} });
    assert.deepEqual(r.ids, [2, 3, 4, 5, 6]);
    assert.equal(r.posts, 6);
    // The post comes from the helper's own microtask: the wrapper above, the microtask, nothing else.
    assert.deepEqual(r.wasm, []);
    assert.ok(r.deepest <= 3, `a post was made ${r.deepest} frames deep`);
  }, { html: PAGE }));

// A tool whose function answers at once runs while the core handles the request's message
// (src/server/session/mod.rs `receive`), so what it does there reaches the core from inside it.
test('a tool that, while the core handles its call, registers, unregisters itself and another tool, calls a tool, stops another channel and posts a request is answered; the server still answers', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const mc = document.modelContext;
      const out = { inside: [] };
      const plain = (name) => ({ name, description: name, execute: () => name });
      const other = await mc.connect({ transport: { type: 'tab', channelId: 'mcp-other' } });
      const victim = new AbortController();
      await mc.registerTool(plain('victim'), { signal: victim.signal });
      await mc.registerTool(plain('helper'));
      const helper = (await mc.getTools()).find((t) => t.name === 'helper');
      const self = new AbortController();
      let executed;
      await mc.registerTool({
        name: 'meddle',
        description: 'changes what serves it',
        execute: ({ n }) => {
          out.inside.push(n);
          mc.registerTool(plain(`added_${n}`));
          victim.abort();
          self.abort();
          executed = mc.executeTool(helper, {});
          other.disconnect();
          send('mcp-default', ping('after'));
          return `meddled ${n}`;
        },
      }, { signal: self.signal });
      await initialize();
      send('mcp-default', { jsonrpc: '2.0', id: 'm1', method: 'tools/call', params: { name: 'meddle', arguments: { n: 1 } } });
      out.m1 = await replyTo('mcp-default', 'm1');
      out.after = await replyTo('mcp-default', 'after');
      out.executed = await executed;
      send('mcp-default', { jsonrpc: '2.0', id: 'm2', method: 'tools/call', params: { name: 'meddle', arguments: { n: 2 } } });
      out.m2 = await replyTo('mcp-default', 'm2');
      send('mcp-default', { jsonrpc: '2.0', id: 'l', method: 'tools/list' });
      out.list = (await replyTo('mcp-default', 'l')).result.tools.map((t) => t.name);
      send('mcp-other', ping('o'));
      out.other = await replyTo('mcp-other', 'o', 300);
      send('mcp-default', ping('last'));
      out.last = await replyTo('mcp-default', 'last');
      return out;
    });
    assert.deepEqual(r.inside, [1]);
    assert.deepEqual(r.m1.result.content, [{ type: 'text', text: 'meddled 1' }]);
    assert.deepEqual(r.after, { jsonrpc: '2.0', id: 'after', result: {} });
    assert.equal(r.executed, 'helper');
    // The tool unregistered itself while it ran: the next call finds no tool.
    assert.deepEqual(r.m2.error, { code: -32602, message: 'Unknown tool: meddle', data: { name: 'meddle' } });
    assert.deepEqual(r.list, ['added_1', 'helper']);
    assert.equal(r.other, null, 'the channel stopped from inside the call does not answer');
    assert.deepEqual(r.last, { jsonrpc: '2.0', id: 'last', result: {} });
  }, { html: PAGE }));

test('a burst of requests: the first answer goes from its microtask, the rest, queued behind it, from one task after the burst; a lone request after is answered at once', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      send('mcp-default', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } });
      await replyTo('mcp-default', 0);
      // One log of the requests as the window dispatches them and the answers as they are
      // posted.
      const order = [];
      const onRequest = (e) => {
        const d = e.data;
        if (d && d.direction === 'client-to-server' && d.payload && d.payload.id !== undefined) order.push(`request ${d.payload.id}`);
      };
      window.onEarlyMessage = onRequest;
      const post = window.postMessage;
      window.postMessage = function (message, ...rest) {
        if (message && message.direction === 'server-to-client' && message.payload && message.payload.id !== undefined) order.push(`answer ${message.payload.id}`);
        return post.call(this, message, ...rest);
      };
      for (let id = 1; id <= 20; id++) send('mcp-default', ping(id));
      const last = await replyTo('mcp-default', 20);
      await settle(); // every answer dispatched
      send('mcp-default', ping(21));
      await replyTo('mcp-default', 21);
      window.postMessage = post;
      window.onEarlyMessage = null;
      const ids = wire.filter((d) => d.payload && d.payload.id >= 1).map((d) => d.payload.id);
      return { last, ids, order };
    });
    assert.deepEqual(r.last, { jsonrpc: '2.0', id: 20, result: {} });
    assert.deepEqual(r.ids, Array.from({ length: 21 }, (_, i) => i + 1), 'every answer once, in order');
    const requests = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => `request ${from + i}`);
    const answers = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => `answer ${from + i}`);
    assert.deepEqual(r.order, [
      'request 1', 'answer 1', // from the microtask of the task that heard request 1
      ...requests(2, 20), // 2 to 20 answered as each is heard, their answers held: answer 1 is not dispatched yet
      ...answers(2, 20), // from the outbox's task, queued after request 20
      'request 21', 'answer 21', // nothing undispatched: at once again
    ]);
  }, { html: PAGE }));

test('connect({ transport: { type: "tab", channelId } }) serves a second channel; disconnect() stops only that one', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const out = {};
      const session = await navigator.modelContext.connect({ transport: { type: 'tab', channelId: 'mcp-second' } });
      out.connected = session.isConnected();
      send('mcp-second', ping('p1'));
      out.second = await replyTo('mcp-second', 'p1');
      session.disconnect();
      await settle();
      out.stopped = wire.filter((d) => d.channel === 'mcp-second' && d.payload === 'mcp-server-stopped').length;
      out.connectedAfter = session.isConnected();
      send('mcp-second', ping('p2'));
      out.afterStop = await replyTo('mcp-second', 'p2', 300);
      send('mcp-default', ping('p3'));
      out.defaultStillServes = await replyTo('mcp-default', 'p3');
      // The channel is free again.
      const again = await navigator.modelContext.connect({ transport: { type: 'tab', channelId: 'mcp-second' } });
      send('mcp-second', ping('p4'));
      out.again = await replyTo('mcp-second', 'p4');
      again.disconnect();
      return out;
    });
    assert.equal(r.connected, true);
    assert.deepEqual(r.second, { jsonrpc: '2.0', id: 'p1', result: {} });
    assert.equal(r.stopped, 1);
    assert.equal(r.connectedAfter, false);
    assert.equal(r.afterStop, null, 'a stopped server does not answer');
    assert.deepEqual(r.defaultStillServes, { jsonrpc: '2.0', id: 'p3', result: {} });
    assert.deepEqual(r.again, { jsonrpc: '2.0', id: 'p4', result: {} });
  }, { html: PAGE }));

test('a second server on a served channel is refused (both would answer every call)', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      try {
        await navigator.modelContext.connect({ transport: { type: 'tab' } });
        return 'connected';
      } catch (e) {
        return `${e.name}: ${e.message}`;
      }
    });
    assert.match(r, /^InvalidStateError: .*mcp-default/);
  }, { html: PAGE }));

test('a session (and its transport object) freed without disconnect() stops its server cleanly (no dead listener left behind)', () =>
  withPage(async ({ page, pageErrors }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const session = await navigator.modelContext.connect({ transport: { type: 'tab', channelId: 'mcp-freed' } });
      send('mcp-freed', ping('before'));
      const before = await replyTo('mcp-freed', 'before');
      // What the FinalizationRegistry does when the page drops the session object (and the
      // transport object it exposes, which shares ownership of the running server).
      const transport = session.transport;
      session.free();
      transport?.free?.();
      await settle();
      const stopped = wire.filter((d) => d.channel === 'mcp-freed' && d.payload === 'mcp-server-stopped').length;
      send('mcp-freed', ping('after'));
      send('mcp-default', ping('default'));
      const after = await replyTo('mcp-freed', 'after', 300);
      const other = await replyTo('mcp-default', 'default');
      return { before, stopped, after, other };
    });
    assert.deepEqual(r.before, { jsonrpc: '2.0', id: 'before', result: {} });
    assert.equal(r.stopped, 1, 'mcp-server-stopped was posted');
    assert.equal(r.after, null);
    assert.deepEqual(r.other, { jsonrpc: '2.0', id: 'default', result: {} });
    assert.deepEqual(pageErrors.map((e) => e.message), []);
  }, { html: PAGE, allowPageErrors: true }));

test('a request already running when the server stops gets no reply after mcp-server-stopped', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const mc = navigator.modelContext;
      let aborted = null;
      let running;
      const started = new Promise((r) => { running = r; });
      await mc.registerTool({
        name: 'slow',
        description: 'Waits until aborted',
        execute: (_, { signal }) => new Promise((res) => {
          running();
          signal.addEventListener('abort', () => { aborted = String(signal.reason?.name || signal.reason); res('late'); });
        }),
      });
      send('mcp-default', { jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      await replyTo('mcp-default', 'i');
      send('mcp-default', { jsonrpc: '2.0', method: 'notifications/initialized' });
      send('mcp-default', { jsonrpc: '2.0', id: 'slow-call', method: 'tools/call', params: { name: 'slow', arguments: {} } });
      // Running: a call waits for the core's deferred module first, which a loaded machine may
      // not have delivered within a few tasks.
      await started;
      mc.disconnect();
      // The stop, too, may wait for the deferred module on a loaded machine: wait for it (up
      // to 10 s), then a little more for any late reply.
      const stopped = () => wire.findIndex((d) => d.payload === 'mcp-server-stopped');
      for (let i = 0; i < 200 && stopped() < 0; i++) await settle();
      await settle();
      const stoppedAt = stopped();
      const late = wire.findIndex((d) => d.payload && d.payload.id === 'slow-call');
      return { aborted, stoppedAt, late };
    });
    assert.ok(r.stoppedAt >= 0);
    assert.equal(r.late, -1, 'no reply for the cancelled call');
    assert.equal(r.aborted, 'AbortError', 'the handler\'s signal aborted');
  }, { html: PAGE }));

// ---- security: maximum message size and rate limit (src/transport/guard.rs) ----------------

/** PAGE with `modelContextPolyfillConfig` set before the polyfill loads. */
const withConfig = (config) =>
  PAGE.replace('<script src="/dist/', `<script>window.modelContextPolyfillConfig = ${JSON.stringify(config)};</script>\n<script src="/dist/`);

const rateWarnings = (consoleMessages) => consoleMessages.filter((m) => m.type === 'warning' && /rateLimit/.test(m.text));

test('an oversized request gets -32600 naming the limit (default: the engine\'s 4 MiB), and the server keeps answering', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const out = {};
      const big = 'x'.repeat(4 * 1024 * 1024);
      send('mcp-default', { jsonrpc: '2.0', id: 'big', method: 'ping', params: { big } });
      out.big = await replyTo('mcp-default', 'big');
      // An oversized notification is dropped without a reply.
      const n = wire.length;
      send('mcp-default', { jsonrpc: '2.0', method: 'notifications/initialized', params: { big } });
      send('mcp-default', ping('after'));
      out.after = await replyTo('mcp-default', 'after');
      out.extra = wire.slice(n).filter((d) => d.payload?.id !== 'after').length;
      return out;
    });
    assert.equal(r.big.id, 'big');
    assert.equal(r.big.error.code, -32600);
    assert.match(r.big.error.message, /^Message size in bytes is \d+; the limit is 4194304$/);
    assert.equal(r.big.error.data.limit, 4194304);
    assert.deepEqual(r.after, { jsonrpc: '2.0', id: 'after', result: {} });
    assert.equal(r.extra, 0, 'no reply to the oversized notification');
  }, { html: PAGE }));

test('maxMessageBytes: from modelContextPolyfillConfig.tab for the default server, from connect() for another channel', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const out = {};
      const pad = (n) => ({ pad: 'y'.repeat(n) });
      send('mcp-default', { jsonrpc: '2.0', id: 'd-big', method: 'ping', params: pad(1200) });
      out.defaultBig = (await replyTo('mcp-default', 'd-big')).error;
      send('mcp-default', { jsonrpc: '2.0', id: 'd-small', method: 'ping', params: pad(500) });
      out.defaultSmall = await replyTo('mcp-default', 'd-small');
      const session = await navigator.modelContext.connect({ transport: { type: 'tab', channelId: 'mcp-small', maxMessageBytes: 200 } });
      send('mcp-small', { jsonrpc: '2.0', id: 's-big', method: 'ping', params: pad(300) });
      out.smallBig = (await replyTo('mcp-small', 's-big')).error;
      send('mcp-small', ping('s-small'));
      out.smallSmall = await replyTo('mcp-small', 's-small');
      out.options = { ...session.transport.options };
      session.disconnect();
      return out;
    });
    assert.equal(r.defaultBig.code, -32600);
    assert.match(r.defaultBig.message, /the limit is 1000$/);
    assert.deepEqual(r.defaultSmall, { jsonrpc: '2.0', id: 'd-small', result: {} });
    assert.equal(r.smallBig.code, -32600);
    assert.match(r.smallBig.message, /the limit is 200$/);
    assert.deepEqual(r.smallBig.data, { limit: 200, actual: r.smallBig.data.actual });
    assert.ok(r.smallBig.data.actual > 200);
    assert.deepEqual(r.smallSmall, { jsonrpc: '2.0', id: 's-small', result: {} });
    assert.equal(r.options.maxMessageBytes, 200);
  }, { html: withConfig({ tab: { maxMessageBytes: 1000 } }) }));

test('a flood past a small rateLimit (modelContextPolyfillConfig.tab): errors for requests, one warning, then recovery', () =>
  withPage(async ({ page, consoleMessages }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const out = {};
      for (let i = 0; i < 30; i++) send('mcp-default', ping(`f${i}`));
      // Notifications past the limit are dropped silently (one warning covers the burst).
      for (let i = 0; i < 5; i++) send('mcp-default', { jsonrpc: '2.0', method: 'notifications/initialized' });
      const replies = [];
      for (let i = 0; i < 30; i++) replies.push(await replyTo('mcp-default', `f${i}`));
      out.ok = replies.filter((p) => p && 'result' in p).length;
      out.errors = replies.filter((p) => p && 'error' in p).map((p) => p.error);
      out.firstError = replies.findIndex((p) => p && 'error' in p);
      // 10 per 20 s: one token back every 2 s (a slow machine may take a second over the burst).
      await new Promise((res) => setTimeout(res, 2200));
      send('mcp-default', ping('recovered'));
      out.recovered = await replyTo('mcp-default', 'recovered');
      return out;
    });
    assert.equal(r.ok, 10);
    assert.equal(r.firstError, 10, 'the first 10 are served, the rest refused');
    assert.equal(r.errors.length, 20);
    for (const e of r.errors) {
      assert.equal(e.code, -32600);
      assert.match(e.message, /^rate limit: messages per window exceeds the limit of 10$/);
    }
    const warnings = rateWarnings(consoleMessages);
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.match(warnings[0].text, /the tab transport is dropping messages from channel "mcp-default": more than 10 in 20000 ms \(rateLimit\)/);
    assert.deepEqual(r.recovered, { jsonrpc: '2.0', id: 'recovered', result: {} });
  }, { html: withConfig({ tab: { rateLimit: { messages: 10, perMs: 20000 } } }) }));

test('rate limit: off by default (the page\'s own clients are never refused); per channel through connect(); rateLimit: false turns it off', () =>
  withPage(async ({ page, consoleMessages }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const out = {};
      const burst = async (channel, prefix, n) => {
        for (let i = 0; i < n; i++) send(channel, ping(`${prefix}${i}`));
        const replies = [];
        for (let i = 0; i < n; i++) replies.push(await replyTo(channel, `${prefix}${i}`));
        return { ok: replies.filter((p) => p && 'result' in p).length, errors: replies.filter((p) => p && 'error' in p).length };
      };
      out.default = await burst('mcp-default', 'd', 230);
      const limited = await navigator.modelContext.connect({ transport: { type: 'tab', channelId: 'mcp-five', rateLimit: { messages: 5, perMs: 60000 } } });
      out.five = await burst('mcp-five', 'v', 8);
      const open = await navigator.modelContext.connect({ transport: { type: 'tab', channelId: 'mcp-open', rateLimit: false } });
      out.open = await burst('mcp-open', 'o', 300);
      limited.disconnect();
      open.disconnect();
      try {
        await navigator.modelContext.connect({ transport: { type: 'tab', channelId: 'mcp-bad', rateLimit: { messages: 0 } } });
        out.bad = 'connected';
      } catch (e) {
        out.bad = `${e.name}: ${e.message}`;
      }
      return out;
    });
    // No default limit on the tab transport: a burst past the old 200-per-second default is served.
    assert.deepEqual(r.default, { ok: 230, errors: 0 });
    assert.deepEqual(r.five, { ok: 5, errors: 3 });
    assert.deepEqual(r.open, { ok: 300, errors: 0 });
    assert.match(r.bad, /^TypeError: .*rateLimit\.messages must be a positive number/);
    const warnings = rateWarnings(consoleMessages).map((m) => m.text);
    assert.deepEqual(warnings.filter((w) => /channel "mcp-default"/.test(w)), []);
    assert.deepEqual(warnings.filter((w) => /channel "mcp-five": more than 5 in 60000 ms/.test(w)).length, 1);
    assert.equal(warnings.filter((w) => /mcp-open/.test(w)).length, 0);
  }, { html: PAGE }));

test('bad modelContextPolyfillConfig.tab security options: a warning, no default server, the polyfill still installs', () =>
  withPage(async ({ page, consoleMessages }) => {
    const r = await page.evaluate(async () => {
      await globalThis[Symbol.for('modelcontext-polyfill')].ready; // the core is there: no server started
      await settle();
      return {
        installed: typeof navigator.modelContext?.registerTool,
        announced: wire.filter((d) => d.payload === 'mcp-server-ready').length,
      };
    });
    assert.deepEqual(r, { installed: 'function', announced: 0 });
    assert.ok(
      consoleMessages.some((m) => m.type === 'warning' && /default tab transport did not start: TypeError: modelContextPolyfillConfig\.tab\.maxMessageBytes must be a positive number/.test(m.text)),
      JSON.stringify(consoleMessages),
    );
  }, { html: withConfig({ tab: { maxMessageBytes: -1 } }) }));

test('modelContextPolyfillConfig.tab = { persist: true }: the default server\'s session survives a reload', () =>
  withPage(async ({ page: p, context, server }) => {
    server.route('/__tab-default-persist.html', {
      body: withConfig({ tab: { persist: true } }) +
        `<script>window.loads = Number(sessionStorage.getItem('loads') || 0) + 1; sessionStorage.setItem('loads', String(loads));
navigator.modelContext.registerTool({ name: 'which-load', description: 'Which page load answers', execute: async () => 'load ' + loads });</script>`,
    });
    await p.goto(server.url('/__tab-default-persist.html'));
    const before = await p.evaluate(async () => {
      await serverReady();
      send('mcp-default', { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agent', version: '1' } } });
      const init = await replyTo('mcp-default', 'init');
      send('mcp-default', { jsonrpc: '2.0', method: 'notifications/initialized' });
      send('mcp-default', { jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'which-load', arguments: {} } });
      const c1 = await replyTo('mcp-default', 'c1');
      return { version: init.result.protocolVersion, c1: c1.result.content[0].text, stored: !!sessionStorage.getItem('mcp-tab-session-mcp-default') };
    });
    assert.deepEqual(before, { version: '2025-06-18', c1: 'load 1', stored: true });
    await p.reload();
    const after = await p.evaluate(async () => {
      await serverReady();
      send('mcp-default', { jsonrpc: '2.0', id: 'c2', method: 'tools/call', params: { name: 'which-load', arguments: {} } });
      const c2 = await replyTo('mcp-default', 'c2');
      return c2.result?.content?.[0]?.text ?? c2.error;
    });
    assert.equal(after, 'load 2', 'answered by the reloaded page without a new initialize');
    // Stopping the default server on purpose clears what was kept.
    const cleared = await p.evaluate(() => {
      navigator.modelContext.disconnect();
      return sessionStorage.getItem('mcp-tab-session-mcp-default');
    });
    assert.equal(cleared, null);
  }));

test('tools/list: repeated answers are equal and carry each request\'s id; a registration or an abort shows in the next one; another channel gets the same list', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const mc = document.modelContext;
      const tool = (name) => ({ name, description: `the ${name} tool`, inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, execute: () => name });
      await mc.registerTool(tool('a'));
      await mc.registerTool(tool('b'));
      const list = async (channel, id) => {
        send(channel, { jsonrpc: '2.0', id, method: 'tools/list' });
        return replyTo(channel, id);
      };
      const init = (channel) => {
        send(channel, { jsonrpc: '2.0', id: `init-${channel}`, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
        return replyTo(channel, `init-${channel}`);
      };
      await init('mcp-default');
      const names = (reply) => reply.result.tools.map((t) => t.name);
      const out = {};
      out.first = await list('mcp-default', 'l1');
      out.second = await list('mcp-default', 7);
      const ac = new AbortController();
      await mc.registerTool(tool('c'), { signal: ac.signal });
      out.afterRegister = names(await list('mcp-default', 'l3'));
      ac.abort();
      await settle();
      out.afterAbort = names(await list('mcp-default', 'l4'));
      const other = await mc.connect({ transport: { type: 'tab', channelId: 'second' } });
      await init('second');
      out.other = await list('second', 'o1');
      other.disconnect();
      return out;
    });
    assert.equal(r.first.id, 'l1');
    assert.equal(r.second.id, 7);
    assert.deepEqual(Object.keys(r.second), ['jsonrpc', 'id', 'result']);
    assert.deepEqual(r.first.result, r.second.result);
    assert.deepEqual(r.first.result.tools.map((t) => t.name), ['a', 'b']);
    assert.equal(r.first.result.tools[1].description, 'the b tool');
    assert.deepEqual(r.afterRegister, ['a', 'b', 'c']);
    assert.deepEqual(r.afterAbort, ['a', 'b']);
    assert.deepEqual(r.other.result, r.first.result);
  }, { html: PAGE }));

// Tools a page registers with one schema hold it once in the page; the listing the tab wire
// posts gives them one object too (src/server/session/sent.rs, Repeats), which the structured
// clone copies once: an agent receives one schema object per distinct schema, not per tool.
test('tools/list: tools of one schema (one object or equal ones) share one schema object in the posted answer; output schemas too; a change shows in the next list', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const mc = document.modelContext;
      const s = { type: 'object', properties: { q: { type: 'string' } } };
      const o = { type: 'object', properties: { r: { type: 'number' } } };
      const tool = (name, more) => ({ name, description: name, execute: () => ({ r: 1 }), ...more });
      const ac = new AbortController();
      await mc.registerTool(tool('a', { inputSchema: s }), { signal: ac.signal });
      await mc.registerTool(tool('b', { inputSchema: s }));
      await mc.registerTool(tool('c', { inputSchema: JSON.parse(JSON.stringify(s)) }));
      await mc.registerTool(tool('d', { inputSchema: { type: 'object', properties: { q: { type: 'number' } } } }));
      await mc.registerTool(tool('e'));
      await mc.registerTool(tool('f'));
      await mc.registerTool(tool('g', { inputSchema: s, outputSchema: o }));
      await mc.registerTool(tool('h', { outputSchema: o }));
      send('mcp-default', { jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      await replyTo('mcp-default', 'i');
      const list = async (id) => {
        send('mcp-default', { jsonrpc: '2.0', id, method: 'tools/list' });
        const tools = (await replyTo('mcp-default', id)).result.tools;
        const by = Object.fromEntries(tools.map((t) => [t.name, t]));
        // Which tools' member is the very object of which other tool's (in the message as posted).
        const same = (member) => tools.filter((t) => t[member]).map((t) => tools.filter((u) => u[member] === t[member]).map((u) => u.name).join(''));
        return { by, input: same('inputSchema'), output: same('outputSchema'), own: tools.map((t) => Object.keys(t).join()) };
      };
      const first = await list('l1');
      ac.abort();
      await settle();
      const second = await list('l2');
      return { first, second };
    });
    const { first, second } = r;
    // a, b and g were given one object, c an equal one; e, f and h none (each shows the same
    // empty object schema); d its own.
    assert.deepEqual(first.input, ['abcg', 'abcg', 'abcg', 'd', 'efh', 'efh', 'abcg', 'efh']);
    assert.deepEqual(first.by.a.inputSchema, { type: 'object', properties: { q: { type: 'string' } } });
    assert.deepEqual(first.by.d.inputSchema, { type: 'object', properties: { q: { type: 'number' } } });
    assert.deepEqual(first.by.e.inputSchema, { type: 'object', properties: {} });
    assert.deepEqual(first.output, ['gh', 'gh']);
    assert.deepEqual(first.by.h.outputSchema, { type: 'object', properties: { r: { type: 'number' } } });
    // No member that a tool did not have was added by the sharing.
    assert.deepEqual(first.own, ['name,description,inputSchema', 'name,description,inputSchema', 'name,description,inputSchema', 'name,description,inputSchema', 'name,description,inputSchema', 'name,description,inputSchema', 'name,description,inputSchema,outputSchema', 'name,description,inputSchema,outputSchema']);
    assert.deepEqual(Object.keys(second.by), ['b', 'c', 'd', 'e', 'f', 'g', 'h']);
    assert.deepEqual(second.input, ['bcg', 'bcg', 'd', 'efh', 'efh', 'bcg', 'efh']);
  }, { html: PAGE }));

// Every string the core hands to JS goes through the glue's getStringFromWasm0, which reads
// short ASCII text itself and leaves the rest to TextDecoder (scripts/build.mjs, patchGlue): text
// of every length around its 256-byte limit, and in other alphabets, arrives intact.
test('text of any length and alphabet arrives intact from the core', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      await document.modelContext.registerTool({
        name: 'echo', description: 'Echoes s', inputSchema: { type: 'object', properties: { s: { type: 'string' } } },
        execute: ({ s }) => s,
      });
      await initialize();
      // Into the core, text of more than 256 UTF-16 units is written by TextEncoder.encodeInto
      // into as many bytes as it has units, then the rest after a realloc (scripts/build.mjs
      // writesLongText): all of it ASCII, other characters first, last, only, and a pair split
      // at the first buffer's end.
      const texts = ['', 'a', 'é', '日本語', '😀', 'x'.repeat(300) + 'é', 'é' + 'x'.repeat(300), 'y'.repeat(2000),
        'é'.repeat(400), '日本語'.repeat(200), '😀'.repeat(300), 'a'.repeat(299) + '😀'.repeat(100), 'a'.repeat(257) + '€', 'x'.repeat(1 << 20)];
      for (let n = 150; n <= 300; n++) texts.push('z'.repeat(n));
      const wrong = [];
      let id = 1;
      for (const s of texts) {
        const i = id++;
        send('mcp-default', { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { s } } });
        const reply = await replyTo('mcp-default', i);
        const got = reply?.result?.content?.[0]?.text;
        if (got !== s) wrong.push([s.length, s.slice(0, 8), got === undefined ? JSON.stringify(reply) : got.slice(0, 8)]);
      }
      // The next request is served as before.
      send('mcp-default', ping(id));
      return { wrong, count: texts.length, ping: await replyTo('mcp-default', id) };
    });
    assert.deepEqual(r.wrong, []);
    assert.equal(r.count, 165);
    assert.deepEqual(r.ping, { jsonrpc: '2.0', id: 166, result: {} });
  }, { html: PAGE }));

// Long strings of an answer (16 KiB and more, src/js from_json) cross into JS apart from the
// JSON text of the rest and are put back where they were: in arrays, under keys that need
// escaping, under `__proto__` (an own property, as JSON.parse makes it), beside short strings
// and nulls of the result's own, escaped and non-ASCII text included.
test('a result\'s long strings arrive where they were, whatever their text and place', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const a = '"quoted" \\ back\nslash\t\u0001 '.repeat(1000);
      const b = '日本語 😀 é'.repeat(2000);
      const c = 'x'.repeat(16 * 1024);
      const result = {
        content: [{ type: 'text', text: a }, { type: 'text', text: 'short' }, { type: 'text', text: b }],
        structuredContent: JSON.parse(JSON.stringify({ list: [c, null, 'short', [[a]]], 'a"b\n': { deep: { b } } }).replace('{', '{"__proto__":' + JSON.stringify(b) + ',')),
      };
      document.modelContext.registerTool('shaped', {
        description: 'Returns long strings in a structured result',
        outputSchema: { type: 'object' },
        handler: () => result,
      });
      await initialize();
      send('mcp-default', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'shaped', arguments: {} } });
      const reply = await replyTo('mcp-default', 1);
      const got = reply?.result;
      send('mcp-default', ping(2));
      const s = got?.structuredContent;
      return {
        reply: got ? 'result' : JSON.stringify(reply),
        same: JSON.stringify(got) === JSON.stringify(result),
        text: got?.content?.map((x) => x.text.length),
        ownProto: s ? Object.prototype.hasOwnProperty.call(s, '__proto__') && s.__proto__ === b : false,
        plainObject: s ? Object.getPrototypeOf(s) === Object.prototype : false,
        ping: await replyTo('mcp-default', 2),
      };
    });
    assert.equal(r.reply, 'result');
    assert.deepEqual(r.text, [24000, 5, 16000]);
    assert.equal(r.same, true);
    assert.equal(r.ownProto, true);
    assert.equal(r.plainObject, true);
    assert.deepEqual(r.ping, { jsonrpc: '2.0', id: 2, result: {} });
  }, { html: PAGE }));

// WebAssembly memory grows and never shrinks. A tool's long text result never enters the core:
// the handler holds the page's string, the result carries a marker, and the answer gets the
// string itself where the marker is (src/server/held.rs). Copied in and out, a 1 MiB result
// grew the memory by 1.06 MiB, and its copies cost 2 ms each way (Chromium 156). The page's
// own string is posted, so even a lone surrogate, which no UTF-8 copy could carry, arrives.
test('a 1 MiB tool result and resource text are posted as the page\'s own string, without growing the core\'s memory, and the server still answers', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const big = 'x'.repeat((1 << 20) - 3) + '\u00e9\ud800!';
      await document.modelContext.registerTool({ name: 'big', description: 'Returns 1 MiB of text', execute: () => big });
      await document.modelContext.registerTool({ name: 'obj', description: 'Returns an object', execute: () => ({ text: big }) });
      document.modelContext.registerResource('app://big', { name: 'big', mimeType: 'text/plain', handler: () => big });
      await initialize();
      const before = wasmBytes();
      const same = [];
      for (let id = 1; id <= 3; id++) {
        send('mcp-default', { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'big', arguments: {} } });
        same.push((await replyTo('mcp-default', id))?.result?.content?.[0]?.text === big);
      }
      // A client whose id is the marker (src/server/held.rs) gets its id back, and the text.
      const marker = '\ufdd0held 0';
      send('mcp-default', { jsonrpc: '2.0', id: marker, method: 'tools/call', params: { name: 'big', arguments: {} } });
      const marked = await replyTo('mcp-default', marker);
      same.push(marked?.id === marker && marked?.result?.content?.[0]?.text === big);
      // A resource read of it too.
      send('mcp-default', { jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri: 'app://big' } });
      const [contents] = (await replyTo('mcp-default', 9))?.result?.contents ?? [];
      same.push(contents?.text === big && contents.uri === 'app://big' && contents.mimeType === 'text/plain');
      const afterThree = wasmBytes();
      // An object result that is not a CallToolResult is held whole (the next test): its
      // structuredContent is JSON.parse's copy of JSON.stringify's text, lone surrogate and
      // all (read by the core, it would be U+FFFD: the lone-surrogate test below).
      send('mcp-default', { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'obj', arguments: {} } });
      const obj = (await replyTo('mcp-default', 4))?.result;
      send('mcp-default', ping(5));
      return {
        before, afterThree, same, ping: await replyTo('mcp-default', 5),
        objText: obj?.structuredContent?.text === big && obj.content?.[0]?.text === JSON.stringify({ text: big }), obj: JSON.stringify(obj).slice(0, 300),
      };
    });
    assert.deepEqual(r.same, [true, true, true, true, true]);
    assert.ok(r.afterThree - r.before <= 64 * 1024, `the memory grew by ${r.afterThree - r.before} B for five 1 MiB results`);
    assert.equal(r.objText, true, r.obj);
    assert.deepEqual(r.ping, { jsonrpc: '2.0', id: 5, result: {} });
  }, { html: PAGE }));

// A tools/call's long argument strings (16,384 UTF-16 code units and more) are held out of the
// message's text the core reads (polyfill/src/message_text.js, src/server/held.rs
// HeldArguments): the page's function gets the strings the agent sent, never copied into the
// core's memory (which would grow by each one), unless the schema reads their text, and a
// violation's message quotes the text, not a marker. A string of the agent's that starts as a
// marker does is never taken for one.
test('a tools/call\'s 1 MiB arguments reach the page\'s function as sent, without growing the core\'s memory; a schema that reads them, a violation\'s message and a marker-like string get the text; the server still answers', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const mc = document.modelContext;
      const big = 'x'.repeat((1 << 20) - 3) + '\u00e9\ud800!';
      const other = '\u{1F600}'.repeat(20000) + '"\\\n';
      const got = [];
      const schema = { type: 'object', properties: { doc: { type: 'string' }, parts: { type: 'array', items: { type: 'string' } }, n: { type: 'number' } }, maxProperties: 3 };
      await mc.registerTool({ name: 'take', description: 'Takes a document', inputSchema: schema, execute: (args) => { got.push(args); return 'ok'; } });
      await mc.registerTool({
        name: 'bounded', description: 'Takes a short document',
        inputSchema: { type: 'object', properties: { doc: { type: 'string', maxLength: 30000 } } },
        execute: (args) => { got.push(args); return 'ok'; },
      });
      await initialize();
      const call = async (id, name, args) => {
        send('mcp-default', { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
        return replyTo('mcp-default', id, 10000);
      };
      // Warm: the first long call may grow the memory for its own small text.
      await call(1, 'take', { doc: 'short', parts: [other] });
      got.length = 0;
      const before = wasmBytes();
      const answers = [];
      for (let id = 2; id <= 4; id++) answers.push((await call(id, 'take', { doc: big, parts: [other, 'short'], n: id }))?.result?.content?.[0]?.text);
      const grew = wasmBytes() - before;
      const asSent = got.map((a) => a.doc === big && a.parts[0] === other && a.parts[1] === 'short' && a.parts.length === 2 && Object.keys(a).join() === 'doc,parts,n');
      // maxProperties reads no text: the call is refused after the check, whose message
      // quotes the arguments as sent.
      const tooMany = await call(5, 'take', { doc: other, parts: [], n: 1, extra: true });
      // maxLength reads the text: checked on it (30,000 allowed; 40,000 units are 20,000
      // characters… of the astral kind: 20,003 code points, within the bound).
      const bounded = await call(6, 'bounded', { doc: other });
      const tooLong = await call(7, 'bounded', { doc: 'y'.repeat(30001) });
      // A string of the agent's that starts as a marker does: nothing is held, all arrives
      // (read whole: a lone surrogate would now be refused, as JSON text with one is).
      got.length = 0;
      const markerLike = '\ufdd0arg 0' + 'z'.repeat(20000);
      const marked = await call(8, 'take', { doc: markerLike, parts: [big.slice(0, -2)] });
      const markedAsSent = got.length === 1 && got[0].doc === markerLike && got[0].parts[0] === big.slice(0, -2);
      send('mcp-default', ping(9));
      return {
        answers, grew, asSent,
        tooMany: tooMany?.error ?? tooMany?.result, tooManyHasText: JSON.stringify(tooMany ?? null).includes(other.slice(0, 8) + other.slice(8, 100)),
        bounded: bounded?.result?.content?.[0]?.text, tooLong: tooLong?.error ?? tooLong?.result,
        marked: marked?.result?.content?.[0]?.text, markedAsSent, ping: await replyTo('mcp-default', 9),
      };
    });
    assert.deepEqual(r.answers, ['ok', 'ok', 'ok']);
    assert.deepEqual(r.asSent, [true, true, true]);
    assert.ok(r.grew <= 64 * 1024, `the memory grew by ${r.grew} B for three calls with 1 MiB of arguments`);
    assert.equal(r.tooMany.code, -32602, JSON.stringify(r.tooMany).slice(0, 300));
    assert.match(r.tooMany.message, /has more than 3 properties/);
    assert.doesNotMatch(JSON.stringify(r.tooMany), /\ufdd0|\\ufdd0/i);
    assert.equal(r.tooManyHasText, true);
    assert.equal(r.bounded, 'ok');
    assert.equal(r.tooLong.code, -32602, JSON.stringify(r.tooLong).slice(0, 300));
    assert.match(r.tooLong.message, /"yyyy.*" is longer than 30000 characters/);
    assert.equal(r.marked, 'ok');
    assert.equal(r.markedAsSent, true);
    assert.deepEqual(r.ping, { jsonrpc: '2.0', id: 9, result: {} });
  }, { html: PAGE }));

// A tools/call's arguments stay the agent's JSON text in the core (`Call::arguments`,
// src/server/methods/tools.rs): checked from the text and handed to the page's function as
// JSON.parse's copy. Read into a tree of serde_json values, as they were, 300,000 empty arrays
// (0.9 MB of text) took some 30 MB of the core's memory, which never shrinks, for as long as
// the call ran: ten such calls held by a slow tool grew it by about 0.3 GB (three calls of 1.3
// million, 0.4 GB; thirty, 3.1 GB).
test('calls in flight keep their arguments as text: ten calls of 300,000 empty arrays held by a slow tool grow the core\'s memory by about their text, each reaches the page\'s function, an invalid one is refused meanwhile, and the server still answers', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      let release;
      const gate = new Promise((res) => { release = res; });
      const lengths = [];
      await document.modelContext.registerTool({
        name: 'slow', description: 'Waits for the test',
        inputSchema: { type: 'object', properties: { xs: { type: 'array', items: { type: 'array', maxItems: 0 } } }, required: ['xs'] },
        execute: async ({ xs }) => { lengths.push(xs.length); await gate; return String(xs.length); },
      });
      await initialize();
      const xs = Array.from({ length: 300000 }, () => []);
      const text = JSON.stringify({ xs }).length;
      const before = wasmBytes();
      for (let id = 1; id <= 10; id++) send('mcp-default', { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: { xs } } });
      for (let i = 0; lengths.length < 10 && i < 3000; i++) await settle();
      const grew = wasmBytes() - before;
      send('mcp-default', { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'slow', arguments: { xs: [[], [1]] } } });
      const invalid = await replyTo('mcp-default', 11, 10000);
      release();
      const answers = [];
      for (let id = 1; id <= 10; id++) answers.push((await replyTo('mcp-default', id, 30000))?.result?.content?.[0]?.text);
      send('mcp-default', ping(12));
      return { grew, text, lengths, answers, invalid: [invalid?.error?.code, invalid?.error?.message], ping: await replyTo('mcp-default', 12) };
    });
    assert.deepEqual(r.lengths, Array(10).fill(300000));
    assert.deepEqual(r.answers, Array(10).fill('300000'));
    assert.deepEqual(r.invalid, [-32602, 'Invalid arguments for tool slow: /xs/1: [1] has more than 0 items [keyword: maxItems]']);
    // Each call keeps its text (0.9 MB) and the message's copy is read in place; a tree of
    // values would be some 30 times that per call.
    assert.ok(r.grew < 3 * 10 * r.text, `the core's memory grew by ${r.grew} bytes for ten calls of ${r.text} bytes`);
    assert.deepEqual(r.ping, { jsonrpc: '2.0', id: 12, result: {} });
  }, { html: PAGE, timeout: 120_000 }));

// The strings a tools/call message held are its request's to take while the session reads it;
// a message whose request never takes them (a notification, or a request the session refuses
// before any tool is looked up) lets them go once it has been read, instead of keeping them
// until the next message that holds strings or the next tools/call.
test('the long argument strings of a tools/call that never runs are let go once its message is read; the server still answers', () =>
  withPage(async ({ page, context }) => {
    const cdp = await context.newCDPSession(page);
    // How many strings that start with `prefix` the page's heap holds after a full collection.
    const count = async (prefix) => {
      const s = await heapSnapshot(cdp);
      const { node_fields: fields, node_types: [types] } = s.snapshot.meta;
      const [type, name, n] = [fields.indexOf('type'), fields.indexOf('name'), fields.length];
      let found = 0;
      for (let i = 0; i < s.nodes.length; i += n) {
        if (types[s.nodes[i + type]].includes('string') && String(s.strings[s.nodes[i + name]]).startsWith(prefix)) found++;
      }
      return found;
    };
    await page.evaluate(async () => {
      await serverReady();
      window.kept = [];
      await document.modelContext.registerTool({
        name: 'keep', description: 'Keeps its document', inputSchema: { type: 'object', properties: { doc: { type: 'string' } } },
        execute: ({ doc }) => { kept.push(doc); return 'kept'; },
      });
      // (Made here and posted, so that the only copies left are those the receiving side keeps.)
      window.sendCall = (id, name, label) => {
        const message = { jsonrpc: '2.0', method: 'tools/call', params: { name, arguments: { doc: `${label}:${'q'.repeat(1 << 17)}` } } };
        if (id !== undefined) message.id = id;
        send('mcp-default', message);
      };
    });
    // Each case is the last message to hold strings before the heap is read (the next such
    // message would replace what the one before left).
    // Before initialize, a tools/call request is refused without running anything.
    const early = await page.evaluate(async () => {
      sendCall(1, 'keep', 'EARLY-5f1c');
      return replyTo('mcp-default', 1);
    });
    assert.equal(early?.error?.code, -32600, JSON.stringify(early));
    assert.equal(await count('EARLY-5f1c:'), 0, 'the refused request\'s string is still held');
    await page.evaluate(() => initialize());
    // A tools/call notification: no request, so nothing runs.
    await page.evaluate(async () => {
      sendCall(undefined, 'keep', 'NOTIFY-5f1c');
      await settle();
    });
    assert.equal(await count('NOTIFY-5f1c:'), 0, 'the notification\'s string is still held');
    // The control: a string the page's own function keeps is found.
    const called = await page.evaluate(async () => {
      sendCall(2, 'keep', 'KEPT-5f1c');
      return (await replyTo('mcp-default', 2))?.result?.content?.[0]?.text;
    });
    assert.equal(called, 'kept');
    assert.equal(await count('KEPT-5f1c:'), 1);
    assert.deepEqual(
      await page.evaluate(async () => {
        send('mcp-default', ping(3));
        return replyTo('mcp-default', 3);
      }),
      { jsonrpc: '2.0', id: 3, result: {} },
    );
  }, { html: PAGE }));

// Most tools answer with a CallToolResult, and a resource with its contents: their long `text`
// members are held too (src/browser/js_handler.rs held_texts), read from a copy of the page's
// object with markers in their places, and only when the value read has each marker once and no
// other string that reads as one (src/server/held.rs hold_within). A page's own string that
// reads as a marker, a toJSON, a text that is not an own property, a block that is not a text
// block: the result is read whole, as JSON.stringify writes it, and arrives as it did before.
test('a 1 MiB text block, embedded resource text or text contents is posted as the page\'s own string; results it cannot be held from arrive whole; the server still answers', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const big = 'y'.repeat((1 << 20) - 3) + '\u00e9\ud800!';
      let typeReads = 0;
      const mc = document.modelContext;
      const results = {
        blocks: { content: [{ type: 'text', text: 'short' }, { type: 'text', text: big, annotations: { priority: 1 } }], structuredContent: { n: 1 }, _meta: { m: 1 } },
        forged: { content: [{ type: 'text', text: big }, { type: 'text', text: '\ufdd0held 0' }] },
        forgedDeep: { content: [{ type: 'text', text: big }], structuredContent: { s: '\ufdd0held 9' } },
        toJSON: { content: [{ type: 'text', text: big, toJSON: () => ({ type: 'text', text: 'from toJSON' }) }] },
        inherited: { content: [Object.create({ type: 'text', text: big })] },
        untyped: { content: [{ text: big }] },
        getter: { content: [{ type: 'text', get text() { return big; } }] },
        // An embedded resource's text (a file a tool read, say) is held as a text block's is.
        resource: { content: [{ type: 'text', text: 'a.txt' }, { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: big } }] },
        resourceToJSON: { content: [{ type: 'resource', resource: { uri: 'file:///b.txt', text: big, toJSON: () => ({ uri: 'file:///b.txt', text: 'from toJSON' }) } }] },
        resourceNoUri: { content: [{ type: 'resource', resource: { text: big } }] },
        // A block whose type a getter gives, a text block the first time only.
        shiftyType: { content: [{ get type() { return typeReads++ === 0 ? 'text' : 'image'; }, text: big }] },
      };
      for (const [name, value] of Object.entries(results)) {
        await mc.registerTool({ name, description: name, execute: () => value });
      }
      const contents = {
        list: { contents: [{ uri: 'app://list', text: big, mimeType: 'text/plain' }] },
        array: [{ uri: 'app://array', text: big }],
        one: { text: big },
      };
      for (const [name, value] of Object.entries(contents)) {
        mc.registerResource(`app://${name}`, { name, handler: () => value });
      }
      await initialize();
      let id = 0;
      const call = async (name) => {
        send('mcp-default', { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: {} } });
        return (await replyTo('mcp-default', id))?.result;
      };
      const read = async (uri) => {
        send('mcp-default', { jsonrpc: '2.0', id: ++id, method: 'resources/read', params: { uri } });
        return (await replyTo('mcp-default', id))?.result;
      };
      // Held: the page's own string, lone surrogate included; the rest of the result as it was.
      const before = wasmBytes();
      const held = [];
      for (let k = 0; k < 3; k++) {
        const b = await call('blocks');
        held.push(JSON.stringify(b) === JSON.stringify(results.blocks) && b.content[1].text === big);
      }
      const e = await call('resource');
      held.push(JSON.stringify(e) === JSON.stringify(results.resource) && e.content[1].resource.text === big);
      const l = await read('app://list');
      held.push(l?.contents?.length === 1 && l.contents[0].text === big && l.contents[0].mimeType === 'text/plain');
      const a = await read('app://array');
      held.push(a?.contents?.[0]?.text === big && a.contents[0].uri === 'app://array');
      const o = await read('app://one');
      held.push(o?.contents?.[0]?.text === big && o.contents[0].uri === 'app://one');
      const grew = wasmBytes() - before;
      // Read whole: what JSON.stringify writes of the page's object (the lone surrogate as U+FFFD).
      const read16 = big.slice(0, -2) + '\ufffd!';
      const whole = {};
      whole.forged = JSON.stringify((await call('forged'))?.content?.map((b) => b.text === read16 ? 'big' : b.text));
      const deep = await call('forgedDeep');
      whole.forgedDeep = deep?.content?.[0]?.text === read16 && deep.structuredContent.s === '\ufdd0held 9';
      whole.toJSON = (await call('toJSON'))?.content?.[0]?.text;
      whole.inherited = JSON.stringify(await call('inherited'));
      whole.untyped = (await call('untyped'))?.content?.[0]?.text === JSON.stringify({ text: read16 });
      whole.getter = (await call('getter'))?.content?.[0]?.text === big;
      whole.resourceToJSON = (await call('resourceToJSON'))?.content?.[0]?.resource;
      // No block without a uri: its JSON text, as JSON.stringify writes it, is a text block.
      whole.resourceNoUri = (await call('resourceNoUri'))?.content?.[0]?.text === JSON.stringify({ type: 'resource', resource: { text: read16 } });
      const shifty = await call('shiftyType');
      whole.shiftyType = shifty?.content?.[0]?.text === JSON.stringify({ type: 'image', text: read16 }) && !JSON.stringify(shifty).includes('\ufdd0');
      send('mcp-default', ping(++id));
      return { held, grew, whole, ping: await replyTo('mcp-default', id), id };
    });
    assert.deepEqual(r.held, [true, true, true, true, true, true, true]);
    assert.ok(r.grew <= 64 * 1024, `the memory grew by ${r.grew} B for seven 1 MiB results`);
    assert.deepEqual(r.whole, {
      forged: JSON.stringify(['big', '\ufdd0held 0']),
      forgedDeep: true,
      toJSON: 'from toJSON',
      // JSON.stringify writes no inherited property: the block is `{}`, made its JSON text.
      inherited: JSON.stringify({ content: [{ type: 'text', text: '{}' }] }),
      untyped: true,
      // A getter's text is the page's own string, held.
      getter: true,
      resourceToJSON: { uri: 'file:///b.txt', text: 'from toJSON' },
      resourceNoUri: true,
      // Not a text block when copied: read whole (no marker left in the answer).
      shiftyType: true,
    });
    assert.deepEqual(r.ping, { jsonrpc: '2.0', id: r.id, result: {} });
  }, { html: PAGE }));

// A prompt that carries a long text (the page's article, say) holds it too: a string result,
// a message whose content is a string, a message's text block or embedded resource
// (src/browser/js_handler.rs held_texts, Holds::Messages). A message the copy no longer reads
// as a valid one is read whole, so a prompt's refusal, which quotes the content, never carries
// a marker.
test('a prompt\'s 1 MiB text is posted as the page\'s own string, as a string result or in its messages; one it cannot hold from is read whole; the server still answers', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const big = 'z'.repeat((1 << 20) - 3) + '\u00e9\ud800!';
      const mc = document.modelContext;
      let typeReads = 0;
      const prompts = {
        text: () => big,
        content: () => [{ role: 'user', content: big }],
        messages: () => ({
          description: 'the article',
          messages: [
            { role: 'user', content: { type: 'text', text: big } },
            { role: 'assistant', content: { type: 'resource', resource: { uri: 'app://article', mimeType: 'text/plain', text: big } } },
          ],
        }),
        // Many short messages: long JSON, nothing to hold (a tool's object result would be
        // held whole as its JSON text; a prompt's is read).
        many: () => ({ messages: Array.from({ length: 3000 }, (_, i) => ({ role: 'user', content: `message ${i}` })) }),
        // A content whose type a getter gives: a text block the first time only.
        shifty: () => [{ role: 'user', content: { get type() { return typeReads++ === 0 ? 'text' : 'image'; }, text: big } }],
      };
      for (const [name, handler] of Object.entries(prompts)) mc.registerPrompt(name, { description: name, handler });
      await initialize();
      let id = 0;
      const get = async (name) => {
        send('mcp-default', { jsonrpc: '2.0', id: ++id, method: 'prompts/get', params: { name } });
        return replyTo('mcp-default', id);
      };
      const before = wasmBytes();
      const text = await get('text');
      const content = await get('content');
      const messages = await get('messages');
      const grew = wasmBytes() - before;
      const m = messages?.result?.messages ?? [];
      const many = (await get('many'))?.result?.messages;
      const shifty = await get('shifty');
      send('mcp-default', ping(++id));
      return {
        grew,
        held: [
          text?.result?.messages?.[0]?.content?.text === big && text.result.messages[0].role === 'user',
          content?.result?.messages?.[0]?.content?.text === big && content.result.messages[0].content.type === 'text',
          messages?.result?.description === 'the article' && m.length === 2 && m[0].content.text === big && m[0].content.type === 'text',
          m[1]?.content?.resource?.text === big && m[1].content.resource.uri === 'app://article' && m[1].role === 'assistant',
        ],
        many: many?.length === 3000 && many[2999].content.text === 'message 2999' && many[0].content.type === 'text',
        shifty: { error: typeof shifty?.error?.message === 'string', marker: JSON.stringify(shifty).includes('\ufdd0'), reads: typeReads },
        ping: await replyTo('mcp-default', id),
        id,
      };
    });
    assert.deepEqual(r.held, [true, true, true, true]);
    assert.ok(r.grew <= 64 * 1024, `the memory grew by ${r.grew} B for four 1 MiB texts`);
    assert.equal(r.many, true);
    // Read whole the second time (an image block without data): refused, and no marker in it.
    assert.deepEqual(r.shifty, { error: true, marker: false, reads: 3 });
    assert.deepEqual(r.ping, { jsonrpc: '2.0', id: r.id, result: {} });
  }, { html: PAGE }));

// A tool's object result that is not a CallToolResult is answered as its JSON text and as its
// structuredContent. When its JSON is long and the tool has no outputSchema (nothing in the
// engine reads it), neither enters the core: the text block is JSON.stringify's text and
// structuredContent a copy JSON.parse made of it (src/browser/js_handler.rs held_object,
// src/server/held.rs hold_object). A CallToolResult's long structuredContent is held the same
// way (structured_part). With an outputSchema the engine reads and checks it, and a result
// that passes is answered with the same JS copies (src/server/held.rs Holder::checked): a lone
// surrogate, which the engine reads as U+FFFD, arrives as the page wrote it.
test('a 1 MiB object result, a CallToolResult\'s structuredContent or {structuredContent} alone is answered without entering the core; with an outputSchema it is checked; the server still answers', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const mc = document.modelContext;
      const records = Array.from({ length: 8500 }, (_, i) => ({ id: i, name: `record ${i} "q" \u00e9`, tags: ['a'], price: i * 1.5, ok: i % 2 === 0, none: null }));
      const data = { total: records.length, records, when: new Date(0), skipped: undefined };
      await mc.registerTool({ name: 'records', description: 'records', execute: () => data });
      await mc.registerTool({
        name: 'checked', description: 'records, checked', execute: () => data,
        outputSchema: { type: 'object', required: ['total'], properties: { total: { type: 'integer', maximum: 10 } } },
      });
      await mc.registerTool({ name: 'alone', description: 'only structuredContent', execute: () => ({ structuredContent: data }) });
      await mc.registerTool({ name: 'aloneScalar', description: 'only a string as structuredContent', execute: () => ({ structuredContent: 'x'.repeat(40000) }) });
      // A CallToolResult's structuredContent is held too, with or without a long text block.
      const summary = { content: [{ type: 'text', text: '8500 records' }], structuredContent: data };
      const both = { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data, _meta: { page: 1 } };
      await mc.registerTool({ name: 'summary', description: 'summary', execute: () => summary });
      await mc.registerTool({ name: 'both', description: 'both', execute: () => both });
      await mc.registerTool({
        name: 'bothChecked', description: 'both, checked', execute: () => both,
        outputSchema: { type: 'object', required: ['total'], properties: { total: { type: 'integer', maximum: 10 } } },
      });
      // What an outputSchema passes is answered from the page's JSON too.
      const cut = '\ud83d\ude00'.repeat(3).slice(0, 5);
      const passing = { type: 'object', required: ['total', 'records'], properties: { total: { type: 'integer' }, records: { type: 'array', items: { type: 'object', required: ['id'] } } } };
      const dataCut = { ...data, cut };
      const bothCut = { ...both, structuredContent: dataCut };
      await mc.registerTool({ name: 'passes', description: 'records, checked', execute: () => dataCut, outputSchema: passing });
      await mc.registerTool({ name: 'bothPasses', description: 'both, checked', execute: () => bothCut, outputSchema: passing });
      await mc.registerTool({ name: 'alonePasses', description: 'alone, checked', execute: () => ({ structuredContent: dataCut }), outputSchema: passing });
      // A schema the core does not check itself (patternProperties: the validator module's)
      // checks the value read from the held text.
      await mc.registerTool({ name: 'moduleChecked', description: 'records, the module checks', execute: () => dataCut, outputSchema: { type: 'object', patternProperties: { '^tot': { type: 'integer' } } } });
      await mc.registerTool({ name: 'moduleRefused', description: 'records, the module refuses', execute: () => dataCut, outputSchema: { type: 'object', patternProperties: { '^tot': { type: 'string' } } } });
      await mc.registerTool({
        name: 'aloneChecked', description: 'alone, refused', execute: () => ({ structuredContent: data }),
        outputSchema: { type: 'object', required: ['total'], properties: { total: { type: 'integer', maximum: 10 } } },
      });
      // What is checked is what is answered: a getter read once, whatever it gives later.
      let reads = 0;
      const shifty = { records, get total() { return reads++ === 0 ? 'many' : 8500; } };
      await mc.registerTool({ name: 'shifty', description: 'a getter', execute: () => ({ content: [{ type: 'text', text: 'n' }], structuredContent: shifty }), outputSchema: passing });
      const own = { content: [{ type: 'text', text: 'own' }], structuredContent: { ...data, toJSON: () => ({ from: 'toJSON' }) } };
      await mc.registerTool({ name: 'own', description: 'a toJSON', execute: () => own });
      await mc.registerTool({ name: 'array', description: 'an array', execute: () => records });
      await initialize();
      let id = 0;
      const call = async (name) => {
        send('mcp-default', { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: {} } });
        return (await replyTo('mcp-default', id))?.result;
      };
      const json = JSON.stringify(data);
      const before = wasmBytes();
      const held = [];
      for (let k = 0; k < 3; k++) {
        const got = await call('records');
        held.push(got?.content?.length === 1 && got.content[0].text === json && JSON.stringify(got.structuredContent) === json
          && got.structuredContent !== data && !('skipped' in got.structuredContent) && got.structuredContent.when === '1970-01-01T00:00:00.000Z');
      }
      const s = await call('summary');
      held.push(JSON.stringify(s) === JSON.stringify(summary));
      const b = await call('both');
      held.push(JSON.stringify(b) === JSON.stringify(both) && b.structuredContent !== data);
      // `{structuredContent: x}` alone is answered as x alone: its JSON and a copy.
      const alone = await call('alone');
      held.push(alone?.content?.length === 1 && alone.content[0].text === json && JSON.stringify(alone.structuredContent) === json
        && alone.structuredContent !== data);
      const grew = wasmBytes() - before;
      // Read by the engine, as before: checked against the outputSchema (total is not ≤ 10).
      const checked = await call('checked');
      const bothChecked = await call('bothChecked');
      const passes = await call('passes');
      const bothPasses = await call('bothPasses');
      const jsonCut = JSON.stringify(dataCut);
      const passed = [
        passes?.isError !== true && passes?.content?.[0]?.text === jsonCut && JSON.stringify(passes.structuredContent) === jsonCut && passes.structuredContent.cut === cut,
        bothPasses?.isError !== true && JSON.stringify(bothPasses) === JSON.stringify(bothCut) && bothPasses.structuredContent.cut === cut,
      ];
      const shiftyGot = await call('shifty');
      passed.push(shiftyGot?.isError === true && /outputSchema/.test(shiftyGot.content?.[0]?.text ?? '') && shiftyGot.structuredContent === undefined && reads === 1);
      const toJSON = await call('own');
      const aloneScalar = await call('aloneScalar');
      const alonePasses = await call('alonePasses');
      passed.push(alonePasses?.isError !== true && alonePasses?.content?.[0]?.text === jsonCut && JSON.stringify(alonePasses.structuredContent) === jsonCut && alonePasses.structuredContent.cut === cut);
      const moduleChecked = await call('moduleChecked');
      passed.push(moduleChecked?.isError !== true && moduleChecked?.content?.[0]?.text === jsonCut && JSON.stringify(moduleChecked.structuredContent) === jsonCut);
      const moduleRefused = await call('moduleRefused');
      passed.push(moduleRefused?.isError === true && /outputSchema: \/total: 8500 is not of type "string"/.test(moduleRefused.content?.[0]?.text ?? '') && moduleRefused.structuredContent === undefined);
      const aloneChecked = await call('aloneChecked');
      passed.push(aloneChecked?.isError === true && /outputSchema/.test(aloneChecked.content?.[0]?.text ?? '') && aloneChecked.structuredContent === undefined);
      const array = await call('array');
      send('mcp-default', ping(++id));
      return {
        held, grew, id, ping: await replyTo('mcp-default', id), passed,
        checked: checked?.isError === true && /outputSchema/.test(checked.content?.[0]?.text ?? '')
          && bothChecked?.isError === true && /outputSchema/.test(bothChecked.content?.[0]?.text ?? ''),
        toJSON: JSON.stringify(toJSON?.structuredContent),
        aloneScalar: [aloneScalar?.isError, aloneScalar?.content?.[0]?.text === JSON.stringify('x'.repeat(40000))],
        array: array?.content?.[0]?.text === JSON.stringify(records) && array.structuredContent === undefined,
      };
    });
    assert.deepEqual(r.held, [true, true, true, true, true, true]);
    assert.ok(r.grew <= 64 * 1024, `the memory grew by ${r.grew} B for six 1 MiB results`);
    assert.equal(r.toJSON, JSON.stringify({ from: 'toJSON' }));
    assert.equal(r.checked, true);
    assert.deepEqual(r.passed, [true, true, true, true, true, true, true]);
    // Anything but an object as `{structuredContent: x}` is read, as before.
    assert.deepEqual(r.aloneScalar, [undefined, true]);
    assert.equal(r.array, true);
    assert.deepEqual(r.ping, { jsonrpc: '2.0', id: r.id, result: {} });
  }, { html: PAGE }));

// A page's text cut in the middle of an emoji has a lone surrogate, which JSON.stringify
// escapes and serde_json refuses: the engine reads it as U+FFFD (as a UTF-8 copy of the string
// writes it) instead of failing the call, whether it is in an input or in an object result.

// A long object result that is JSON data (polyfill/src/json_clone.js: strings, finite numbers,
// booleans, null, plain objects and dense arrays) is answered with the page's object itself,
// which the post's structured clone copies: no JSON.parse copy is made first. Anything a clone
// would copy otherwise than JSON does (-0, NaN, a hole, an array's own member, a Date, a Map, a
// class's instance, a nested toJSON, undefined) is answered with the JSON.parse copy, as before:
// what arrives is the JSON data of the text block; and so is what an outputSchema checked (its
// text). A proxy, which the walk reads through and a clone refuses, is posted as the answer's
// JSON copy (polyfill/src/gates.js), reporting nothing.
test('a long object result that is JSON data is answered without a JSON.parse copy; anything else, and a proxy, arrives as its JSON; the server still answers', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const mc = document.modelContext;
      const records = Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `record ${i} "q" \u00e9 \ud83d`, tags: ['a', 'b'], price: i * 1.5, ok: i % 2 === 0, none: null, big: 2 ** 60 }));
      const data = { total: records.length, records, nested: { deep: [[[{ x: [] }]]], empty: {} } };
      const bare = Object.assign(Object.create(null), { ...data });
      const sparse = [1, 2, 3];
      delete sparse[1];
      const extra = [1, 2];
      extra.note = 'not an element';
      class Row { constructor() { this.id = 1; } }
      const variants = {
        minusZero: { ...data, z: -0 },
        nan: { ...data, z: NaN },
        infinite: { ...data, z: -Infinity },
        sparse: { ...data, z: sparse },
        extra: { ...data, z: extra },
        date: { ...data, z: new Date(0) },
        map: { ...data, z: new Map([[1, 2]]) },
        instance: { ...data, z: new Row() },
        toJSON: { ...data, z: { toJSON: () => 'from toJSON' } },
        undefined: { ...data, z: undefined },
        boxed: { ...data, z: Object('boxed') },
      };
      const tools = {
        plain: () => data,
        bare: () => bare,
        alone: () => ({ structuredContent: data }),
        part: () => ({ content: [{ type: 'text', text: 'summary' }], structuredContent: data }),
        proxy: () => new Proxy(data, {}),
        proxyInside: () => ({ total: 1, inside: new Proxy(data, {}) }),
        // An output schema checks the text: the copy of it is what is answered.
        checked: () => data,
        ...Object.fromEntries(Object.entries(variants).map(([k, v]) => [k, () => v])),
      };
      for (const [name, execute] of Object.entries(tools)) {
        const outputSchema = name === 'checked' ? { type: 'object', required: ['total'] } : undefined;
        await mc.registerTool({ name, description: name, execute, outputSchema });
      }
      await initialize();
      const parse = JSON.parse;
      let parsed = 0;
      JSON.parse = function (text, ...rest) {
        if (typeof text === 'string' && text.length >= 16 * 1024) parsed++;
        return parse.call(this, text, ...rest);
      };
      const reported = [];
      const report = window.reportError;
      window.reportError = (e) => reported.push(String(e));
      let id = 0;
      const out = {};
      for (const [name, execute] of Object.entries(tools)) {
        const expected = execute();
        const json = JSON.stringify(name === 'alone' ? data : name === 'part' ? data : expected);
        const from = parsed;
        send('mcp-default', { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: {} } });
        const result = (await replyTo('mcp-default', id))?.result;
        const text = result?.content?.[0]?.text;
        const sc = result?.structuredContent;
        out[name] = {
          // The text block is the JSON of what the tool gave (a summary's own text).
          text: name === 'part' ? text === 'summary' : text === json,
          // structuredContent is that JSON's data, value for value.
          structured: JSON.stringify(sc) === json && sc !== expected,
          parses: parsed - from,
        };
        if (name === 'minusZero') out[name].zero = Object.is(sc?.z, 0);
        if (name === 'sparse') out[name].hole = 1 in (sc?.z ?? {});
        if (name === 'extra') out[name].member = 'note' in (sc?.z ?? {});
      }
      JSON.parse = parse;
      window.reportError = report;
      send('mcp-default', ping(++id));
      return { out, reported, ping: await replyTo('mcp-default', id), id };
    });
    // JSON data: the page's object, no copy made first (a CallToolResult's too).
    for (const name of ['plain', 'bare', 'alone', 'part']) assert.deepEqual(r.out[name], { text: true, structured: true, parses: 0 }, name);
    // A proxy is walked as JSON data; its post's clone fails, and the answer goes as its JSON
    // copy (one JSON.parse of the whole answer): the same data, nothing reported.
    for (const name of ['proxy', 'proxyInside']) assert.deepEqual(r.out[name], { text: true, structured: true, parses: 1 }, name);
    assert.deepEqual(r.reported, []);
    // Anything else: the JSON.parse copy, as JSON has it.
    for (const name of ['checked', 'nan', 'infinite', 'date', 'map', 'instance', 'toJSON', 'undefined', 'boxed']) {
      assert.deepEqual(r.out[name], { text: true, structured: true, parses: 1 }, name);
    }
    assert.deepEqual(r.out.minusZero, { text: true, structured: true, parses: 1, zero: true });
    assert.deepEqual(r.out.sparse, { text: true, structured: true, parses: 1, hole: true });
    assert.deepEqual(r.out.extra, { text: true, structured: true, parses: 1, member: false });
    assert.deepEqual(r.ping, { jsonrpc: '2.0', id: r.id, result: {} });
  }, { html: PAGE }));

// Before 2025-06-18 an answer has no structuredContent: a held object result is answered as its
// JSON text alone, and the JSON.parse copy that later versions carry is not made (nor is a
// CallToolResult's long structuredContent copied); an outputSchema still checks the text. An
// object with an own member that says how it may be answered (a `content`, {structuredContent}
// alone) is still parsed to be sure. The page's JSON.parse is counted on texts of 100,000
// characters or more.
for (const version of ['2024-11-05', '2025-03-26', '2025-06-18']) {
  test(`a 1 MiB object result in ${version}: JSON.parse copies only where the answer carries structuredContent; the text is answered and checked; the server still answers`, () =>
    withPage(async ({ page }) => {
      const r = await page.evaluate(async (version) => {
        await serverReady();
        const mc = document.modelContext;
        const records = Array.from({ length: 8500 }, (_, i) => ({ id: i, name: `record ${i}`, price: i * 1.5 }));
        const data = { total: records.length, records, skipped: undefined };
        const total = (maximum) => ({ type: 'object', required: ['total'], properties: { total: { type: 'integer', maximum } } });
        await mc.registerTool({ name: 'records', description: 'records', execute: () => data });
        await mc.registerTool({ name: 'checked', description: 'checked', execute: () => data, outputSchema: total(10000) });
        await mc.registerTool({ name: 'refused', description: 'refused', execute: () => data, outputSchema: total(10) });
        await mc.registerTool({ name: 'summary', description: 'summary', execute: () => ({ content: [{ type: 'text', text: '8500 records' }], structuredContent: data }) });
        await mc.registerTool({ name: 'alone', description: 'alone', execute: () => ({ structuredContent: data }) });
        await mc.registerTool({ name: 'aloneRefused', description: 'alone, refused', execute: () => ({ structuredContent: data }), outputSchema: total(10) });
        // An own `content` that is not a list: parsed to be sure, answered as an object.
        await mc.registerTool({ name: 'content', description: 'content', execute: () => ({ ...data, content: 'not a list' }) });
        await initialize(version);
        const parse = JSON.parse;
        let parsed = 0;
        JSON.parse = function (text, ...rest) {
          if (typeof text === 'string' && text.length >= 100000) parsed++;
          return parse.call(this, text, ...rest);
        };
        let id = 0;
        const call = async (name) => {
          const from = parsed;
          send('mcp-default', { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: {} } });
          const result = (await replyTo('mcp-default', id))?.result;
          return { result, parses: parsed - from };
        };
        const json = JSON.stringify(data);
        const out = {};
        const before = wasmBytes();
        for (const name of ['records', 'summary', 'alone', 'content', 'checked']) {
          // (A check copies the text into the core; the rest are held, and copy nothing.)
          if (name === 'checked') out.grew = wasmBytes() - before <= 64 * 1024 || wasmBytes() - before;
          const { result, parses } = await call(name);
          const expected = name === 'summary' ? '8500 records' : name === 'content' ? JSON.stringify({ ...data, content: 'not a list' }) : json;
          const structured = name === 'content' ? { ...data, content: 'not a list' } : data;
          out[name] = {
            text: result?.content?.length === 1 && result.content[0].text === expected,
            structured: 'structuredContent' in (result ?? {}) ? JSON.stringify(result.structuredContent) === JSON.stringify(structured) : 'none',
            parses,
          };
        }
        const refused = (await call('refused')).result;
        out.refused = refused?.isError === true && /total/.test(refused.content?.[0]?.text ?? '');
        const aloneRefused = (await call('aloneRefused')).result;
        out.aloneRefused = aloneRefused?.isError === true && /total/.test(aloneRefused.content?.[0]?.text ?? '');
        JSON.parse = parse;
        send('mcp-default', ping(++id));
        return { out, ping: await replyTo('mcp-default', id), id };
      }, version);
      const modern = version >= '2025-06-18';
      const copy = modern ? 1 : 0;
      const structured = modern ? true : 'none';
      // (grew: held, not read by the core, whose memory a reading grows by megabytes.)
      assert.deepEqual(r.out, {
        records: { text: true, structured, parses: copy },
        checked: { text: true, structured, parses: copy },
        summary: { text: true, structured, parses: copy },
        // (Parsed to find its one member, in every version.)
        alone: { text: true, structured, parses: 1 },
        // (Parsed to be sure of its members, in every version.)
        content: { text: true, structured, parses: 1 },
        grew: true,
        refused: true,
        aloneRefused: true,
      });
      assert.deepEqual(r.ping, { jsonrpc: '2.0', id: r.id, result: {} });
    }, { html: PAGE }));
}

test('lone surrogates in an input and in an object result are read as U+FFFD, and the calls are served', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const cut = '\ud83d\ude00'.repeat(3).slice(0, 5);
      const mc = document.modelContext;
      await mc.registerTool({
        name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { s: { type: 'string', maxLength: 5 } } },
        execute: ({ s }) => ({ s, cut }),
      });
      const [tool] = await mc.getTools();
      const w3c = await mc.executeTool(tool, { s: cut }).then((t) => t, (e) => `${e.name}: ${e.message}`);
      await initialize();
      send('mcp-default', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { s: 'ok' } } });
      const mcp = (await replyTo('mcp-default', 1))?.result;
      send('mcp-default', ping(2));
      return { w3c, cut, mcp, ping: await replyTo('mcp-default', 2) };
    });
    // execute gets the page's own copy of the input; its result is JSON text, as the page wrote it.
    assert.equal(r.w3c, JSON.stringify({ s: r.cut, cut: r.cut }));
    assert.deepEqual(r.mcp.structuredContent, { s: 'ok', cut: r.cut.slice(0, 4) + '\ufffd' });
    assert.notEqual(r.mcp.isError, true);
    assert.deepEqual(r.ping, { jsonrpc: '2.0', id: 2, result: {} });
  }, { html: PAGE }));

// The core's wasm stack is 256 KiB, not Rust's default 1 MiB (build.rs): its deep recursion is
// serde_json's, which stops at 128 levels. The deepest messages and results it accepts, with
// `limits.maxDepth` raised past that, are answered; deeper ones are refused, and the engine
// still answers. Running out of stack would trap the core instead.
test('the deepest arguments and results the core accepts are answered, deeper ones refused, and the server still answers', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await serverReady();
      const nest = (n) => {
        let v = 1;
        for (let i = 0; i < n; i++) v = { a: v };
        return v;
      };
      const depthOf = (v) => (v && typeof v === 'object' ? 1 + depthOf(v.a) : 0);
      const mc = document.modelContext;
      await mc.registerTool({ name: 'depth', description: 'Measures a', inputSchema: { type: 'object' }, execute: ({ a }) => String(depthOf(a)) });
      await mc.registerTool({
        name: 'structured', description: 'Returns structured content n deep', inputSchema: { type: 'object' },
        execute: ({ n }) => ({ content: [{ type: 'text', text: 'deep' }], structuredContent: nest(n) }),
      });
      await mc.registerTool({ name: 'value', description: 'Returns an object n deep', inputSchema: { type: 'object' }, execute: ({ n }) => nest(n) });
      // Long enough to be held: its output schema checks the page's JSON text as it reads it
      // (plain_schema::text), nested as deep as the value's reading.
      const long = (n) => {
        let v = 'x'.repeat(40000);
        for (let i = 0; i < n; i++) v = { a: v };
        return v;
      };
      await mc.registerTool({
        name: 'checked', description: 'Returns a long object n deep, checked', inputSchema: { type: 'object' },
        outputSchema: { type: 'object', properties: { a: { type: 'object', properties: { a: { type: 'object' } } } } },
        execute: ({ n }) => long(n),
      });
      let id = 0;
      const request = async (method, params) => {
        const i = ++id;
        send('mcp-default', { jsonrpc: '2.0', id: i, method, params });
        return replyTo('mcp-default', i);
      };
      const pinged = async () => (await request('ping', {}))?.result !== undefined;
      await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
      const out = {};
      const run = async (key, method, params, pick) => {
        const reply = await request(method, params);
        out[key] = { got: reply ? pick(reply) : 'no reply', ping: await pinged() };
      };
      const text = (reply) => reply.result?.content?.[0]?.text ?? reply.error?.code;
      // tools/call → params → arguments → a: three levels above the argument's own.
      await run('args', 'tools/call', { name: 'depth', arguments: { a: nest(123) } }, text);
      await run('argsTooDeep', 'tools/call', { name: 'depth', arguments: { a: nest(200) } }, (r) => r.error?.code);
      await run('structured', 'tools/call', { name: 'structured', arguments: { n: 126 } }, (r) => depthOf(r.result?.structuredContent));
      await run('value', 'tools/call', { name: 'value', arguments: { n: 126 } }, (r) => JSON.parse(text(r)).a !== undefined);
      await run('checked', 'tools/call', { name: 'checked', arguments: { n: 126 } }, (r) => [r.result?.isError, depthOf(r.result?.structuredContent)]);
      await run('checkedTooDeep', 'tools/call', { name: 'checked', arguments: { n: 1000 } }, (r) => [r.result?.isError, /Tool checked returned structuredContent that cannot be read: recursion limit exceeded/.test(text(r))]);
      await run('valueTooDeep', 'tools/call', { name: 'value', arguments: { n: 1000 } }, (r) => [r.result?.isError, /Tool value returned a value that cannot be serialized/.test(text(r))]);
      return out;
    });
    assert.deepEqual(r.args, { got: '123', ping: true });
    assert.deepEqual(r.argsTooDeep, { got: -32700, ping: true });
    assert.deepEqual(r.structured, { got: 126, ping: true });
    assert.deepEqual(r.value, { got: true, ping: true });
    assert.deepEqual(r.valueTooDeep, { got: [true, true], ping: true });
    assert.deepEqual(r.checked, { got: [undefined, 126], ping: true });
    assert.deepEqual(r.checkedTooDeep, { got: [true, true], ping: true });
  }, { html: PAGE.replace('<script src=', '<script>window.modelContextPolyfillConfig = { limits: { maxDepth: 100000 } };</script>\n<script src=') }));

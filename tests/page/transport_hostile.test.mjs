// Hostile peers: a wrong origin, a wrong source window, malformed envelopes, oversized messages
// and a flood past the rate limit are each refused, and the server keeps answering its
// legitimate client. Real windows, frames and channels throughout (no postMessage mocks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, inlinePage, requireDist } from './harness.mjs';

requireDist();

const FIX = '/tests/page/fixtures/transport';
const CLASSIC = `<script src="/dist/modelcontext.iife.js"></script>
<script src="${FIX}/rpc.js"></script>`;
const RAW_HOST = `<script src="${FIX}/rpc.js"></script>
<script src="${FIX}/raw-host.js"></script>`;

const appUrl = (server, params = {}) => {
  const q = new URLSearchParams({ parent: server.origin, ...params });
  return server.url(`${FIX}/iframe-app.html?${q}`, { alt: true });
};
const appFrame = (page, server) => page.frames().find((f) => f.url().startsWith(`${server.altOrigin}${FIX}/iframe-app.html`));

test('wrong origin: the peer window navigates to an origin not allowed; refused and reported, then served again', () =>
  withPage(async ({ page, server }) => {
    // The client page, served on both origins; it reports what it got to its parent.
    const client = await inlinePage(`<script src="${FIX}/rpc.js"></script>
<script>
  const rpc = makeRpc((m) => parent.postMessage({ type: 'mcp', payload: m }, '*'), { timeout: 1000 });
  addEventListener('message', (e) => e.source === parent && e.data?.type === 'mcp' && rpc.receive(e.data.payload));
  (async () => {
    const r = {};
    try {
      r.init = (await rpc.initialize()).result?.serverInfo?.name;
      r.call = (await rpc.request('tools/call', { name: 'hello', arguments: {} })).result?.content?.[0]?.text;
    } catch (e) {
      r.error = e.message;
    }
    parent.postMessage({ report: r, origin: location.origin }, '*');
  })();
</script>`);
    const r = await page.evaluate(async ({ good, bad, goodOrigin }) => {
      const mc = navigator.modelContext;
      await mc.registerTool({ name: 'hello', description: 'Hi', execute: async () => 'hi, trusted frame' });
      const reports = [];
      addEventListener('message', (e) => e.data?.report && reports.push(e.data));
      const next = () => new Promise((res) => {
        const n = reports.length;
        (function wait() { reports.length > n ? res(reports[n]) : setTimeout(wait, 20); })();
      });
      const iframe = document.createElement('iframe');
      iframe.allow = 'tools'; // the embedded app registers tools (WebMCP's tools policy)
      iframe.src = 'about:blank';
      document.body.append(iframe);
      const violations = [];
      await mc.connect({
        transport: { type: 'postMessage', target: iframe.contentWindow, origin: goodOrigin, onOriginViolation: (o) => violations.push(o) },
      });
      const out = {};
      iframe.src = good;
      out.first = await next();
      iframe.src = bad; // same window, now on an origin the server does not trust
      out.bad = await next();
      out.violations = [...violations];
      iframe.src = good;
      out.again = await next();
      return out;
    }, { good: server.url(client, { alt: true }), bad: server.url(client), goodOrigin: server.altOrigin });
    assert.equal(r.first.origin, server.altOrigin);
    assert.equal(r.first.report.call, 'hi, trusted frame');
    assert.equal(r.bad.origin, server.origin);
    assert.match(r.bad.report.error, /no answer to initialize/);
    // One report per message from the refused origin (the client gave up after initialize).
    assert.deepEqual(r.violations, [server.origin]);
    assert.equal(r.again.origin, server.altOrigin);
    assert.equal(r.again.report.call, 'hi, trusted frame');
  }, { html: CLASSIC }));

test('wrong source window: a sibling frame posting perfect envelopes to our app is ignored', () =>
  withPage(async ({ page, server }) => {
    // The sibling is on the parent's (allowed) origin: only its window is wrong.
    const sibling = await inlinePage(`<script>
  window.attack = (origin) => {
    const app = parent.frames[0];
    for (let i = 0; i < 5; i++) {
      app.postMessage({ channel: 'mcp-iframe', type: 'mcp', direction: 'client-to-server', payload: 'mcp-check-ready' }, origin);
      app.postMessage({ channel: 'mcp-iframe', type: 'mcp', direction: 'client-to-server', payload: { jsonrpc: '2.0', id: 'evil-' + i, method: 'tools/call', params: { name: 'app-info', arguments: {} } } }, origin);
    }
    window.got = [];
    addEventListener('message', (e) => window.got.push(e.data));
  };
</script>`);
    await page.evaluate(async ({ src, childOrigin }) => {
      window.rpc = embed(src, childOrigin);
      await rpc.ready;
      await rpc.initialize();
    }, { src: appUrl(server), childOrigin: server.altOrigin });
    await page.evaluate(async (src) => {
      const f = document.createElement('iframe');
      f.src = src;
      document.body.append(f);
      await new Promise((r) => f.addEventListener('load', r));
    }, sibling);
    const siblingFrame = page.frames().find((f) => f.url().includes(sibling));
    await siblingFrame.evaluate((o) => window.attack(o), server.altOrigin);
    await page.waitForTimeout(300);
    const r = await page.evaluate(async () => {
      const call = await rpc.request('tools/call', { name: 'app-info', arguments: {} });
      return { text: call.result.content[0].text, evilAnswers: rpc.seen.filter((m) => String(m.id).startsWith('evil')).length };
    });
    assert.equal(r.evilAnswers, 0);
    assert.match(r.text, /^hi from/);
    assert.deepEqual(await siblingFrame.evaluate(() => window.got), []);
    // Not an origin violation: the origin was fine, the window was not.
    assert.deepEqual(await appFrame(page, server).evaluate(() => window.violations), []);
  }, { html: RAW_HOST }));

test('malformed envelopes and payloads are dropped (or answered as invalid) without disturbing the client', () =>
  withPage(async ({ page, server, consoleMessages }) => {
    const r = await page.evaluate(async ({ src, childOrigin }) => {
      const rpc = embed(src, childOrigin);
      await rpc.ready;
      await rpc.initialize();
      const w = rpc.iframe.contentWindow;
      const raw = (data) => w.postMessage(data, childOrigin);
      const good = { channel: 'mcp-iframe', type: 'mcp', direction: 'client-to-server' };
      const cyclic = { jsonrpc: '2.0', id: 'cyc', method: 'ping' };
      cyclic.params = { self: cyclic };
      const junk = [
        null, 42, 'mcp-check-ready', [], [1, 2, 3],
        { ...good, channel: 'other', payload: { jsonrpc: '2.0', id: 'j1', method: 'ping' } },
        { ...good, type: 'nope', payload: { jsonrpc: '2.0', id: 'j2', method: 'ping' } },
        { ...good, direction: 'server-to-client', payload: { jsonrpc: '2.0', id: 'j3', method: 'ping' } },
        { ...good },
        { ...good, payload: null },
        { ...good, payload: 12 },
        { ...good, payload: 'some string' },
        { ...good, payload: cyclic },
        { ...good, payload: { jsonrpc: '2.0', id: 'big', method: 'ping', params: { n: 10n } } },
        { ...good, payload: new Date() },
        { ...good, payload: { jsonrpc: '2.0', id: 'bad-params', method: 'tools/call', params: 'x' } },
        { ...good, payload: { jsonrpc: '2.0', id: { nested: true }, method: 'ping' } },
      ];
      for (const d of junk) raw(d);
      await sleep(200);
      const call = await rpc.request('tools/call', { name: 'app-info', arguments: { greeting: 'still' } });
      return {
        text: call.result.content[0].text,
        answeredIds: rpc.seen.map((m) => m.id).filter((id) => id !== undefined && !/^\d+$/.test(String(id))),
        errors: rpc.seen.filter((m) => m.error).map((m) => m.error.code),
      };
    }, { src: appUrl(server), childOrigin: server.altOrigin });
    assert.match(r.text, /^still from/);
    // Only the structurally valid JSON-RPC messages were answered: an invalid-params error,
    // and invalid-request errors for the bad id / the Date object (no readable id).
    assert.deepEqual(r.answeredIds, ['bad-params']);
    assert.ok(r.errors.every((c) => c === -32602 || c === -32600), JSON.stringify(r.errors));
    assert.deepEqual(consoleMessages.filter((m) => m.type === 'error'), []);
  }, { html: RAW_HOST }));

test('oversized messages: a request gets an error naming the limit; a notification is dropped', () =>
  withPage(async ({ page, server }) => {
    const r = await page.evaluate(async ({ src, childOrigin }) => {
      const rpc = embed(src, childOrigin);
      await rpc.ready;
      await rpc.initialize();
      const big = 'x'.repeat(5000);
      const tooBig = await rpc.request('tools/call', { name: 'app-info', arguments: { greeting: big } }, 'too-big');
      rpc.notify('notifications/progress', { progressToken: 1, progress: 1, message: big });
      const batch = [1, 2, 3].map((i) => ({ jsonrpc: '2.0', id: 'b' + i, method: 'ping', params: { pad: big } }));
      rpc.post(batch);
      await sleep(200);
      const ok = await rpc.request('tools/call', { name: 'app-info', arguments: { greeting: 'small' } });
      return {
        error: tooBig.error,
        batchAnswered: rpc.seen.filter((m) => String(m.id).startsWith('b')).length,
        stray: rpc.seen.filter((m) => m.id === undefined || m.id === null).length,
        text: ok.result.content[0].text,
      };
    }, { src: appUrl(server, { max: '2000' }), childOrigin: server.altOrigin });
    assert.equal(r.error.code, -32600);
    assert.match(r.error.message, /Message size in bytes is \d+; the limit is 2000/);
    assert.equal(r.error.data.limit, 2000);
    assert.equal(r.batchAnswered, 0);
    assert.equal(r.stray, 0);
    assert.match(r.text, /^small from/);
  }, { html: RAW_HOST }));

test('a flood past the rate limit: dropped with one warning per burst and an error per request; other peers unaffected', () =>
  withPage(async ({ page, consoleMessages }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      await mc.registerTool({ name: 'calm', description: 'Calm', execute: async () => 'still here' });
      await mc.connect({
        transport: { type: 'broadcastChannel', channelName: 'flood', instanceId: 'srv', rateLimit: { messages: 20, perMs: 60000 } },
      });
      const peer = (id) => {
        const ch = new BroadcastChannel('flood');
        const rpc = makeRpc((m) => ch.postMessage({ type: 'mcp', instanceId: id, payload: m }), { prefix: id + '-' });
        ch.onmessage = (e) => e.data?.type === 'mcp' && rpc.receive(e.data.payload);
        return rpc;
      };
      const evil = peer('evil');
      const good = peer('good');
      const results = await Promise.all(Array.from({ length: 60 }, () => evil.request('ping')));
      for (let i = 0; i < 50; i++) evil.notify('notifications/initialized');
      await good.initialize();
      const call = await good.request('tools/call', { name: 'calm', arguments: {} });
      return {
        ok: results.filter((m) => m.result).length,
        limited: results.filter((m) => m.error).length,
        message: results.find((m) => m.error)?.error.message,
        code: results.find((m) => m.error)?.error.code,
        text: call.result.content[0].text,
      };
    });
    assert.equal(r.ok, 20);
    assert.equal(r.limited, 40);
    assert.equal(r.code, -32600);
    assert.match(r.message, /rate limit/);
    assert.equal(r.text, 'still here');
    const warnings = consoleMessages.filter((m) => m.type === 'warning' && /rateLimit/.test(m.text));
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.match(warnings[0].text, /broadcastChannel transport is dropping messages from evil: more than 20 in 60000 ms/);
  }, { html: CLASSIC }));

test('a single-peer transport recovers when the flood stops (the bucket refills)', () =>
  withPage(async ({ page, consoleMessages }) => {
    const r = await page.evaluate(async () => {
      const ch = new MessageChannel();
      await navigator.modelContext.connect({
        // One token back every 300 ms: a burst that a loaded machine delivers over a few
        // dozen ms still meets exactly 10, and 3.1 s refill the bucket.
        transport: { type: 'postMessage', target: ch.port1, rateLimit: { messages: 10, perMs: 3000 } },
      });
      const rpc = makeRpc((m) => ch.port2.postMessage({ type: 'mcp', payload: m }));
      ch.port2.onmessage = (e) => e.data?.type === 'mcp' && rpc.receive(e.data.payload);
      const burst1 = await Promise.all(Array.from({ length: 25 }, () => rpc.request('ping')));
      await sleep(3100);
      const burst2 = await Promise.all(Array.from({ length: 25 }, () => rpc.request('ping')));
      await sleep(400);
      const single = await rpc.request('ping');
      const count = (b) => b.filter((m) => m.result).length;
      return { first: count(burst1), second: count(burst2), single: !!single.result };
    });
    assert.equal(r.first, 10);
    assert.equal(r.second, 10);
    assert.equal(r.single, true);
    const warnings = consoleMessages.filter((m) => m.type === 'warning' && /rateLimit/.test(m.text));
    assert.equal(warnings.length, 2, 'one warning per burst');
  }, { html: CLASSIC }));

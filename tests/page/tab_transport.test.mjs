// The tab transport's lifecycle (src/transport/tab.rs): channels, one server per channel,
// stopping, and what happens when the object that owns a server goes away. Raw envelopes only
// (the MCP-B + official-client interop lives in interop_tab.test.mjs).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, requireDist } from './harness.mjs';

requireDist('modelcontext.js');

const PAGE = `<!doctype html><meta charset="utf-8"><title>tab transport</title>
<script>
  window.wire = [];
  addEventListener('message', (e) => {
    const d = e.data;
    if (d && d.type === 'mcp' && d.direction === 'server-to-client' && e.source === window) wire.push(d);
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
  window.settle = () => new Promise((res) => setTimeout(res, 50));
</script>
<script src="/dist/modelcontext.iife.js"></script>`;

test('the default server announces itself on mcp-default and answers mcp-check-ready', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
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

test('connect({ transport: { type: "tab", channelId } }) serves a second channel; disconnect() stops only that one', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
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
      const mc = navigator.modelContext;
      let aborted = null;
      await mc.registerTool({
        name: 'slow',
        description: 'Waits until aborted',
        execute: (_, { signal }) => new Promise((res) => {
          signal.addEventListener('abort', () => { aborted = String(signal.reason?.name || signal.reason); res('late'); });
        }),
      });
      send('mcp-default', { jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      await replyTo('mcp-default', 'i');
      send('mcp-default', { jsonrpc: '2.0', method: 'notifications/initialized' });
      send('mcp-default', { jsonrpc: '2.0', id: 'slow-call', method: 'tools/call', params: { name: 'slow', arguments: {} } });
      await settle();
      mc.disconnect();
      await settle();
      const stoppedAt = wire.findIndex((d) => d.payload === 'mcp-server-stopped');
      const late = wire.findIndex((d) => d.payload && d.payload.id === 'slow-call');
      return { aborted, stoppedAt, late };
    });
    assert.ok(r.stoppedAt >= 0);
    assert.equal(r.late, -1, 'no reply for the cancelled call');
    assert.equal(r.aborted, 'AbortError', 'the handler\'s signal aborted');
  }, { html: PAGE }));

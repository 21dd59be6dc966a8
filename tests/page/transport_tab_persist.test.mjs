// The tab transport's persist option: the agent's session survives a same-tab reload (and a
// same-origin navigation) without a new initialize; the state lives in sessionStorage under the
// mcp-tab prefix. The "agent" here is a content-script stand-in: a listener installed before the
// page's scripts (addInitScript) that posts MCP-B tab envelopes and records the answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, getServer, requireDist } from './harness.mjs';

requireDist();

const page = (persist) => `<!doctype html><meta charset="utf-8">
<script>window.modelContextPolyfillConfig = { tab: false };</script>
<script src="/dist/modelcontext.iife.js"></script>
<script>
  window.loads = Number(sessionStorage.getItem('loads') || 0) + 1;
  sessionStorage.setItem('loads', String(window.loads));
  const mc = navigator.modelContext;
  mc.registerTool({ name: 'which-load', description: 'Which page load answers', execute: async () => 'load ' + window.loads });
  mc.registerTool({ name: 'never', description: 'Never finishes', execute: () => new Promise(() => {}) });
  mc.registerResource('app://state', { name: 'state', handler: async () => 'state ' + window.loads });
  window.ready = mc.connect({ transport: { type: 'tab', persist: ${JSON.stringify(persist)} } }).then((s) => (window.session = s, true));
</script>`;

// The agent's side in the page: installed before any page script on every load.
const AGENT = () => {
  window.__got = [];
  addEventListener('message', (e) => {
    const d = e.data;
    if (e.source === window && d?.channel === 'mcp-default' && d.type === 'mcp' && d.direction === 'server-to-client') window.__got.push(d.payload);
  });
  window.__send = (payload) => window.postMessage({ channel: 'mcp-default', type: 'mcp', direction: 'client-to-server', payload }, '*');
  window.__answer = (id, ms = 3000) => new Promise((resolve, reject) => {
    const t0 = Date.now();
    (function poll() {
      const hit = window.__got.find((m) => m && m.id === id && !m.method);
      if (hit) return resolve(hit);
      if (Date.now() - t0 > ms) return reject(new Error(`no answer to ${id}`));
      setTimeout(poll, 10);
    })();
  });
};

async function setup(persist, path) {
  const server = await getServer();
  server.route(path, { body: page(persist) });
  return server;
}

test('persist: initialize, reload, call a tool without initializing again', () =>
  withPage(async ({ page: p, context, server }) => {
    await setup(true, '/__tab-persist.html');
    await context.addInitScript(AGENT);
    await p.goto(server.url('/__tab-persist.html'));
    await p.evaluate(() => window.ready);
    const before = await p.evaluate(async () => {
      __send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { roots: {} }, clientInfo: { name: 'agent', version: '1' } } });
      const init = await __answer('init');
      __send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      __send({ jsonrpc: '2.0', id: 'lvl', method: 'logging/setLevel', params: { level: 'error' } });
      await __answer('lvl');
      __send({ jsonrpc: '2.0', id: 'sub', method: 'resources/subscribe', params: { uri: 'app://state' } });
      await __answer('sub');
      __send({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'which-load', arguments: {} } });
      const c1 = await __answer('c1');
      return { version: init.result.protocolVersion, c1: c1.result.content[0].text, stored: JSON.parse(sessionStorage.getItem('mcp-tab-session-mcp-default')) };
    });
    assert.equal(before.version, '2025-06-18');
    assert.equal(before.c1, 'load 1');
    assert.deepEqual(
      { ...before.stored, inFlight: undefined },
      {
        format: 1,
        protocolVersion: '2025-06-18',
        initialized: true,
        clientInfo: { name: 'agent', version: '1' },
        clientCapabilities: { roots: {} },
        logLevel: 'error',
        subscriptions: ['app://state'],
        inFlight: undefined,
      },
    );

    await p.reload();
    await p.evaluate(() => window.ready);
    const after = await p.evaluate(async () => {
      __send({ jsonrpc: '2.0', id: 'c2', method: 'tools/call', params: { name: 'which-load', arguments: {} } });
      const c2 = await __answer('c2');
      // The subscription came along too.
      window.session.notify('notifications/resources/updated', { uri: 'app://state' });
      // And the log level: info is filtered out, error gets through.
      window.session.notify('notifications/message', { level: 'info', data: 'quiet' });
      window.session.notify('notifications/message', { level: 'error', data: 'loud' });
      await new Promise((r) => setTimeout(r, 50));
      return {
        loads: window.loads,
        c2: c2.result?.content?.[0]?.text ?? c2.error,
        updated: window.__got.filter((m) => m?.method === 'notifications/resources/updated').map((m) => m.params.uri),
        logs: window.__got.filter((m) => m?.method === 'notifications/message').map((m) => m.params.data),
      };
    });
    assert.equal(after.loads, 2);
    assert.equal(after.c2, 'load 2', 'answered by the reloaded page, no initialize in between');
    assert.deepEqual(after.updated, ['app://state']);
    assert.deepEqual(after.logs, ['loud']);

    // A same-origin navigation within the tab keeps it too.
    await p.goto(server.url('/__tab-persist.html?next'));
    await p.evaluate(() => window.ready);
    const nav = await p.evaluate(async () => {
      __send({ jsonrpc: '2.0', id: 'c3', method: 'tools/call', params: { name: 'which-load', arguments: {} } });
      return (await __answer('c3')).result.content[0].text;
    });
    assert.equal(nav, 'load 3');

    // Disconnecting on purpose clears what was kept.
    const cleared = await p.evaluate(() => {
      window.session.disconnect();
      return sessionStorage.getItem('mcp-tab-session-mcp-default');
    });
    assert.equal(cleared, null);
  }));

test('persist: a request running when the page went away is answered with an error after the reload', () =>
  withPage(async ({ page: p, context, server }) => {
    await setup(true, '/__tab-persist-inflight.html');
    await context.addInitScript(AGENT);
    await p.goto(server.url('/__tab-persist-inflight.html'));
    await p.evaluate(() => window.ready);
    await p.evaluate(async () => {
      __send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'agent', version: '1' } } });
      await __answer('init');
      __send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      __send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'never', arguments: {} } });
      await new Promise((r) => setTimeout(r, 50));
    });
    await p.reload();
    await p.evaluate(() => window.ready);
    const r = await p.evaluate(async () => ({ slow: await __answer('slow'), ping: (__send({ jsonrpc: '2.0', id: 'p', method: 'ping' }), await __answer('p')) }));
    assert.equal(r.slow.error.code, -32603);
    assert.match(r.slow.error.message, /interrupted/);
    assert.deepEqual(r.ping.result, {});
  }));

test('without persist, a reloaded page needs a new initialize; a corrupt stored session is dropped with a warning', () =>
  withPage(async ({ page: p, context, server, consoleMessages }) => {
    await setup(false, '/__tab-no-persist.html');
    await setup(true, '/__tab-corrupt.html');
    await context.addInitScript(AGENT);
    await p.goto(server.url('/__tab-no-persist.html'));
    await p.evaluate(() => window.ready);
    await p.evaluate(async () => {
      __send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agent', version: '1' } } });
      await __answer('init');
    });
    await p.reload();
    await p.evaluate(() => window.ready);
    const r = await p.evaluate(async () => {
      __send({ jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'which-load', arguments: {} } });
      return { answer: await __answer('c'), stored: sessionStorage.getItem('mcp-tab-session-mcp-default') };
    });
    assert.equal(r.answer.error.code, -32600);
    assert.match(r.answer.error.message, /not initialized/);
    assert.equal(r.stored, null);

    await p.evaluate(() => sessionStorage.setItem('mcp-tab-session-mcp-default', '{"format":99}'));
    await p.goto(server.url('/__tab-corrupt.html'));
    await p.evaluate(() => window.ready);
    const c = await p.evaluate(async () => {
      __send({ jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'which-load', arguments: {} } });
      return { answer: await __answer('c'), stored: sessionStorage.getItem('mcp-tab-session-mcp-default') };
    });
    assert.match(c.answer.error.message, /not initialized/);
    assert.equal(c.stored, null);
    assert.ok(consoleMessages.some((m) => m.type === 'warning' && /could not be restored/.test(m.text)));
  }));

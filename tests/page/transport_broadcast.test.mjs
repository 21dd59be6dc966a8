// The BroadcastChannel transport: two pages of one origin in one browser context, the server in
// one and clients in the other; no echo of the server's own instanceId; one session per client
// instance, its answers addressed to it (`to`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, inlinePage, requireDist } from './harness.mjs';

requireDist();

const FIX = '/tests/page/fixtures/transport';

test('two pages on one BroadcastChannel: a server page and a client page', () =>
  withPage(async ({ context, server }) => {
    const serverPath = await inlinePage(`<script src="/dist/modelcontext.iife.js"></script>
<script>
  window.ready = (async () => {
    const mc = navigator.modelContext;
    await mc.registerTool({ name: 'whoami', description: 'Which tab', execute: async () => 'server tab ' + document.title });
    const session = await mc.connect({
      serverInfo: { name: 'tab-server' },
      transport: { type: 'broadcastChannel', channelName: 'mcp-tabs', instanceId: 'server-1' },
    });
    // Messages that carry the server's own instanceId are dropped (no echo).
    const echo = new BroadcastChannel('mcp-tabs');
    echo.postMessage({ type: 'mcp', instanceId: 'server-1', payload: { jsonrpc: '2.0', id: 'echo', method: 'ping' } });
    return session.transport.instanceId;
  })();
</script><title>A</title>`);
    const clientPath = await inlinePage(`<script src="${FIX}/rpc.js"></script>
<script>
  const ch = new BroadcastChannel('mcp-tabs');
  window.all = [];
  const clients = {};
  ch.onmessage = (e) => {
    window.all.push(e.data);
    if (e.data?.type !== 'mcp') return;
    for (const c of Object.values(clients)) c.receive(e.data.payload);
  };
  window.client = (id) => (clients[id] ??= makeRpc((m) => ch.postMessage({ type: 'mcp', instanceId: id, payload: m }), { prefix: id + '-' }));
</script>`);
    const serverPage = await context.newPage();
    await serverPage.goto(server.url(serverPath));
    assert.equal(await serverPage.evaluate(() => window.ready), 'server-1');
    const clientPage = await context.newPage();
    await clientPage.goto(server.url(clientPath));
    const r = await clientPage.evaluate(async () => {
      const a = client('a');
      const b = client('b');
      const initA = await a.initialize('2025-06-18');
      const initB = await b.initialize('2024-11-05');
      const call = await a.request('tools/call', { name: 'whoami', arguments: {} });
      // b's session is its own: still on its own version, and its calls work too.
      const callB = await b.request('tools/call', { name: 'whoami', arguments: {} });
      return {
        server: initA.result.serverInfo.name,
        versions: [initA.result.protocolVersion, initB.result.protocolVersion],
        text: call.result.content[0].text,
        textB: callB.result.content[0].text,
        senders: [...new Set(window.all.map((m) => m.instanceId))],
        echoAnswered: window.all.some((m) => m.payload?.id === 'echo'),
        shape: Object.keys(window.all[0]).sort(),
        addressed: window.all.every((m) => m.to === String(m.payload.id ?? '').split('-')[0] || (m.payload.method && ['a', 'b'].includes(m.to))),
      };
    });
    assert.equal(r.server, 'tab-server');
    assert.deepEqual(r.versions, ['2025-06-18', '2024-11-05']);
    assert.equal(r.text, 'server tab A');
    assert.equal(r.textB, 'server tab A');
    assert.deepEqual(r.senders, ['server-1']);
    assert.equal(r.echoAnswered, false);
    // The seed's envelope plus `to`: the client instance the answer is for.
    assert.deepEqual(r.shape, ['instanceId', 'payload', 'to', 'type']);
    assert.equal(r.addressed, true);
  }));

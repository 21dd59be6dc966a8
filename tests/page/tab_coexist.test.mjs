// Another MCP server on the tab channel of the window (src/transport/tab.rs, `TabServer`):
// `@mcp-b/global` runs its own with its own document.modelContext, which this realm's claim on
// the channel cannot see. Without care both servers answered every request, and the client kept
// whichever answer came first. The default tab server now counts its own 'mcp-server-ready's and
// gives way when it sees another server's; a tab server the page made warns and keeps serving.
// `@mcp-b/webmcp-polyfill` (the W3C API, no server) loaded first is bridged as Chromium's own
// object is (src/browser/native.rs), its `executeTool` taking the input as JSON text.
//
// The official MCP client over MCP-B's TabClientTransport is the client (an import map loads
// them from node_modules, scripts/lib/importmap.mjs).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, inlinePage, requireDist, PAGE_UNTIL } from './harness.mjs';
import { importMapFor, importMapScript, MCP_PEERS } from '../../scripts/lib/importmap.mjs';

requireDist('modelcontext.iife.js');
const IMPORT_MAP = importMapScript(importMapFor(MCP_PEERS));
const OURS = '<script src="/dist/modelcontext.iife.js"></script>';
const MCPB_GLOBAL = '<script src="/node_modules/@mcp-b/global/dist/index.iife.js"></script>';

// A bare server on the tab wire, as any other implementation may run one: it announces itself,
// answers 'mcp-check-ready', and answers every request with an empty result.
const FOREIGN = (channel) => `<script>
  addEventListener('message', (ev) => {
    const d = ev.data;
    if (ev.source !== window || !d || d.type !== 'mcp' || d.channel !== ${JSON.stringify(channel)} || d.direction !== 'client-to-server') return;
    const post = (payload) => postMessage({ channel: d.channel, type: 'mcp', direction: 'server-to-client', payload }, location.origin);
    if (d.payload === 'mcp-check-ready') return post('mcp-server-ready');
    if (d.payload && d.payload.id !== undefined) post({ jsonrpc: '2.0', id: d.payload.id, result: d.payload.method === 'initialize'
      ? { protocolVersion: d.payload.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'foreign', version: '0' } }
      : { tools: [] } });
  });
  postMessage({ channel: ${JSON.stringify(channel)}, type: 'mcp', direction: 'server-to-client', payload: 'mcp-server-ready' }, location.origin);
</script>`;

const CLIENT = `<script type="module">
  import { Client } from '@modelcontextprotocol/client';
  import { TabClientTransport } from '@mcp-b/transports';
  window.Peers = { Client, TabClientTransport };
</script>`;

/**
 * In the page: connects `clients` clients one after the other on `channel` (each lists the
 * tools, and calls the first one when there is one), counting the answers each request id got
 * on the wire.
 */
async function connectAndCount({ channel = 'mcp-default', clients = 1 }) {
  await window.__until(() => window.Peers, 'the client modules');
  await globalThis[Symbol.for('modelcontext-polyfill')].ready;
  // Each client numbers its requests from 0: the key is the client's and the id.
  const answers = new Map();
  let run = 0;
  const count = (e) => {
    const d = e.data;
    if (d?.channel === channel && d.direction === 'server-to-client' && d.payload?.id !== undefined) {
      const key = `${run}:${d.payload.id}`;
      answers.set(key, (answers.get(key) || 0) + 1);
    }
  };
  addEventListener('message', count);
  const runs = [];
  for (let i = 0; i < clients; i++) {
    run = i;
    const client = new Peers.Client({ name: `c${i}`, version: '1' });
    await Promise.race([
      client.connect(new Peers.TabClientTransport({ targetOrigin: location.origin, channelId: channel })),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`client ${i}: no server answered on ${channel}`)), 5000)),
    ]);
    const { tools } = await client.listTools();
    const call = tools.length ? await client.callTool({ name: tools[0].name, arguments: {} }) : null;
    runs.push({ server: client.getServerVersion().name, tools: tools.map((t) => t.name), text: call?.content?.[0]?.text });
    // Answers that come late are counted too.
    await new Promise((r) => setTimeout(r, 50));
    await client.close();
  }
  removeEventListener('message', count);
  // This polyfill's own object (@mcp-b/global may have replaced document.modelContext).
  const ours = globalThis[Symbol.for('modelcontext-polyfill')].modelContext;
  return { runs, answers: [...answers.values()], isConnected: ours.isConnected() };
}

const REGISTER = `<script>
  document.modelContext.registerTool({ name: 'hello', description: 'Says hello', execute: () => 'hello' });
</script>`;

const warnings = (consoleMessages) =>
  consoleMessages.filter((m) => m.type === 'warning' && m.text.includes('another MCP server')).map((m) => m.text);

for (const [order, scripts] of [
  ['@mcp-b/global, then this polyfill', MCPB_GLOBAL + OURS],
  ['this polyfill, then @mcp-b/global', OURS + MCPB_GLOBAL],
]) {
  test(`${order}: every request is answered once, by @mcp-b/global's server, which lists the page's tool`, () =>
    withPage(async ({ page, goto, consoleMessages }) => {
      await goto(await inlinePage(`${IMPORT_MAP}${scripts}${REGISTER}${CLIENT}`));
      await page.evaluate(PAGE_UNTIL);
      const r = await page.evaluate(connectAndCount, { clients: 2 });
      assert.equal(r.runs.length, 2);
      for (const run of r.runs) {
        assert.deepEqual(run.tools, ['hello']);
        assert.equal(run.text, 'hello');
        assert.notEqual(run.server, 'foreign');
      }
      assert.ok(r.answers.length >= 6, `answers seen: ${r.answers}`);
      assert.deepEqual([...new Set(r.answers)], [1], 'each request id answered once');
      assert.equal(r.isConnected, false, "this polyfill's default tab server gave way");
      const w = warnings(consoleMessages);
      assert.equal(w.length, 1, w.join('\n'));
      assert.match(w[0], /another MCP server answers on the tab channel "mcp-default" in this window .*The polyfill's default tab server stops/);
    }));
}

test('the default tab server gives way to another server on its channel, without telling its clients the server stopped', () =>
  withPage(async ({ page, goto, consoleMessages }) => {
    await goto(await inlinePage(`${IMPORT_MAP}${FOREIGN('mcp-default')}${OURS}${REGISTER}${CLIENT}`));
    await page.evaluate(PAGE_UNTIL);
    const stopped = page.evaluate(() => new Promise((resolve) => {
      addEventListener('message', (e) => e.data?.payload === 'mcp-server-stopped' && resolve(true));
      setTimeout(() => resolve(false), 1500);
    }));
    const r = await page.evaluate(connectAndCount, { clients: 1 });
    assert.deepEqual(r.runs, [{ server: 'foreign', tools: [], text: undefined }]);
    assert.deepEqual([...new Set(r.answers)], [1]);
    assert.equal(r.isConnected, false, 'modelContext.isConnected says the default server no longer runs');
    assert.equal(await stopped, false, 'no mcp-server-stopped was posted on the channel');
    assert.equal(warnings(consoleMessages).length, 1);
  }));

test('a tab server the page made keeps serving beside another server on its channel, and warns once', () =>
  withPage(async ({ page, goto, consoleMessages }) => {
    await goto(await inlinePage(`${IMPORT_MAP}${FOREIGN('shared')}${OURS}${CLIENT}`));
    await page.evaluate(PAGE_UNTIL);
    await page.evaluate(async () => {
      await globalThis[Symbol.for('modelcontext-polyfill')].ready;
      window.session = await navigator.modelContext.connect({ transport: { type: 'tab', channelId: 'shared' } });
    });
    const r = await page.evaluate(connectAndCount, { channel: 'shared', clients: 2 });
    assert.equal(await page.evaluate(() => window.session.transport.isConnected), true);
    // Both servers answer (the page asked for this one); the warning says so.
    assert.deepEqual([...new Set(r.answers)], [2]);
    const w = warnings(consoleMessages);
    assert.equal(w.length, 1, w.join('\n'));
    assert.match(w[0], /another MCP server also answers on the tab channel "shared" in this window, so every request there is answered twice/);
  }));

test('alone on its channel, the default tab server serves client after client and warns of nothing', () =>
  withPage(async ({ page, goto, consoleMessages }) => {
    await goto(await inlinePage(`${IMPORT_MAP}${OURS}${REGISTER}${CLIENT}`));
    await page.evaluate(PAGE_UNTIL);
    const r = await page.evaluate(connectAndCount, { clients: 4 });
    assert.equal(r.runs.length, 4);
    for (const run of r.runs) assert.deepEqual([run.tools, run.text], [['hello'], 'hello']);
    assert.deepEqual([...new Set(r.answers)], [1]);
    assert.equal(r.isConnected, true);
    assert.deepEqual(warnings(consoleMessages), []);
  }));

test('the default tab server stopped and started again at once does not take its own last mcp-server-ready for another server', () =>
  withPage(async ({ page, goto, consoleMessages }) => {
    await goto(await inlinePage(`${IMPORT_MAP}${OURS}${REGISTER}${CLIENT}`));
    await page.evaluate(PAGE_UNTIL);
    // A listener after the server's hears a client's 'mcp-check-ready' once the server has
    // answered it, and replaces the server there: the answer, still on its way, reaches the
    // new server first.
    await page.evaluate(async () => {
      const record = globalThis[Symbol.for('modelcontext-polyfill')];
      await record.ready;
      // The old server's answer and the new server's announcement, heard: the clients below
      // start after the restart's messages (the old server's 'mcp-server-stopped' among them,
      // which would close a client already listening) have been dispatched.
      let readies = 0;
      const heard = new Promise((resolve) => {
        addEventListener('message', function count(e) {
          if (e.data?.direction !== 'server-to-client' || e.data.payload !== 'mcp-server-ready') return;
          if (++readies < 2) return;
          removeEventListener('message', count);
          resolve();
        });
      });
      const replaced = new Promise((resolve) => {
        addEventListener('message', function replace(e) {
          if (e.data?.payload !== 'mcp-check-ready') return;
          removeEventListener('message', replace);
          record.modelContext.disconnect();
          record.modelContext.connect().then(resolve);
        });
      });
      postMessage({ channel: 'mcp-default', type: 'mcp', direction: 'client-to-server', payload: 'mcp-check-ready' }, location.origin);
      await replaced;
      await heard;
    });
    const r = await page.evaluate(connectAndCount, { clients: 2 });
    for (const run of r.runs) assert.deepEqual([run.tools, run.text], [['hello'], 'hello']);
    assert.deepEqual([...new Set(r.answers)], [1]);
    assert.equal(r.isConnected, true);
    assert.deepEqual(warnings(consoleMessages), []);
  }));

// @mcp-b/webmcp-polyfill has the W3C API and no MCP server: loaded first, its object stays and
// this polyfill serves its tools (as with Chromium's own); loaded after, it keeps ours.
const WEBMCP_POLYFILL = '<script src="/node_modules/@mcp-b/webmcp-polyfill/dist/index.iife.js"></script>';
for (const [order, scripts, ours] of [
  ['@mcp-b/webmcp-polyfill, then this polyfill', WEBMCP_POLYFILL + OURS, false],
  ['this polyfill, then @mcp-b/webmcp-polyfill', OURS + WEBMCP_POLYFILL, true],
]) {
  test(`${order}: this polyfill's server is the only one, and lists the page's tool`, () =>
    withPage(async ({ page, goto, consoleMessages }) => {
      await goto(await inlinePage(`${IMPORT_MAP}${scripts}${REGISTER}${CLIENT}`));
      await page.evaluate(PAGE_UNTIL);
      const r = await page.evaluate(connectAndCount, { clients: 2 });
      for (const run of r.runs) assert.deepEqual([run.tools, run.text], [['hello'], 'hello']);
      assert.deepEqual([...new Set(r.answers)], [1]);
      assert.equal(r.isConnected, true);
      const objectIsOurs = await page.evaluate(() => document.modelContext === globalThis[Symbol.for('modelcontext-polyfill')].modelContext);
      assert.equal(objectIsOurs, ours);
      assert.deepEqual(warnings(consoleMessages), []);
    }));
}

test("@mcp-b/webmcp-polyfill first: its tools, served over MCP, get their arguments (it takes executeTool's input as JSON text) and run once per call", () =>
  withPage(async ({ page, goto }) => {
    await goto(await inlinePage(`${IMPORT_MAP}${WEBMCP_POLYFILL}${OURS}<script>
      window.runs = [];
      document.modelContext.registerTool({
        name: 'double', description: 'Doubles n',
        inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
        execute: (args) => { runs.push(args); return String(2 * args.n); },
      });
    </script>${CLIENT}`));
    await page.evaluate(PAGE_UNTIL);
    const r = await page.evaluate(async () => {
      await window.__until(() => window.Peers, 'the client modules');
      await globalThis[Symbol.for('modelcontext-polyfill')].ready;
      const client = new Peers.Client({ name: 'c', version: '1' });
      await client.connect(new Peers.TabClientTransport({ targetOrigin: location.origin }));
      const texts = [];
      for (const n of [5, 6]) texts.push((await client.callTool({ name: 'double', arguments: { n } })).content[0].text);
      const bad = await client.callTool({ name: 'double', arguments: { n: 'x' } });
      await client.close();
      return { texts, bad: bad.isError === true, runs: window.runs };
    });
    assert.deepEqual(r, { texts: ['10', '12'], bad: true, runs: [{ n: 5 }, { n: 6 }] });
  }));

// Interop of the client side with the ecosystem's peers (loaded unbundled from node_modules
// through an import map): the official MCP client (@modelcontextprotocol/client) carried by this
// polyfill's TabClientTransport; this polyfill's McpClient carried by MCP-B's TabClientTransport
// (any object with the SDK Transport shape works); and McpClient + TabClientTransport calling a
// server built with the official SDK on MCP-B's TabServerTransport.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, inlinePage, requireDist } from './harness.mjs';
import { importMapFor, importMapScript } from '../../scripts/lib/importmap.mjs';

requireDist('modelcontext.js');
const IMPORT_MAP = importMapScript(
  importMapFor(['@modelcontextprotocol/client', '@modelcontextprotocol/server', '@mcp-b/transports']),
);

const PAGE = `<!doctype html><meta charset="utf-8"><title>client interop</title>
${IMPORT_MAP}
<script type="module">
  import { McpClient, TabClientTransport, ready } from '/dist/modelcontext.js';
  import { Client } from '@modelcontextprotocol/client';
  import { Server } from '@modelcontextprotocol/server';
  import * as mcpb from '@mcp-b/transports';
  await ready; // the client classes come with the core
  Object.assign(window, { McpClient, OurTab: TabClientTransport, Client, Server, mcpb });
  await navigator.modelContext.registerTool({
    name: 'add', description: 'Adds',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    execute: ({ a, b }) => String(a + b),
  });
  window.ready = true;
</script>`;

async function open(page, goto) {
  await goto(await inlinePage(PAGE));
  await page.waitForFunction(() => window.ready);
}

test('the official MCP Client over this polyfill\'s TabClientTransport', () =>
  withPage(async ({ page, goto }) => {
    await open(page, goto);
    const r = await page.evaluate(async () => {
      const client = new Client({ name: 'sdk', version: '1.0.0' });
      await client.connect(new OurTab({ targetOrigin: location.origin }));
      const tools = (await client.listTools()).tools.map((t) => t.name);
      const sum = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
      const version = client.getServerVersion();
      await client.close();
      return { tools, sum: sum.content[0].text, version };
    });
    assert.deepEqual(r.tools, ['add']);
    assert.equal(r.sum, '42');
    assert.equal(typeof r.version.name, 'string');
  }));

test('McpClient over MCP-B\'s TabClientTransport (a foreign SDK-shaped transport)', () =>
  withPage(async ({ page, goto }) => {
    await open(page, goto);
    const r = await page.evaluate(async () => {
      const client = new McpClient(new mcpb.TabClientTransport({ targetOrigin: location.origin }));
      const init = await client.connect();
      const sum = await client.callTool('add', { a: 1, b: 2 });
      const timedOut = await client.callTool('add', { a: 1, b: 2 }, { timeoutMs: 0 }).catch((e) => e.name);
      await client.close();
      return { pv: init.protocolVersion, sum: sum.content[0].text, timedOut, state: client.state };
    });
    assert.equal(r.pv, '2025-11-25');
    assert.equal(r.sum, '3');
    assert.equal(r.timedOut, 'RequestTimeoutError');
    assert.equal(r.state, 'closed');
  }));

test('McpClient + TabClientTransport call an official-SDK server on MCP-B\'s TabServerTransport', () =>
  withPage(async ({ page, goto }) => {
    await open(page, goto);
    const r = await page.evaluate(async () => {
      const server = new Server({ name: 'sdk-server', version: '2.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/list', () => ({
        tools: [{ name: 'shout', description: 'Upper-cases', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
      }));
      server.setRequestHandler('tools/call', (req) => ({
        content: [{ type: 'text', text: String(req.params.arguments?.text ?? '').toUpperCase() }],
      }));
      const serverTransport = new mcpb.TabServerTransport({ allowedOrigins: [location.origin], channelId: 'sdk-server' });
      await server.connect(serverTransport);
      const client = new McpClient(new OurTab({ channelId: 'sdk-server' }));
      const init = await client.connect();
      const tools = (await client.listTools()).tools.map((t) => t.name);
      const out = await client.callTool('shout', { text: 'hi' });
      // The SDK server stopping (mcp-server-stopped) closes the client.
      const closed = new Promise((resolve) => { client.onclose = resolve; });
      await serverTransport.close();
      const reason = await closed;
      return { server: init.serverInfo, tools, out: out.content[0].text, reason, state: client.state };
    });
    assert.equal(r.server.name, 'sdk-server');
    assert.deepEqual(r.tools, ['shout']);
    assert.equal(r.out, 'HI');
    assert.match(r.reason, /mcp-server-stopped/);
    assert.equal(r.state, 'closed');
  }));

// Interoperability with MCP-B's transports (@mcp-b/transports) and the official MCP client
// (@modelcontextprotocol/client), unchanged, in the browser: node_modules is served by the test
// server and resolved with an import map.
//
// - MCP-B's IframeParentTransport + Client in a host page embedding our app (iframeChild) from
//   another origin.
// - MCP-B's ExtensionClientTransport + Client (chrome.runtime.connect stubbed with a Port-shaped
//   pair) against our extension transport.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { withPage, requireDist, REPO_ROOT } from './harness.mjs';

requireDist();

const FIX = '/tests/page/fixtures/transport';
const IMPORT_MAP = fs.readFileSync(path.join(REPO_ROOT, 'tests/page/fixtures/transport/importmap.json'), 'utf8');
const HAVE_DEPS = ['@mcp-b/transports', '@modelcontextprotocol/client'].every((p) =>
  fs.existsSync(path.join(REPO_ROOT, 'node_modules', p, 'package.json')));

const HOST = `<script type="importmap">${IMPORT_MAP}</script>
<script type="module">
  import { Client } from '@modelcontextprotocol/client';
  import { IframeParentTransport, ExtensionClientTransport } from '@mcp-b/transports';
  window.Client = Client;
  window.IframeParentTransport = IframeParentTransport;
  window.ExtensionClientTransport = ExtensionClientTransport;
  window.modulesReady = true;
</script>`;

test('MCP-B IframeParentTransport + the official Client drive our app in a cross-origin iframe', { skip: !HAVE_DEPS && 'node_modules missing' }, () =>
  withPage(async ({ page, server }) => {
    await page.waitForFunction(() => window.modulesReady === true);
    const src = server.url(`${FIX}/iframe-app.html?parent=${encodeURIComponent(server.origin)}`, { alt: true });
    const r = await page.evaluate(async ({ src, childOrigin }) => {
      const iframe = document.createElement('iframe');
      iframe.allow = 'tools'; // the embedded app registers tools (WebMCP's tools policy)
      iframe.src = src;
      document.body.append(iframe);
      const transport = new IframeParentTransport({ iframe, targetOrigin: childOrigin });
      const client = new Client({ name: 'mcp-b-host', version: '1.0.0' });
      await client.connect(transport);
      const info = client.getServerVersion();
      const version = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion;
      const tools = await client.listTools();
      const result = await client.callTool({ name: 'app-info', arguments: { greeting: 'howdy' } });
      const ping = await client.ping();
      await client.close();
      return {
        server: info?.name,
        version,
        tools: tools.tools.map((t) => t.name),
        text: result.content[0].text,
        ping,
      };
    }, { src, childOrigin: server.altOrigin });
    console.log('  MCP-B iframe host saw:', JSON.stringify(r));
    assert.equal(r.server, 'iframe-app');
    assert.deepEqual(r.tools, ['app-info']);
    assert.equal(r.text, `howdy from ${server.altOrigin}`);
  }, { html: HOST }));

test('MCP-B ExtensionClientTransport + the official Client against our extension transport', { skip: !HAVE_DEPS && 'node_modules missing' }, () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.modulesReady === true);
    const r = await page.evaluate(async () => {
      // chrome.runtime.connect stand-in: a Port pair, delivering on a task.
      const event = () => {
        const ls = new Set();
        return { addListener: (f) => ls.add(f), removeListener: (f) => ls.delete(f), fire: (...a) => [...ls].forEach((f) => f(...a)) };
      };
      const pair = () => {
        const a = { name: 'mcp', onMessage: event(), onDisconnect: event() };
        const b = { name: 'mcp', onMessage: event(), onDisconnect: event() };
        for (const [me, other] of [[a, b], [b, a]]) {
          me.postMessage = (m) => { const c = structuredClone(m); setTimeout(() => other.onMessage.fire(c, other), 0); };
          me.disconnect = () => setTimeout(() => other.onDisconnect.fire(other), 0);
        }
        return [a, b];
      };
      const mc = navigator.modelContext;
      await mc.registerTool({ name: 'from-page', description: 'A page tool', execute: async () => 'page says hi' });
      let serverSession;
      globalThis.chrome = {
        runtime: {
          connect: () => {
            const [clientPort, serverPort] = pair();
            // The "content script" side: serve this port.
            mc.connect({ transport: { type: 'extension', port: serverPort } }).then((s) => (serverSession = s));
            return clientPort;
          },
        },
      };
      const client = new Client({ name: 'mcp-b-extension', version: '1.0.0' });
      await client.connect(new ExtensionClientTransport());
      const tools = await client.listTools();
      const result = await client.callTool({ name: 'from-page', arguments: {} });
      const server = client.getServerVersion()?.name;
      await client.close();
      await new Promise((r) => setTimeout(r, 20));
      return {
        server,
        tools: tools.tools.map((t) => t.name),
        text: result.content[0].text,
        serverConnectedAfterClose: serverSession?.isConnected(),
      };
    });
    console.log('  MCP-B extension client saw:', JSON.stringify(r));
    assert.equal(typeof r.server, 'string');
    assert.deepEqual(r.tools, ['from-page']);
    assert.equal(r.text, 'page says hi');
    assert.equal(r.serverConnectedAfterClose, false, 'the port disconnecting ends our side');
  }, { html: `<script src="/dist/modelcontext.iife.js"></script>${HOST}` }));

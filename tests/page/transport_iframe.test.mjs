// The iframe transports across origins (the page on http://127.0.0.1:P, the iframe on
// http://localhost:P): our app serving inside the iframe (iframeChild) for a host that speaks
// MCP-B's wire, and our host page serving a client inside its iframe (iframeParent), with the
// handshake and its timeout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, inlinePage, requireDist } from './harness.mjs';

requireDist();

const FIX = '/tests/page/fixtures/transport';
const CLASSIC = `<script src="/dist/modelcontext.iife.js"></script>
<script src="${FIX}/rpc.js"></script>`;

// A raw MCP-B-wire host in the page (raw-host.js): polls 'mcp-check-ready' every 250 ms until
// the child answers 'mcp-server-ready', then talks JSON-RPC.
const RAW_HOST = `<script src="${FIX}/rpc.js"></script>
<script src="${FIX}/raw-host.js"></script>`;

test('iframeChild: our app serves inside a cross-origin iframe; the host speaks MCP-B\'s iframe wire', () =>
  withPage(async ({ page, server }) => {
    const src = server.url(`${FIX}/iframe-app.html?parent=${encodeURIComponent(server.origin)}`, { alt: true });
    const r = await page.evaluate(async ({ src, childOrigin }) => {
      const rpc = embed(src, childOrigin);
      await rpc.ready;
      const init = await rpc.initialize('2025-06-18');
      const list = await rpc.request('tools/list');
      const call = await rpc.request('tools/call', { name: 'app-info', arguments: { greeting: 'hello' } });
      // A client that starts over gets a fresh session (initialize again is not an error).
      const again = await rpc.initialize('2024-11-05');
      return {
        server: init.result.serverInfo.name,
        tools: list.result.tools.map((t) => t.name),
        text: call.result.content[0].text,
        again: again.result?.protocolVersion,
        envelopeKeys: Object.keys(rpc.envelopes[0]).sort(),
      };
    }, { src, childOrigin: server.altOrigin });
    assert.deepEqual(r, {
      server: 'iframe-app',
      tools: ['app-info'],
      text: `hello from ${server.altOrigin}`,
      again: '2024-11-05',
      envelopeKeys: ['channel', 'direction', 'payload', 'type'],
    });
  }, { html: RAW_HOST }));

test('iframeChild: announces mcp-server-ready on start and on every check; mcp-server-stopped on close', () =>
  withPage(async ({ page, server }) => {
    const src = server.url(`${FIX}/iframe-app.html?parent=${encodeURIComponent(server.origin)}`, { alt: true });
    const r = await page.evaluate(async ({ src, childOrigin }) => {
      const iframe = document.createElement('iframe');
      iframe.allow = 'tools'; // the embedded app registers tools (WebMCP's tools policy)
      const seen = [];
      addEventListener('message', (e) => {
        // The iframe transport's envelopes (the polyfill's frame wire also asks this page for
        // the frame's tools policy, in a message of its own).
        if (e.source === iframe.contentWindow && e.origin === childOrigin && e.data?.channel === 'mcp-iframe') seen.push(e.data.payload);
      });
      iframe.src = src;
      document.body.append(iframe);
      await new Promise((r) => iframe.addEventListener('load', r));
      // The child's server starts once its polyfill's core has loaded, and announces itself.
      for (let i = 0; i < 200 && !seen.length; i++) await sleep(50);
      const post = (payload) => iframe.contentWindow.postMessage({ channel: 'mcp-iframe', type: 'mcp', direction: 'client-to-server', payload }, childOrigin);
      post('mcp-check-ready');
      post('mcp-check-ready');
      await sleep(100);
      return seen;
    }, { src, childOrigin: server.altOrigin });
    assert.deepEqual(r, ['mcp-server-ready', 'mcp-server-ready', 'mcp-server-ready']);
    const frame = page.frames().find((f) => f.url().startsWith(server.altOrigin));
    assert.equal(await frame.evaluate(() => window.ready), 'iframeChild');
    await page.evaluate(() => {
      window.after = [];
      addEventListener('message', (e) => window.after.push(e.data?.payload));
    });
    await frame.evaluate(() => window.session.disconnect());
    await page.waitForFunction(() => window.after.length > 0);
    assert.deepEqual(await page.evaluate(() => window.after), ['mcp-server-stopped']);
  }, { html: CLASSIC }));

test('iframeChild outside a frame is refused', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      try {
        await navigator.modelContext.connect({ transport: { type: 'iframeChild', parentOrigin: location.origin } });
        return 'resolved';
      } catch (e) {
        return `${e.name}: ${e.message}`;
      }
    });
    assert.match(r, /^InvalidStateError: The iframeChild transport needs a parent window/);
  }, { html: CLASSIC }));

test('iframeParent: our host page serves a client in a cross-origin iframe; connect() waits for it', () =>
  withPage(async ({ page, server }) => {
    const src = server.url(`${FIX}/iframe-client.html?parent=${encodeURIComponent(server.origin)}`, { alt: true });
    await page.evaluate(async ({ src, childOrigin }) => {
      const mc = navigator.modelContext;
      await mc.registerTool({ name: 'host-tool', description: 'In the host', execute: async () => 'hello from the host' });
      const iframe = document.createElement('iframe');
      iframe.allow = 'tools'; // the embedded app registers tools (WebMCP's tools policy)
      iframe.src = src;
      document.body.append(iframe);
      // connect() before the iframe has loaded: the parent keeps announcing until the child
      // speaks. (Not awaited here: the child's check on load can come before the parent
      // listens, its transport being in the core's deferred module, and this raw client then
      // speaks only when run() is called, as the parent's announcement lets it.)
      window.connecting = mc.connect({
        serverInfo: { name: 'host-server' },
        transport: { type: 'iframeParent', iframe, targetOrigin: childOrigin },
      });
      await new Promise((r) => iframe.addEventListener('load', r));
    }, { src, childOrigin: server.altOrigin });
    const frame = page.frames().find((f) => f.url().startsWith(server.altOrigin));
    const got = await frame.evaluate(() => window.run());
    assert.deepEqual(got, { server: 'host-server', text: 'hello from the host' });
    const r = await page.evaluate(async () => {
      const session = await window.connecting;
      return { type: session.transport.type, connected: session.isConnected() };
    });
    assert.deepEqual(r, { type: 'iframeParent', connected: true });
  }, { html: CLASSIC }));

test('iframeParent: a child that loads late still connects (the parent re-announces every 250 ms)', () =>
  withPage(async ({ page, server }) => {
    const slow = '/__slow-iframe-client.html';
    server.route(slow, (req, res) => {
      setTimeout(() => {
        res.writeHead(302, { Location: `${FIX}/iframe-client.html?parent=${encodeURIComponent(server.origin)}&nocheck` });
        res.end();
      }, 700);
    });
    const r = await page.evaluate(async ({ src, childOrigin }) => {
      const iframe = document.createElement('iframe');
      iframe.allow = 'tools'; // the embedded app registers tools (WebMCP's tools policy)
      iframe.src = src;
      document.body.append(iframe);
      const connecting = navigator.modelContext.connect({ transport: { type: 'iframeParent', iframe, targetOrigin: childOrigin } });
      // The child sends no check of its own (?nocheck): it waits for the parent's announcement
      // and then speaks (initialize), which completes the handshake.
      await new Promise((r) => iframe.addEventListener('load', r));
      await sleep(50);
      window.connecting = connecting;
      return { pending: await Promise.race([connecting.then(() => 'connected'), sleep(100).then(() => 'pending')]) };
    }, { src: server.url(slow, { alt: true }), childOrigin: server.altOrigin });
    assert.equal(r.pending, 'pending', 'connect() waits until the child speaks');
    await page.evaluate(() => navigator.modelContext.registerTool({ name: 'host-tool', description: 'x', execute: async () => 'late but fine' }));
    const frame = page.frames().find((f) => f.url().startsWith(server.altOrigin));
    const got = await frame.evaluate(async () => ({ ...(await window.run()), readySignals: window.readySignals }));
    assert.equal(got.text, 'late but fine');
    assert.ok(got.readySignals >= 1);
    assert.equal(await page.evaluate(async () => (await window.connecting).transport.isConnected), true);
  }, { html: CLASSIC }));

// A frame's first document is about:blank, of the embedding page's origin, until its navigation
// to the app commits: a check posted to it at the app's origin is dropped by the browser, which
// logs an error in the page's console each time. Neither side posts there.
const TARGET_ORIGIN_ERROR = /target origin|does not match the recipient/i;

test('both iframe handshakes skip the frame\'s first document while a slow app loads: the page\'s console stays clean, and they connect', () =>
  withPage(async ({ page, server, consoleMessages }) => {
    // The app takes 700 ms to answer (a redirect to it then), so checks every 50 ms meet the
    // frame's first document for that long.
    const slow = (path, to) => server.route(path, (req, res) => {
      setTimeout(() => {
        res.writeHead(302, { Location: to });
        res.end();
      }, 700);
    });
    const child = await inlinePage(`<script src="/dist/modelcontext.iife.js"></script>
<script>
  navigator.modelContext.registerTool({ name: 'in-frame', description: 'x', execute: async () => 'from the frame' });
  navigator.modelContext.connect({ transport: { type: 'iframeChild', allowedOrigins: ['${server.origin}'] } });
</script>`);
    slow('/__slow-iframe-server.html', child);
    slow('/__slow-iframe-client.html', `${FIX}/iframe-client.html?parent=${encodeURIComponent(server.origin)}`);
    const r = await page.evaluate(async ({ serverSrc, clientSrc, childOrigin }) => {
      const frame = (src) => {
        const iframe = document.createElement('iframe');
        iframe.allow = 'tools';
        iframe.src = src;
        document.body.append(iframe);
        return iframe;
      };
      // This page's client, polling a frame whose server comes late.
      const { McpClient, IframeParentClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
      const client = new McpClient(new IframeParentClientTransport({ iframe: frame(serverSrc), targetOrigin: childOrigin, checkIntervalMs: 50 }));
      // This page's server, announcing itself to a frame whose client comes late.
      await navigator.modelContext.registerTool({ name: 'host-tool', description: 'x', execute: async () => 'from the host' });
      const session = await navigator.modelContext.connect({
        serverInfo: { name: 'host-server' },
        transport: { type: 'iframeParent', iframe: frame(clientSrc), targetOrigin: childOrigin, checkReadyRetryMs: 50 },
      });
      await client.connect();
      const called = (await client.callTool('in-frame')).content[0].text;
      await client.close();
      return { called, connected: session.isConnected() };
    }, { serverSrc: server.url('/__slow-iframe-server.html', { alt: true }), clientSrc: server.url('/__slow-iframe-client.html', { alt: true }), childOrigin: server.altOrigin });
    assert.deepEqual(r, { called: 'from the frame', connected: true });
    const frame = page.frames().find((f) => f.url().includes('iframe-client.html'));
    assert.deepEqual(await frame.evaluate(() => window.run()), { server: 'host-server', text: 'from the host' });
    assert.deepEqual(consoleMessages.filter((m) => TARGET_ORIGIN_ERROR.test(m.text)), []);
  }, { html: CLASSIC }));

test('iframeParent: no client in the iframe → connect() rejects with a TimeoutError after connectionTimeout', () =>
  withPage(async ({ page, server }) => {
    const empty = await inlinePage('<p>no MCP here</p>');
    const r = await page.evaluate(async ({ src, childOrigin }) => {
      const iframe = document.createElement('iframe');
      iframe.allow = 'tools'; // the embedded app registers tools (WebMCP's tools policy)
      iframe.src = src;
      document.body.append(iframe);
      const t0 = performance.now();
      try {
        await navigator.modelContext.connect({ transport: { type: 'iframeParent', iframe, targetOrigin: childOrigin, connectionTimeout: 600 } });
        return 'resolved';
      } catch (e) {
        // The iframe is free again for another attempt.
        let again;
        try {
          const p = navigator.modelContext.connect({ transport: { type: 'iframeParent', iframe, targetOrigin: childOrigin, connectionTimeout: 100 } });
          again = await p.then(() => 'resolved', (e2) => e2.name);
        } catch (e3) {
          again = `threw ${e3.name}`;
        }
        return { error: `${e.name}: ${e.message}`, elapsed: performance.now() - t0, again };
      }
    }, { src: server.url(empty, { alt: true }), childOrigin: server.altOrigin });
    assert.match(r.error, /^TimeoutError: iframeParent transport: no MCP client in the iframe \(.*\) answered within 600 ms/);
    assert.ok(r.elapsed >= 590 && r.elapsed < 3000, `elapsed ${r.elapsed}`);
    assert.equal(r.again, 'TimeoutError');
  }, { html: CLASSIC }));

test('iframeParent: announcements and answers are posted from a microtask of their own (no wasm frame under postMessage)', () =>
  withPage(async ({ page, server }) => {
    // A same-origin child, so that the page can see every post the core makes to it.
    const src = server.url(`${FIX}/iframe-client.html?parent=${encodeURIComponent(server.origin)}`);
    const r = await page.evaluate(async ({ src, origin }) => {
      await navigator.modelContext.registerTool({ name: 'host-tool', description: 'x', execute: async () => 'from the host' });
      const iframe = document.createElement('iframe');
      iframe.src = src;
      document.body.append(iframe);
      // connect() before the child has loaded. The child's check on load can come before the
      // parent listens (its transport is in the core's deferred module), so the child's run()
      // below, which speaks once the parent has announced itself, is what the connection waits
      // for.
      const connecting = navigator.modelContext.connect({ serverInfo: { name: 'host-server' }, transport: { type: 'iframeParent', iframe, targetOrigin: origin } });
      await new Promise((r) => iframe.addEventListener('load', r));
      const child = iframe.contentWindow;
      const stacks = [];
      const post = child.postMessage;
      Error.stackTraceLimit = 100;
      child.postMessage = function (message, ...rest) {
        if (message && message.direction === 'server-to-client') stacks.push(new Error().stack.split('\n').slice(1));
        return post.call(this, message, ...rest);
      };
      const got = await child.run();
      await connecting;
      child.postMessage = post;
      return { got, posts: stacks.length, deepest: Math.max(...stacks.map((s) => s.length)), wasm: stacks.flat().filter((f) => /wasm/.test(f)) };
    }, { src, origin: server.origin });
    assert.deepEqual(r.got, { server: 'host-server', text: 'from the host' });
    // At least the initialize answer and the call's answer.
    assert.ok(r.posts >= 2, `${r.posts} posts`);
    assert.deepEqual(r.wasm, []);
    assert.ok(r.deepest <= 3, `a post was made ${r.deepest} frames deep`);
  }, { html: CLASSIC }));

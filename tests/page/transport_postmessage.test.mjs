// The postMessage transport: a dedicated Worker hosting the server (module and classic
// workers), a MessagePort (a MessageChannel in the page, and a port transferred into the
// worker), and a Window peer (an iframe's contentWindow) with its origin check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, inlinePage, requireDist } from './harness.mjs';

requireDist();

const FIX = '/tests/page/fixtures/transport';
const CLASSIC = `<script src="/dist/modelcontext.iife.js"></script>
<script src="${FIX}/rpc.js"></script>`;
const RPC_ONLY = `<script src="${FIX}/rpc.js"></script>`;

for (const [kind, file, opts] of [
  ['module', 'worker-esm.js', { type: 'module' }],
  ['classic', 'worker-classic.js', {}],
]) {
  test(`a dedicated ${kind} Worker hosts the server; the page talks raw JSON-RPC over postMessage`, () =>
    withPage(async ({ page }) => {
      const r = await page.evaluate(async ({ url, opts }) => {
        const worker = new Worker(url, opts);
        const ready = await new Promise((resolve, reject) => {
          worker.addEventListener('message', function on(e) {
            if (e.data?.ready || e.data?.failed) {
              worker.removeEventListener('message', on);
              resolve(e.data);
            }
          });
          worker.onerror = (e) => reject(new Error(e.message));
        });
        const rpc = makeRpc((m) => worker.postMessage({ type: 'mcp', payload: m }));
        worker.addEventListener('message', (e) => e.data?.type === 'mcp' && rpc.receive(e.data.payload));
        const init = await rpc.initialize('2025-06-18');
        const list = await rpc.request('tools/list');
        const call = await rpc.request('tools/call', { name: 'where', arguments: {} });
        // Messages of another type, and envelopes without a payload, are not for the server.
        worker.postMessage({ type: 'other', payload: { jsonrpc: '2.0', id: 'x', method: 'ping' } });
        worker.postMessage({ type: 'mcp' });
        const ping = await rpc.request('ping');
        // The page's own modelContext is another server: its registry does not have 'where'.
        const pageTools = (await navigator.modelContext.getTools?.())?.map((t) => t.name) ?? [];
        return {
          ready,
          server: init.result.serverInfo,
          tools: list.result.tools.map((t) => t.name),
          where: call.result.structuredContent ?? JSON.parse(call.result.content[0].text),
          ping: ping.result,
          stray: rpc.seen.some((m) => m.id === 'x'),
          pageTools,
        };
      }, { url: `${FIX}/${file}`, opts });
      assert.deepEqual(r.ready, {
        ready: true,
        format: kind === 'module' ? 'esm' : 'classic',
        navigatorHasIt: true,
        transport: 'postMessage',
      });
      assert.equal(r.server.name, 'worker-server');
      assert.deepEqual(r.tools, ['where']);
      assert.equal(r.where.hasDocument, false);
      assert.equal(r.where.isWorker, true);
      assert.deepEqual(r.ping, {});
      assert.equal(r.stray, false);
      assert.deepEqual(r.pageTools, []);
    }, { html: CLASSIC }));
}

test('a MessageChannel: a server on port1 in the page, a client on port2; and a port transferred into a worker', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async (FIX) => {
      const mc = navigator.modelContext;
      await mc.registerTool({ name: 'page-tool', description: 'In the page', execute: async () => 'from page' });
      const ch = new MessageChannel();
      const session = await mc.connect({ transport: { type: 'postMessage', target: ch.port1, messageType: 'rpc' } });
      const rpc = makeRpc((m) => ch.port2.postMessage({ type: 'rpc', payload: m }));
      ch.port2.onmessage = (e) => e.data?.type === 'rpc' && rpc.receive(e.data.payload);
      await rpc.initialize();
      const inPage = await rpc.request('tools/call', { name: 'page-tool', arguments: {} });
      // Only the messageType asked for is read.
      ch.port2.postMessage({ type: 'mcp', payload: { jsonrpc: '2.0', id: 'wrong-type', method: 'ping' } });
      await rpc.request('ping');
      session.disconnect();

      // A port into a worker: the worker serves on it (its own registry).
      const worker = new Worker(`${FIX}/worker-esm.js`, { type: 'module' });
      await new Promise((res) => worker.addEventListener('message', (e) => e.data?.ready && res()));
      const ch2 = new MessageChannel();
      worker.postMessage({ cmd: 'port', port: ch2.port1, messageType: 'mcp' }, [ch2.port1]);
      await new Promise((res) => worker.addEventListener('message', (e) => e.data?.portServed && res()));
      const viaPort = makeRpc((m) => ch2.port2.postMessage({ type: 'mcp', payload: m }));
      ch2.port2.onmessage = (e) => e.data?.type === 'mcp' && viaPort.receive(e.data.payload);
      const init = await viaPort.initialize();
      const where = await viaPort.request('tools/call', { name: 'where', arguments: {} });
      return {
        inPage: inPage.result.content[0].text,
        wrongType: rpc.seen.some((m) => m.id === 'wrong-type'),
        workerServer: init.result.serverInfo.name,
        where: where.result.structuredContent ?? JSON.parse(where.result.content[0].text),
      };
    }, FIX);
    assert.equal(r.inPage, 'from page');
    assert.equal(r.wrongType, false);
    assert.equal(r.workerServer, 'worker-server');
    assert.equal(r.where.isWorker, true);
  }, { html: CLASSIC }));

// A long object result that is JSON data is posted as the tool's own object, which the port's
// clone copies; a proxy, which a clone refuses, is posted as the answer's JSON copy instead
// (src/js/io.rs, `post_or_json_copy`), and the port goes on serving.
test('a MessageChannel: long JSON data and a proxy of it arrive as their JSON; the server still answers', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      const data = { rows: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `row ${i}`, ok: i % 2 === 0 })) };
      await mc.registerTool({ name: 'rows', description: 'Rows', execute: () => data });
      await mc.registerTool({ name: 'proxied', description: 'Rows behind a proxy', execute: () => new Proxy(data, {}) });
      const ch = new MessageChannel();
      const session = await mc.connect({ transport: { type: 'postMessage', target: ch.port1, messageType: 'rpc' } });
      const rpc = makeRpc((m) => ch.port2.postMessage({ type: 'rpc', payload: m }));
      ch.port2.onmessage = (e) => e.data?.type === 'rpc' && rpc.receive(e.data.payload);
      const reported = [];
      const report = window.reportError;
      window.reportError = (e) => reported.push(String(e));
      await rpc.initialize();
      const json = JSON.stringify(data);
      const out = {};
      for (const name of ['rows', 'proxied']) {
        const { result } = await rpc.request('tools/call', { name, arguments: {} });
        out[name] = [result.content[0].text === json, JSON.stringify(result.structuredContent) === json];
      }
      const ping = await rpc.request('ping');
      window.reportError = report;
      session.disconnect();
      return { out, reported, ping: ping.result };
    });
    assert.deepEqual(r.out, { rows: [true, true], proxied: [true, true] });
    assert.deepEqual(r.reported, []);
    assert.deepEqual(r.ping, {});
  }, { html: CLASSIC }));

test('a Window peer: the server answers its iframe only, from allowed origins, at the origin it came from', () =>
  withPage(async ({ page, server }) => {
    // The iframe (on the other origin) is the client; it posts to its parent.
    const child = await inlinePage(`${RPC_ONLY}
<script>
  const rpc = makeRpc((m) => parent.postMessage({ type: 'mcp', payload: m }, '*'));
  addEventListener('message', (e) => {
    if (e.source === parent && e.data?.type === 'mcp') rpc.receive(e.data.payload);
  });
  window.run = async () => {
    const init = await rpc.initialize();
    const call = await rpc.request('tools/call', { name: 'hello', arguments: {} });
    return { server: init.result.serverInfo.name, text: call.result.content[0].text };
  };
  parent.postMessage('child-loaded', '*');
</script>`);
    const r = await page.evaluate(async ({ src, altOrigin }) => {
      const mc = navigator.modelContext;
      await mc.registerTool({ name: 'hello', description: 'Hi', execute: async () => 'hello, frame' });
      const iframe = document.createElement('iframe');
      iframe.allow = 'tools'; // the embedded app registers tools (WebMCP's tools policy)
      const loaded = new Promise((res) => addEventListener('message', (e) => e.data === 'child-loaded' && res()));
      iframe.src = src;
      document.body.append(iframe);
      await loaded;
      const violations = [];
      const session = await mc.connect({
        serverInfo: { name: 'host' },
        transport: { type: 'postMessage', target: iframe.contentWindow, origin: altOrigin, onOriginViolation: (o) => violations.push(o) },
      });
      return { session: session.transport.options.origin, violations };
    }, { src: server.url(child, { alt: true }), altOrigin: server.altOrigin });
    assert.deepEqual(r.session, [server.altOrigin]);
    const frame = page.frames().find((f) => f.url().startsWith(server.altOrigin));
    const got = await frame.evaluate(() => window.run());
    assert.deepEqual(got, { server: 'host', text: 'hello, frame' });
  }, { html: CLASSIC }));

test('a Window peer from an origin not allowed (the default: the page\'s own) is refused and reported', () =>
  withPage(async ({ page, server }) => {
    const child = await inlinePage(`<script>
  addEventListener('message', (e) => { if (e.data?.type === 'mcp') parent.postMessage({ answered: e.data.payload }, '*'); });
  window.send = () => parent.postMessage({ type: 'mcp', payload: { jsonrpc: '2.0', id: 1, method: 'ping' } }, '*');
  parent.postMessage('child-loaded', '*');
</script>`);
    const r = await page.evaluate(async (src) => {
      const iframe = document.createElement('iframe');
      iframe.allow = 'tools'; // the embedded app registers tools (WebMCP's tools policy)
      const loaded = new Promise((res) => addEventListener('message', (e) => e.data === 'child-loaded' && res()));
      iframe.src = src;
      document.body.append(iframe);
      await loaded;
      window.violations = [];
      window.answers = [];
      addEventListener('message', (e) => e.data?.answered && window.answers.push(e.data));
      await navigator.modelContext.connect({
        transport: { type: 'postMessage', target: iframe.contentWindow, onOriginViolation: (o) => window.violations.push(o) },
      });
      return true;
    }, server.url(child, { alt: true }));
    assert.equal(r, true);
    const frame = page.frames().find((f) => f.url().startsWith(server.altOrigin));
    await frame.evaluate(() => window.send());
    await page.waitForFunction(() => window.violations.length === 1);
    await page.waitForTimeout(200);
    const out = await page.evaluate(() => ({ violations: window.violations, answers: window.answers }));
    assert.deepEqual(out.violations, [server.altOrigin]);
    assert.deepEqual(out.answers, [], 'nothing was answered');
  }, { html: CLASSIC }));

test("origin '*' must be asked for, and draws a console warning; the positional class form", () =>
  withPage(async ({ page, consoleMessages }) => {
    const r = await page.evaluate(async () => {
      const { PostMessageServerTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).transports;
      const iframe = document.createElement('iframe');
      iframe.allow = 'tools'; // the embedded app registers tools (WebMCP's tools policy)
      document.body.append(iframe);
      const t = new PostMessageServerTransport(iframe.contentWindow, { origin: '*', messageType: 'x' });
      const ch = new MessageChannel();
      const plain = new PostMessageServerTransport(ch.port1);
      return { origin: t.options.origin, type: t.options.messageType, target: t.options.target === iframe.contentWindow, plainOrigin: plain.options.origin, plainType: plain.options.messageType };
    });
    assert.deepEqual(r, { origin: '*', type: 'x', target: true, plainOrigin: undefined, plainType: 'mcp' });
    const warnings = consoleMessages.filter((m) => m.type === 'warning' && /accepts messages from any origin/.test(m.text));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].text, /the postMessage transport accepts messages from any origin \('\*'\)/);
  }, { html: CLASSIC }));

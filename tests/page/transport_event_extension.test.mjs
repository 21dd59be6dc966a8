// The event transport (an emitter in the same context) and the extension transport (a
// chrome.runtime.Port-shaped object: raw JSON-RPC, keep-alives, disconnects).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, requireDist } from './harness.mjs';
import { settledHeapSnapshot, countNamed } from '../../scripts/lib/heap-snapshot.mjs';

requireDist();

const CLASSIC = `<script src="/dist/modelcontext.iife.js"></script>
<script src="/tests/page/fixtures/transport/rpc.js"></script>`;

test('event transport: the built-in emitter, mcp:request in, mcp:response out', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      await mc.registerTool({ name: 'add', description: 'Adds', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } }, execute: async ({ a, b }) => a + b });
      const session = await mc.connect({ transport: { type: 'event' } });
      const emitter = session.transport.emitter;
      const rpc = makeRpc((m) => emitter.emit('mcp:request', m));
      const onResponse = (m) => rpc.receive(m);
      emitter.on('mcp:response', onResponse);
      emitter.on('mcp:response', onResponse); // once only
      const init = await rpc.initialize();
      const call = await rpc.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
      // Not JSON-RPC objects: dropped without an answer.
      const before = rpc.seen.length;
      emitter.emit('mcp:request', 'not a message');
      emitter.emit('mcp:request', 42);
      emitter.emit('mcp:request', null);
      // A malformed object is the engine's to answer (invalid request).
      const bad = await new Promise((resolve) => {
        emitter.on('mcp:response', function on(m) {
          if (m.id === 'bad') { emitter.off('mcp:response', on); resolve(m); }
        });
        emitter.emit('mcp:request', { jsonrpc: '1.0', id: 'bad', method: 'ping' });
      });
      const shape = Object.keys(emitter).sort();
      session.disconnect();
      emitter.emit('mcp:request', { jsonrpc: '2.0', id: 'after', method: 'ping' });
      await sleep(20);
      return {
        version: init.result.protocolVersion,
        sum: call.result.content[0].text,
        dropped: rpc.seen.length - before,
        badCode: bad.error.code,
        shape,
        answeredAfterDisconnect: rpc.seen.some((m) => m.id === 'after'),
        responses: rpc.seen.filter((m) => m.id === '1').length,
      };
    });
    assert.equal(r.version, '2025-06-18');
    assert.equal(r.sum, '5');
    assert.equal(r.dropped, 1, 'only the malformed object was answered');
    assert.equal(r.badCode, -32600);
    assert.deepEqual(r.shape, ['emit', 'off', 'on']);
    assert.equal(r.answeredAfterDisconnect, false);
    assert.equal(r.responses, 1);
  }, { html: CLASSIC }));

test('event transport: the built-in emitter calls each handler once, in order, on a copy of the list; a throwing handler is reported and the others still run', () =>
  withPage(async ({ page, pageErrors }) => {
    const r = await page.evaluate(async () => {
      const session = await navigator.modelContext.connect({ transport: { type: 'event' } });
      const emitter = session.transport.emitter;
      const log = [];
      const a = (d) => log.push(`a:${d}`);
      const late = (d) => log.push(`late:${d}`);
      const b = (d) => {
        log.push(`b:${d}`);
        emitter.on('x', late); // added during an emit: runs from the next one
        emitter.off('x', a); // removed during an emit: this emit still calls it
      };
      emitter.on('x', a);
      emitter.on('x', () => { throw new Error('handler failed'); });
      emitter.on('x', b);
      emitter.on('x', a); // already there: kept once
      emitter.on('y', a);
      emitter.on(7, a); // not a string: not added
      emitter.on('x', 'not a function');
      emitter.emit('x', 1);
      emitter.emit('x', 2);
      emitter.emit('y', 3);
      emitter.emit(7, 4);
      session.disconnect();
      await new Promise((r) => setTimeout(r, 20));
      return log;
    });
    assert.deepEqual(r, ['a:1', 'b:1', 'b:2', 'late:2', 'a:3']);
    assert.deepEqual(pageErrors.map((e) => e.message), ['handler failed', 'handler failed'], 'reported, once per emit');
  }, { html: CLASSIC, allowPageErrors: true }));

// A client on the built-in emitter holds the emitter (it emits on it) and the emitter holds the
// client's handler: garbage together once the session is disconnected and dropped. The list
// was kept in wasm, where each handler was a root of the module's reference table, and every
// such session stayed for the page's life.
test('event transport: a session connected and disconnected on the built-in emitter leaves nothing behind', () =>
  withPage(async ({ page, context }) => {
    await page.evaluate(async () => {
      await navigator.modelContext.registerTool({ name: 'echo', description: 'Echoes', execute: async (a) => JSON.stringify(a) });
      window.Marker = class ClientOfTheBuiltInEmitter {};
      for (let i = 0; i < 50; i++) {
        const session = await navigator.modelContext.connect({ transport: { type: 'event' } });
        const emitter = session.transport.emitter;
        const marker = new Marker();
        const rpc = makeRpc((m) => emitter.emit('mcp:request', m), { prefix: `c${i}-` });
        emitter.on('mcp:response', (m) => marker && rpc.receive(m));
        await rpc.initialize();
        await rpc.request('tools/call', { name: 'echo', arguments: { i } });
        session.disconnect();
      }
    });
    const snap = await settledHeapSnapshot(await context.newCDPSession(page), page);
    const kept = countNamed(snap, 'ClientOfTheBuiltInEmitter', 'object');
    assert.ok(kept <= 1, `${kept} of 50 disconnected clients are kept`);
  }, { html: CLASSIC, timeout: 30_000 }));

test('event transport: each answer is an object of its own (the page may change one without changing the next)', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      await mc.registerTool({ name: 'one', description: 'One', execute: () => 1 });
      const session = await mc.connect({ transport: { type: 'event' } });
      const emitter = session.transport.emitter;
      const rpc = makeRpc((m) => emitter.emit('mcp:request', m));
      emitter.on('mcp:response', (m) => rpc.receive(m));
      await rpc.initialize();
      const first = await rpc.request('tools/list', {});
      first.result.tools[0].name = 'changed';
      first.result.tools.push({ name: 'added' });
      const second = await rpc.request('tools/list', {});
      session.disconnect();
      return { distinct: first.result !== second.result, names: second.result.tools.map((t) => t.name) };
    });
    assert.deepEqual(r, { distinct: true, names: ['one'] });
  }, { html: CLASSIC }));

// A tool's long object result that is JSON data goes as the page's own object only to a wire
// that copies what it posts (src/transport/hub.rs, `holding`): the event transport hands its
// answers to page code, which gets a copy, so changing it changes nothing of the tool's.
test("event transport: a long object result arrives as a copy, never as the tool's own object", () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      const data = { rows: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `row ${i}` })) };
      await mc.registerTool({ name: 'rows', description: 'Rows', execute: () => data });
      const session = await mc.connect({ transport: { type: 'event' } });
      const emitter = session.transport.emitter;
      const rpc = makeRpc((m) => emitter.emit('mcp:request', m));
      emitter.on('mcp:response', (m) => rpc.receive(m));
      await rpc.initialize();
      const first = await rpc.request('tools/call', { name: 'rows', arguments: {} });
      const got = first.result.structuredContent;
      const same = got === data || got?.rows === data.rows;
      got.rows.length = 0;
      const second = await rpc.request('tools/call', { name: 'rows', arguments: {} });
      session.disconnect();
      return {
        same,
        equal: JSON.stringify(second.result.structuredContent) === JSON.stringify(data),
        text: second.result.content[0].text === JSON.stringify(data),
        kept: data.rows.length,
      };
    });
    assert.deepEqual(r, { same: false, equal: true, text: true, kept: 2000 });
  }, { html: CLASSIC }));

test('event transport: a page emitter (mitt-like) with custom event names, positional class form', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      // A mitt-style emitter written by the page.
      const all = new Map();
      const emitter = {
        on: (t, h) => (all.get(t) || all.set(t, []).get(t)).push(h),
        off: (t, h) => all.set(t, (all.get(t) || []).filter((x) => x !== h)),
        emit: (t, e) => (all.get(t) || []).slice().forEach((h) => h(e)),
      };
      const { EventServerTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).transports;
      const transport = new EventServerTransport(emitter, { sendEvent: 'server:message', receiveEvent: 'client:message' });
      await navigator.modelContext.connect({ transport });
      const rpc = makeRpc((m) => emitter.emit('client:message', m));
      emitter.on('server:message', (m) => rpc.receive(m));
      const init = await rpc.initialize('2024-11-05');
      const listeners = (all.get('client:message') || []).length;
      transport.close();
      return { emitterSame: transport.emitter === emitter, version: init.result.protocolVersion, listeners, after: (all.get('client:message') || []).length };
    });
    assert.deepEqual(r, { emitterSame: true, version: '2024-11-05', listeners: 1, after: 0 });
  }, { html: CLASSIC }));

// A chrome.runtime.Port stand-in: a pair of ports wired to each other, delivering on a task
// (as Chrome does), with the same postMessage / onMessage / onDisconnect shape.
const FAKE_PORTS = `<script>
  function makeEvent() {
    const ls = new Set();
    return { addListener: (f) => ls.add(f), removeListener: (f) => ls.delete(f), hasListener: (f) => ls.has(f), fire: (...a) => [...ls].forEach((f) => f(...a)), get size() { return ls.size; } };
  }
  function portPair(name = 'mcp') {
    const a = { name, onMessage: makeEvent(), onDisconnect: makeEvent(), connected: true };
    const b = { name, onMessage: makeEvent(), onDisconnect: makeEvent(), connected: true };
    for (const [me, other] of [[a, b], [b, a]]) {
      me.postMessage = (msg) => {
        if (!me.connected) throw new Error('Attempting to use a disconnected port object');
        const copy = structuredClone(msg);
        setTimeout(() => other.connected && other.onMessage.fire(copy, other), 0);
      };
      me.disconnect = () => {
        if (!me.connected) return;
        me.connected = other.connected = false;
        setTimeout(() => other.onDisconnect.fire(other), 0);
      };
    }
    return [a, b];
  }
</script>`;

test('extension transport: raw JSON-RPC over a Port-shaped object, keep-alives, the port disconnecting', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      await mc.registerTool({ name: 'ext', description: 'Ext', execute: async () => 'via port' });
      const [serverPort, clientPort] = portPair();
      const disconnected = [];
      const session = await mc.connect({
        transport: { type: 'extension', port: serverPort, keepAliveInterval: 100, onDisconnect: () => disconnected.push('server side') },
      });
      const keepAlives = [];
      const rpc = makeRpc((m) => clientPort.postMessage(m));
      clientPort.onMessage.addListener((m) => (m?.type === 'keep-alive' ? keepAlives.push(m) : rpc.receive(m)));
      const init = await rpc.initialize('2025-11-25');
      const call = await rpc.request('tools/call', { name: 'ext', arguments: {} });
      // Keep-alives from the client side, and non-JSON-RPC objects, are ignored.
      clientPort.postMessage({ type: 'keep-alive', timestamp: Date.now() });
      clientPort.postMessage({ hello: 'world' });
      await sleep(350);
      const listenersBefore = [serverPort.onMessage.size, serverPort.onDisconnect.size];
      clientPort.disconnect();
      await sleep(50);
      return {
        version: init.result.protocolVersion,
        text: call.result.content[0].text,
        keepAlives: keepAlives.length,
        keepAliveShape: Object.keys(keepAlives[0] || {}).sort(),
        timestampIsNumber: typeof keepAlives[0]?.timestamp === 'number',
        unanswered: rpc.seen.length,
        listenersBefore,
        listenersAfter: [serverPort.onMessage.size, serverPort.onDisconnect.size],
        connected: [session.isConnected(), session.transport.isConnected],
        disconnected,
      };
    });
    assert.equal(r.version, '2025-11-25');
    assert.equal(r.text, 'via port');
    assert.ok(r.keepAlives >= 2, `keep-alives: ${r.keepAlives}`);
    assert.deepEqual(r.keepAliveShape, ['timestamp', 'type']);
    assert.equal(r.timestampIsNumber, true);
    assert.equal(r.unanswered, 2, 'only the two requests were answered');
    assert.deepEqual(r.listenersBefore, [1, 1]);
    assert.deepEqual(r.listenersAfter, [0, 0]);
    assert.deepEqual(r.connected, [false, false]);
    assert.deepEqual(r.disconnected, ['server side']);
  }, { html: CLASSIC + FAKE_PORTS }));

test('extension transport: closing disconnects the port; messageType selects the seed envelope', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const { ExtensionServerTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).transports;
      const [serverPort, clientPort] = portPair();
      const transport = new ExtensionServerTransport(serverPort, { messageType: 'mcp', keepAlive: false });
      const session = await navigator.modelContext.connect({ transport });
      const rpc = makeRpc((m) => clientPort.postMessage({ type: 'mcp', payload: m }));
      const raw = [];
      clientPort.onMessage.addListener((m) => { raw.push(m); if (m?.type === 'mcp') rpc.receive(m.payload); });
      const init = await rpc.initialize();
      // A raw message is not an envelope of the asked-for type: ignored.
      clientPort.postMessage({ jsonrpc: '2.0', id: 'raw', method: 'ping' });
      await sleep(30);
      const clientDisconnected = [];
      clientPort.onDisconnect.addListener(() => clientDisconnected.push(true));
      session.disconnect();
      await sleep(30);
      return {
        ok: !!init.result,
        envelopes: raw.every((m) => m.type === 'mcp' && 'payload' in m),
        rawAnswered: rpc.seen.some((m) => m.id === 'raw'),
        portConnected: serverPort.connected,
        clientDisconnected,
        options: transport.options.keepAliveInterval,
      };
    });
    assert.deepEqual(r, { ok: true, envelopes: true, rawAnswered: false, portConnected: false, clientDisconnected: [true], options: false });
  }, { html: CLASSIC + FAKE_PORTS }));

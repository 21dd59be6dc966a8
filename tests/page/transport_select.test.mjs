// Choosing a transport with connect({ transport }): option objects and transport objects, the
// TypeErrors for unknown types and missing options, session.transport, the exported classes,
// and several transports serving one registry at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withPage, requireDist } from './harness.mjs';
import { KINDS, CLASSES as KIND_CLASSES } from './lib/kinds.mjs';

requireDist();

const CLASSIC = `<script src="/dist/modelcontext.iife.js"></script>
<script src="/tests/page/fixtures/transport/rpc.js"></script>`;

// The one table of kinds (src/transport/kinds.rs).
const CLASSES = KIND_CLASSES;

test('every static list of the transport kinds matches the table: ESM named exports, typings', () => {
  const read = (p) => readFileSync(fileURLToPath(new URL(`../../${p}`, import.meta.url)), 'utf8');
  assert.equal(KINDS.length, 7);
  const entry = read('polyfill/build/entry.esm.js');
  const exported = entry.match(/export let (TabServerTransport[^;]*);/)[1].split(',').map((n) => n.trim());
  assert.deepEqual(exported, CLASSES, 'entry.esm.js exports the classes in table order');
  const typings = read('typings/transports.d.ts');
  const declared = [...typings.matchAll(/export declare class (\w+ServerTransport)\b/g)].map((m) => m[1]);
  assert.deepEqual(declared, CLASSES, 'typings/transports.d.ts declares each class');
  for (const k of KINDS) {
    const block = typings.slice(typings.indexOf(`export declare class ${k.class}`));
    assert.match(block.slice(0, block.indexOf('\n}')), new RegExp(`readonly type: '${k.name}'`), `${k.class} has type '${k.name}'`);
  }
  const session = read('typings/session.d.ts');
  for (const k of KINDS) assert.match(session, new RegExp(`^  type: '${k.name}';`, 'm'), `session.d.ts has the '${k.name}' options`);
});

test('an unknown or missing type, or a missing required option, rejects connect() with a TypeError naming it', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      const out = {};
      const attempt = async (label, transport) => {
        try {
          await mc.connect({ transport });
          out[label] = 'resolved';
        } catch (e) {
          out[label] = `${e.name}: ${e.message}`;
        }
      };
      await attempt('unknown', { type: 'carrierPigeon' });
      await attempt('missingType', {});
      await attempt('notObject', 'tab');
      await attempt('postMessageNoTarget', { type: 'postMessage' });
      await attempt('postMessageBadTarget', { type: 'postMessage', target: {} });
      await attempt('broadcastNoName', { type: 'broadcastChannel' });
      await attempt('iframeParentNoIframe', { type: 'iframeParent', targetOrigin: location.origin });
      await attempt('iframeParentNoOrigin', { type: 'iframeParent', iframe: document.createElement('iframe') });
      await attempt('iframeChildNoOrigin', { type: 'iframeChild' });
      await attempt('extensionNoPort', { type: 'extension' });
      await attempt('eventBadEmitter', { type: 'event', emitter: { emit() {} } });
      await attempt('badRate', { type: 'event', rateLimit: { messages: -1 } });
      await attempt('badOrigin', { type: 'postMessage', target: window, origin: 'example.com' });
      return out;
    });
    assert.match(r.unknown, /^TypeError: .*"carrierPigeon".*'tab', 'postMessage', 'broadcastChannel', 'iframeChild', 'iframeParent', 'event', 'extension'/);
    assert.ok(r.unknown.includes(KINDS.map((k) => `'${k.name}'`).join(', ')), 'the error lists the table');
    assert.match(r.missingType, /^TypeError: .*transport\.type is required/);
    assert.match(r.notObject, /^TypeError: .*transport must be an object/);
    assert.match(r.postMessageNoTarget, /^TypeError: .*transport\.target is required/);
    assert.match(r.postMessageBadTarget, /^TypeError: .*transport\.target is required/);
    assert.match(r.broadcastNoName, /^TypeError: .*transport\.channelName is required/);
    assert.match(r.iframeParentNoIframe, /^TypeError: .*transport\.iframe is required/);
    assert.match(r.iframeParentNoOrigin, /^TypeError: .*transport\.targetOrigin is required/);
    assert.match(r.iframeChildNoOrigin, /^TypeError: .*transport\.parentOrigin is required/);
    assert.match(r.extensionNoPort, /^TypeError: .*transport\.port is required/);
    assert.match(r.eventBadEmitter, /^TypeError: .*transport\.emitter must have emit\(\), on\(\) and off\(\)/);
    assert.match(r.badRate, /^TypeError: .*transport\.rateLimit\.messages must be a positive number/);
    assert.match(r.badOrigin, /^TypeError: .*transport\.origin: "example\.com" is not an origin/);
  }, { html: CLASSIC }));

test('the transport classes are on the install record and, for the ES module build, named exports', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async (CLASSES) => {
      const rec = await globalThis[Symbol.for('modelcontext-polyfill')].ready;
      const esm = await import('/dist/modelcontext.js');
      await esm.ready; // the named exports are set when the core has loaded
      return {
        names: Object.keys(rec.transports),
        frozen: Object.isFrozen(rec.transports),
        same: CLASSES.map((n) => esm[n] === rec.transports[n]),
        ctorError: (() => {
          try {
            new rec.transports.PostMessageServerTransport({});
          } catch (e) {
            return `${e.name}: ${e.message}`;
          }
        })(),
      };
    }, CLASSES);
    assert.deepEqual(r.names, CLASSES);
    assert.equal(r.frozen, true);
    // The ES module copy installs nothing (the classic copy came first) but exports the
    // installed copy's classes, which work with the installed modelContext.
    assert.deepEqual(r.same, CLASSES.map(() => true));
    assert.match(r.ctorError, /^TypeError: new PostMessageServerTransport\(options\): options\.target is required/);
  }, { html: CLASSIC }));

test('a transport object: connect({ transport }), session.transport, isConnected, close(), one use only', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const { EventServerTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).transports;
      const mc = navigator.modelContext;
      await mc.registerTool({ name: 'echo', description: 'Echo', execute: async (a) => a });
      const transport = new EventServerTransport({ sendEvent: 'out', receiveEvent: 'in' });
      const out = {
        type: transport.type,
        before: transport.isConnected,
        optionKeys: Object.keys(transport.options).sort(),
        frozen: Object.isFrozen(transport.options),
      };
      const session = await mc.connect({ transport });
      out.same = session.transport === transport;
      out.after = transport.isConnected;
      const rpc = makeRpc((m) => transport.emitter.emit('in', m), { timeout: 1000 });
      transport.emitter.on('out', (m) => rpc.receive(m));
      out.init = (await rpc.initialize()).result.serverInfo.name;
      out.call = (await rpc.request('tools/call', { name: 'echo', arguments: { x: 1 } })).result;
      try {
        await mc.connect({ transport });
      } catch (e) {
        out.again = `${e.name}: ${e.message}`;
      }
      transport.close();
      out.closed = [transport.isConnected, session.isConnected()];
      out.late = await rpc.request('ping').then(() => 'answered', (e) => e.message);
      return out;
    });
    assert.equal(r.type, 'event');
    assert.equal(r.before, false);
    assert.deepEqual(r.optionKeys, ['emitter', 'receiveEvent', 'sendEvent', 'type']);
    assert.equal(r.frozen, true);
    assert.equal(r.same, true);
    assert.equal(r.after, true);
    assert.equal(typeof r.init, 'string');
    assert.deepEqual(r.call.structuredContent ?? JSON.parse(r.call.content[0].text), { x: 1 });
    assert.match(r.again, /^InvalidStateError: This event transport has already been connected/);
    assert.deepEqual(r.closed, [false, false]);
    assert.match(r.late, /no answer to ping/);
  }, { html: CLASSIC }));

test('connect() with an options object makes the transport object: session.transport', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const rec = globalThis[Symbol.for('modelcontext-polyfill')];
      const mc = navigator.modelContext;
      const session = await mc.connect({ transport: { type: 'broadcastChannel', channelName: 'sel-1' } });
      const t = session.transport;
      const out = {
        isClass: t instanceof rec.transports.BroadcastChannelServerTransport,
        type: t.type,
        channelName: t.channelName,
        idLooksRandom: typeof t.instanceId === 'string' && t.instanceId.length >= 16,
        connected: t.isConnected,
        defaultSession: (await mc.connect()).transport,
      };
      session.disconnect();
      out.afterDisconnect = [t.isConnected, session.isConnected(), session.transport === t];
      return out;
    });
    assert.deepEqual(r, {
      isClass: true,
      type: 'broadcastChannel',
      channelName: 'sel-1',
      idLooksRandom: true,
      connected: true,
      defaultSession: null,
      afterDisconnect: [false, false, true],
    });
  }, { html: CLASSIC }));

test('several transports at once serve one registry, each with its own sessions', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      // Three servers: an event emitter, a MessageChannel, a BroadcastChannel.
      const ev = await mc.connect({ transport: { type: 'event' } });
      const ch = new MessageChannel();
      const pm = await mc.connect({ transport: { type: 'postMessage', target: ch.port1 } });
      const bc = await mc.connect({ transport: { type: 'broadcastChannel', channelName: 'multi' } });

      const a = makeRpc((m) => ev.transport.emitter.emit('mcp:request', m), { prefix: 'a' });
      ev.transport.emitter.on('mcp:response', (m) => a.receive(m));
      const b = makeRpc((m) => ch.port2.postMessage({ type: 'mcp', payload: m }), { prefix: 'b' });
      ch.port2.onmessage = (e) => e.data?.type === 'mcp' && b.receive(e.data.payload);
      const bcClient = new BroadcastChannel('multi');
      const c = makeRpc((m) => bcClient.postMessage({ type: 'mcp', instanceId: 'client-c', payload: m }), { prefix: 'c' });
      bcClient.onmessage = (e) => e.data?.type === 'mcp' && c.receive(e.data.payload);

      await a.initialize('2025-06-18');
      await b.initialize('2025-03-26');
      await c.initialize('2024-11-05');
      // A tool registered through one door after the sessions started: all three see it.
      await mc.registerTool({ name: 'shared', description: 'One registry', execute: async () => 'ok' });
      // Another tool through a session's own door.
      pm.registerTool('via-session', { description: 'Session door', handler: async () => 'ok2' });
      await sleep(50);
      const lists = await Promise.all([a, b, c].map((x) => x.request('tools/list')));
      const calls = await Promise.all([a, b, c].map((x) => x.request('tools/call', { name: 'shared', arguments: {} })));
      return {
        lists: lists.map((l) => l.result.tools.map((t) => t.name).sort()),
        calls: calls.map((x) => x.result.content[0].text),
        changed: [a, b, c].map((x) => x.seen.filter((m) => m.method === 'notifications/tools/list_changed').length > 0),
        // A second initialize on another transport does not disturb the first one's session.
        versions: [a, b, c].map((x) => x.seen.find((m) => m.result?.protocolVersion)?.result.protocolVersion),
      };
    });
    assert.deepEqual(r.lists, [['shared', 'via-session'], ['shared', 'via-session'], ['shared', 'via-session']]);
    assert.deepEqual(r.calls, ['ok', 'ok', 'ok']);
    assert.deepEqual(r.changed, [true, true, true]);
    assert.deepEqual(r.versions, ['2025-06-18', '2025-03-26', '2024-11-05']);
  }, { html: CLASSIC }));

test('no second server on a channel already served in this window', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      const out = {};
      const attempt = async (label, transport) => {
        try {
          const s = await mc.connect({ transport });
          out[label] = 'ok';
          return s;
        } catch (e) {
          out[label] = `${e.name}: ${e.message}`;
        }
      };
      const first = await attempt('bc1', { type: 'broadcastChannel', channelName: 'dup' });
      await attempt('bc2', { type: 'broadcastChannel', channelName: 'dup', instanceId: 'other' });
      const emitter = (await attempt('ev1', { type: 'event' }), null);
      const ch = new MessageChannel();
      await attempt('pm1', { type: 'postMessage', target: ch.port1 });
      await attempt('pm2', { type: 'postMessage', target: ch.port1 });
      await attempt('pm3', { type: 'postMessage', target: ch.port1, messageType: 'other' });
      await attempt('tab', { type: 'tab' }); // the default tab server holds mcp-default
      first.disconnect();
      await attempt('bc3', { type: 'broadcastChannel', channelName: 'dup' });
      return out;
    });
    assert.equal(r.bc1, 'ok');
    assert.match(r.bc2, /^InvalidStateError: The BroadcastChannel "dup" is already served in this window/);
    assert.equal(r.pm1, 'ok');
    assert.match(r.pm2, /^InvalidStateError: This postMessage target \(messageType "mcp"\) is already served/);
    assert.equal(r.pm3, 'ok');
    assert.match(r.tab, /^InvalidStateError: .*mcp-default/);
    assert.equal(r.bc3, 'ok', 'a channel is free again once its server disconnects');
  }, { html: CLASSIC }));

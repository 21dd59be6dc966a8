// polyfill/src/gates.js's message gates: every gate on one target shares one `message` listener,
// and that listener must behave as the separate listeners it replaces would (src/js/guard.rs
// adds the core's gated listeners through it). Run in a fresh V8 context on Node's EventTarget
// and MessageEvent; the transports that use the gates are tested end to end in the browser
// (tab_transport, transport_hostile, transport_recovery, frames).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { REPO_ROOT } from '../../scripts/lib/project.mjs';

const SOURCE = fs.readFileSync(path.join(REPO_ROOT, 'polyfill/src/gates.js'), 'utf8');

/** A context with gates.js, a target that counts its `message` listeners, and reportError. */
function load() {
  const reported = [];
  const context = vm.createContext({ reportError: (e) => reported.push(e.message), queueMicrotask });
  vm.runInContext(SOURCE, context);
  const target = new EventTarget();
  let listeners = 0;
  const add = target.addEventListener.bind(target);
  const remove = target.removeEventListener.bind(target);
  target.addEventListener = (type, fn, ...rest) => {
    if (type === 'message') listeners++;
    return add(type, fn, ...rest);
  };
  target.removeEventListener = (type, fn, ...rest) => {
    if (type === 'message') listeners--;
    return remove(type, fn, ...rest);
  };
  const gate = (handler, source, fields) => context.__mcpMessageGate(target, handler, source, fields);
  const send = (data, source = null) => target.dispatchEvent(new MessageEvent('message', { data, source }));
  return { gate, send, reported, listeners: () => listeners };
}

test('gates on one target share one listener, removed with the last gate and added again after', () => {
  const { gate, send, listeners } = load();
  const seen = [];
  const offA = gate((ev, d) => seen.push(['a', d.n]), undefined, [['kind', 'x']]);
  const offB = gate((ev, d) => seen.push(['b', d.n]), undefined, [['kind', 'x']]);
  assert.equal(listeners(), 1);
  send({ kind: 'x', n: 1 });
  offA();
  assert.equal(listeners(), 1);
  send({ kind: 'x', n: 2 });
  offA(); // a second call does nothing
  offB();
  assert.equal(listeners(), 0);
  send({ kind: 'x', n: 3 });
  const offC = gate((ev, d) => seen.push(['c', d.n]), undefined, [['kind', 'x']]);
  assert.equal(listeners(), 1);
  send({ kind: 'x', n: 4 });
  offC();
  assert.equal(listeners(), 0);
  assert.deepEqual(seen, [['a', 1], ['b', 1], ['b', 2], ['c', 4]]);
});

test('each gate lets through only data with its fields and, when given, its source', () => {
  const { gate, send } = load();
  const { port1: mine, port2: other } = new MessageChannel();
  const seen = [];
  gate((ev, d) => seen.push(['any source', d.n]), undefined, [['channel', undefined], ['type', 'mcp']]);
  gate((ev, d) => seen.push(['mine', d.n, ev.source === mine]), mine, [['type', 'mcp']]);
  send({ channel: 'c', type: 'mcp', n: 1 }, mine);
  send({ channel: 'c', type: 'mcp', n: 2 }, other);
  send({ channel: 7, type: 'mcp', n: 3 }, mine); // channel: any string, and 7 is not one
  send({ type: 'other', channel: 'c', n: 4 }, mine);
  for (const data of [null, 'text', 42, undefined]) send(data, mine);
  assert.deepEqual(seen, [
    ['any source', 1], ['mine', 1, true],
    ['any source', 2],
    ['mine', 3, true],
  ]);
  mine.close();
  other.close();
});

test('during a dispatch, a gate added does not see the event and a gate removed is not called', () => {
  const { gate, send } = load();
  const seen = [];
  let offLater;
  gate((ev, d) => {
    seen.push(['first', d.n]);
    if (d.n === 1) {
      offLater();
      gate((e, dd) => seen.push(['added', dd.n]), undefined, [['kind', 'x']]);
    }
  }, undefined, [['kind', 'x']]);
  offLater = gate((ev, d) => seen.push(['later', d.n]), undefined, [['kind', 'x']]);
  send({ kind: 'x', n: 1 });
  send({ kind: 'x', n: 2 });
  assert.deepEqual(seen, [['first', 1], ['first', 2], ['added', 2]]);
});

test('a handler that throws is reported and the next gates still run', () => {
  const { gate, send, reported } = load();
  const seen = [];
  gate(() => {
    throw new Error('handler failed');
  }, undefined, [['kind', 'x']]);
  gate((ev, d) => seen.push(d.n), undefined, [['kind', 'x']]);
  send({ kind: 'x', n: 1 });
  send({ kind: 'x', n: 2 });
  assert.deepEqual(seen, [1, 2]);
  assert.deepEqual(reported, ['handler failed', 'handler failed']);
});

/**
 * A context whose global is a window to itself: `postMessage` logs the envelope and dispatches
 * it as a `message` event from a task (as a browser does), to the listeners added on the global.
 */
function loadWindow() {
  const events = new EventTarget();
  const log = [];
  const sandbox = {
    reportError: (e) => log.push(['reported', e.message]),
    queueMicrotask,
    setTimeout,
    MessageChannel,
    addEventListener: (...a) => events.addEventListener(...a),
    removeEventListener: (...a) => events.removeEventListener(...a),
    postMessage(data) {
      log.push(data.payload);
      setTimeout(() => dispatch(structuredClone(data), self));
    },
  };
  const context = vm.createContext(sandbox);
  vm.runInContext(SOURCE, context);
  const self = vm.runInContext('globalThis', context);
  // A `message` event with its data and source (Node's MessageEvent takes only ports as source).
  const dispatch = (data, source) => {
    const ev = new Event('message');
    Object.defineProperties(ev, { data: { value: data }, source: { value: source } });
    events.dispatchEvent(ev);
  };
  const post = (payload, { target = self, channel = 'c', direction = 'server-to-client' } = {}) =>
    context.__mcpPostEnvelope(target, channel, direction, payload, '*');
  const gate = (handler) => context.__mcpMessageGate(self, handler, undefined, [['type', 'mcp']]);
  return { post, gate, log, dispatch, self };
}

const microtask = () => Promise.resolve();
const task = () => new Promise((resolve) => setTimeout(resolve, 5));
/** Resolves once `done()` holds (checked after each task), or rejects after two seconds. */
async function until(done) {
  for (const end = Date.now() + 2000; !done(); ) {
    if (Date.now() > end) throw new Error(`still not done: ${done}`);
    await task();
  }
}

test('an envelope to the own window goes from a microtask; while one waits to be dispatched, the next wait for a task of their own, in order', async () => {
  const { post, gate, log } = loadWindow();
  const heard = [];
  gate((ev, d) => heard.push(d.payload));
  post(1);
  assert.deepEqual(log, [], 'never posted from inside the call');
  await microtask();
  assert.deepEqual(log, [1]);
  // 1 is posted, not yet dispatched: the same channel and direction is backed up.
  post(2);
  post(3);
  await microtask();
  await microtask();
  assert.deepEqual(log, [1], 'waiting behind the undispatched envelope');
  // Another channel, or the other direction, is not backed up; but once the outbox holds
  // envelopes, every later one joins it, so the order asked is the order posted.
  post(4, { channel: 'other' });
  await microtask();
  assert.deepEqual(log, [1]);
  await until(() => heard.length === 4);
  assert.deepEqual(log, [1, 2, 3, 4]);
  assert.deepEqual(heard, [1, 2, 3, 4]);
  // Every one heard: the next goes from its microtask again.
  post(5);
  await microtask();
  assert.deepEqual(log, [1, 2, 3, 4, 5]);
  await until(() => heard.length === 5);
  assert.deepEqual(heard, [1, 2, 3, 4, 5]);
});

test("an envelope from another window is not taken for one of this realm's: only the window's own messages are counted", async () => {
  const { post, gate, log, dispatch } = loadWindow();
  gate(() => {});
  post(1);
  await microtask();
  // Another window's envelope of the same channel and direction: 1 is still on its way.
  dispatch({ channel: 'c', type: 'mcp', direction: 'server-to-client', payload: 'theirs' }, { other: true });
  post(2);
  await microtask();
  assert.deepEqual(log, [1], '2 waits behind 1');
  await until(() => log.length === 2);
  await task();
});

test('an undispatched envelope backs up only its own channel and direction', async () => {
  const { post, gate, log } = loadWindow();
  gate(() => {});
  post('a');
  await microtask();
  post('b', { channel: 'other' });
  post('c', { direction: 'client-to-server' });
  await microtask();
  assert.deepEqual(log, ['a', 'b', 'c']);
  await task();
});

test('without a gate on the window (nothing hears the envelopes), and to any other target, envelopes go from a microtask each', async () => {
  const { post, log } = loadWindow();
  post(1);
  await microtask();
  post(2);
  await microtask();
  assert.deepEqual(log, [1, 2], 'no gate hub: nothing counted, nothing waits');
  const { post: post2, gate, log: log2 } = loadWindow();
  gate(() => {});
  const port = { posted: [], postMessage(data) { this.posted.push(data.payload); } };
  post2('w');
  await microtask();
  post2('p1', { target: port });
  await microtask();
  post2('p2', { target: port });
  await microtask();
  assert.deepEqual(port.posted, ['p1', 'p2']);
  assert.deepEqual(log2, ['w']);
  await task();
});

test('a post that throws is reported, and is not counted as waiting', async () => {
  const { post, gate, log } = loadWindow();
  gate(() => {});
  const bad = { postMessage() { throw new Error('no such origin'); } };
  post('x', { target: bad });
  await microtask();
  assert.deepEqual(log, [['reported', 'no such origin']]);
  post('y');
  await microtask();
  assert.deepEqual(log, [['reported', 'no such origin'], 'y']);
  await task();
});

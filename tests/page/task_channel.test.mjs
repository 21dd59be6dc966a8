// polyfill/src/engine_helpers.js's task channel: what the engine queues its tasks on
// (src/browser/runtime.rs TaskQueue: one port1.postMessage() per task, each running
// port2.onmessage). Over the platform's scheduler.postTask where there is one, else a
// MessageChannel raced against a BroadcastChannel, else a MessageChannel, else zero-delay
// timers. Run in fresh V8 contexts with gates.js (its reporter)
// and a scheduler whose queue the test drains; the engine's tasks (toolchange, the
// registerTool resolution after it) are tested end to end in the browser (webmcp, frames).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { REPO_ROOT } from '../../scripts/lib/project.mjs';

const SOURCES = ['gates.js', 'engine_helpers.js'].map((f) => fs.readFileSync(path.join(REPO_ROOT, 'polyfill/src', f), 'utf8'));

/** A context with the helpers and `globals`; what it reports with reportError. */
function load(globals) {
  const reported = [];
  const context = vm.createContext({ reportError: (e) => reported.push(e.message), queueMicrotask, ...globals });
  for (const s of SOURCES) vm.runInContext(s, context);
  return { channel: () => context.__mcpTaskChannel(), reported };
}

/** A scheduler.postTask that queues its callbacks until drain(); refuse() makes it reject. */
function fakeScheduler() {
  const queue = [];
  let refusing = false;
  return {
    scheduler: {
      postTask(callback) {
        if (refusing) return Promise.reject(new Error('Current window is detached'));
        return new Promise((resolve) => queue.push(() => resolve(callback())));
      },
    },
    pending: () => queue.length,
    drain() {
      while (queue.length) queue.shift()();
    },
    refuse() {
      refusing = true;
    },
  };
}

/** A channel over a fake scheduler, and what its context reports. */
function overScheduler() {
  const fake = fakeScheduler();
  const { channel, reported } = load({ scheduler: fake.scheduler });
  return { fake, ch: channel(), reported };
}

test('with scheduler.postTask: each message runs port2.onmessage once, as a scheduler task of its own', () => {
  const { fake, ch } = overScheduler();
  assert.ok(!(ch instanceof MessageChannel), 'the scheduler is preferred to a MessageChannel');
  const ran = [];
  let n = 0;
  ch.port2.onmessage = () => ran.push(++n);
  for (let i = 0; i < 3; i++) ch.port1.postMessage(undefined);
  assert.deepEqual(ran, [], 'nothing runs in the task that posts');
  assert.equal(fake.pending(), 3, 'one scheduler task per message');
  fake.drain();
  assert.deepEqual(ran, [1, 2, 3]);
});

test('the listener is read when the task runs: one set after posting runs, one removed does not', () => {
  const { fake, ch } = overScheduler();
  const ran = [];
  ch.port1.postMessage(undefined);
  ch.port2.onmessage = () => ran.push('late');
  fake.drain();
  ch.port1.postMessage(undefined);
  ch.port2.onmessage = null; // what TaskQueue's drop does
  fake.drain();
  assert.deepEqual(ran, ['late']);
});

test('a task that throws is reported, and the next task still runs', () => {
  const { fake, ch, reported } = overScheduler();
  const ran = [];
  let first = true;
  ch.port2.onmessage = () => {
    if (first) {
      first = false;
      throw new Error('listener failed');
    }
    ran.push('next');
  };
  ch.port1.postMessage(undefined);
  ch.port1.postMessage(undefined);
  fake.drain();
  assert.deepEqual(reported, ['listener failed']);
  assert.deepEqual(ran, ['next']);
});

test('a scheduler that refuses the task (a detached document) runs nothing and leaves no unhandled rejection', async () => {
  const { fake, ch, reported } = overScheduler();
  const ran = [];
  ch.port2.onmessage = () => ran.push('ran');
  const unhandled = [];
  const onUnhandled = (e) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  try {
    fake.refuse();
    ch.port1.postMessage(undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  assert.deepEqual(ran, []);
  assert.deepEqual(unhandled, []);
  assert.deepEqual(reported, []);
});

/** Posts three messages on `ch`; resolves once the listener has run three times, with how often it ran. */
async function threeRuns(ch) {
  const ran = [];
  const done = new Promise((resolve) => {
    ch.port2.onmessage = () => ran.push(ran.length + 1) === 3 && resolve();
  });
  for (let i = 0; i < 3; i++) ch.port1.postMessage(undefined);
  assert.deepEqual(ran, [], 'nothing runs in the task that posts');
  await done;
  await new Promise((resolve) => setTimeout(resolve, 10));
  return ran.length;
}

test('without a scheduler or a BroadcastChannel: a MessageChannel, each message running the listener once, later', async () => {
  const ch = load({ MessageChannel }).channel();
  assert.ok(ch instanceof MessageChannel);
  const runs = await threeRuns(ch);
  ch.port1.close();
  assert.equal(runs, 3);
});

test('with neither (jsdom): zero-delay timers, each message running the listener once, later', async () => {
  assert.equal(await threeRuns(load({ setTimeout }).channel()), 3);
});

/**
 * A MessageChannel and a BroadcastChannel whose messages wait in `pending` until the test
 * delivers them (deliver('port') or deliver('broadcast'): the oldest of that kind), delivered
 * even after a close, as a message already queued as a task would be; `closed` lists what was
 * closed, in order.
 */
function fakeChannels() {
  const pending = [];
  const closed = [];
  const port = (label) => ({
    onmessage: null,
    close: () => closed.push(label),
  });
  class FakeMessageChannel {
    constructor() {
      this.port1 = port('port1');
      this.port2 = port('port2');
      this.port1.postMessage = () => pending.push(['port', () => this.port2.onmessage?.({})]);
    }
  }
  const byName = new Map();
  class FakeBroadcastChannel {
    constructor(name) {
      this.name = name;
      this.onmessage = null;
      this.isClosed = false;
      if (!byName.has(name)) byName.set(name, []);
      byName.get(name).push(this);
    }
    postMessage() {
      for (const other of byName.get(this.name)) {
        if (other !== this && !other.isClosed) pending.push(['broadcast', () => other.onmessage?.({})]);
      }
    }
    close() {
      this.isClosed = true;
      closed.push('broadcast');
    }
  }
  return {
    globals: { MessageChannel: FakeMessageChannel, BroadcastChannel: FakeBroadcastChannel },
    pending,
    closed,
    names: () => [...byName.keys()],
    deliver(kind) {
      const i = pending.findIndex(([k]) => k === kind);
      assert.ok(i >= 0, `a ${kind} message to deliver`);
      pending.splice(i, 1)[0][1]();
    },
  };
}

for (const [winner, loser] of [['broadcast', 'port'], ['port', 'broadcast']]) {
  test(`without a scheduler: a MessageChannel raced against a BroadcastChannel; when the ${winner} delivers first, it carries every task, once each, and the ${loser} runs nothing more`, () => {
    const fake = fakeChannels();
    const ch = load(fake.globals).channel();
    const ran = [];
    ch.port2.onmessage = () => ran.push(ran.length + 1);
    assert.equal(fake.names().length, 1, 'one BroadcastChannel name');
    assert.match(fake.names()[0], /^modelcontext-polyfill task \S{12,}$/, 'a name no other context knows');
    // Two tasks during the race: each posted on both.
    ch.port1.postMessage(undefined);
    ch.port1.postMessage(undefined);
    assert.deepEqual(fake.pending.map(([k]) => k).sort(), ['broadcast', 'broadcast', 'port', 'port']);
    assert.deepEqual(ran, [], 'nothing runs in the task that posts');
    fake.deliver(winner);
    assert.deepEqual(ran, [1], 'the first delivery runs one task');
    assert.deepEqual(fake.closed, winner === 'broadcast' ? ['port1', 'port2'] : ['broadcast', 'broadcast'], `the ${loser} is closed`);
    // The loser's messages already on their way run nothing.
    while (fake.pending.some(([k]) => k === loser)) fake.deliver(loser);
    assert.deepEqual(ran, [1]);
    // A task after the race: posted on the winner alone.
    ch.port1.postMessage(undefined);
    assert.deepEqual(fake.pending.map(([k]) => k), [winner, winner]);
    fake.deliver(winner);
    fake.deliver(winner);
    assert.deepEqual(ran, [1, 2, 3], 'three tasks, three runs');
  });
}

test('without a scheduler: a BroadcastChannel the platform refuses leaves the MessageChannel alone', () => {
  class Refused {
    constructor() {
      throw new Error('SecurityError');
    }
  }
  const ch = load({ MessageChannel, BroadcastChannel: Refused }).channel();
  assert.ok(ch instanceof MessageChannel);
  ch.port1.close();
});

test("the raced channel: the engine's drop (port2.onmessage = null) closes both, and nothing runs", () => {
  const fake = fakeChannels();
  const ch = load(fake.globals).channel();
  const ran = [];
  ch.port2.onmessage = () => ran.push('ran');
  ch.port1.postMessage(undefined);
  ch.port2.onmessage = null;
  assert.deepEqual(fake.closed.sort(), ['broadcast', 'broadcast', 'port1', 'port2']);
  while (fake.pending.length) fake.deliver(fake.pending[0][0]);
  assert.deepEqual(ran, []);
});

test("the raced channel over Node's own MessageChannel and BroadcastChannel: each message runs the listener once, later", async () => {
  const ch = load({ MessageChannel, BroadcastChannel }).channel();
  assert.ok(!(ch instanceof MessageChannel), 'the raced stand-in');
  const runs = await threeRuns(ch);
  ch.port2.onmessage = null;
  assert.equal(runs, 3);
});

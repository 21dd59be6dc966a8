// polyfill/src/engine_helpers.js's task channel: what the engine queues its tasks on
// (src/browser/runtime.rs TaskQueue: one port1.postMessage() per task, each running
// port2.onmessage). Over the platform's scheduler.postTask where there is one, else a
// MessageChannel, else zero-delay timers. Run in fresh V8 contexts with gates.js (its reporter)
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

test('without a scheduler: a MessageChannel, each message running the listener once, later', async () => {
  const ch = load({ MessageChannel }).channel();
  assert.ok(ch instanceof MessageChannel);
  const runs = await threeRuns(ch);
  ch.port1.close();
  assert.equal(runs, 3);
});

test('with neither (jsdom): zero-delay timers, each message running the listener once, later', async () => {
  assert.equal(await threeRuns(load({ setTimeout }).channel()), 3);
});

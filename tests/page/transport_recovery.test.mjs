// After every kind of hostile input, on every transport, the next valid request is answered;
// errors to requests carry the request's id. Then the reliability cases of issue 12: the page's
// own clients are never rate-limited, calls past the in-flight cap queue instead of failing, a
// second tab client's initialize keeps the first one's call, and no message size crashes the
// page or grows wasm memory. Real channels, ports and windows throughout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, requireDist } from './harness.mjs';

requireDist();

const FIX = '/tests/page/fixtures/transport';
const SCRIPTS = `<script src="${FIX}/rpc.js"></script>
<script src="${FIX}/peers.js"></script>`;
const CLASSIC = `<script src="/dist/modelcontext.iife.js"></script>\n${SCRIPTS}`;
/** The ESM build, so a test can read the wasm instance's memory through the glue module. */
const ESM = (config) => `${config ? `<script>window.modelContextPolyfillConfig = ${JSON.stringify(config)};</script>` : ''}
<script>
  // Every WebAssembly memory the page instantiates, the validator module's among them.
  window.memories = new Set();
  {
    const W = WebAssembly;
    const note = (instance) => {
      for (const v of Object.values(instance.exports)) if (v instanceof W.Memory) memories.add(v);
      return instance;
    };
    const { instantiate, instantiateStreaming } = W;
    W.instantiate = (...a) => instantiate.apply(W, a).then((r) => (r instanceof W.Instance ? note(r) : (note(r.instance), r)));
    W.instantiateStreaming = (...a) => instantiateStreaming.apply(W, a).then((r) => (note(r.instance), r));
    W.Instance = new Proxy(W.Instance, { construct: (T, a) => note(Reflect.construct(T, a)) });
  }
</script>
${SCRIPTS}
<script type="module">
  import { ready } from '/dist/modelcontext.js';
  // The glue's exports once the polyfill has initialized it (the glue has no module of its own
  // to load: it is always given one).
  await ready;
  const glue = await import('/dist/modelcontext_glue.js');
  const exports = await glue.default();
  // (The build names the module's exports short: the memory is the export that is one.)
  const memory = Object.values(exports).find((v) => v instanceof WebAssembly.Memory);
  // Runs \`run(peer)\` with a tab client whose first call was answered: what it returns, the
  // answer to a call after it, and how many MiB the core's wasm memory grew meanwhile, and
  // every wasm memory (a module instantiated meanwhile counted whole).
  const all = () => [...memories].reduce((n, m) => n + m.buffer.byteLength, 0);
  window.grewAround = async (run) => {
    const peer = await openPeer('tab');
    await peer.rpc.request('tools/call', { name: 'echo', arguments: { warm: true } });
    const before = memory.buffer.byteLength;
    const allBefore = all();
    const out = await run(peer);
    const next = await peer.rpc.request('tools/call', { name: 'echo', arguments: { n: 1 } });
    return { ...out, next: next.result?.content?.[0]?.text, grewMiB: (memory.buffer.byteLength - before) / 2 ** 20, allGrewMiB: (all() - allBefore) / 2 ** 20 };
  };
  window.loaded = true;
</script>`;

const MiB = 1024 * 1024;

for (const kind of ['tab', 'port', 'broadcastChannel', 'event', 'extension']) {
  test(`${kind}: after oversize, malformed JSON, a wrong envelope, deep nesting, a lone surrogate and a flood, the next requests are answered`, () =>
    withPage(async ({ page, consoleMessages }) => {
      const r = await page.evaluate(async (k) => runHostile(await openPeer(k)), kind);
      for (const [bad, out] of Object.entries(r)) {
        assert.deepEqual(out.ping, {}, `${kind}/${bad}: ping after`);
        assert.equal(out.call, JSON.stringify({ after: bad }), `${kind}/${bad}: tools/call after`);
      }
      assert.deepEqual(r.oversize.drew, [{ id: 'big', code: -32600, result: false }]);
      assert.deepEqual(r.malformedJson.drew, []);
      assert.deepEqual(r.wrongEnvelope.drew, [
        { id: 'w2', code: -32600, result: false },
        ...(kind === 'extension' ? [] : [{ id: 'w3', code: -32600, result: false }]),
        { id: 'w4', code: -32600, result: false },
      ]);
      assert.deepEqual(r.deepNesting.drew, [{ id: 'deep', code: -32600, result: false }]);
      assert.deepEqual(r.loneSurrogate.drew, [{ id: 'lone', code: -32700, result: false }]);
      assert.deepEqual(r.flood.drew, []);
      assert.deepEqual(consoleMessages.filter((m) => m.type === 'error' && !/Failed to load resource/.test(m.text)), []);
    }, { html: CLASSIC, timeout: 60_000 }));
}

test('tab: the page\'s own clients are not rate-limited by default: 1,000 calls during a junk flood all answered, no warning', () =>
  withPage(async ({ page, consoleMessages }) => {
    const r = await page.evaluate(async () => {
      const peer = await openPeer('tab');
      for (let i = 0; i < 3000; i++) peer.payload({ junk: i });
      const calls = Array.from({ length: 1000 }, (_, i) => peer.rpc.request('tools/call', { name: 'echo', arguments: { i } }));
      for (let i = 0; i < 3000; i++) peer.payload({ jsonrpc: '2.0', method: 'notifications/junk', params: { i } });
      const replies = await Promise.all(calls);
      return replies.filter((m, i) => m.result?.content?.[0]?.text === JSON.stringify({ i })).length;
    });
    assert.equal(r, 1000);
    assert.deepEqual(consoleMessages.filter((m) => /rateLimit/.test(m.text)), []);
  }, { html: CLASSIC, timeout: 60_000 }));

test('in-flight cap: 1,000 concurrent slow calls all run and are answered; hung handlers holding every slot do not block ping', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      await mc.registerTool({ name: 'slow', description: 'Takes 50 ms', execute: () => new Promise((res) => setTimeout(() => res('done'), 50)) });
      await mc.registerTool({ name: 'hang', description: 'Never settles', execute: () => new Promise(() => {}) });
      const peer = await openPeer('tab');
      const t0 = performance.now();
      const slow = await Promise.all(Array.from({ length: 1000 }, () => peer.rpc.request('tools/call', { name: 'slow', arguments: {} })));
      const ms = performance.now() - t0;
      // Hung handlers hold every slot (1,024 by default): ping is answered, a call waits in
      // the queue, and the client's cancellation frees a slot for it.
      const hung = Array.from({ length: 1024 }, (_, i) => `h${i}`);
      for (const id of hung) peer.payload({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'hang', arguments: {} } });
      const ping = await peer.rpc.request('ping');
      const queued = peer.rpc.request('tools/call', { name: 'echo', arguments: { queued: true } });
      const early = await Promise.race([queued.then(() => 'answered'), new Promise((res) => setTimeout(() => res('waiting'), 200))]);
      peer.rpc.notify('notifications/cancelled', { requestId: 'h0', reason: 'client timeout' });
      const after = await queued;
      return {
        answered: slow.filter((m) => m.result?.content?.[0]?.text === 'done').length,
        ms,
        ping: ping.result,
        early,
        after: after.result?.content?.[0]?.text,
      };
    });
    assert.equal(r.answered, 1000);
    assert.deepEqual(r.ping, {});
    assert.equal(r.early, 'waiting', 'the call waits while 1,024 hung handlers hold every slot');
    assert.equal(r.after, JSON.stringify({ queued: true }));
  }, { html: CLASSIC, timeout: 60_000 }));

test('modelContextPolyfillConfig.limits: maxInFlight and maxQueued bound a session; toolTimeoutMs ends hung handlers', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      await mc.registerTool({ name: 'hang', description: 'Never settles', execute: () => new Promise(() => {}) });
      const peer = await openPeer('tab');
      const calls = Array.from({ length: 6 }, () => peer.rpc.request('tools/call', { name: 'hang', arguments: {} }));
      const settled = await Promise.all(calls);
      return settled.map((m) => m.error?.message ?? (m.result?.isError ? m.result.content[0].text : 'ok'));
    });
    // 2 run, 3 wait, the 6th is refused at once; the timeout ends the running and then the queued.
    assert.equal(r.filter((t) => t === 'Requests in flight and queued exceeds the limit of 5').length, 1, JSON.stringify(r));
    assert.equal(r.filter((t) => /did not finish within 100 ms/.test(t)).length, 5, JSON.stringify(r));
  }, { html: ESM({ limits: { maxInFlight: 2, maxQueued: 3, toolTimeoutMs: 100 } }), timeout: 30_000 }));

test('a transport keeps its own maxInFlight, maxQueued and maxQueuedBytes; the default tab server keeps the engine\'s', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      let release;
      const gate = new Promise((r) => (release = r));
      await mc.registerTool({ name: 'wait', description: 'Waits for the test', execute: async (a) => (await gate, JSON.stringify(a)) });
      const tab = await openPeer('tab');
      // An event transport for a peer the page trusts less: one call at a time, one waiting, small.
      const { session, rpc } = await connectEvent({ maxInFlight: 1, maxQueued: 1, maxQueuedBytes: 300 }, 'lim-');
      const call = (peer, args) => peer.rpc ? peer.rpc.request('tools/call', { name: 'wait', arguments: args }) : peer.request('tools/call', { name: 'wait', arguments: args });
      const limited = [call(rpc, { n: 1 }), call(rpc, { n: 2 }), call(rpc, { n: 3 })];
      const big = call(rpc, { pad: 'x'.repeat(400) });
      const own = Array.from({ length: 5 }, (_, i) => call(tab, { own: i }));
      await new Promise((r) => setTimeout(r, 50));
      release();
      const text = (m) => m.error?.message ?? m.result?.content?.[0]?.text;
      const out = { limited: (await Promise.all(limited)).map(text), big: text(await big), own: (await Promise.all(own)).map(text) };
      out.after = text(await call(rpc, { n: 4 }));
      out.options = { ...session.transport.options, emitter: undefined };
      const bad = async (t) => {
        try {
          await mc.connect({ transport: { type: 'event', ...t } });
          return 'connected';
        } catch (e) {
          return `${e.name}: ${e.message}`;
        }
      };
      out.bad = [await bad({ maxInFlight: 0 }), await bad({ maxQueued: -1 }), await bad({ maxQueuedBytes: 1.5 })];
      return out;
    });
    assert.deepEqual(r.limited, ['{"n":1}', '{"n":2}', 'Requests in flight and queued exceeds the limit of 2']);
    assert.match(r.big, /^Requests in flight and queued exceeds the limit of 2|^Bytes of queued requests/);
    assert.deepEqual(r.own, [0, 1, 2, 3, 4].map((i) => JSON.stringify({ own: i })), 'the tab server keeps the engine limits');
    assert.equal(r.after, '{"n":4}', 'the limited transport serves the next call');
    assert.equal(r.options.maxInFlight, 1);
    assert.match(r.bad[0], /^TypeError: .*maxInFlight must be a positive integer/);
    assert.match(r.bad[1], /^TypeError: .*maxQueued must be a non-negative integer/);
    assert.match(r.bad[2], /^TypeError: .*maxQueuedBytes must be a positive integer/);
  }, { html: CLASSIC, timeout: 30_000 }));

test('a queue bounded by bytes: a queued call past maxQueuedBytes is refused with its id, a small one waits; each is charged what it keeps, not its text', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      let release;
      const gate = new Promise((r) => (release = r));
      await mc.registerTool({ name: 'wait', description: 'Waits for the test', execute: async (a) => (await gate, JSON.stringify(a).length) });
      const { rpc } = await connectEvent({ maxInFlight: 1, maxQueuedBytes: 2 * 1024 * 1024 }, 'qb-');
      // 90,000 empty arrays: 270 KB of JSON text, megabytes of values once read (and fewer
      // than the values a message may hold, limits.maxMessageValues).
      const arrays = Array.from({ length: 90_000 }, () => []);
      const call = (args, meta) => rpc.request('tools/call', { name: 'wait', arguments: args, ...(meta && { _meta: meta }) });
      const first = call({ n: 1 });
      const small = call({ pad: 'x'.repeat(100) });
      // (Numbers: a long string would stay the page's, held apart from the text, and cost nothing.)
      const large = call({ ones: new Array(1.2e6).fill(1) });
      // Arguments wait as text; the same arrays elsewhere in params are values.
      const inMeta = call({}, { junk: arrays });
      const asArguments = call({ junk: arrays });
      await new Promise((r) => setTimeout(r, 50));
      release();
      const text = (m) => m.error?.message ?? m.result?.content?.[0]?.text;
      const out = { first: text(await first), small: text(await small), large: await large, inMeta: await inMeta, asArguments: text(await asArguments) };
      out.after = text(await call({ n: 2 }));
      return out;
    });
    assert.equal(r.first, '7');
    assert.equal(r.small, String(JSON.stringify({ pad: 'x'.repeat(100) }).length));
    for (const refused of [r.large, r.inMeta]) {
      assert.equal(refused.error?.code, -32600, JSON.stringify(refused).slice(0, 300));
      assert.match(refused.error.message, /^Bytes of queued requests is \d+; the limit is 2097152$/);
    }
    assert.equal(r.asArguments, String(JSON.stringify({ junk: Array.from({ length: 90_000 }, () => []) }).length));
    assert.equal(r.after, '7', 'the next call is served');
  }, { html: CLASSIC, timeout: 30_000 }));

const listAll = async () => {
  const mc = navigator.modelContext;
  for (let i = 0; i < 250; i++) mc.registerTool({ name: `t${String(i).padStart(3, '0')}`, description: 'x', execute: () => 'ok' });
  await mc.registerTool({ name: 'last', description: 'x', execute: () => 'ok' });
  const peer = await openPeer('tab');
  const pages = [];
  let cursor;
  do {
    const m = await peer.rpc.request('tools/list', cursor ? { cursor } : {});
    pages.push(m.result.tools.length);
    cursor = m.result.nextCursor;
  } while (cursor);
  return pages;
};

test('tools/list: every tool in one page by default (clients that never follow nextCursor see them all)', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    // 251 page tools, plus the fixture's own echo tools.
    const pages = await page.evaluate(`(${listAll})()`);
    assert.equal(pages.length, 1, JSON.stringify(pages));
    assert.ok(pages[0] >= 251, JSON.stringify(pages));
  }, { html: ESM(), timeout: 30_000 }));

test('modelContextPolyfillConfig.limits.pageSize paginates list results; following nextCursor yields every tool once', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    const pages = await page.evaluate(`(${listAll})()`);
    assert.ok(pages.length >= 3, JSON.stringify(pages));
    assert.ok(pages.slice(0, -1).every((n) => n === 100), JSON.stringify(pages));
    assert.ok(pages.reduce((a, b) => a + b) >= 251, JSON.stringify(pages));
  }, { html: ESM({ limits: { pageSize: 100 } }), timeout: 30_000 }));

test('tab: a second client\'s initialize does not drop the first client\'s call in flight', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      let release;
      const gate = new Promise((res) => { release = res; });
      await navigator.modelContext.registerTool({ name: 'wait', description: 'Waits for the test', execute: () => gate.then(() => 'first client served') });
      const first = await openPeer('tab');
      const call = first.rpc.request('tools/call', { name: 'wait', arguments: {} }, 'first-call');
      await new Promise((res) => setTimeout(res, 50));
      // Another script in the window connects on the same channel.
      const second = makeRpc(first.payload, { prefix: 'second-' });
      addEventListener('message', (e) => e.data?.direction === 'server-to-client' && typeof e.data.payload === 'object' && second.receive(e.data.payload));
      const init = await second.initialize();
      const secondCall = await second.request('tools/call', { name: 'echo', arguments: { who: 'second' } });
      release();
      const firstReply = await call;
      return {
        init: init.result?.serverInfo?.name,
        second: secondCall.result?.content?.[0]?.text,
        first: firstReply.result?.content?.[0]?.text,
      };
    });
    assert.ok(r.init);
    assert.equal(r.second, JSON.stringify({ who: 'second' }));
    assert.equal(r.first, 'first client served');
  }, { html: CLASSIC }));

test('MessagePort: a 32 MB call after earlier calls is refused with its id, and ping is answered after it', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const peer = await openPeer('port');
      await peer.rpc.request('tools/list');
      await peer.rpc.request('tools/call', { name: 'echo', arguments: { n: 1 } });
      await peer.rpc.request('tools/call', { name: 'echo', arguments: { n: 2 } });
      const big = await peer.rpc.request('tools/call', { name: 'echo', arguments: { t: 'x'.repeat(32_000_000) } }, 'big');
      const ping = await peer.rpc.request('ping');
      return { big: { id: big.id, code: big.error?.code }, ping: ping.result };
    });
    assert.deepEqual(r.big, { id: 'big', code: -32600 });
    assert.deepEqual(r.ping, {});
  }, { html: CLASSIC, timeout: 60_000 }));

test('tab: a 256 MiB message neither crashes the page nor grows wasm memory; the next call is answered', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    const r = await page.evaluate((MiB) => grewAround(async (peer) => {
      const out = { sizes: [] };
      for (const mib of [64, 256]) {
        // Cloning the message is most of the time (seconds for 256 MiB on a slow machine).
        const reply = await peer.rpc.request('tools/call', { name: 'echo', arguments: { t: 'x'.repeat(mib * MiB) } }, `big-${mib}`, 60_000);
        out.sizes.push({ id: reply.id, code: reply.error?.code });
      }
      return out;
    }), MiB);
    assert.deepEqual(r.sizes, [{ id: 'big-64', code: -32600 }, { id: 'big-256', code: -32600 }]);
    assert.equal(r.next, JSON.stringify({ n: 1 }));
    assert.ok(r.grewMiB < 1, `wasm memory grew ${r.grewMiB} MiB for refused messages`);
  }, { html: ESM(), timeout: 120_000 }));

test('tab: a message of 1.3 million values outside a call\'s arguments is refused with its id, read into no values; the next call is answered', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    const r = await page.evaluate(async () => {
      // 3.9 MB of `[],`: read whole, 1.3 million values and some 200 MB of wasm memory, kept.
      const junk = Array.from({ length: 1_300_000 }, () => []);
      const refused = await grewAround(async (peer) => {
        const out = {};
        for (const [id, message] of [
          ['meta', { name: 'echo', arguments: {}, _meta: { junk } }],
          ['unknown', { name: 'echo', arguments: {}, junk }],
        ]) {
          const reply = await peer.rpc.request('tools/call', message, id, 60_000);
          out[id] = { id: reply.id, code: reply.error?.code, message: reply.error?.message };
        }
        return out;
      });
      // The same values as a call's arguments are read apart, as text: served.
      const served = await grewAround(async (peer) => {
        const args = await peer.rpc.request('tools/call', { name: 'echo', arguments: { junk } }, 'args', 60_000);
        return { args: JSON.parse(args.result?.content?.[0]?.text ?? '{}').junk?.length };
      });
      return { ...refused, refusedGrewMiB: refused.grewMiB, args: served.args, grewMiB: refused.grewMiB + served.grewMiB, allGrewMiB: refused.allGrewMiB + served.allGrewMiB };
    });
    const refused = (id) => ({
      id, code: -32600,
      message: 'The number of JSON values in a message (a tool call\'s arguments aside) exceeds the limit of 100000',
    });
    assert.deepEqual(r.meta, refused('meta'));
    assert.deepEqual(r.unknown, refused('unknown'));
    assert.equal(r.args, 1_300_000);
    assert.equal(r.next, JSON.stringify({ n: 1 }));
    // The refused messages cost their texts' copies, as the served call does (7.5 MiB), and
    // no value: a scan found them past the limit (read to it, 100,000 values for nothing,
    // they grew the memory by 19.7 MiB); not 200 MB of values.
    assert.ok(r.refusedGrewMiB < 10, `wasm memory grew ${r.refusedGrewMiB} MiB for the refused messages`);
    assert.ok(r.grewMiB < 40, `wasm memory grew ${r.grewMiB} MiB`);
    assert.ok(r.allGrewMiB < 80, `every wasm memory grew ${r.allGrewMiB} MiB`);
  }, { html: ESM(), timeout: 120_000 }));

test('tab: a call\'s arguments of 1.3 million values that the tool\'s schema refuses are answered from their text, not read into values; the next call is answered', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    const r = await page.evaluate(() => grewAround(async (peer) => {
      const mc = navigator.modelContext;
      const execute = (a) => JSON.stringify(a).length;
      // A plain schema (the core checks it), and one only the validator module checks.
      await mc.registerTool({ name: 'strings', description: 'x', execute,
        inputSchema: { type: 'object', properties: { junk: { type: 'array', items: { type: 'string' } } } } });
      await mc.registerTool({ name: 'strings-pattern', description: 'x', execute,
        inputSchema: { type: 'object', patternProperties: { '^j': { type: 'array', items: { type: 'string' } } } } });
      // 3.9 MB of `[],`: read into values, 1.3 million of them and some 200 MB of wasm memory.
      const junk = Array.from({ length: 1_300_000 }, () => []);
      const out = {};
      for (const name of ['strings', 'strings-pattern']) {
        const reply = await peer.rpc.request('tools/call', { name, arguments: { n: 1, junk } }, name, 60_000);
        // (The peer speaks 2025-06-18: refused arguments are a -32602 error, the violations its data.)
        out[name] = { id: reply.id, code: reply.error?.code, message: reply.error?.message, violations: reply.error?.data?.violations };
      }
      // Nearly as many accepted, run (900,000 strings: 3.6 MB of text, under the size limit).
      const fine = await peer.rpc.request('tools/call', { name: 'strings', arguments: { junk: junk.slice(0, 900_000).map(() => 'x') } }, 'fine', 60_000);
      out.fine = fine.result?.content?.[0]?.text;
      // Within the limit, the validator module checks them (and reports its first 32).
      const some = await peer.rpc.request('tools/call', { name: 'strings-pattern', arguments: { junk: junk.slice(0, 90_000) } }, 'some', 60_000);
      out.some = [some.error?.code, some.error?.data?.violations?.length, some.error?.data?.violations?.[1]?.instancePath];
      return out;
    }));
    const past = 'the schema refuses this value or one inside it; the instance holds more than 100000 JSON values, more than are read to report each violation';
    assert.deepEqual(r.strings, {
      id: 'strings', code: -32602,
      message: `Invalid arguments for tool strings: /junk/0: ${past} [keyword: $values]`,
      violations: [{ instancePath: '/junk/0', keyword: '$values', message: past }],
    });
    // The validator module would read them all into values in its own memory (some 200 MB):
    // refused unread.
    const unread = 'the instance holds more than 100000 JSON values, more than are read to check this value against the schema';
    assert.deepEqual(r['strings-pattern'], {
      id: 'strings-pattern', code: -32602,
      message: `Invalid arguments for tool strings-pattern: (root): ${unread} [keyword: $values]`,
      violations: [{ instancePath: '', keyword: '$values', message: unread }],
    });
    assert.equal(r.fine, String(JSON.stringify({ junk: Array.from({ length: 900_000 }, () => 'x') }).length));
    assert.deepEqual(r.some, [-32602, 32, '/junk/1']);
    assert.equal(r.next, JSON.stringify({ n: 1 }));
    // The texts' copies and at most 100,000 values (some 10 MB), not 200 MB of them; in the
    // validator module too (the 90,000 values it read).
    assert.ok(r.grewMiB < 40, `wasm memory grew ${r.grewMiB} MiB`);
    assert.ok(r.allGrewMiB < 80, `every wasm memory grew ${r.allGrewMiB} MiB`);
  }, { html: ESM(), timeout: 120_000 }));

test('tab: a call\'s arguments of more values than maxMessageValues for a tool the validator module checks are refused from a scan of their text, read into no values at all; the next call is answered', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      // A schema only the validator module checks (patternProperties), its module loaded and
      // its first call answered before the memory is read.
      await mc.registerTool({ name: 'pattern', description: 'x', execute: (a) => JSON.stringify(a).length,
        inputSchema: { type: 'object', patternProperties: { '^j': { type: 'array', items: { type: 'array' } } } } });
      const warm = await (await openPeer('tab')).rpc.request('tools/call', { name: 'pattern', arguments: { j: [[]] } }, 'warm', 60_000);
      const out = await grewAround(async (peer) => {
        // 400,000 empty arrays (1.2 MB of text): the text and its copies, and no values. A
        // reading of the first 100,000 of them for nothing, made before they were refused,
        // grew the core's memory by 14.6 MiB (2.4 without it).
        const junk = Array.from({ length: 400_000 }, () => []);
        const reply = await peer.rpc.request('tools/call', { name: 'pattern', arguments: { j: junk } }, 'junk', 60_000);
        return { refused: [reply.id, reply.error?.code, reply.error?.data?.violations] };
      });
      return { warm: warm.result?.content?.[0]?.text, ...out };
    });
    assert.equal(r.warm, String(JSON.stringify({ j: [[]] }).length));
    const unread = 'the instance holds more than 100000 JSON values, more than are read to check this value against the schema';
    assert.deepEqual(r.refused, ['junk', -32602, [{ instancePath: '', keyword: '$values', message: unread }]]);
    assert.equal(r.next, JSON.stringify({ n: 1 }));
    assert.ok(r.allGrewMiB < 6, `every wasm memory grew ${r.allGrewMiB} MiB`);
  }, { html: ESM(), timeout: 120_000 }));

test('tab: a call\'s arguments past maxMessageValues that are not an object are refused as such from their text, read into no values; the next call is answered', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    const r = await page.evaluate(() => grewAround(async (peer) => {
      // 400,000 empty arrays as the arguments themselves, to a tool with no schema: read to
      // the limit for nothing, before the refusal, they grew the core's memory by 14.6 MiB.
      const junk = Array.from({ length: 400_000 }, () => []);
      const reply = await peer.rpc.request('tools/call', { name: 'echo', arguments: junk }, 'list', 60_000);
      return { refused: [reply.id, reply.error?.code, reply.error?.message] };
    }));
    assert.deepEqual(r.refused, ['list', -32602, 'tools/call: Tool arguments must be an object, got [[],[],[],[],[],[],[],[],[],[],[],[],[],[],[],[],[],[],[]...']);
    assert.equal(r.next, JSON.stringify({ n: 1 }));
    assert.ok(r.allGrewMiB < 6, `every wasm memory grew ${r.allGrewMiB} MiB`);
  }, { html: ESM(), timeout: 120_000 }));

test('tab: a call\'s arguments with a long string held out of them are read no further than maxMessageValues either, and checked with the string in place', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    const r = await page.evaluate(() => grewAround(async (peer) => {
      // A string of 16,384 characters or more is held out of the arguments' text (a marker in
      // its place) when the arguments hold at most 10,000 values; such arguments were read
      // into values whole, past a lower limit too.
      await navigator.modelContext.registerTool({
        name: 'noted', description: 'x',
        inputSchema: { type: 'object', properties: { junk: { type: 'array', items: { type: 'array' } }, note: { type: 'string', maxLength: 20_000 } } },
        execute: ({ junk, note }) => `${junk.length} ${note.length} ${note.slice(0, 3)}`,
      });
      const junk = Array.from({ length: 9_000 }, () => []);
      const call = (id, args) => peer.rpc.request('tools/call', { name: 'noted', arguments: args }, id, 60_000);
      const fine = await call('fine', { note: 'abc'.padEnd(19_000, '.'), junk });
      const long = await call('long', { note: 'abc'.padEnd(21_000, '.'), junk });
      const item = await call('item', { note: 'abc'.padEnd(19_000, '.'), junk: [...junk, 1] });
      const within = await call('within', { note: 'abc'.padEnd(21_000, '.'), junk: junk.slice(0, 10) });
      return {
        fine: fine.result?.content?.[0]?.text,
        refused: [long, item, within].map((a) => [a.error?.code, a.error?.data?.violations?.map((v) => `${v.instancePath} ${v.keyword}`)]),
      };
    }));
    assert.equal(r.fine, '9000 19000 abc');
    assert.deepEqual(r.refused, [
      // Past the limit: where the check failed first, from the text with the string in it.
      [-32602, ['/note $values']],
      [-32602, ['/junk/9000 $values']],
      // Within it: the report as before, from the value.
      [-32602, ['/note maxLength']],
    ]);
    assert.equal(r.next, JSON.stringify({ n: 1 }));
  }, { html: ESM({ limits: { maxMessageValues: 5_000 } }), timeout: 120_000 }));

test('tab: 1.3 million values where a string enum is wanted are refused by their type, not read into values; the next call is answered', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    const r = await page.evaluate(() => grewAround(async (peer) => {
      // z.enum(['fast', 'slow']): an enum needs the value whole, and a container in its place
      // was read into one to be walked (some 200 MB).
      await navigator.modelContext.registerTool({
        name: 'mode', description: 'x',
        inputSchema: { type: 'object', properties: { mode: { type: 'string', enum: ['fast', 'slow'] } } },
        execute: ({ mode }) => mode,
      });
      const junk = Array.from({ length: 1_300_000 }, () => []);
      const call = (id, mode) => peer.rpc.request('tools/call', { name: 'mode', arguments: { mode } }, id, 60_000);
      const refused = await call('refused', junk);
      const fine = await call('fine', 'slow');
      return {
        refused: [refused.error?.code, refused.error?.data?.violations?.map((v) => `${v.instancePath} ${v.keyword}`)],
        fine: fine.result?.content?.[0]?.text,
      };
    }));
    assert.deepEqual(r.refused, [-32602, ['/mode $values']]);
    assert.equal(r.fine, 'slow');
    assert.equal(r.next, JSON.stringify({ n: 1 }));
    // The text's copies (7.5 MiB), no value: read to maxMessageValues for the report, the
    // arrays grew the memory by 19.7 MiB.
    assert.ok(r.grewMiB < 12, `wasm memory grew ${r.grewMiB} MiB`);
  }, { html: ESM(), timeout: 120_000 }));

test('tab: a record\'s names are checked as they come, and a part a uniqueItems needs whole is read into at most maxMessageValues values; the next call is answered', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    const r = await page.evaluate(() => grewAround(async (peer) => {
      const mc = navigator.modelContext;
      // z.record(z.string().max(8), z.array(z.never())): propertyNames needed the object's
      // value, and 280,000 members were read into one.
      await mc.registerTool({
        name: 'record', description: 'x',
        inputSchema: { type: 'object', properties: { m: { type: 'object', propertyNames: { maxLength: 8 }, minProperties: 2, additionalProperties: { type: 'array', maxItems: 0 } } } },
        execute: ({ m }) => String(Object.keys(m).length),
      });
      await mc.registerTool({
        name: 'unique', description: 'x',
        inputSchema: { type: 'object', properties: { xs: { type: 'array', uniqueItems: true } } },
        execute: ({ xs }) => String(xs.length),
      });
      const call = (name, id, args) => peer.rpc.request('tools/call', { name, arguments: args }, id, 60_000);
      const answer = (a) => a.result?.content?.[0]?.text ?? [a.error?.code, a.error?.data?.violations?.map((v) => `${v.instancePath} ${v.keyword}`)];
      const m = Object.fromEntries(Array.from({ length: 280_000 }, (_, i) => [`k${i}`, []]));
      const out = {};
      out.record = answer(await call('record', 'record', { m }));
      out.longName = answer(await call('record', 'longName', { m: { ...m, 'k12345678': [] } }));
      out.oneName = answer(await call('record', 'oneName', { m: { k: [] } }));
      // 50,000 distinct numbers: past the part's bound, within maxMessageValues: read and checked.
      out.distinct = answer(await call('unique', 'distinct', { xs: Array.from({ length: 50_000 }, (_, i) => i) }));
      out.twice = answer(await call('unique', 'twice', { xs: [1, 2, 1] }));
      // 1.3 million empty arrays (not unique): read into 200 MB of values to be refused.
      out.junk = answer(await call('unique', 'junk', { xs: Array.from({ length: 1_300_000 }, () => []) }));
      return out;
    }));
    assert.equal(r.record, '280000');
    const past = ['/m $values'];
    assert.deepEqual(r.longName, [-32602, past]);
    assert.deepEqual(r.oneName, [-32602, ['/m minProperties']]);
    assert.equal(r.distinct, '50000');
    assert.deepEqual(r.twice, [-32602, ['/xs uniqueItems']]);
    assert.deepEqual(r.junk, [-32602, ['/xs $values']]);
    assert.equal(r.next, JSON.stringify({ n: 1 }));
    assert.ok(r.grewMiB < 40, `wasm memory grew ${r.grewMiB} MiB`);
  }, { html: ESM(), timeout: 120_000 }));

test('tab: a call\'s arguments of 1.3 million values under a nullable array (an anyOf) are checked from their text, not read into values; the page\'s function gets them', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    const r = await page.evaluate(() => grewAround(async (peer) => {
      // What zod writes for z.array(z.array(z.never())).nullable(): the branches of an anyOf,
      // which the core's check decided on the array's value, read whole (some 200 MB).
      const nullable = { anyOf: [{ type: 'array', items: { type: 'array', maxItems: 0 } }, { type: 'null' }] };
      await navigator.modelContext.registerTool({
        name: 'nullable', description: 'x', inputSchema: { type: 'object', properties: { junk: nullable } },
        execute: ({ junk }) => (junk === null ? 'null' : `${junk.length} ${junk.every((x) => Array.isArray(x) && x.length === 0)}`),
      });
      const junk = Array.from({ length: 1_300_000 }, () => []);
      const text = async (id, args) => (await peer.rpc.request('tools/call', { name: 'nullable', arguments: args }, id, 60_000)).result?.content?.[0]?.text;
      // The same arrays with one item that no branch takes: refused, from the text.
      const refused = await peer.rpc.request('tools/call', { name: 'nullable', arguments: { junk: [...junk, [1]] } }, 'refused', 60_000);
      return { valid: await text('valid', { junk }), none: await text('none', { junk: null }), refused: [refused.error?.code, refused.error?.data?.violations] };
    }));
    assert.equal(r.valid, '1300000 true');
    assert.equal(r.none, 'null');
    // (The branches' reading ran out of values before either decided: not said to be refused.)
    assert.deepEqual(r.refused, [-32602, [{
      instancePath: '/junk', keyword: '$values',
      message: 'the instance holds more than 100000 JSON values, more than are read to check this value against the schema',
    }]]);
    assert.equal(r.next, JSON.stringify({ n: 1 }));
    assert.ok(r.grewMiB < 40, `wasm memory grew ${r.grewMiB} MiB`);
  }, { html: ESM(), timeout: 120_000 }));

test('tab: an array item of 1.3 million values under a nullable item (an anyOf) is checked from its text, not read into values, at any depth; the page\'s function gets it', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    const r = await page.evaluate(() => grewAround(async (peer) => {
      // z.array(z.array(z.array(z.never())).nullable()): each item is an anyOf's, which the
      // core's check read whole into a value (some 190 MB for one such item).
      const nullable = { anyOf: [{ type: 'array', items: { type: 'array', maxItems: 0 } }, { type: 'null' }] };
      const xs = { type: 'array', items: nullable };
      await navigator.modelContext.registerTool({
        name: 'items', description: 'x',
        inputSchema: { type: 'object', properties: { xs, 'deep "one"': { type: 'array', items: { type: 'object', properties: { xs } } } } },
        execute: (args) => JSON.stringify(Object.entries(args).map(([k, v]) => [k, JSON.stringify(v).length])),
      });
      const junk = Array.from({ length: 1_300_000 }, () => []);
      const call = (id, args) => peer.rpc.request('tools/call', { name: 'items', arguments: args }, id, 60_000);
      const text = async (id, args) => (await call(id, args)).result?.content?.[0]?.text;
      const code = async (id, args) => (await call(id, args)).error?.code;
      return {
        // As an item after others, and inside an item of a member whose name has escapes.
        valid: await text('valid', { xs: [null, [], junk] }),
        deep: await text('deep', { 'deep "one"': [{ xs: [[[]]] }, { xs: [[], junk] }] }),
        // One item inside it that no branch takes.
        refused: await code('refused', { xs: [null, [...junk, [1]]] }),
        refusedDeep: await code('refusedDeep', { 'deep "one"': [{}, { xs: [[...junk, [1]]] }] }),
      };
    }));
    const length = 2 + 3 * 1_300_000 - 1;
    assert.equal(r.valid, JSON.stringify([['xs', 'null,[],'.length + length + 2]]));
    assert.equal(r.deep, JSON.stringify([['deep "one"', '[{"xs":[[[]]]},{"xs":[[],'.length + length + 3]]));
    assert.equal(r.refused, -32602);
    assert.equal(r.refusedDeep, -32602);
    assert.equal(r.next, JSON.stringify({ n: 1 }));
    assert.ok(r.grewMiB < 40, `wasm memory grew ${r.grewMiB} MiB`);
  }, { html: ESM(), timeout: 120_000 }));

test('modelContextPolyfillConfig.limits.maxMessageValues bounds the values a message may hold', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.loaded === true);
    const r = await page.evaluate(async () => {
      const peer = await openPeer('tab');
      const call = async (n, id) => (await peer.rpc.request('tools/call', {
        name: 'echo', arguments: { many: Array.from({ length: 100 }, (_, i) => i) }, _meta: { n: Array.from({ length: n }, () => 0) },
      }, id));
      // jsonrpc, id, method, params, name, the arguments' place, _meta, n: 8 and n's numbers.
      const fits = await call(12, 'fits');
      const over = await call(13, 'over');
      return { fits: JSON.parse(fits.result?.content?.[0]?.text ?? '{}').many?.length, over: [over.id, over.error?.code, over.error?.data] };
    });
    assert.equal(r.fits, 100);
    assert.deepEqual(r.over, ['over', -32600, { limit: 20 }]);
  }, { html: ESM({ limits: { maxMessageValues: 20 } }), timeout: 60_000 }));

test('tab: an agent\'s answer the server refuses (over the size limit, or too many values) fails the tool\'s request it answers, and is not answered', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      navigator.modelContext.registerTool('ask', {
        description: 'Asks the agent for a name',
        async handler(_args, extra) {
          try {
            const answer = await extra.sendRequest('elicitation/create', { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
            return { content: [{ type: 'text', text: 'answered: ' + answer.action }] };
          } catch (e) {
            return { content: [{ type: 'text', text: 'refused: ' + e.message }], isError: true };
          }
        },
      });
      const peer = await openPeer('tab');
      await peer.rpc.request('initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 't', version: '0' } });
      peer.rpc.notify('notifications/initialized');
      const out = {};
      const answers = {
        big: { action: 'accept', content: { name: 'x'.repeat(5 * 2 ** 20) } },
        many: { action: 'accept', content: { name: 'n' }, _meta: { junk: Array.from({ length: 200_000 }, () => []) } },
        fine: { action: 'accept', content: { name: 'n' } },
      };
      for (const [kind, result] of Object.entries(answers)) {
        const call = peer.rpc.request('tools/call', { name: 'ask', arguments: {} }, `call-${kind}`, 20_000);
        const [asked] = (await peer.rpc.waitFor((m) => m.method === 'elicitation/create' && !m.handled)).filter((m) => !m.handled);
        asked.handled = true;
        const seen = peer.rpc.seen.length;
        peer.payload({ jsonrpc: '2.0', id: asked.id, result });
        const reply = await call;
        out[kind] = { text: reply.result?.content?.[0]?.text, isError: reply.result?.isError ?? false };
        // Nothing answered the answer (the call's own reply aside).
        out[kind].others = peer.rpc.seen.slice(seen).filter((m) => m.id !== `call-${kind}`).length;
      }
      return out;
    });
    assert.match(r.big.text, /^refused: Message size in bytes is 52429\d\d; the limit is 4194304$/);
    assert.deepEqual([r.big.isError, r.big.others], [true, 0]);
    assert.deepEqual(r.many, { text: 'refused: The number of JSON values in a message (a tool call\'s arguments aside) exceeds the limit of 100000', isError: true, others: 0 });
    assert.deepEqual(r.fine, { text: 'answered: accept', isError: false, others: 0 });
  }, { html: CLASSIC, timeout: 90_000 }));

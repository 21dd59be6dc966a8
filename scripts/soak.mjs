#!/usr/bin/env node
// `make soak`: reliability under a long run, this polyfill beside @mcp-b/global in the same
// headless Chromium, each with its default configuration, driven by the same clients — the
// official MCP TypeScript client (@modelcontextprotocol/client) over MCP-B's TabClientTransport
// for valid calls, raw window.postMessage envelopes for hostile input. Prints calls answered, the
// heap (JS heap + array buffers, after a full GC) and wasm memory at checkpoints, and the worst
// event-loop lag of each phase (with the worst of each fifth of it and their median: one pause
// decides a phase's worst), side by side; then the rows of issue 12's table re-measured.
//
//   node scripts/soak.mjs                 the issue's figures (a few minutes on 2 cores)
//   SOAK_SCALE=0.1 node scripts/soak.mjs  a tenth of every count (a quick look)
//   SOAK_SCALE=0.01 SOAK_SLOW=1000 node scripts/soak.mjs   one count in full (SOAK_CALLS, …)
//   node scripts/soak.mjs --json          machine-readable results on stdout
//
// Phases (counts × SOAK_SCALE): 100,000 tool calls (20 in flight, five checkpoints); 20,000
// register/abort cycles (four checkpoints, then the tools left); 10,000 hostile messages
// interleaved with 1,000 valid calls; 1,000 concurrent 50 ms calls. Then the table's rows: a
// MessagePort server after a 32 MB message, a 64 MiB and a 256 MiB message on the tab channel,
// the id on deep-nesting and lone-surrogate errors, 64 hung handlers and ping, a second client's
// initialize during a call, and the stdio example's peak memory on a 64 MiB line and a 10 MB
// backlog. Not part of `make test` (it is a measurement, not a check).

import fs from 'node:fs';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { REPO_ROOT, DIST_DIR } from './lib/project.mjs';
import { startStaticServer } from './lib/static-server.mjs';
import { benchPage } from './lib/bench-page.mjs';
import { median } from './lib/stats.mjs';
import { launchChromium } from '../tests/page/lib/chromium.mjs';

const SCALE = Number(process.env.SOAK_SCALE ?? 1);
if (!(SCALE > 0)) throw new Error('SOAK_SCALE must be a positive number');
const n = (x) => Math.max(1, Math.round(x * SCALE));
// SOAK_CALLS, SOAK_CYCLES, SOAK_HOSTILE, SOAK_VALID, SOAK_SLOW set one count outright (e.g. the
// full 1,000 concurrent slow calls in a quick run at a small scale).
const count = (name, full) => {
  const v = process.env[`SOAK_${name.toUpperCase()}`];
  if (v === undefined) return n(full);
  if (!(Number(v) >= 1)) throw new Error(`SOAK_${name.toUpperCase()} must be a positive number`);
  return Math.round(Number(v));
};
const COUNTS = {
  calls: count('calls', 100_000),
  cycles: count('cycles', 20_000),
  hostile: count('hostile', 10_000),
  valid: count('valid', 1_000),
  slow: count('slow', 1_000),
};
const JSON_OUT = process.argv.includes('--json');

const pkgVersion = (name) =>
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;

const IMPLS = [
  { id: 'ours', label: 'modelcontext-polyfill', kind: 'esm', src: '/dist/modelcontext.js' },
  { id: 'mcpb', label: `@mcp-b/global ${pkgVersion('@mcp-b/global')}`, kind: 'classic', src: '/node_modules/@mcp-b/global/dist/index.iife.js' },
];

function pageHtml() {
  return benchPage({ title: 'soak', head: '<script src="/tests/page/fixtures/transport/rpc.js"></script>\n' });
}

// ---- in the page ------------------------------------------------------------------------------
// Each function runs through page.evaluate; state lives on window.S.

async function setup({ kind, src }) {
  const S = (window.S = { lag: 0, errors: [] });
  await window.__benchLoad(kind, src); // scripts/lib/bench-page.mjs
  if (kind === 'esm') {
    // The glue's exports once the polyfill has initialized it (it is always given its module).
    await globalThis[Symbol.for('modelcontext-polyfill')].ready;
    const glue = await import('/dist/modelcontext_glue.js');
    const exports = await glue.default();
    // (The build names the module's exports short: the memory is the export that is one.)
    const memory = Object.values(exports).find((v) => v instanceof WebAssembly.Memory);
    S.wasmBytes = () => memory.buffer.byteLength;
  } else {
    S.wasmBytes = () => null;
  }
  const mc = document.modelContext || navigator.modelContext;
  S.mc = mc;
  await mc.registerTool({ name: 'echo', description: 'Echoes a', inputSchema: { type: 'object', properties: { a: {} } }, execute: ({ a }) => String(a) });
  await mc.registerTool({ name: 'slow', description: 'Answers after 50 ms', execute: () => new Promise((r) => setTimeout(() => r('slow'), 50)) });
  let release;
  S.gate = new Promise((r) => { release = r; });
  S.release = release;
  await mc.registerTool({ name: 'wait', description: 'Waits for the soak', execute: () => S.gate.then(() => 'released') });
  await mc.registerTool({ name: 'hang', description: 'Never settles', execute: () => new Promise(() => {}) });
  S.client = new Bench.Client({ name: 'soak', version: '1.0.0' });
  await S.client.connect(new Bench.TabClientTransport({ targetOrigin: location.origin }));
  // Event-loop lag: how late a 5 ms interval fires, worst since the last reset, counted only
  // while a phase's work runs (S.measure): not across the checkpoints between its chunks, whose
  // forced full garbage collection (HeapProfiler.collectGarbage) is the harness's own pause.
  let last = performance.now();
  let measuring = false;
  setInterval(() => {
    const t = performance.now();
    if (measuring) S.lag = Math.max(S.lag, t - last - 5);
    last = t;
  }, 5);
  S.measure = async (work) => {
    last = performance.now();
    measuring = true;
    try {
      return await work();
    } finally {
      measuring = false;
    }
  };
  S.post = (payload) => window.postMessage({ channel: 'mcp-default', type: 'mcp', direction: 'client-to-server', payload }, location.origin);
  S.raw = makeRpc(S.post, { prefix: 'raw-', timeout: 10_000 });
  // Only the raw client's own answers (string ids): the official client's replies (numeric ids)
  // on the same channel must not pile up in the recorder and count as the server's heap.
  addEventListener('message', (e) => {
    const d = e.data;
    if (d?.channel === 'mcp-default' && d.direction === 'server-to-client' && typeof d.payload?.id === 'string') S.raw.receive(d.payload);
  });
  // A client connects with initialize; the raw client gets its own session's answers too.
  await S.raw.initialize('2025-06-18');
  return true;
}

/** `count` tool calls, `inFlight` at a time; how many came back right. */
async function calls({ count, inFlight, offset }) {
  const S = window.S;
  let next = 0;
  let ok = 0;
  const worker = async () => {
    while (next < count) {
      const i = offset + next++;
      try {
        const r = await S.client.callTool({ name: 'echo', arguments: { a: i } });
        if (r.content?.[0]?.text === String(i)) ok++;
      } catch (e) {
        if (S.errors.length < 5) S.errors.push(String(e?.message ?? e));
      }
    }
  };
  await S.measure(() => Promise.all(Array.from({ length: inFlight }, worker)));
  return ok;
}

/** `count` register/abort cycles. */
async function cycles({ count }) {
  const S = window.S;
  for (let i = 0; i < count; i++) {
    const ac = new AbortController();
    const r = await S.mc.registerTool({ name: 'cycle', description: 'Registered and aborted', execute: () => 'x' }, { signal: ac.signal });
    ac.abort();
    try {
      r?.unregister?.();
    } catch {}
  }
  const { tools } = await S.client.listTools();
  return tools.length;
}

/** `hostile` bad messages interleaved with `valid` calls; per kind, how requests were answered. */
async function hostile({ hostile, valid }) {
  const S = window.S;
  S.lag = 0;
  let nest = 'leaf';
  for (let i = 0; i < 100; i++) nest = { nest };
  // [the id prefix of the requests this kind sends (null: none), the message]
  const kinds = [
    [null, (i) => ({ junk: i })],
    [null, () => 'not json'],
    ['h-deep-', (i) => ({ jsonrpc: '2.0', id: `h-deep-${i}`, method: 'tools/call', params: { name: 'echo', arguments: { a: nest } } })],
    ['h-lone-', (i) => ({ jsonrpc: '2.0', id: `h-lone-${i}`, method: 'tools/call', params: { name: 'echo', arguments: { a: 'a\ud800b' } } })],
    ['h-nover-', (i) => ({ id: `h-nover-${i}`, method: 'ping' })],
    [null, (i) => ({ jsonrpc: '2.0', id: { bad: i }, method: 'ping' })],
    [null, (i) => ({ jsonrpc: '2.0', method: 'notifications/junk', params: { i } })],
    [null, (i) => [{ junk: i }]],
    ['h-params-', (i) => ({ jsonrpc: '2.0', id: `h-params-${i}`, method: 'tools/call', params: 'x' })],
    // Every 50th time round: a 5 MiB request (over the 4 MiB default).
    ['h-big-', (i) => ({ jsonrpc: '2.0', id: `h-big-${i}`, method: 'ping', params: { pad: 'x'.repeat(Math.floor(i / 10) % 50 === 0 ? 5 << 20 : 10) } })],
  ];
  const per = Math.max(1, Math.round(hostile / valid));
  let sent = 0;
  let ok = 0;
  // The worst lag of each fifth of the valid calls.
  const lags = [];
  const fifth = Math.max(1, Math.ceil(valid / 5));
  await S.measure(async () => {
    for (let v = 0; v < valid; v++) {
      if (v > 0 && v % fifth === 0) {
        lags.push(S.lag);
        S.lag = 0;
      }
      for (let k = 0; k < per && sent < hostile; k++, sent++) S.post(kinds[sent % kinds.length][1](sent));
      try {
        const r = await S.client.callTool({ name: 'echo', arguments: { a: v } });
        if (r.content?.[0]?.text === String(v)) ok++;
      } catch (e) {
        if (S.errors.length < 5) S.errors.push(String(e?.message ?? e));
      }
    }
    await new Promise((r) => setTimeout(r, 300));
    lags.push(S.lag);
  });
  const seen = S.raw.seen;
  const idsOf = (prefix) => {
    const asked = new Set();
    for (let i = 0; i < sent; i++) if (kinds[i % kinds.length][0] === prefix) asked.add(`${prefix}${i}`);
    return asked;
  };
  const answered = (prefix) => {
    const asked = idsOf(prefix);
    return `${seen.filter((m) => asked.has(m.id)).length}/${asked.size}`;
  };
  return {
    sent,
    valid: ok,
    lag: Math.max(...lags),
    lags,
    deep: answered('h-deep-'),
    lone: answered('h-lone-'),
    nover: answered('h-nover-'),
    big: answered('h-big-'),
    params: answered('h-params-'),
  };
}

/** `count` concurrent 50 ms calls: how many answered, in how long. */
async function slow({ count }) {
  const S = window.S;
  const t = performance.now();
  const rs = await Promise.all(Array.from({ length: count }, () => S.client.callTool({ name: 'slow', arguments: {} }).then((r) => r.content?.[0]?.text === 'slow', () => false)));
  return { ok: rs.filter(Boolean).length, ms: performance.now() - t };
}

/** 64 hung handlers, then ping: answered? */
async function hung() {
  const S = window.S;
  for (let i = 0; i < 64; i++) S.post({ jsonrpc: '2.0', id: `hung-${i}`, method: 'tools/call', params: { name: 'hang', arguments: {} } });
  const r = await Promise.race([S.raw.request('ping'), new Promise((res) => setTimeout(() => res(null), 3000))]);
  for (let i = 0; i < 64; i++) S.raw.notify('notifications/cancelled', { requestId: `hung-${i}` });
  return r?.result ? 'answered' : r?.error ? `refused (${r.error.code})` : 'no answer in 3 s';
}

/** A second client initializes while the first one's call runs: is the call answered? */
async function secondInit() {
  const S = window.S;
  const first = makeRpc(S.post, { prefix: 'first-', timeout: 5000 });
  const second = makeRpc(S.post, { prefix: 'second-', timeout: 5000 });
  addEventListener('message', (e) => {
    const d = e.data;
    if (d?.channel === 'mcp-default' && d.direction === 'server-to-client' && typeof d.payload?.id === 'string') {
      first.receive(d.payload);
      second.receive(d.payload);
    }
  });
  await first.initialize();
  const call = first.request('tools/call', { name: 'wait', arguments: {} });
  await new Promise((r) => setTimeout(r, 50));
  await second.initialize();
  S.release();
  const r = await call.catch((e) => ({ error: { message: e.message } }));
  return r.result?.content?.[0]?.text === 'released' ? 'answered' : `not answered (${r.error?.message ?? JSON.stringify(r).slice(0, 80)})`;
}

/** A MessagePort server (ours only): after initialize, tools/list, two calls and a 32 MB call, is ping answered? */
async function portAfterBig() {
  const S = window.S;
  const ch = new MessageChannel();
  try {
    S.portSession = await S.mc.connect({ transport: { type: 'postMessage', target: ch.port1 } });
  } catch {
    return null;
  }
  const rpc = makeRpc((m) => ch.port2.postMessage({ type: 'mcp', payload: m }), { timeout: 5000 });
  ch.port2.onmessage = (e) => e.data?.type === 'mcp' && rpc.receive(e.data.payload);
  await rpc.initialize();
  await rpc.request('tools/list');
  await rpc.request('tools/call', { name: 'echo', arguments: { a: 1 } });
  await rpc.request('tools/call', { name: 'echo', arguments: { a: 2 } });
  const big = await rpc.request('tools/call', { name: 'echo', arguments: { a: 'x'.repeat(32_000_000) } }).catch(() => null);
  const ping = await rpc.request('ping').catch(() => null);
  return `32 MB: ${big?.error ? `error ${big.error.code}${big.id !== undefined ? ' with id' : ''}` : big ? 'answered' : 'no answer'}; ping after: ${ping?.result ? 'answered' : 'no answer'}`;
}

/** One message of `mib` MiB on the tab channel: the answer and how long it took, and wasm growth. */
async function bigMessage({ mib }) {
  const S = window.S;
  const before = S.wasmBytes();
  const t = performance.now();
  const r = await S.raw.request('tools/call', { name: 'echo', arguments: { a: 'x'.repeat(mib * 1024 * 1024) } }).catch((e) => ({ timeout: e.message }));
  const ms = performance.now() - t;
  const after = S.wasmBytes();
  const next = await S.raw.request('ping').catch(() => null);
  return {
    reply: r.timeout ? 'no answer' : r.error ? `error ${r.error.code}${r.id !== undefined ? ' with id' : ''}` : 'answered',
    ms,
    wasmGrowMiB: before === null ? null : (after - before) / (1024 * 1024),
    wasmMiB: after === null ? null : after / (1024 * 1024),
    next: next?.result ? 'answered' : 'no answer',
  };
}

// ---- node side --------------------------------------------------------------------------------

async function heapMiB(cdp) {
  await cdp.send('HeapProfiler.collectGarbage');
  const h = await cdp.send('Runtime.getHeapUsage');
  return (h.usedSize + (h.backingStorageSize ?? 0)) / (1024 * 1024);
}

async function runImpl(browser, server, impl, log) {
  const context = await browser.newContext();
  const out = { checkpoints: [], warnings: 0, pageErrors: [] };
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(0);
    page.on('pageerror', (e) => out.pageErrors.push(e.message.split('\n')[0]));
    page.on('console', (m) => m.type() === 'warning' && /rateLimit|dropping/.test(m.text()) && out.warnings++);
    page.on('crash', () => out.pageErrors.push('renderer crashed'));
    await page.goto(server.url('/__soak/page.html'));
    await page.waitForFunction(() => window.Bench, null, { timeout: 60_000 });
    const cdp = await context.newCDPSession(page);
    await page.evaluate(setup, { kind: impl.kind, src: impl.src });
    const wasm = () => page.evaluate(() => window.S.wasmBytes());
    const checkpoint = async (phase, done, answered) => {
      const c = { phase, done, answered, heapMiB: await heapMiB(cdp), wasmMiB: ((await wasm()) ?? NaN) / (1024 * 1024), lagMs: await page.evaluate(() => window.S.lag) };
      out.checkpoints.push(c);
      log(`  ${impl.label}: ${phase} ${done.toLocaleString('en')}: answered ${answered.toLocaleString('en')}, heap ${c.heapMiB.toFixed(1)} MiB, wasm ${Number.isFinite(c.wasmMiB) ? c.wasmMiB.toFixed(1) + ' MiB' : '—'}`);
    };
    await checkpoint('start', 0, 0);

    // Phase A: calls, in fifths; the worst lag of each fifth is kept (one pause decides a
    // phase's worst, so five of them show how much it moves).
    let answered = 0;
    const chunk = Math.ceil(COUNTS.calls / 5);
    const lags = [];
    let t = Date.now();
    for (let done = 0; done < COUNTS.calls; ) {
      const count = Math.min(chunk, COUNTS.calls - done);
      await page.evaluate(() => { window.S.lag = 0; });
      answered += await page.evaluate(calls, { count, inFlight: 20, offset: done });
      done += count;
      await checkpoint('calls', done, answered);
      lags.push(out.checkpoints.at(-1).lagMs);
    }
    out.calls = { answered, of: COUNTS.calls, s: (Date.now() - t) / 1000, lag: Math.max(...lags), lags };

    // Phase B: register/abort cycles.
    await page.evaluate(() => { window.S.lag = 0; });
    const cchunk = Math.ceil(COUNTS.cycles / 4);
    t = Date.now();
    let toolsLeft;
    for (let done = 0; done < COUNTS.cycles; ) {
      const count = Math.min(cchunk, COUNTS.cycles - done);
      toolsLeft = await page.evaluate(cycles, { count });
      done += count;
      await checkpoint('register/abort', done, toolsLeft);
    }
    out.cycles = { toolsLeft, s: (Date.now() - t) / 1000 };

    // Phase C: hostile messages interleaved with valid calls.
    t = Date.now();
    out.hostile = await page.evaluate(hostile, { hostile: COUNTS.hostile, valid: COUNTS.valid });
    out.hostile.s = (Date.now() - t) / 1000;
    await checkpoint('hostile', COUNTS.hostile, out.hostile.valid);

    // Phase D: concurrent slow calls.
    out.slow = await page.evaluate(slow, { count: COUNTS.slow });
    await checkpoint('slow', COUNTS.slow, out.slow.ok);

    // The table's other rows.
    out.hung = await page.evaluate(hung);
    out.secondInit = await page.evaluate(secondInit);
    out.port = await page.evaluate(portAfterBig);
    out.big64 = await page.evaluate(bigMessage, { mib: 64 });
    await checkpoint('after 64 MiB', 1, 1);
    out.big256 = await page.evaluate(bigMessage, { mib: 256 }).catch((e) => ({ reply: `page: ${e.message.split('\n')[0]}` }));
  } catch (e) {
    out.failed = e.message.split('\n')[0];
  } finally {
    await context.close().catch(() => {});
  }
  return out;
}

/** The stdio example's peak resident memory for a 64 MiB line, and with a 10 MB backlog unread. */
async function stdioFigures() {
  const bin = path.join(REPO_ROOT, 'target', 'release', 'examples', 'stdio_server');
  execFileSync('cargo', ['build', '-q', '--release', '--example', 'stdio_server'], { cwd: REPO_ROOT, stdio: 'inherit' });
  const hwm = (pid) => {
    try {
      const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
      return m ? Number(m[1]) / 1024 : NaN;
    } catch {
      return NaN;
    }
  };
  const init = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'soak', version: '1' } } }) + '\n';
  const run = (lines, readReplies) => new Promise((resolve) => {
    const p = spawn(bin, [], { env: { ...process.env, STDIO_SERVER_WATCH_MS: '0' }, stdio: ['pipe', 'pipe', 'ignore'] });
    let replies = 0;
    let buffered = '';
    let peak = 0;
    const sample = setInterval(() => { peak = Math.max(peak, hwm(p.pid) || 0); }, 50);
    const onData = (d) => {
      buffered += d;
      const parts = buffered.split('\n');
      buffered = parts.pop();
      replies += parts.length;
    };
    if (readReplies) p.stdout.on('data', onData);
    p.stdin.on('error', () => {});
    (async () => {
      p.stdin.write(init);
      for (const l of lines()) if (!p.stdin.write(l)) await new Promise((r) => p.stdin.once('drain', r));
      if (!readReplies) {
        // Nothing read yet: let the backlog build, then read it all.
        await new Promise((r) => setTimeout(r, 1000));
        peak = Math.max(peak, hwm(p.pid) || 0);
        p.stdout.on('data', onData);
      }
      p.stdin.end();
    })();
    p.on('exit', () => {
      clearInterval(sample);
      resolve({ peakMiB: peak, replies });
    });
  });
  const line = run(function* () {
    yield JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'tools/call', params: { name: 'echo', arguments: { text: 'z'.repeat(64 << 20) } } }) + '\n';
    yield JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'ping' }) + '\n';
  }, true);
  const lineResult = await line;
  const N = 40_000;
  const backlog = await run(function* () {
    for (let i = 0; i < N; i++) yield JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'w'.repeat(200) } } }) + '\n';
  }, false);
  return { line: lineResult, backlog: { ...backlog, expected: N + 1 } };
}

function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

async function main() {
  for (const f of ['modelcontext.js', 'modelcontext_glue.js']) {
    if (!fs.existsSync(path.join(DIST_DIR, f))) throw new Error(`dist/${f} missing: run \`make build\` first`);
  }
  const started = Date.now();
  const log = (s) => process.stderr.write(`${s}\n`);
  const server = await startStaticServer({ root: REPO_ROOT, port: 0 });
  server.unref();
  server.route('/__soak/page.html', { body: pageHtml() });
  const browser = await launchChromium();
  log(`soak: scale ${SCALE}, Chromium ${browser.version()}`);
  const results = {};
  try {
    for (const impl of IMPLS) {
      log(`${impl.label}:`);
      results[impl.id] = await runImpl(browser, server, impl, log);
    }
  } finally {
    await browser.close().catch(() => {});
    await server.close();
  }
  log('stdio example:');
  const stdio = await stdioFigures();

  const [o, m] = [results.ours, results.mcpb];
  const f1 = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '—');
  // The phase's worst lag, then each fifth's worst and their median.
  const lagText = (phase) => {
    const lags = phase?.lags ?? [];
    if (!lags.length) return '—';
    return `${f1(phase.lag)} ms (fifths ${lags.map((x) => f1(x)).join(' / ')}; median ${f1(median(lags))})`;
  };
  const cp = (r, phase) => r.checkpoints.filter((c) => c.phase === phase);
  const mem = (r, phase) => cp(r, phase).map((c) => `${f1(c.heapMiB)}${Number.isFinite(c.wasmMiB) ? `+${f1(c.wasmMiB)}w` : ''}`).join(' → ');
  const big = (b) => (b ? `${b.reply}${Number.isFinite(b.ms) ? ` in ${(b.ms / 1000).toFixed(2)} s` : ''}; next: ${b.next ?? '—'}` : '—');
  const rows = [
    ['calls answered', `${o.calls?.answered}/${o.calls?.of} (${f1(o.calls?.s)} s)`, `${m.calls?.answered}/${m.calls?.of} (${f1(m.calls?.s)} s)`],
    ['heap (+wasm) MiB at call checkpoints', mem(o, 'calls'), mem(m, 'calls')],
    ['rate-limit warnings', o.warnings, m.warnings],
    ['tools left after register/abort', `${o.cycles?.toolsLeft} (4 expected)`, `${m.cycles?.toolsLeft} (4 expected)`],
    ['heap (+wasm) MiB at register/abort checkpoints', mem(o, 'register/abort'), mem(m, 'register/abort')],
    ['valid calls answered among hostile messages', `${o.hostile?.valid}/${COUNTS.valid}`, `${m.hostile?.valid}/${COUNTS.valid}`],
    ['worst event-loop lag during the hostile phase', lagText(o.hostile), lagText(m.hostile)],
    ['worst event-loop lag during the calls', lagText(o.calls), lagText(m.calls)],
    ['deep-nesting requests answered with their id', o.hostile?.deep, m.hostile?.deep],
    ['lone-surrogate requests answered with their id', o.hostile?.lone, m.hostile?.lone],
    ['requests without jsonrpc answered with their id', o.hostile?.nover, m.hostile?.nover],
    ['pings (every 50th 5 MiB) answered with their id', o.hostile?.big, m.hostile?.big],
    ['requests with bad params answered with their id', o.hostile?.params, m.hostile?.params],
    [`${COUNTS.slow} concurrent 50 ms calls`, `${o.slow?.ok}/${COUNTS.slow} in ${f1(o.slow?.ms, 0)} ms`, `${m.slow?.ok}/${COUNTS.slow} in ${f1(m.slow?.ms, 0)} ms`],
    ['ping with 64 hung handlers', o.hung, m.hung],
    ['second client initialize: first client\'s call', o.secondInit, m.secondInit],
    ['MessagePort server after a 32 MB call', o.port ?? '—', m.port ?? '— (no MessagePort server)'],
    ['64 MiB message on the tab channel', big(o.big64), big(m.big64)],
    ['wasm memory growth for the 64 MiB message', o.big64?.wasmGrowMiB === null ? '—' : `${f1(o.big64?.wasmGrowMiB)} MiB (now ${f1(o.big64?.wasmMiB)} MiB)`, '— (no wasm)'],
    ['256 MiB message on the tab channel', big(o.big256), big(m.big256)],
    ['page errors', o.pageErrors.length ? o.pageErrors.slice(0, 3).join('; ') : 'none', m.pageErrors.length ? m.pageErrors.slice(0, 3).join('; ') : 'none'],
  ];
  if (o.failed || m.failed) rows.push(['run failed', o.failed ?? '', m.failed ?? '']);
  const stdioRows = [
    ['stdio: peak RSS, one 64 MiB line', `${f1(stdio.line.peakMiB)} MiB (${stdio.line.replies} replies)`],
    ['stdio: peak RSS, 40,000 requests (10 MB) unread for 1 s', `${f1(stdio.backlog.peakMiB)} MiB (${stdio.backlog.replies}/${stdio.backlog.expected} replies)`],
  ];
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (JSON_OUT) {
    process.stdout.write(JSON.stringify({ scale: SCALE, counts: COUNTS, results, stdio, seconds: Number(seconds) }, null, 2) + '\n');
    return;
  }
  console.log(`\nmake soak — scale ${SCALE} (${Object.entries(COUNTS).map(([k, v]) => `${k} ${v.toLocaleString('en')}`).join(', ')}), ${seconds} s; default configurations`);
  console.log(table(['figure', IMPLS[0].label, IMPLS[1].label], rows));
  console.log('');
  console.log(table(['stdio example (release build)', 'figure'], stdioRows));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

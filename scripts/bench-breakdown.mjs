#!/usr/bin/env node
// `make bench-breakdown`: where the time of `make bench`'s slowest figures goes, for this polyfill
// beside @mcp-b/global and the client floor (scripts/lib/bench-page.mjs), in the same headless
// Chromium and with the same client as `make bench`:
//
// 1. One sequential `tools/call` round trip, cut at six points: the client's `callTool` until
//    its `postMessage`; the message until the first `message` listener (the server's side of the
//    page); that listener until the tool's `execute` runs; `execute`'s return until the answer is
//    posted; the answer until the first listener; that listener until `callTool` resolves. The
//    page is cross-origin isolated, so `performance.now()` has 5 µs steps instead of 100 µs;
//    each segment is the mean over CALLS calls (the steps average out), and the table gives the
//    median over the rounds. The points are a `message` listener added before the server loads
//    (it reads `event.data` first, so the structured-clone read of each message is counted in
//    the transit segments, not in the listeners that follow) and a wrapper of
//    `window.postMessage`; both cost the same for every implementation.
//    With CHURN=1, three more columns say why the client's own segments are longer beside a
//    real server than beside the floor: the floor with about 25 µs of extra work in the
//    request's task, after its answer is posted, that touches neither memory nor code (a
//    spin on the clock), that touches memory (one element in every 512 bytes of a 1 MiB
//    array), or that runs code (300 distinct small functions). Its time shows in the answer's
//    transit; what it does to the caches shows in the client's segments.
// 2. The start of this polyfill by phase (median over ROUNDS loads), with the other two's total;
//    and ours again in a Chromium whose V8 compiles every wasm function before instantiating the
//    module (--no-wasm-lazy-compilation), which says what compiling each function on its first
//    call costs the part of the start after the instantiation.
// 3. The wasm functions V8 compiled on first call (Liftoff; V8 compiles a module's functions
//    lazily) during the start, the first requests, the page's registrations with an agent connected
//    (a thousand tools, a throwing one, a refused duplicate, schema and names, tools with
//    annotations, with a schema naming its dialect and with a Standard Schema, a schema of
//    fractional and exponent numbers, a schema whose text has JSON escapes, a schema the validator
//    module checks and one with every keyword the core checks, `isConnected()` and
//    `modelContextTesting.listTools()`, aborted registrations, `unregisterTool`, the tab server
//    transport class made, the other classes made while the deferred module is on its way), the
//    held messages' gate, a document whose configuration has mistakes (each warns), and frames
//    running the polyfill (one of this origin without an `allow` attribute, one of another with
//    `allow="tools"` exposing a tool to this one and one without, refused the feature: their start,
//    their embedder's policy, their registrations while this document's frame wire holds the
//    messages that carry tools, and one of them going away; one of this origin in a document of
//    another that does not run the polyfill, whose policy question goes unanswered; and a frame in
//    the document at the start), and in a second Chromium with the browser's own WebMCP the start
//    and registrations on both objects — the phases the core's first module keeps — then the frame
//    wire's messages that carry tools (each document hearing of the others' changes), the first
//    `tools/call`, an agent's calls one by one and at once (of a function, of an async function
//    and with an object's result), and the other calls (an agent's invalid arguments, a throwing
//    tool, an unknown tool, a validated one; the page's `getTools` and `executeTool`), which wait
//    for the deferred module in a page; with the largest. From Chromium's
//    --trace-wasm-compilation-times, in a Chromium started apart for it, on a copy of dist/ whose
//    core is whole and keeps its names (the build's
//    target/bindgen/release/modelcontext_glue_bg.named.wasm); the core's compiles only (the
//    validator module's are left out).
// 4. What the core's cut weighs: dist/'s two parts (the first module keeps what
//    polyfill/build/core-first.txt names, scripts/lib/core-split.mjs) beside the whole core cut
//    as `make build` does at the functions the phases above ran (those of the start and the
//    first requests, of the kept phases, of every phase), each compressed as `make size`
//    does (skipped, saying so, where binaryen's wasm-split is not installed).
//
//   node scripts/bench-breakdown.mjs        ROUNDS=3, CALLS=2000 (under a minute on 2 cores)
//   CHURN=1 node scripts/bench-breakdown.mjs  with the floor's three churn columns (1.)
//   node scripts/bench-breakdown.mjs --write-split-list   (`make split-list`) only the trace of 3.,
//                                           written as polyfill/build/core-first.txt: the names
//                                           of the functions the kept phases ran; and
//                                           polyfill/build/core-calls.txt: those the calls'
//                                           phases ran besides (scripts/lib/calls-cut.mjs)
//
// Needs dist/ (make build), node_modules (make deps) and Debian's Chromium. It measures; it does
// not judge: `make bench` is the comparison of record.

import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { REPO_ROOT, DIST_DIR, CORE_KEEP_LIST, CORE_CALLS_LIST } from './lib/project.mjs';
import { wasmSplitTool, splitCore } from './lib/core-split.mjs';
import { mapObjects, splitData } from './lib/data-split.mjs';
import { startStaticServer } from './lib/static-server.mjs';
import { median } from './lib/stats.mjs';
import { readModule, sections } from './lib/wasm-module.mjs';
import { compressed } from './lib/compressed.mjs';
import { benchPage, intEnv } from './lib/bench-page.mjs';
import { glueNamespace, renameModules } from './lib/glue-names.mjs';
import { launchChromium, spawnChromium, NATIVE_WEBMCP_ARGS } from '../tests/page/lib/chromium.mjs';

const ROUNDS = intEnv('ROUNDS', 3);
const CALLS = intEnv('CALLS', 2000);
const WARMUP = 2000;

const IMPLS = [
  { id: 'ours', label: 'modelcontext-polyfill', kind: 'esm', src: '/dist/modelcontext.js' },
  { id: 'mcpb', label: '@mcp-b/global', kind: 'classic', src: '/node_modules/@mcp-b/global/dist/index.iife.js' },
  { id: 'floor', label: 'client floor', kind: 'floor' },
];
// The floor with extra work in each request's task (CHURN=1; see 1. above).
const CHURNS = [
  { id: 'spin', label: 'floor + spin', kind: 'floor', churn: 'spin' },
  { id: 'memory', label: 'floor + memory', kind: 'floor', churn: 'memory' },
  { id: 'code', label: 'floor + code', kind: 'floor', churn: 'code' },
];
const SEGMENT_IMPLS = process.env.CHURN === '1' ? [...IMPLS, ...CHURNS] : IMPLS;
const implOf = (id) => SEGMENT_IMPLS.find((i) => i.id === id);

/** The core wasm whole, as `make build` optimizes it before cutting it in two; the same with its names. */
const WHOLE_CORE = path.join(REPO_ROOT, 'target/bindgen/release/modelcontext_glue_bg.opt.wasm');
const NAMED_CORE = path.join(REPO_ROOT, 'target/bindgen/release/modelcontext_glue_bg.named.wasm');
const WASM_OPT = path.join(REPO_ROOT, 'node_modules/.bin/wasm-opt');
/** The linker's map of the core's static data (`make build` writes it; scripts/lib/data-split.mjs). */
const CORE_MAP = path.join(REPO_ROOT, 'target/core-release.map');

const ISOLATED = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

/** Runs in the page: the start by phase, then the marked sequential calls. */
async function runInPage({ kind, src, calls, warmup, churn }) {
  const now = () => performance.now();
  if (!crossOriginIsolated) throw new Error('the page is not cross-origin isolated (5 µs timers)');
  const phases = {};
  const t0 = now();
  const mark = (k) => {
    if (!(k in phases)) phases[k] = now() - t0;
  };
  // The start's phases (ours: the core's compile and instantiation; any implementation's wasm).
  const W = WebAssembly;
  const { compileStreaming, instantiate } = W;
  W.compileStreaming = (...a) => compileStreaming.apply(W, a).then((m) => (mark('core wasm compiled'), m));
  W.instantiate = (...a) => instantiate.apply(W, a).then((r) => (mark('core wasm instantiated'), r));

  // The round trip's points: `cur` is the call being marked.
  let cur = null;
  window.addEventListener(
    'message',
    (ev) => {
      const d = ev.data;
      if (!cur || !d || d.type !== 'mcp') return;
      if (d.direction === 'client-to-server') cur.recv ??= now();
      else cur.back ??= now();
    },
    true,
  );
  const post = window.postMessage;
  window.postMessage = function (m, ...rest) {
    if (cur && m && m.direction === 'client-to-server') cur.send ??= now();
    if (cur && m && m.direction === 'server-to-client') cur.post ??= now();
    return post.call(this, m, ...rest);
  };
  const tool = (name) => ({
    name,
    description: `Echoes a (${name})`,
    inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
    execute: ({ a }) => {
      if (cur) cur.exec ??= now();
      return String(a);
    },
  });

  const loaded = await window.__benchLoad(kind, src); // scripts/lib/bench-page.mjs
  if (churn) {
    // Extra work in each tools/call request's task: this listener runs after the floor's, whose
    // answer is posted by then. The same length each way (about 25 µs on a 2-core machine).
    const memory = new Float64Array(1 << 17); // 1 MiB
    const code = Array.from({ length: 300 }, (_, i) => new Function('a', `let s = a; for (let j = 0; j < 3; j++) s = (s * ${i + 3} + j) % 1000003; return s + ${i};`));
    let round = 0;
    let sink = 0;
    window.addEventListener('message', (ev) => {
      const d = ev.data;
      if (!d || d.type !== 'mcp' || d.direction !== 'client-to-server' || d.payload?.method !== 'tools/call') return;
      if (churn === 'memory') for (let i = round++ & 63; i < memory.length; i += 64) sink += memory[i]++;
      else if (churn === 'code') for (let i = 0; i < code.length; i++) sink += code[i](i);
      else for (const t = now(); now() - t < 0.025; ) sink++;
      window.__churned = sink;
    });
  }
  if (kind === 'esm') {
    mark('front evaluated (import resolved)');
    // (The intrinsic then: `ready`'s own would ask for the deferred module at once, as a page
    // awaiting it does, and its compilation would then share the start's threads.)
    Promise.prototype.then.call(loaded.ready, () => mark('ready (both parts of the core there)'));
  } else if (kind === 'classic') {
    mark('script evaluated');
  }
  const mc = document.modelContext || navigator.modelContext;
  await mc.registerTool(tool('probe'));
  mark('first registerTool resolved');
  const client = new Bench.Client({ name: 'breakdown', version: '1.0.0' });
  await client.connect(new Bench.TabClientTransport({ targetOrigin: location.origin }));
  mark('client connected (initialize)');
  await client.listTools();
  mark('tools listed');
  for (let i = 0; i < 9; i++) await mc.registerTool(tool(`tool_${i}`));

  const call = async (i) => {
    const r = await client.callTool({ name: `tool_${i % 9}`, arguments: { a: i } });
    if (r.content?.[0]?.text !== String(i)) throw new Error(`call ${i}: ${JSON.stringify(r).slice(0, 200)}`);
  };
  for (let i = 0; i < warmup; i++) await call(i);
  const sums = {};
  const points = ['t0', 'send', 'recv', 'exec', 'post', 'back', 't1'];
  for (let i = 0; i < calls; i++) {
    cur = { t0: now() };
    await call(i);
    cur.t1 = now();
    for (let p = 1; p < points.length; p++) {
      const k = `${points[p - 1]}→${points[p]}`;
      const v = cur[points[p]] - cur[points[p - 1]];
      if (!Number.isFinite(v)) throw new Error(`call ${i}: no ${points[p]} mark`);
      sums[k] = (sums[k] ?? 0) + v;
    }
    cur = null;
  }
  const segments = Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, (v * 1000) / calls]));
  return { phases, segments };
}

const SEGMENTS = [
  ['t0→send', 'client: callTool() → postMessage'],
  ['send→recv', 'request: postMessage → first listener'],
  ['recv→exec', 'server: listener → the tool\'s execute'],
  ['exec→post', 'server: execute returned → answer posted'],
  ['post→back', 'answer: postMessage → first listener'],
  ['back→t1', 'client: listener → callTool() resolved'],
];

function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Each of `ids` (all by default) ROUNDS times, alternating, in a Chromium started with `args`. */
async function measure(server, { ids = ['ours', 'mcpb', 'floor'], args = [] } = {}) {
  const browser = await launchChromium({ args });
  const results = Object.fromEntries(ids.map((id) => [id, []]));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...ids.slice(1, 2), ids[0], ...ids.slice(2)] : ids;
      for (const id of order) {
        const impl = implOf(id);
        const context = await browser.newContext();
        try {
          const page = await context.newPage();
          const errors = [];
          page.on('pageerror', (e) => errors.push(e.message));
          await page.goto(server.url(`/__breakdown/${id}.html`));
          await page.waitForFunction(() => window.Bench, null, { timeout: 60_000 });
          results[id].push(await page.evaluate(runInPage, { kind: impl.kind, src: impl.src, calls: CALLS, warmup: WARMUP, churn: impl.churn }));
          if (errors.length) throw new Error(`${impl.label}: ${errors[0]}`);
          process.stderr.write(`  round ${round + 1}/${ROUNDS} ${impl.label}\n`);
        } finally {
          await context.close().catch(() => {});
        }
      }
    }
    return { results, chromium: browser.version() };
  } finally {
    await browser.close().catch(() => {});
  }
}

// ---- the lazy compilation trace ---------------------------------------------------------------

const sum = (xs) => [...xs].reduce((a, x) => a + x, 0);

/**
 * dist/ with its core whole and named: the build's copy that keeps the names, whose standard
 * sections (the code, the imports, the function indices the names refer to) are byte for byte
 * those of the whole core that dist/ cuts in two. The compile trace then numbers and names the
 * functions of the whole core, whichever part of it dist/ puts them in.
 */
function namedDist() {
  for (const f of [WHOLE_CORE, NAMED_CORE]) {
    if (!fs.existsSync(f)) throw new Error(`${path.relative(REPO_ROOT, f)} missing: run make build`);
  }
  const named = fs.readFileSync(NAMED_CORE);
  const standard = (bytes) => sections(bytes).filter((s) => s.id !== 0);
  const a = standard(named);
  const b = standard(fs.readFileSync(WHOLE_CORE));
  const same = a.length === b.length && a.every((s, i) => s.id === b[i].id && Buffer.compare(s.body, b[i].body) === 0);
  if (!same) throw new Error(`${path.relative(REPO_ROOT, NAMED_CORE)} is not the whole core with names: run make build`);
  const dir = path.join(REPO_ROOT, 'target/bench-breakdown/dist');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(DIST_DIR, dir, { recursive: true });
  // (dist/'s glue and the core give each other their functions under short names: the named
  // core goes by them too.)
  fs.writeFileSync(path.join(dir, 'modelcontext_glue_bg.wasm'), withDistNames(named)[0]);
  fs.rmSync(path.join(dir, 'modelcontext_deferred.wasm'), { force: true });
  return { dir, names: readModule(named).names };
}

/**
 * The whole core `whole`, and with `split` its first and deferred module, with the names the
 * glue and the core give each other renamed as `make build` renames dist/'s
 * (scripts/lib/glue-names.mjs): `[whole]` or `[whole, first, deferred]`.
 */
function withDistNames(whole, split = null) {
  return renameModules(whole, glueNamespace('modelcontext_glue'), split).modules;
}

/** Chromium started apart (with `args`), with V8's compile trace on its stdout; connected over CDP. */
async function tracingChromium(args = []) {
  const { child: proc, exited, dir: userDir, stop } = spawnChromium(
    [...args, '--remote-debugging-port=0', '--js-flags=--trace-wasm-compilation-times', 'about:blank'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines = [];
  let partial = '';
  proc.stdout.on('data', (chunk) => {
    const text = partial + chunk.toString();
    const parts = text.split('\n');
    partial = parts.pop();
    for (const l of parts) if (l.includes('Compiled function')) lines.push(l);
  });
  let browser;
  const close = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      // Asked over CDP, Chromium shuts its helper processes down before it exits; killing its
      // process group (stop) is the fallback.
      const asked = browser
        ? browser.newBrowserCDPSession().then((cdp) => cdp.send('Browser.close')).catch(() => false)
        : Promise.resolve(false);
      let timer;
      const waited = (await asked) === false ? 0 : 10_000;
      await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, waited)))]);
      clearTimeout(timer);
    }
    await browser?.close().catch(() => {});
    try {
      await stop();
    } catch (e) {
      process.stderr.write(`bench-breakdown: warning: ${userDir} is left behind: ${e.message}\n`);
    }
  };
  try {
    const ws = await new Promise((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`Chromium did not start: ${err.slice(-500)}`)), 30_000);
      proc.stderr.on('data', (chunk) => {
        err += chunk.toString();
        const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      proc.on('exit', (code) => reject(new Error(`Chromium exited (${code}): ${err.slice(-500)}`)));
    });
    browser = await chromium.connectOverCDP(ws);
  } catch (e) {
    await close();
    throw e;
  }
  return { browser, lines, close };
}

/**
 * The core's compiles of each phase (`{ name, keep, compiles }`, parsed), over two Chromiums: one
 * as most browsers are, one with the browser's own WebMCP.
 */
async function traceCompiles(server, distUrl) {
  // The frame of another origin (the frames phase): the same files from a second server (another
  // port: the same site, so the same renderer, whose trace this reads); the page is cross-origin
  // isolated, so the frame says it may be embedded (CORP) and is isolated too.
  const other = await startStaticServer({ root: REPO_ROOT, port: 0 });
  other.route('/__breakdown/frame.html', {
    headers: { ...ISOLATED, 'Cross-Origin-Resource-Policy': 'cross-origin' },
    body: `<!doctype html><meta charset="utf-8"><script type="module">
      const m = await import('${distUrl}/modelcontext.js');
      await m.ready;
      const embedder = new URL(location.href).searchParams.get('origin');
      // Its frame wire holds the messages that carry tools too, until the embedder says.
      const glue = await import('${distUrl}/modelcontext_glue.js');
      glue.holdForDeferred();
      addEventListener('message', (e) => {
        if (e.data === 'breakdown: deliver') while (glue.deliverHeld());
      });
      // (Refused where the frame element does not grant the feature.)
      const outcome = await document.modelContext.registerTool({ name: 'exposed', description: 'Of another origin', execute: () => 'x' }, { exposedTo: [embedder] })
        .then(() => 'registered', (e) => e.name);
      parent.postMessage(\`breakdown: frame \${outcome}\`, embedder);
    </script>`,
  });
  // A frame of this origin in a document of the other that does not run the polyfill (a widget
  // on a page that does not): its question for its policy goes unanswered, and its wait ends.
  other.route('/__breakdown/plain.html', {
    headers: { ...ISOLATED, 'Cross-Origin-Resource-Policy': 'cross-origin' },
    body: `<!doctype html><meta charset="utf-8"><iframe allow="tools" src="${server.url('/__breakdown/widget.html')}"></iframe>`,
  });
  server.route('/__breakdown/widget.html', {
    headers: { ...ISOLATED, 'Cross-Origin-Resource-Policy': 'cross-origin' },
    body: `<!doctype html><meta charset="utf-8"><script type="module">
      const m = await import('${distUrl}/modelcontext.js');
      await m.ready;
      await document.modelContext.registerTool({ name: 'widget', description: 'In a frame of a page without the polyfill', execute: () => 'w' });
      top.postMessage('breakdown: widget registered', '*');
    </script>`,
  });
  try {
    const phases = await traceSession(server, [], async (step) => {
      await step('start: import → ready → first registerTool', true, async (src) => {
        // (A frame in the document at the start: the frame wire greets it.)
        document.body.append(document.createElement('iframe'));
        // The configuration a page writes: the server's name and the rest of `serverInfo`, the
        // engine's `limits`, the tab transport's options (each object parsed at the start, a
        // rate limit taken per message), with values that serve the phases below as the
        // defaults would (the engine's size limit; a rate no phase reaches).
        window.modelContextPolyfillConfig = {
          serverInfo: {
            name: 'breakdown', version: '1.0.0', title: 'Breakdown', description: 'The trace page',
            websiteUrl: location.origin, icons: [{ src: `${location.origin}/icon.png` }], instructions: 'None',
          },
          limits: { maxMessageBytes: 4 * 1024 * 1024 },
          tab: {
            channelId: 'mcp-default', allowedOrigins: [location.origin], onOriginViolation: () => {},
            maxMessageBytes: 4 * 1024 * 1024, rateLimit: { messages: 1e6, perMs: 1000 }, persist: false,
          },
        };
        const m = await import(src);
        await m.ready;
        await document.modelContext.registerTool({
          name: 'probe',
          // (Text that JSON escapes, as real descriptions have: the escapes are kept too.)
          description: 'Echoes "a" \\ its number — as text,\n\tunchanged \u0001',
          inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
          execute: ({ a }) => String(a),
        });
      }, `${distUrl}/modelcontext.js`);
      await step('first requests: connect (initialize) + tools/list', true, async () => {
        // Over the tab wire as such, first: an agent's listing before its initialize (refused),
        // and a 2026-07-28 agent's (stateless: the version in `_meta`, no initialize).
        if (!(await __tabAsk('tools/list')).error) throw new Error('a listing before initialize was answered');
        const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
        if (!(await __tabAsk('tools/list', { _meta: meta })).result) throw new Error('the stateless listing failed');
        window.client = new Bench.Client({ name: 'breakdown', version: '1.0.0' });
        await client.connect(new Bench.TabClientTransport({ targetOrigin: location.origin }));
        await client.listTools();
      });
      await step("the page's registrations and synchronous reads, an agent connected; messages held", true, async (dist) => {
        const mc = document.modelContext;
        const schema = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] };
        const echo = ({ a }) => String(a);
        for (let i = 0; i < 1000; i++) await mc.registerTool({ name: `tool_${i}`, description: `Echoes a (${i})`, inputSchema: schema, execute: echo });
        await mc.registerTool({ name: 'thrower', description: 'Throws', execute: () => { throw new Error('boom'); } });
        // (An async function's and an object's answers take paths of their own.)
        await mc.registerTool({ name: 'later', description: 'Echoes a, later', inputSchema: schema, execute: async ({ a }) => String(a) });
        await mc.registerTool({ name: 'record', description: 'Returns a', inputSchema: schema, execute: ({ a }) => ({ a }) });
        // (So do a tool's own CallToolResult, other values and none, and a result checked by an
        // outputSchema: scripts/lib/bench-page.mjs, resultShapes.)
        await mc.registerTool({ name: 'shaped', description: 'Returns the shape k names', inputSchema: { type: 'object', properties: { k: { type: 'string' } } }, execute: ({ k }) => __resultShapes()[k] });
        await mc.registerTool({ name: 'checked', description: 'Returns a, checked', inputSchema: schema, outputSchema: schema, execute: ({ a }) => ({ a: a < 0 ? 'negative' : a }) });
        await mc.registerTool({ name: 'probe', description: 'Again', execute: echo }).then(
          () => { throw new Error('a second tool of the same name was registered'); },
          () => {},
        );
        await mc.registerTool({ name: 'bad', description: 'Bad schema', inputSchema: 'x', execute: echo }).then(() => {}, () => {});
        // Names refused: a character not allowed, too long, empty; and an `exposedTo` origin
        // that is not potentially trustworthy.
        for (const name of ['a b!', 'ü', 'x'.repeat(200), '']) {
          await mc.registerTool({ name, description: 'Bad name', execute: echo }).then(
            () => { throw new Error(`the tool name ${JSON.stringify(name)} was accepted`); },
            () => {},
          );
        }
        await mc.registerTool({ name: 'exposed', description: 'Exposed', execute: echo }, { exposedTo: ['http://example.com'] }).then(
          () => { throw new Error('an exposedTo origin of http was accepted'); },
          () => {},
        );
        // A schema the core does not check itself (a pattern naming a Unicode property): the
        // validator module loads.
        const word = { type: 'object', properties: { w: { type: 'string', pattern: '^\\p{Ll}+$' } }, required: ['w'] };
        await mc.registerTool({ name: 'word', description: 'Echoes a lowercase word', inputSchema: word, execute: ({ w }) => w });
        // Patterns the core checks: as zod writes a uuid and a date-time, and with classes.
        await mc.registerTool({
          name: 'keyed', description: 'Takes an id',
          inputSchema: {
            type: 'object', required: ['id'],
            properties: {
              id: { type: 'string', format: 'uuid', pattern: '^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$' },
              at: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?Z$' },
              tag: { type: 'string', pattern: '^[\\w.-]+$|^\\S*\\s\\S*$' },
            },
          },
          execute: echo,
        });
        // Shapes most pages' tools have: annotations (each hint, a title), and a schema that
        // names its dialect (zod's JSON Schema output: draft-07, `additionalProperties: false`;
        // and 2020-12).
        await mc.registerTool({
          name: 'annotated', title: 'Annotated', description: 'Reads',
          annotations: { title: 'Annotated', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false, untrustedContentHint: false },
          inputSchema: {
            $schema: 'http://json-schema.org/draft-07/schema#', type: 'object',
            properties: { q: { type: 'string', description: 'Query' }, n: { anyOf: [{ type: 'number' }, { type: 'null' }] } },
            required: ['q'], additionalProperties: false,
          },
          execute: echo,
        });
        // A Standard Schema (zod 4.2+, as MCP's TypeScript SDK takes them): one of the
        // library's, its JSON Schema given by the library (polyfill/src/standard_schema.js).
        const standard = (json) => ({ '~standard': { version: 1, vendor: 'breakdown', validate: (value) => ({ value }), jsonSchema: { input: () => json, output: () => json } } });
        await mc.registerTool({
          name: 'standard', description: 'Given a Standard Schema',
          inputSchema: standard({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false }),
          outputSchema: standard({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { r: { type: 'string' } } }),
          execute: echo,
        });
        // Numbers in a schema that the core reads as floats: fractions (a price's bounds and
        // step) and exponents, small, large and negative.
        await mc.registerTool({
          name: 'priced', description: 'Takes a price',
          inputSchema: {
            type: 'object', required: ['price'],
            properties: { price: { type: 'number', minimum: 0.01, maximum: 9999.99, multipleOf: 0.01 }, ratio: { type: 'number', exclusiveMinimum: -2.5e21, exclusiveMaximum: 1.5e-7 } },
          },
          execute: echo,
        });
        // A schema whose text has JSON escapes (JSON.stringify escapes quotes, backslashes and
        // control characters): a description with quotes and line breaks, a pattern's
        // backslashes (the core checks it).
        await mc.registerTool({
          name: 'escaped', description: 'Takes a "phone" number',
          inputSchema: { type: 'object', properties: { phone: { type: 'string', description: 'A "phone" number,\n\tdigits \\ dashes\u0007', pattern: '^\\d{3}-\\d{4}$' } } },
          execute: echo,
        });
        await mc.registerTool({
          name: 'dialect', description: 'Says its dialect',
          inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { a: { type: 'number' } } },
          execute: echo,
        });
        // (Its load and the schema's compilation, once the module has arrived: the phase's quiet
        // wait follows.)
        while (!performance.getEntriesByType('resource').some((r) => /modelcontext_validator\.wasm$/.test(r.name))) {
          await new Promise((r) => setTimeout(r, 20));
        }
        // The synchronous reads a page or an agent makes: isConnected(), modelContextTesting.
        if (!mc.isConnected() || !navigator.modelContextTesting.listTools().length) throw new Error('not serving');
        // The server transport class a page may make for connect({ transport }) (which waits for
        // the deferred module) before that module has arrived: the tab's (the classes are there
        // once the core has started).
        const { TabServerTransport } = globalThis[Symbol.for('modelcontext-polyfill')].transports;
        const made = new TabServerTransport({ channelId: 'elsewhere', allowedOrigins: [location.origin] });
        if (made.type !== 'tab' || !made.options || made.isConnected) throw new Error('a tab transport made wrongly');
        // The other classes, made while the deferred module is on its way (the gate closed as
        // a core cut in two has it then: see below), read their options in their constructors:
        // what a page runs then, reads and closes.
        const glue = await import(`${dist}/modelcontext_glue.js`);
        glue.holdForDeferred();
        const T = globalThis[Symbol.for('modelcontext-polyfill')].transports;
        const port = { postMessage() {}, onMessage: { addListener() {}, removeListener() {} }, onDisconnect: { addListener() {}, removeListener() {} } };
        const others = [
          new T.PostMessageServerTransport(new MessageChannel().port1, { messageType: 'breakdown' }),
          new T.PostMessageServerTransport({ target: window, origin: location.origin }),
          new T.BroadcastChannelServerTransport({ channelName: 'breakdown' }),
          new T.IframeChildServerTransport({ parentOrigin: location.origin }),
          new T.IframeParentServerTransport({ iframe: document.querySelector('iframe'), targetOrigin: location.origin }),
          new T.EventServerTransport(),
          new T.ExtensionServerTransport(port, {}),
        ];
        for (const t of others) {
          if (!t.type || t.isConnected) throw new Error(`a ${t.type} transport made wrongly`);
          // What a page reads of them then: the effective options, the generated instance id
          // a page tells its peers, the built-in emitter it dispatches on.
          if (t.options.type !== t.type) throw new Error(`a ${t.type} transport's options wrong`);
          if (t.type === 'broadcastChannel' && !(t.instanceId && t.channelName)) throw new Error('no instance id');
          if (t.type === 'event' && !t.emitter) throw new Error('no emitter');
          t.close();
        }
        // A wrong option then: its TypeError from the constructor.
        try {
          new T.BroadcastChannelServerTransport({ channelName: '' });
          throw new Error('a wrong option was taken');
        } catch (e) {
          if (!(e instanceof TypeError)) throw e;
        }
        while (glue.deliverHeld());
        const aborted = new AbortController();
        await mc.registerTool({ name: 'scoped', description: 'Scoped', execute: echo }, { signal: aborted.signal });
        aborted.abort();
        mc.unregisterTool('tool_1');
        // A schema with every keyword the core checks itself, compiled at registration, and its
        // tool unregistered both ways (its schema dropped with it: the 1,000 above share one).
        const rich = {
          type: 'object',
          description: 'Every plain keyword',
          properties: {
            s: { type: 'string', minLength: 1, maxLength: 80, format: 'email', default: 'a@b.c', examples: ['x@y.z'] },
            i: { type: 'integer', minimum: 0, maximum: 10, exclusiveMaximum: 11, multipleOf: 2 },
            n: { type: ['number', 'null'], exclusiveMinimum: 0 },
            b: { type: 'boolean', const: true },
            e: { enum: ['x', 'y', 1, null] },
            a: { type: 'array', items: { type: 'string' }, minItems: 0, maxItems: 3, uniqueItems: true },
            o: { type: 'object', properties: { p: { $ref: '#/$defs/day' } }, additionalProperties: false, minProperties: 0, maxProperties: 2 },
            u: { anyOf: [{ type: 'string' }, { type: 'number' }] },
            x: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
            y: { allOf: [{ type: 'object' }], not: { type: 'null' } },
            c: { if: { type: 'string' }, then: { minLength: 1 }, else: { type: 'number' } },
          },
          required: ['s'],
          $defs: { day: { type: 'string', enum: ['mon', 'tue'] } },
        };
        const richScope = new AbortController();
        await mc.registerTool({ name: 'rich', description: 'Rich', inputSchema: rich, execute: echo }, { signal: richScope.signal });
        richScope.abort();
        await mc.registerTool({ name: 'rich', description: 'Rich', inputSchema: structuredClone(rich), execute: echo });
        mc.unregisterTool('rich');
        await client.listTools();
        // The gate a core cut in two closes while its deferred module is on its way
        // (src/transport/held.rs; this core is whole, so its loader leaves it open): an agent's
        // requests held, refused once the module could not be had (discovery still served), and
        // held again, then delivered as when it has arrived.
        const pause = () => new Promise((r) => setTimeout(r, 50));
        const refused = (p) => p.then(() => false, () => true);
        glue.holdForDeferred();
        const held = refused(client.callTool({ name: 'probe', arguments: { a: 1 } }));
        await pause();
        glue.deferredFailed('the deferred module could not be had: "HTTP 404" \\ — a trace\n');
        if (!(await held) || !(await refused(client.callTool({ name: 'probe', arguments: { a: 1 } })))) throw new Error('a tools/call was not refused');
        await client.listTools();
        glue.holdForDeferred();
        await client.transport.send({ jsonrpc: '2.0', id: 'unasked', result: {} });
        const pinged = client.ping();
        await pause();
        // (The call module's arrival: what is held first, a response, waits for the rest.)
        glue.openToCalls(true);
        if (glue.deliverHeldCall()) throw new Error('a response was delivered with the call module alone');
        glue.openToCalls(false);
        while (glue.deliverHeld());
        await pinged;
      }, distUrl);
      // A document whose configuration has mistakes (a frame of this origin): each warns, and the
      // defaults serve in its place.
      await step('a document whose configuration has mistakes: serverInfo, limits, the tab transport\'s options', true, async (dist) => {
        const f = document.createElement('iframe');
        f.srcdoc = `<script>window.modelContextPolyfillConfig = {
            serverInfo: { name: 'mistaken', version: 2, icons: 'icon.png' }, limits: { maxMessageBytes: -1 },
            tab: { allowedOrigins: ['not an origin'] } };</script>
          <script type="module">
            const m = await import('${dist}/modelcontext.js');
            await m.ready;
            await document.modelContext.registerTool({ name: 'mistaken', description: 'Configured wrongly', execute: () => 'm' });
            window.registered = true;
          </script>`;
        document.body.append(f);
        while (!f.contentWindow.registered) await new Promise((r) => setTimeout(r, 20));
        f.remove();
      }, distUrl);
      // A frame of this origin and one of another (the second server): each starts, finds its
      // embedder (the other origin's asks this document for its `tools` policy over the frame
      // wire: answered at once, a frame's start) and registers a tool (the other origin's exposed
      // to this one); and a frame of this origin in a document of the other without the
      // polyfill (its question unanswered, its wait ends). This document's frame wire holds the
      // messages that carry tools meanwhile, as a core cut in two does while its deferred module
      // is on its way (src/browser/frames/wire.rs): what handles them runs in the next phase,
      // once delivered; when the module could not be had, a notice held is dropped and a
      // listing answered with no tools.
      await step("frames running the polyfill, of this origin and another: their start (their policy asked of this document and answered) and registrations, the frame wire's messages that carry tools held (a listing answered with none when the deferred module could not be had)", true, async ([dist, otherFrame, plain]) => {
        const glue = (window.glue = await import(`${dist}/modelcontext_glue.js`));
        // (A notice from a frame that does not run the polyfill: the page's own script in it.)
        const blank = document.createElement('iframe');
        document.body.append(blank);
        glue.holdForDeferred();
        blank.contentWindow.eval("parent.postMessage({ modelcontextPolyfillFrames: 'changed' }, '*')");
        blank.contentWindow.eval("parent.postMessage({ modelcontextPolyfillFrames: 'list', id: 1 }, '*')");
        await new Promise((r) => setTimeout(r, 50));
        glue.deferredFailed('the deferred module could not be had: "HTTP 404" — a trace');
        glue.holdForDeferred();
        // (Those of another origin with allow="tools" but one, which is refused the feature; the one
        // of this origin without an allow attribute.)
        const frame = (src, srcdoc, allow = 'tools') => {
          const f = document.createElement('iframe');
          if (srcdoc) f.srcdoc = srcdoc;
          else {
            if (allow) f.allow = allow;
            f.src = src;
          }
          document.body.append(f);
          return f;
        };
        const heard = (what) => new Promise((resolve) => addEventListener('message', (e) => e.data === what && resolve()));
        const registered = heard('breakdown: frame registered');
        frame(`${otherFrame}?origin=${encodeURIComponent(location.origin)}`);
        await registered;
        const refused = heard('breakdown: frame NotAllowedError');
        const refusedFrame = frame(`${otherFrame}?origin=${encodeURIComponent(location.origin)}`, null, null);
        await refused;
        const widget = heard('breakdown: widget registered');
        frame(plain);
        await widget;
        const same = frame(null, `<script type="module">
          const m = await import('${dist}/modelcontext.js');
          await m.ready;
          await document.modelContext.registerTool({ name: 'inner', description: 'In the frame', execute: () => 'i' });
          window.registered = true;
        </script>`);
        while (!same.contentWindow.registered) await new Promise((r) => setTimeout(r, 20));
        const mc = document.modelContext;
        // (Exposed to the frames of the other origin, as a page that embeds a widget may.)
        await mc.registerTool({ name: 'outer', description: 'Beside the frames', execute: () => 'o' }, { exposedTo: [new URL(otherFrame).origin] });
        // (A change the frames do not hear of: the names exposed to them compared, unchanged.)
        await mc.registerTool({ name: 'beside', description: 'Not exposed', execute: () => 'b' });
        mc.unregisterTool('beside');
        mc.unregisterTool('outer');
        // A frame goes away: this document hears `gone` (at once, as the policy exchange).
        refusedFrame.remove();
        // (What hears of a change or of a frame gone runs in a task of its own.)
        await new Promise((r) => setTimeout(r, 100));
      }, [distUrl, other.url('/__breakdown/frame.html'), other.url('/__breakdown/plain.html')]);
      await step("the frame wire's messages that carry tools, delivered: each document hearing of the others' changes", 'calls', async () => {
        while (window.glue.deliverHeld());
        for (const f of document.querySelectorAll('iframe')) f.contentWindow.postMessage('breakdown: deliver', '*');
        // (The other documents' toolchange runs in a task of their own.)
        await new Promise((r) => setTimeout(r, 100));
      });
      await step('the first tools/call', 'calls', async () => {
        await client.callTool({ name: 'probe', arguments: { a: 1 } });
      });
      await step("an agent's calls, one by one and at once, of a function, of an async function, with an object's result, a CallToolResult, other values and none, checked by an outputSchema", 'calls', async () => {
        for (let i = 0; i < 50; i++) await client.callTool({ name: `tool_${i + 2}`, arguments: { a: i } });
        await Promise.all(Array.from({ length: 200 }, (_, i) => client.callTool({ name: 'probe', arguments: { a: i } })));
        for (let i = 0; i < 20; i++) {
          const [later, record] = [await client.callTool({ name: 'later', arguments: { a: i } }), await client.callTool({ name: 'record', arguments: { a: i } })];
          if (later.content?.[0]?.text !== String(i) || record.structuredContent?.a !== i) throw new Error('an async or object result was not answered');
        }
        await Promise.all(Array.from({ length: 50 }, (_, i) => client.callTool({ name: 'later', arguments: { a: i } })));
        for (const k of Object.keys(__resultShapes())) {
          const r = await client.callTool({ name: 'shaped', arguments: { k } });
          if (!Array.isArray(r.content) || r.isError !== (k === 'error' || undefined)) throw new Error(`the ${k} result was not answered`);
        }
        const checked = [await client.callTool({ name: 'checked', arguments: { a: 1 } }), await client.callTool({ name: 'checked', arguments: { a: -1 } })];
        if (checked[0].structuredContent?.a !== 1 || !checked[1].isError) throw new Error('a result was not checked by its outputSchema');
      });
      await step("calls: an agent's refused, throwing, unknown and validated ones", 'calls', async () => {
        const refused = await client.callTool({ name: 'probe', arguments: { a: 'x' } });
        const thrown = await client.callTool({ name: 'thrower', arguments: {} });
        if (!refused.isError || !thrown.isError) throw new Error('an invalid or throwing call was not an error');
        await client.callTool({ name: 'unknown', arguments: {} }).then(
          (r) => {
            if (!r.isError) throw new Error('an unknown tool was called');
          },
          () => {},
        );
        const words = [await client.callTool({ name: 'word', arguments: { w: 'ok' } }), await client.callTool({ name: 'word', arguments: { w: 'No!' } })];
        if (words[0].isError || !words[1].isError) throw new Error('the validator did not check the pattern');
        const keyed = [
          await client.callTool({ name: 'keyed', arguments: { id: '123e4567-e89b-12d3-a456-426614174000', at: '2026-12-01T10:00Z', tag: 'a.b' } }),
          await client.callTool({ name: 'keyed', arguments: { id: 'x' } }),
        ];
        if (keyed[0].isError || !keyed[1].isError) throw new Error('the core did not check the patterns');
      });
      // (Not the call module's: the page's own calls wait for the deferred module, whose code
      // runs them; src/transport/held.rs closes the calls to agents meanwhile.)
      await step("the page's calls: modelContextTesting.executeTool, getTools, executeTool", false, async () => {
        const mc = document.modelContext;
        await navigator.modelContextTesting.executeTool('probe', '{"a":1}');
        const [probe] = (await mc.getTools()).filter((t) => t.name === 'probe');
        for (let i = 0; i < 20; i++) await mc.executeTool(probe, { a: i });
        await mc.executeTool(probe, { a: 'x' }).then(
          () => {
            throw new Error('executeTool took invalid arguments');
          },
          () => {},
        );
      });
    });
    // The browser's own WebMCP beside the polyfill (src/browser/native.rs), in a Chromium of its
    // own: the page's registrations are mirrored on the browser's object and its tools served.
    phases.push(...(await traceSession(server, NATIVE_WEBMCP_ARGS, async (step) => {
      await step("with the browser's own WebMCP (--enable-features=WebMCP): the start, registrations on both objects (mirrored both ways), an agent's discovery", true, async (src) => {
        const m = await import(src);
        await m.ready;
        const schema = { type: 'object', properties: { a: { type: 'number' } } };
        const echo = ({ a }) => String(a);
        if (document.modelContext === navigator.modelContext) throw new Error('the browser has no WebMCP of its own');
        await navigator.modelContext.registerTool({ name: 'mine', description: 'Echoes "a"', inputSchema: schema, execute: echo });
        const scoped = new AbortController();
        await navigator.modelContext.registerTool({ name: 'scoped', description: 'Scoped', execute: echo }, { signal: scoped.signal });
        scoped.abort();
        await document.modelContext.registerTool({ name: 'native', description: 'The browser\'s', inputSchema: schema, execute: echo });
        window.client = new Bench.Client({ name: 'breakdown', version: '1.0.0' });
        await client.connect(new Bench.TabClientTransport({ targetOrigin: location.origin }));
        while (!(await client.listTools()).tools.some((t) => t.name === 'native')) await new Promise((r) => setTimeout(r, 20));
      }, `${distUrl}/modelcontext.js`);
    })));
    return phases;
  } finally {
    await other.close();
  }
}

/**
 * One Chromium's share of the trace (`args`: its flags): the breakdown page, then `run(step)`,
 * whose `step(name, keep, fn, arg)` evaluates `fn(arg)` in the page and takes the core's compiles
 * until the trace has been quiet for a moment (`keep`: true, the first module keeps what the phase
 * ran, --write-split-list; 'calls', the call module has what it ran and the first does not; the
 * others are measured beside it, and wait for the deferred module in a
 * page: src/transport/held.rs, polyfill/src/model_context.js). Returns the phases, parsed.
 */
async function traceSession(server, args, run) {
  const t = await tracingChromium(args);
  const quiet = async () => {
    let n = -1;
    while (n !== t.lines.length) {
      n = t.lines.length;
      await new Promise((r) => setTimeout(r, 300));
    }
    return n;
  };
  const phases = [];
  try {
    const context = t.browser.contexts()[0] ?? (await t.browser.newContext());
    const page = await context.newPage();
    await page.goto(server.url('/__breakdown/ours.html'));
    await page.waitForFunction(() => window.Bench, null, { timeout: 60_000 });
    let from = await quiet();
    await run(async (name, keep, fn, arg) => {
      await page.evaluate(fn, arg);
      const to = await quiet();
      phases.push({ name, keep, lines: t.lines.slice(from, to) });
      from = to;
    });
  } finally {
    await t.close();
  }
  // Each line parsed once; only the core's compiles: the first module compiled is the core (V8's
  // address of it, this Chromium's); the validator module compiles its own functions when a
  // schema needs it.
  const parsed = phases.map((p) => p.lines.map(parseCompile).filter(Boolean));
  const core = parsed.flat()[0]?.module;
  return phases.map((p, i) => ({ name: p.name, keep: p.keep, compiles: parsed[i].filter((c) => c.module === core) }));
}

/** A trace line: the module (V8's address of it), the function's index, the tier, µs, body bytes. */
function parseCompile(line) {
  const m = /function (\S*)#(\d+) using (\w+), took (\d+) μs.*bodysize (\d+)/.exec(line);
  return m && { module: m[1], index: Number(m[2]), tier: m[3], us: Number(m[4]), body: Number(m[5]) };
}

// ---- a split core's weight ---------------------------------------------------------------------

/**
 * The weight of the whole core cut at each of `sets` ([name, function indices, imports first,
 * as V8's trace numbers them]), beside the cut dist/ ships and the whole.
 */
async function printSplit(imported, sets) {
  const tool = wasmSplitTool();
  if (!tool) {
    console.log("\n(other cuts of the core are not weighed: binaryen's wasm-split is not installed; `make deps`)");
    return;
  }
  const b = (s) => `${s.gzip.toLocaleString('en')} (${s.brotli.toLocaleString('en')})`;
  const both = (x, y) => b({ gzip: x.gzip + y.gzip, brotli: x.brotli + y.brotli });
  const whole = fs.readFileSync(WHOLE_CORE);
  const objects = fs.existsSync(CORE_MAP) ? mapObjects(fs.readFileSync(CORE_MAP, 'utf8')) : null;
  console.log(`\nThe core wasm cut in two by ${tool.version}: bytes gzip (brotli)${objects ? '' : `; its static data not cut (no ${path.relative(REPO_ROOT, CORE_MAP)}: make build)`}\n`);
  const rows = [];
  for (const [name, keep] of sets) {
    let parts = await splitCore(tool, whole, [...keep].filter((i) => i >= imported).map((i) => i - imported), WASM_OPT);
    // (The static data goes with the code that reaches it, as `make build` cuts it.)
    if (objects) parts = splitData(parts.first, parts.deferred, objects);
    const [, first, deferred] = withDistNames(whole, parts).map(compressed);
    rows.push([`the functions of ${name}`, keep.size, b(first), b(deferred), both(first, deferred)]);
  }
  // (dist/'s deferred part is two modules: the call module and the rest, counted together.)
  const shipped = ['modelcontext_glue_bg.wasm', 'modelcontext_calls.wasm', 'modelcontext_deferred.wasm'].map((f) => path.join(DIST_DIR, f));
  if (shipped.every((f) => fs.existsSync(f))) {
    const [first, calls, rest] = shipped.map((f) => compressed(fs.readFileSync(f)));
    const deferred = { gzip: calls.gzip + rest.gzip, brotli: calls.brotli + rest.brotli };
    // (Its function count is the first module's: the kept functions and wasm-split's
    // trampolines for exports moved to the deferred module.)
    const defined = readModule(fs.readFileSync(shipped[0])).bodies.length;
    rows.unshift([`dist/'s (${path.relative(REPO_ROOT, CORE_KEEP_LIST)}; the call and deferred modules together)`, `${defined} defined`, b(first), b(deferred), both(first, deferred)]);
  }
  console.log(table(['first module', 'functions', 'first module', 'deferred module', 'both'], rows));
  console.log(`\nthe whole core wasm: ${b(compressed(withDistNames(whole)[0]))}`);
}

// ---- the core's keep list ----------------------------------------------------------------------

// What a core cut in two runs only once its deferred module has arrived, though the whole core
// the trace runs does it at the start: the declarative forms' start (polyfill/src/install.js),
// and the mirror of the page's tools on the browser's own WebMCP and the reading of its tools
// (src/browser/native.rs, through held::after_deferred).
const AFTER_ARRIVAL = [
  /^modelcontext_polyfill::browser::forms::/,
  /^engine_startForms\b/,
  /^modelcontext_polyfill::browser::native::NativeBridge::(queue_mirror|read_native)::\{\{closure\}\}/,
  /^modelcontext_polyfill::browser::native::NativeBridge::(read_now|mirror|register_copy|mirrored_execute|sync_proxies|register_proxy)\b/,
];

// What the first module keeps whether the trace ran it or not: the allocator. Which of its paths
// a start takes depends on the heap's state (talc's `full_search_bin` ran in one trace of the
// same start and not in the next), and a function of the deferred module that runs before that
// module has arrived reads it synchronously (polyfill/src/deferred.js): a start that happened to
// take the allocator's slow path would have waited for the whole deferred module.
const FIRST_ALWAYS = [/^talc::/, /^<talc::/, /::__rust_(alloc|dealloc|realloc|alloc_zeroed)$/];

// What an agent's calls run that the trace's calls do not: a call of a tool whose schema the
// validator module checks, made while that module is still loading (the trace's page has it by
// then), waits for it. The call module has these too (core-calls.txt).
const CALLS_UNTRACED = [
  /^modelcontext_polyfill::server::methods::tools::tools_call::\{\{closure\}\}/,
  /^modelcontext_polyfill::server::engine::calls::<impl modelcontext_polyfill::server::engine::Server>::validator_ready_for::\{\{closure\}\}/,
  /^<modelcontext_polyfill::browser::validator::LazyValidator as modelcontext_polyfill::server::validator::SchemaCompiler>::ready::\{\{closure\}\}/,
];

/** The functions the kept phases' `compiles` ran, but those of AFTER_ARRIVAL (by `names`). */
function keptOf(compiles, names) {
  const ran = new Set(compiles.flat().map((c) => c.index));
  return new Set([...ran].filter((i) => !AFTER_ARRIVAL.some((re) => re.test(names.get(i) ?? ''))));
}

/**
 * Writes CORE_KEEP_LIST: the names (without their hashes) of the functions the trace saw run in
 * its kept phases, which `make build` keeps in the core's first module.
 */
async function writeKeepList(server) {
  const named = namedDist();
  const distUrl = `/${path.relative(REPO_ROOT, named.dir).split(path.sep).join('/')}`;
  const all = await traceCompiles(server, distUrl);
  const phases = all.filter((p) => p.keep === true);
  const ran = keptOf(phases.map((p) => p.compiles), named.names);
  const always = [...named.names.values()].filter((n) => FIRST_ALWAYS.some((re) => re.test(n)));
  const names = [...new Set([...[...ran].map((i) => named.names.get(i)), ...always].filter(Boolean))].sort();
  // The call module's: what the calls' phases ran that the first module does not keep. (The
  // frame wire's delivery is one: the frame's calls of tools compile functions of the calls' path
  // that an agent's calls then run without compiling them again, which the trace would not see.)
  const callPhases = all.filter((p) => p.keep === 'calls');
  const first = new Set(names);
  const untraced = [...named.names.values()].filter((n) => CALLS_UNTRACED.some((re) => re.test(n)));
  const calls = [...new Set([...callPhases.flatMap((p) => p.compiles.map((c) => named.names.get(c.index))), ...untraced].filter((n) => n && !first.has(n)))].sort();
  const header = [
    '# The functions the core\'s first module keeps (scripts/lib/core-split.mjs): those a page\'s',
    '# start, its registrations and an agent\'s discovery ran, by their names. Written by',
    '# `make split-list` (scripts/bench-breakdown.mjs --write-split-list) from the phases of its',
    '# compile trace:',
    ...phases.map((p) => `#   ${p.name}`),
    '# but for what a core cut in two runs once the deferred module has arrived (AFTER_ARRIVAL: the',
    '# declarative forms\' start, the mirror of the page\'s tools on the browser\'s own WebMCP). The',
    '# core\'s functions without a name are kept too, and the allocator\'s whether the trace ran them',
    '# or not (FIRST_ALWAYS). The rest are in the deferred module; what runs',
    '# them waits for it (tool calls, src/transport/held.rs; the page\'s calls of its tools and other',
    '# documents\' reads of them, polyfill/src/model_context.js; the forms\' start and the engine of a',
    '# persisted tab session, polyfill/src/install.js; the native mirror, held::after_deferred).',
  ];
  fs.writeFileSync(CORE_KEEP_LIST, `${[...header, ...names].join('\n')}\n`);
  console.log(`bench-breakdown: ${path.relative(REPO_ROOT, CORE_KEEP_LIST)}: ${names.length} names (${ran.size} functions ran)`);
  const callsHeader = [
    '# The functions of the core\'s deferred module its call module has (scripts/lib/calls-cut.mjs):',
    '# those an agent\'s calls ran that the first module does not keep (core-first.txt), by their',
    '# names. Written by `make split-list` (scripts/bench-breakdown.mjs --write-split-list) from the',
    '# phases of its compile trace:',
    ...callPhases.map((p) => `#   ${p.name}`),
    '# and those of a call that waits for the validator module (CALLS_UNTRACED: the trace\'s page has',
    '# it by then). The build adds every drop glue the deferred module has in the table. An agent\'s',
    '# calls wait for the call module (src/transport/held.rs); a function of the rest that one of',
    '# them runs is read at once, as before the call module.',
  ];
  fs.writeFileSync(CORE_CALLS_LIST, `${[...callsHeader, ...calls].join('\n')}\n`);
  console.log(`bench-breakdown: ${path.relative(REPO_ROOT, CORE_CALLS_LIST)}: ${calls.length} names`);
}

// ---- main -------------------------------------------------------------------------------------

async function main() {
  if (!fs.existsSync(path.join(DIST_DIR, 'modelcontext.js'))) throw new Error('dist/ missing: run `make build` first');
  const server = await startStaticServer({ root: REPO_ROOT, port: 0 });
  server.unref();
  for (const impl of SEGMENT_IMPLS) server.route(`/__breakdown/${impl.id}.html`, { body: benchPage({ title: `breakdown ${impl.id}` }), headers: ISOLATED });
  try {
    if (process.argv.includes('--write-split-list')) return await writeKeepList(server);
    process.stderr.write(`bench-breakdown: ${ROUNDS} rounds of ${CALLS} sequential calls\n`);
    const { results, chromium: version } = await measure(server, { ids: SEGMENT_IMPLS.map((i) => i.id) });
    // Our start again in a Chromium whose V8 compiles every function of a module before
    // instantiating it instead of each on its first call (on the main thread): what the lazy
    // compilation costs the start after the core wasm has arrived.
    const eager = (await measure(server, { ids: ['ours'], args: ['--js-flags=--no-wasm-lazy-compilation'] })).results.ours;
    const med = (id, f) => median(results[id].map(f));
    const us = (v) => (Number.isFinite(v) ? v.toFixed(1) : '—');

    console.log(`\nOne sequential tools/call round trip, by segment (µs: the mean of ${CALLS} calls, median of ${ROUNDS} rounds; Chromium ${version})\n`);
    const rows = SEGMENTS.map(([key, name]) => [name, ...SEGMENT_IMPLS.map((i) => us(med(i.id, (r) => r.segments[key])))]);
    const total = (r) => SEGMENTS.reduce((a, [k]) => a + r.segments[k], 0);
    rows.push(['round trip', ...SEGMENT_IMPLS.map((i) => us(med(i.id, total)))]);
    const server_ = (r) => r.segments['recv→exec'] + r.segments['exec→post'];
    const client_ = (r) => r.segments['t0→send'] + r.segments['send→recv'] + r.segments['post→back'] + r.segments['back→t1'];
    rows.push(['  of which the server (listener → answer posted)', ...SEGMENT_IMPLS.map((i) => us(med(i.id, server_)))]);
    rows.push(['  of which the client and the two messages', ...SEGMENT_IMPLS.map((i) => us(med(i.id, client_)))]);
    // The client's part without the answer's transit, which holds the rest of the server's task
    // (the churn columns' work too): its two segments and the request's transit (the rest of
    // its own task, then the message).
    const own = (r) => r.segments['t0→send'] + r.segments['send→recv'] + r.segments['back→t1'];
    rows.push(['  of which the client and the request (no answer transit)', ...SEGMENT_IMPLS.map((i) => us(med(i.id, own)))]);
    console.log(table(['segment', ...SEGMENT_IMPLS.map((i) => i.label)], rows));

    console.log(`\nThe start, by phase (ms from the script's start: median of ${ROUNDS} loads)\n`);
    const names = [...new Set(IMPLS.flatMap((i) => results[i.id].flatMap((r) => Object.keys(r.phases))))];
    const ms = (v) => (Number.isFinite(v) ? v.toFixed(1) : '');
    const at = (runs, n) => median(runs.map((r) => r.phases[n]).filter(Number.isFinite));
    const phaseRows = names
      .map((n) => [n, ...IMPLS.map((i) => ms(at(results[i.id], n))), ms(at(eager, n))])
      .sort((a, b) => (Number(a[1]) || Number(a[2]) || 0) - (Number(b[1]) || Number(b[2]) || 0));
    console.log(table(['phase', ...IMPLS.map((i) => i.label), `${IMPLS[0].label}, wasm compiled eagerly`], phaseRows));
    // From the instantiation to the first registration: the engine made, the queued calls run.
    const after = (runs) => median(runs.map((r) => r.phases['first registerTool resolved'] - r.phases['core wasm instantiated']).filter(Number.isFinite));
    console.log(
      `\ncore wasm instantiated → first registerTool resolved: ${ms(after(results.ours))} ms as V8 compiles by default ` +
        `(each function on its first call, on the main thread), ${ms(after(eager))} ms with every function compiled ` +
        '(--no-wasm-lazy-compilation, whose whole-module compile then delays the instantiation instead)',
    );

    const named = namedDist();
    const distUrl = `/${path.relative(REPO_ROOT, named.dir).split(path.sep).join('/')}`;
    const phases = await traceCompiles(server, distUrl);
    console.log('\nCore wasm functions compiled on their first call (V8 Liftoff, --trace-wasm-compilation-times)\n');
    // Each phase's first-call compiles (Liftoff: a function tiered up later was compiled by
    // Liftoff first), read once for the table, the largest and the split below.
    const compiled = phases.map((p) => p.compiles.filter((x) => x.tier === 'Liftoff'));
    const compileRows = phases.map((p, i) => {
      const c = compiled[i];
      return [p.name, c.length, (c.reduce((a, x) => a + x.body, 0) / 1000).toFixed(1), (c.reduce((a, x) => a + x.us, 0) / 1000).toFixed(2)];
    });
    const all = compiled.flat();
    const { imported, bodies } = readModule(fs.readFileSync(path.join(named.dir, 'modelcontext_glue_bg.wasm')));
    const touched = new Set(all.map((c) => c.index));
    compileRows.push([
      `all of them, of the module's ${bodies.length} functions (${(sum(bodies) / 1000).toFixed(1)} KB)`,
      touched.size,
      (sum([...touched].map((i) => bodies[i - imported] ?? 0)) / 1000).toFixed(1),
      (all.reduce((a, x) => a + x.us, 0) / 1000).toFixed(2),
    ]);
    console.log(table(['phase', 'functions', 'code KB', 'compile ms'], compileRows));
    console.log('\nthe largest:');
    for (const c of [...all].sort((a, b) => b.body - a.body).slice(0, 8)) {
      console.log(`  ${String(c.body).padStart(6)} B  ${String(c.us).padStart(4)} µs  ${named.names.get(c.index) ?? `function #${c.index}`}`);
    }

    const ran = (n) => new Set(compiled.slice(0, n).flat().map((c) => c.index));
    const kept = keptOf(compiled.filter((_, i) => phases[i].keep === true), named.names);
    await printSplit(imported, [
      ['the start and the first requests (tools listable)', ran(2)],
      ['the phases kept (the split list)', kept],
      ['every phase above', ran(phases.length)],
    ]);
  } finally {
    await server.close();
  }
}

main().catch((e) => {
  console.error(`bench-breakdown: ${e.stack || e.message}`);
  process.exit(1);
});

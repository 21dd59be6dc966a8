#!/usr/bin/env node
// `make bench`: this polyfill beside @mcp-b/global (and @mcp-b/webmcp-polyfill where it applies)
// in the same headless Chromium, driven by the same client — the official MCP TypeScript client
// (@modelcontextprotocol/client) over MCP-B's TabClientTransport (@mcp-b/transports) — over
// several alternating rounds. Prints every figure for each implementation (median and range over
// the rounds) with the median of the per-round ratios (ours / peer), then the byte figures (gzip
// and brotli), and warns when one of our ratios is worse than the README's performance table by
// more than this run's own spread of that ratio, or than 1 % of the table's ratio where that is
// more (ratios, not times: both sides of a ratio run on the same machine in the same round, so a
// slower or faster machine than the table's does not read as a change of ours), and when a byte
// figure is larger. A third MCP column, the client floor, is a bare page script answering the
// same wire with canned replies: what the client itself costs, so the best ratio any server
// could reach against @mcp-b/global with this client.
// Playwright drives the pages, and a page with a DevTools client attached runs with DevTools'
// instrumentation on (it records the JS stack at every postMessage for async stack traces, for
// one); so each MCP implementation also runs the same page once per round in a Chromium started
// without one (its page reports over HTTP), and the start and the sequential and concurrent
// tools/call figures are given both ways. The start is timed to the tools listable and to the
// agent's first tools/call answered, made as soon as its listing has come. The page's own server
// is on the loopback, where bytes cost almost nothing, so the start is timed again over two
// emulated networks, Lighthouse's desktop and
// mobile profiles (40 ms round trip and 10 Mbit/s; 150 ms and 1.6 Mbit/s: CDP's
// Network.emulateNetworkConditions, set once the page and its client have loaded), from a server
// that sends the files gzip-encoded as a production one would.
//
//   node scripts/bench.mjs              ROUNDS=3 by default (a few minutes on 2 cores)
//   ROUNDS=7 node scripts/bench.mjs     more rounds, tighter medians
//   node scripts/bench.mjs --readme     also rewrite the README's performance table with this run
//   node scripts/bench.mjs --json       machine-readable results on stdout
//   node scripts/bench.mjs --engine firefox   the same pages in Firefox (or webkit: WebKitGTK),
//                                       driven as the page tests drive them; the figures that
//                                       need CDP or a Chromium of its own are left out
//
// Env: ROUNDS (3), TOOLS (1000 registered tools), SEQ_CALLS (200, timed in five batches),
// CONCURRENT (500, three bursts), LIST_REPEATS (5), WARMUP (1000 untimed calls before the
// timed ones), EXECUTE_STEADY (20000: the executeTool calls before the steady-state figure's),
// CALL_STEADY (20000: the same for the sequential tools/call round trip's),
// BIG_BYTES (1 MiB: the text result of the large-result figures). Needs dist/ (make build),
// node_modules (make deps) and Debian's Chromium.
//
// Both run with their defaults: the page's own window is the only peer, which neither
// rate-limits (see the README's Limits).

import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { REPO_ROOT, DIST_DIR } from './lib/project.mjs';
import { compressed } from './lib/compressed.mjs';
import { startStaticServer } from './lib/static-server.mjs';
import { median, goalVerdict } from './lib/stats.mjs';
import { benchPage, intEnv } from './lib/bench-page.mjs';
import { heapSnapshot } from './lib/heap-snapshot.mjs';
import { launchChromium, spawnChromium } from '../tests/page/lib/chromium.mjs';
import { launchFirefox, firefoxMissing } from '../tests/page/lib/firefox.mjs';
import { launchWebKit, webkitMissing } from '../tests/page/lib/webkit.mjs';

const ROUNDS = intEnv('ROUNDS', 3);
// The least change of a figure against the README's that `make bench` warns of, as a share of
// the README's figure (a run's spread is the bound where it is larger).
const MIN_TOLERANCE = 0.01;
const TOOLS = intEnv('TOOLS', 1000);
const SEQ_CALLS = intEnv('SEQ_CALLS', 200);
const CONCURRENT = intEnv('CONCURRENT', 500);
const LIST_REPEATS = intEnv('LIST_REPEATS', 5);
const WARMUP = intEnv('WARMUP', 1000);
// (At least the calls runInPage makes, so the steady figure's range says which calls it times.)
const EXECUTE_STEADY = Math.max(intEnv('EXECUTE_STEADY', 20000), WARMUP + 5000);
// (At least the calls runInPage makes: the warm-up, the sequential batches and the bursts.)
const CALL_STEADY = Math.max(intEnv('CALL_STEADY', 20000), WARMUP + SEQ_CALLS + 3 * CONCURRENT);
const BIG_BYTES = intEnv('BIG_BYTES', 1 << 20);
const BIG_LABEL = BIG_BYTES % (1 << 20) === 0 ? `${BIG_BYTES / (1 << 20)} MiB` : `${BIG_BYTES.toLocaleString('en')} B`;
const README = path.join(REPO_ROOT, 'README.md');

/** `--engine firefox` or `--engine webkit`: the engine to run in instead of Chromium. */
const ENGINE = (() => {
  const i = process.argv.indexOf('--engine');
  const engine = i < 0 ? 'chromium' : process.argv[i + 1];
  if (!['chromium', 'firefox', 'webkit'].includes(engine)) {
    console.error(`bench: --engine takes chromium, firefox or webkit, not ${engine}`);
    process.exit(2);
  }
  if (engine !== 'chromium' && process.argv.includes('--readme')) {
    console.error("bench: --readme rewrites the README's Chromium table: run it without --engine");
    process.exit(2);
  }
  return engine;
})();
const BEGIN = '<!-- bench:begin -->';
const END = '<!-- bench:end -->';

const pkgVersion = (name) =>
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;

/** The implementations, in column order. `mcp`: it runs an MCP server on the tab transport. */
const IMPLS = [
  {
    id: 'ours',
    label: 'modelcontext-polyfill',
    kind: 'esm',
    src: '/dist/modelcontext.js',
    mcp: true,
  },
  {
    id: 'mcpb',
    label: `@mcp-b/global ${pkgVersion('@mcp-b/global')}`,
    kind: 'classic',
    src: '/node_modules/@mcp-b/global/dist/index.iife.js',
    mcp: true,
  },
  {
    // What the client itself costs: a page script answering the tab wire with canned JSON-RPC
    // (no checks, no validation). No server can go below it with this client; its ratio to
    // @mcp-b/global is the best any ratio of ours can be.
    id: 'floor',
    label: 'client floor (bare JS server)',
    kind: 'floor',
    mcp: true,
  },
  {
    id: 'w3c',
    label: `@mcp-b/webmcp-polyfill ${pkgVersion('@mcp-b/webmcp-polyfill')}`,
    kind: 'classic',
    src: '/node_modules/@mcp-b/webmcp-polyfill/dist/index.iife.js',
    mcp: false,
  },
];

/**
 * The emulated networks of the start's second and third rows: Lighthouse's desktop and mobile
 * profiles (round trip, download and upload kbit/s).
 */
const NETWORKS = [
  { key: 'startupDesktopMs', firstCallKey: 'firstCallDesktopMs', label: 'desktop network: 40 ms, 10 Mbit/s', latencyMs: 40, kbps: 10 * 1024, uploadKbps: 10 * 1024 },
  { key: 'startupMobileMs', firstCallKey: 'firstCallMobileMs', label: 'mobile network: 150 ms, 1.6 Mbit/s', latencyMs: 150, kbps: 1.6 * 1024, uploadKbps: 750 },
];

/** The five batches of 1,000 calls runInPage's `bench.time` times after `before` untimed ones, as text: "1,001–6,000". */
const callRange = (before) => `${(before + 1).toLocaleString('en')}–${(before + 5000).toLocaleString('en')}`;

/**
 * The figures: `key` in the page's result, `better`: which direction is good, `goal`: the
 * issue's goal for the ratio ours / @mcp-b/global (printed beside the ratio), `chromiumOnly`:
 * measured through CDP or in a Chromium of its own, so not in another engine's run (--engine).
 */
const FIGURES = [
  { key: 'installMs', name: 'script start → document.modelContext', unit: 'ms', better: 'lower' },
  { key: 'startupMs', name: 'script start → tools listable by an agent', unit: 'ms', better: 'lower', goal: '≤ 0.5', mcp: true, withFloor: true },
  ...NETWORKS.map((n) => ({
    key: n.key,
    name: `script start → tools listable, ${n.label}, files gzip`,
    unit: 'ms',
    better: 'lower',
    goal: '≤ 0.5',
    mcp: true,
    withFloor: true,
    chromiumOnly: true,
  })),
  // The agent's first tools/call, made as soon as its listing has come: what an agent that acts
  // at once waits for. (This polyfill's core serves the listing from its first module and a call
  // from its deferred one, which it requests at the agent's first message.)
  { key: 'firstCallMs', name: 'script start → first tools/call answered', unit: 'ms', better: 'lower', mcp: true, withFloor: true },
  ...NETWORKS.map((n) => ({
    key: n.firstCallKey,
    name: `script start → first tools/call answered, ${n.label}, files gzip`,
    unit: 'ms',
    better: 'lower',
    mcp: true,
    withFloor: true,
    chromiumOnly: true,
  })),
  { key: 'registerUs', name: `await registerTool, per tool (${TOOLS.toLocaleString('en')} tools)`, unit: 'µs', better: 'lower', goal: '≤ 0.01' },
  // The W3C API's own call path, in the page (no MCP, no client): what an extension or another
  // frame's script pays. Each implementation gets the input in the form it accepts: an object
  // (the current spec), or, where that is refused, a JSON string (Chromium 154 and earlier).
  { key: 'executeUs', name: `await executeTool (W3C API, in the page), calls ${callRange(WARMUP)}`, unit: 'µs', better: 'lower' },
  // The same call once it has run EXECUTE_STEADY times (runSteadyInPage, after every other
  // figure): V8 compiles a wasm function with its baseline compiler first and recompiles it
  // optimized only once it has run a budget's worth of code, which a call path of many small
  // functions takes thousands of calls to spend (JS tiers up sooner). The figure above is the
  // early calls' cost, as a page that calls a tool now and then meets it; this one is what a
  // long session's calls settle at.
  { key: 'executeSteadyUs', name: `await executeTool, calls ${callRange(EXECUTE_STEADY)} (optimized code)`, unit: 'µs', better: 'lower' },
  { key: 'listMs', name: `tools/list of ${(TOOLS + 1).toLocaleString('en')} tools (all pages)`, unit: 'ms', better: 'lower', goal: '≤ 0.5', mcp: true, withFloor: true },
  { key: 'callUs', name: `sequential tools/call round trip, calls ${(WARMUP + 1).toLocaleString('en')}–${(WARMUP + SEQ_CALLS).toLocaleString('en')}`, unit: 'µs', better: 'lower', goal: '≤ 0.7', mcp: true, withFloor: true },
  { key: 'callsPerS', name: `concurrent calls/s (${CONCURRENT} at once)`, unit: '/s', better: 'higher', goal: '≥ 1.5', mcp: true, withFloor: true },
  // The sequential round trip again once CALL_STEADY calls have run (runSteadyInPage, after
  // every other figure), as executeTool's: each side's JIT tiers its code up over thousands of
  // calls, the client's and the server's (ours: wasm functions the baseline compiler made,
  // recompiled optimized once each has run a budget's worth of code), so the figure above is
  // what an agent's first calls cost and this one what a long session's settle at.
  { key: 'callSteadyUs', name: `sequential tools/call round trip, calls ${callRange(CALL_STEADY)} (optimized code)`, unit: 'µs', better: 'lower', mcp: true, withFloor: true },
  // The start and these two again in a Chromium that no DevTools client drives (runDetached): as
  // a user's browser runs them (see the top of this file).
  { key: 'startupMsDetached', name: 'script start → tools listable, no DevTools client attached', unit: 'ms', better: 'lower', goal: '≤ 0.5', mcp: true, withFloor: true, chromiumOnly: true },
  { key: 'firstCallMsDetached', name: 'script start → first tools/call answered, no DevTools client attached', unit: 'ms', better: 'lower', mcp: true, withFloor: true, chromiumOnly: true },
  { key: 'callUsDetached', name: 'sequential tools/call round trip, no DevTools client attached', unit: 'µs', better: 'lower', goal: '≤ 0.7', mcp: true, withFloor: true, chromiumOnly: true },
  { key: 'callsPerSDetached', name: `concurrent calls/s (${CONCURRENT} at once), no DevTools client attached`, unit: '/s', better: 'higher', goal: '≥ 1.5', mcp: true, withFloor: true, chromiumOnly: true },
  // The floor's heap is the page, the client and the floor's own few objects: what any server
  // adds is on top of it.
  { key: 'heapMB', name: 'heap after the run (JS heap + array buffers, incl. wasm memory)', unit: 'MB', better: 'lower', goal: '≤ 0.5', withFloor: true, chromiumOnly: true },
  // The heap figure leaves out what lives outside V8's heap: the scripts' sources (the page's,
  // the client's, the implementation's), the DOM's objects and a wasm module's compiled code
  // and bytes, which a JS implementation has on the heap as bytecode and optimized code. A heap
  // snapshot accounts for all of it (heapSnapshotBytes).
  { key: 'snapshotMB', name: 'memory after the run, as a heap snapshot counts it (JS heap, script sources, DOM, wasm memory and code)', unit: 'MB', better: 'lower', withFloor: true, chromiumOnly: true },
  // Then, after the heap is measured, a tool whose result is BIG_BYTES of text (a page's
  // content, a document): what moving large text costs each implementation.
  { key: 'bigExecuteUs', name: `await executeTool, ${BIG_LABEL} text result (W3C API)`, unit: 'µs', better: 'lower' },
  { key: 'bigCallMs', name: `tools/call round trip, ${BIG_LABEL} text result`, unit: 'ms', better: 'lower', mcp: true, withFloor: true },
  // The same text in the result most tools give: a CallToolResult with one text block.
  { key: 'bigBlockCallMs', name: `tools/call round trip, ${BIG_LABEL} text block (a CallToolResult)`, unit: 'ms', better: 'lower', mcp: true, withFloor: true },
  // A result of about as many bytes of JSON data: an object of 8,500 records per MiB (a listing, a
  // table), which the server answers as its JSON text and as structuredContent.
  { key: 'bigObjectCallMs', name: `tools/call round trip, ${BIG_LABEL} object result (structuredContent)`, unit: 'ms', better: 'lower', mcp: true, withFloor: true },
  // The same object from a tool that declares an outputSchema (each record's fields typed),
  // which a server that checks structured results reads.
  { key: 'bigCheckedCallMs', name: `tools/call round trip, ${BIG_LABEL} object result, tool with an outputSchema`, unit: 'ms', better: 'lower', mcp: true, withFloor: true },
  // WebAssembly memory grows and never shrinks: what large text leaves behind.
  { key: 'bigHeapMB', name: `heap after the ${BIG_LABEL} results (as above)`, unit: 'MB', better: 'lower', withFloor: true, chromiumOnly: true },
];

// ---- the page -----------------------------------------------------------------------------

function pageHtml(impl) {
  const config = impl.config ? `<script>window.modelContextPolyfillConfig = ${JSON.stringify(impl.config)};</script>` : '';
  return benchPage({ title: `bench ${impl.id}`, head: config });
}

/** Runs in the page: loads the implementation, then measures. Returns the figures. */
async function runInPage({ kind, src, mcp, tools, seqCalls, concurrent, listRepeats, warmup, startOnly = false }) {
  const now = () => performance.now();
  const out = { errors: [] };
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  // `run(i)` timed: `time(untimed)` runs it untimed until `done` runs have been made, then
  // returns the median of five timed batches of 1,000, in µs. (runSteadyInPage calls `time`
  // again, later.)
  const timedBatches = (run, done) => {
    const batches = {
      done,
      async time(untimed) {
        for (; batches.done < untimed; batches.done++) await run(batches.done);
        const perRun = [];
        for (let b = 0; b < 5; b++) {
          const t = now();
          for (let i = 0; i < 1000; i++) await run(i);
          perRun.push(((now() - t) * 1000) / 1000);
        }
        batches.done += 5000;
        return median(perRun);
      },
    };
    return batches;
  };
  // WebAssembly memory is not in the heap figures CDP reports (Runtime.getHeapUsage counts
  // neither it nor its backing store): every instance's memory is recorded here, whatever
  // the implementation, and added to the heap after the run (window.wasmMemoryBytes).
  const memories = new Set();
  const note = (instance) => {
    for (const v of Object.values(instance.exports)) if (v instanceof WebAssembly.Memory) memories.add(v);
    return instance;
  };
  const W = WebAssembly;
  const { instantiate, instantiateStreaming, Instance, Memory } = W;
  W.instantiate = (...a) => instantiate.apply(W, a).then((r) => (r instanceof Instance ? note(r) : (note(r.instance), r)));
  if (instantiateStreaming) W.instantiateStreaming = (...a) => instantiateStreaming.apply(W, a).then((r) => (note(r.instance), r));
  W.Instance = new Proxy(Instance, { construct: (T, a) => note(Reflect.construct(T, a)) });
  W.Memory = new Proxy(Memory, { construct: (T, a) => { const m = Reflect.construct(T, a); memories.add(m); return m; } });
  window.wasmMemoryBytes = () => [...memories].reduce((n, m) => n + m.buffer.byteLength, 0);
  const schema = { type: 'object', properties: { a: { type: 'number' } } };
  const tool = (name) => ({
    name,
    description: `Echoes a (${name})`,
    inputSchema: schema,
    execute: ({ a }) => String(a),
  });

  // Script start → document.modelContext → a tool listable by a connected agent.
  const t0 = now();
  await window.__benchLoad(kind, src); // scripts/lib/bench-page.mjs
  const mc = document.modelContext || navigator.modelContext;
  out.installMs = now() - t0;
  if (!mc) throw new Error('no document.modelContext after loading');
  try {
    await mc.registerTool(tool('probe'));
  } catch (e) {
    // (Both MCP-B packages refuse every tool in Firefox, whose documents all read
    // originAgentCluster false.)
    out.errors.push(`registerTool refused the first tool: ${e && e.name}${e && e.message ? `: ${e.message}` : ''}`);
    return out;
  }
  let client;
  if (mcp) {
    client = new Bench.Client({ name: 'bench', version: '1.0.0' });
    await client.connect(new Bench.TabClientTransport({ targetOrigin: location.origin }));
    const { tools: listed } = await client.listTools();
    if (!listed.some((t) => t.name === 'probe')) throw new Error('the first tool is not listed');
    out.startupMs = now() - t0;
    const first = await client.callTool({ name: 'probe', arguments: { a: 1 } });
    if (first.isError || first.content?.[0]?.text !== '1') throw new Error(`the first tools/call: ${JSON.stringify(first).slice(0, 200)}`);
    out.firstCallMs = now() - t0;
    window.benchClient = client;
  }
  if (startOnly) return out;

  // registerTool, one at a time, each awaited.
  const t1 = now();
  for (let i = 0; i < tools; i++) await mc.registerTool(tool(`tool_${i}`));
  out.registerUs = ((now() - t1) * 1000) / tools;

  // executeTool of the first tool, sequential: untimed first (as for the MCP calls), then the
  // median of five batches.
  if (kind !== 'floor') {
    const [probe] = (await mc.getTools()).filter((t) => t.name === 'probe');
    let asText = false;
    try {
      await mc.executeTool(probe, { a: 0 });
    } catch {
      asText = true; // refuses an object: takes the input as a JSON string
    }
    window.benchInputAsText = asText;
    const execute = async (i) => {
      const r = await mc.executeTool(probe, asText ? JSON.stringify({ a: i }) : { a: i });
      if (r !== String(i)) throw new Error(`executeTool ${i}: ${JSON.stringify(r)}`);
    };
    const bench = timedBatches(execute, 0);
    out.executeUs = await bench.time(warmup);
    window.benchExecute = bench;
  }
  if (!mcp) return out;

  // tools/list, following nextCursor to the end.
  const listAll = async () => {
    let cursor;
    let n = 0;
    do {
      const r = await client.listTools(cursor === undefined ? undefined : { cursor });
      n += r.tools.length;
      cursor = r.nextCursor;
    } while (cursor !== undefined);
    return n;
  };
  const counted = await listAll(); // warm-up
  if (counted !== tools + 1) out.errors.push(`tools/list returned ${counted} tools, expected ${tools + 1}`);
  const lists = [];
  for (let i = 0; i < listRepeats; i++) {
    const t = now();
    await listAll();
    lists.push(now() - t);
  }
  out.listMs = median(lists);

  // Sequential calls (after a warm-up that also waits for any lazily loaded validator).
  const call = async (i) => {
    const r = await client.callTool({ name: `tool_${i % tools}`, arguments: { a: i } });
    const text = r.content?.[0]?.text;
    if (r.isError || text !== String(i)) throw new Error(`call ${i}: ${JSON.stringify(r).slice(0, 200)}`);
  };
  // Untimed first: the JIT tiers up the page engines, the server and the client as they run,
  // and without a warm-up the figure depended on what else had run before (a thousand
  // tools/list_changed notifications through the client warmed its receive path). The
  // machine is noisy: the median of five batches, each timed as a whole (performance.now()
  // is coarsened to 100 µs).
  for (let i = 0; i < warmup; i++) await call(i);
  const batch = Math.max(1, Math.round(seqCalls / 5));
  const perCall = [];
  for (let b = 0; b < 5; b++) {
    const t = now();
    for (let i = 0; i < batch; i++) await call(b * batch + i);
    perCall.push(((now() - t) * 1000) / batch);
  }
  out.callUs = median(perCall);

  // Concurrent calls, all sent at once; the median of three bursts.
  let failed = 0;
  let firstError;
  const rates = [];
  for (let b = 0; b < 3; b++) {
    const t = now();
    await Promise.all(
      Array.from({ length: concurrent }, (_, i) =>
        call(i).catch((e) => {
          failed++;
          firstError ??= String(e && e.message);
        }),
      ),
    );
    rates.push((concurrent * 1000) / (now() - t));
  }
  out.callsPerS = median(rates);
  if (failed) out.errors.push(`${failed} of ${3 * concurrent} concurrent calls failed (first: ${firstError})`);
  // The sequential calls again later (runSteadyInPage), the ones above counted.
  window.benchCalls = timedBatches(call, warmup + 5 * batch + 3 * concurrent);
  return out;
}

/**
 * Runs in the page last, after every other figure (so none of them changes with it): the
 * executeTool of runInPage again, untimed until it has run `steady` times, then the median of
 * five batches of 1,000, in µs (not on the client floor, which has no W3C API); and the same for
 * the sequential tools/call, untimed until `steadyCalls` have run (not without an MCP server).
 */
async function runSteadyInPage({ steady, steadyCalls }) {
  const out = {};
  if (window.benchExecute) out.executeSteadyUs = await window.benchExecute.time(steady);
  if (window.benchCalls) out.callSteadyUs = await window.benchCalls.time(steadyCalls);
  return out;
}

/**
 * The large-result figures (runBigInPage), each timed after `settle()`: the figures before
 * each leave megabytes of garbage, and a figure timed while the engine collects it (a major
 * collection, its sweeping on the second core) read several times its settled value, for every
 * implementation alike: the client floor's 1 MiB text-block calls took 7–12 ms each for the
 * first dozen after the object results, then 0.5–1.4 ms.
 */
const BIG_FIGURES = ['bigExecuteUs', 'bigCallMs', 'bigObjectCallMs', 'bigCheckedCallMs', 'bigBlockCallMs'];

async function runBig(page, impl, settle) {
  const out = { errors: [] };
  for (const figure of BIG_FIGURES) {
    await settle();
    const r = await page.evaluate(runBigInPage, { kind: impl.kind, mcp: impl.mcp, bytes: BIG_BYTES, figure });
    Object.assign(out, r, { errors: [...out.errors, ...r.errors] });
  }
  return out;
}

/**
 * Runs in the page after runInPage and the heap figure, once per figure of BIG_FIGURES
 * (`figure`), each in an evaluate of its own after the page has settled (runBig): the first
 * registers the tools whose results are `bytes` characters of text or about as many bytes of
 * records, then each times one of them: `executeTool` (not on the client floor, which has no W3C
 * API) or, where there is an MCP server, a tools/call through the same client. Each: three
 * untimed calls, then the median of five batches (of 40 executeTools, of 4 tools/calls: each
 * batch takes milliseconds, and performance.now() has 100 µs steps), in ms (µs for
 * executeTool). Returns {} when the figure is not one this page has.
 */
async function runBigInPage({ kind, mcp, bytes, figure }) {
  const now = () => performance.now();
  const out = { errors: [] };
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const timed = async (batch, once) => {
    for (let i = 0; i < 3; i++) await once(i);
    const per = [];
    for (let b = 0; b < 5; b++) {
      const t = now();
      for (let i = 0; i < batch; i++) await once(b * batch + i);
      per.push((now() - t) / batch);
    }
    return median(per);
  };
  const mc = document.modelContext || navigator.modelContext;
  if (!window.benchBig) {
    const big = 'x'.repeat(bytes);
    await mc.registerTool({
      name: 'big',
      description: `Returns ${bytes} characters of text`,
      inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
      execute: ({ a }) => big + a,
    });
    await mc.registerTool({
      name: 'bigBlock',
      description: `Returns ${bytes} characters of text in a text block`,
      inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
      execute: ({ a }) => ({ content: [{ type: 'text', text: big + a }] }),
    });
    const records = Array.from({ length: Math.max(1, Math.round(bytes / 123)) }, (_, i) => ({ id: i, name: `record ${i}`, tags: ['a', 'b'], price: i * 1.5, ok: i % 2 === 0, note: 'lorem ipsum dolor sit amet, consectetur' }));
    await mc.registerTool({
      name: 'bigObject',
      description: `Returns ${records.length} records`,
      inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
      execute: ({ a }) => ({ a, records }),
    });
    const record = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, price: { type: 'number' }, ok: { type: 'boolean' }, note: { type: 'string' } }, required: ['id', 'name'] };
    await mc.registerTool({
      name: 'bigChecked',
      description: `Returns ${records.length} records, as its outputSchema says`,
      inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
      outputSchema: { type: 'object', properties: { a: { type: 'number' }, records: { type: 'array', items: record } }, required: ['a', 'records'] },
      execute: ({ a }) => ({ a, records }),
    });
    window.benchBig = { records };
  }
  const { records } = window.benchBig;
  const length = (i) => bytes + String(i).length;
  const call = (name, batch, check) => timed(batch, async (i) => {
    const r = await window.benchClient.callTool({ name, arguments: { a: i } });
    if (r.isError || !check(r, i)) throw new Error(`tools/call of ${name} ${i}: ${JSON.stringify(r).slice(0, 200)}`);
  });
  const text = (r, i) => r.content?.[0]?.text?.length === length(i);
  const structured = (r, i) => {
    const s = r.structuredContent ?? JSON.parse(r.content?.[0]?.text ?? 'null');
    return s?.a === i && s.records?.length === records.length;
  };
  if (figure === 'bigExecuteUs' && kind !== 'floor') {
    const [tool] = (await mc.getTools()).filter((t) => t.name === 'big');
    const asText = window.benchInputAsText; // (runInPage found which input it takes)
    out.bigExecuteUs = await timed(40, async (i) => {
      const r = await mc.executeTool(tool, asText ? JSON.stringify({ a: i }) : { a: i });
      if (typeof r !== 'string' || r.length !== length(i)) throw new Error(`executeTool of big ${i}: ${String(r).slice(0, 100)}`);
    }) * 1000;
  }
  if (!mcp) return out;
  if (figure === 'bigCallMs') out.bigCallMs = await call('big', 4, text);
  if (figure === 'bigObjectCallMs') out.bigObjectCallMs = await call('bigObject', 2, structured);
  if (figure === 'bigCheckedCallMs') out.bigCheckedCallMs = await call('bigChecked', 2, structured);
  if (figure === 'bigBlockCallMs') out.bigBlockCallMs = await call('bigBlock', 4, text);
  return out;
}

/**
 * The page runDetached opens: the bench page, then runInPage with the same parameters (the same
 * work before the calls, so the same warm-up), its sequential and concurrent figures posted back.
 */
function detachedPageHtml(impl, params) {
  return `${pageHtml(impl)}
<script type="module">
  const report = (body) => fetch('/__bench/report' + location.search, { method: 'POST', body: JSON.stringify(body) });
  try {
    while (!window.Bench) await new Promise((r) => setTimeout(r, 5));
    // As Playwright's pages start once loaded, and past the browser's own start (this Chromium
    // was launched for this page): the start's figure is the page's, not the browser's. (Six
    // fresh launches each: ours listed after a median 92 ms with 250 ms of this wait, 78 with
    // 1.5 s; @mcp-b/global's 141 and 130.)
    if (document.readyState !== 'complete') await new Promise((r) => addEventListener('load', r, { once: true }));
    await new Promise((r) => setTimeout(r, 1000));
    const r = await (${runInPage.toString()})(${JSON.stringify(params)});
    await report(r.errors.length ? { error: r.errors.join('; ') } : { startupMsDetached: r.startupMs, firstCallMsDetached: r.firstCallMs, callUsDetached: r.callUs, callsPerSDetached: r.callsPerS });
  } catch (e) {
    await report({ error: String((e && e.message) || e) });
  }
</script>`;
}

/**
 * The start of `impl` over the emulated network `net`, served by `netServer` (gzip): the page and
 * its client load first, at loopback speed; then the network is slowed and the timed start runs,
 * to the tools listable and to the first tools/call answered (`net.key`, `net.firstCallKey`).
 */
async function runOnNetwork(browser, netServer, impl, net) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(netServer.url(`/__bench/${impl.id}.html`));
    await page.waitForFunction(() => window.Bench, null, { timeout: 60_000 });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    const bytesPerS = (kbps) => (kbps * 1024) / 8;
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: net.latencyMs,
      downloadThroughput: bytesPerS(net.kbps),
      uploadThroughput: bytesPerS(net.uploadKbps),
    });
    const r = await page.evaluate(runInPage, { kind: impl.kind, src: impl.src, mcp: true, startOnly: true });
    if (r.errors.length) throw new Error(r.errors[0]);
    return { [net.key]: r.startupMs, [net.firstCallKey]: r.firstCallMs };
  } finally {
    await context.close().catch(() => {});
  }
}

/**
 * Opens impl's detached page in a Chromium started for it alone, with no DevTools client (the
 * page reports over HTTP), and resolves with its two figures ({ error } on failure or after
 * three minutes).
 */
async function runDetached(server, impl, reports) {
  const id = `${impl.id}-${reports.size}-${Date.now()}`;
  const got = new Promise((resolve) => reports.set(id, resolve));
  const { exited, stop } = spawnChromium([server.url(`/__bench/${impl.id}-detached.html?id=${id}`)]);
  let timer;
  try {
    return await Promise.race([
      got,
      exited.then((code) => ({ error: `Chromium exited (${code}) before the page reported` })),
      new Promise((resolve) => (timer = setTimeout(() => resolve({ error: 'no report within 180 s' }), 180_000))),
    ]);
  } finally {
    clearTimeout(timer);
    reports.delete(id);
    await stop();
  }
}

// ---- statistics and formatting ----------------------------------------------------------------

/**
 * The problems ("<implementation>, round <n>: <what>"), one line for each implementation and
 * text, naming the rounds it happened in ("rounds 1–5" when every one).
 */
function sameInEveryRound(problems) {
  const groups = new Map();
  for (const p of problems) {
    const m = p.match(/^(.*), round (\d+): (.*)$/s);
    const key = m ? `${m[1]}\u0000${m[3]}` : p;
    if (!groups.has(key)) groups.set(key, { label: m?.[1], what: m?.[3] ?? p, rounds: [] });
    if (m) groups.get(key).rounds.push(Number(m[2]));
  }
  return [...groups.values()].map(({ label, what, rounds }) => {
    if (!rounds.length) return what;
    const every = rounds.length === ROUNDS && rounds.every((r, i) => r === i + 1);
    const which = rounds.length === 1 ? `round ${rounds[0]}` : every ? `rounds 1–${ROUNDS}` : `rounds ${rounds.join(', ')}`;
    return `${label}, ${which}: ${what}`;
  });
}

function num(v, unit) {
  if (!Number.isFinite(v)) return '—';
  if (unit === 'µs' && v >= 1000) return `${(v / 1000).toPrecision(3)} ms`;
  const digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  return `${v.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${unit}`;
}

function cell(values, unit) {
  const v = values.filter(Number.isFinite);
  if (!v.length) return '—';
  const lo = Math.min(...v);
  const hi = Math.max(...v);
  return v.length > 1 ? `${num(median(v), unit)} (${num(lo, unit)}–${num(hi, unit)})` : num(v[0], unit);
}

const ratioText = (r) => (Number.isFinite(r) ? (r < 0.1 ? r.toFixed(3) : r.toFixed(2)) : '—');

function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function markdown(headers, rows) {
  const esc = (c) => String(c).replaceAll('|', '\\|');
  return [
    `| ${headers.map(esc).join(' | ')} |`,
    `|${headers.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}

// ---- bytes ------------------------------------------------------------------------------------

/** What each way of loading costs, from `make size`'s own definition of the loads. */
function byteFigures() {
  const size = JSON.parse(execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'size.mjs'), '--json'], { encoding: 'utf8' }));
  // make size reports brotli itself now and then; compress here only what it does not.
  const sizes = new Map(
    size.files.map((f) => [f.file, Number.isFinite(f.brotli) ? f : compressed(fs.readFileSync(path.join(DIST_DIR, f.file)))]),
  );
  const rows = size.loads.map((l) => {
    const files = l.files ?? [];
    const sum = files.reduce((a, f) => {
      const s = sizes.get(f) ?? { raw: 0, gzip: 0, brotli: 0 };
      return { raw: a.raw + s.raw, gzip: a.gzip + s.gzip, brotli: a.brotli + s.brotli };
    }, { raw: 0, gzip: 0, brotli: 0 });
    return { name: l.file, ...(files.length ? sum : { raw: l.raw, gzip: l.gzip, brotli: NaN }) };
  });
  const peers = [
    ['@mcp-b/global IIFE (peer)', 'node_modules/@mcp-b/global/dist/index.iife.js'],
    ['@mcp-b/webmcp-polyfill IIFE (peer)', 'node_modules/@mcp-b/webmcp-polyfill/dist/index.iife.js'],
  ].map(([name, rel]) => ({ name, ...compressed(fs.readFileSync(path.join(REPO_ROOT, rel))) }));
  return { rows, peers };
}

/**
 * The sum of every node's own size in a heap snapshot of the page (`cdp`'s): V8's heap, and the
 * native memory the snapshot attributes to its objects (external strings such as script
 * sources, array buffers and wasm memories, Blink's objects, compiled wasm modules).
 */
async function heapSnapshotBytes(cdp) {
  const snap = await heapSnapshot(cdp);
  const fields = snap.snapshot.meta.node_fields;
  const stride = fields.length;
  const self = fields.indexOf('self_size');
  let total = 0;
  for (let i = self; i < snap.nodes.length; i += stride) total += snap.nodes[i];
  return total;
}

// ---- README ----------------------------------------------------------------------------------

/** The figures recorded in the README's table (`<!-- bench:data {...} -->`), or null. */
function readmeData() {
  const text = fs.readFileSync(README, 'utf8');
  const m = text.match(/<!-- bench:data (\{.*?\}) -->/s);
  if (!m) return null;
  try {
    return JSON.parse(m[1]);
  } catch {
    return null;
  }
}

function writeReadme(section) {
  const text = fs.readFileSync(README, 'utf8');
  const a = text.indexOf(BEGIN);
  const b = text.indexOf(END);
  if (a < 0 || b < a) throw new Error(`README.md has no ${BEGIN} … ${END} section to rewrite`);
  fs.writeFileSync(README, text.slice(0, a + BEGIN.length) + '\n' + section + '\n' + text.slice(b));
}

// ---- the runs ---------------------------------------------------------------------------------

/** runInPage's parameters for `impl`. */
const inPage = (impl) => ({
  kind: impl.kind,
  src: impl.src,
  mcp: impl.mcp,
  tools: TOOLS,
  seqCalls: SEQ_CALLS,
  warmup: WARMUP,
  concurrent: CONCURRENT,
  listRepeats: LIST_REPEATS,
});

/**
 * The rounds in `browser` (closed at the end, whatever happens): `measure(impl)` for each
 * implementation in turn, each round alternating which MCP server goes first (the W3C-only peer
 * last), resolving with that page's figures and `errors`. Gives each implementation's figures
 * per round ({} for a round that threw), the problems and `browserName`.
 */
async function eachRound(browser, browserName, measure) {
  try {
    return { ...(await rounds(browserName, measure)), browserName };
  } finally {
    await browser.close().catch(() => {});
  }
}

async function rounds(browserName, measure) {
  const results = Object.fromEntries(IMPLS.map((i) => [i.id, []]));
  const problems = [];
  process.stderr.write(`bench: ${ROUNDS} rounds, ${browserName}\n`);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? ['mcpb', 'ours', 'floor', 'w3c'] : ['ours', 'mcpb', 'floor', 'w3c'];
    for (const id of order) {
      const impl = IMPLS.find((i) => i.id === id);
      const t = Date.now();
      try {
        const r = await measure(impl);
        results[id].push(r);
        for (const e of r.errors) problems.push(`${impl.label}, round ${round + 1}: ${e}`);
        process.stderr.write(`  round ${round + 1}/${ROUNDS} ${impl.label}: ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
      } catch (e) {
        // (A DOMException thrown in a page can arrive with its name alone.)
        const why = String(e.message || '').split('\n')[0] || `${e.name || 'an error'} with no message`;
        problems.push(`${impl.label}, round ${round + 1}: ${why}`);
        results[id].push({});
      }
    }
  }
  return { results, problems };
}

/**
 * Every round in Chromium (Playwright's, so with a DevTools client): each implementation's page
 * in a fresh browser context, its heap after the run (CDP), the same page in a Chromium of its
 * own with no DevTools client (runDetached) and the start over the emulated networks
 * (runOnNetwork).
 */
async function measureChromium(server, netServer, pages) {
  // Reports of the detached pages (runDetached), by the id in their URL.
  const reports = new Map();
  server.route('/__bench/report', (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.end('ok');
      const resolve = reports.get(new URL(req.url, 'http://x').searchParams.get('id'));
      try {
        resolve?.(JSON.parse(body));
      } catch (e) {
        resolve?.({ error: `unreadable report: ${e.message}` });
      }
    });
  });

  const browser = await launchChromium();
  return eachRound(browser, `Chromium ${browser.version()}`, async (impl) => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const pageErrors = [];
      page.on('pageerror', (e) => pageErrors.push(e.message));
      await page.goto(server.url(pages.get(impl.id)));
      await page.waitForFunction(() => window.Bench, null, { timeout: 60_000 });
      const r = await page.evaluate(runInPage, inPage(impl));
      if (r.errors.length) return { ...r, errors: [...r.errors, ...pageErrors] }; // (the rest would not run either)
      // The heap once the run is over, after a full garbage collection: JS heap, array
      // buffer backing stores and every WebAssembly memory (runInPage records them).
      const cdp = await context.newCDPSession(page);
      const heapMB = async () => {
        await cdp.send('HeapProfiler.collectGarbage');
        const heap = await cdp.send('Runtime.getHeapUsage');
        const wasm = await page.evaluate(() => window.wasmMemoryBytes());
        return (heap.usedSize + (heap.backingStorageSize ?? 0) + wasm) / 1e6;
      };
      r.heapMB = await heapMB();
      r.snapshotMB = (await heapSnapshotBytes(cdp)) / 1e6;
      // (A full collection before each: HeapProfiler.collectGarbage.)
      const big = await runBig(page, impl, () => cdp.send('HeapProfiler.collectGarbage'));
      Object.assign(r, big, { errors: [...r.errors, ...big.errors, ...pageErrors] });
      r.bigHeapMB = await heapMB();
      Object.assign(r, await page.evaluate(runSteadyInPage, { steady: EXECUTE_STEADY, steadyCalls: CALL_STEADY }));
      if (impl.mcp) {
        await context.close(); // (idle, but a second browser while the detached one runs)
        const detached = await runDetached(server, impl, reports);
        if (detached.error) r.errors.push(`no DevTools client attached: ${detached.error}`);
        else Object.assign(r, detached);
        for (const net of NETWORKS) {
          try {
            Object.assign(r, await runOnNetwork(browser, netServer, impl, net));
          } catch (e) {
            r.errors.push(`${net.label}: ${e.message.split('\n')[0]}`);
          }
        }
      }
      return r;
    } finally {
      await context.close().catch(() => {});
    }
  });
}

/**
 * Every round in another engine (`--engine firefox`, `--engine webkit`), driven as the page tests
 * drive it (lib/firefox.mjs, lib/webkit.mjs): each implementation's page in a new tab, runInPage,
 * the large result and the steady executeTool, the same functions as in Chromium. What needs CDP
 * or a Chromium of its own (the heap, the networks, the run with no DevTools client) is not
 * measured.
 */
async function measureIn(engine, server, pages) {
  const missing = engine === 'firefox' ? firefoxMissing() : webkitMissing();
  if (missing) throw new Error(`--engine ${engine}: missing ${missing}`);
  // One evaluate runs a whole runInPage (a minute or more in a slow engine).
  const limitMs = 15 * 60_000;
  // The driver attaches a debugger to Firefox's pages, and a debugger's pages record the JS
  // stack at every promise and queued microtask for async stack traces (a third of our
  // executeTool's time, measured; a page with no debugger records none): off, as a user's
  // Firefox runs it without DevTools open (the Chromium run has its run without DevTools too).
  const browser = engine === 'firefox'
    ? await launchFirefox({ protocolTimeoutMs: limitMs, prefs: { 'javascript.options.asyncstack': false } })
    : await launchWebKit({ scriptTimeoutMs: limitMs });
  const browserName = engine === 'firefox' ? `Firefox ${browser.version.replace(/^firefox\//, '')}` : `WebKitGTK ${browser.version}`;
  return eachRound(browser, browserName, async (impl) => {
    const page = await browser.page();
    try {
      await page.goto(server.url(pages.get(impl.id)));
      await page.evaluate(async () => {
        for (let i = 0; i < 600 && !window.Bench; i++) await new Promise((r) => setTimeout(r, 100));
        if (!window.Bench) throw new Error('the bench page did not load its client in 60 s');
      });
      const r = await page.evaluate(runInPage, inPage(impl));
      if (!r.errors.length) {
        // (No CDP to ask for a collection: a quarter of a second's pause before each instead.)
        const big = await runBig(page, impl, () => page.evaluate(() => new Promise((r) => setTimeout(r, 250))));
        Object.assign(r, big, { errors: [...r.errors, ...big.errors] });
        Object.assign(r, await page.evaluate(runSteadyInPage, { steady: EXECUTE_STEADY, steadyCalls: CALL_STEADY }));
      }
      r.errors.push(...(page.errors?.() ?? []));
      return r;
    } finally {
      await page.close().catch(() => {});
    }
  });
}

// ---- main -------------------------------------------------------------------------------------

async function main() {
  for (const f of ['modelcontext.js', 'modelcontext.iife.js']) {
    if (!fs.existsSync(path.join(DIST_DIR, f))) throw new Error(`dist/${f} missing: run \`make build\` first`);
  }
  const started = Date.now();
  const server = await startStaticServer({ root: REPO_ROOT, port: 0 });
  server.unref();
  // The same files gzip-encoded, for the start over an emulated network (runOnNetwork).
  const netServer = await startStaticServer({ root: REPO_ROOT, port: 0, gzip: true });
  netServer.unref();
  const pages = new Map();
  for (const impl of IMPLS) {
    const p = `/__bench/${impl.id}.html`;
    server.route(p, { body: pageHtml(impl) });
    netServer.route(p, { body: pageHtml(impl) });
    pages.set(impl.id, p);
    if (impl.mcp) server.route(`/__bench/${impl.id}-detached.html`, { body: detachedPageHtml(impl, inPage(impl)) });
  }
  let measured;
  try {
    measured = ENGINE === 'chromium' ? await measureChromium(server, netServer, pages) : await measureIn(ENGINE, server, pages);
  } finally {
    await server.close();
    await netServer.close();
  }
  const { results, problems, browserName } = measured;
  const shown = FIGURES.filter((f) => ENGINE === 'chromium' || !f.chromiumOnly);

  // Figures: per implementation median and range; the median of the per-round ratios.
  const values = (id, key) => results[id].map((r) => r[key]);
  const figureRows = shown.map((f) => {
    const ratios = results.ours.map((r, i) => r[f.key] / results.mcpb[i]?.[f.key]);
    const floorRatios = results.floor.map((r, i) => r[f.key] / results.mcpb[i]?.[f.key]);
    const w3c = f.mcp ? [] : values('w3c', f.key);
    return {
      ...f,
      ours: values('ours', f.key),
      mcpb: values('mcpb', f.key),
      w3c,
      floor: values('floor', f.key),
      ratios,
      ratio: median(ratios),
      floorRatio: f.withFloor ? median(floorRatios) : NaN,
    };
  });
  const bytes = byteFigures();
  const date = new Date().toISOString().slice(0, 10);
  const headers = ['figure', IMPLS[0].label, IMPLS[1].label, 'ours / MCP-B', 'goal', IMPLS[2].label, 'floor / MCP-B', IMPLS[3].label];
  const rows = figureRows.map((f) => [
    f.name,
    cell(f.ours, f.unit),
    cell(f.mcpb, f.unit),
    ratioText(f.ratio),
    f.goal ?? '',
    f.withFloor ? cell(f.floor, f.unit) : 'n/a',
    f.withFloor ? ratioText(f.floorRatio) : '',
    f.mcp ? 'n/a (no MCP server)' : cell(f.w3c, f.unit),
  ]);
  const byteHeaders = ['bytes', 'raw', 'gzip -9', 'brotli -11'];
  const byteRows = [...bytes.rows, ...bytes.peers].map((b) => [
    b.name,
    b.raw.toLocaleString('en'),
    b.gzip.toLocaleString('en'),
    Number.isFinite(b.brotli) ? b.brotli.toLocaleString('en') : '—',
  ]);
  // Each goal, met or missed, and in how many rounds (on a noisy machine a median can sit on
  // either side of a goal that half the rounds meet); a goal the client floor misses too is past
  // any server's reach with this client on this machine (the floor answers with canned
  // replies), which a reader of a missed ratio needs to know.
  const goals = figureRows.flatMap((f) => {
    const v = goalVerdict(f.goal, f.ratio, f.floorRatio, f.ratios);
    if (!v) return [];
    const rounds = v.rounds ? `; ${v.roundsMet} of ${v.rounds} rounds meet it` : '';
    const head = `${v.met ? 'met' : 'missed'}: ${f.name}: ${ratioText(f.ratio)} (goal ${f.goal}${rounds})`;
    return v.met || v.floorMet !== false
      ? [head]
      : [`${head}; the client floor reads ${ratioText(f.floorRatio)}: past any server's reach with this client on this machine`];
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const heading = `make bench — ${date}, ${browserName}, ${ROUNDS} alternating rounds (${seconds} s); ` +
    `medians with the range over the rounds in parentheses; ratio = median of the per-round ratios`;

  // Warnings: a ratio worse than the README's by more than this run's spread of it or 1 % of the
  // README's (a figure of ours likewise, where the README records no ratio: that compares
  // machines too).
  const recorded = readmeData();
  const warnings = [];
  if (recorded) {
    // (The README's figures are Chromium's: another engine's are not compared with them.)
    for (const f of ENGINE === 'chromium' ? figureRows : []) {
      const wasRatio = recorded.ratios?.[f.key];
      const byRatio = Number.isFinite(wasRatio);
      const was = byRatio ? wasRatio : recorded.figures?.[f.key];
      const v = (byRatio ? f.ratios : f.ours).filter(Number.isFinite);
      if (!Number.isFinite(was) || !v.length) continue;
      const m = median(v);
      const spread = Math.max(...v) - Math.min(...v);
      // A figure the same in every round (the heap) has no spread, yet it moves a little between
      // runs of the same build (the heap ratio read 0.5689 and 0.5700): a change within 1 % of
      // the table's value is not told apart from that.
      const tolerance = Math.max(spread, Math.abs(was) * MIN_TOLERANCE);
      const worse = f.better === 'lower' ? m - was : was - m;
      if (!(worse > tolerance)) continue;
      const text = byRatio ? ratioText : (x) => num(x, f.unit);
      const bound = tolerance > spread
        ? `more than ${MIN_TOLERANCE * 100} % of the README's figure, ${text(tolerance)}; this run's spread: ${text(spread)}`
        : `more than this run's spread of ${text(spread)}`;
      warnings.push(`${f.name}: ${byRatio ? 'ours / MCP-B ' : ''}${text(m)} now, ${text(was)} in the README (worse by ${text(worse)}, ${bound})`);
    }
    for (const b of bytes.rows) {
      const was = recorded.bytes?.[b.name];
      if (Number.isFinite(was) && b.gzip > was) {
        warnings.push(`${b.name}: ${b.gzip.toLocaleString('en')} B gzip now, ${was.toLocaleString('en')} B in the README`);
      }
    }
  } else {
    warnings.push('README.md has no recorded bench figures to compare with (run `node scripts/bench.mjs --readme`)');
  }

  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ date, browser: browserName, rounds: ROUNDS, results, figures: figureRows, bytes, goals, problems, warnings }, null, 2));
  } else {
    console.log(heading + '\n');
    console.log(table(headers, rows));
    console.log('');
    console.log(table(byteHeaders, byteRows));
    console.log('');
    for (const g of goals) console.log(`GOAL ${g}`);
    for (const p of sameInEveryRound(problems)) console.log(`PROBLEM: ${p}`);
    for (const w of warnings) console.log(`WARNING: ${w}`);
  }

  if (process.argv.includes('--readme')) {
    const data = {
      figures: Object.fromEntries(figureRows.map((f) => [f.key, Number(median(f.ours).toPrecision(4))])),
      ratios: Object.fromEntries(figureRows.map((f) => [f.key, Number(f.ratio.toPrecision(4))])),
      bytes: Object.fromEntries(bytes.rows.map((b) => [b.name, b.gzip])),
    };
    const section = [
      `<!-- bench:data ${JSON.stringify(data)} -->`,
      `${heading}:`,
      '',
      markdown(headers, rows),
      '',
      markdown(byteHeaders, byteRows),
      '',
      'Goals (ours / MCP-B):',
      '',
      ...goals.map((g) => `- ${g}`),
      ...(problems.length ? ['', ...sameInEveryRound(problems).map((p) => `- ${p}`)] : []),
    ].join('\n');
    writeReadme(section);
    console.log('README.md: performance table rewritten');
  }
}

main().catch((e) => {
  console.error(`bench: ${e.stack || e.message}`);
  process.exit(1);
});

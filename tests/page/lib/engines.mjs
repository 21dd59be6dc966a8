// The checks the page tests make in the engines other than Chromium (firefox.test.mjs: Gecko;
// webkit.test.mjs: WebKit), written once: `engineTests(engine)` defines them for one engine.
// A polyfill is for the browsers without WebMCP. In each engine:
//
// - each build (the ES module, the classic script, the self-contained classic script) runs the
//   bundlers' shared app (examples/bundlers/shared/app.js): a plain schema checked by the core, a
//   pattern by the validator module, an McpClient through the page's tab server (the client
//   module), a <form toolname> (the core's deferred module): every wasm file;
// - every case of webmcp.cases.mjs gives the record the spec calls for, as in Chromium, and so
//   does every case of frames.cases.mjs (frames of this origin and another, exposedTo,
//   allow="tools"), except the engine's own listed differences;
// - the official MCP TypeScript client over MCP-B's TabClientTransport lists the page's tools and
//   calls them (a valid call, an invalid one: isError);
// - an agent's call of a <form toolname toolautosubmit> fills and submits it;
// - examples/worker/ (the polyfill in a module worker, its server reached over postMessage) and
//   examples/iframe/ (an app in a cross-origin iframe serving its host) work;
// - a function of the core's deferred module the page needs before that module has arrived runs
//   through its placeholder, which reads the module synchronously;
// - under a CSP without 'wasm-unsafe-eval', every call names it (each engine words the refusal
//   its own way).
//
// `engine`: { name, page(), htmlPrefix, cspReport }. page() opens a fresh page in the engine:
// { goto(url), evaluate(fn, arg), errors(), close() }, where errors() gives what the page logged
// as an error or did not catch (for an engine whose driver reports no console, what a page
// collects itself: `htmlPrefix`, put before every page given as `html`, sets that up); cspReport
// matches the engine's own report of the CSP refusal. And `frameDifferences`: case name →
// { skip: why } or { why, record: the record this engine gives }.

import { test, before } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { getServer, inlinePage, requireDist, DIST_DIR } from '../harness.mjs';
import { CASES, HELPERS } from '../webmcp.cases.mjs';
import { CASES as FRAME_CASES, HELPERS as FRAME_HELPERS } from '../frames.cases.mjs';
import { benchPage } from '../../../scripts/lib/bench-page.mjs';

// What the shared app shows when everything works (as in bundlers.test.mjs).
const WORKS = { valid: '5', invalid: 'DataError', patternValid: 'hi ada', patternInvalid: 'DataError', viaClient: '42', formTool: 'subscribe' };

const BUILDS = [
  ['ES module (modelcontext.js)', `<script type="module">import '/dist/modelcontext.js'; import '/examples/bundlers/shared/app.js';</script>`],
  ['classic script (modelcontext.iife.js)', `<script src="/dist/modelcontext.iife.js"></script><script type="module" src="/examples/bundlers/shared/app.js"></script>`],
  ['self-contained classic script (modelcontext.inline.iife.js)', `<script src="/dist/modelcontext.inline.iife.js"></script><script type="module" src="/examples/bundlers/shared/app.js"></script>`],
];

/** Runs in the page: waits for `window[key]` (set by the page's own scripts) and returns it. */
async function waitFor(key) {
  for (let i = 0; i < 600; i++) {
    if (window[key]) return window[key];
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no window.${key} after 60 s`);
}

/** Runs in the bench page: the official client lists and calls the page's tool. */
async function officialClient() {
  for (let i = 0; i < 600 && !window.Bench; i++) await new Promise((r) => setTimeout(r, 100));
  await window.__benchLoad('esm', '/dist/modelcontext.js');
  await document.modelContext.registerTool({
    name: 'add',
    description: 'Adds two integers',
    inputSchema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] },
    execute: ({ a, b }) => String(a + b),
  });
  const client = new Bench.Client({ name: 'engine', version: '1.0.0' });
  await client.connect(new Bench.TabClientTransport({ targetOrigin: location.origin }));
  const { tools } = await client.listTools();
  const valid = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  const invalid = await client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } });
  const server = client.getServerVersion();
  await client.close();
  return {
    tools: tools.map((t) => [t.name, t.inputSchema.required]),
    valid: valid.content[0].text,
    invalid: [invalid.isError, invalid.content[0].text],
    server: typeof (server && server.name),
  };
}

const FORM_HTML = `<script src="/dist/modelcontext.iife.js"></script>
<form toolname="greet" tooldescription="Greets someone" toolautosubmit><input name="who" required></form>`;

/** Runs in FORM_HTML: an agent's calls of the form's tool. */
async function formCalls() {
  const form = document.querySelector('form');
  const seen = [];
  form.addEventListener('submit', (e) => {
    seen.push([e.agentInvoked, form.who.value]);
    e.preventDefault();
    if (e.agentInvoked) e.respondWith(Promise.resolve(`hello ${form.who.value}`));
  });
  let tool;
  for (let i = 0; i < 250 && !tool; i++) {
    tool = (await document.modelContext.getTools()).find((t) => t.name === 'greet');
    if (!tool) await new Promise((r) => setTimeout(r, 20));
  }
  const result = await document.modelContext.executeTool(tool, { who: 'Ada' });
  const missing = await document.modelContext.executeTool(tool, {}).then(() => 'ran', (e) => e.name);
  const schema = typeof tool.inputSchema === 'string' ? JSON.parse(tool.inputSchema) : tool.inputSchema;
  return { required: schema.required, result, missing, seen };
}

/** Runs in examples/worker/: the worker's tool listed and called, valid and invalid input. */
async function workerExample() {
  for (let i = 0; i < 600 && !(window.workerExample && window.workerExample.ready); i++) await new Promise((r) => setTimeout(r, 100));
  const { client } = window.workerExample;
  const tools = [...document.querySelectorAll('#tools li code')].map((c) => c.textContent);
  const valid = await client.callTool('count_primes', { below: 100 });
  const invalid = await client.callTool('count_primes', { below: 1 });
  const { ms, ...counted } = valid.structuredContent; // (ms: how long it took)
  return { tools, server: client.serverInfo.name, valid: counted, ms: typeof ms, invalid: invalid.isError };
}

/** Runs in examples/iframe/ (on the second origin): the app's tools, called through the iframe. */
async function iframeExample() {
  for (let i = 0; i < 600 && !(window.iframeExample && window.iframeExample.ready); i++) await new Promise((r) => setTimeout(r, 100));
  const { client } = window.iframeExample;
  const { tools } = await client.listTools();
  await client.callTool('add_to_count', { by: 5 });
  const count = await client.callTool('get_count', {});
  return { tools: tools.map((t) => t.name).sort(), count: count.structuredContent || count.content[0].text };
}

/** Runs a page's case function in a page that has `helpers`; its record, or { thrown }. */
async function record(page, path, run) {
  await page.goto(path);
  try {
    return await page.evaluate(run);
  } catch (e) {
    return { thrown: String(e.message).split('\n')[0] };
  }
}

/** Defines the tests for `engine` (see the top of this file). */
export function engineTests(engine, { frameDifferences = {} } = {}) {
  const { name } = engine;
  let server;
  before(async () => {
    requireDist('modelcontext.js', 'modelcontext.iife.js', 'modelcontext.inline.iife.js');
    server = await getServer();
  });

  // Opens a fresh page (`html` served first), runs fn({ goto(path, { alt }), evaluate(fn, arg) })
  // (`alt`: the static server's second origin), closes the page and returns fn's result; an
  // error the page logged or did not catch fails the test, except what `expected` matches.
  async function withPage(fn, { html, expected = null } = {}) {
    const page = await engine.page();
    try {
      if (html !== undefined) await page.goto(server.url(await inlinePage(`${engine.htmlPrefix ?? ''}${html}`)));
      const result = await fn({ goto: (p, { alt = false } = {}) => page.goto(server.url(p, { alt })), evaluate: (f, arg) => page.evaluate(f, arg) });
      assert.deepEqual((await page.errors()).filter((m) => !expected?.test(m)), [], 'errors in the page');
      return result;
    } finally {
      await page.close();
    }
  }

  for (const [build, scripts] of BUILDS) {
    test(`${name}, ${build}: a plain schema, a pattern (validator module), an McpClient (client module), a form tool (deferred module)`, () =>
      withPage(async (page) => {
        assert.deepEqual(await page.evaluate(waitFor, 'result'), WORKS);
      }, { html: `<link rel="icon" href="data:,"><pre id="out">loading…</pre>${scripts}` }));
  }

  test(`${name}: every case of webmcp.cases.mjs gives the record the spec calls for`, async (t) => {
    const here = await inlinePage(`<script src="/dist/modelcontext.iife.js"></script>\n<script>${HELPERS}</script>`);
    const records = {};
    await withPage(async (page) => {
      for (const c of CASES) records[c.name] = await record(page, here, c.run);
    });
    for (const c of CASES) await t.test(c.name, () => assert.deepEqual(records[c.name], c.expect));
  });

  test(`${name}: every case of frames.cases.mjs gives its record (the engine's listed differences aside)`, async (t) => {
    const page0 = `<!doctype html><meta charset="utf-8"><script src="/dist/modelcontext.iife.js"></script><script>${FRAME_HELPERS}</script><body>`;
    const plain = await inlinePage(page0);
    const oac0 = `${plain}.oac0.html`;
    server.route(oac0, { body: page0, headers: { 'Origin-Agent-Cluster': '?0' } });
    const records = {};
    for (const c of FRAME_CASES) {
      if (frameDifferences[c.name]?.skip) continue;
      records[c.name] = await withPage((page) => record(page, c.page === 'oac0' ? oac0 : plain, c.run));
    }
    for (const c of FRAME_CASES) {
      const differs = frameDifferences[c.name];
      await t.test(c.name, { skip: differs?.skip }, () =>
        assert.deepEqual(records[c.name], differs ? differs.record : c.expect, differs?.why));
    }
  });

  test(`${name}: the listed differences of frames.cases.mjs name existing cases, and each is one`, () => {
    const cases = new Map(FRAME_CASES.map((c) => [c.name, c]));
    for (const [caseName, differs] of Object.entries(frameDifferences)) {
      assert.ok(cases.has(caseName), `no case named ${caseName}`);
      assert.ok(differs.skip || differs.why, `${caseName}: no reason given`);
      if (differs.record) assert.notDeepEqual(differs.record, cases.get(caseName).expect, caseName);
    }
  });

  test(`${name}: the official MCP TypeScript client over MCP-B's TabClientTransport lists the page's tools and calls them`, () =>
    withPage(async (page) => {
      const r = await page.evaluate(officialClient);
      assert.deepEqual(r.tools, [['add', ['a', 'b']]]);
      assert.equal(r.valid, '5');
      assert.equal(r.invalid[0], true);
      assert.match(r.invalid[1], /^Invalid arguments for tool add: \/a: "two" is not of type "integer"/);
      assert.equal(r.server, 'string');
    }, { html: benchPage({ title: name }) }));

  test(`${name}: an agent's call of a <form toolname toolautosubmit> fills and submits it; the page's handler responds`, () =>
    withPage(async (page) => {
      assert.deepEqual(await page.evaluate(formCalls), { required: ['who'], result: 'hello Ada', missing: 'DataError', seen: [[true, 'Ada']] });
    }, { html: FORM_HTML }));

  test(`${name}: examples/worker/ (the polyfill in a module worker) and examples/iframe/ (an app in a cross-origin iframe) work`, () =>
    withPage(async (page) => {
      await page.goto('/examples/worker/');
      assert.deepEqual(await page.evaluate(workerExample), {
        tools: ['count_primes'], server: 'prime-worker', valid: { below: 100, primes: 25, inWorker: true }, ms: 'number', invalid: true,
      });
      await page.goto('/examples/iframe/', { alt: true });
      assert.deepEqual(await page.evaluate(iframeExample), { tools: ['add_to_count', 'get_count'], count: { count: 5 } });
    }));

  // The deferred module is served from a path of its own whose first answer (the fetch an agent's
  // first message asks for) comes a while later, so a registration the first module cannot finish
  // alone (a schema deeper than the engine reads, whose warning is the deferred module's code) runs
  // its placeholder, which asks for the module synchronously (answered at once).
  test(`${name}: a function of the deferred module the page needs before it has arrived runs through its placeholder (a synchronous read): a schema nested 70 levels registers, and the tool runs`, async () => {
    const slow = `${await inlinePage('(unused)')}.deferred.wasm`;
    const bytes = fs.readFileSync(path.join(DIST_DIR, 'modelcontext_deferred.wasm'));
    const asked = [];
    server.route(slow, (req, res) => {
      asked.push(req.url);
      setTimeout(() => res.writeHead(200, { 'Content-Type': 'application/wasm' }).end(bytes), asked.length === 1 ? 3000 : 0);
    });
    const r = await withPage((page) => page.evaluate(async () => {
      for (let i = 0; i < 600 && !Object.keys(globalThis[Symbol.for('modelcontext-polyfill')]?.transports ?? {}).length; i++) await new Promise((r) => setTimeout(r, 20));
      // An agent's first message (over the tab wire) has the module requested.
      postMessage({ channel: 'mcp-default', type: 'mcp', direction: 'client-to-server', payload: { jsonrpc: '2.0', id: 1, method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agent', version: '1' } } } }, location.origin);
      await new Promise((r) => setTimeout(r, 300));
      let schema = { type: 'string' };
      for (let i = 0; i < 70; i++) schema = { type: 'object', properties: { a: schema }, required: ['a'] };
      const registered = await document.modelContext
        .registerTool({ name: 'deep', description: 'D', inputSchema: schema, execute: () => 'deep' })
        .then(() => 'registered', (e) => `${e.name}: ${e.message}`);
      const [tool] = await document.modelContext.getTools();
      const ran = await document.modelContext.executeTool(tool, { a: 1 });
      return { registered, kept: JSON.stringify(tool.inputSchema) === JSON.stringify(schema), ran };
    }), { html: `<script>window.modelContextPolyfillConfig = { deferredUrl: ${JSON.stringify(server.url(slow))}, callsUrl: '/dist/modelcontext_calls.wasm' };</script><script type="module">import '/dist/modelcontext.js';</script>` });
    assert.deepEqual(r, { registered: 'registered', kept: true, ran: 'deep' });
    assert.equal(asked.length, 2, 'the fetch the agent asked for and the synchronous read');
  });

  test(`${name}, under script-src 'self' (no 'wasm-unsafe-eval'): the object exists, and every call names 'wasm-unsafe-eval'`, async () => {
    const app = await inlinePage('(unused)');
    server.route(`${app}.js`, {
      type: 'text/javascript',
      body: `window.appSaw = typeof document.modelContext;
        document.modelContext.getTools().then((v) => { window.result = { ok: v.length }; }, (e) => { window.result = { name: e.name, message: e.message }; });`,
    });
    server.route(`${app}.csp.html`, {
      headers: { 'Content-Security-Policy': "script-src 'self'" },
      body: `<!doctype html><meta charset="utf-8"><script src="/dist/modelcontext.iife.js"></script><script src="${app}.js"></script>`,
    });
    await withPage(async (page) => {
      await page.goto(`${app}.csp.html`);
      const result = await page.evaluate(waitFor, 'result');
      assert.equal(await page.evaluate(() => window.appSaw), 'object', 'the page script after the polyfill sees document.modelContext');
      assert.equal(result.name, 'NotSupportedError');
      assert.match(result.message, /Content-Security-Policy does not allow WebAssembly\. Add 'wasm-unsafe-eval' to its script-src directive/);
    }, { expected: engine.cspReport });
  });
}

// The package in a second engine: Firefox ESR (Debian's firefox-esr, or $FIREFOX), driven by
// puppeteer-core over WebDriver BiDi, pages served by the same static server as the Chromium
// tests. A polyfill is for the browsers without WebMCP; Firefox has none. There:
//
// - each build (the ES module, the classic script, the self-contained classic script) runs the
//   bundlers' shared app (examples/bundlers/shared/app.js): a plain schema checked by the core, a
//   pattern by the validator module, an McpClient through the page's tab server (the client
//   module), a <form toolname> (the core's deferred module): every wasm file;
// - every case of webmcp.cases.mjs gives the record the spec calls for, as in Chromium;
// - the official MCP TypeScript client over MCP-B's TabClientTransport lists the page's tools and
//   calls them (a valid call, an invalid one: isError);
// - an agent's call of a <form toolname toolautosubmit> fills and submits it;
// - under a CSP without 'wasm-unsafe-eval', every call names it (Firefox words the refusal
//   differently from Chromium).
//
// Firefox gives every document `originAgentCluster === false` (it origin-keys none), which the
// spec's origin-keyed step would refuse; these tests say so (src/browser/store.rs).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import puppeteer from 'puppeteer-core';
import { getServer, inlinePage, requireDist } from './harness.mjs';
import { CASES, HELPERS } from './webmcp.cases.mjs';
import { CASES as FRAME_CASES, HELPERS as FRAME_HELPERS } from './frames.cases.mjs';
import { benchPage } from '../../scripts/lib/bench-page.mjs';

const FIREFOX = process.env.FIREFOX || '/usr/bin/firefox-esr';

let browser;
let server;

before(async () => {
  requireDist('modelcontext.js', 'modelcontext.iife.js', 'modelcontext.inline.iife.js');
  assert.ok(fs.existsSync(FIREFOX), `${FIREFOX} is missing: make deps installs firefox-esr`);
  server = await getServer();
  browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true });
});

after(() => browser?.close());

/**
 * Runs `fn({ page, goto, consoleMessages, pageErrors })` in a new Firefox page (a fresh
 * browsing context), closing it after; `html`: a page to open first. An uncaught error in the
 * page fails the test, except the browser's own reports that `expected` matches (Firefox
 * reports a CSP violation there, where Chromium writes it to the console).
 */
async function withFirefoxPage(fn, { html, expected = null } = {}) {
  const page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  const consoleMessages = [];
  const pageErrors = [];
  page.on('console', (m) => consoleMessages.push({ type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const goto = (p) => page.goto(server.url(p));
  try {
    if (html !== undefined) await goto(await inlinePage(html));
    const result = await fn({ page, goto, consoleMessages, pageErrors });
    assert.deepEqual(pageErrors.filter((m) => !expected?.test(m)), [], 'uncaught errors in the page');
    return result;
  } finally {
    await page.close();
  }
}

const errors = (consoleMessages) => consoleMessages.filter((m) => m.type === 'error').map((m) => m.text);

// What the shared app shows when everything works (as in bundlers.test.mjs).
const WORKS = { valid: '5', invalid: 'DataError', patternValid: 'hi ada', patternInvalid: 'DataError', viaClient: '42', formTool: 'subscribe' };

const BUILDS = [
  ['ES module (modelcontext.js)', `<script type="module">import '/dist/modelcontext.js'; import '/examples/bundlers/shared/app.js';</script>`],
  ['classic script (modelcontext.iife.js)', `<script src="/dist/modelcontext.iife.js"></script><script type="module" src="/examples/bundlers/shared/app.js"></script>`],
  ['self-contained classic script (modelcontext.inline.iife.js)', `<script src="/dist/modelcontext.inline.iife.js"></script><script type="module" src="/examples/bundlers/shared/app.js"></script>`],
];

for (const [build, scripts] of BUILDS) {
  test(`Firefox, ${build}: a plain schema, a pattern (validator module), an McpClient (client module), a form tool (deferred module)`, () =>
    withFirefoxPage(async ({ page, consoleMessages }) => {
      await page.waitForFunction(() => window.result, { timeout: 60_000 });
      const r = await page.evaluate(() => ({ result: window.result, originAgentCluster: window.originAgentCluster }));
      assert.deepEqual(r.result, WORKS, errors(consoleMessages).join('\n'));
      // Served although Firefox says the document is not origin-keyed (it origin-keys none).
      assert.equal(r.originAgentCluster, false);
      assert.deepEqual(errors(consoleMessages), []);
    }, { html: `<link rel="icon" href="data:,"><pre id="out">loading…</pre>${scripts}` }));
}

test('Firefox: every case of webmcp.cases.mjs gives the record the spec calls for', async (t) => {
  const records = {};
  await withFirefoxPage(async ({ page, goto }) => {
    const here = await inlinePage(`<script src="/dist/modelcontext.iife.js"></script>\n<script>${HELPERS}</script>`);
    for (const c of CASES) {
      await goto(here);
      assert.ok(await page.evaluate(() => !!(window.__t && document.modelContext)), 'the page has document.modelContext and the helpers');
      try {
        records[c.name] = await page.evaluate(c.run);
      } catch (e) {
        records[c.name] = { thrown: String(e.message).split('\n')[0] };
      }
    }
  });
  for (const c of CASES) await t.test(c.name, () => assert.deepEqual(records[c.name], c.expect));
});

test("Firefox: the official MCP TypeScript client over MCP-B's TabClientTransport lists the page's tools and calls them", () =>
  withFirefoxPage(async ({ page, consoleMessages }) => {
    await page.waitForFunction(() => window.Bench);
    const r = await page.evaluate(async () => {
      await window.__benchLoad('esm', '/dist/modelcontext.js');
      await document.modelContext.registerTool({
        name: 'add',
        description: 'Adds two integers',
        inputSchema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] },
        execute: ({ a, b }) => String(a + b),
      });
      const client = new Bench.Client({ name: 'firefox', version: '1.0.0' });
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
        server: typeof server?.name,
      };
    });
    assert.deepEqual(r.tools, [['add', ['a', 'b']]]);
    assert.equal(r.valid, '5');
    assert.equal(r.invalid[0], true);
    assert.match(r.invalid[1], /^Invalid arguments for tool add: \/a: "two" is not of type "integer"/);
    assert.equal(r.server, 'string');
    assert.deepEqual(errors(consoleMessages), []);
  }, { html: benchPage({ title: 'firefox' }) }));

test("Firefox: an agent's call of a <form toolname toolautosubmit> fills and submits it; the page's handler responds", () =>
  withFirefoxPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
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
      return { schema: tool.inputSchema, result, missing, seen };
    });
    assert.deepEqual(JSON.parse(typeof r.schema === 'string' ? r.schema : JSON.stringify(r.schema)).required, ['who']);
    assert.equal(r.result, 'hello Ada');
    assert.equal(r.missing, 'DataError');
    assert.deepEqual(r.seen, [[true, 'Ada']]);
  }, {
    html: `<script src="/dist/modelcontext.iife.js"></script>
<form toolname="greet" tooldescription="Greets someone" toolautosubmit><input name="who" required></form>`,
  }));

test("Firefox, under script-src 'self' (no 'wasm-unsafe-eval'): the object exists, and every call names 'wasm-unsafe-eval'", async () => {
  const id = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  server.route(`/__ffcsp/${id}/app.js`, {
    type: 'text/javascript',
    body: `window.appSaw = typeof document.modelContext;
      document.modelContext.getTools().then((v) => { window.result = { ok: v.length }; }, (e) => { window.result = { name: e.name, message: e.message }; });`,
  });
  server.route(`/__ffcsp/${id}/index.html`, {
    headers: { 'Content-Security-Policy': "script-src 'self'" },
    body: `<!doctype html><meta charset="utf-8"><script src="/dist/modelcontext.iife.js"></script><script src="app.js"></script>`,
  });
  await withFirefoxPage(async ({ page, goto, consoleMessages }) => {
    await goto(`/__ffcsp/${id}/index.html`);
    await page.waitForFunction(() => window.result);
    const r = await page.evaluate(() => ({ saw: window.appSaw, result: window.result }));
    assert.equal(r.saw, 'object', 'the page script after the polyfill sees document.modelContext');
    assert.equal(r.result.name, 'NotSupportedError');
    assert.match(r.result.message, /Content-Security-Policy does not allow WebAssembly\. Add 'wasm-unsafe-eval' to its script-src directive/);
    const ours = errors(consoleMessages).filter((t) => t.startsWith('modelcontext-polyfill:'));
    assert.equal(ours.length, 1, ours.join('\n'));
  }, { expected: /^Content-Security-Policy: .*\(Missing 'wasm-unsafe-eval' or 'unsafe-eval'\)$/ });
});

/**
 * Where Firefox's records of frames.cases.mjs differ from the spec's, and why; each is the
 * browser's, not the polyfill's. Case name → { skip: why } (the case cannot finish there), or
 * { why, record: (origin) => the record Firefox gives }.
 */
const FIREFOX_FRAME_DIFFERENCES = {
  // Firefox runs no promise job of a document that is not fully active, whichever realm awaits
  // the promise: a detached frame's promises (its own Promise.reject(…) too) never settle there.
  // (The top document's executeTool of that frame's tool does reject with InvalidStateError.)
  "document: a detached frame's modelContext rejects with InvalidStateError": {
    skip: "Firefox settles no promise of a detached frame's realm, not even an already-rejected one",
  },
  // Firefox origin-keys no document (originAgentCluster is false in every page), so the spec's
  // origin-keyed step would refuse every call in it; the polyfill serves there
  // (src/browser/store.rs, check_document).
  'document: a document that is not origin-keyed gets SecurityError': {
    why: 'served: Firefox origin-keys no document',
    record: (origin) => ({
      originAgentCluster: false,
      registerTool: 'ok',
      getTools: [{ description: 'A tool named a', name: 'a', origin, title: '', window: undefined }],
      executeTool: 'a ran in top',
      badInputFirst: 'TypeError',
    }),
  },
  // The case reads the frame's policy with document.featurePolicy, which only Chromium has.
  'frames: allow="tools \'none\'" on a same-origin frame': {
    why: 'no document.featurePolicy in Firefox',
    record: () => ({ allows: 'none', registerTool: 'NotAllowedError', getTools: 'NotAllowedError', executeTool: 'NotAllowedError' }),
  },
};

test('Firefox: every case of frames.cases.mjs (frames of this origin and another, exposedTo, allow="tools") gives its record', async (t) => {
  const page0 = `<!doctype html><meta charset="utf-8"><script src="/dist/modelcontext.iife.js"></script><script>${FRAME_HELPERS}</script><body>`;
  const plain = `/__ffframes/plain.html`;
  const oac0 = `/__ffframes/oac0.html`;
  server.route(plain, { body: page0 });
  server.route(oac0, { body: page0, headers: { 'Origin-Agent-Cluster': '?0' } });
  const origin = new URL(server.url('/')).origin;
  const records = {};
  for (const c of FRAME_CASES) {
    if (FIREFOX_FRAME_DIFFERENCES[c.name]?.skip) continue;
    records[c.name] = await withFirefoxPage(async ({ page, goto }) => {
      await goto(c.page === 'oac0' ? oac0 : plain);
      try {
        const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), 8000).unref());
        return await Promise.race([page.evaluate(c.run), timeout]);
      } catch (e) {
        return { thrown: String(e.message).split('\n')[0] };
      }
    });
  }
  for (const c of FRAME_CASES) {
    const differs = FIREFOX_FRAME_DIFFERENCES[c.name];
    await t.test(c.name, { skip: differs?.skip }, () =>
      assert.deepEqual(records[c.name], differs ? differs.record(origin) : c.expect, differs?.why));
  }
});

test('FIREFOX_FRAME_DIFFERENCES names existing cases, and each recorded difference is one', () => {
  const cases = new Map(FRAME_CASES.map((c) => [c.name, c]));
  for (const [name, differs] of Object.entries(FIREFOX_FRAME_DIFFERENCES)) {
    assert.ok(cases.has(name), `no case named ${name}`);
    if (differs.record) assert.notDeepEqual(differs.record('http://127.0.0.1:1'), cases.get(name).expect, name);
  }
});

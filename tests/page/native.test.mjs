// Native coexistence: Chromium with --enable-features=WebMCP has its own document.modelContext.
// The polyfill must leave it in place, put its own object at navigator.modelContext, mirror every
// registration made through the polyfill into the native object (so the browser's agent sees
// it), and serve the native object's own tools over MCP (src/browser/native.rs).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, requireDist, PAGE_UNTIL } from './harness.mjs';
import { MCP_CLIENT } from './webmcp.mcp.mjs';

const HELPERS = `
${PAGE_UNTIL}
window.__nativeNames = async () => (await document.modelContext.getTools()).map((t) => t.name);
`;
const POLYFILL = '<script src="/dist/modelcontext.iife.js"></script>';
/** A page with the helpers, the MCP client, then `before` (scripts run before the polyfill loads). */
const page = (before = '') => `<script>${HELPERS}</script><script>${MCP_CLIENT}</script>${before}${POLYFILL}`;
const opts = (html) => ({ html, nativeWebMCP: true });

test('the native document.modelContext stays; navigator.modelContext is the polyfill', () => {
  requireDist('modelcontext.iife.js');
  return withPage(async ({ page: p, consoleMessages }) => {
    const r = await p.evaluate(() => {
      const mark = globalThis[Symbol.for('modelcontext-polyfill')];
      return {
        nativeKept: document.modelContext instanceof ModelContext && document.modelContext === mark.native,
        navigatorIsPolyfill: navigator.modelContext === mark.modelContext,
        distinct: navigator.modelContext !== document.modelContext,
        nativeInterfaces: /\[native code\]/.test(String(ModelContext)) && /\[native code\]/.test(String(ToolActivatedEvent)),
        polyfillIsEventTarget: navigator.modelContext instanceof EventTarget,
        nativeHasNoSessionApi: typeof document.modelContext.connect,
      };
    });
    assert.deepEqual(r, {
      nativeKept: true,
      navigatorIsPolyfill: true,
      distinct: true,
      nativeInterfaces: true,
      polyfillIsEventTarget: true,
      nativeHasNoSessionApi: 'undefined',
    });
    assert.deepEqual(consoleMessages.filter((m) => m.type === 'warning'), []);
  }, opts(page()));
});

test('a W3C registration on navigator.modelContext is mirrored into the native object', () =>
  withPage(async ({ page: p }) => {
    const r = await p.evaluate(async () => {
      const out = {};
      const ac = new AbortController();
      const calls = [];
      await navigator.modelContext.registerTool({
        name: 'poly',
        title: 'Poly',
        description: 'A polyfill tool',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        annotations: { readOnlyHint: true },
        execute: async (input, { signal }) => {
          calls.push({ input, signal: signal instanceof AbortSignal });
          return { echoed: input.text };
        },
      }, { signal: ac.signal });
      await __until(async () => (await __nativeNames()).includes('poly'), 'the mirror');
      const [tool] = (await document.modelContext.getTools()).filter((t) => t.name === 'poly');
      out.nativeTool = { ...tool, window: tool.window === window };
      out.nativeResult = await document.modelContext.executeTool(tool, { text: 'hi' });
      try { await document.modelContext.executeTool(tool, { text: 5 }); out.invalid = 'ran'; } catch (e) { out.invalid = e.name; }
      out.calls = calls;
      out.polyfillListsItOnce = (await navigator.modelContext.getTools()).filter((t) => t.name === 'poly').length;
      ac.abort();
      await __until(async () => !(await __nativeNames()).includes('poly'), 'the mirror to go');
      out.afterAbort = await __nativeNames();
      return out;
    });
    assert.deepEqual(r, {
      nativeTool: {
        annotations: { consequentialHint: false, debugging: false, readOnlyHint: true, untrustedContentHint: false },
        description: 'A polyfill tool',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        name: 'poly',
        origin: r.nativeTool.origin,
        title: 'Poly',
        window: true,
      },
      nativeResult: '{"echoed":"hi"}',
      invalid: 'UnknownError', // the mirror refuses invalid input; native reports every failure so
      calls: [{ input: { text: 'hi' }, signal: true }],
      polyfillListsItOnce: 1,
      afterAbort: [],
    });
  }, opts(page())));

test('session-API and provideContext registrations are mirrored too', () =>
  withPage(async ({ page: p, consoleMessages }) => {
    const r = await p.evaluate(async () => {
      const mc = navigator.modelContext;
      const out = {};
      const session = await mc.connect();
      const unregister = session.registerTool('sess', { description: 'Session tool', handler: (args) => `session got ${args.n}` });
      mc.registerTool('direct', { description: 'Direct session-API tool', handler: () => 'direct' });
      mc.provideContext({ tools: [{ name: 'provided', description: 'Provided tool', execute: () => 'provided' }] });
      await __until(async () => (await __nativeNames()).length === 3, 'three mirrors');
      out.names = await __nativeNames();
      const tools = await document.modelContext.getTools();
      out.results = [];
      for (const t of tools) out.results.push(await document.modelContext.executeTool(t, { n: 1 }));
      unregister();
      mc.clearContext();
      await __until(async () => (await __nativeNames()).length === 1, 'two mirrors to go');
      out.left = await __nativeNames();
      session.disconnect();
      mc.disconnect();
      await __until(async () => (await __nativeNames()).length === 0, 'the last mirror to go');
      out.end = await __nativeNames();
      return out;
    });
    assert.deepEqual(r, {
      names: ['direct', 'provided', 'sess'],
      results: ['direct', 'provided', 'session got 1'],
      left: ['direct'],
      end: [],
    });
    assert.deepEqual(consoleMessages.filter((m) => m.type === 'warning' && /refused|could not/.test(m.text)), []);
  }, opts(page())));

test('tools registered on the native object are served over MCP (tools/list, tools/call)', () =>
  withPage(async ({ page: p }) => {
    const r = await p.evaluate(async () => {
      const out = {};
      const ac = new AbortController();
      const calls = [];
      await document.modelContext.registerTool({
        name: 'nat',
        description: 'A native tool',
        inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        annotations: { untrustedContentHint: true },
        execute: (input) => { calls.push(input); return `native saw ${input.q}`; },
      }, { signal: ac.signal });
      const mcp = await __mcp.connect();
      const list = async () => (await mcp.request('tools/list')).result.tools;
      await __until(async () => (await list()).some((t) => t.name === 'nat'), 'the proxy');
      out.listed = (await list()).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations }));
      out.earlyListed = (await list()).length;
      const call = await mcp.request('tools/call', { name: 'nat', arguments: { q: 'mcp' } });
      out.call = call.result;
      const bad = await mcp.request('tools/call', { name: 'nat', arguments: { q: 5 } });
      out.badIsError = !!(bad.error || bad.result.isError);
      out.calls = calls;
      out.polyfillGetTools = (await navigator.modelContext.getTools()).map((t) => t.name);
      out.viaPolyfill = await navigator.modelContext.executeTool((await navigator.modelContext.getTools())[1], { q: 'w3c' });
      out.nativeListsItOnce = (await __nativeNames()).filter((n) => n === 'nat').length;
      ac.abort();
      await __until(async () => !(await list()).some((t) => t.name === 'nat'), 'the proxy to go');
      out.afterAbort = (await list()).map((t) => t.name);
      return out;
    });
    assert.deepEqual(r, {
      listed: [
        { name: 'early', description: 'Registered before the polyfill loaded', inputSchema: { type: 'object', properties: {} }, annotations: undefined },
        {
          name: 'nat',
          description: 'A native tool',
          inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
          annotations: { consequentialHint: false, debugging: false, readOnlyHint: false, untrustedContentHint: true },
        },
      ],
      earlyListed: 2,
      call: { content: [{ type: 'text', text: 'native saw mcp' }] },
      badIsError: true,
      calls: [{ q: 'mcp' }, { q: 'w3c' }],
      polyfillGetTools: ['early', 'nat'],
      viaPolyfill: 'native saw w3c',
      nativeListsItOnce: 1,
      afterAbort: ['early'],
    });
  }, opts(page(`<script>document.modelContext.registerTool({ name: 'early', description: 'Registered before the polyfill loaded', execute: () => 'early' });</script>`))));

test('one namespace: a name the native object holds is taken for the polyfill too', () =>
  withPage(async ({ page: p }) => {
    const r = await p.evaluate(async () => {
      await document.modelContext.registerTool({ name: 'shared', description: 'native', execute: () => 'native' });
      await __until(async () => (await navigator.modelContext.getTools()).some((t) => t.name === 'shared'), 'the proxy');
      let dup;
      try { await navigator.modelContext.registerTool({ name: 'shared', description: 'polyfill', execute: () => 'polyfill' }); dup = 'registered'; } catch (e) { dup = e.name; }
      const [t] = await navigator.modelContext.getTools();
      return { dup, description: t.description, result: await navigator.modelContext.executeTool(t, {}), native: await __nativeNames() };
    });
    assert.deepEqual(r, { dup: 'InvalidStateError', description: 'native', result: 'native', native: ['shared'] });
  }, opts(page())));

// Earlier WebMCP drafts, still used in the wild (src/browser/legacy.rs): provideContext,
// clearContext, unregisterTool, registerTool(tool).unregister(), execute(input, client) with
// client.requestUserInteraction(cb), and Chromium's navigator.modelContextTesting. Each keeps
// working and logs one deprecation warning, however often it is used.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, requireDist } from './harness.mjs';
import { MCP_CLIENT } from './webmcp.mcp.mjs';

const HTML = `<script src="/dist/modelcontext.iife.js"></script><script>${MCP_CLIENT}</script>`;
const run = (fn) => withPage(fn, { html: HTML });

/** The polyfill's deprecation warnings that match `re`. */
const warnings = (consoleMessages, re) =>
  consoleMessages.filter((m) => m.type === 'warning' && m.text.startsWith('modelcontext-polyfill:') && re.test(m.text));

test('provideContext({ tools }) replaces the WebMCP tool set; clearContext() empties it', () => {
  requireDist('modelcontext.iife.js');
  return run(async ({ page, consoleMessages }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      const names = async () => (await mc.getTools()).map((t) => t.name);
      const out = {};
      let changes = 0;
      mc.addEventListener('toolchange', () => changes++);
      await mc.registerTool({ name: 'w3c', description: 'd', execute: () => 'w3c' });
      mc.registerTool('session', { description: 'session-API tool', handler: () => 'session' });
      out.returned = String(mc.provideContext({ tools: [
        { name: 'a', description: 'A', execute: () => 'a', inputSchema: { type: 'object', properties: { x: { type: 'number' } } } },
        { name: 'b', description: 'B', execute: () => 'b' },
      ] }));
      out.first = await names();
      mc.provideContext({ tools: [{ name: 'c', description: 'C', execute: () => 'c' }] });
      out.second = await names();
      const e = (f) => { try { f(); return 'ok'; } catch (x) { return x.name; } };
      out.errors = {
        twice: e(() => mc.provideContext({ tools: [{ name: 'd', description: 'd', execute() {} }, { name: 'd', description: 'd', execute() {} }] })),
        badName: e(() => mc.provideContext({ tools: [{ name: 'ok', description: 'd', execute() {} }, { name: 'bad name', description: 'd', execute() {} }] })),
        noExecute: e(() => mc.provideContext({ tools: [{ name: 'e', description: 'd' }] })),
        notArray: e(() => mc.provideContext({ tools: 5 })),
        takenBySession: e(() => mc.provideContext({ tools: [{ name: 'session', description: 'd', execute() {} }] })),
      };
      out.afterErrors = await names();
      out.result = await mc.executeTool((await mc.getTools())[0], {});
      mc.provideContext({});
      out.emptyProvide = await names();
      mc.provideContext({ tools: [{ name: 'z', description: 'Z', execute() {} }] });
      mc.clearContext();
      mc.clearContext();
      out.cleared = await names();
      await new Promise((r) => setTimeout(r, 20));
      out.toolchanges = changes > 0;
      return out;
    });
    assert.deepEqual(r, {
      returned: 'undefined',
      first: ['a', 'b', 'session'],
      second: ['c', 'session'],
      errors: { twice: 'InvalidStateError', badName: 'InvalidStateError', noExecute: 'TypeError', notArray: 'TypeError', takenBySession: 'InvalidStateError' },
      afterErrors: ['c', 'session'],
      result: 'c',
      emptyProvide: ['session'],
      cleared: ['session'],
      toolchanges: true,
    });
    assert.equal(warnings(consoleMessages, /provideContext\(\) is deprecated/).length, 1);
    assert.equal(warnings(consoleMessages, /clearContext\(\) is deprecated/).length, 1);
  });
});

test('unregisterTool(name) removes a tool; unknown names are ignored', () =>
  run(async ({ page, consoleMessages }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      await mc.registerTool({ name: 'a', description: 'd', execute() {} });
      await mc.registerTool({ name: 'b', description: 'd', execute() {} });
      const returned = mc.unregisterTool('a');
      mc.unregisterTool('nope');
      return { returned: String(returned), names: (await mc.getTools()).map((t) => t.name) };
    });
    assert.deepEqual(r, { returned: 'undefined', names: ['b'] });
    assert.equal(warnings(consoleMessages, /unregisterTool\(\) is deprecated/).length, 1);
  }));

test('registerTool(tool).unregister() removes that registration only', () =>
  run(async ({ page, consoleMessages }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      const out = {};
      const reg = mc.registerTool({ name: 'a', description: 'first', execute() {} });
      out.isPromise = reg instanceof Promise;
      out.enumerable = Object.keys(reg);
      await reg;
      reg.unregister();
      out.afterUnregister = (await mc.getTools()).map((t) => t.name);
      await mc.registerTool({ name: 'a', description: 'second', execute() {} });
      reg.unregister(); // stale handle: the new registration stays
      out.afterStale = (await mc.getTools()).map((t) => t.description);
      const failed = mc.registerTool({ name: 'a', description: 'duplicate', execute() {} });
      out.failed = await failed.then(() => 'resolved', (e) => e.name);
      failed.unregister(); // a failed registration's handle does nothing
      out.afterFailed = (await mc.getTools()).map((t) => t.description);
      return out;
    });
    assert.deepEqual(r, {
      isPromise: true,
      enumerable: [],
      afterUnregister: [],
      afterStale: ['second'],
      failed: 'InvalidStateError',
      afterFailed: ['second'],
    });
    assert.equal(warnings(consoleMessages, /unregister\(\) is deprecated/).length, 1);
  }));

test('execute(input, client): client.requestUserInteraction(cb) runs cb and resolves with its result', () =>
  run(async ({ page, consoleMessages }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      const seen = [];
      await mc.registerTool({
        name: 'confirm',
        description: 'Asks the user first',
        async execute(input, client) {
          const answer = await client.requestUserInteraction(async () => `user said yes to ${input.what}`);
          const again = await client.requestUserInteraction(() => 42);
          let failure;
          try { await client.requestUserInteraction(() => { throw new Error('user said no'); }); } catch (e) { failure = e.message; }
          seen.push({ keys: Object.keys(client), answer, again, failure });
          return answer;
        },
      });
      const [tool] = await mc.getTools();
      const viaW3c = await mc.executeTool(tool, { what: 'w3c' });
      const mcp = await __mcp.connect();
      const viaMcp = (await mcp.request('tools/call', { name: 'confirm', arguments: { what: 'mcp' } })).result.content[0].text;
      return { viaW3c, viaMcp, seen };
    });
    assert.deepEqual(r, {
      viaW3c: 'user said yes to w3c',
      viaMcp: 'user said yes to mcp',
      seen: [
        { keys: ['signal'], answer: 'user said yes to w3c', again: 42, failure: 'user said no' },
        { keys: ['signal'], answer: 'user said yes to mcp', again: 42, failure: 'user said no' },
      ],
    });
    assert.equal(warnings(consoleMessages, /requestUserInteraction\(\) are deprecated/).length, 1);
  }));

test('navigator.modelContextTesting: listTools, executeTool(name, json), registerToolsChangedCallback', () =>
  run(async ({ page, consoleMessages }) => {
    const r = await page.evaluate(async () => {
      const t = navigator.modelContextTesting;
      const mc = navigator.modelContext;
      const out = { methods: ['listTools', 'executeTool', 'registerToolsChangedCallback'].map((m) => typeof t[m]) };
      let changed = 0;
      t.registerToolsChangedCallback(() => changed++);
      await mc.registerTool({
        name: 'echo',
        description: 'Echo',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        execute: ({ text }) => ({ echoed: text }),
      });
      await mc.registerTool({ name: 'plain', description: 'No schema', execute: () => 'plain' });
      out.changed = changed;
      out.list = t.listTools();
      // A call fires toolactivated at the ModelContext and at the window, as executeTool does.
      const seen = [];
      mc.addEventListener('toolactivated', (ev) => seen.push(['modelContext', ev.toolName, ev instanceof ToolActivatedEvent]));
      window.addEventListener('toolactivated', (ev) => seen.push(['window', ev.toolName, ev instanceof ToolActivatedEvent]));
      out.result = await t.executeTool('echo', JSON.stringify({ text: 'hi' }));
      const e = (p) => p.then(() => 'ok', (x) => x.name);
      out.errors = {
        unknown: await e(t.executeTool('nope', '{}')),
        badJson: await e(t.executeTool('echo', '{not json')),
        notObject: await e(t.executeTool('echo', '5')),
        invalid: await e(t.executeTool('echo', '{"text":5}')),
      };
      // After every refusal the next call runs.
      out.after = await t.executeTool('plain', '[]');
      out.seen = seen;
      return out;
    });
    assert.deepEqual(r, {
      methods: ['function', 'function', 'function'],
      changed: 2,
      list: [
        { name: 'echo', description: 'Echo', inputSchema: '{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}' },
        { name: 'plain', description: 'No schema' },
      ],
      result: '{"echoed":"hi"}',
      errors: { unknown: 'UnknownError', badJson: 'TypeError', notObject: 'TypeError', invalid: 'DataError' },
      after: 'plain',
      seen: [
        ['modelContext', 'echo', true],
        ['window', 'echo', true],
        ['modelContext', 'plain', true],
        ['window', 'plain', true],
      ],
    });
    assert.equal(warnings(consoleMessages, /modelContextTesting is deprecated/).length, 1);
  }));

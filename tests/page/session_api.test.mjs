// The session API (src/browser/session_api.rs): modelContext.connect(options) → a session with
// registerTool / registerResource / registerPrompt / notify / isConnected / disconnect, and the
// same methods directly on modelContext. Everything is checked from both sides: the page's
// getTools() and an MCP client on the page's own server (default tab transport).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, requireDist, PAGE_UNTIL } from './harness.mjs';
import { MCP_CLIENT } from './webmcp.mcp.mjs';

const HTML = `<script src="/dist/modelcontext.iife.js"></script><script>${MCP_CLIENT}
${PAGE_UNTIL}
</script>`;
const run = (fn) => withPage(fn, { html: HTML });

test('connect() gives a session; its registerTool shows in getTools() and MCP tools/list and calls the handler', () => {
  requireDist('modelcontext.iife.js');
  return run(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      const out = {};
      const p = mc.connect({ serverInfo: { name: 'session-test', version: '9.9.9' } });
      out.connectIsPromise = p instanceof Promise;
      const session = await p;
      out.methods = ['registerTool', 'registerResource', 'registerPrompt', 'notify', 'isConnected', 'disconnect'].map((m) => typeof session[m]);
      out.connected = session.isConnected();
      const seen = [];
      const unregister = session.registerTool('add', {
        title: 'Add',
        description: 'Adds two numbers',
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
        annotations: { readOnlyHint: true, idempotentHint: true },
        handler: (args, options) => {
          seen.push({ args, signal: options.signal instanceof AbortSignal, requestId: options.requestId !== undefined, reportProgress: typeof options.reportProgress });
          return { sum: args.a + args.b };
        },
      });
      out.unregisterType = typeof unregister;
      const [t] = await mc.getTools();
      out.getTools = { name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations };
      const mcp = await __mcp.connect();
      out.serverInfo = mcp.init.result.serverInfo;
      out.capabilities = Object.keys(mcp.init.result.capabilities).sort();
      const list = (await mcp.request('tools/list')).result.tools;
      out.listed = list;
      out.call = (await mcp.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } })).result;
      const bad = await mcp.request('tools/call', { name: 'add', arguments: { a: 'x', b: 3 } });
      out.bad = bad.error ? bad.error.message : bad.result.content[0].text;
      out.w3c = await mc.executeTool(t, { a: 1, b: 1 });
      out.seen = seen;
      unregister();
      out.afterUnregister = (await mc.getTools()).map((x) => x.name);
      await __until(() => mcp.notifications.some((n) => n.method === 'notifications/tools/list_changed'), 'list_changed');
      out.listAfter = (await mcp.request('tools/list')).result.tools.map((x) => x.name);
      return out;
    });
    assert.deepEqual(r, {
      connectIsPromise: true,
      methods: ['function', 'function', 'function', 'function', 'function', 'function'],
      connected: true,
      unregisterType: 'function',
      getTools: {
        name: 'add',
        title: 'Add',
        description: 'Adds two numbers',
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        annotations: { consequentialHint: false, debugging: false, readOnlyHint: true, untrustedContentHint: false },
      },
      serverInfo: r.serverInfo,
      capabilities: r.capabilities,
      listed: [{
        name: 'add',
        title: 'Add',
        description: 'Adds two numbers',
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
        annotations: { readOnlyHint: true, idempotentHint: true },
      }],
      call: { content: [{ type: 'text', text: '{"sum":5}' }], structuredContent: { sum: 5 } },
      bad: r.bad,
      w3c: '{"sum":2}',
      seen: [
        { args: { a: 2, b: 3 }, signal: true, requestId: true, reportProgress: 'function' },
        { args: { a: 1, b: 1 }, signal: true, requestId: false, reportProgress: 'function' },
      ],
      afterUnregister: [],
      listAfter: [],
    });
    assert.equal(r.serverInfo.name, 'session-test');
    assert.equal(r.serverInfo.version, '9.9.9');
    assert.ok(['prompts', 'resources', 'tools'].every((c) => r.capabilities.includes(c)), r.capabilities.join());
    assert.match(r.bad, /\/a/);
    assert.match(r.bad, /type/);
  });
});

test('registerResource (fixed URI and template) and registerPrompt, read through MCP', () =>
  run(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const session = await navigator.modelContext.connect();
      const out = {};
      const calls = [];
      const offNote = session.registerResource('app://notes/today', {
        name: 'today', description: "Today's note", mimeType: 'text/plain',
        handler: (uri) => { calls.push(['note', String(uri)]); return 'buy milk'; },
      });
      session.registerResource('app://items/{id}', {
        name: 'item', description: 'One item', mimeType: 'application/json',
        handler: (uri, vars) => { calls.push(['item', String(uri), vars]); return { contents: [{ uri: String(uri), mimeType: 'application/json', text: JSON.stringify({ id: vars.id }) }] }; },
      });
      const offPrompt = session.registerPrompt('greet', {
        description: 'Greets someone',
        arguments: [{ name: 'who', description: 'Whom to greet', required: true }],
        handler: (args) => { calls.push(['prompt', args]); return `Hello, ${args.who}!`; },
      });
      out.types = [typeof offNote, typeof offPrompt];
      const mcp = await __mcp.connect();
      out.resources = (await mcp.request('resources/list')).result.resources;
      out.templates = (await mcp.request('resources/templates/list')).result.resourceTemplates;
      out.readNote = (await mcp.request('resources/read', { uri: 'app://notes/today' })).result;
      out.readItem = (await mcp.request('resources/read', { uri: 'app://items/42' })).result;
      out.prompts = (await mcp.request('prompts/list')).result.prompts;
      out.prompt = (await mcp.request('prompts/get', { name: 'greet', arguments: { who: 'Ada' } })).result;
      out.calls = calls;
      offNote();
      offPrompt();
      out.resourcesAfter = (await mcp.request('resources/list')).result.resources.map((x) => x.uri);
      out.promptsAfter = (await mcp.request('prompts/list')).result.prompts.map((x) => x.name);
      return out;
    });
    assert.deepEqual(r, {
      types: ['function', 'function'],
      resources: [{ uri: 'app://notes/today', name: 'today', description: "Today's note", mimeType: 'text/plain' }],
      templates: [{ uriTemplate: 'app://items/{id}', name: 'item', description: 'One item', mimeType: 'application/json' }],
      readNote: { contents: [{ uri: 'app://notes/today', mimeType: 'text/plain', text: 'buy milk' }] },
      readItem: { contents: [{ uri: 'app://items/42', mimeType: 'application/json', text: '{"id":"42"}' }] },
      prompts: [{ name: 'greet', description: 'Greets someone', arguments: [{ name: 'who', description: 'Whom to greet', required: true }] }],
      prompt: { description: 'Greets someone', messages: [{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }] },
      calls: [['note', 'app://notes/today'], ['item', 'app://items/42', { id: '42' }], ['prompt', { who: 'Ada' }]],
      resourcesAfter: [],
      promptsAfter: [],
    });
  }));

test('a resources/read URI built against the templates (expressions side by side, tens of thousands of characters) is not found, and the next read is served', () =>
  run(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const session = await navigator.modelContext.connect();
      const read = [];
      for (const t of ['app://{a}{b}{c}', 'app://files/{name}']) {
        session.registerResource(t, { name: t, handler: (uri, vars) => { read.push(vars); return 'r'; } });
      }
      const mcp = await __mcp.connect();
      const out = { errors: [] };
      // (Before the template search was bounded, each of these kept the page's thread for
      // minutes.)
      for (const uri of [`app://${'a'.repeat(3000)}/`, `app://files/${'a'.repeat(200000)}/`]) {
        const answer = await mcp.request('resources/read', { uri });
        out.errors.push([answer.error?.code, answer.error?.data?.uri === uri]);
      }
      out.next = (await mcp.request('resources/read', { uri: 'app://x1y' })).result;
      out.read = read;
      return out;
    });
    assert.deepEqual(r, {
      errors: [[-32002, true], [-32002, true]],
      next: { contents: [{ uri: 'app://x1y', text: 'r' }] },
      read: [{ a: 'x', b: '1', c: 'y' }],
    });
  }));

// What a peer's request names is read in one sort and held within bounds: a prompt's 280,000
// arguments written in descending order (inserted one by one, each moved all the others: minutes)
// are refused at once, naming the first 32 and counting the rest; URIs of 3 MiB fill a session's
// subscription text (4 MiB) before its count. Each time the next request is served. (The page
// lets a message hold more values than the default 100,000, limits.maxMessageValues, which would
// refuse those arguments before any reading of them.)
test('prompts/get with 280,000 unknown arguments in descending order, and subscriptions past 4 MiB of URIs, are refused at once, and the next request is served', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const session = await navigator.modelContext.connect();
      const rendered = [];
      session.registerPrompt('greet', {
        description: 'Greets someone',
        arguments: [{ name: 'who', description: 'Whom to greet', required: true }],
        handler: (args) => { rendered.push(args.who); return `Hello, ${args.who}!`; },
      });
      session.registerResource('app://doc', { name: 'doc', handler: () => 'text' });
      const mcp = await __mcp.connect();
      const args = {};
      for (let i = 279999; i >= 0; i -= 1) args[`k${i}`] = 'v';
      args.who = 'Ada';
      const many = await mcp.request('prompts/get', { name: 'greet', arguments: args });
      const next = await mcp.request('prompts/get', { name: 'greet', arguments: { who: 'Grace' } });
      const long = (c) => `app://${c.repeat(3 << 20)}`;
      const subscribed = [];
      for (const uri of [long('a'), long('b'), 'app://doc']) {
        const answer = await mcp.request('resources/subscribe', { uri });
        subscribed.push(answer.error ? [answer.error.code, answer.error.data.limit] : 'ok');
      }
      session.notify('notifications/resources/updated', { uri: 'app://doc' });
      await __until(() => mcp.notifications.some((n) => n.method === 'notifications/resources/updated'), 'the update');
      return {
        many: [many.error.code, many.error.message.length < 2048, many.error.message.endsWith(', and 279968 more'), many.error.message.slice(0, 60)],
        next: next.result.messages[0].content.text,
        rendered,
        subscribed,
      };
    });
    assert.deepEqual(r, {
      many: [-32602, true, true, 'Prompt greet has no argument(s): k0, k1, k10, k100, k1000, k'],
      next: 'Hello, Grace!',
      rendered: ['Grace'],
      subscribed: ['ok', [-32600, 4194304], 'ok'],
    });
  }, { html: `<script>window.modelContextPolyfillConfig = { limits: { maxMessageValues: 1e6 } };</script>${HTML}`, timeout: 60_000 }));

test('notify: log messages, resource updates to subscribers, other notifications to everyone', () =>
  run(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const session = await navigator.modelContext.connect();
      session.registerResource('app://doc', { name: 'doc', handler: () => 'text' });
      const mcp = await __mcp.connect();
      await mcp.request('logging/setLevel', { level: 'info' });
      await mcp.request('resources/subscribe', { uri: 'app://doc' });
      session.notify('notifications/message', { level: 'warning', logger: 'page', data: { hello: 1 } });
      session.notify('notifications/message', { level: 'debug', data: 'filtered out' });
      session.notify('notifications/resources/updated', { uri: 'app://doc' });
      navigator.modelContext.notify('notifications/custom/thing', { x: 1 });
      const errors = [];
      for (const [m, p] of [['not/a/notification', {}], ['notifications/message', { level: 'loud' }], ['notifications/resources/updated', {}], ['notifications/x', 5]]) {
        try { session.notify(m, p); errors.push('ok'); } catch (e) { errors.push(e.name); }
      }
      await __until(() => mcp.notifications.some((n) => n.method === 'notifications/custom/thing'), 'the custom notification');
      return { got: mcp.notifications.filter((n) => n.method !== 'notifications/tools/list_changed').map((n) => [n.method, n.params]), errors };
    });
    assert.deepEqual(r, {
      got: [
        ['notifications/message', { level: 'warning', logger: 'page', data: { hello: 1 } }],
        ['notifications/resources/updated', { uri: 'app://doc' }],
        ['notifications/custom/thing', { x: 1 }],
      ],
      errors: ['TypeError', 'TypeError', 'TypeError', 'TypeError'],
    });
  }));

test('disconnect() removes what the session registered, and only that', () =>
  run(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      const a = await mc.connect();
      const b = await mc.connect();
      await mc.registerTool({ name: 'w3c', description: 'W3C tool', execute: () => 'w3c' });
      a.registerTool('a_tool', { description: 'A', handler: () => 'a' });
      a.registerResource('app://a', { name: 'a', handler: () => 'a' });
      a.registerPrompt('a_prompt', { handler: () => 'a' });
      b.registerTool('b_tool', { description: 'B', handler: () => 'b' });
      const mcp = await __mcp.connect();
      const names = async () => ({
        tools: (await mcp.request('tools/list')).result.tools.map((t) => t.name),
        resources: (await mcp.request('resources/list')).result.resources.map((t) => t.uri),
        prompts: (await mcp.request('prompts/list')).result.prompts.map((t) => t.name),
      });
      const before = await names();
      a.disconnect();
      a.disconnect(); // idempotent
      const after = await names();
      const errors = [];
      for (const f of [() => a.registerTool('late', { handler() {} }), () => a.registerResource('app://late', { handler() {} }), () => a.registerPrompt('late', { handler() {} }), () => a.notify('notifications/x', {})]) {
        try { f(); errors.push('ok'); } catch (e) { errors.push(e.name); }
      }
      return { before, after, connected: [a.isConnected(), b.isConnected()], errors, getTools: (await mc.getTools()).map((t) => t.name) };
    });
    assert.deepEqual(r, {
      before: { tools: ['a_tool', 'b_tool', 'w3c'], resources: ['app://a'], prompts: ['a_prompt'] },
      after: { tools: ['b_tool', 'w3c'], resources: [], prompts: [] },
      connected: [false, true],
      errors: ['InvalidStateError', 'InvalidStateError', 'InvalidStateError', 'InvalidStateError'],
      getTools: ['b_tool', 'w3c'],
    });
  }));

test('disconnect() leaves a name another session re-registered after this one gave it up', () =>
  run(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      const a = await mc.connect();
      const b = await mc.connect();
      const offs = [
        a.registerTool('t', { description: 'A', handler: () => 'a' }),
        a.registerResource('app://r', { name: 'r', handler: () => 'a' }),
        a.registerPrompt('p', { handler: () => 'a' }),
      ];
      for (const off of offs) off();
      b.registerTool('t', { description: 'B', handler: () => 'b' });
      b.registerResource('app://r', { name: 'r', handler: () => 'b' });
      b.registerPrompt('p', { handler: () => 'b' });
      a.disconnect();
      const mcp = await __mcp.connect();
      return {
        tools: (await mcp.request('tools/list')).result.tools.map((t) => t.description),
        resource: (await mcp.request('resources/read', { uri: 'app://r' })).result.contents.map((c) => c.text),
        prompt: (await mcp.request('prompts/get', { name: 'p' })).result.messages.map((m) => m.content.text),
      };
    });
    assert.deepEqual(r, { tools: ['B'], resource: ['b'], prompt: ['b'] });
  }));

test('each unregister function removes its own registration only, once', () =>
  run(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const s = await navigator.modelContext.connect();
      const names = async () => (await navigator.modelContext.getTools()).map((t) => t.name);
      const offs = ['t1', 't2', 't3'].map((n) => s.registerTool(n, { description: n, handler: () => n }));
      const uris = ['app://a', 'app://b'].map((uri) => s.registerResource(uri, { name: uri, handler: () => uri }));
      const out = { registered: await names() };
      offs[1]();
      out.afterOne = await names();
      offs[1]();
      out.twice = await names();
      s.registerTool('t2', { description: 'again', handler: () => 'again' });
      offs[1](); // stale: the new registration of t2 stays
      out.stale = (await navigator.modelContext.getTools()).map((t) => `${t.name}:${t.description}`);
      uris[0]();
      const mcp = await __mcp.connect();
      out.resources = (await mcp.request('resources/list')).result.resources.map((x) => x.uri);
      s.disconnect();
      out.disconnected = await names();
      offs[0](); // after disconnect: nothing left to remove, no error
      return out;
    });
    assert.deepEqual(r, {
      registered: ['t1', 't2', 't3'],
      afterOne: ['t1', 't3'],
      twice: ['t1', 't3'],
      stale: ['t1:t1', 't2:again', 't3:t3'],
      resources: ['app://b'],
      disconnected: [],
    });
  }));

test('the same methods directly on modelContext; its disconnect() stops the tab server', () =>
  run(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      const out = { methods: ['registerTool', 'registerResource', 'registerPrompt', 'notify', 'isConnected', 'disconnect', 'connect'].map((m) => typeof mc[m]) };
      // The default tab server runs from the moment the core has loaded (before: false,
      // tests/page/front.test.mjs).
      await globalThis[Symbol.for('modelcontext-polyfill')].ready;
      out.connectedAtStart = mc.isConnected();
      const off = mc.registerTool('direct', { description: 'Direct', handler: () => 'direct' });
      mc.registerResource('app://direct', { name: 'direct', handler: () => 'direct' });
      mc.registerPrompt('direct', { handler: () => 'direct' });
      await mc.registerTool({ name: 'w3c', description: 'W3C', execute: () => 'w3c' });
      const mcp = await __mcp.connect();
      out.tools = (await mcp.request('tools/list')).result.tools.map((t) => t.name);
      out.call = (await mcp.request('tools/call', { name: 'direct', arguments: {} })).result;
      out.offType = typeof off;
      const stopped = new Promise((resolve) => window.addEventListener('message', (e) => { if (e.data && e.data.payload === 'mcp-server-stopped') resolve(true); }));
      mc.disconnect();
      out.stoppedMessage = await stopped;
      out.connectedAfter = mc.isConnected();
      out.left = (await mc.getTools()).map((t) => t.name);
      await mc.connect();
      out.reconnected = mc.isConnected();
      const again = await __mcp.connect();
      out.resourcesAfter = (await again.request('resources/list')).result.resources.length;
      out.promptsAfter = (await again.request('prompts/list')).result.prompts.length;
      out.toolsAfter = (await again.request('tools/list')).result.tools.map((t) => t.name);
      return out;
    });
    assert.deepEqual(r, {
      methods: ['function', 'function', 'function', 'function', 'function', 'function', 'function'],
      connectedAtStart: true,
      tools: ['direct', 'w3c'],
      call: { content: [{ type: 'text', text: 'direct' }] },
      offType: 'function',
      stoppedMessage: true,
      connectedAfter: false,
      left: ['w3c'],
      reconnected: true,
      resourcesAfter: 0,
      promptsAfter: 0,
      toolsAfter: ['w3c'],
    });
  }));

test('a tool from any door is in getTools() and in MCP tools/list', () =>
  run(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      // (provideContext replaces the W3C API's tool set, so it comes first.)
      mc.provideContext({ tools: [{ name: 'provided', description: 'provideContext', execute: () => 'provided' }] });
      await document.modelContext.registerTool({ name: 'w3c', description: 'W3C registerTool', execute: () => 'w3c' });
      const session = await mc.connect();
      session.registerTool('session', { description: 'session.registerTool', handler: () => 'session' });
      mc.registerTool('direct', { description: 'modelContext.registerTool(name, def)', handler: () => 'direct' });
      const mcp = await __mcp.connect();
      const listed = (await mcp.request('tools/list')).result.tools.map((t) => t.name);
      const got = (await mc.getTools()).map((t) => t.name);
      const results = [];
      for (const name of got) {
        results.push((await mcp.request('tools/call', { name, arguments: {} })).result.content[0].text);
      }
      const w3c = [];
      for (const t of await mc.getTools()) w3c.push(await mc.executeTool(t));
      return { listed, got, results, w3c };
    });
    const names = ['direct', 'provided', 'session', 'w3c'];
    assert.deepEqual(r, { listed: names, got: names, results: names, w3c: names });
  }));

test('session-API registration errors are synchronous exceptions', () =>
  run(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      const s = await mc.connect();
      s.registerTool('taken', { handler() {} });
      const e = (f) => { try { f(); return 'ok'; } catch (x) { return x.name; } };
      return {
        duplicate: e(() => s.registerTool('taken', { handler() {} })),
        duplicateAcrossDoors: e(() => mc.registerTool('taken', { handler() {} })),
        badName: e(() => s.registerTool('bad name', { handler() {} })),
        noHandler: e(() => s.registerTool('x', { description: 'd' })),
        notObject: e(() => s.registerTool('x', 5)),
        badSchema: e(() => s.registerTool('x', { inputSchema: { type: 'string' }, handler() {} })),
        resourceNoScheme: e(() => s.registerResource('no-scheme', { handler() {} })),
        resourceDuplicate: e(() => { s.registerResource('app://r', { handler() {} }); s.registerResource('app://r', { handler() {} }); }),
        promptDuplicate: e(() => { s.registerPrompt('p', { handler() {} }); s.registerPrompt('p', { handler() {} }); }),
        connectBadOptions: await mc.connect(5).then(() => 'ok', (x) => x.name),
      };
    });
    assert.deepEqual(r, {
      duplicate: 'InvalidStateError',
      duplicateAcrossDoors: 'InvalidStateError',
      badName: 'InvalidStateError',
      noHandler: 'TypeError',
      notObject: 'TypeError',
      badSchema: 'TypeError',
      resourceNoScheme: 'TypeError',
      resourceDuplicate: 'InvalidStateError',
      promptDuplicate: 'InvalidStateError',
      connectBadOptions: 'TypeError',
    });
  }));

test("the MCP TypeScript SDK's forms (registerTool(name, config, handler), registerResource(name, uri, config, read), registerPrompt(name, config, callback)) on a session and on modelContext; what cannot work is a TypeError and registers nothing", () =>
  run(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = navigator.modelContext;
      const s = await mc.connect();
      const seen = [];
      const config = {
        title: 'Multiply',
        description: 'Multiplies two numbers',
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        annotations: { readOnlyHint: true },
      };
      const off = s.registerTool('mul', config, async ({ a, b }, extra) => {
        seen.push(typeof extra.sendRequest);
        return { content: [{ type: 'text', text: String(a * b) }] };
      });
      mc.registerTool('neg', { description: 'Negates', inputSchema: { type: 'object', properties: { x: { type: 'number' } } } }, ({ x }) => String(-x));
      const e = (f) => { try { f(); return 'registered'; } catch (x) { return `${x.name}: ${x.message}`; } };
      const twice = e(() => s.registerTool('twice', { handler() {} }, () => 'x'));
      const notFunction = e(() => s.registerTool('nofn', { description: 'd' }, 'x'));
      // The SDK's registerResource(name, uri, config, read) and registerPrompt(name, config, cb).
      const resourceNoRead = e(() => s.registerResource('cfg', 'app://cfg', {}, 'read'));
      const promptTwice = e(() => s.registerPrompt('p2', { handler() {} }, () => 'x'));
      const argsNotSchema = e(() => s.registerPrompt('p3', { argsSchema: 5 }, () => 'x'));
      const argsMemberNotSchema = e(() => s.registerPrompt('p4', { argsSchema: { topic: 'string' } }, () => 'x'));
      const mcp = await __mcp.connect();
      const listed = (await mcp.request('tools/list')).result.tools.map((t) => [t.name, t.title ?? null, t.annotations?.readOnlyHint ?? null]).sort();
      const mul = (await mcp.request('tools/call', { name: 'mul', arguments: { a: 6, b: 7 } })).result.content[0].text;
      const bad = await mcp.request('tools/call', { name: 'mul', arguments: { a: 'six', b: 7 } });
      const mulBad = bad.error ? bad.error.message : bad.result.content[0].text;
      const neg = (await mcp.request('tools/call', { name: 'neg', arguments: { x: 2 } })).result.content[0].text;
      off();
      const after = (await mc.getTools()).map((t) => t.name);
      const refusedNothingLeft = { resources: (await mcp.request('resources/list')).result.resources.length, prompts: (await mcp.request('prompts/list')).result.prompts.length };
      return { listed, mul, mulBad, neg, seen, twice, notFunction, after, resourceNoRead, promptTwice, argsNotSchema, argsMemberNotSchema, refusedNothingLeft };
    });
    assert.deepEqual(r.listed, [['mul', 'Multiply', true], ['neg', null, null]]);
    assert.equal(r.mul, '42');
    assert.match(r.mulBad, /\/a: "six" is not of type "number"/);
    assert.equal(r.neg, '-2');
    assert.deepEqual(r.seen, ['function']);
    assert.equal(r.twice, 'TypeError: registerTool("twice"): the handler is given twice (in the definition and as the third argument)');
    assert.equal(r.notFunction, 'TypeError: registerTool("nofn"): the third argument must be the handler function');
    assert.deepEqual(r.after, ['neg']);
    assert.equal(r.resourceNoRead, 'TypeError: registerResource("app://cfg"): the fourth argument must be the read callback');
    assert.equal(r.promptTwice, 'TypeError: registerPrompt("p2"): the handler is given twice (in the definition and as the third argument)');
    assert.equal(r.argsNotSchema, 'TypeError: argsSchema must be a schema of an object (with zod, z.object({ … })) or an object of schemas');
    assert.equal(r.argsMemberNotSchema, 'TypeError: argsSchema.topic is not a Standard Schema (a zod schema, for example)');
    assert.deepEqual(r.refusedNothingLeft, { resources: 0, prompts: 0 });
  }));

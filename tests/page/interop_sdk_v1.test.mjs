// Interop with the MCP TypeScript SDK's first generation (@modelcontextprotocol/sdk 1.x), the
// client most MCP hosts and agents run, over MCP-B's TabClientTransport, against the server this
// polyfill runs in the page. interop_tab.test.mjs does the same with the second generation
// (@modelcontextprotocol/client); v1 checks other things: every result against its own zod
// schemas, a tool's `structuredContent` against its `outputSchema` (with ajv, and it refuses a
// result without one), and server-to-client requests through handlers it registers by schema.
//
// v1 loads ajv as CommonJS, which a browser cannot import: the client and the transport are
// bundled with esbuild for the page (before the tests), as an app would bundle them.

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, inlinePage, requireDist, serveBundle, PAGE_UNTIL } from './harness.mjs';

requireDist('modelcontext.js', 'modelcontext.iife.js');

const CLIENT_URL = '/__interop_v1/client.js';

before(() =>
  serveBundle(CLIENT_URL, `
    import { Client } from '@modelcontextprotocol/sdk/client/index.js';
    import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
    import * as types from '@modelcontextprotocol/sdk/types.js';
    import { TabClientTransport } from '@mcp-b/transports';
    import { z } from 'zod';
    window.V1 = { Client, types, TabClientTransport, ResourceTemplate, z };`),
);

// What the page registers: a W3C tool, and through the session API a tool with an output schema,
// one that asks its client (both request forms), one that waits for cancellation, a resource, a
// resource template and a prompt. `window.calls` records what the handlers saw.
const PAGE_SCRIPT = `
  const mc = navigator.modelContext;
  window.calls = [];
  await mc.registerTool({
    name: 'add',
    description: 'Add two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    execute: ({ a, b }) => String(a + b),
  });
  // Beyond the spec, as @mcp-b/global takes it: a W3C tool's outputSchema (here a zod schema);
  // one that cannot be used is left out with a warning, the tool still registered.
  await mc.registerTool({
    name: 'max',
    description: 'The largest number',
    inputSchema: { type: 'object', properties: { xs: { type: 'array', items: { type: 'number' } } }, required: ['xs'] },
    outputSchema: window.V1.z.object({ max: window.V1.z.number() }),
    execute: ({ xs }) => ({ max: Math.max(...xs) }),
  });
  await mc.registerTool({ name: 'badOutput', description: 'Its outputSchema is no schema', outputSchema: 5, execute: () => 'ok' });
  const session = await mc.connect({ serverInfo: { name: 'v1-interop', version: '1.0.0' } });
  session.registerTool('stats', {
    description: 'Statistics of some numbers',
    inputSchema: { type: 'object', properties: { xs: { type: 'array', items: { type: 'number' } } }, required: ['xs'] },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' }, n: { type: 'integer' } }, required: ['sum', 'n'] },
    handler: ({ xs }) => {
      const out = { sum: xs.reduce((a, b) => a + b, 0), n: xs.length };
      return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
    },
  });
  session.registerTool('ask', {
    description: 'Asks the user for a name, then the model for a greeting',
    inputSchema: { type: 'object', properties: {} },
    handler: async (args, extra) => {
      extra.reportProgress(1, 3, 'asking');
      extra.log('info', 'asking the user');
      const elicited = await extra.sendRequest('elicitation/create', {
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      extra.reportProgress(2, 3, 'sampling');
      // The SDK's form: the request, then a result schema (not used).
      const sampled = await extra.sendRequest(
        { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'greet ' + elicited.content.name } }], maxTokens: 20 } },
        {},
      );
      return { content: [{ type: 'text', text: elicited.action + ': ' + sampled.content.text }] };
    },
  });
  // A handler written for the SDK v1: its extra.sendNotification for progress and logging.
  session.registerTool('sdkNotify', {
    description: 'Reports progress and logs the way SDK v1 handlers do',
    inputSchema: { type: 'object', properties: {} },
  }, async (args, extra) => {
    await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: extra._meta?.progressToken, progress: 1, total: 2 } });
    await extra.sendNotification({ method: 'notifications/message', params: { level: 'warning', data: 'from sendNotification' } });
    const other = await extra.sendNotification({ method: 'notifications/resources/list_changed' }).then(() => 'sent', (e) => e.name);
    return { content: [{ type: 'text', text: other }] };
  });
  // A handler written for the SDK v2 (@modelcontextprotocol/server): its ctx.mcpReq.
  session.registerTool('v2ctx', { description: 'Uses ctx.mcpReq', inputSchema: { type: 'object', properties: {} } }, async (args, ctx) => {
    await ctx.mcpReq.log('info', 'from mcpReq.log');
    await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progress: 1, total: 1 } });
    const elicited = await ctx.mcpReq.elicitInput({ message: 'Name (v2)?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    const sampled = await ctx.mcpReq.send({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'v2' } }], maxTokens: 5 } });
    const text = [typeof ctx.mcpReq.id, ctx.mcpReq.signal instanceof AbortSignal, elicited.action, sampled.content.text].join(' ');
    return { content: [{ type: 'text', text }] };
  });
  session.registerTool('wait', {
    description: 'Waits until cancelled',
    inputSchema: { type: 'object', properties: {} },
    handler: (args, extra) => new Promise((resolve) => {
      extra.signal.addEventListener('abort', () => { calls.push(['wait aborted', extra.signal.reason && extra.signal.reason.name]); resolve('aborted'); });
    }),
  });
  session.registerResource('notes://today', {
    name: 'today', mimeType: 'text/plain',
    handler: (uri) => ({ contents: [{ uri: String(uri), mimeType: 'text/plain', text: 'Buy milk' }] }),
  });
  session.registerResource('notes://day/{day}', { name: 'day', mimeType: 'text/plain', handler: (uri, { day }) => 'Notes of ' + day });
  session.registerPrompt('summarize', {
    description: 'Summarize a topic',
    arguments: [{ name: 'topic', required: true }],
    handler: ({ topic }) => 'Summarize ' + topic + ' in one line.',
  });
  // Registrations as an SDK v1 server writes them (McpServer's forms): a resource and a
  // ResourceTemplate read through their callbacks (uri is a URL), prompts with an argsSchema.
  const { z, ResourceTemplate } = window.V1;
  mc.registerResource('config', 'config://app', { title: 'App config', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, text: 'theme=dark' }] }));
  session.registerResource('note-by-tag', new ResourceTemplate('notes://tag/{tag}', { list: undefined }), { mimeType: 'text/plain' },
    async (uri, { tag }) => ({ contents: [{ uri: uri.href, text: 'tagged ' + tag }] }));
  session.registerPrompt('review', {
    title: 'Review', description: 'Review code',
    argsSchema: { code: z.string().describe('The code'), style: z.string().optional() },
  }, ({ code, style }) => ({ messages: [{ role: 'user', content: { type: 'text', text: 'Review (' + (style ?? 'any') + '): ' + code } }] }));
  session.registerPrompt('greet', { description: 'Greet', argsSchema: z.object({ name: z.string().describe('Who') }) }, ({ name }) => 'Hello ' + name);
  window.session = session;
  window.pageReady = true;
`;

function pageHtml(build) {
  const polyfill =
    build === 'classic'
      ? `<script src="/dist/modelcontext.iife.js"></script>\n<script type="module">${PAGE_SCRIPT}</script>`
      : `<script type="module">import '/dist/modelcontext.js';\n${PAGE_SCRIPT}</script>`;
  return `<!doctype html><meta charset="utf-8"><title>interop v1</title>
<script>${PAGE_UNTIL}</script>
<script src="${CLIENT_URL}"></script>
${polyfill}`;
}

/** In the page: a v1 client connected over the tab transport, with sampling and elicitation. */
const CONNECT = async () => {
  const { Client, types, TabClientTransport } = window.V1;
  const client = new Client({ name: 'v1-interop-test', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  const seen = { requests: [], notifications: [] };
  client.setRequestHandler(types.ElicitRequestSchema, (req) => {
    seen.requests.push([req.method, req.params.message]);
    return { action: 'accept', content: { name: 'Ada' } };
  });
  client.setRequestHandler(types.CreateMessageRequestSchema, (req) => {
    seen.requests.push([req.method, req.params.messages[0].content.text]);
    return { role: 'assistant', content: { type: 'text', text: 'Hello, Ada!' }, model: 'test' };
  });
  client.setNotificationHandler(types.ToolListChangedNotificationSchema, () => seen.notifications.push('tools/list_changed'));
  client.setNotificationHandler(types.LoggingMessageNotificationSchema, (n) => seen.notifications.push(`log ${n.params.level}: ${n.params.data}`));
  await client.connect(new TabClientTransport({ targetOrigin: location.origin }));
  return { client, seen };
};

for (const build of ['esm', 'classic']) {
  test(`the MCP TypeScript SDK v1 over MCP-B's TabClientTransport (${build} build): initialize, tools with v1's output-schema check, resources, templates, prompts, ping, list_changed`, () =>
    withPage(async ({ page, goto, consoleMessages }) => {
      await goto(await inlinePage(pageHtml(build)));
      await page.waitForFunction(() => window.pageReady && window.V1);
      const r = await page.evaluate(async (connectText) => {
        const connect = (0, eval)(`(${connectText})`);
        const { client, seen } = await connect();
        const out = {};
        const settle = (p) => p.then((v) => ({ ok: v }), (e) => ({ error: [e.code, e.message] }));
        out.server = client.getServerVersion();
        out.capabilities = client.getServerCapabilities();
        const { tools } = await client.listTools();
        out.tools = tools.map((t) => [t.name, Boolean(t.outputSchema)]);
        out.add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
        out.addInvalid = await client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } });
        out.unknown = await settle(client.callTool({ name: 'nope', arguments: {} }));
        // v1 checks structuredContent against the outputSchema it listed.
        out.stats = await settle(client.callTool({ name: 'stats', arguments: { xs: [1, 2, 3.5] } }));
        out.max = await settle(client.callTool({ name: 'max', arguments: { xs: [3, 9, 4] } }));
        out.maxSchema = tools.find((t) => t.name === 'max').outputSchema;
        out.badOutput = (await client.callTool({ name: 'badOutput', arguments: {} })).content;
        out.resources = (await client.listResources()).resources.map((x) => x.uri);
        out.templates = (await client.listResourceTemplates()).resourceTemplates.map((x) => x.uriTemplate);
        out.read = (await client.readResource({ uri: 'notes://today' })).contents;
        out.readTemplate = (await client.readResource({ uri: 'notes://day/monday' })).contents;
        out.readMissing = await settle(client.readResource({ uri: 'notes://nowhere' }));
        out.prompts = (await client.listPrompts()).prompts;
        out.prompt = (await client.getPrompt({ name: 'summarize', arguments: { topic: 'WebMCP' } })).messages;
        out.sdkResource = (await client.readResource({ uri: 'config://app' })).contents;
        out.sdkTemplate = (await client.readResource({ uri: 'notes://tag/urgent' })).contents;
        out.sdkPrompt = (await client.getPrompt({ name: 'review', arguments: { code: 'x = 1' } })).messages;
        out.sdkPromptObject = (await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } })).messages;
        out.promptMissingArg = await settle(client.getPrompt({ name: 'summarize', arguments: {} }));
        out.ping = await client.ping();
        out.setLevel = await client.setLoggingLevel('warning');
        // A tool registered now: v1 hears tools/list_changed and lists it.
        await navigator.modelContext.registerTool({ name: 'later', description: 'Registered later', execute: () => 'ok' });
        await __until(() => seen.notifications.includes('tools/list_changed'), 'tools/list_changed');
        out.later = (await client.listTools()).tools.some((t) => t.name === 'later');
        out.laterCall = (await client.callTool({ name: 'later', arguments: {} })).content;
        await client.close();
        return out;
      }, CONNECT.toString());
      assert.deepEqual(r.server, { name: 'v1-interop', version: '1.0.0' });
      assert.ok(r.capabilities.tools && r.capabilities.resources && r.capabilities.prompts, JSON.stringify(r.capabilities));
      assert.deepEqual(r.tools.sort(), [['add', false], ['ask', false], ['badOutput', false], ['max', true], ['sdkNotify', false], ['stats', true], ['v2ctx', false], ['wait', false]]);
      assert.deepEqual(r.add, { content: [{ type: 'text', text: '5' }] });
      assert.equal(r.addInvalid.isError, true);
      assert.match(r.addInvalid.content[0].text, /\/a: "two" is not of type "number"/);
      assert.equal(r.unknown.error[0], -32602, JSON.stringify(r.unknown));
      assert.deepEqual(r.stats.ok?.structuredContent, { sum: 6.5, n: 3 }, JSON.stringify(r.stats));
      assert.deepEqual(r.max.ok?.structuredContent, { max: 9 }, JSON.stringify(r.max));
      assert.deepEqual(r.maxSchema.required, ['max']);
      assert.deepEqual(r.badOutput, [{ type: 'text', text: 'ok' }]);
      assert.ok(
        consoleMessages.some((m) => m.type === 'warning' && m.text.startsWith('modelcontext-polyfill: the outputSchema of tool "badOutput" is not used')),
        JSON.stringify(consoleMessages),
      );
      assert.deepEqual(r.resources.sort(), ['config://app', 'notes://today']);
      assert.deepEqual(r.templates.sort(), ['notes://day/{day}', 'notes://tag/{tag}']);
      assert.deepEqual(r.sdkResource, [{ uri: 'config://app', mimeType: 'text/plain', text: 'theme=dark' }]);
      assert.deepEqual(r.sdkTemplate, [{ uri: 'notes://tag/urgent', mimeType: 'text/plain', text: 'tagged urgent' }]);
      assert.deepEqual(r.sdkPrompt, [{ role: 'user', content: { type: 'text', text: 'Review (any): x = 1' } }]);
      assert.deepEqual(r.sdkPromptObject, [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }]);
      assert.deepEqual(r.read, [{ uri: 'notes://today', mimeType: 'text/plain', text: 'Buy milk' }]);
      assert.deepEqual(r.readTemplate, [{ uri: 'notes://day/monday', mimeType: 'text/plain', text: 'Notes of monday' }]);
      assert.ok(r.readMissing.error, JSON.stringify(r.readMissing));
      assert.deepEqual(r.prompts, [
        { name: 'greet', description: 'Greet', arguments: [{ name: 'name', description: 'Who', required: true }] },
        { name: 'review', title: 'Review', description: 'Review code', arguments: [{ name: 'code', description: 'The code', required: true }, { name: 'style', required: false }] },
        { name: 'summarize', description: 'Summarize a topic', arguments: [{ name: 'topic', required: true }] },
      ]);
      assert.deepEqual(r.prompt, [{ role: 'user', content: { type: 'text', text: 'Summarize WebMCP in one line.' } }]);
      assert.equal(r.promptMissingArg.error?.[0], -32602, JSON.stringify(r.promptMissingArg));
      assert.deepEqual(r.ping, {});
      assert.deepEqual(r.setLevel, {});
      assert.equal(r.later, true);
      assert.deepEqual(r.laterCall, [{ type: 'text', text: 'ok' }]);
    }, { timeout: 30_000 }));
}

test('the MCP TypeScript SDK v1: elicitation and sampling asked by a tool (both request forms), progress, logging (ours, v1\'s sendNotification, v2\'s ctx.mcpReq), cancellation by AbortSignal; the server serves on', () =>
  withPage(async ({ page, goto }) => {
    await goto(await inlinePage(pageHtml('esm')));
    await page.waitForFunction(() => window.pageReady && window.V1);
    const r = await page.evaluate(async (connectText) => {
      const connect = (0, eval)(`(${connectText})`);
      const { client, seen } = await connect();
      const out = {};
      await client.setLoggingLevel('info');
      const progress = [];
      out.ask = (await client.callTool({ name: 'ask', arguments: {} }, undefined, { onprogress: (p) => progress.push(p) })).content;
      out.progress = progress;
      out.requests = [...seen.requests];
      const sdkProgress = [];
      out.sdkNotify = (await client.callTool({ name: 'sdkNotify', arguments: {} }, undefined, { onprogress: (p) => sdkProgress.push(p) })).content;
      out.sdkProgress = sdkProgress;
      const v2Progress = [];
      const before = seen.requests.length;
      out.v2ctx = (await client.callTool({ name: 'v2ctx', arguments: {} }, undefined, { onprogress: (p) => v2Progress.push(p) })).content;
      out.v2Progress = v2Progress;
      out.v2Requests = seen.requests.slice(before);
      out.notifications = seen.notifications.filter((n) => n.startsWith('log'));
      // v1 sends notifications/cancelled when the signal aborts; the page's handler sees its
      // own signal abort.
      const ctrl = new AbortController();
      const waiting = client.callTool({ name: 'wait', arguments: {} }, undefined, { signal: ctrl.signal }).then(() => 'resolved', (e) => e.name || String(e));
      await new Promise((r) => setTimeout(r, 50));
      ctrl.abort();
      out.cancelled = await waiting;
      await __until(() => calls.some((c) => c[0] === 'wait aborted'), 'the handler aborted');
      out.calls = calls;
      out.after = (await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } })).content;
      await client.close();
      return out;
    }, CONNECT.toString());
    assert.deepEqual(r.ask, [{ type: 'text', text: 'accept: Hello, Ada!' }]);
    assert.deepEqual(r.requests, [['elicitation/create', 'Your name?'], ['sampling/createMessage', 'greet Ada']]);
    assert.deepEqual(r.progress, [{ progress: 1, total: 3, message: 'asking' }, { progress: 2, total: 3, message: 'sampling' }]);
    assert.deepEqual(r.notifications, ['log info: asking the user', 'log warning: from sendNotification', 'log info: from mcpReq.log']);
    assert.deepEqual(r.v2ctx, [{ type: 'text', text: 'number true accept Hello, Ada!' }]);
    assert.deepEqual(r.v2Progress, [{ progress: 1, total: 1 }]);
    assert.deepEqual(r.v2Requests, [['elicitation/create', 'Name (v2)?'], ['sampling/createMessage', 'v2']]);
    assert.deepEqual(r.sdkNotify, [{ type: 'text', text: 'TypeError' }]);
    assert.deepEqual(r.sdkProgress, [{ progress: 1, total: 2 }]);
    assert.notEqual(r.cancelled, 'resolved');
    assert.deepEqual(r.calls, [['wait aborted', 'AbortError']]);
    assert.deepEqual(r.after, [{ type: 'text', text: '2' }]);
  }, { timeout: 30_000 }));

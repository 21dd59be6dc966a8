// Typed usage of everything a page can touch. Compiled (never run) by
// tests/page/typings.test.mjs with `tsc -p typings` (strict). Each `@ts-expect-error` line is
// misuse the declarations must reject: if one stops being an error, tsc fails the build.

import type {
  ModelContextTool as ImportedTool,
  ModelContextSession as ImportedSession,
  ToolDefinition as ImportedToolDefinition,
  RegisteredTool as ImportedRegisteredTool,
} from '../index';

export async function w3c(): Promise<void> {
  const mc: ModelContext = document.modelContext;
  const same: boolean = mc === navigator.modelContext;
  void same;

  // registerTool (W3C): Promise<void>, options with signal and exposedTo.
  const controller = new AbortController();
  const tool: ModelContextTool<{ a: number; b: number }> = {
    name: 'add',
    title: 'Add',
    description: 'Add two numbers',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, untrustedContentHint: false, consequentialHint: false, debugging: false },
    execute: async ({ a, b }, { signal }) => {
      signal.throwIfAborted();
      return String(a + b);
    },
  };
  const registered: Promise<void> = mc.registerTool(tool, { signal: controller.signal, exposedTo: ['https://agent.example'] });
  await registered;
  // Inferred input type from the generic.
  await mc.registerTool<{ text: string }>({
    name: 'echo',
    description: 'Echo',
    execute: (input) => input.text.toUpperCase(),
  });
  // The default input type is a loose record.
  await mc.registerTool({ name: 'loose', description: 'Loose', execute: ({ anything }) => anything });
  // The handler's options carry the MCP extras.
  await mc.registerTool({
    name: 'extras',
    description: 'Uses the extras',
    execute: async (_input, options) => {
      const id: string | number | undefined = options.requestId;
      const meta: Record<string, unknown> | undefined = options._meta;
      const sent: boolean = options.reportProgress(1, 2, 'half');
      options.log('info', { id, meta, sent }, 'extras');
      const roots = await options.sendRequest<{ roots: { uri: string }[] }>('roots/list');
      const confirmed = await options.requestUserInteraction(() => confirm('ok?'));
      return { roots: roots.roots.length, confirmed };
    },
  });
  // Deprecated unregister() on the returned promise.
  const p = mc.registerTool({ name: 'old', description: 'Old style', execute: () => 'x' });
  p.unregister();

  // getTools / executeTool.
  const tools: RegisteredTool[] = await mc.getTools({ fromOrigins: [location.origin] });
  for (const t of tools) {
    const w: Window = t.window;
    const o: string = t.origin;
    const ro: boolean | undefined = t.annotations?.readOnlyHint;
    const schema: ModelContextJSONSchema | undefined = t.inputSchema;
    void [w, o, ro, schema];
  }
  const result: string = await mc.executeTool(tools[0], { a: 1, b: 2 }, { signal: controller.signal });
  void result;
  const imported: ImportedRegisteredTool = tools[0];
  void imported;

  // Events: typed handlers and listeners.
  mc.ontoolchange = (ev) => console.log(ev.type);
  mc.ontoolactivated = (ev) => console.log(ev.toolName);
  mc.ontoolcancel = function (ev) {
    const self: ModelContext = this;
    console.log(self, ev.toolName);
  };
  mc.addEventListener('toolactivated', (ev) => console.log(ev.toolName.length));
  mc.addEventListener('toolcancel', (ev) => console.log(ev.toolName));
  mc.addEventListener('toolchange', (ev) => console.log(ev.timeStamp));
  mc.addEventListener('something-else', (ev) => console.log(ev));
  const onChange = (ev: Event) => console.log(ev);
  mc.removeEventListener('toolchange', onChange);
  window.addEventListener('toolactivated', (ev) => console.log(ev.toolName));
  const activated = new ToolActivatedEvent('toolactivated', { toolName: 'add', bubbles: false });
  const cancelled: ToolCancelEvent = new ToolCancelEvent('toolcancel');
  const name: string = activated.toolName + cancelled.toolName;
  void name;
  mc.dispatchEvent(activated);
  const isMc: boolean = (mc as unknown) instanceof ModelContext;
  void isMc;

  // Deprecated earlier-draft methods still type-check.
  mc.provideContext({ tools: [tool] });
  mc.unregisterTool('add');
  mc.clearContext();
  const testing: ModelContextTesting = navigator.modelContextTesting;
  const listed = testing.listTools();
  const schemaText: string | undefined = listed[0]?.inputSchema;
  void schemaText;
  const out: string = await testing.executeTool('add', '{"a":1,"b":2}');
  void out;
  testing.registerToolsChangedCallback(() => {});

  const importedTool: ImportedTool = tool as ModelContextTool;
  void importedTool;

  // Misuse.
  // @ts-expect-error execute is required
  await mc.registerTool({ name: 'x', description: 'no execute' });
  // @ts-expect-error description is required
  await mc.registerTool({ name: 'x', execute: () => '' });
  // @ts-expect-error annotations are booleans
  await mc.registerTool({ name: 'x', description: 'd', execute: () => '', annotations: { readOnlyHint: 'yes' } });
  // @ts-expect-error the input type is checked against the generic
  await mc.registerTool<{ a: number }>({ name: 'x', description: 'd', execute: ({ b }) => b });
  // @ts-expect-error registerTool (W3C) resolves with nothing
  const nothing: string = await mc.registerTool(tool);
  void nothing;
  // @ts-expect-error executeTool takes a RegisteredTool, not a name
  await mc.executeTool('add', {});
  // @ts-expect-error the input is an object
  await mc.executeTool(tools[0], 'a=1');
  // @ts-expect-error executeTool resolves with a string
  const n: number = await mc.executeTool(tools[0]);
  void n;
  // @ts-expect-error toolchange events have no toolName
  mc.addEventListener('toolchange', (ev) => console.log(ev.toolName));
  // @ts-expect-error ModelContext is not constructible
  new ModelContext();
  // @ts-expect-error toolName is read-only
  activated.toolName = 'other';
  // @ts-expect-error getTools options are checked
  await mc.getTools({ fromOrigin: ['x'] });
}

export async function sessionApi(): Promise<void> {
  const mc = navigator.modelContext;

  // registerTool(name, def) → unregister function.
  const unregister: () => void = mc.registerTool('greet', {
    title: 'Greeter',
    description: 'Greet someone',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    outputSchema: { type: 'object', properties: { greeting: { type: 'string' } } },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false, destructiveHint: false, custom: 1 },
    icons: [{ src: 'https://example.com/i.png', mimeType: 'image/png', sizes: ['48x48'] }],
    _meta: { 'example.com/x': 1 },
    handler: async (args: { name: string }, extra) => {
      extra.signal.throwIfAborted();
      extra.reportProgress(0.5);
      return {
        content: [{ type: 'text', text: `Hello, ${args.name}!` }],
        structuredContent: { greeting: `Hello, ${args.name}!` },
      };
    },
  });
  unregister();
  const def: ToolDefinition<{ q: string }> = { description: 'Search', execute: ({ q }) => q };
  mc.registerTool('search', def);
  const importedDef: ImportedToolDefinition = { handler: () => null };
  mc.registerTool('nothing', importedDef);
  mc.registerTool('image', {
    handler: () => ({ content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }], isError: false }),
  });

  // Resources and templates.
  const unregisterResource = mc.registerResource('notes://today', {
    name: 'today',
    mimeType: 'text/plain',
    handler: (uri) => `notes for ${uri instanceof URL ? uri.href : uri}`,
  });
  unregisterResource();
  mc.registerResource('notes://{day}', {
    name: 'notes by day',
    read: async (uri, { day }) => ({ contents: [{ uri: String(uri), text: `notes for ${day}` }] }),
    complete: { day: (value) => ['monday', 'tuesday'].filter((d) => d.startsWith(value)) },
  });
  mc.registerResource('blob://x', { handler: () => [{ blob: 'AAAA', mimeType: 'application/octet-stream' }] });

  // Prompts.
  mc.registerPrompt('summarize', {
    description: 'Summarize a topic',
    arguments: [{ name: 'topic', required: true, description: 'What to summarize' }],
    handler: ({ topic }) => [{ role: 'user', content: `Summarize ${topic}` }],
    complete: { topic: async () => ({ values: ['webmcp'], hasMore: false }) },
  });
  mc.registerPrompt('plain', { get: () => 'Say hi' });

  // notify / connect / disconnect.
  mc.notify('notifications/resources/updated', { uri: 'notes://today' });
  mc.notify('notifications/message', { level: 'info', data: 'hi' });
  const session: ModelContextSession = await mc.connect({
    serverInfo: { name: 'my-app', version: '1.2.3', title: 'My app', instructions: 'Be nice' },
  });
  const other: ImportedSession = await mc.connect({
    transport: { type: 'tab', channelId: 'mcp-second', allowedOrigins: [location.origin], onOriginViolation: (o) => console.warn(o) },
  });
  const transport: ModelContextServerTransport | null = other.transport;
  if (transport) {
    const kind: string = transport.type;
    const open: boolean = transport.isConnected;
    void [kind, open, transport.options];
  }
  const worker = new Worker('/worker.js', { type: 'module' });
  const viaWorker = await mc.connect({ transport: { type: 'postMessage', target: worker, messageType: 'mcp', rateLimit: { messages: 50, perMs: 1000 } } });
  viaWorker.transport?.close();
  await mc.connect({ transport: { type: 'broadcastChannel', channelName: 'my-app', maxMessageBytes: 1 << 20 } });
  await mc.connect({ transport: { type: 'iframeChild', parentOrigin: 'https://host.example' } });
  await mc.connect({ transport: { type: 'iframeParent', iframe: document.createElement('iframe'), targetOrigin: '*', connectionTimeout: 5000 } });
  await mc.connect({ transport: { type: 'event', sendEvent: 'out', receiveEvent: 'in', rateLimit: false } });
  await mc.connect({ transport: { type: 'tab', channelId: 'persisted', persist: { storagePrefix: 'app' } } });
  if (transport) await mc.connect({ transport });
  const off = session.registerTool('session-tool', { handler: () => 'ok' });
  off();
  session.registerResource('session://r', { handler: () => 'r' });
  session.registerPrompt('session-prompt', { handler: () => 'p' });
  session.notify('notifications/tools/list_changed');
  const connected: boolean = session.isConnected() && other.isConnected() && mc.isConnected();
  void connected;
  session.disconnect();
  other.disconnect();
  mc.disconnect();

  // Configuration global.
  globalThis.modelContextPolyfillConfig = { serverInfo: { name: 'x' }, tab: { channelId: 'c', allowedOrigins: ['*'] } };
  globalThis.modelContextPolyfillConfig = { tab: false };

  // Misuse.
  // @ts-expect-error a handler is required
  mc.registerTool('x', { description: 'no handler' });
  // @ts-expect-error not both handler and execute
  mc.registerTool('x', { handler: () => '', execute: () => '' });
  // @ts-expect-error the session form returns a function, not a promise
  await mc.registerTool('x', { handler: () => '' }).then(() => {});
  // @ts-expect-error the session form's result has no unregister()
  mc.registerTool('x', { handler: () => '' }).unregister();
  // @ts-expect-error tool results are JSON or MCP results, not functions
  mc.registerTool('x', { handler: () => () => 1 });
  // @ts-expect-error notify takes notifications/… methods
  mc.notify('tools/list', {});
  // @ts-expect-error there is no websocket transport
  await mc.connect({ transport: { type: 'websocket' } });
  // @ts-expect-error a broadcastChannel transport needs its channelName
  await mc.connect({ transport: { type: 'broadcastChannel' } });
  // @ts-expect-error an iframeParent transport needs the iframe element
  await mc.connect({ transport: { type: 'iframeParent', targetOrigin: '*' } });
  // @ts-expect-error a resource reader is required
  mc.registerResource('x://y', { name: 'y' });
  // @ts-expect-error resource contents need text or blob
  mc.registerResource('x://y', { handler: () => ({ uri: 'x://y' }) });
  // @ts-expect-error prompt roles are user or assistant
  mc.registerPrompt('x', { handler: () => [{ role: 'system', content: 'no' }] });
  // @ts-expect-error prompt arguments need a name
  mc.registerPrompt('x', { arguments: [{ required: true }], handler: () => '' });
  // @ts-expect-error sessions have no W3C registerTool form
  session.registerTool({ name: 'x', description: 'd', execute: () => '' });
}

// Workers: navigator.modelContext on WorkerNavigator (declared; lib.webworker not loaded here).
export function workerNavigator(nav: WorkerNavigator): ModelContext {
  return nav.modelContext;
}

// Typed usage of everything a page can touch. Compiled (never run) by
// tests/page/typings.test.mjs with `tsc -p typings` (strict). Each `@ts-expect-error` line is
// misuse the declarations must reject: if one stops being an error, tsc fails the build.

import type {
  ModelContextTool as ImportedTool,
  ModelContextSession as ImportedSession,
  ToolDefinition as ImportedToolDefinition,
  RegisteredTool as ImportedRegisteredTool,
} from '../index';
import {
  TabServerTransport,
  PostMessageServerTransport,
  BroadcastChannelServerTransport,
  IframeChildServerTransport,
  IframeParentServerTransport,
  EventServerTransport,
  ExtensionServerTransport,
  McpClient,
  TabClientTransport,
  PostMessageClientTransport,
  BroadcastChannelClientTransport,
  IframeParentClientTransport,
  EventClientTransport,
  ExtensionClientTransport,
  TransportError,
  TransportClosedError,
  RequestTimeoutError,
  McpError,
  loadClient,
} from '../index';
import type {
  ModelContextPolyfillRecord,
  McpClientState,
  McpClientTransport,
  McpJsonRpcMessage,
  McpReconnectScheduler,
  McpServerDetails,
  TabServerTransportEffectiveOptions,
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
      // The MCP TypeScript SDK's form: the request object, then its result schema.
      const elicited = await options.sendRequest<{ action: string }>(
        { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object' } } },
        { parse: (x: unknown) => x },
      );
      // The SDK v2's context.
      const sampled = await options.mcpReq.requestSampling<{ model: string }>({ messages: [], maxTokens: 1 });
      await options.mcpReq.log('debug', { sampled: sampled.model });
      const confirmed = await options.requestUserInteraction(() => confirm('ok?'));
      return { roots: roots.roots.length, elicited: elicited.action, confirmed, aborted: options.mcpReq.signal.aborted };
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

  // A tool that may run as an MCP task, and a skill.
  mc.registerTool('export', {
    taskSupport: 'optional',
    handler: async (args, extra) => {
      extra.setStatus?.('working');
      const id: string | undefined = extra.getTaskId?.();
      return id ?? 'done';
    },
  });
  // @ts-expect-error taskSupport is one of three words
  mc.registerTool('bad', { taskSupport: 'sometimes', handler: () => '' });
  const unregisterSkill: () => void = mc.registerSkill('sales-report', {
    description: 'How to export the report',
    instructions: '# Export',
    frontmatter: { license: 'MIT' },
    files: { 'a.md': '# A', 'b.png': { blob: 'AAAA', mimeType: 'image/png' }, 'c.txt': { text: 'c' } },
    prefix: ['acme'],
  });
  unregisterSkill();
  // @ts-expect-error a skill needs a description
  mc.registerSkill('x', { instructions: '' });

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
    transport: { type: 'tab', channelId: 'mcp-second', allowedOrigins: [location.origin], onOriginViolation: (o) => console.warn(o), rateLimit: { messages: 20 }, maxMessageBytes: 4096 },
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
  globalThis.modelContextPolyfillConfig = { tab: { rateLimit: { messages: 50, perMs: 1000 }, maxMessageBytes: 65536, persist: true } };
  globalThis.modelContextPolyfillConfig = { tab: { rateLimit: false } };
  globalThis.modelContextPolyfillConfig = { limits: { maxInFlight: 8, maxQueued: 100, maxMessageBytes: 1 << 20, maxDepth: 32, toolTimeoutMs: 30_000, pageSize: 50, listChangedIntervalMs: 0 } };
  globalThis.modelContextPolyfillConfig = { limits: { toolTimeoutMs: null } };
  globalThis.modelContextPolyfillConfig = { validatorUrl: '/cdn/modelcontext_validator.wasm' };
  globalThis.modelContextPolyfillConfig = { clientUrl: new URL('/cdn/modelcontext_client_glue_bg.wasm', location.href), preloadClient: true };
  // @ts-expect-error preloadClient is a boolean
  globalThis.modelContextPolyfillConfig = { preloadClient: 'yes' };

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

// The server transport classes: named exports, built and handed to connect({ transport }).
export async function serverTransports(worker: Worker, port: ModelContextExtensionPort): Promise<void> {
  const mc = document.modelContext;
  const tab = new TabServerTransport({ channelId: 'app', allowedOrigins: [location.origin], persist: { storagePrefix: 'app' } });
  const tabOptions: TabServerTransportEffectiveOptions = tab.options;
  const channel: string = tab.options.channelId;
  const allowed: string[] | '*' = tab.options.allowedOrigins;
  const persisted: boolean = tab.options.persist;
  const kind: 'tab' = tab.type;
  void [tabOptions, channel, allowed, persisted, kind];
  const session = await mc.connect({ transport: tab });
  const open: boolean = tab.isConnected;
  void open;
  session.disconnect();
  tab.close();
  new TabServerTransport();
  new TabServerTransport({ type: 'tab' });

  // The options form and the seed's positional form.
  const viaOptions = new PostMessageServerTransport({ target: worker, messageType: 'mcp', rateLimit: { messages: 10 } });
  const positional = new PostMessageServerTransport(window.parent, { origin: 'https://host.example', maxMessageBytes: 1 << 16 });
  new PostMessageServerTransport(new MessageChannel().port1);
  const messageType: string = viaOptions.options.messageType;
  void [messageType, positional.options.origin];
  await mc.connect({ transport: viaOptions });

  const bc = new BroadcastChannelServerTransport({ channelName: 'app', instanceId: 'server-1' });
  const ids: string = bc.instanceId + bc.channelName + bc.options.instanceId;
  void ids;
  new IframeChildServerTransport({ parentOrigin: ['https://host.example'], channelId: 'c' });
  new IframeChildServerTransport({ allowedOrigins: '*' });
  const parent = new IframeParentServerTransport({ iframe: document.createElement('iframe'), targetOrigin: '*', connectionTimeout: 1000, checkReadyRetryMs: 100 });
  const timeout: number = parent.options.connectionTimeout;
  void timeout;

  const handlers = new Map<string, Set<(payload: unknown) => void>>();
  const emitter: ModelContextEventEmitter = {
    on: (event, listener) => handlers.set(event, (handlers.get(event) ?? new Set()).add(listener)),
    off: (event, listener) => handlers.get(event)?.delete(listener),
    emit: (event, payload) => handlers.get(event)?.forEach((f) => f(payload)),
  };
  const ev = new EventServerTransport(emitter, { sendEvent: 'server:message', receiveEvent: 'client:message' });
  const sameEmitter: boolean = ev.emitter === emitter;
  void sameEmitter;
  const builtIn: ModelContextEventEmitter = new EventServerTransport().emitter;
  new EventServerTransport({ sendEvent: 'out', receiveEvent: 'in', rateLimit: false });
  void builtIn;
  const ext = new ExtensionServerTransport(port, { keepAlive: false, onDisconnect: () => {} });
  new ExtensionServerTransport({ port, keepAliveInterval: 10_000 });
  const keepAlive: number | false = ext.options.keepAliveInterval;
  void keepAlive;

  // Every class is a ModelContextServerTransport.
  const all: ModelContextServerTransport[] = [tab, viaOptions, bc, parent, ev, ext];
  for (const t of all) t.close();
  ext.free();

  // Misuse.
  // @ts-expect-error a broadcastChannel transport needs its channelName
  new BroadcastChannelServerTransport({});
  // @ts-expect-error the options of another type are refused
  new TabServerTransport({ type: 'postMessage' });
  // @ts-expect-error an iframeChild transport needs the parent's origin
  new IframeChildServerTransport({ channelId: 'c' });
  // @ts-expect-error an iframeParent transport needs the iframe element
  new IframeParentServerTransport({ targetOrigin: '*' });
  // @ts-expect-error postMessage needs a target
  new PostMessageServerTransport({ messageType: 'mcp' });
  // @ts-expect-error the positional form takes the target first, not a string
  new PostMessageServerTransport('worker');
  // @ts-expect-error an emitter needs emit, on and off
  new EventServerTransport({ emit() {} }, {});
  // @ts-expect-error an extension transport needs a port
  new ExtensionServerTransport({ keepAlive: true });
  // @ts-expect-error type is read-only
  tab.type = 'event';
  // @ts-expect-error isConnected is a getter, not a method
  tab.isConnected();
  // @ts-expect-error only broadcastChannel transports have an instanceId getter
  void tab.instanceId;
}

// The client: McpClient over each client transport, its options, requests and hooks.
export async function client(worker: Worker, port: ModelContextExtensionPort, emitter: ModelContextEventEmitter): Promise<void> {
  const loaded: Promise<void> = loadClient();
  await loaded;
  // @ts-expect-error loadClient takes no URL (modelContextPolyfillConfig.clientUrl moves the module)
  void loadClient('/client.wasm');
  const scheduler: McpReconnectScheduler = (reconnect, delay, attemptCount) => {
    const id = setTimeout(reconnect, delay * (attemptCount + 1));
    return () => clearTimeout(id);
  };
  const transport = new PostMessageClientTransport({ target: worker, messageType: 'mcp' });
  const client = new McpClient(transport, {
    timeoutMs: 60_000,
    heartbeatMs: 10_000,
    heartbeatTimeoutMs: 5_000,
    clientInfo: { name: 'page-client', version: '1.0.0' },
    capabilities: { roots: { listChanged: true } },
    reconnect: { initialDelayMs: 1000, maxDelayMs: 30_000, factor: 2, maxRetries: Infinity, jitter: true, scheduler },
  });
  // The transport keeps its class.
  const same: PostMessageClientTransport = client.transport;
  void same;
  const state: McpClientState = client.state;
  void state;
  const details: McpServerDetails = await client.connect();
  const name: string = details.serverInfo.name;
  const hasTools: boolean = !!details.capabilities.tools?.listChanged;
  const version: '2025-11-25' | '2025-06-18' | '2025-03-26' | '2024-11-05' | undefined = client.protocolVersion;
  const instructions: string | undefined = client.instructions ?? details.instructions;
  const pending: number = client.pendingRequests;
  void [name, hasTools, version, instructions, pending, client.serverInfo?.version, client.serverCapabilities?.prompts];

  const controller = new AbortController();
  const { tools, nextCursor } = await client.listTools({ cursor: undefined });
  const schema: ModelContextJSONSchema = tools[0].inputSchema;
  void [schema, nextCursor];
  const result: McpCallToolResult = await client.callTool('search', { q: 'x' }, {
    timeoutMs: 5000,
    signal: controller.signal,
    onprogress: ({ progress, total, message }) => console.log(progress, total, message),
  });
  const first = result.content[0];
  if (first.type === 'text') console.log(first.text.length, result.isError, result.structuredContent);
  const typed = await client.request<{ tools: { name: string }[] }>('tools/list', {}, { timeoutMs: Infinity });
  console.log(typed.tools[0].name);
  await client.request('ping');
  const { resources } = await client.listResources();
  const { resourceTemplates } = await client.listResourceTemplates(null, { signal: AbortSignal.timeout(1000) });
  const { prompts } = await client.listPrompts();
  const { contents } = await client.readResource(resources[0].uri);
  const uri: string = contents[0].uri;
  const prompt = await client.getPrompt(prompts[0].name, { topic: 'webmcp' });
  const role: 'user' | 'assistant' = prompt.messages[0].role;
  void [resourceTemplates[0].uriTemplate, uri, role, prompt.messages[0].content.type];
  await client.ping({ timeoutMs: 100 });
  await client.notify('notifications/roots/list_changed');
  const off: () => void = client.onNotification('notifications/tools/list_changed', (n) => console.log(n.method, n.params));
  off();
  client.onNotification('*', ({ method }) => console.log(method));
  client.setRequestHandler('roots/list', (request, { requestId, signal }) => {
    signal.throwIfAborted();
    console.log(request.method, requestId);
    return { roots: [{ uri: 'file:///', name: 'root' }] };
  });
  client.setRequestHandler('sampling/createMessage', async (request) => {
    if (!request.params) throw new McpError(-32602, 'params required');
    return { role: 'assistant', content: { type: 'text', text: '4' }, model: 'm' };
  });
  client.setRequestHandler('elicitation/create', () => undefined);
  client.setRequestHandler('sampling/createMessage', null);

  // Hooks.
  client.onclose = (reason) => console.log(reason?.toUpperCase());
  client.onerror = (error) => console.log(error.message);
  client.onreconnect = ({ attempts, protocolVersion, serverInfo }) => console.log(attempts, protocolVersion, serverInfo.name);
  client.onclose = null;
  await client.close();

  // Errors: classes with their fields.
  try {
    await client.callTool('hang', {}, { timeoutMs: 10 });
  } catch (e) {
    if (e instanceof RequestTimeoutError) {
      const code: 'REQUEST_TIMEOUT' = e.code;
      const id: string | number | undefined = e.requestId;
      const ms: number | undefined = e.timeoutMs;
      console.log(code, id, ms, e.method, e.message);
    } else if (e instanceof TransportClosedError) {
      const reason: string | undefined = e.reason;
      console.log(reason, e.code);
    } else if (e instanceof TransportError) {
      const code: string = e.code;
      console.log(code === 'CONNECTION_FAILED', e.name);
    } else if (e instanceof McpError) {
      const code: number = e.code;
      console.log(code, e.data);
    }
  }
  const timeoutError: TransportError = new RequestTimeoutError('m', { requestId: 3, method: 'x', timeoutMs: 5 });
  const closedError: Error = new TransportClosedError('gone', { reason: 'why' });
  const custom = new TransportError('custom', 'MY_CODE');
  const mcpError = new McpError(-32601, 'Method not found', { a: 1 });
  void [timeoutError, closedError, custom, mcpError];

  // Every client transport; the SDK Transport shape.
  const tab = new TabClientTransport({ channelId: 'mcp-default', targetOrigin: location.origin, connectionTimeout: 5000 });
  new TabClientTransport();
  new PostMessageClientTransport(worker);
  new PostMessageClientTransport(window.parent, { origin: 'https://host.example' });
  new BroadcastChannelClientTransport({ channelName: 'app', instanceId: 'me' });
  new IframeParentClientTransport({ iframe: document.createElement('iframe'), targetOrigin: 'https://app.example', checkIntervalMs: 50, connectionTimeout: 300 });
  new EventClientTransport({ emitter, sendEvent: 'mcp:request', receiveEvent: 'mcp:response' });
  new EventClientTransport(emitter, { receiveEvent: 'answers' });
  new ExtensionClientTransport({ port });
  new ExtensionClientTransport({ connect: () => port });
  new ExtensionClientTransport({ extensionId: 'abcdef', portName: 'mcp' });
  new ExtensionClientTransport();
  tab.onmessage = (message: McpJsonRpcMessage) => console.log('method' in message ? message.method : message.id);
  tab.onclose = (reason) => console.log(reason);
  tab.onerror = (error) => console.log(error.code);
  await tab.start();
  const connected: boolean = tab.isConnected;
  void connected;
  await tab.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await tab.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  await tab.close();
  // Any object of the SDK Transport shape drives a client.
  const custom2: McpClientTransport = {
    start: async () => {},
    send: (message) => console.log(message.jsonrpc),
    close: () => {},
  };
  const generic: McpClient = new McpClient(custom2);
  new McpClient(new EventClientTransport(emitter), { reconnect: true });
  new McpClient(new TabClientTransport(), { reconnect: { scheduler: (reconnect) => { setTimeout(reconnect, 0); } } });
  void generic;

  // The record the polyfill installs.
  const rec = (globalThis as any)[Symbol.for('modelcontext-polyfill')] as ModelContextPolyfillRecord;
  const viaRecord = new rec.client.McpClient(new rec.client.TabClientTransport());
  const fromRecord: McpClient<TabClientTransport> = viaRecord;
  new rec.transports.PostMessageServerTransport(worker);
  const isTimeout: boolean = new rec.client.RequestTimeoutError() instanceof rec.client.TransportError;
  const format: 'esm' | 'classic' = rec.format;
  const mc: ModelContext = rec.modelContext;
  void [fromRecord, isTimeout, format, mc, rec.version, rec.native, rec.validatorUrl];

  // Misuse.
  // @ts-expect-error McpClient needs a transport
  new McpClient();
  // @ts-expect-error a transport needs start, send and close
  new McpClient({ start() {}, send() {} });
  // @ts-expect-error timeoutMs is a number
  new McpClient(tab, { timeoutMs: '5s' });
  // @ts-expect-error a scheduler returns a cancel function or nothing
  new McpClient(tab, { reconnect: { scheduler: () => 5 } });
  // @ts-expect-error the scheduler's delay is a number
  new McpClient(tab, { reconnect: { scheduler: (reconnect: () => void, delay: string) => void [reconnect, delay] } });
  // @ts-expect-error there is no such reconnect option
  new McpClient(tab, { reconnect: { retries: 3 } });
  // @ts-expect-error state is one of five strings
  const badState: McpClientState = 'open';
  void badState;
  // @ts-expect-error state is read-only
  client.state = 'closed';
  // @ts-expect-error tool arguments are an object
  await client.callTool('x', 'q=1');
  // @ts-expect-error per-call options: timeoutMs, signal, onprogress
  await client.callTool('x', {}, { timeout: 5 });
  // @ts-expect-error the signal is an AbortSignal
  await client.ping({ signal: new AbortController() });
  // @ts-expect-error readResource takes a URI, then options
  await client.readResource('x://y', { uri: 'x://z' });
  // @ts-expect-error prompt arguments are strings
  await client.getPrompt('p', { n: 1 });
  // @ts-expect-error notify takes notifications/… methods
  await client.notify('tools/list');
  // @ts-expect-error onreconnect receives the server details
  client.onreconnect = (info: string) => console.log(info);
  // @ts-expect-error callTool resolves with a CallToolResult
  const notString: string = await client.callTool('x');
  void notString;
  // @ts-expect-error a broadcast client needs its channelName
  new BroadcastChannelClientTransport({ instanceId: 'me' });
  // @ts-expect-error an iframe client needs targetOrigin
  new IframeParentClientTransport({ iframe: document.createElement('iframe') });
  // @ts-expect-error the client's postMessage origin is one string
  new PostMessageClientTransport({ target: worker, origin: ['a', 'b'] });
  // @ts-expect-error an event client needs an emitter
  new EventClientTransport({ sendEvent: 'x' });
  // @ts-expect-error a port or a connect function, not both
  new ExtensionClientTransport({ port, connect: () => port });
  // @ts-expect-error messages are JSON-RPC objects
  await tab.send('ping');
  // @ts-expect-error isConnected is read-only
  tab.isConnected = true;
  // @ts-expect-error McpError needs a numeric code
  new McpError('oops', 'message');
  // @ts-expect-error the record's client has no server transports
  new rec.client.TabServerTransport();
  // @ts-expect-error the classes are not globals
  new globalThis.McpClient(tab);
}

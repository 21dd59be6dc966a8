// The session API (`modelContext.registerTool(name, def)`, `registerResource`, `registerPrompt`,
// `connect` → ModelContextSession) and the MCP shapes its handlers return. Global declarations;
// the W3C interface is in webmcp.d.ts.

/// <reference path="./webmcp.d.ts" />

/** A notification method: `notifications/…`. */
type ModelContextNotificationMethod = `notifications/${string}`;

/** An icon (MCP `Icon`). */
interface McpIcon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** MCP content annotations. */
interface McpContentAnnotations {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  lastModified?: string;
}

interface McpTextContent {
  type: 'text';
  text: string;
  annotations?: McpContentAnnotations;
  _meta?: Record<string, unknown>;
}

interface McpImageContent {
  type: 'image';
  /** Base64. */
  data: string;
  mimeType: string;
  annotations?: McpContentAnnotations;
  _meta?: Record<string, unknown>;
}

interface McpAudioContent {
  type: 'audio';
  /** Base64. */
  data: string;
  mimeType: string;
  annotations?: McpContentAnnotations;
  _meta?: Record<string, unknown>;
}

interface McpResourceLink {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: McpContentAnnotations;
  _meta?: Record<string, unknown>;
}

interface McpEmbeddedResource {
  type: 'resource';
  resource: McpResourceContents;
  annotations?: McpContentAnnotations;
  _meta?: Record<string, unknown>;
}

/** A content block. Versions that lack a block type get it adapted by the server. */
type McpContentBlock = McpTextContent | McpImageContent | McpAudioContent | McpResourceLink | McpEmbeddedResource;

/** Resource contents: exactly one of `text` or `blob`. `uri` defaults to the resource's. */
type McpResourceContents =
  | { uri?: string; mimeType?: string; text: string; blob?: never; _meta?: Record<string, unknown> }
  | { uri?: string; mimeType?: string; blob: string; text?: never; _meta?: Record<string, unknown> };

/** A full MCP tool result. */
interface McpCallToolResult {
  content: McpContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/**
 * What a tool handler may return: a full `McpCallToolResult`; a string (one text block);
 * `{ structuredContent }`; any other JSON value (its JSON text; objects are also
 * `structuredContent`); `undefined`/`null` (no content). Throwing gives an `isError` result.
 */
type ToolHandlerResult = McpCallToolResult | ModelContextJSONValue | undefined | void;

/** A session-API tool handler: `(args, extra)`. The args were validated against `inputSchema`. */
type ToolHandler<Input extends object = Record<string, any>> = (
  args: Input,
  extra: ModelContextHandlerExtra,
) => ToolHandlerResult | PromiseLike<ToolHandlerResult>;

/** MCP's tool annotations, plus WebMCP's. Other members pass through to `tools/list`. */
interface McpToolAnnotations extends ToolAnnotations {
  title?: string;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [hint: string]: unknown;
}

interface ToolDefinitionBase<Input extends object = Record<string, any>> {
  title?: string;
  /** Defaults to `""`. */
  description?: string;
  /** A JSON Schema, or a Standard Schema (zod …) that gives one. */
  inputSchema?: ModelContextJSONSchema | ModelContextStandardSchema<Input> | ModelContextStandardSchema<any>;
  /** The shape of `structuredContent` (2025-06-18 and later); a JSON Schema or a Standard Schema. */
  outputSchema?: ModelContextJSONSchema | ModelContextStandardSchema;
  annotations?: McpToolAnnotations;
  icons?: McpIcon[];
  _meta?: Record<string, unknown>;
  /**
   * Whether a call may run as a task (the MCP Tasks extension, SEP-2663; protocol 2026-07-28 and
   * a client whose request names `io.modelcontextprotocol/tasks`). `"optional"`: the call becomes
   * a task when the handler does not answer at once (it awaits a timer, the network, the user, or
   * asks the client through `extra.sendRequest`); `"required"`: likewise, and a client that does
   * not accept tasks gets error -32021. In a task, `extra.reportProgress`/`extra.setStatus` set
   * its `statusMessage`, `extra.sendRequest` surfaces the request in its `inputRequests`, and
   * `tasks/cancel` aborts `extra.signal`. Defaults to `"forbidden"`.
   */
  taskSupport?: 'forbidden' | 'optional' | 'required';
}

/** `registerTool(name, definition)`: the handler is `handler` (or `execute`, the same thing). */
type ToolDefinition<Input extends object = Record<string, any>> = ToolDefinitionBase<Input> &
  ({ handler: ToolHandler<Input>; execute?: never } | { execute: ToolHandler<Input>; handler?: never });

/** A completer for one template variable or prompt argument: the values that could follow `value`. */
type CompletionHandler = (
  value: string,
  context: { argument: string; context: Record<string, string> },
) => CompletionHandlerResult | PromiseLike<CompletionHandlerResult>;

type CompletionHandlerResult = string[] | { values: string[]; total?: number; hasMore?: boolean };

/** What a resource reader may return: text, one contents object, an array of them, or `{ contents }`. */
type ResourceHandlerResult = string | McpResourceContents | McpResourceContents[] | { contents: McpResourceContents[] };

/**
 * A resource reader: `(uri, variables, extra)`. `uri` is a `URL` when the browser can parse it,
 * else the string; `variables` holds the template's `{var}` values.
 */
type ResourceHandler = (
  uri: URL | string,
  variables: Record<string, string>,
  extra: ModelContextHandlerExtra,
) => ResourceHandlerResult | PromiseLike<ResourceHandlerResult>;

interface ResourceDefinitionBase {
  /** Defaults to the URI. */
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: McpContentAnnotations;
  icons?: McpIcon[];
  _meta?: Record<string, unknown>;
  /** Completers for a template's variables, by variable name. */
  complete?: Record<string, CompletionHandler>;
}

/** `registerResource(uriOrTemplate, definition)`: the reader is `handler` (or `read`). */
type ResourceDefinition = ResourceDefinitionBase &
  ({ handler: ResourceHandler; read?: never } | { read: ResourceHandler; handler?: never });

interface McpPromptMessage {
  role: 'user' | 'assistant';
  /** A string is one text block. */
  content: string | McpContentBlock;
}

/** What a prompt renderer may return: text (one user message), messages, or `{ description?, messages }`. */
type PromptHandlerResult = string | McpPromptMessage[] | { description?: string; messages: McpPromptMessage[] };

/** A prompt renderer: `(args, extra)`; required arguments are checked before it runs. */
type PromptHandler = (
  args: Record<string, string>,
  extra: ModelContextHandlerExtra,
) => PromptHandlerResult | PromiseLike<PromptHandlerResult>;

interface PromptArgumentDefinition {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

interface PromptDefinitionBase {
  title?: string;
  description?: string;
  arguments?: PromptArgumentDefinition[];
  /**
   * The MCP TypeScript SDK's way to give the arguments (when `arguments` is absent): a Standard
   * Schema of an object (`z.object({ … })`), or the SDK v1's object of schemas (`{ topic:
   * z.string() }`, where an argument whose schema takes `undefined` is optional). Each property
   * is an argument, with its description.
   */
  argsSchema?: ModelContextStandardSchema | Record<string, ModelContextStandardSchema>;
  icons?: McpIcon[];
  _meta?: Record<string, unknown>;
  /** Completers for arguments, by argument name. */
  complete?: Record<string, CompletionHandler>;
}

/** A file of a skill: text, or `{ text | blob (standard base64), mimeType? }`. */
type SkillFileContent = string | { text: string; mimeType?: string } | { blob: string; mimeType?: string };

/**
 * `registerSkill(name, definition)` (the MCP Skills extension, SEP-2640). The engine writes the
 * skill's `SKILL.md` (YAML frontmatter — `name`, `description` and `frontmatter` — then
 * `instructions`) and serves it and every file as `skill://<prefix…>/<name>/<path>` resources,
 * listed by `skills/list` with their SHA-256 digests and sizes.
 */
interface SkillDefinition {
  /** Required: what the skill does and when to use it. */
  description: string;
  /** The body of `SKILL.md`, after its frontmatter (Markdown). */
  instructions?: string;
  /** Further frontmatter fields (`license`, `compatibility`, `metadata`, `allowed-tools`, …). */
  frontmatter?: Record<string, unknown>;
  /** The skill's other files by path relative to its directory, e.g. `"references/forms.md"`. */
  files?: Record<string, SkillFileContent>;
  /** Path segments before the name: `["acme"]` serves `skill://acme/<name>/…`. */
  prefix?: string[];
}

/** `registerPrompt(name, definition)`: the renderer is `handler` (or `get`). */
type PromptDefinition = PromptDefinitionBase &
  ({ handler: PromptHandler; get?: never } | { get: PromptHandler; handler?: never });

/** The MCP TypeScript SDK's `ResourceTemplate` (or anything whose `uriTemplate` gives the template's text). */
interface McpSdkResourceTemplate {
  readonly uriTemplate: { toString(): string };
}

/** The server's `serverInfo` (and `instructions`) as `initialize` / `server/discover` report them. */
interface ModelContextServerInfo {
  /** Defaults to the page's host. */
  name?: string;
  /** Defaults to the polyfill's version. */
  version?: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: McpIcon[];
  instructions?: string;
}

/** One origin, a list of them, or `'*'` (any; the polyfill warns). */
type ModelContextOrigins = string | string[];

/** Checks every transport applies to what it receives. */
interface ModelContextTransportSecurityOptions {
  /**
   * Token bucket per peer; `false` turns it off. Default: none where the peer is the page's own
   * (tab, event, a Worker or MessagePort, a same-origin frame); 200 messages per 1000 ms where a
   * peer could do harm (a cross-origin frame or window, a BroadcastChannel, an extension port).
   */
  rateLimit?: false | { messages?: number; perMs?: number };
  /** Larger messages are refused with a JSON-RPC error. */
  maxMessageBytes?: number;
  /** Called with the origin of each refused message. */
  onOriginViolation?: (origin: string) => void;
  /** Tool, resource, prompt and completion requests a session of this transport runs at once (default: `limits.maxInFlight`). */
  maxInFlight?: number;
  /** Requests a session of this transport keeps waiting past `maxInFlight` (default: `limits.maxQueued`; 0: none wait). */
  maxQueued?: number;
  /** Bytes those waiting requests may keep together, counted as `limits.maxQueuedBytes` counts them (default: that limit). */
  maxQueuedBytes?: number;
}

/**
 * The tab transport (MCP-B's wire format): clients in the same window. Its one peer is the window,
 * so `rateLimit` counts every message the transport receives.
 */
interface ModelContextTabTransportOptions extends ModelContextTransportSecurityOptions {
  type: 'tab';
  /** Default `mcp-default`. One server per channel per window. */
  channelId?: string;
  /** Default: the page's own origin. `['*']` accepts any origin (and warns). */
  allowedOrigins?: string[];
  /** Keep the session in `sessionStorage` across reloads (prefix default `mcp-tab`). */
  persist?: boolean | { storagePrefix?: string };
}

/**
 * What a postMessage transport talks through: a Worker, a worker's own `self`, a MessagePort, or a
 * Window (an iframe's `contentWindow`, `window.opener`, `window.parent`).
 */
type ModelContextPostMessageTarget =
  | Worker
  | MessagePort
  | Window
  | { postMessage(message: unknown, ...rest: any[]): void; addEventListener: EventTarget['addEventListener'] };

/** `{ type, payload }` messages with a Worker, a worker's `self`, a MessagePort or a Window. */
interface ModelContextPostMessageTransportOptions extends ModelContextTransportSecurityOptions {
  type: 'postMessage';
  target: ModelContextPostMessageTarget;
  /** For Window targets: accepted origins (default: own origin). */
  origin?: ModelContextOrigins;
  /** Default `mcp`. */
  messageType?: string;
}

/** `{ type: 'mcp', instanceId, payload }` on a BroadcastChannel: other pages of the origin. */
interface ModelContextBroadcastChannelTransportOptions extends ModelContextTransportSecurityOptions {
  type: 'broadcastChannel';
  channelName: string;
  /** Default: random. Messages carrying our own id are dropped. */
  instanceId?: string;
}

/**
 * This page is embedded: serve the embedding page (MCP-B iframe envelopes). The embedding page's
 * origin(s) are required: `parentOrigin`, or `allowedOrigins` as MCP-B names it.
 */
type ModelContextIframeChildTransportOptions = ModelContextTransportSecurityOptions & {
  type: 'iframeChild';
  /** Default `mcp-iframe`. */
  channelId?: string;
} & (
    | {
        /** The embedding page's origin(s), or `'*'`. */
        parentOrigin: ModelContextOrigins;
        allowedOrigins?: ModelContextOrigins;
      }
    | {
        parentOrigin?: undefined;
        /** MCP-B's name for `parentOrigin`. */
        allowedOrigins: ModelContextOrigins;
      }
  );

/** Serve a client running in an iframe of this page (MCP-B iframe envelopes). */
interface ModelContextIframeParentTransportOptions extends ModelContextTransportSecurityOptions {
  type: 'iframeParent';
  iframe: HTMLIFrameElement;
  /** The iframe content's origin(s), or `'*'`. */
  targetOrigin: ModelContextOrigins;
  /** Default `mcp-iframe`. */
  channelId?: string;
  /** How long `connect()` waits for the child, ms. */
  connectionTimeout?: number;
  /** How often `mcp-check-ready` is posted until the child answers, ms (default 250). */
  checkReadyRetryMs?: number;
}

/** An event emitter with `emit`/`on`/`off` (mitt, Node's EventEmitter, …). */
interface ModelContextEventEmitter {
  emit(event: string, payload: unknown): unknown;
  on(event: string, listener: (payload: any) => void): unknown;
  off(event: string, listener: (payload: any) => void): unknown;
}

/** An emitter in the same context: `mcp:request` in, `mcp:response` out by default. */
interface ModelContextEventTransportOptions extends ModelContextTransportSecurityOptions {
  type: 'event';
  /** Default: a built-in emitter (see `session.transport.options.emitter`). */
  emitter?: ModelContextEventEmitter;
  /** What the server emits its messages as. Default `mcp:response`. */
  sendEvent?: string;
  /** What the server listens to. Default `mcp:request`. */
  receiveEvent?: string;
}

/** A `chrome.runtime.Port`, or an object of its shape. */
interface ModelContextExtensionPort {
  postMessage(message: unknown): void;
  onMessage: { addListener(cb: (message: any) => void): void; removeListener(cb: (message: any) => void): void };
  onDisconnect: { addListener(cb: () => void): void; removeListener(cb: () => void): void };
  /** Called (when present) by a client transport that closes. */
  disconnect?(): void;
}

/** Raw JSON-RPC over a `chrome.runtime.Port` (browser extensions). */
interface ModelContextExtensionTransportOptions extends ModelContextTransportSecurityOptions {
  type: 'extension';
  port: ModelContextExtensionPort;
  messageType?: string;
  /** `{ type: 'keep-alive', timestamp }` every 25 s unless `false`. */
  keepAlive?: boolean;
  keepAliveInterval?: number;
  onDisconnect?: () => void;
}

/** The transports `connect({ transport })` can open. */
type ModelContextTransportOptions =
  | ModelContextTabTransportOptions
  | ModelContextPostMessageTransportOptions
  | ModelContextBroadcastChannelTransportOptions
  | ModelContextIframeChildTransportOptions
  | ModelContextIframeParentTransportOptions
  | ModelContextEventTransportOptions
  | ModelContextExtensionTransportOptions;

/** A transport a session serves on (`session.transport`). */
interface ModelContextServerTransport {
  readonly type: ModelContextTransportOptions['type'];
  /** The effective options, defaults filled in (frozen). */
  readonly options: Readonly<Record<string, unknown>>;
  readonly isConnected: boolean;
  /** Stops serving (idempotent). */
  close(): void;
}

interface ModelContextConnectOptions {
  serverInfo?: ModelContextServerInfo;
  /**
   * Absent: the session rides the default tab server. Present: the session owns this
   * transport (options, or a transport object built with one of the polyfill's classes).
   */
  transport?: ModelContextTransportOptions | ModelContextServerTransport;
}

/** Resources and prompts, registered on a session or on `modelContext` itself. */
interface ModelContextResourceRegistration {
  /**
   * Registers a resource or, with `{var}` placeholders, a resource template.
   * @returns a function that unregisters it
   */
  registerResource(uriOrTemplate: string, definition: ResourceDefinition): () => void;
  /** The MCP TypeScript SDK's form (`McpServer.registerResource`): the name first, the reader last. */
  registerResource(
    name: string,
    uriOrTemplate: string | McpSdkResourceTemplate,
    config: ResourceDefinitionBase,
    read: ResourceHandler,
  ): () => void;
  /** @returns a function that unregisters the prompt */
  registerPrompt(name: string, definition: PromptDefinition): () => void;
  /** The MCP TypeScript SDK's form (`McpServer.registerPrompt`): the renderer as the third argument. */
  registerPrompt(name: string, config: PromptDefinitionBase, callback: PromptHandler): () => void;
}

/** What `modelContext.connect()` resolves with. Everything it registers goes away on `disconnect()`. */
interface ModelContextSession extends ModelContextResourceRegistration {
  /** @returns a function that unregisters this tool */
  registerTool<Input extends object = Record<string, any>>(name: string, definition: ToolDefinition<Input>): () => void;
  /**
   * The MCP TypeScript SDK's form (`McpServer.registerTool(name, config, handler)`): the same
   * registration, the handler as the third argument.
   */
  registerTool<Input extends object = Record<string, any>>(
    name: string,
    config: ToolDefinitionBase<Input>,
    handler: ToolHandler<Input>,
  ): () => void;
  /** @returns a function that unregisters the skill and its files */
  registerSkill(name: string, definition: SkillDefinition): () => void;
  notify(method: ModelContextNotificationMethod, params?: Record<string, unknown>): void;
  isConnected(): boolean;
  /** The transport this session owns; `null` when it rides the default tab server. */
  readonly transport: ModelContextServerTransport | null;
  /** Unregisters everything this session registered and closes its transport. Idempotent. */
  disconnect(): void;
}

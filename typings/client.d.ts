// The client side (src/client/, polyfill/src/client.js): `McpClient`, the client transports and
// the errors they reject with. Named exports of `modelcontext-polyfill` (dist/modelcontext.js)
// and the `client` of the `globalThis[Symbol.for('modelcontext-polyfill')]` record.
//
//   import { McpClient, PostMessageClientTransport } from 'modelcontext-polyfill';
//   const client = new McpClient(new PostMessageClientTransport({ target: worker }), {
//     timeoutMs: 60000,
//     reconnect: { initialDelayMs: 1000, maxDelayMs: 30000, factor: 2, maxRetries: 5 },
//   });
//   await client.connect();
//   const { tools } = await client.listTools();
//   const result = await client.callTool('search', { q: 'x' }, { timeoutMs: 5000, signal });

/// <reference path="./session.d.ts" />

// ---- JSON-RPC and MCP shapes -------------------------------------------------------------

export type McpRequestId = string | number;

export interface McpJsonRpcRequest {
  jsonrpc: '2.0';
  id: McpRequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface McpJsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
  id?: undefined;
}

export interface McpJsonRpcResultResponse {
  jsonrpc: '2.0';
  id: McpRequestId;
  result: Record<string, unknown>;
}

export interface McpJsonRpcErrorResponse {
  jsonrpc: '2.0';
  /** `null` (or absent) when the request's id could not be read. */
  id?: McpRequestId | null;
  error: { code: number; message: string; data?: unknown };
}

/** One JSON-RPC message, as a transport carries it (an object, never a batch). */
export type McpJsonRpcMessage =
  | McpJsonRpcRequest
  | McpJsonRpcNotification
  | McpJsonRpcResultResponse
  | McpJsonRpcErrorResponse;

/** The protocol versions the client offers and accepts, newest first. */
export type McpProtocolVersion = '2025-11-25' | '2025-06-18' | '2025-03-26' | '2024-11-05';

/** MCP `Implementation`: who a client or server is. */
export interface McpImplementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: McpIcon[];
}

export interface McpServerCapabilities {
  tools?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  logging?: Record<string, unknown>;
  completions?: Record<string, unknown>;
  experimental?: Record<string, Record<string, unknown>>;
  [capability: string]: unknown;
}

export interface McpClientCapabilities {
  roots?: { listChanged?: boolean };
  sampling?: Record<string, unknown>;
  elicitation?: Record<string, unknown>;
  experimental?: Record<string, Record<string, unknown>>;
  [capability: string]: unknown;
}

/** What `connect()` resolves with: the server's `initialize` answer. */
export interface McpServerDetails {
  protocolVersion: McpProtocolVersion;
  serverInfo: McpImplementation;
  capabilities: McpServerCapabilities;
  instructions?: string;
}

/** What `onreconnect` receives: the new `initialize` answer and the attempts it took. */
export interface McpReconnectInfo extends McpServerDetails {
  attempts: number;
}

/** The params of a `notifications/progress` for one request. */
export interface McpProgress {
  progressToken: McpRequestId;
  progress: number;
  total?: number;
  message?: string;
  _meta?: Record<string, unknown>;
}

/** Params of the `…/list` requests. */
export interface McpPaginatedParams {
  /** From the previous page's `nextCursor`; absent (or `undefined`) for the first page. */
  cursor?: string | undefined;
  _meta?: Record<string, unknown>;
}

interface McpPaginatedResult {
  nextCursor?: string;
  _meta?: Record<string, unknown>;
}

/** A tool as `tools/list` describes it. */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: ModelContextJSONSchema;
  outputSchema?: ModelContextJSONSchema;
  annotations?: McpToolAnnotations;
  icons?: McpIcon[];
  _meta?: Record<string, unknown>;
}

export interface McpResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: McpContentAnnotations;
  icons?: McpIcon[];
  _meta?: Record<string, unknown>;
}

export interface McpResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: McpContentAnnotations;
  icons?: McpIcon[];
  _meta?: Record<string, unknown>;
}

export interface McpPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgumentDefinition[];
  icons?: McpIcon[];
  _meta?: Record<string, unknown>;
}

export interface McpListToolsResult extends McpPaginatedResult {
  tools: McpTool[];
}

export interface McpListResourcesResult extends McpPaginatedResult {
  resources: McpResource[];
}

export interface McpListResourceTemplatesResult extends McpPaginatedResult {
  resourceTemplates: McpResourceTemplate[];
}

export interface McpListPromptsResult extends McpPaginatedResult {
  prompts: McpPrompt[];
}

export interface McpReadResourceResult {
  /** Each with its `uri`, and `text` or `blob`. */
  contents: (McpResourceContents & { uri: string })[];
  _meta?: Record<string, unknown>;
}

export interface McpGetPromptResult {
  description?: string;
  messages: { role: 'user' | 'assistant'; content: McpContentBlock }[];
  _meta?: Record<string, unknown>;
}

/** What `ping()` resolves with: `{}`. */
export interface McpEmptyResult {
  _meta?: Record<string, unknown>;
}

// ---- McpClient ---------------------------------------------------------------------------

/** `McpClient.state`. */
export type McpClientState = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'closed';

/**
 * Runs a reconnection attempt: call `reconnect` after (about) `delay` ms. `attemptCount` is 0 for
 * the first attempt after a loss. May return a function that cancels the attempt; the client
 * calls it when it is closed first. `reconnect` may be called late, twice or never: only the
 * first call of the current attempt counts. A throwing scheduler ends reconnection.
 */
export type McpReconnectScheduler = (reconnect: () => void, delay: number, attemptCount: number) => (() => void) | void;

/** `reconnect` of `McpClientOptions`: the backoff after a lost connection. */
export interface McpReconnectOptions {
  /** The first delay, ms. Default 1000. */
  initialDelayMs?: number;
  /** The cap on delays, ms (not less than `initialDelayMs`). Default 30000. */
  maxDelayMs?: number;
  /** Each delay is the previous one times this (>= 1). Default 2. */
  factor?: number;
  /** Attempts after a loss before the client closes; `0` never retries, `Infinity` never gives up. Default 5. */
  maxRetries?: number;
  /** Shortens each delay by up to this fraction at random, 0–1 (`true`: 0.5). Default 0. */
  jitter?: boolean | number;
  /** Runs each attempt. Default: a timer. */
  scheduler?: McpReconnectScheduler | null;
}

export interface McpClientOptions {
  /** Default timeout of every request, ms (`Infinity`: none). Default 60000. */
  timeoutMs?: number;
  /** Sends `ping` this often while connected, ms; a ping that goes unanswered closes (or reconnects). Default 0: off. */
  heartbeatMs?: number;
  /** How long a heartbeat ping may take, ms. Default: `heartbeatMs`. */
  heartbeatTimeoutMs?: number;
  /** Reconnect after a lost connection: `true` (the defaults) or the backoff. Default: off. */
  reconnect?: boolean | McpReconnectOptions | null;
  /** `clientInfo` of `initialize`; `name` and `version` default to the polyfill's. */
  clientInfo?: Partial<McpImplementation>;
  /** Capabilities to declare, in addition to those implied by request handlers. */
  capabilities?: McpClientCapabilities;
}

/** Per-request options. */
export interface McpRequestOptions {
  /** This request's timeout, ms (`Infinity`: none). Default: the client's `timeoutMs`. */
  timeoutMs?: number;
  /** Aborting sends `notifications/cancelled` and rejects with the signal's reason. */
  signal?: AbortSignal | null;
  /** Asks for progress (`_meta.progressToken`) and receives each `notifications/progress`. */
  onprogress?: ((progress: McpProgress) => void) | null;
}

/** A notification from the server, as `onNotification` callbacks receive it. */
export interface McpNotification {
  method: string;
  params?: Record<string, unknown>;
}

/** A request from the server, as `setRequestHandler` handlers receive it. */
export interface McpServerRequest {
  method: string;
  params?: Record<string, unknown>;
}

export interface McpServerRequestExtra {
  /** The JSON-RPC id of the server's request. */
  requestId: McpRequestId;
  /** Aborts when the server cancels the request or the connection ends. */
  signal: AbortSignal;
}

/**
 * Answers a server-to-client request: what it returns (or resolves to) is the result
 * (`undefined`: `{}`), what it throws the error (an `McpError`'s `code` and `data` are kept).
 */
export type McpServerRequestHandler = (
  request: McpServerRequest,
  extra: McpServerRequestExtra,
) => object | undefined | void | PromiseLike<object | undefined | void>;

/**
 * What `McpClient` talks through: the MCP TypeScript SDK's `Transport` shape. The client
 * transports below are such objects; so are the SDK's and MCP-B's. The client sets `onmessage`,
 * `onclose` and `onerror` when it starts the transport.
 */
export interface McpClientTransport {
  start(): void | PromiseLike<void>;
  /** A request whose `send` throws or rejects fails at once with a `TransportError` saying why. */
  send(message: McpJsonRpcMessage): void | PromiseLike<void>;
  close(): void | PromiseLike<void>;
  onmessage?: ((message: any) => void) | null;
  onclose?: ((reason?: any) => void) | null;
  onerror?: ((error: any) => void) | null;
}

/** An MCP client for a server behind any client transport (a worker, an iframe, another tab, this page). */
export declare class McpClient<Transport extends McpClientTransport = McpClientTransport> {
  /**
   * `new McpClient(transport, { timeoutMs, heartbeatMs, heartbeatTimeoutMs, reconnect, clientInfo, capabilities })`.
   * Throws a `TypeError` naming a bad option, or when `transport` lacks `start`/`send`/`close`.
   */
  constructor(transport: Transport, options?: McpClientOptions | null);

  /** Starts the transport and initializes. Rejects with `InvalidStateError` when already connecting or connected. */
  connect(): Promise<McpServerDetails>;
  /** Sends any request; resolves with its result, rejects with `McpError`, `RequestTimeoutError`, `TransportClosedError` or the signal's reason. */
  request<R = any>(method: string, params?: Record<string, unknown> | null, options?: McpRequestOptions | null): Promise<R>;
  listTools(params?: McpPaginatedParams | null, options?: McpRequestOptions | null): Promise<McpListToolsResult>;
  listResources(params?: McpPaginatedParams | null, options?: McpRequestOptions | null): Promise<McpListResourcesResult>;
  listResourceTemplates(
    params?: McpPaginatedParams | null,
    options?: McpRequestOptions | null,
  ): Promise<McpListResourceTemplatesResult>;
  listPrompts(params?: McpPaginatedParams | null, options?: McpRequestOptions | null): Promise<McpListPromptsResult>;
  /** `tools/call`. A tool that fails resolves with `isError: true`; an unknown tool rejects with `McpError`. */
  callTool(name: string, args?: Record<string, unknown> | null, options?: McpRequestOptions | null): Promise<McpCallToolResult>;
  readResource(uri: string, options?: McpRequestOptions | null): Promise<McpReadResourceResult>;
  getPrompt(name: string, args?: Record<string, string> | null, options?: McpRequestOptions | null): Promise<McpGetPromptResult>;
  ping(options?: McpRequestOptions | null): Promise<McpEmptyResult>;
  /** Sends a notification; resolves once sent. */
  notify(method: ModelContextNotificationMethod, params?: Record<string, unknown> | null): Promise<void>;
  /**
   * Calls `callback` for each notification named `method` (`'*'`: every one).
   * @returns a function that removes the callback
   */
  onNotification(method: string, callback: (notification: McpNotification) => void): () => void;
  /**
   * Answers the server's requests named `method` (`null` removes the handler). A handler for
   * `sampling/createMessage`, `elicitation/create` or `roots/list` declares the capability at the
   * next `connect()`. `ping` is answered without one.
   */
  setRequestHandler(method: string, handler: McpServerRequestHandler | null): void;
  /**
   * Cancels a scheduled reconnection, rejects every pending request with a
   * `TransportClosedError`, closes the transport, calls `onclose`. Idempotent.
   */
  close(): Promise<void>;

  readonly state: McpClientState;
  /** The transport given to the constructor. */
  readonly transport: Transport;
  /** The negotiated protocol version (`undefined` before `connect()`). */
  readonly protocolVersion: McpProtocolVersion | undefined;
  readonly serverInfo: McpImplementation | undefined;
  readonly serverCapabilities: McpServerCapabilities | undefined;
  readonly instructions: string | undefined;
  /** Requests sent or queued and not yet settled. */
  readonly pendingRequests: number;

  /** Called once when the client closes: with the reason when the connection was lost, `undefined` after `close()`. */
  onclose: ((reason: string | undefined) => void) | null;
  /** Called for errors not tied to one request (bad frames, failed reconnection attempts). */
  onerror: ((error: Error) => void) | null;
  /** Called after a reconnection re-initialized. */
  onreconnect: ((info: McpReconnectInfo) => void) | null;

  /** Releases the wasm object behind it; using the instance afterwards throws. */
  free(): void;
}

// ---- client transports -------------------------------------------------------------------

/**
 * What every client transport class has: the SDK `Transport` shape, restartable after `close()`
 * (which reconnection relies on).
 */
export interface McpClientTransportMembers {
  /**
   * Starts listening; resolves once the server is ready. Rejects with `InvalidStateError` when
   * already started, with a `TransportError` (`code` `'CONNECTION_FAILED'`) when the server never
   * answered.
   */
  start(): Promise<void>;
  /** Sends one JSON-RPC message. Rejects with `InvalidStateError` unless connected. */
  send(message: McpJsonRpcMessage): Promise<void>;
  /** Stops listening and calls `onclose` (idempotent). */
  close(): Promise<void>;
  /** Whether a connection is open. */
  readonly isConnected: boolean;
  /** Each JSON-RPC message from the server. */
  onmessage: ((message: McpJsonRpcMessage) => void) | null;
  /** The connection ended: with the reason when the peer ended it, `undefined` after `close()`. */
  onclose: ((reason: string | undefined) => void) | null;
  /** A problem that does not end the connection (e.g. a malformed message). */
  onerror: ((error: TransportError) => void) | null;
  /** Releases the wasm object behind it; using the instance afterwards throws. */
  free(): void;
}

export interface TabClientTransportOptions {
  /** Default `mcp-default`. */
  channelId?: string;
  /** Checked against every message's origin; `'*'` skips the check. Default: this page's origin. */
  targetOrigin?: string;
  /** How long `start()` waits for the server, ms. Default: no limit. */
  connectionTimeout?: number;
}

/** A client for a tab server in the same window (MCP-B's tab envelopes). */
export declare class TabClientTransport implements McpClientTransport {
  /** `new TabClientTransport({ channelId = 'mcp-default', targetOrigin = location.origin, connectionTimeout })` */
  constructor(options?: TabClientTransportOptions | null);
}
export interface TabClientTransport extends McpClientTransportMembers {}

export interface PostMessageClientTransportOptions {
  target: ModelContextPostMessageTarget;
  /** Window targets: the server's origin, checked on answers and used to post (`'*'` warns). Default: this page's origin. */
  origin?: string;
  /** Default `mcp`. */
  messageType?: string;
}

/**
 * A client for a server behind `postMessage`: a Worker, a worker's `self`, a MessagePort, a
 * Window. With a Window target the transport closes when the window does (a closed popup, a
 * removed frame's window): `onclose` gets `'the target window was closed'`, within about a
 * second; a send to it once it is closed fails at once.
 */
export declare class PostMessageClientTransport implements McpClientTransport {
  /** `new PostMessageClientTransport({ target, origin = location.origin, messageType = 'mcp' })` */
  constructor(options: PostMessageClientTransportOptions);
  /** `new PostMessageClientTransport(target, { origin, messageType })` */
  constructor(target: ModelContextPostMessageTarget, options?: Omit<PostMessageClientTransportOptions, 'target'> | null);
}
export interface PostMessageClientTransport extends McpClientTransportMembers {}

export interface BroadcastChannelClientTransportOptions {
  channelName: string;
  /** Default: random. Messages carrying it are this client's own. */
  instanceId?: string;
}

/** A client for a server in another page (or worker) of the origin, over a BroadcastChannel. */
export declare class BroadcastChannelClientTransport implements McpClientTransport {
  /** `new BroadcastChannelClientTransport({ channelName, instanceId = crypto.randomUUID() })` */
  constructor(options: BroadcastChannelClientTransportOptions);
}
export interface BroadcastChannelClientTransport extends McpClientTransportMembers {}

export interface IframeParentClientTransportOptions {
  iframe: HTMLIFrameElement;
  /** The iframe content's origin; `'*'` disables the origin check (and warns). */
  targetOrigin: string;
  /** Default `mcp-iframe`. */
  channelId?: string;
  /** How often `mcp-check-ready` is posted until the child answers, ms (>= 1). Default 250. */
  checkIntervalMs?: number;
  /** How long `start()` waits for the child, ms. Default 10000. */
  connectionTimeout?: number;
}

/**
 * The embedding page's client for a server inside an iframe (MCP-B iframe envelopes). Once
 * the iframe has had a window, the transport closes when it has none (the element was removed
 * from the document): `onclose` gets `'the iframe was removed from the document'`, within
 * about a second; a send to it then fails at once.
 */
export declare class IframeParentClientTransport implements McpClientTransport {
  /** `new IframeParentClientTransport({ iframe, targetOrigin, channelId = 'mcp-iframe', checkIntervalMs = 250, connectionTimeout = 10000 })` */
  constructor(options: IframeParentClientTransportOptions);
}
export interface IframeParentClientTransport extends McpClientTransportMembers {}

export interface EventClientTransportOptions {
  emitter: ModelContextEventEmitter;
  /** What requests are emitted as. Default `mcp:request`. */
  sendEvent?: string;
  /** What answers arrive as. Default `mcp:response`. */
  receiveEvent?: string;
}

/** A client for a server in the same context over an emitter with `emit`/`on`/`off`. */
export declare class EventClientTransport implements McpClientTransport {
  /** `new EventClientTransport({ emitter, sendEvent = 'mcp:request', receiveEvent = 'mcp:response' })` */
  constructor(options: EventClientTransportOptions);
  /** `new EventClientTransport(emitter, { sendEvent, receiveEvent })` */
  constructor(emitter: ModelContextEventEmitter, options?: Omit<EventClientTransportOptions, 'emitter'> | null);
}
export interface EventClientTransport extends McpClientTransportMembers {}

/**
 * Where an `ExtensionClientTransport` gets its port: a `port` (one connection: it cannot
 * reconnect), a `connect` function returning a fresh port per connection, or else
 * `chrome.runtime.connect(extensionId?, { name: portName })` per connection.
 */
export type ExtensionClientTransportOptions =
  | { port: ModelContextExtensionPort; connect?: undefined; extensionId?: undefined; portName?: undefined }
  | { connect: () => ModelContextExtensionPort; port?: undefined; extensionId?: undefined; portName?: undefined }
  | {
      /** Default: this extension. */
      extensionId?: string;
      /** Default `mcp`. */
      portName?: string;
      port?: undefined;
      connect?: undefined;
    };

/** A client for a server at the other end of a `chrome.runtime.Port` (raw JSON-RPC; keep-alives ignored). */
export declare class ExtensionClientTransport implements McpClientTransport {
  /** `new ExtensionClientTransport({ port })`, `({ connect: () => port })` or `({ extensionId?, portName = 'mcp' })` */
  constructor(options?: ExtensionClientTransportOptions | null);
}
export interface ExtensionClientTransport extends McpClientTransportMembers {}

// ---- errors ------------------------------------------------------------------------------

/** The `code`s the polyfill gives its `TransportError`s. */
export type McpTransportErrorCode =
  | 'TRANSPORT_ERROR'
  | 'TRANSPORT_CLOSED'
  | 'REQUEST_TIMEOUT'
  | 'CONNECTION_FAILED'
  | 'SEND_FAILED'
  | 'INVALID_MESSAGE'
  | 'PROTOCOL_ERROR'
  | 'UNSUPPORTED_VERSION';

/** A transport or connection failure. `name` is `'TransportError'`. */
export declare class TransportError extends Error {
  constructor(message?: string, code?: string);
  /** Machine-readable: `'CONNECTION_FAILED'`, `'SEND_FAILED'`, … Default `'TRANSPORT_ERROR'`. */
  code: McpTransportErrorCode | (string & {});
}

/** The connection closed (or was lost) before the answer came. `name` is `'TransportClosedError'`. */
export declare class TransportClosedError extends TransportError {
  constructor(message?: string, details?: { reason?: unknown } | null);
  code: 'TRANSPORT_CLOSED';
  /** Why it closed, when known. */
  reason: string | undefined;
}

/**
 * No answer within the request's timeout (`notifications/cancelled` was sent).
 * `name` is `'RequestTimeoutError'`.
 */
export declare class RequestTimeoutError extends TransportError {
  constructor(message?: string, details?: { requestId?: McpRequestId; method?: string; timeoutMs?: number } | null);
  code: 'REQUEST_TIMEOUT';
  requestId: McpRequestId | undefined;
  method: string | undefined;
  timeoutMs: number | undefined;
}

/**
 * A JSON-RPC error the server answered with (as the MCP SDK's `McpError`); `message` is
 * `MCP error ${code}: ${message}`. Thrown from a request handler, its `code` and `data` are sent.
 */
export declare class McpError extends Error {
  constructor(code: number, message: string, data?: unknown);
  /** The JSON-RPC error code (e.g. -32601, method not found). */
  code: number;
  data: unknown;
}

export {};

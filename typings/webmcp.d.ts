// The W3C WebMCP API (the Web Machine Learning CG's webmcp.idl) as modelcontext-polyfill installs
// it, plus the earlier drafts' methods it keeps working (marked @deprecated). Global declarations,
// in the style of TypeScript's lib.dom.d.ts. The session API and MCP shapes are in session.d.ts.

/// <reference path="./session.d.ts" />

/** Any JSON value. */
type ModelContextJSONValue =
  | string
  | number
  | boolean
  | null
  | ModelContextJSONValue[]
  | { [key: string]: ModelContextJSONValue };

/**
 * A JSON Schema (the 2020-12 dialect unless `$schema` says otherwise). Every call is validated
 * against the tool's `inputSchema`, on every path (executeTool, MCP tools/call, the session API).
 */
interface ModelContextJSONSchema {
  $schema?: string;
  $id?: string;
  $ref?: string;
  $defs?: Record<string, ModelContextJSONSchema | boolean>;
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, ModelContextJSONSchema | boolean>;
  required?: string[];
  additionalProperties?: ModelContextJSONSchema | boolean;
  items?: ModelContextJSONSchema | boolean;
  enum?: ModelContextJSONValue[];
  const?: ModelContextJSONValue;
  default?: ModelContextJSONValue;
  [keyword: string]: unknown;
}

/**
 * A Standard Schema (https://standardschema.dev) that gives its JSON Schema: zod 4.2 or later,
 * ArkType, and others. Accepted wherever a tool's JSON Schema is (beyond the spec): the tool is
 * listed and its input checked with the JSON Schema the library gives, and the tool function gets
 * the value the library parses (defaults filled, transforms applied).
 */
interface ModelContextStandardSchema<Output = unknown> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => unknown;
    /** The library's types: a tool's `Input` is inferred from `output` (what the tool gets). */
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
    readonly jsonSchema: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
      readonly output: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

/** WebMCP's tool annotations. All four default to `false`. */
interface ToolAnnotations {
  /** The tool only reads; it changes nothing. */
  readOnlyHint?: boolean;
  /** The tool's output may contain content the page does not vouch for. */
  untrustedContentHint?: boolean;
  /** The tool has consequences the user may want to confirm. */
  consequentialHint?: boolean;
  /** The tool exists for debugging. */
  debugging?: boolean;
}

/** The logging levels of MCP's `notifications/message` (RFC 5424 severities). */
type ModelContextLoggingLevel =
  | 'debug'
  | 'info'
  | 'notice'
  | 'warning'
  | 'error'
  | 'critical'
  | 'alert'
  | 'emergency';

/**
 * The second argument of every page callback: a W3C `execute`, a session-API `handler`, a
 * resource reader, a prompt renderer. `signal` is its one enumerable member (the IDL's
 * `ToolExecuteCallbackOptions`); the rest are there by name. Its functions act while the call
 * runs; once it has settled, `reportProgress`, `log` and `setStatus` return `false`,
 * `sendRequest` rejects and `getTaskId` returns `undefined`.
 */
interface ModelContextHandlerExtra {
  /** Aborts when the call is cancelled (MCP `notifications/cancelled`, an aborted executeTool signal, a closed session). */
  readonly signal: AbortSignal;
  /** The JSON-RPC id of the MCP request being served; absent for calls that did not come over MCP. */
  readonly requestId?: string | number;
  /** The request's `params._meta`, when it had one. */
  readonly _meta?: Record<string, unknown>;
  /**
   * Sends `notifications/progress` when the caller asked for progress (gave a progressToken).
   * @returns whether a notification was sent
   */
  reportProgress(progress: number, total?: number, message?: string): boolean;
  /**
   * Sends `notifications/message` to the client, subject to its `logging/setLevel`.
   * @returns whether a notification was sent
   */
  log(level: ModelContextLoggingLevel, data: unknown, logger?: string): boolean;
  /**
   * Sends a request to the client (e.g. `sampling/createMessage`, `elicitation/create`,
   * `roots/list`) related to this call. Rejects with an `Error` whose `code` is the JSON-RPC
   * error code.
   */
  sendRequest<R = any>(method: string, params?: Record<string, unknown>): Promise<R>;
  /**
   * The MCP TypeScript SDK's form (`extra.sendRequest(request, resultSchema)`,
   * `ctx.mcpReq.send(request)`), for handlers ported from it: the same request. The schema and
   * options are accepted and not used; the result is the client's answer as it came.
   */
  sendRequest<R = any>(request: { method: string; params?: Record<string, unknown> }, resultSchema?: unknown, options?: unknown): Promise<R>;
  /**
   * The MCP TypeScript SDK v1's `extra.sendNotification`, for handlers ported from it:
   * `notifications/progress` (as `reportProgress`; the call's own progress token is used) and
   * `notifications/message` (as `log`). Rejects with a `TypeError` for any other method.
   */
  sendNotification(notification: { method: 'notifications/progress'; params: { progress: number; total?: number; message?: string; progressToken?: string | number } } | { method: 'notifications/message'; params: { level: ModelContextLoggingLevel; data: unknown; logger?: string } }): Promise<void>;
  /**
   * The MCP TypeScript SDK v2's `ctx.mcpReq` (a handler's second argument there), for handlers
   * ported from it: the same request, signal and functions as above.
   */
  readonly mcpReq: {
    readonly id: string | number | undefined;
    readonly _meta: Record<string, unknown> | undefined;
    readonly signal: AbortSignal;
    readonly inputResponses: Record<string, unknown> | undefined;
    requestState(): string | undefined;
    send<R = any>(request: { method: string; params?: Record<string, unknown> }, options?: unknown): Promise<R>;
    notify(notification: { method: 'notifications/progress'; params: { progress: number; total?: number; message?: string; progressToken?: string | number } } | { method: 'notifications/message'; params: { level: ModelContextLoggingLevel; data: unknown; logger?: string } }): Promise<void>;
    log(level: ModelContextLoggingLevel, data: unknown, logger?: string): Promise<void>;
    elicitInput<R = any>(params: Record<string, unknown>, options?: unknown): Promise<R>;
    requestSampling<R = any>(params: Record<string, unknown>, options?: unknown): Promise<R>;
  };
  /**
   * Present when the call may run as a task (its tool has `taskSupport` and the client accepts
   * tasks): sets the task's `statusMessage`. @returns whether it was set
   */
  setStatus?(message: string): boolean;
  /** Present when the call may run as a task: the task's id once the call has become one. */
  getTaskId?(): string | undefined;
  /**
   * Earlier drafts' `client.requestUserInteraction(callback)`: runs `callback`, resolves with its result.
   * @deprecated execute now receives `(input, { signal })`; interact with the user directly.
   */
  requestUserInteraction<T>(callback: () => T | PromiseLike<T>): Promise<T>;
}

/** The IDL's `ToolExecuteCallbackOptions` (`{ signal }`) and the extras this polyfill adds. */
interface ToolExecuteCallbackOptions extends ModelContextHandlerExtra {}

/**
 * A tool's `execute`: its result is returned by `executeTool` as is when it is a string and as
 * JSON otherwise; over MCP a string is one text block and an object is also `structuredContent`.
 */
type ToolExecuteCallback<Input extends object = Record<string, any>> = (
  inputObject: Input,
  options: ToolExecuteCallbackOptions,
) => unknown;

/** What `registerTool(tool)` takes (IDL `ModelContextTool`). */
interface ModelContextTool<Input extends object = Record<string, any>> {
  /** 1–128 characters from `A-Z a-z 0-9 _ - .`; unique in the document. */
  name: string;
  title?: string;
  /** Must not be empty. */
  description: string;
  /**
   * A JSON Schema for the input object; serialized as `JSON.stringify` would. Or a Standard
   * Schema (zod …), serialized as the JSON Schema it gives.
   */
  inputSchema?: ModelContextJSONSchema | ModelContextStandardSchema<Input> | ModelContextStandardSchema<any>;
  /**
   * Beyond the spec, as `@mcp-b/global` and the MCP TypeScript SDK take it: the shape of the
   * `structuredContent` the tool returns (an object it returns is that), listed to MCP clients
   * and checked. One that cannot be used is left out with a console warning.
   */
  outputSchema?: ModelContextJSONSchema | ModelContextStandardSchema;
  execute: ToolExecuteCallback<Input>;
  annotations?: ToolAnnotations;
}

/** IDL `ModelContextRegisterToolOptions`. */
interface ModelContextRegisterToolOptions {
  /** Origins (URLs with potentially trustworthy origins) of other frames that may see the tool. */
  exposedTo?: string[];
  /** Aborting it unregisters the tool (and rejects a still-pending registerTool promise). */
  signal?: AbortSignal;
}

/** IDL `ModelContextGetToolOptions`. */
interface ModelContextGetToolOptions {
  fromOrigins?: string[];
}

/** IDL `ModelContextExecuteToolOptions`. */
interface ModelContextExecuteToolOptions {
  /** Aborting it rejects with the reason at once; a task later, a running tool's `signal` aborts and `toolcancel` fires. */
  signal?: AbortSignal;
}

/** What `getTools()` returns (IDL `RegisteredTool`), sorted by name. */
interface RegisteredTool {
  name: string;
  /** `""` when the tool has none. */
  title?: string;
  description: string;
  /** The schema parsed back into an object; absent when none was given. */
  inputSchema?: ModelContextJSONSchema;
  /** The window that registered the tool. */
  window: Window;
  origin: string;
  annotations?: ToolAnnotations;
}

/** The promise `registerTool(tool)` returns; earlier drafts returned `{ unregister() }`. */
interface ModelContextRegisterToolPromise extends Promise<void> {
  /** @deprecated Pass `{ signal }` to registerTool and abort it instead. */
  unregister(): void;
}

interface ToolActivatedEventInit extends EventInit {
  toolName?: string;
}

/** Fired at the ModelContext and at `window` when an agent invokes a tool. */
interface ToolActivatedEvent extends Event {
  readonly toolName: string;
}

declare var ToolActivatedEvent: {
  prototype: ToolActivatedEvent;
  new (type: string, eventInitDict?: ToolActivatedEventInit): ToolActivatedEvent;
};

interface ToolCancelEventInit extends EventInit {
  toolName?: string;
}

/** Fired at the ModelContext when a tool call is cancelled. */
interface ToolCancelEvent extends Event {
  readonly toolName: string;
}

declare var ToolCancelEvent: {
  prototype: ToolCancelEvent;
  new (type: string, eventInitDict?: ToolCancelEventInit): ToolCancelEvent;
};

interface ModelContextEventMap {
  /** The set of tools changed (fired before the registerTool promise resolves). */
  toolchange: Event;
  toolactivated: ToolActivatedEvent;
  toolcancel: ToolCancelEvent;
}

/**
 * `document.modelContext` / `navigator.modelContext`: the W3C WebMCP interface, the session API
 * and the in-page MCP server behind both.
 */
interface ModelContext extends EventTarget, ModelContextResourceRegistration {
  /**
   * Registers a tool (W3C). Rejects with `InvalidStateError` (duplicate or invalid name, empty
   * description), `TypeError` (schema not serializable), `SecurityError` (bad `exposedTo`), or
   * the signal's reason.
   */
  registerTool<Input extends object = Record<string, any>>(
    tool: ModelContextTool<Input>,
    options?: ModelContextRegisterToolOptions,
  ): ModelContextRegisterToolPromise;
  /**
   * Registers a tool (session API). Throws synchronously on a bad definition.
   * @returns a function that unregisters this tool
   */
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

  getTools(options?: ModelContextGetToolOptions): Promise<RegisteredTool[]>;
  /**
   * Runs a tool as an agent would. Resolves with the result as a string; rejects with
   * `DataError` for input that violates the schema, `UnknownError` when the tool fails or is
   * unknown, `TypeError` when `inputObject` is not an object.
   */
  executeTool(
    tool: RegisteredTool,
    inputObject?: object,
    options?: ModelContextExecuteToolOptions,
  ): Promise<string>;

  /** Registers a skill (MCP Skills extension). @returns a function that unregisters it */
  registerSkill(name: string, definition: SkillDefinition): () => void;
  /** Opens a session: the default tab server (started if stopped) or the given transport. */
  connect(options?: ModelContextConnectOptions): Promise<ModelContextSession>;
  /** Unregisters what the session-API methods on this object registered; stops the default tab server. */
  disconnect(): void;
  /** Whether the default tab server is running. */
  isConnected(): boolean;
  /** Sends a notification to connected MCP clients (`notifications/…`). */
  notify(method: ModelContextNotificationMethod, params?: Record<string, unknown>): void;

  /** @deprecated Replaced the whole tool set. Use registerTool with an AbortSignal. */
  provideContext(context?: { tools?: ModelContextTool<any>[] }): void;
  /** @deprecated Removed every tool. Abort each tool's AbortSignal instead. */
  clearContext(): void;
  /** @deprecated Removed one tool. Abort the tool's AbortSignal instead. */
  unregisterTool(name: string): void;

  ontoolchange: ((this: ModelContext, ev: Event) => any) | null;
  ontoolactivated: ((this: ModelContext, ev: ToolActivatedEvent) => any) | null;
  ontoolcancel: ((this: ModelContext, ev: ToolCancelEvent) => any) | null;

  addEventListener<K extends keyof ModelContextEventMap>(
    type: K,
    listener: (this: ModelContext, ev: ModelContextEventMap[K]) => any,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void;
  removeEventListener<K extends keyof ModelContextEventMap>(
    type: K,
    listener: (this: ModelContext, ev: ModelContextEventMap[K]) => any,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions,
  ): void;
}

/** The interface object: `instanceof` works; constructing throws `TypeError` ("Illegal constructor"). */
declare var ModelContext: { readonly prototype: ModelContext } & (abstract new () => ModelContext);

/** Chromium's test-only API, which older agent tooling drives pages through. */
interface ModelContextTesting {
  /** Tools with `inputSchema` as a JSON string. */
  listTools(): { name: string; description: string; inputSchema?: string }[];
  /** Runs a tool with JSON-text arguments; resolves with the result string. */
  executeTool(toolName: string, inputArgsJson: string): Promise<string>;
  registerToolsChangedCallback(callback: () => void): void;
}

/**
 * Set before the polyfill loads to configure it. A value that is not valid costs only itself:
 * the console warns, naming it, and the defaults serve in its place.
 */
interface ModelContextPolyfillConfig {
  serverInfo?: ModelContextServerInfo;
  /**
   * `false`: no default tab server. Default: on, channel `mcp-default`, own origin only, no
   * rate limit (its clients are the page's own scripts), the engine's message size limit;
   * `persist: true` keeps its session across reloads.
   */
  tab?: false | Omit<ModelContextTabTransportOptions, 'type'>;
  /** Limits of every session, on every transport. */
  limits?: {
    /** Tool, resource, prompt and completion requests run at once per session (default 1024); more wait in a queue. */
    maxInFlight?: number;
    /** Requests waiting past `maxInFlight` (default 4096; 0: none wait); past both, a request is refused. */
    maxQueued?: number;
    /**
     * Bytes the waiting requests of a session may keep together (default 64 MiB): a tool call's arguments as
     * their JSON text, the rest of each request's params as the memory of the values they were read into
     * (several times their text). Past it, a request is refused.
     */
    maxQueuedBytes?: number;
    /** Largest message in bytes of JSON text (default 4 MiB). */
    maxMessageBytes?: number;
    /**
     * Most JSON values one message may hold, a tool call's arguments aside (default 100,000): each
     * value read takes wasm memory, which never shrinks. Past it, the message is refused. Also the
     * most values a call's refused arguments are read into for their report: past it, the report
     * names where the check failed, from the text.
     */
    maxMessageValues?: number;
    /** Deepest array/object nesting (default 64). */
    maxDepth?: number;
    /** A tool call still running after this long ends with an `isError` result (default: none). */
    toolTimeoutMs?: number | null;
    /** Items per page of list results (default: all in one page, since many clients never follow `nextCursor`). */
    pageSize?: number;
    /**
     * Shortest time between two `notifications/…/list_changed` (default 50 ms): the first change
     * after a quiet spell is announced at once, later ones together at the interval's end.
     * 0: every turn's changes at once.
     */
    listChangedIntervalMs?: number;
  };
  /**
   * Where the core wasm module is fetched from, right after the polyfill installs (relative
   * URLs resolve against the page). Default: `modelcontext_glue_bg.wasm` beside the polyfill's
   * files (as your bundler emitted it). Unused by the builds with the wasm inline.
   */
  coreUrl?: string | URL;
  /**
   * Where the core's deferred wasm module (what a page's everyday use does not run: the other
   * transports, the session API, the declarative forms, the legacy methods…) is fetched from,
   * once the core has started (relative URLs resolve against the page). Default:
   * `modelcontext_deferred.wasm` beside `coreUrl` when that is set, else beside the polyfill's
   * files. Unused by the builds with the wasm inline.
   */
  deferredUrl?: string | URL;
  /**
   * Where the call module of the core's deferred module (what an agent's tool calls run of it,
   * fetched before the rest so that the first call is answered sooner) is fetched from.
   * Default: `modelcontext_calls.wasm` beside `deferredUrl` when that is set, else beside
   * `coreUrl` when that is, else beside the polyfill's files. Unused by the builds with the wasm
   * inline.
   */
  callsUrl?: string | URL;
  /**
   * Where the JSON Schema validator module is fetched from, when a tool with a schema is first
   * registered (relative URLs resolve against the page). Default: `modelcontext_validator.wasm`
   * beside the polyfill script.
   */
  validatorUrl?: string | URL;
  /**
   * Where the client module's wasm (`McpClient` and the client transports) is fetched from, when
   * a page first makes a client (relative URLs resolve against the page). Default:
   * `modelcontext_client_glue_bg.wasm` beside the polyfill's files. Unused by the builds with
   * the wasm inline.
   */
  clientUrl?: string | URL;
  /**
   * Load the client module (`McpClient` and the client transports) beside the core instead of
   * when the page first makes a client: for a page that makes one at once. Default `false`.
   */
  preloadClient?: boolean;
}

// Declared empty so that projects without the DOM lib (`lib: ["webworker"]`) compile these
// typings; with the DOM lib they merge with its declarations and change nothing.
interface Window {}
interface HTMLIFrameElement {}

interface Navigator {
  /** The same object as `document.modelContext` (earlier drafts' location). */
  readonly modelContext: ModelContext;
  /** @deprecated Chromium's test-only API; use `document.modelContext.getTools()` / `executeTool()`. */
  readonly modelContextTesting: ModelContextTesting;
}

interface WorkerNavigator {
  /** In workers the object has no default tab server; serve over an explicit transport. */
  readonly modelContext: ModelContext;
}

interface Document {
  readonly modelContext: ModelContext;
}

interface WindowEventMap {
  toolactivated: ToolActivatedEvent;
  toolcancel: ToolCancelEvent;
}

declare var modelContextPolyfillConfig: ModelContextPolyfillConfig | undefined;

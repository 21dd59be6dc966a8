// Type definitions for modelcontext-polyfill: navigator.modelContext / document.modelContext
// (the W3C WebMCP API), the session API, the in-page MCP server's handler shapes, the server
// transport classes and the client (McpClient, client transports, errors).
//
// Loading the polyfill is a side effect, so are its types:
//
//   import 'modelcontext-polyfill';                      // ESM, types included
//   /// <reference types="modelcontext-polyfill" />      // classic script users
//
// The W3C and session-API names are declared globally (like lib.dom.d.ts) and also exported as
// types, so both `const t: ModelContextTool = …` and
// `import type { ModelContextTool } from 'modelcontext-polyfill'` work.
//
// The classes are not globals: they are the module's named exports
// (`import { McpClient, TabClientTransport } from 'modelcontext-polyfill'`, transports.d.ts and
// client.d.ts) and, for classic scripts, members of the record the polyfill installs at
// `globalThis[Symbol.for('modelcontext-polyfill')]` (`ModelContextPolyfillRecord` below).

/// <reference path="./webmcp.d.ts" />
/// <reference path="./session.d.ts" />

import type * as ServerTransports from './transports.js';
import type * as Client from './client.js';

export * from './transports.js';
export * from './client.js';

/**
 * Resolves with the installed copy's record once its core wasm has loaded (both its parts, in
 * the builds that load the core in two: after it every call goes straight to the core); rejects
 * with the cause and the fix when it cannot (or, outside a browser, when nothing was installed).
 * `document.modelContext` exists before: calls made earlier wait for the core. The exported
 * classes (`McpClient`, the transports, the errors) come with the core: use them after `ready`.
 */
export declare const ready: Promise<ModelContextPolyfillRecord>;

/**
 * Loads the client module (`McpClient` and the client transports live in a wasm module of their
 * own, fetched when a page first makes a client) now. Before it has loaded, a client or client
 * transport made with a bad option rejects its `connect()` / `start()`; after, its constructor
 * throws the `TypeError` at once.
 */
export declare function loadClient(): Promise<void>;

/**
 * `globalThis[Symbol.for('modelcontext-polyfill')]`: what the first copy of the polyfill on the
 * page installed. TypeScript cannot type a `Symbol.for` key on `globalThis`, so cast:
 *
 *   const rec = (globalThis as any)[Symbol.for('modelcontext-polyfill')] as ModelContextPolyfillRecord;
 *   const client = new rec.client.McpClient(new rec.client.TabClientTransport());
 */
export interface ModelContextPolyfillRecord {
  /** The polyfill's version. */
  readonly version: string;
  /** Which build installed it: `dist/modelcontext.js` (`'esm'`) or `dist/modelcontext.iife.js` (`'classic'`). */
  readonly format: 'esm' | 'classic';
  /** `document.modelContext` / `navigator.modelContext` as the polyfill created it. */
  readonly modelContext: ModelContext;
  /** The browser's own `document.modelContext` the polyfill wraps, if there was one. */
  readonly native: ModelContext | null;
  /** Where the JSON Schema validator module is fetched from (absolute); set once the core has loaded. */
  readonly validatorUrl: string | undefined;
  /**
   * Resolves with this record once the core wasm has loaded (the classes below are there from
   * then on); rejects, with the cause and the fix, when it cannot load.
   */
  readonly ready: Promise<ModelContextPolyfillRecord>;
  /** The server transport classes (frozen); empty until `ready`. */
  readonly transports: Readonly<typeof ServerTransports>;
  /**
   * `McpClient`, the client transports and the error classes (frozen); empty until `ready`.
   * `load()` loads the client module now (see `loadClient`).
   */
  readonly client: Readonly<typeof Client & { load(): Promise<void> }>;
}

export type ModelContextJSONValue = globalThis.ModelContextJSONValue;
export type ModelContextJSONSchema = globalThis.ModelContextJSONSchema;
export type ModelContextStandardSchema<Output = unknown> = globalThis.ModelContextStandardSchema<Output>;
export type ModelContextLoggingLevel = globalThis.ModelContextLoggingLevel;
export type ModelContextHandlerExtra = globalThis.ModelContextHandlerExtra;

// W3C WebMCP
export type ModelContext = globalThis.ModelContext;
export type ModelContextEventMap = globalThis.ModelContextEventMap;
export type ModelContextTool<Input extends object = Record<string, any>> = globalThis.ModelContextTool<Input>;
export type ToolExecuteCallback<Input extends object = Record<string, any>> = globalThis.ToolExecuteCallback<Input>;
export type ToolExecuteCallbackOptions = globalThis.ToolExecuteCallbackOptions;
export type ToolAnnotations = globalThis.ToolAnnotations;
export type RegisteredTool = globalThis.RegisteredTool;
export type ModelContextRegisterToolOptions = globalThis.ModelContextRegisterToolOptions;
export type ModelContextRegisterToolPromise = globalThis.ModelContextRegisterToolPromise;
export type ModelContextGetToolOptions = globalThis.ModelContextGetToolOptions;
export type ModelContextExecuteToolOptions = globalThis.ModelContextExecuteToolOptions;
export type ToolActivatedEvent = globalThis.ToolActivatedEvent;
export type ToolActivatedEventInit = globalThis.ToolActivatedEventInit;
export type ToolCancelEvent = globalThis.ToolCancelEvent;
export type ToolCancelEventInit = globalThis.ToolCancelEventInit;
export type ModelContextTesting = globalThis.ModelContextTesting;
export type ModelContextPolyfillConfig = globalThis.ModelContextPolyfillConfig;

// Session API and MCP shapes
export type ModelContextSession = globalThis.ModelContextSession;
export type ModelContextConnectOptions = globalThis.ModelContextConnectOptions;
export type ModelContextServerInfo = globalThis.ModelContextServerInfo;
export type ModelContextTransportOptions = globalThis.ModelContextTransportOptions;
export type ModelContextTabTransportOptions = globalThis.ModelContextTabTransportOptions;
export type ModelContextPostMessageTransportOptions = globalThis.ModelContextPostMessageTransportOptions;
export type ModelContextBroadcastChannelTransportOptions = globalThis.ModelContextBroadcastChannelTransportOptions;
export type ModelContextIframeChildTransportOptions = globalThis.ModelContextIframeChildTransportOptions;
export type ModelContextIframeParentTransportOptions = globalThis.ModelContextIframeParentTransportOptions;
export type ModelContextEventTransportOptions = globalThis.ModelContextEventTransportOptions;
export type ModelContextExtensionTransportOptions = globalThis.ModelContextExtensionTransportOptions;
export type ModelContextTransportSecurityOptions = globalThis.ModelContextTransportSecurityOptions;
export type ModelContextPostMessageTarget = globalThis.ModelContextPostMessageTarget;
export type ModelContextEventEmitter = globalThis.ModelContextEventEmitter;
export type ModelContextExtensionPort = globalThis.ModelContextExtensionPort;
export type ModelContextServerTransport = globalThis.ModelContextServerTransport;
export type ModelContextOrigins = globalThis.ModelContextOrigins;
export type ModelContextNotificationMethod = globalThis.ModelContextNotificationMethod;
export type ToolDefinition<Input extends object = Record<string, any>> = globalThis.ToolDefinition<Input>;
export type ToolHandler<Input extends object = Record<string, any>> = globalThis.ToolHandler<Input>;
export type ToolHandlerResult = globalThis.ToolHandlerResult;
export type McpToolAnnotations = globalThis.McpToolAnnotations;
export type ResourceDefinition = globalThis.ResourceDefinition;
export type ResourceHandler = globalThis.ResourceHandler;
export type ResourceHandlerResult = globalThis.ResourceHandlerResult;
export type PromptDefinition = globalThis.PromptDefinition;
export type PromptHandler = globalThis.PromptHandler;
export type PromptHandlerResult = globalThis.PromptHandlerResult;
export type PromptArgumentDefinition = globalThis.PromptArgumentDefinition;
export type CompletionHandler = globalThis.CompletionHandler;
export type CompletionHandlerResult = globalThis.CompletionHandlerResult;
export type McpIcon = globalThis.McpIcon;
export type McpContentAnnotations = globalThis.McpContentAnnotations;
export type McpContentBlock = globalThis.McpContentBlock;
export type McpTextContent = globalThis.McpTextContent;
export type McpImageContent = globalThis.McpImageContent;
export type McpAudioContent = globalThis.McpAudioContent;
export type McpResourceLink = globalThis.McpResourceLink;
export type McpEmbeddedResource = globalThis.McpEmbeddedResource;
export type McpResourceContents = globalThis.McpResourceContents;
export type McpCallToolResult = globalThis.McpCallToolResult;
export type McpPromptMessage = globalThis.McpPromptMessage;

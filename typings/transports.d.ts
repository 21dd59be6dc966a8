// The server transport classes (src/transport/classes.rs): named exports of
// `modelcontext-polyfill` (dist/modelcontext.js) and the `transports` of the
// `globalThis[Symbol.for('modelcontext-polyfill')]` record. Build one and hand it to
// `modelContext.connect({ transport })`:
//
//   import { PostMessageServerTransport } from 'modelcontext-polyfill';
//   const transport = new PostMessageServerTransport(worker, { messageType: 'mcp' });
//   const session = await navigator.modelContext.connect({ transport });
//
// Each class takes the options of its `type` (`type` itself may be left out); a few also take
// the peer first. Options are checked in the constructor (a `TypeError` naming the option).
// A transport serves one `connect()`: a second one rejects with `InvalidStateError`.
// `connect({ transport: { type, … } })` makes an instance of one of these too (`session.transport`).

/// <reference path="./session.d.ts" />

/** A transport's options as its constructor takes them: `type` may be left out. */
export type ModelContextServerTransportInit<T extends { type: string }> = T extends unknown
  ? Omit<T, 'type'> & { type?: T['type'] }
  : never;

/** `T`'s options without `type` and the peer `K` (given as the first constructor argument). */
type PeerInit<T extends { type: string }, K extends keyof T> = T extends unknown ? Omit<T, 'type' | K> : never;

/** An origin allow-list as `transport.options` reports it: `'*'` or an array of origins. */
export type ModelContextEffectiveOrigins = string[] | '*';

/**
 * The effective options (`transport.options`): what was given, defaults filled in, frozen. Options
 * the transport does not know are kept as given.
 */
interface EffectiveOptionsBase {
  readonly [option: string]: unknown;
}

/** The security options every transport reads, as given. */
interface EffectiveSecurityOptions extends EffectiveOptionsBase {
  readonly rateLimit?: ModelContextTransportSecurityOptions['rateLimit'];
  readonly maxMessageBytes?: number;
  readonly onOriginViolation?: (origin: string) => void;
  readonly maxInFlight?: number;
  readonly maxQueued?: number;
  readonly maxQueuedBytes?: number;
}

export interface TabServerTransportEffectiveOptions extends EffectiveSecurityOptions {
  readonly type: 'tab';
  readonly channelId: string;
  readonly allowedOrigins: ModelContextEffectiveOrigins;
  /** Whether the session persists in `sessionStorage` (an object given is reported as `true`). */
  readonly persist: boolean;
}

export interface PostMessageServerTransportEffectiveOptions extends EffectiveSecurityOptions {
  readonly type: 'postMessage';
  readonly target: ModelContextPostMessageTarget;
  readonly messageType: string;
  /** Window targets: the accepted origins (default: own origin). Other targets: as given. */
  readonly origin?: ModelContextOrigins;
}

export interface BroadcastChannelServerTransportEffectiveOptions extends EffectiveSecurityOptions {
  readonly type: 'broadcastChannel';
  readonly channelName: string;
  /** Given or generated. */
  readonly instanceId: string;
}

export interface IframeChildServerTransportEffectiveOptions extends EffectiveSecurityOptions {
  readonly type: 'iframeChild';
  /** From `parentOrigin`, else `allowedOrigins`. */
  readonly parentOrigin: ModelContextEffectiveOrigins;
  readonly allowedOrigins?: ModelContextOrigins;
  readonly channelId: string;
}

export interface IframeParentServerTransportEffectiveOptions extends EffectiveSecurityOptions {
  readonly type: 'iframeParent';
  readonly iframe: HTMLIFrameElement;
  readonly targetOrigin: ModelContextEffectiveOrigins;
  readonly channelId: string;
  /** ms; `Infinity` when the wait is unbounded. */
  readonly connectionTimeout: number;
  readonly checkReadyRetryMs?: number;
}

export interface EventServerTransportEffectiveOptions extends EffectiveSecurityOptions {
  readonly type: 'event';
  /** The emitter given, or the built-in one. */
  readonly emitter: ModelContextEventEmitter;
  readonly sendEvent: string;
  readonly receiveEvent: string;
}

export interface ExtensionServerTransportEffectiveOptions extends EffectiveSecurityOptions {
  readonly type: 'extension';
  readonly port: ModelContextExtensionPort;
  readonly messageType?: string;
  readonly keepAlive?: boolean;
  /** ms between keep-alives; `false` when they are off. */
  readonly keepAliveInterval: number | false;
  readonly onDisconnect?: () => void;
}

/** Serves clients in the same window over MCP-B's tab envelopes. */
export declare class TabServerTransport implements ModelContextServerTransport {
  /** `new TabServerTransport({ channelId?, allowedOrigins?, onOriginViolation?, rateLimit?, maxMessageBytes?, persist? })` */
  constructor(options?: ModelContextServerTransportInit<ModelContextTabTransportOptions>);
  readonly type: 'tab';
  /** The effective options, defaults filled in (frozen). */
  readonly options: TabServerTransportEffectiveOptions;
  /** Whether it is serving (a transport not yet given to `connect()` is not). */
  readonly isConnected: boolean;
  /** Stops serving (idempotent); the session using it stops answering. */
  close(): void;
  /** Releases the wasm object behind it; using the instance afterwards throws. */
  free(): void;
}

/** Serves a Worker, a worker's `self`, a MessagePort or a Window with `{ type, payload }` messages. */
export declare class PostMessageServerTransport implements ModelContextServerTransport {
  /** `new PostMessageServerTransport({ target, origin?, messageType?, … })` */
  constructor(options: ModelContextServerTransportInit<ModelContextPostMessageTransportOptions>);
  /** `new PostMessageServerTransport(target, { origin?, messageType?, … })` */
  constructor(
    target: ModelContextPostMessageTarget,
    options?: PeerInit<ModelContextPostMessageTransportOptions, 'target'> | null,
  );
  readonly type: 'postMessage';
  readonly options: PostMessageServerTransportEffectiveOptions;
  readonly isConnected: boolean;
  close(): void;
  free(): void;
}

/** Serves other pages of the origin over a BroadcastChannel. */
export declare class BroadcastChannelServerTransport implements ModelContextServerTransport {
  /** `new BroadcastChannelServerTransport({ channelName, instanceId?, … })` */
  constructor(options: ModelContextServerTransportInit<ModelContextBroadcastChannelTransportOptions>);
  readonly type: 'broadcastChannel';
  readonly options: BroadcastChannelServerTransportEffectiveOptions;
  readonly isConnected: boolean;
  /** The id this server's messages carry (given or generated). */
  readonly instanceId: string;
  readonly channelName: string;
  close(): void;
  free(): void;
}

/** This page is embedded: serves the embedding page (MCP-B iframe envelopes). */
export declare class IframeChildServerTransport implements ModelContextServerTransport {
  /** `new IframeChildServerTransport({ parentOrigin, channelId?, … })` */
  constructor(options: ModelContextServerTransportInit<ModelContextIframeChildTransportOptions>);
  readonly type: 'iframeChild';
  readonly options: IframeChildServerTransportEffectiveOptions;
  readonly isConnected: boolean;
  close(): void;
  free(): void;
}

/**
 * Serves a client running in an iframe of this page (MCP-B iframe envelopes). `connect()` waits
 * until the child answers (or `connectionTimeout` passes).
 */
export declare class IframeParentServerTransport implements ModelContextServerTransport {
  /** `new IframeParentServerTransport({ iframe, targetOrigin, channelId?, connectionTimeout?, … })` */
  constructor(options: ModelContextServerTransportInit<ModelContextIframeParentTransportOptions>);
  readonly type: 'iframeParent';
  readonly options: IframeParentServerTransportEffectiveOptions;
  readonly isConnected: boolean;
  close(): void;
  free(): void;
}

/** Serves a client in the same context over an emitter: `mcp:request` in, `mcp:response` out. */
export declare class EventServerTransport implements ModelContextServerTransport {
  /** `new EventServerTransport({ emitter?, sendEvent?, receiveEvent?, … })` (no emitter: a built-in one) */
  constructor(options?: ModelContextServerTransportInit<ModelContextEventTransportOptions>);
  /** `new EventServerTransport(emitter, { sendEvent?, receiveEvent?, … })` */
  constructor(emitter: ModelContextEventEmitter, options?: PeerInit<ModelContextEventTransportOptions, 'emitter'> | null);
  readonly type: 'event';
  readonly options: EventServerTransportEffectiveOptions;
  readonly isConnected: boolean;
  /** The emitter it listens on (the built-in one when none was given). */
  readonly emitter: ModelContextEventEmitter;
  close(): void;
  free(): void;
}

/** Serves raw JSON-RPC over a `chrome.runtime.Port`, with keep-alives. */
export declare class ExtensionServerTransport implements ModelContextServerTransport {
  /** `new ExtensionServerTransport({ port, messageType?, keepAlive?, keepAliveInterval?, onDisconnect?, … })` */
  constructor(options: ModelContextServerTransportInit<ModelContextExtensionTransportOptions>);
  /** `new ExtensionServerTransport(port, { messageType?, keepAlive?, … })` */
  constructor(port: ModelContextExtensionPort, options?: PeerInit<ModelContextExtensionTransportOptions, 'port'> | null);
  readonly type: 'extension';
  readonly options: ExtensionServerTransportEffectiveOptions;
  readonly isConnected: boolean;
  close(): void;
  free(): void;
}

export {};

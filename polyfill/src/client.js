// The client side for page scripts: the error classes McpClient rejects with, and the
// exported classes (McpClient and the client transports, implemented in Rust: src/client/).
// They live in a wasm module of their own (dist/modelcontext_client_glue*), which most pages
// never need: the classes here stand in for them and load that module when a page first makes
// one. The error classes must be real JS classes for `instanceof` to work.
//
// How a stand-in behaves:
// - Once the client module has loaded (after the first construction, or `load()`), `new X(...)`
//   makes the real object at once, and checks its arguments as it always did: a bad option
//   throws a TypeError from the constructor.
// - The self-contained classic build loads the module synchronously at the first construction:
//   there the classes behave exactly as the module's from the start.
// - Before, the arguments are kept and the real object is made when the module arrives. A bad
//   option, or a module that cannot be loaded, then rejects the object's first promise
//   (`connect()`, `start()`, any request) instead; a module that could not be loaded is tried
//   again by the next construction. Getters answer as an unconnected object does
//   (`state` 'idle', `isConnected` false, `pendingRequests` 0); handlers (`onclose`, …),
//   `onNotification` and `setRequestHandler` are kept and handed over, in order.
// - Every member forwards to the real object; a stand-in transport can be given to McpClient or
//   to another MCP client (the SDK's `Client.connect(transport)`) alike.
/**
 * The client classes, whose module `loadModule()` loads (resolving with its initialized glue).
 * `preload` (`modelContextPolyfillConfig.preloadClient`) starts loading it now, beside the core,
 * for a page that makes a client at once.
 */
function __mcpDefineClient(loadModule, preload = false) {
  function named(cls, name) {
    Object.defineProperty(cls.prototype, 'name', { value: name, writable: true, configurable: true });
    // (The class's own name too, whatever the minifier named it.)
    if (cls.name !== name) Object.defineProperty(cls, 'name', { value: name, configurable: true });
    return cls;
  }

  // The seed's transport errors: a string `code` on every one.
  const TransportError = named(class TransportError extends Error {
    constructor(message = 'Transport error', code = 'TRANSPORT_ERROR') {
      super(message);
      this.code = code;
    }
  }, 'TransportError');

  const TransportClosedError = named(class TransportClosedError extends TransportError {
    constructor(message = 'Transport is closed', details = undefined) {
      super(message, 'TRANSPORT_CLOSED');
      this.reason = details && details.reason !== undefined ? String(details.reason) : undefined;
    }
  }, 'TransportClosedError');

  const RequestTimeoutError = named(class RequestTimeoutError extends TransportError {
    constructor(message = 'Request timed out', details = undefined) {
      super(message, 'REQUEST_TIMEOUT');
      this.requestId = details ? details.requestId : undefined;
      this.method = details ? details.method : undefined;
      this.timeoutMs = details ? details.timeoutMs : undefined;
    }
  }, 'RequestTimeoutError');

  // A JSON-RPC error answered by the server (as the MCP SDK's McpError: numeric code, data).
  const McpError = named(class McpError extends Error {
    constructor(code, message, data = undefined) {
      super(`MCP error ${code}: ${message}`);
      this.code = code;
      this.data = data;
    }
  }, 'McpError');

  const errors = { TransportError, TransportClosedError, RequestTimeoutError, McpError };

  // The client module's exports, once loaded. A load that failed (the network, a 404) rejects
  // what waited for it; the next construction (or `load()`) tries again.
  // `loadModule()` returns the glue itself when it can load synchronously (the self-contained
  // classic build), which makes the first construction's object at once.
  let wasm = null;
  let loading = null;
  const adopt = (w) => {
    if (typeof w.setClientErrorClasses === 'function') w.setClientErrorClasses(errors);
    // Its tab and iframe transports post as the core's do: from a microtask (gates.js).
    if (typeof w.setClientHelpers === 'function') w.setClientHelpers({ postEnvelope: __mcpPostEnvelope });
    wasm = w;
    return w;
  };
  function load() {
    if (wasm) return Promise.resolve(wasm);
    if (!loading) {
      let started;
      try {
        started = loadModule();
      } catch (e) {
        return Promise.reject(e);
      }
      if (!started || typeof started.then !== 'function') return Promise.resolve(adopt(started));
      const attempt = Promise.resolve(started).then(adopt);
      attempt.catch(() => {
        if (loading === attempt) loading = null;
      });
      loading = attempt;
    }
    return loading;
  }

  // Each stand-in's state: { args, real, ready, handlers, ops }.
  const states = new WeakMap();
  function state(self) {
    const st = states.get(self);
    if (!st) throw new TypeError('Illegal invocation');
    return st;
  }

  /**
   * The stand-in class for the module's class `name`: `methods` return promises, `handlers` are
   * the on* properties, `idle` the getters' answers before the real object exists, `sync` the
   * other members that run before it (each `(st, ...args)`), `own` members that always run here
   * (each `(st, ...args)`, the real object or not), `restore(st, real)` what runs before each of
   * the real object's `connect()`.
   */
  function standIn(name, { methods, handlers, idle, sync, own = {}, restore }) {
    const C = {
      [name]: class {
        constructor(...args) {
          const st = { args, real: null, ready: null, handlers: Object.create(null), ops: [], notes: new Set(), requests: new Map() };
          states.set(this, st);
          const make = (w) => {
            const real = new w[name](...args);
            st.real = real;
            // (A class that restores its functions at connect() gets them then.)
            if (!restore) for (const h in st.handlers) real[h] = st.handlers[h];
            for (const op of st.ops) op(real);
            st.ops = null;
            return real;
          };
          const loaded = load();
          if (wasm) {
            st.ready = Promise.resolve(make(wasm));
          } else {
            st.ready = loaded.then(make);
            st.ready.catch(() => {});
          }
        }
      },
    }[name];
    const proto = C.prototype;
    // (An accessor is named as the real class's is: `get <key>`, `set <key>`.)
    const define = (key, desc) => {
      for (const [f, prefix] of [[desc.get, 'get '], [desc.set, 'set ']]) {
        if (f) Object.defineProperty(f, 'name', { value: prefix + key, configurable: true });
      }
      Object.defineProperty(proto, key, { configurable: true, ...desc });
    };
    for (const m of methods) {
      // `close()` of an object that could not be made has nothing to close: it resolves.
      const failed = m === 'close' ? () => undefined : (e) => Promise.reject(e);
      define(m, {
        writable: true,
        value: {
          [m](...a) {
            const st = state(this);
            if (m === 'connect' && restore) {
              const go = (real) => (restore(st, real), real.connect(...a));
              return st.real ? go(st.real) : st.ready.then(go, failed);
            }
            return st.real ? st.real[m](...a) : st.ready.then((real) => real[m](...a), failed);
          },
        }[m],
      });
    }
    for (const h of handlers) {
      define(h, {
        // Kept here too: the real client lets go of its functions once closed (so that a
        // function holding the client does not keep it alive), and gets them back at connect().
        get() {
          const st = state(this);
          const v = st.handlers[h];
          return st.real ? (st.real[h] ?? (typeof v === 'function' ? v : null)) : v ?? null;
        },
        set(v) {
          const st = state(this);
          st.handlers[h] = v;
          if (st.real && (!restore || live(st))) st.real[h] = v;
        },
      });
    }
    for (const [g, before] of Object.entries(idle)) {
      define(g, {
        get() {
          const st = state(this);
          return st.real ? st.real[g] : before(st);
        },
      });
    }
    for (const [m, before] of Object.entries(sync)) {
      define(m, {
        writable: true,
        value: {
          [m](...a) {
            const st = state(this);
            return st.real ? st.real[m](...a) : before(st, ...a);
          },
        }[m],
      });
    }
    for (const [m, f] of Object.entries(own)) {
      define(m, {
        writable: true,
        value: {
          [m](...a) {
            return f(state(this), ...a);
          },
        }[m],
      });
    }
    if (typeof Symbol.dispose === 'symbol') define(Symbol.dispose, { writable: true, value: proto.free });
    return C;
  }

  // Whether a client's connection is open or being opened: the real client holds the page's
  // functions only then (they are handed to it at each connect(), and it lets go of them once
  // closed), so that one never connected, or closed, keeps none of them.
  const live = (st) => st.real !== null && ['connecting', 'connected', 'reconnecting'].includes(st.real.state);

  // Before the real object: run `f` on it when it comes (or never, when it cannot be made).
  const later = (st, f) => {
    st.ops.push(f);
  };
  const free = (st) => later(st, (real) => real.free());

  const client = { ...errors };
  client.McpClient = standIn('McpClient', {
    methods: [
      'connect', 'request', 'listTools', 'listResources', 'listResourceTemplates', 'listPrompts', 'callTool',
      'readResource', 'getPrompt', 'ping', 'notify', 'close',
    ],
    handlers: ['onclose', 'onerror', 'onreconnect'],
    idle: {
      state: () => 'idle',
      transport: (st) => st.args[0],
      protocolVersion: () => undefined,
      serverInfo: () => undefined,
      serverCapabilities: () => undefined,
      instructions: () => undefined,
      pendingRequests: () => 0,
    },
    sync: { free },
    // The page's notification and request handlers, and its hooks, are kept here; the real client
    // has them while its connection is open or being opened (`live`): handed over, in the order
    // given, at each connect(), and let go of once closed.
    own: {
      // The module's own argument checks, so that they throw before it has loaded too.
      onNotification(st, method, callback) {
        if (typeof method !== 'string') throw new TypeError('onNotification(method, callback): method must be a string');
        if (typeof callback !== 'function') throw new TypeError('onNotification(method, callback): callback must be a function');
        const note = { method, callback, off: null };
        st.notes.add(note);
        if (live(st)) note.off = st.real.onNotification(method, callback);
        return () => {
          st.notes.delete(note);
          if (note.off) note.off();
        };
      },
      setRequestHandler(st, method, handler) {
        if (typeof method !== 'string') throw new TypeError('setRequestHandler(method, handler): method must be a string');
        if (handler != null && typeof handler !== 'function') {
          throw new TypeError('setRequestHandler(method, handler): handler must be a function or null');
        }
        if (handler == null) st.requests.delete(method);
        else st.requests.set(method, handler);
        if (live(st)) st.real.setRequestHandler(method, handler);
      },
    },
    restore(st, real) {
      // (A connect() while connected is refused by the real client: nothing is added twice.)
      if (live(st)) return;
      for (const h in st.handlers) real[h] = st.handlers[h];
      for (const note of st.notes) note.off = real.onNotification(note.method, note.callback);
      for (const [method, handler] of st.requests) real.setRequestHandler(method, handler);
    },
  });
  for (const name of [
    'TabClientTransport', 'PostMessageClientTransport', 'BroadcastChannelClientTransport',
    'IframeParentClientTransport', 'EventClientTransport', 'ExtensionClientTransport',
  ]) {
    client[name] = standIn(name, {
      methods: ['start', 'send', 'close'],
      handlers: ['onmessage', 'onclose', 'onerror'],
      idle: { isConnected: () => false },
      sync: { free },
    });
  }
  /** Loads the client module now; resolves when the classes make real objects at once. */
  client.load = () => load().then(() => undefined);
  if (preload) load().catch(() => {});
  return Object.freeze(client);
}

/**
 * A `loadModule` for __mcpDefineClient from the client's ES module glue: its import
 * (`importGlue()`) and its compiled wasm (`compile()`), both started at once.
 */
function __mcpClientFromGlue(importGlue, compile) {
  return async () => {
    const [glue, module] = await Promise.all([importGlue(), compile()]);
    await glue.default({ module_or_path: module });
    return glue;
  };
}

// The ModelContext interface: an EventTarget whose operations forward to the wasm Engine,
// where every check, state and ordering lives. This file only shapes values the way
// WebIDL bindings do (brand checks, overloads, event handler attributes) and holds the calls
// made before the engine exists (the core wasm is still loading) in one queue, in call order.
//
// Before the engine exists (polyfill/src/install.js attaches it when the core has loaded):
// - promise-returning operations return a promise settled by the engine's, once it runs;
// - void operations are queued; registerTool(name, def), registerResource, registerPrompt and
//   registerSkill return an unregister function that takes effect in order (a bad definition, thrown by the
//   engine when the call runs, goes to the console: there is no caller left to throw to);
// - isConnected() is false (nothing is served yet); once the engine exists, it and
//   modelContextTesting.listTools() read it even while calls wait in the queue.
// If the core cannot load, every operation rejects (or throws) with the one load error.
// The operations of the session API, of resources, prompts and skills and of the earlier drafts
// run in the core's deferred module (polyfill/src/deferred.js): until it has arrived they are
// held the same way, and what is called after them waits behind them.

function __mcpDefineModelContext() {
  const KEY = Symbol('ModelContext');
  const slots = new WeakMap(); // ModelContext → { engine, later, queue, failure }

  function slotOf(obj) {
    const s = slots.get(obj);
    if (!s) throw new TypeError('Illegal invocation');
    return s;
  }

  // The engine, when calls can go straight to it (it exists, nothing queued is left and, for an
  // operation of the core's deferred module (`later`), that module has arrived).
  function direct(s, later = false) {
    const e = present(s);
    return e && s.queue.length === 0 && !(later && s.later) ? e : null;
  }

  // The engine for a synchronous read (isConnected(), modelContextTesting.listTools()), once it
  // exists: it answers with what the calls that have run did. A read cannot wait behind queued
  // calls as an operation does, and the engine's state is nearer the truth than the answer of
  // before the core had loaded (no tools, not serving), which it gave while any call was
  // queued (a page's early getTools() or connect() waiting for the deferred module).
  function present(s) {
    if (s.failure) throw s.failure;
    return s.engine;
  }

  // A call of the core's deferred module waits for it: it is wanted now
  // (polyfill/src/deferred.js asks for it only when something needs it or an agent has come).
  const urge = (s) => {
    if (s.urge) s.urge();
  };

  const report = (what, e) =>
    console.error(`modelcontext-polyfill: ${what} (called before the core had loaded) failed: ${(e && e.message) || e}`);

  // A promise-returning operation: a failed brand check, a failed core or what the engine throws
  // (a function of the core's deferred module, which could not be had, read again) is a
  // rejection, as WebIDL makes it. `failed`: called when a queued call fails without running.
  function promising(obj, fn, later = false, failed = null) {
    let s, e;
    try {
      s = slotOf(obj);
      e = direct(s, later);
      if (e) return fn(e);
    } catch (err) {
      return Promise.reject(err);
    }
    let inner;
    if (later) urge(s);
    const outer = new Promise((resolve, reject) => {
      s.queue.push({
        later,
        run(engine) {
          try {
            inner = fn(engine);
            resolve(inner);
          } catch (err) {
            reject(err);
          }
        },
        fail(err) {
          reject(err);
          if (failed) failed();
        },
      });
    });
    return { outer, inner: () => inner };
  }

  // A void operation.
  function voiding(obj, what, fn, later = false) {
    const s = slotOf(obj);
    const e = direct(s, later);
    if (e) return fn(e);
    if (later) urge(s);
    s.queue.push({
      later,
      run(engine) {
        try {
          fn(engine);
        } catch (err) {
          report(what, err);
        }
      },
      fail() {},
    });
    return undefined;
  }

  // An operation returning an unregister function (all of the core's deferred module).
  function registering(obj, what, fn) {
    const s = slotOf(obj);
    const e = direct(s, true);
    if (e) return fn(e);
    let off;
    let cancelled = false;
    voiding(obj, what, (engine) => {
      off = fn(engine);
      if (cancelled && typeof off === 'function') off();
    }, true);
    return function unregister() {
      if (typeof off === 'function') return off();
      cancelled = true;
      return undefined;
    };
  }

  // A call that will be queued keeps its place relative to an abort of its `options.signal`:
  // the engine gets a relay signal, aborted through the queue (so after the call) when the
  // page's signal aborts. (An already-aborted signal goes through as it is.)
  function relayed(obj, options) {
    const s = slots.get(obj);
    if (!s || s.failure || (s.engine && s.queue.length === 0)) return options;
    const signal = options !== null && typeof options === 'object' ? options.signal : undefined;
    if (!(typeof AbortSignal === 'function' && signal instanceof AbortSignal) || signal.aborted) return options;
    const relay = new AbortController();
    const forward = () => {
      try {
        voiding(obj, 'abort', () => relay.abort(signal.reason));
      } catch {
        // The core failed to load: the call was already rejected with that error.
      }
    };
    signal.addEventListener('abort', forward, { once: true });
    return Object.create(options, { signal: { value: relay.signal, enumerable: true } });
  }

  class ModelContext extends EventTarget {
    constructor(key = undefined) {
      if (key !== KEY) throw new TypeError("Failed to construct 'ModelContext': Illegal constructor");
      super();
    }

    // registerTool(tool, options) — the W3C form; registerTool(name, definition) — the
    // session-API form, told apart by the first argument's type (and registerTool(name,
    // config, handler), the MCP TypeScript SDK's).
    registerTool(tool, options = undefined, handler = undefined) {
      if (typeof tool === 'string') return registering(this, 'registerTool', (e) => e.registerToolDef(tool, options, handler));
      // (The engine gives the promise the early drafts' non-enumerable unregister().)
      const opts = relayed(this, options);
      const p = promising(this, (e) => e.registerTool(tool, opts));
      if (p instanceof Promise) return p;
      // Queued: the same hidden unregister(), forwarded to the engine's promise once it exists.
      let pending = false;
      Object.defineProperty(p.outer, 'unregister', {
        value: function unregister() {
          const inner = p.inner();
          if (inner && typeof inner.unregister === 'function') return inner.unregister();
          if (!pending) {
            pending = true;
            p.outer.then(() => p.inner().unregister(), () => {});
          }
          return undefined;
        },
        writable: true,
        configurable: true,
      });
      return p.outer;
    }

    getTools(options = undefined) {
      return settled(promising(this, (e) => e.getTools(options), true));
    }

    executeTool(tool, inputObject = undefined, options = undefined) {
      const opts = relayed(this, options);
      return settled(promising(this, (e) => e.executeTool(tool, inputObject, opts), true));
    }

    // (And the MCP TypeScript SDK's registerResource(name, uriOrTemplate, config, read) and
    // registerPrompt(name, config, callback).)
    registerResource(uriOrTemplate, definition, config = undefined, read = undefined) {
      return registering(this, 'registerResource', (e) => e.registerResource(uriOrTemplate, definition, config, read));
    }

    registerPrompt(name, definition, callback = undefined) {
      return registering(this, 'registerPrompt', (e) => e.registerPrompt(name, definition, callback));
    }

    registerSkill(name, definition) {
      return registering(this, 'registerSkill', (e) => e.registerSkill(name, definition));
    }

    connect(options = undefined) {
      let early = null;
      const run = (e) => (early ? early.around(() => e.connect(options)) : e.connect(options));
      const p = promising(this, run, true, () => early && early.drop());
      if (p instanceof Promise) return p;
      // Queued: what an agent sends meanwhile over a transport that keeps no queue is kept.
      early = __mcpEarlyMessages(options);
      return p.outer;
    }

    disconnect() {
      voiding(this, 'disconnect', (e) => e.disconnect(), true);
    }

    isConnected() {
      const e = present(slotOf(this));
      return e ? e.isConnected() : false;
    }

    notify(method, params = undefined) {
      voiding(this, 'notify', (e) => e.notify(method, params), true);
    }

    provideContext(context = undefined) {
      voiding(this, 'provideContext', (e) => e.provideContext(context), true);
    }

    clearContext() {
      voiding(this, 'clearContext', (e) => e.clearContext(), true);
    }

    unregisterTool(name) {
      voiding(this, 'unregisterTool', (e) => e.unregisterTool(name));
    }
  }

  const settled = (p) => (p instanceof Promise ? p : p.outer);

  // For the other same-origin documents of the frame tree (src/browser/frames/): this
  // document's own tools, "another document's tools changed", and this document's tools
  // policy (true, false or a promise of one). Symbol.for keys are shared
  // by every realm of the agent; the methods are not enumerable.
  const engineOf = (obj) => {
    try {
      return direct(slotOf(obj));
    } catch {
      return null;
    }
  };
  for (const [key, fn] of [
    // While this document's core waits for its deferred module (which lists them), a promise
    // of them once it has arrived: the other document waits for it instead of this one reading
    // that module synchronously.
    ['modelcontext-polyfill.localTools', (e, mc) => (!e ? [] : slots.get(mc).later ? settled(promising(mc, (engine) => engine.localTools(), true)) : e.localTools())],
    // While this document's core loads, the change is kept for it: its page may already
    // listen for `toolchange`.
    [
      'modelcontext-polyfill.peerToolsChanged',
      (e, mc) => (e ? e.peerToolsChanged() : voiding(mc, 'toolchange', (engine) => engine.peerToolsChanged())),
    ],
    // While this document's core loads, a promise of its policy once it has loaded: a frame
    // below must not take the feature as allowed before this document knows (a core that
    // failed enforces nothing: true).
    ['modelcontext-polyfill.policy', (e, mc) => {
      if (e) return e.policyValue();
      const p = promising(mc, (engine) => engine.policyValue());
      if (p instanceof Promise) return p.catch(() => true);
      return p !== null && typeof p === 'object' ? p.outer.catch(() => true) : p;
    }],
  ]) {
    Object.defineProperty(ModelContext.prototype, Symbol.for(key), {
      value() {
        return fn(engineOf(this), this);
      },
      configurable: true,
      writable: true,
    });
  }

  for (const name of ['ontoolchange', 'ontoolactivated', 'ontoolcancel']) {
    const type = name.slice(2);
    const records = new WeakMap();
    Object.defineProperty(ModelContext.prototype, name, {
      get() {
        slotOf(this);
        const r = records.get(this);
        return r ? r.fn : null;
      },
      set(value) {
        slotOf(this);
        const fn = typeof value === 'function' || (typeof value === 'object' && value !== null) ? value : null;
        const r = records.get(this);
        if (r) {
          r.fn = fn;
          if (fn === null) {
            this.removeEventListener(type, r.listener);
            records.delete(this);
          }
          return;
        }
        if (fn === null) return;
        const rec = {
          fn,
          listener(event) {
            if (typeof rec.fn !== 'function') return;
            if (rec.fn.call(this, event) === false) event.preventDefault();
          },
        };
        records.set(this, rec);
        this.addEventListener(type, rec.listener);
      },
      enumerable: true,
      configurable: true,
    });
  }

  __mcpMakeInterface(ModelContext, 'ModelContext');

  function create() {
    const mc = new ModelContext(KEY);
    slots.set(mc, { engine: null, later: false, queue: [], failure: null, urge: null });
    return mc;
  }

  // The engine has been made: run what was queued, in order, then go direct. `later`: the
  // core's deferred module has yet to arrive (arrived() says when); the calls of it wait, and
  // every call after them. `wanted()` asks for that module now (a call of it waits).
  function attach(mc, engine, later = false, wanted = null) {
    const s = slotOf(mc);
    s.engine = engine;
    s.later = later;
    s.urge = later ? wanted : null;
    if (later && s.queue.some((q) => q.later)) urge(s);
    flush(s);
  }

  function arrived(mc) {
    const s = slotOf(mc);
    s.later = false;
    s.urge = null;
    if (s.engine) flush(s);
  }

  function flush(s) {
    // Each call runs while still at the head, so calls it makes itself queue behind the rest.
    while (s.queue.length && !(s.later && s.queue[0].later)) {
      s.queue[0].run(s.engine);
      s.queue.shift();
    }
  }

  // The core could not load: every queued and every later call fails with `error`.
  function fail(mc, error) {
    const s = slotOf(mc);
    s.failure = error;
    for (const q of s.queue.splice(0)) q.fail(error);
  }

  // A call shaped like the operations above, for the other objects the installer makes
  // (modelContextTesting): `mode` is 'promise', 'void' or 'value' (with `pending`, its value
  // before the engine exists); `later` as above (a promise or void operation).
  function call(mc, mode, what, fn, pending = undefined, later = false) {
    if (mode === 'promise') return settled(promising(mc, fn, later));
    if (mode === 'void') return voiding(mc, what, fn, later);
    const e = present(slotOf(mc));
    return e ? fn(e) : pending;
  }

  return { ModelContext, create, attach, arrived, fail, call };
}

/**
 * What an agent sends over a page's own transport while the page's connect() waits (for the
 * core, or its deferred module, which has the transports): an extension port's `onMessage` and
 * an emitter's `receiveEvent` keep no queue, so a message sent before the transport listens
 * would be lost (an MCP-B extension client sends its `initialize` as soon as its port is
 * connected). From the call on each message is kept, and when connect() runs, the listener the
 * transport adds then gets them, in order, before anything else can come: `around(run)` runs
 * connect(). A transport that adds its listener later (in a frame whose `tools` policy is not
 * known yet) hears only what comes after, as before. `drop()` forgets them and stops keeping
 * (the core failed to load: connect() never runs). null for any other transport: a MessagePort queues until it is started, and
 * the window and channel transports begin with a handshake the client repeats; and for an
 * EventServerTransport's own emitter (below).
 */
function __mcpEarlyMessages(options) {
  try {
    const t = options.transport;
    const ext = t.type === 'extension';
    if (!ext && t.type !== 'event') return null;
    // An event transport's options object and the page's emitter only: the emitter an
    // EventServerTransport makes for itself is the core's (its methods are the deferred
    // module's), and nothing can come on one made at connect().
    const source = ext ? (t.port ?? t.options?.port).onMessage : Object.getPrototypeOf(t) === Object.prototype && t.emitter;
    const [add, remove, ...key] = ext ? ['addListener', 'removeListener'] : ['on', 'off', t.receiveEvent ?? 'mcp:request'];
    const heard = [];
    const keep = (...args) => void heard.push(args);
    source[add](...key, keep);
    const drop = () => {
      heard.length = 0;
      try {
        source[remove](...key, keep);
      } catch {
        // (the source went away)
      }
    };
    return {
      drop,
      around(run) {
        const adding = source[add];
        const own = Object.prototype.hasOwnProperty.call(source, add);
        let theirs = null;
        try {
          source[add] = function (...args) {
            const fn = args[key.length];
            if (!theirs && fn !== keep && typeof fn === 'function' && args[0] === (key[0] ?? fn)) theirs = fn;
            return adding.apply(this, args);
          };
        } catch {
          // (a frozen source: what was kept is not heard, as before)
        }
        const kept = heard.splice(0);
        try {
          return run();
        } finally {
          if (source[add] !== adding) {
            if (own) source[add] = adding;
            else delete source[add];
          }
          drop();
          for (const args of theirs ? kept : []) {
            try {
              theirs(...args);
            } catch (e) {
              globalThis.reportError?.(e);
            }
          }
        }
      },
    };
  } catch {
    return null;
  }
}

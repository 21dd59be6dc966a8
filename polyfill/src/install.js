// The installer: one ModelContext at navigator.modelContext and document.modelContext,
// idempotent across copies, never replacing a native document.modelContext.
//
// It runs in the front (what a page loads first): the object, the interface objects and
// modelContextTesting exist synchronously; the core wasm loads after (`env.loadCore`), and
// calls made meanwhile wait in order (polyfill/src/model_context.js). If the core cannot load,
// the object stays and every call fails with one error naming the cause and the fix, which
// the console also shows once.
//
// Page configuration (optional, set before the polyfill loads):
//   globalThis.modelContextPolyfillConfig = { serverInfo: {...}, tab: false | { channelId, allowedOrigins },
//     coreUrl: 'https://cdn.example/modelcontext_glue_bg.wasm',
//     limits: { maxInFlight, maxQueued, maxQueuedBytes, maxMessageBytes, maxMessageValues, maxDepth, toolTimeoutMs, pageSize },
//     validatorUrl: 'https://cdn.example/modelcontext_validator.wasm' }
// coreUrl / validatorUrl: where the core module (at once) and the validator module (when a tool
// with a schema is first registered; polyfill/src/validator.js) are fetched from; default:
// beside this script (the builds with the wasm inline fetch nothing).
//
// Where there is neither a document nor a worker scope (Node, Deno, Bun, a bundler's SSR pass)
// nothing is installed and nothing is loaded. Nor in a context that is not secure (plain http
// to anything but localhost): the IDL exposes modelContext to secure contexts only, and
// Chromium's own has none there. The console says why, once, and `ready` rejects saying it.
//
// env: { format, version, loadCore({ config }) → core | Promise<core> } where core is
// { wasm (the initialized glue's exports), client (polyfill/src/client.js), validator (loader),
// helpers (polyfill/src/engine_helpers.js) }.

function install(env) {
  const g = globalThis;
  const MARK = Symbol.for('modelcontext-polyfill');
  if (g[MARK]) {
    const first = g[MARK];
    if (!first.warnedDuplicate) {
      first.warnedDuplicate = true;
      console.warn(
        `modelcontext-polyfill ${env.version}: already installed (version ${first.version}); this copy does nothing.`,
      );
    }
    return first;
  }

  const hasDocument = typeof Document === 'function' && typeof document === 'object' && document !== null;
  const inWorker = typeof WorkerGlobalScope === 'function' && g instanceof WorkerGlobalScope;
  if (!hasDocument && !inWorker) return null;
  if (g.isSecureContext === false) {
    const here = typeof location === 'object' && location ? location.origin : 'this context';
    return __mcpNotInstalled(g, env, 'insecure',
      `${here} is not a secure context, and WebMCP is exposed to secure contexts only (https:, localhost, file:), ` +
        `as in Chromium. To try it over plain http, start Chromium with --unsafely-treat-insecure-origin-as-secure=${here}.`);
  }

  // Where the accessors go: on the prototypes, as the IDL has them; on the objects themselves
  // where a lockdown (SES's, or Object.freeze) made a prototype take no new property. Where
  // neither can take one, nothing is installed (all or nothing) and nothing is fetched.
  // (A DOM emulation's document may not be an instance of its global Document, as happy-dom's
  // is not: there, the document's own prototype.)
  const docProto = !hasDocument ? null : document instanceof Document ? Document.prototype : Object.getPrototypeOf(document);
  const native = docProto && 'modelContext' in docProto ? document.modelContext : undefined;
  const navProto = typeof navigator === 'object' && navigator !== null ? Object.getPrototypeOf(navigator) : null;
  const docHome = hasDocument && !native ? __mcpHome(docProto, document) : undefined;
  const navHome = navProto && !('modelContext' in navigator) ? __mcpHome(navProto, navigator) : undefined;
  if (docHome === null || navHome === null) {
    const which = docHome === null ? 'Document.prototype nor document' : 'Navigator.prototype nor navigator';
    return __mcpNotInstalled(g, env, 'locked',
      `neither ${which} can take a new property (a lockdown, such as SES's, froze them). ` +
        'Load the polyfill before the lockdown.');
  }

  const config = g.modelContextPolyfillConfig || {};
  // The core starts loading before anything else is done: what it fetches does not wait for the
  // interfaces below (they are ready long before it is).
  let core;
  try {
    core = env.loadCore({ config });
  } catch (e) {
    core = Promise.reject(e);
  }

  // The shadow roots scripts attach from now on, closed ones included: the declarative API
  // looks for tool forms in them once the core has loaded (polyfill/src/form_roots.js).
  const shadow = hasDocument && !native ? __mcpWatchShadowRoots(g) : null;

  const ToolActivatedEvent = __mcpDefineToolEvent('ToolActivatedEvent');
  const ToolCancelEvent = __mcpDefineToolEvent('ToolCancelEvent');
  const { ModelContext, create, attach, arrived, fail, call } = __mcpDefineModelContext();

  const mc = create();

  if (!native) {
    __mcpExposeInterface(g, 'ModelContext', ModelContext);
    __mcpExposeInterface(g, 'ToolActivatedEvent', ToolActivatedEvent);
    __mcpExposeInterface(g, 'ToolCancelEvent', ToolCancelEvent);
  }

  if (navHome) {
    Object.defineProperty(navHome, 'modelContext', {
      get() {
        return this === navigator ? mc : undefined;
      },
      enumerable: true,
      configurable: true,
    });
  }
  if (docHome) {
    Object.defineProperty(docHome, 'modelContext', {
      get() {
        return this === document ? mc : null;
      },
      enumerable: true,
      configurable: true,
    });
  }

  // (The earlier drafts' testing API is left out where a lockdown left no room for it.)
  const testingHome = navProto && !('modelContextTesting' in navigator) ? __mcpHome(navProto, navigator) : null;
  if (testingHome) {
    // Before the core has loaded, listTools() is [] (no tool is registered yet).
    const testing = {
      listTools: () => call(mc, 'value', 'listTools', (e) => e.testingListTools(), []),
      executeTool: (name, inputArgsJson) =>
        call(mc, 'promise', 'executeTool', (e) => e.testingExecuteTool(name, inputArgsJson), undefined, true),
      registerToolsChangedCallback: (cb) =>
        call(mc, 'void', 'registerToolsChangedCallback', (e) => e.testingRegisterToolsChangedCallback(cb), undefined, true),
    };
    Object.defineProperty(testingHome, 'modelContextTesting', {
      get() {
        return this === navigator ? testing : undefined;
      },
      enumerable: true,
      configurable: true,
    });
  }

  const record = {
    version: env.version, format: env.format, modelContext: mc, native: native || null,
    validatorUrl: undefined,
    transports: Object.freeze({}),
    client: Object.freeze({}),
    ready: undefined,
  };
  Object.defineProperty(g, MARK, { value: record, configurable: true });

  // The core has loaded: make the engine, then let the queued calls through. `tab`: the tab
  // transport's options (config.tab, unless its persistence had to be dropped).
  function started(core, tab = config.tab) {
    const wasm = core.wasm;
    const engine = new wasm.Engine(mc, {
      ToolActivatedEvent,
      ToolCancelEvent,
      fireToolEvent: __mcpFireToolEvent,
      serverInfo: config.serverInfo,
      tab,
      limits: config.limits,
      native,
      validator: core.validator,
      ...core.helpers,
      shadowRoots: core.helpers.shadowRoots && core.helpers.shadowRoots.bind(null, shadow),
    });
    record.validatorUrl = core.validator.url;
    // The server transport classes (src/transport/classes.rs), for connect({ transport }),
    // named by the core's one table of kinds (src/transport/kinds.rs).
    const transports = {};
    for (const name of wasm.transportClasses()) {
      if (typeof wasm[name] === 'function') transports[name] = wasm[name];
    }
    record.transports = Object.freeze(transports);
    // The client side (polyfill/src/client.js): McpClient, the client transports, their errors.
    record.client = core.client;
    if (env.started) env.started(record);
    // The declarative API (src/browser/forms/): <form toolname> as tools, unless the
    // browser's own WebMCP handles forms. Its work is in the core's deferred module
    // (polyfill/src/deferred.js), so it starts once that module has arrived (or failed to)
    // instead of reading it synchronously; a form added meanwhile is found then. A document
    // that has such a form asks for the module now, and holds the calls queued meanwhile, and
    // `ready`, until then, so that they see the forms' tools as they always do; one that has
    // none asks for it when one appears (polyfill/src/form_watch.js). The calls of that module
    // wait for it too (polyfill/src/model_context.js), and `ready` (after which every call goes
    // straight to the engine).
    const later = !!core.deferred;
    if (later) {
      const arrive = () => arrived(mc);
      core.deferred.then(arrive, arrive);
      // The mirror on the browser's own WebMCP starts with that module: wanted now.
      if (native) want();
    }
    if (hasDocument && !native) {
      if (!later) {
        __mcpInstallForms(g, engine, shadow);
      } else {
        // (When it could not be had, the forms do not start: the console says why.)
        const forms = core.deferred.then(() => __mcpInstallForms(g, engine, shadow), (e) => __mcpInstallForms(g, engine, shadow, e));
        if (typeof document.querySelector === 'function' && document.querySelector('form[toolname]')) {
          want();
          return forms.then(() => {
            attach(mc, engine);
            return record;
          });
        }
        // Nothing asks for that module yet: a tool form that appears later asks for it.
        if (core.watchToolForms) core.watchToolForms(document, shadow, want, core.deferred);
      }
    }
    attach(mc, engine, later, want);
    return later ? core.deferred.then(() => record, () => record) : record;
  }

  function failed(e) {
    if (shadow) shadow.stop();
    const text = String((e && e.message) || e);
    // A global the core needs is missing: a DOM emulation that leaves some out.
    const lacks = e && e.name === 'ReferenceError' && /^(\w+) is not defined$/.exec(text);
    const error = e instanceof Error && /^modelcontext-polyfill: /.test(e.message)
      ? e
      // (WebKit refuses WebAssembly under such a policy when the module is instantiated.)
      : __mcpRefusedByCsp(text) ? __mcpCspError('the core module')
      : __mcpLoadError(`the core could not start: ${text}` + (lacks
        ? `: this environment has no ${lacks[1]}, which the core needs. Define it before the polyfill loads ` +
          "(Jest's jsdom environment leaves out TextEncoder and TextDecoder: a setup file can take them from node:util)."
        : ''));
    fail(mc, error);
    console.error(error.message);
    throw error;
  }

  // The tab transport's persisted session (`tab.persist`: restored at the start, saved after
  // each of the agent's messages) is work of the core's deferred module: with it on, the engine
  // is made once that module has arrived, instead of reading it synchronously at the start. The
  // page's calls wait in the queue meanwhile, as while the core loads. When the module could not
  // be had, the tab server starts without persistence (saying so), as every page's first module
  // goes on without that module: its registrations and an agent's discovery work, and the
  // agent's calls are refused naming the module (without this, the restore read the module
  // synchronously again, failed, and the engine was never made).
  const tab = config.tab;
  const persists = tab !== null && typeof tab === 'object' && tab.persist != null && tab.persist !== false;
  const unpersisted = (c, e) => {
    console.warn(`modelcontext-polyfill: the tab transport's session is not persisted (modelContextPolyfillConfig.tab.persist): ${(e && e.message) || e}`);
    return started(c, { ...tab, persist: false });
  };
  const begin = (c) => {
    wantNow = c.urgeDeferred || null;
    if (wanted) want();
    if (!(persists && c.deferred)) return started(c);
    want();
    return c.deferred.then(() => started(c), (e) => unpersisted(c, e));
  };

  // `ready` waits for the core's deferred module, which is compiled once the page's start has
  // settled unless something needs it first (polyfill/src/deferred.js): a page that awaits
  // `ready` (or calls its then, catch or finally) needs it, and it is compiled at once. Every
  // ask of this installer's goes through want(), which keeps one made before the core has
  // loaded until it can be passed on (the core's urgeDeferred; a whole core has none).
  let wanted = false;
  let wantNow = null;
  const want = () => {
    wanted = true;
    if (wantNow) wantNow();
  };
  class Ready extends Promise {
    static get [Symbol.species]() {
      return Promise;
    }

    then(onFulfilled, onRejected) {
      want();
      return super.then(onFulfilled, onRejected);
    }
  }
  let settle;
  if (core && typeof core.then === 'function') {
    settle = Promise.resolve(core).then(begin).catch(failed);
  } else {
    try {
      settle = Promise.resolve(begin(core));
    } catch (e) {
      settle = Promise.reject(e).catch(failed);
    }
  }
  record.ready = new Ready((resolve, reject) => settle.then(resolve, reject));
  // (Reported on the console once, by failed(); the intrinsic then, which asks for nothing.)
  Promise.prototype.then.call(record.ready, undefined, () => {});
  return record;
}

/**
 * Element.prototype.attachShadow, wrapped to note each root a script attaches (closed ones
 * included), weakly, until the core's declarative API takes them (`found`, form_roots.js):
 * { early, found, stop() }, or null where it cannot be wrapped (a lockdown).
 */
function __mcpWatchShadowRoots(g) {
  const proto = g.Element && g.Element.prototype;
  const attach = proto && proto.attachShadow;
  if (typeof attach !== 'function' || typeof WeakRef !== 'function') return null;
  const define = (value) =>
    Object.defineProperty(proto, 'attachShadow', { ...Object.getOwnPropertyDescriptor(proto, 'attachShadow'), value });
  const watch = {
    early: [],
    found: null,
    stop() {
      if (proto.attachShadow === wrapped) define(attach);
      watch.early = [];
      watch.found = null;
    },
  };
  const wrapped = {
    attachShadow(init) {
      const root = attach.call(this, init);
      try {
        if (watch.found) watch.found(root);
        else watch.early.push(new WeakRef(root));
      } catch {
        // (the page's root is what matters)
      }
      return root;
    },
  }.attachShadow;
  try {
    define(wrapped);
  } catch {
    return null;
  }
  return watch;
}

/** `proto` when it can take a new property, else `object` when it can, else null. */
function __mcpHome(proto, object) {
  if (Object.isExtensible(proto)) return proto;
  return Object.isExtensible(object) ? object : null;
}

/**
 * Installs nothing, because `why`; the console says so once per realm and `kind` (every copy of
 * the polyfill finds the same reason). Returns what stands for the record: `ready` rejects with
 * the reason.
 */
function __mcpNotInstalled(g, env, kind, why) {
  const error = __mcpLoadError(`not installed: ${why}`);
  const warned = Symbol.for(`modelcontext-polyfill.not-installed.${kind}`);
  if (!g[warned]) {
    try {
      Object.defineProperty(g, warned, { value: true, configurable: true });
    } catch {
      // A frozen global: each copy warns.
    }
    console.warn(`${error.message} (version ${env.version})`);
  }
  const ready = Promise.reject(error);
  ready.catch(() => {});
  return { ready };
}

/**
 * Starts the declarative API and gives SubmitEvent.prototype agentInvoked and respondWith (when
 * absent); or, with `failure` (the core's deferred module could not be had), says why it did not.
 */
function __mcpInstallForms(g, engine, shadow, failure = null) {
  try {
    if (failure) throw failure;
    engine.startForms();
  } catch (e) {
    if (shadow) shadow.stop();
    const why = String((e && e.message) || e).replace(/^modelcontext-polyfill: /, '');
    console.warn(`modelcontext-polyfill: the declarative API did not start: ${why}`);
    return;
  }
  const SubmitEvent = g.SubmitEvent;
  if (typeof SubmitEvent !== 'function') return;
  if (!Object.isExtensible(SubmitEvent.prototype)) {
    console.warn('modelcontext-polyfill: SubmitEvent.prototype takes no new property (a lockdown froze it): ' +
      'forms are tools, but their submit events have no agentInvoked or respondWith().');
    return;
  }
  const check = (self) => {
    if (!(self instanceof SubmitEvent)) throw new TypeError('Illegal invocation');
  };
  if (!('agentInvoked' in SubmitEvent.prototype)) {
    Object.defineProperty(SubmitEvent.prototype, 'agentInvoked', {
      get() {
        check(this);
        return engine.formAgentInvoked(this);
      },
      enumerable: true,
      configurable: true,
    });
  }
  if (!('respondWith' in SubmitEvent.prototype)) {
    Object.defineProperty(SubmitEvent.prototype, 'respondWith', {
      value: function respondWith(promise) {
        check(this);
        engine.formRespondWith(this, promise);
      },
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
}

// The installer: one ModelContext at navigator.modelContext and document.modelContext,
// idempotent across copies, never replacing a native document.modelContext.
//
// Page configuration (optional, set before the polyfill loads):
//   globalThis.modelContextPolyfillConfig = { serverInfo: {...}, tab: false | { channelId, allowedOrigins },
//     validatorUrl: 'https://cdn.example/modelcontext_validator.wasm' }
// validatorUrl: where the validator module is fetched from when a tool with a schema is first
// registered (polyfill/src/validator.js); default: modelcontext_validator.wasm beside this script.

function install(wasm, env) {
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
    return;
  }

  const ToolActivatedEvent = __mcpDefineToolEvent('ToolActivatedEvent');
  const ToolCancelEvent = __mcpDefineToolEvent('ToolCancelEvent');
  const { ModelContext, create, engineOf } = __mcpDefineModelContext();
  const config = g.modelContextPolyfillConfig || {};

  const hasDocument = typeof Document === 'function' && typeof document === 'object' && document !== null;
  const native = hasDocument && 'modelContext' in Document.prototype ? document.modelContext : undefined;

  const validator = __mcpValidatorLoader(__mcpValidatorUrl(config.validatorUrl, env.scriptUrl));
  const mc = create((target) =>
    new wasm.Engine(target, {
      ToolActivatedEvent,
      ToolCancelEvent,
      serverInfo: config.serverInfo,
      tab: config.tab,
      native,
      validator,
    }),
  );
  const engine = engineOf(mc);

  if (!native) {
    __mcpExposeInterface(g, 'ModelContext', ModelContext);
    __mcpExposeInterface(g, 'ToolActivatedEvent', ToolActivatedEvent);
    __mcpExposeInterface(g, 'ToolCancelEvent', ToolCancelEvent);
  }

  const navProto = typeof navigator === 'object' && navigator !== null ? Object.getPrototypeOf(navigator) : null;
  if (navProto && !('modelContext' in navigator)) {
    Object.defineProperty(navProto, 'modelContext', {
      get() {
        return this === navigator ? mc : undefined;
      },
      enumerable: true,
      configurable: true,
    });
  }
  if (hasDocument && !native) {
    Object.defineProperty(Document.prototype, 'modelContext', {
      get() {
        return this === document ? mc : null;
      },
      enumerable: true,
      configurable: true,
    });
  }

  if (navProto && !('modelContextTesting' in navigator)) {
    const testing = {
      listTools: () => engine.testingListTools(),
      executeTool: (name, inputArgsJson) => engine.testingExecuteTool(name, inputArgsJson),
      registerToolsChangedCallback: (cb) => engine.testingRegisterToolsChangedCallback(cb),
    };
    Object.defineProperty(navProto, 'modelContextTesting', {
      get() {
        return this === navigator ? testing : undefined;
      },
      enumerable: true,
      configurable: true,
    });
  }

  // The declarative API (src/browser/forms.rs): <form toolname> as tools, unless the browser's
  // own WebMCP handles forms.
  if (hasDocument && !native) __mcpInstallForms(g, engine);

  // The server transport classes (src/transport/classes.rs), for connect({ transport }).
  const transports = {};
  for (const name of [
    'TabServerTransport', 'PostMessageServerTransport', 'BroadcastChannelServerTransport',
    'IframeChildServerTransport', 'IframeParentServerTransport', 'EventServerTransport',
    'ExtensionServerTransport',
  ]) {
    if (typeof wasm[name] === 'function') transports[name] = wasm[name];
  }

  // The client side (polyfill/src/client.js): McpClient, the client transports, their errors.
  const client = __mcpDefineClient(wasm);

  Object.defineProperty(g, MARK, {
    value: {
      version: env.version, format: env.format, modelContext: mc, native: native || null,
      validatorUrl: validator.url,
      transports: Object.freeze(transports),
      client,
    },
    configurable: true,
  });
}

/**
 * The validator module's URL: `validatorUrl` from the page's config (relative to the page), else
 * modelcontext_validator.wasm beside the running polyfill script.
 */
function __mcpValidatorUrl(configured, scriptUrl) {
  const base = typeof document === 'object' && document ? document.baseURI
    : typeof location === 'object' && location ? location.href : undefined;
  const [url, against] = configured ? [String(configured), base] : ['modelcontext_validator.wasm', scriptUrl];
  try {
    return new URL(url, against).href;
  } catch {
    return url;
  }
}

/** Starts the declarative API and gives SubmitEvent.prototype agentInvoked and respondWith (when absent). */
function __mcpInstallForms(g, engine) {
  try {
    engine.startForms();
  } catch (e) {
    console.warn(`modelcontext-polyfill: the declarative API did not start: ${e && e.message}`);
    return;
  }
  const SubmitEvent = g.SubmitEvent;
  if (typeof SubmitEvent !== 'function') return;
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

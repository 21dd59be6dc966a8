// The ModelContext interface: an EventTarget whose operations forward to the wasm Engine,
// where every check, state and ordering lives. This file only shapes values the way
// WebIDL bindings do (brand checks, overloads, event handler attributes).

function __mcpDefineModelContext() {
  const KEY = Symbol('ModelContext');
  const engines = new WeakMap();

  function engineOf(obj) {
    const e = engines.get(obj);
    if (!e) throw new TypeError('Illegal invocation');
    return e;
  }

  // Promise-returning operations report a failed brand check as a rejection.
  function promising(obj, fn) {
    let e;
    try {
      e = engineOf(obj);
    } catch (err) {
      return Promise.reject(err);
    }
    return fn(e);
  }

  class ModelContext extends EventTarget {
    constructor(key = undefined) {
      if (key !== KEY) throw new TypeError("Failed to construct 'ModelContext': Illegal constructor");
      super();
    }

    // registerTool(tool, options) — the W3C form; registerTool(name, definition) — the
    // session-API form, told apart by the first argument's type.
    registerTool(tool, options = undefined) {
      if (typeof tool === 'string') return engineOf(this).registerToolDef(tool, options);
      // (The engine gives the promise the early drafts' non-enumerable unregister().)
      return promising(this, (e) => e.registerTool(tool, options));
    }

    getTools(options = undefined) {
      return promising(this, (e) => e.getTools(options));
    }

    executeTool(tool, inputObject = undefined, options = undefined) {
      return promising(this, (e) => e.executeTool(tool, inputObject, options));
    }

    registerResource(uriOrTemplate, definition) {
      return engineOf(this).registerResource(uriOrTemplate, definition);
    }

    registerPrompt(name, definition) {
      return engineOf(this).registerPrompt(name, definition);
    }

    connect(options = undefined) {
      return promising(this, (e) => e.connect(options));
    }

    disconnect() {
      engineOf(this).disconnect();
    }

    isConnected() {
      return engineOf(this).isConnected();
    }

    notify(method, params = undefined) {
      engineOf(this).notify(method, params);
    }

    provideContext(context = undefined) {
      engineOf(this).provideContext(context);
    }

    clearContext() {
      engineOf(this).clearContext();
    }

    unregisterTool(name) {
      engineOf(this).unregisterTool(name);
    }
  }

  for (const name of ['ontoolchange', 'ontoolactivated', 'ontoolcancel']) {
    const type = name.slice(2);
    const records = new WeakMap();
    Object.defineProperty(ModelContext.prototype, name, {
      get() {
        engineOf(this);
        const r = records.get(this);
        return r ? r.fn : null;
      },
      set(value) {
        engineOf(this);
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

  function create(makeEngine) {
    const mc = new ModelContext(KEY);
    engines.set(mc, makeEngine(mc));
    return mc;
  }

  return { ModelContext, create, engineOf };
}

// The validator's loader: gets dist/modelcontext_validator.wasm (src/schema/module.rs) the
// first time a tool needs it, and speaks its C ABI. The engine holds the loader
// (src/browser/validator.rs) and decides when to load; this file only moves bytes. Shared by
// every build; also usable on its own (conformance/schema-suite.html):
//
//   const validator = await __mcpValidatorLoader(url, compile).load(true);
//   (compile(url) → Promise<WebAssembly.Module>; default: fetch and compile, polyfill/src/wasm_fetch.js)
//   validator.compile('{"type":"object"}')   → '{"handle":1}' | '{"error":"…"}'
//   validator.validate(1, '{"a":1}')         → '{"violations":[…]}' | '{"error":"…"}' (text or its UTF-8 bytes)
//   validator.free(1)

/** A loader for the module at `url`; `load(urgent)` starts (at most once) and returns the promise. */
function __mcpValidatorLoader(url, compile = undefined) {
  url = String(url);
  compile ||= (u) => __mcpFetchWasm(u, 'the validator module', 'validatorUrl');
  let promise;
  let kick;
  return {
    url,
    load(urgent) {
      if (!promise) {
        promise = new Promise((resolve) => (kick = resolve)).then(() => compile(url)).then(__mcpInstantiateValidator, (e) => {
          // The engine names the module and its URL itself (src/browser/validator.rs).
          throw new Error((e && e.detail) || (e && e.message) || String(e));
        });
        // Off the critical path: when the page is idle (at most a second later), or on the
        // next task where there is no idle callback (workers).
        if (!urgent && typeof requestIdleCallback === 'function') requestIdleCallback(kick, { timeout: 1000 });
        else if (!urgent) setTimeout(kick, 0);
      }
      if (urgent) kick();
      return promise;
    },
  };
}

function __mcpInstantiateValidator(module) {
  // The module's one import of its own is clock.now (the time budget of patterns that
  // backtrack, src/schema/pattern.rs); its dependencies bring wasm-bindgen's raw import of
  // crypto.getRandomValues(ptr, len) (hash-map seeds), provided here. Nothing else is
  // called; any other import throws if it ever is (scripts/build.mjs checks the list).
  let x;
  const imports = {};
  for (const { module: m, name, kind } of WebAssembly.Module.imports(module)) {
    if (kind !== 'function') throw new Error(`unexpected import ${m}.${name}`);
    (imports[m] ||= {})[name] = /getRandomValues/.test(name)
      ? (ptr, len) => { crypto.getRandomValues(new Uint8Array(x.memory.buffer, ptr, len)); }
      : m === 'clock' && name === 'now'
        ? () => performance.now()
        : () => { throw new Error(`the validator module called ${m}.${name}`); };
  }

  // A trap (a panic aborts) leaves the instance unusable: the call reports an error and a
  // fresh instance takes over; schemas are compiled again there when next used.
  let generation = 0;
  const fresh = () => {
    x = new WebAssembly.Instance(module, imports).exports;
    generation++;
  };
  fresh();
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  // A result of up to 256 ASCII bytes (every valid input's) is read here: each string
  // TextDecoder returns is one Blink keeps a weak handle on, which the next full garbage
  // collection must process (the glue's getStringFromWasm0 does the same: scripts/build.mjs).
  const readText = (bytes) => {
    if (bytes.length <= 256) {
      let n = 0;
      while (n < bytes.length && bytes[n] < 0x80) n++;
      if (n === bytes.length) return String.fromCharCode.apply(null, bytes);
    }
    return decoder.decode(bytes);
  };
  // `text`: JSON text, or its UTF-8 bytes (what the core hands over: a view of its memory).
  const call = (fn, text, ...first) => {
    const bytes = typeof text === 'string' ? encoder.encode(text) : text;
    const ptr = x.alloc(bytes.length);
    new Uint8Array(x.memory.buffer, ptr, bytes.length).set(bytes);
    let out;
    try {
      out = x[fn](...first, ptr, bytes.length);
    } catch (e) {
      fresh();
      return JSON.stringify({ error: `the validator failed internally (${e})` });
    }
    x.dealloc(ptr, bytes.length);
    const len = new DataView(x.memory.buffer).getUint32(out, true);
    const result = readText(new Uint8Array(x.memory.buffer, out + 4, len));
    x.dealloc(out, len + 4);
    return result;
  };

  const schemas = new Map(); // handle → { text, handle in the module, generation }
  let next = 0;
  return {
    compile(text) {
      const out = call('compile', text);
      const { handle } = JSON.parse(out);
      if (!handle) return out;
      schemas.set(++next, { text, handle, generation });
      return `{"handle":${next}}`;
    },
    validate(handle, text) {
      const s = schemas.get(handle);
      if (!s) return JSON.stringify({ error: `no schema has handle ${handle}` });
      if (s.generation !== generation) {
        const again = JSON.parse(call('compile', s.text));
        if (!again.handle) return JSON.stringify({ error: again.error });
        Object.assign(s, { handle: again.handle, generation });
      }
      return call('validate', text, s.handle);
    },
    free(handle) {
      const s = schemas.get(handle);
      schemas.delete(handle);
      if (s && s.generation === generation) x.free_schema(s.handle);
    },
  };
}

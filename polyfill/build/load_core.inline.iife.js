// The three wasm modules are inside this file (base64): the core is compiled and instantiated at
// once, so the polyfill is complete when this script ends (unless the browser refuses: see
// initInline); the client when a page first makes one (at once too), the validator when first
// needed. Nothing is fetched.

/*@@INLINE_WASM@@*/

// Compiles and instantiates `bytes` with `glue` at once, and returns the glue. A browser may
// refuse to compile a large module on the main thread (Chromium: over 8 MB, which a debug
// build's core is): the module is then compiled and instantiated off it, and this returns a
// promise of the glue, which install() and the client wait for as in the other builds.
function initInline(glue, bytes, what) {
  const none = __mcpNoWasm(what);
  if (none) throw none;
  let module;
  try {
    module = new WebAssembly.Module(bytes);
  } catch (e) {
    if (!(e instanceof RangeError)) throw __mcpCompileFailure(e, what);
    return glue({ module_or_path: __mcpCompile(bytes, what) }).then(() => glue);
  }
  glue.initSync({ module });
  return glue;
}

function loadCore({ config }) {
  const core = initInline(wasm_bindgen, coreBytes(), 'the core module');
  // Compiled and instantiated at once (where the browser allows), when the page first makes a client.
  const client = __mcpDefineClient(() => initInline(__mcpClientGlue, decodeBase64(CLIENT()), 'the client module'), config.preloadClient);
  const parts = () => ({
    wasm: __mcpAcceptSdkForms(wasm_bindgen),
    client,
    helpers: __mcpEngineHelpers(),
    validator: __mcpValidatorLoader('inline:@@VALIDATOR_WASM@@', () => __mcpCompile(decodeBase64(VALIDATOR()), 'the validator module')),
  });
  return core === wasm_bindgen ? parts() : core.then(parts);
}

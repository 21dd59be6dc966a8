// The three wasm modules are inside this file (base64): the core is compiled and instantiated at
// once, so the polyfill is complete when this script ends; the client when a page first makes
// one (at once too), the validator when first needed. Nothing is fetched.
const CORE = '@@CORE_BASE64@@';
const VALIDATOR = '@@VALIDATOR_BASE64@@';
const CLIENT = '@@CLIENT_BASE64@@';

/*@@DECODE_BASE64@@*/

function loadCore({ config }) {
  wasm_bindgen.initSync({ module: __mcpCompileSync(decodeBase64(CORE), 'the core module') });
  // Compiled and instantiated at once, when the page first makes a client.
  const client = __mcpDefineClient(() => {
    __mcpClientGlue.initSync({ module: __mcpCompileSync(decodeBase64(CLIENT), 'the client module') });
    return __mcpClientGlue;
  }, config.preloadClient);
  return {
    wasm: wasm_bindgen,
    client,
    helpers: __mcpEngineHelpers(),
    validator: __mcpValidatorLoader('inline:@@VALIDATOR_WASM@@', () => __mcpCompile(decodeBase64(VALIDATOR), 'the validator module')),
  };
}

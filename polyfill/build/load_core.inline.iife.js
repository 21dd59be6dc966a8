// The three wasm modules are inside this file (base64): the core is compiled and instantiated at
// once, so the polyfill is complete when this script ends; the validator and the client are
// compiled when first needed. Nothing is fetched.
const CORE = '@@CORE_BASE64@@';
const VALIDATOR = '@@VALIDATOR_BASE64@@';
const CLIENT = '@@CLIENT_BASE64@@';

/*@@DECODE_BASE64@@*/

function loadCore({ config }) {
  wasm_bindgen.initSync({ module: __mcpCompileSync(decodeBase64(CORE), 'the core module') });
  const client = __mcpDefineClient(() =>
    __mcpCompile(decodeBase64(CLIENT), 'the client module').then((module) => {
      __mcpClientGlue.initSync({ module });
      return __mcpClientGlue;
    }));
  if (config.preloadClient) client.load().catch(() => {});
  return {
    wasm: wasm_bindgen,
    client,
    callOptions: __mcpCallOptions,
    messageGate: __mcpMessageGate,
    validator: __mcpValidatorLoader('inline:@@VALIDATOR_WASM@@', () => __mcpCompile(decodeBase64(VALIDATOR), 'the validator module')),
  };
}

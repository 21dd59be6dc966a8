// The three wasm modules of the inline builds (polyfill/build/core.inline.esm.js and
// load_core.inline.iife.js), as base64. Each module's text is what a function returns, made only
// when that module is first compiled: a string literal at the top level would be copied into the
// JS heap as the script runs, and stay there, every page paying for the validator's 2.3 MB and
// the client's 0.3 MB whether it uses them or not. (Neither script has a compile hint, which would
// compile these functions, and so copy their strings, as the script loads: scripts/build.mjs,
// COMPILE_HINTED.)
let CORE = () => '@@CORE_BASE64@@';
const VALIDATOR = () => '@@VALIDATOR_BASE64@@';
const CLIENT = () => '@@CLIENT_BASE64@@';

function decodeBase64(b64) {
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(b64);
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

// The core's bytes, read once at the start: its function is dropped then, and with it, at the
// page's next garbage collection, the 0.8 MB string it returned (in the self-contained classic
// build; V8 keeps an ES module's functions' code, and so the string, for the page's life:
// tests/page/front.test.mjs).
function coreBytes() {
  const bytes = decodeBase64(CORE());
  CORE = null;
  return bytes;
}

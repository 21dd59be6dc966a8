// The validator module (dist/modelcontext_validator.wasm) in Node, through the loader pages use
// (polyfill/src/validator.js), its fetch answered with the module's bytes: what the build checks
// the module with, and what tests ask it.
//
//   loadValidator(bytes) → the loader's validator: compile(schemaText) → JSON text
//   ({ handle } or { error }), validate(handle, instanceText) → JSON text ({ violations }),
//   free(handle).

import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { REPO_ROOT } from './project.mjs';

/**
 * Instantiates `bytes` with polyfill/src/validator.js as a page would.
 * @param {Uint8Array} bytes
 */
export async function loadValidator(bytes) {
  const loaderSource = fs.readFileSync(path.join(REPO_ROOT, 'polyfill', 'src', 'validator.js'), 'utf8');
  const context = vm.createContext({
    WebAssembly, TextEncoder, TextDecoder, URL, Response, crypto: globalThis.crypto, setTimeout, JSON,
    fetch: async () => new Response(bytes, { headers: { 'content-type': 'application/wasm' } }),
  });
  context.bytes = bytes;
  vm.runInContext(loaderSource, context, { filename: 'polyfill/src/validator.js' });
  return vm.runInContext('__mcpValidatorLoader("memory:validator", () => WebAssembly.compile(bytes)).load(false)', context);
}

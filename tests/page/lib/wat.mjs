// The binary of a module written in WebAssembly text, for the tests of the build's wasm steps.

/** The binary of the module in WebAssembly text `text` (binaryen.js). */
export async function wat(text) {
  const { default: binaryen } = await import('binaryen');
  const m = binaryen.parseText(text);
  m.setFeatures(binaryen.Features.MVP | binaryen.Features.Multivalue | binaryen.Features.ReferenceTypes | binaryen.Features.MutableGlobals);
  try {
    return m.emitBinary();
  } finally {
    m.dispose();
  }
}

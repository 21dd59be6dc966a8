// The core beside this script: modelcontext_core.js, the same ES module the ESM build loads
// (the glue; it fetches the core wasm beside itself, compiled while it streams in).
function loadCore(ctx) {
  let url;
  try {
    url = new URL('./@@CORE_JS@@', scriptUrl).href;
  } catch {
    url = './@@CORE_JS@@';
  }
  return import(url).then(
    (m) => m.start(ctx),
    (e) => {
      throw __mcpLoadError(
        `the core script ${url} could not be loaded (${(e && e.message) || e}); serve the whole dist/ ` +
          'directory beside modelcontext.iife.js, or load modelcontext.inline.iife.js, which needs no other file.',
      );
    },
  );
}

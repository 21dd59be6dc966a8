// The core beside this script: modelcontext_core.js, the same ES module the ESM build loads. Its
// glue and the core wasm start loading now, beside it (each would otherwise wait for the one
// before it).
function loadCore(ctx) {
  const none = __mcpNoImport();
  if (none) return Promise.reject(none);
  const beside = (file) => {
    try {
      return new URL(file, scriptUrl).href;
    } catch {
      return file;
    }
  };
  const unreachable = (url) => (e) => {
    throw __mcpLoadError(
      __mcpUnreachable(`the core script ${url}`, 'loaded', e, url,
        'serve the whole dist/ directory beside modelcontext.iife.js, or load modelcontext.inline.iife.js, which needs no other file.'),
    );
  };
  const core = beside('./@@CORE_JS@@');
  const glue = beside('./@@GLUE_JS@@');
  const early = __mcpStartCore(ctx.config, () => beside('./@@GLUE_WASM@@'), () => import(glue).catch(unreachable(glue)));
  return import(core).then((m) => m.start({ ...ctx, early }), unreachable(core));
}

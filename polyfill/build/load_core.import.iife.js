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
  // import(url), failing with why it could not be loaded.
  const load = (url) =>
    __mcpReach(url, () => import(url), (e, directive) => __mcpLoadError(
      __mcpUnreachable(`the core script ${url}`, 'loaded', e, url,
        'serve the whole dist/ directory beside modelcontext.iife.js, or load modelcontext.inline.iife.js, which needs no other file.',
        directive),
    ));
  const core = beside('./@@CORE_JS@@');
  const early = __mcpStartCore(ctx.config, () => beside('./@@GLUE_WASM@@'), () => load(beside('./@@GLUE_JS@@')));
  return load(core).then((m) => m.start({ ...ctx, early }));
}

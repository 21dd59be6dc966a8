(ctx) => {
  const none = __mcpNoImport();
  if (none) return Promise.reject(none);
  // The core wasm and the glue start loading now, beside the core script, not after it.
  const early = __mcpStartCore(
    ctx.config,
    () => new URL('./@@GLUE_WASM@@', import.meta.url),
    () => import('./@@GLUE_JS@@'),
    '@@NO_URL@@',
  );
  return import('./@@CORE_JS@@').then((m) => m.start({ ...ctx, early }));
}

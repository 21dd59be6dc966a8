(ctx) => {
  const none = __mcpNoImport();
  return none ? Promise.reject(none) : import('./@@CORE_JS@@').then((m) => m.start(ctx));
}

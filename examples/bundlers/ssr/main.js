// What the package does where a page is rendered on a server (Node, Deno, Bun): a component that
// imports it is imported there too, so the import must cost nothing. Either entry installs
// nothing (no document and no worker scope), fetches nothing and throws nothing; its named
// exports stay undefined and `ready` rejects, saying why. Prints what it found, as JSON.
const before = Object.getOwnPropertyNames(globalThis).length;
const found = {};
for (const entry of ['modelcontext-polyfill', 'modelcontext-polyfill/inline']) {
  const m = await import(entry);
  const ready = await m.ready.then(() => 'resolved', (e) => e.message);
  found[entry] = { ready, McpClient: typeof m.McpClient };
}
found.installed = typeof globalThis[Symbol.for('modelcontext-polyfill')];
found.navigatorModelContext = typeof globalThis.navigator?.modelContext;
found.newGlobals = Object.getOwnPropertyNames(globalThis).length - before;
console.log(JSON.stringify(found));

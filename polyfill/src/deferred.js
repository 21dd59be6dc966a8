// The core's deferred module: the build cuts the core wasm in two (scripts/lib/core-split.mjs),
// a first module with what a page's start, its registrations and an agent's discovery run and a
// deferred one with the rest (tool calls, other transports, the session API, the declarative
// forms' work, the legacy methods, the Tasks and Skills extensions…). The deferred module is
// fetched and instantiated once the core has started. Until then the page's calls of it wait for
// it (polyfill/src/model_context.js, install.js), and so do agents' messages other than discovery
// (src/transport/held.rs), other documents' reads of this one's tools (the front's localTools)
// and, with a persisted tab session, the engine's start; anything else of it that runs before
// then reads it synchronously.
// Moves bytes only.

/**
 * Sets up the deferred module, at `url` (`configured`: a modelContextPolyfillConfig member gave
 * it), of the core that `glue` instantiated. Returns a promise that settles once it is
 * instantiated (rejecting when it could not be fetched), or null for a whole core, which has no
 * placeholders (nor their loader's import).
 */
function __mcpDeferCore(glue, url, configured) {
  const what = "the core's deferred module";
  if (!glue.__mcpSplit()) return null;
  let compiled = null;
  let arrived;
  if (url) {
    glue.__mcpDeferred(() => compiled || (compiled = __mcpCompileNow(__mcpReadNow(url, what), what)));
    arrived = __mcpFetchWasm(url, what, 'deferredUrl', !configured).then((m) => {
      glue.__mcpInstantiateDeferred(compiled || (compiled = m));
    });
  } else {
    // (This bundle has no import.meta.url and no URL was configured.)
    const e = __mcpLoadError(`${what} cannot be found: no URL for it; set modelContextPolyfillConfig.deferredUrl.`);
    glue.__mcpDeferred(() => {
      throw e;
    });
    arrived = Promise.reject(e);
  }
  // Agents' messages other than discovery wait for it too (src/transport/held.rs), then go in
  // the order they came, each on its own (one that fails does not take the others with it); when
  // it could not be had, the requests among them are answered with the reason. They go after the
  // page's calls that waited for it (the session API's registrations, the forms' start): the
  // installer reacts to `arrived` after this reaction was registered, and a microtask queued
  // here runs after every reaction `arrived` queued when it settled. (Else an agent's held call
  // of a tool the page registered before the call came would find no such tool.)
  glue.holdForDeferred();
  arrived.then(
    () => queueMicrotask(() => {
      for (;;) {
        try {
          if (!glue.deliverHeld()) return;
        } catch (e) {
          console.error(`modelcontext-polyfill: an agent's message held for ${what} failed: ${(e && e.message) || e}`);
        }
      }
    }),
    (e) => {
      console.warn(`${e.message} (the part of the core a page uses less${url ? '; it is asked for again when first needed' : ''})`);
      glue.deferredFailed(String((e && e.message) || e));
    },
  );
  return arrived;
}

/**
 * The bytes at `url`, read synchronously: with Node's `fs` for a file: URL in Node, else with a
 * synchronous XMLHttpRequest (HTML allows one in windows and dedicated and shared workers).
 */
function __mcpReadNow(url, what) {
  const fail = (detail) => __mcpLoadError(`${what} ${url} was needed before it had arrived and could not be read: ${detail}`);
  const fs = __mcpFileSystem(url);
  if (fs) {
    try {
      return fs.readFileSync(new URL(url));
    } catch (e) {
      throw fail((e && e.message) || String(e));
    }
  }
  if (typeof XMLHttpRequest !== 'function') throw fail('this realm has no XMLHttpRequest to read it with at once');
  const xhr = new XMLHttpRequest();
  try {
    xhr.open('GET', url, false);
    // A synchronous request of a window may not ask for an ArrayBuffer: the bytes come as text,
    // one character each.
    xhr.overrideMimeType('text/plain; charset=x-user-defined');
    xhr.send();
  } catch (e) {
    throw fail((e && e.message) || String(e));
  }
  if (xhr.status !== 200 && !(xhr.status === 0 && /^file:/i.test(url))) throw fail(`HTTP ${xhr.status} ${xhr.statusText}`.trim());
  const text = xhr.responseText;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

/** `bytes` compiled synchronously (on this thread). */
function __mcpCompileNow(bytes, what) {
  try {
    return new WebAssembly.Module(bytes);
  } catch (e) {
    throw __mcpCompileFailure(e, what);
  }
}

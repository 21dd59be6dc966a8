// The core's deferred module: the build cuts the core wasm in two (scripts/lib/core-split.mjs),
// a first module with what a page's start, its registrations and an agent's discovery run and a
// deferred one with the rest (tool calls, other transports, the session API, the declarative
// forms' work, the legacy methods, the Tasks and Skills extensions…). The deferred module is
// requested only when something needs it or an agent has come (__mcpDeferCore): a page that no
// agent reaches and that calls nothing of it never loads it. Until it has arrived the page's
// calls of it wait for it (polyfill/src/model_context.js, install.js), and so do agents'
// messages other than discovery (src/transport/held.rs), other documents' reads of this one's
// tools (the front's localTools) and, with a persisted tab session, the engine's start; anything
// else of it that runs before then reads it synchronously.
// Moves bytes only.

/**
 * How long after an agent's first message the deferred module waits before it is compiled, at
 * the least (then the page's first idle moment): see __mcpDeferCore.
 */
const __MCP_SETTLE_MS = 150;

/**
 * Sets up the deferred module, at `url` (`configured`: a modelContextPolyfillConfig member gave
 * it), of the core that `glue` instantiated, and its call module, at `callsUrl` (`callsConfigured`
 * likewise). Returns `{ arrived, urge }`: a promise that settles once the deferred module is
 * instantiated (rejecting when it could not be fetched), and a function that has it requested and
 * compiled now; or null for a whole core, which has no placeholders (nor their loader's import).
 *
 * Nothing is requested until the module is wanted. `urge` wants it now: it is requested, and
 * compiled as soon as its answer has begun. Everything that needs it calls that: an agent's
 * message held for it (src/transport/held.rs calls it when it holds the first one), a page's
 * call that waits for it (polyfill/src/model_context.js, when a call of it queues), a function
 * of it that runs before (read synchronously), a page whose start needs it (its forms, a
 * persisted tab session, the browser's own WebMCP, `ready` awaited: polyfill/src/install.js),
 * and a tool form that appears later (polyfill/src/form_watch.js). An agent's first message of
 * any kind (held.rs again, before the message is served) has it requested at once and compiled
 * in the first idle moment at least __MCP_SETTLE_MS after: the agent's calls will need it, and
 * its bytes come in while the agent lists the tools. Compiling it costs the page's thread (a
 * streaming compilation reads the bytes there as they come) and, on a device of few cores, the
 * cores the rest runs on: compiled while a page registered its tools and an agent connected, it
 * delayed the agent's first listing by about a tenth on a 2-core machine (README, "Startup").
 *
 * The call module (scripts/lib/calls-cut.mjs: what an agent's calls run of the deferred module)
 * goes first, the same way: requested when the deferred module is asked for, compiled when it is
 * wanted, instantiated before it (the deferred module imports functions of it and reads data it
 * writes); the deferred module is requested once the call module is compiled (or could not be
 * had), so that over a slow network the call module's bytes do not share it. Once the call module
 * is there, and unless the page waits for the deferred module (a page's `urge`: its calls go
 * before an agent's), the agent's messages it can serve are (held.rs: `openToCalls`,
 * `deliverHeldCall`).
 */
function __mcpDeferCore(glue, url, configured, callsUrl, callsConfigured) {
  const what = "the core's deferred module";
  const callsWhat = "the core's call module";
  if (!glue.__mcpSplit()) return null;
  let compiled = null;
  let callsCompiled = null;
  let arrived;
  let go;
  const needed = new Promise((resolve) => (go = resolve));
  let ask;
  const asked = new Promise((resolve) => (ask = resolve));
  const urge = () => {
    ask();
    go();
  };
  // (src/transport/held.rs calls it once.)
  const prefetch = () => {
    ask();
    __mcpWhenSettled(urge);
  };
  // The page waits for the deferred module: an agent's calls wait with it (see above).
  let pageWaits = false;
  const pageUrge = () => {
    if (!pageWaits) {
      pageWaits = true;
      glue.openToCalls(false);
    }
    urge();
  };
  const deliver = (next, whose) => {
    for (;;) {
      try {
        if (!next()) return;
      } catch (e) {
        console.error(`modelcontext-polyfill: an agent's message held for ${whose} failed: ${(e && e.message) || e}`);
      }
    }
  };
  if (url && callsUrl) {
    glue.__mcpDeferred(
      () => {
        compiled = compiled || __mcpCompileNow(__mcpReadNow(url, what), what);
        urge();
        return compiled;
      },
      () => (callsCompiled = callsCompiled || __mcpCompileNow(__mcpReadNow(callsUrl, callsWhat), callsWhat)),
    );
    // (Either read synchronously before anything asked for it: no request is made.)
    const callsArrived = asked
      .then(() => (callsCompiled ? () => callsCompiled : __mcpRequestWasm(callsUrl, callsWhat, 'callsUrl', !callsConfigured)))
      .then((compile) => needed.then(() => callsCompiled || compile()), (e) => callsCompiled || Promise.reject(e))
      .then((m) => {
        glue.__mcpInstantiateCalls(callsCompiled || (callsCompiled = m));
      });
    const requested = callsArrived.then(
      () => (compiled ? () => compiled : __mcpRequestWasm(url, what, 'deferredUrl', !configured)),
      () => (compiled ? () => compiled : __mcpRequestWasm(url, what, 'deferredUrl', !configured)),
    );
    arrived = Promise.all([
      requested.then((compile) => needed.then(() => compiled || compile()), (e) => compiled || Promise.reject(e)),
      callsArrived,
    ]).then(([m]) => {
      glue.__mcpInstantiateDeferred(compiled || (compiled = m));
    });
    // (What the call module serves goes as soon as it is there; a failure is the deferred
    // module's to report, which cannot be had without it.)
    callsArrived.then(
      () => {
        if (pageWaits || compiled) return;
        glue.openToCalls(true);
        deliver(() => glue.deliverHeldCall(), callsWhat);
      },
      () => {},
    );
  } else {
    // (This bundle has no import.meta.url and no URL was configured.)
    const e = __mcpLoadError(`${what} cannot be found: no URL for it; set modelContextPolyfillConfig.deferredUrl.`);
    glue.__mcpDeferred(
      () => {
        throw e;
      },
      () => {
        throw e;
      },
    );
    arrived = Promise.reject(e);
  }
  // Agents' messages other than discovery wait for it too (src/transport/held.rs), then go in
  // the order they came, each on its own (one that fails does not take the others with it); when
  // it could not be had, the requests among them are answered with the reason. They go after the
  // page's calls that waited for it (the session API's registrations, the forms' start): the
  // installer reacts to `arrived` after this reaction was registered, and a microtask queued
  // here runs after every reaction `arrived` queued when it settled. (Else an agent's held call
  // of a tool the page registered before the call came would find no such tool.)
  glue.holdForDeferred(urge, prefetch);
  arrived.then(
    () => queueMicrotask(() => deliver(() => glue.deliverHeld(), what)),
    (e) => {
      console.warn(`${e.message} (the part of the core a page uses less${url ? '; it is asked for again when first needed' : ''})`);
      glue.deferredFailed(String((e && e.message) || e));
    },
  );
  return { arrived, urge: pageUrge };
}

/**
 * Calls `fn` once the page has settled: in the first idle moment at least __MCP_SETTLE_MS from
 * now (at the latest a second after that), or __MCP_SETTLE_MS from now where there are no idle
 * callbacks (workers, WebKit).
 */
function __mcpWhenSettled(fn) {
  const idle = globalThis.requestIdleCallback;
  setTimeout(() => (typeof idle === 'function' ? idle.call(globalThis, () => fn(), { timeout: 1000 }) : fn()), __MCP_SETTLE_MS);
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

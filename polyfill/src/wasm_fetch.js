// Fetching and compiling the wasm modules (the core, then the validator when first needed), with
// errors that name the cause and the fix: a Content-Security-Policy without 'wasm-unsafe-eval',
// a URL that answers 404 or an HTML page, no WebAssembly at all. Moves bytes only.

/**
 * An Error whose message is `modelcontext-polyfill: ${message}`; `detail` (the cause and the
 * fix without the module's name and URL) is kept for callers that name the module themselves.
 */
function __mcpLoadError(message, detail = message) {
  const e = new Error(`modelcontext-polyfill: ${message}`);
  e.name = 'NotSupportedError';
  e.detail = detail;
  return e;
}

/**
 * Whether an engine's message for a failed compilation or instantiation says that the page's
 * Content-Security-Policy refused WebAssembly. Engines word it differently: Chromium names the
 * Content Security Policy and 'wasm-unsafe-eval', WebKit 'unsafe-eval' (and refuses at
 * instantiation, not compilation), Firefox says the call was "blocked by CSP".
 */
function __mcpRefusedByCsp(text) {
  return /Content.Security.Policy|unsafe-eval|blocked by CSP/i.test(text);
}

/** The error for `what` refused by the page's Content-Security-Policy: the directive to add. */
function __mcpCspError(what) {
  return __mcpLoadError(
    `${what} cannot start: the page's Content-Security-Policy does not allow WebAssembly. ` +
      `Add 'wasm-unsafe-eval' to its script-src directive (for example script-src 'self' 'wasm-unsafe-eval').`,
  );
}

/** The message for a failed compilation: the CSP case says which directive to add. */
function __mcpCompileFailure(e, what) {
  const text = String((e && e.message) || e);
  return __mcpRefusedByCsp(text) ? __mcpCspError(what) : __mcpLoadError(`${what} does not compile: ${text}`);
}

function __mcpNoWasm(what) {
  return typeof WebAssembly === 'object' && WebAssembly
    ? null
    : __mcpLoadError(`${what} cannot start: this browser has no WebAssembly (or it is turned off).`);
}

/**
 * In a service worker, the error of a build that loads its core with import(), which HTML does
 * not allow there (it throws a TypeError naming only the rule); null anywhere else. The build
 * with every module inside it loads nothing and installs there.
 */
function __mcpNoImport() {
  return typeof ServiceWorkerGlobalScope === 'function' && globalThis instanceof ServiceWorkerGlobalScope
    ? __mcpLoadError(
        'the core cannot load in a service worker: this build loads it with import(), which service workers ' +
          'may not use. Load modelcontext.inline.iife.js there instead (importScripts), which carries the core.',
      )
    : null;
}

/**
 * `${what} could not be ${done} (${e.message})`, then what to do. A script learns no more than
 * "Failed to fetch" of a refusal, so the likely cause comes first: the page's
 * Content-Security-Policy when it refused `url` (`directive`, from __mcpReach); a file: URL in
 * a page served over http(s): a bundler's doing when `url` is the package's own, the page's
 * when its modelContextPolyfillConfig member `configuredBy` set it; else CORS when `url` is
 * cross-origin to this realm; then `fix`.
 */
function __mcpUnreachable(what, done, e, url, fix, directive = '', configuredBy = '') {
  const reason = `${what} could not be ${done} (${(e && e.message) || e})`;
  if (directive) {
    let origin = url;
    try {
      origin = new URL(url).origin;
    } catch {
      // (kept whole)
    }
    return `${reason}: the page's Content-Security-Policy does not allow it (${directive}). Add ${origin} to ${directive}, or ${fix}`;
  }
  if (__mcpBuildMachinePath(url)) {
    if (configuredBy) {
      return `${reason}. It is a file: URL, which a page served over http(s) may not load: serve the file over ` +
        `http(s) and set modelContextPolyfillConfig.${configuredBy} to its URL there (before the polyfill loads).`;
    }
    return (
      `${reason}. It is a file: URL in a page served over http(s): the bundler wrote the path the ` +
      "package's script had on the machine that built the page where its URL belongs (webpack does so " +
      "when it rewrites the module's own URL but not new URL(), as Angular's webpack builder has it). Copy " +
      'node_modules/modelcontext-polyfill/dist/*.wasm to where the page is served and set ' +
      'modelContextPolyfillConfig.coreUrl, validatorUrl and clientUrl to their URLs before the polyfill ' +
      "loads, or import 'modelcontext-polyfill/inline', which carries the modules."
    );
  }
  const hint = __mcpCorsHint(url);
  return `${reason}${hint ? `. ${hint}; or ${fix}` : `; ${fix}`}`;
}

/**
 * Whether `url` is a file: URL while this realm was served over http(s): a build machine's path
 * (or a page's configuration naming one), which the page may not load. Not in Node, where a DOM
 * test environment (jsdom, happy-dom) has an http(s) location and loads the package from
 * node_modules by file: URLs (__mcpCorsHint says what failed there).
 */
function __mcpBuildMachinePath(url) {
  return /^file:/i.test(url) && !__mcpInNode() && typeof location === 'object' && location !== null &&
    /^https?:$/.test(location.protocol);
}

/** Whether this realm runs in Node (or a runtime that says it is Node). */
function __mcpInNode() {
  const p = globalThis.process;
  return !!(p && p.versions && p.versions.node);
}

/**
 * `attempt()`, a request for `url` (a fetch, an import); when it fails, rejects with
 * `explain(error, directive)`, where `directive` names the part of the page's
 * Content-Security-Policy that refused `url`, or is '' when none did. Chromium fires the
 * `securitypolicyviolation` event just after the refused request has failed, so a failure waits
 * for one at most 100 ms.
 */
async function __mcpReach(url, attempt, explain) {
  const target = typeof document === 'object' && document ? document : globalThis;
  const watching = typeof target.addEventListener === 'function';
  let directive = '';
  let found = () => {};
  const on = (e) => {
    if (e.blockedURI && (e.blockedURI === url || url.startsWith(e.blockedURI))) {
      directive = e.effectiveDirective || e.violatedDirective || 'a directive';
      found();
    }
  };
  if (watching) target.addEventListener('securitypolicyviolation', on);
  try {
    return await attempt();
  } catch (e) {
    if (watching && !directive) {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 100);
        found = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    throw explain(e, directive);
  } finally {
    if (watching) target.removeEventListener('securitypolicyviolation', on);
  }
}

/** The sentence (no final period) saying that `url` is cross-origin to this realm, or ''. */
function __mcpCorsHint(url) {
  try {
    // (In Node a file: URL is fetched only where process.getBuiltinModule is missing:
    // __mcpFileSystem reads it otherwise.)
    if (/^file:/i.test(url) && __mcpInNode()) {
      return "It is a file: URL, which Node's fetch() does not read, and this Node has no process.getBuiltinModule " +
        "to read it with (Node 20.16 and later have): update Node, or import 'modelcontext-polyfill/inline', " +
        'which carries its modules';
    }
    const own = globalThis.origin;
    if (typeof own !== 'string' || new URL(url).origin === own) return '';
    if (/^file:/i.test(url)) {
      return 'It is a file: URL, which a page opened from disk may not load: serve the directory over http ' +
        '(http://localhost is a secure context)';
    }
    const here = typeof document === 'object' && document ? 'this document' : 'this worker';
    const whose = own === 'null' ? `${here}, whose origin is opaque (a sandboxed frame, a data: URL)` : `${here} (${own})`;
    return `It is cross-origin to ${whose}: its server must allow that with CORS (Access-Control-Allow-Origin)`;
  } catch {
    return '';
  }
}

/**
 * Node's `fs` when `url` is a file: URL and this realm runs in Node (or another runtime with
 * `process.getBuiltinModule`, Node 20.16 and 22.3 on), else null. That is where DOM test
 * environments (jsdom, happy-dom under Vitest or Jest) load the package from node_modules, and
 * Node's fetch() refuses file: URLs. getBuiltinModule reaches `fs` without an import that a
 * bundler would try to resolve for the browser.
 */
function __mcpFileSystem(url) {
  const p = globalThis.process;
  if (!/^file:/i.test(url) || !p || typeof p.getBuiltinModule !== 'function') return null;
  try {
    const fs = p.getBuiltinModule('fs');
    return fs && fs.promises && typeof fs.promises.readFile === 'function' ? fs : null;
  } catch {
    return null;
  }
}

/** Compiles `bytes` off the main thread. */
function __mcpCompile(bytes, what) {
  const none = __mcpNoWasm(what);
  if (none) return Promise.reject(none);
  return WebAssembly.compile(bytes).catch((e) => Promise.reject(__mcpCompileFailure(e, what)));
}

/**
 * What to do when the file at a module's URL is missing (or, with `beside` false, cannot be had
 * there for another reason: serve it, or move the URL). `beside`: the URL is the default one,
 * next to the script that loads the module (no modelContextPolyfillConfig member set it), where
 * a bundler that does not copy the files a module names with `new URL('./file.wasm', <the
 * module's own URL>)` puts nothing: the builders of Angular and esbuild, and Bun's bundler, leave
 * the wasm files in node_modules. The ways out are then a copy (in Angular, an `assets` entry),
 * the inline entry, or the config member.
 */
function __mcpMissingFix(key, beside) {
  const move = `set modelContextPolyfillConfig.${key} to its URL (before the polyfill loads).`;
  if (!beside) return `serve it there, or ${move}`;
  return (
    'the file is looked for beside the script that loads it, where some bundlers ' +
    "(Angular's, esbuild, Bun's) copy nothing: copy node_modules/modelcontext-polyfill/dist/*.wasm there " +
    '(Angular: add { "glob": "*.wasm", ' +
    '"input": "node_modules/modelcontext-polyfill/dist", "output": "/" } to the build\'s "assets"), import ' +
    `'modelcontext-polyfill/inline' (it carries the modules), or ${move}`
  );
}

/**
 * Fetches `url` and compiles it (streaming when the server says application/wasm). `what`
 * names the module in errors, `key` the modelContextPolyfillConfig member that moves it;
 * `beside`: `url` is the default one, beside the loading script (see __mcpMissingFix).
 */
async function __mcpFetchWasm(url, what, key, beside = false) {
  return (await __mcpRequestWasm(url, what, key, beside))();
}

/**
 * __mcpFetchWasm in two steps: requests `url` and resolves, once the answer has begun (its
 * status and type checked), with a function that compiles it and returns the promise of the
 * module. Until that is called the body is not read: its bytes come in meanwhile without any
 * work of this thread's (polyfill/src/deferred.js compiles the core's deferred module once the
 * page's start has settled).
 */
async function __mcpRequestWasm(url, what, key, beside = false) {
  const none = __mcpNoWasm(what);
  if (none) throw none;
  const move = __mcpMissingFix(key, false);
  const missing = __mcpMissingFix(key, beside);
  const fs = __mcpFileSystem(url);
  if (fs) {
    let bytes;
    try {
      bytes = await fs.promises.readFile(new URL(url));
    } catch (e) {
      const detail = `it could not be read (${(e && e.message) || e}); ${move}`;
      throw __mcpLoadError(`${what} ${url} could not be loaded: ${detail}`, detail);
    }
    return () => __mcpCompile(bytes, what);
  }
  const response = await __mcpReach(url, () => fetch(url), (e, directive) => {
    const detail = __mcpUnreachable('it', 'fetched', e, url, move, directive, beside ? '' : key);
    return __mcpLoadError(`${what} ${url} could not be loaded: ${detail}`, detail);
  });
  const type = response.headers.get('content-type') || '';
  const wasm = /^application\/wasm\b/i.test(type);
  if (!response.ok) {
    const detail = `HTTP ${response.status} ${response.statusText}`.trim() + `; ${response.status === 404 ? missing : move}`;
    throw __mcpLoadError(`${what} ${url} could not be loaded: ${detail}`, detail);
  }
  if (wasm && typeof WebAssembly.compileStreaming === 'function') {
    return () => WebAssembly.compileStreaming(response).catch((e) => Promise.reject(__mcpCompileFailure(e, what)));
  }
  return async () => {
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (!(bytes[0] === 0 && bytes[1] === 0x61 && bytes[2] === 0x73 && bytes[3] === 0x6d)) {
      const detail =
        `it is not WebAssembly: the server answered HTTP ${response.status} with ` +
        `${type ? `Content-Type ${type}` : 'no Content-Type'} (the file is missing there and the server sent ` +
        `something else); ${missing}`;
      throw __mcpLoadError(`${what} ${url} could not be loaded: ${detail}`, detail);
    }
    return __mcpCompile(bytes, what);
  };
}

/** `configured` (relative to the page) or the default URL `fallback()` computes; text. */
function __mcpModuleUrl(configured, fallback) {
  if (configured) {
    const base = typeof document === 'object' && document ? document.baseURI
      : typeof location === 'object' && location ? location.href : undefined;
    try {
      return new URL(String(configured), base).href;
    } catch {
      return String(configured);
    }
  }
  try {
    return String(fallback());
  } catch {
    return undefined;
  }
}

/**
 * Vite's dev server runs dependencies from its cache's deps/ directory, where it copies no
 * assets: node_modules/.vite/deps/ by default, node_modules/.cache/vite/client/deps/ under Nuxt,
 * .angular/cache/<version>/<project>/vite/deps/ under Angular's dev server (`ng serve`, which
 * serves the workspace's files under /@fs/). From there, a wasm file is asked for where the
 * package keeps it.
 */
function __mcpFromPackage(url) {
  // (The cheap test first: compiling the pattern showed in the profile of every start.)
  if (!url || !url.includes('/deps/')) return url;
  const cache = /^(.*?\/node_modules\/)\.[^/?#]+\/(?:[^?#]*\/)?deps\/(?:[^/?#]*\/)*([^/?#]+\.wasm)(?:[?#].*)?$/.exec(url);
  if (cache) return `${cache[1]}modelcontext-polyfill/dist/${cache[2]}`;
  const angular = /^(.*\/)\.angular\/cache\/[^/?#]+\/[^/?#]+\/vite\/deps\/(?:[^/?#]*\/)*([^/?#]+\.wasm)(?:[?#].*)?$/.exec(url);
  return angular ? `${angular[1]}node_modules/modelcontext-polyfill/dist/${angular[2]}` : url;
}

/**
 * Starts loading the core's two parts at once, before its script has arrived: the wasm
 * (`config.coreUrl`, else `beside()`), fetched and compiled, and the glue (`importGlue()`).
 * Each would otherwise wait for the file before it. `noUrl` says why there is no URL when
 * `beside()` fails. `{ module, glue }` are promises, already handled (their failure is reported
 * by whoever awaits them).
 */
function __mcpStartCore(config, beside, importGlue, noUrl) {
  const url = __mcpFromPackage(__mcpModuleUrl(config.coreUrl, beside));
  const module = url
    ? __mcpFetchWasm(url, 'the core module', 'coreUrl', !config.coreUrl)
    : Promise.reject(__mcpLoadError(`the core module cannot be found: ${noUrl}.`));
  let glue;
  try {
    glue = Promise.resolve(importGlue());
  } catch (e) {
    glue = Promise.reject(e);
  }
  module.catch(() => {});
  glue.catch(() => {});
  return { module, glue };
}

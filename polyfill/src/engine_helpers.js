// The core's JS helpers the engine takes from its config, under the keys it reads them by
// (src/browser/setup.rs). Every core template hands this one object to install(), which
// passes it on. `callOptions` (call_options.js), `messageText` (message_text.js) and
// `registeredTool` (below) are required; without `messageGate` or `postEnvelope` (gates.js)
// or `formChanges` (form_changes.js) the engine does the same work at a higher cost; without
// `shadowRoots` (form_roots.js) forms in shadow trees are no tools; without `taskChannel`
// (below) it needs the platform's MessageChannel; without `standardSchema`
// (standard_schema.js) a zod schema serializes as the library's internals, and without
// `promptArguments` (the same file) a prompt's argsSchema is a TypeError; without
// `awaitSettled` (below) a page function's promise costs two closures made in wasm, and without
// `clonesAsJson` (json_clone.js) a tool's long object result is answered with a JSON.parse copy
// of its text. `createEmitter` (emitter.js) is required by an event transport given no emitter.

function __mcpEngineHelpers() {
  return {
    callOptions: __mcpCallOptions,
    messageGate: __mcpMessageGate,
    postEnvelope: __mcpPostEnvelope,
    messageText: __mcpMessageText,
    formChanges: __mcpFormChanges,
    shadowRoots: __mcpShadowRoots,
    taskChannel: __mcpTaskChannel,
    standardSchema: __mcpStandardSchema,
    promptArguments: __mcpPromptArguments,
    registeredTool: __mcpRegisteredTool,
    awaitSettled: __mcpAwait,
    clonesAsJson: __mcpClonesAsJson,
    createEmitter: __mcpCreateEmitter,
  };
}

/**
 * Waits for `value` (a thenable, taken as `Promise.resolve` takes it) and calls
 * `settled(n, true, value)` or `settled(n, false, reason)` (src/js/wait.rs): the core's one
 * function for every wait, where a `JsFuture` made two closures per wait in wasm. A
 * `Promise.resolve` that throws (a promise whose `constructor` getter throws) settles the
 * wait as rejected, from a microtask as any settlement comes.
 */
function __mcpAwait(value, n, settled) {
  let p;
  try {
    p = Promise.resolve(value);
  } catch (e) {
    queueMicrotask(() => settled(n, false, e));
    return;
  }
  p.then((v) => settled(n, true, v), (e) => settled(n, false, e));
}

/**
 * executeTool's first argument converted as WebIDL converts a `RegisteredTool` dictionary (its
 * members in lexicographic order, each read once, `description`, `name` and `origin` as
 * DOMStrings, `window` a Window), throwing the TypeError the conversion would. Then the tool's
 * name alone when the tool is `global`'s and of `origin` (the call runs here), else
 * `[name, origin, window]` (src/browser/webmcp/execute.rs, `which_tool`). Made from Rust, the
 * conversion was fifteen calls into JS and three strings copied into wasm memory.
 */
function __mcpRegisteredTool(tool, global, origin) {
  const present = tool !== null && (typeof tool === 'object' || typeof tool === 'function');
  if (!present && tool !== undefined && tool !== null) {
    throw new TypeError("Failed to execute 'executeTool' on 'ModelContext': parameter 1 is not an object.");
  }
  const member = (key) => {
    const v = present ? tool[key] : undefined;
    if (v === undefined) {
      throw new TypeError(`Failed to read the '${key}' property from 'RegisteredTool': Required member is undefined.`);
    }
    return v;
  };
  // (A template literal converts as DOMString does: ToString, a symbol a TypeError. The
  // description's string is not kept, but its conversion must run, and a minifier drops an
  // unused template literal (terser, swc): `join` converts each element the same way and
  // stays. tests/page/registered_tool.test.mjs minifies this file with each.)
  const description = member('description');
  if (typeof description !== 'string') [description].join();
  let name = member('name');
  if (typeof name !== 'string') name = `${name}`;
  let toolOrigin = member('origin');
  if (typeof toolOrigin !== 'string') toolOrigin = `${toolOrigin}`;
  const window = member('window');
  if (!__mcpIsWindow(window)) {
    throw new TypeError("Failed to read the 'window' property from 'RegisteredTool': The provided value is not of type 'Window'.");
  }
  return window === global && toolOrigin === origin ? name : [name, toolOrigin, window];
}

/** Whether `v` is a Window, of this realm or another document's (src/js/mod.rs `is_window`). */
function __mcpIsWindow(v) {
  try {
    if (typeof Window === 'function' && v instanceof Window) return true;
  } catch {
    // (a revoked proxy)
  }
  if (v === null || typeof v !== 'object') return false;
  try {
    return v.window === v && v.self === v;
  } catch {
    return false;
  }
}

/**
 * The channel the engine queues its tasks on (one message per task, each running port2's
 * onmessage once, in a task of its own; the engine keeps the tasks' order): the platform's
 * task scheduler where there is one (`scheduler.postTask`; in Chromium 156 an awaited task
 * costs about two thirds of an awaited MessageChannel message, 11 µs against 16, and
 * registerTool waits for one per call), else a MessageChannel raced against a
 * BroadcastChannel (__mcpRacedChannel), else a MessageChannel, else (Jest's jsdom
 * environment) zero-delay timers. The engine uses port1.postMessage() and port2.onmessage,
 * which the stand-ins provide.
 */
function __mcpTaskChannel() {
  const port2 = { onmessage: null };
  const run = () => port2.onmessage && port2.onmessage();
  const s = globalThis.scheduler;
  if (s && typeof s.postTask === 'function') {
    // What a task throws is reported, as an uncaught error of a message event would be; a
    // scheduler that refuses the task (a detached document's) runs nothing, as a detached
    // document's MessageChannel delivers nothing.
    const task = () => {
      try {
        run();
      } catch (e) {
        __mcpReport(e);
      }
    };
    const refused = () => {};
    return { port1: { postMessage: () => void s.postTask(task).catch(refused) }, port2 };
  }
  if (typeof MessageChannel === 'function') return __mcpRacedChannel(new MessageChannel());
  return { port1: { postMessage: () => setTimeout(run) }, port2 };
}

/**
 * `channel` (a MessageChannel) raced against a BroadcastChannel of a name no other context
 * knows, for an engine without a task scheduler: until one of them has delivered, each task
 * is posted on both; the first to deliver carries every task from then on (one message each,
 * as before: the ones it was given during the race included) and the other is closed, a
 * message of it still on its way running nothing. WebKit hands every MessageChannel message
 * to its network process and back (0.4 to 5 ms a message in WebKitGTK 2.50, where a
 * BroadcastChannel's takes 50 µs: registerTool waits for one per call); a Firefox without
 * the scheduler is the other way round (30 µs against 500). Without BroadcastChannel, or
 * where one cannot be made, the MessageChannel alone. Setting port2.onmessage to null (the
 * engine's drop) closes both.
 */
function __mcpRacedChannel(channel) {
  let listener = null;
  let sender;
  let receiver;
  try {
    const random = globalThis.crypto && typeof crypto.getRandomValues === 'function'
      ? Array.from(crypto.getRandomValues(new Uint32Array(4)), (n) => n.toString(36)).join('.')
      : `${Math.random()}.${Math.random()}.${Date.now()}`;
    const name = `modelcontext-polyfill task ${random}`;
    sender = new BroadcastChannel(name);
    receiver = new BroadcastChannel(name);
  } catch {
    sender?.close();
    return channel; // (no BroadcastChannel, or one refused here)
  }
  // 'race' until a message arrives, then 'port' (the MessageChannel won) or 'broadcast'.
  let mode = 'race';
  const closeAll = () => {
    channel.port1.close();
    channel.port2.close();
    sender.close();
    receiver.close();
  };
  const arrived = (via) => () => {
    if (mode === 'race') {
      mode = via;
      if (via === 'port') {
        sender.close();
        receiver.close();
      } else {
        channel.port1.close();
        channel.port2.close();
      }
    }
    if (mode === via && listener) listener();
  };
  channel.port2.onmessage = arrived('port');
  receiver.onmessage = arrived('broadcast');
  const port2 = {
    get onmessage() {
      return listener;
    },
    set onmessage(f) {
      listener = f;
      if (f == null) closeAll();
    },
  };
  const post = () => {
    if (mode !== 'broadcast') channel.port1.postMessage(undefined);
    if (mode !== 'port') sender.postMessage(undefined);
  };
  return { port1: { postMessage: post }, port2 };
}

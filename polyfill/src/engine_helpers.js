// The core's JS helpers the engine takes from its config, under the keys it reads them by
// (src/browser/setup.rs). Every core template hands this one object to install(), which
// passes it on. `callOptions` (call_options.js) and `messageText` (message_text.js) are
// required; without `messageGate` or `postEnvelope` (gates.js) or `formChanges`
// (form_changes.js) the engine does the same work at a higher cost; without `shadowRoots`
// (form_roots.js) forms in shadow trees are no tools; without `taskChannel`
// (below) it needs the platform's MessageChannel; without `standardSchema`
// (standard_schema.js) a zod schema serializes as the library's internals, and without
// `promptArguments` (the same file) a prompt's argsSchema is a TypeError.

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
  };
}

/**
 * The channel the engine queues its tasks on (one message per task, each running port2's
 * onmessage once, in a task of its own; the engine keeps the tasks' order): the platform's
 * task scheduler where there is one (`scheduler.postTask`; in Chromium 156 an awaited task
 * costs about two thirds of an awaited MessageChannel message, 11 µs against 16, and
 * registerTool waits for one per call), else a MessageChannel, else (Jest's jsdom
 * environment) zero-delay timers. The engine uses port1.postMessage() and
 * port2.onmessage, which the first and last are stand-ins for.
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
  if (typeof MessageChannel === 'function') return new MessageChannel();
  return { port1: { postMessage: () => setTimeout(run) }, port2 };
}

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
 * The channel the engine queues its tasks on (one message per task): a MessageChannel, or
 * where there is none (Jest's jsdom environment) a stand-in whose port1.postMessage() runs
 * port2.onmessage in a zero-delay timer, which keeps the order.
 */
function __mcpTaskChannel() {
  if (typeof MessageChannel === 'function') return new MessageChannel();
  const port2 = { onmessage: null };
  const port1 = { postMessage: () => setTimeout(() => port2.onmessage && port2.onmessage()) };
  return { port1, port2 };
}

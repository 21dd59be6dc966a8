// The core's JS helpers the engine takes from its config, under the keys it reads them by
// (src/browser/setup.rs). Every core template hands this one object to install(), which
// passes it on. `callOptions` (call_options.js) and `messageText` (message_text.js) are
// required; without `messageGate` or `postEnvelope` (gates.js) or `formChanges`
// (form_changes.js) the engine does the same work at a higher cost.

function __mcpEngineHelpers() {
  return {
    callOptions: __mcpCallOptions,
    messageGate: __mcpMessageGate,
    postEnvelope: __mcpPostEnvelope,
    messageText: __mcpMessageText,
    formChanges: __mcpFormChanges,
  };
}

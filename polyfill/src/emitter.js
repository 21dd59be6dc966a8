// The event transport's built-in emitter (src/transport/emitter.rs), made here in JS: a page's
// handlers usually hold the emitter themselves (a client that listens on it also emits on it),
// and a handler list kept in wasm made each handler a root of the module's reference table, so
// that cycle was never collected: every session connected and disconnected on a built-in
// emitter kept it, its client and its handlers for the page's life. Here the emitter, its list
// and its handlers are garbage together once nothing else holds them.

/**
 * A new emitter: `{ emit(event, data), on(event, handler), off(event, handler) }`. `emit` calls
 * the handlers of `event` in the order they were added, each once (adding a handler twice keeps
 * one), on a copy of the list (handlers may add or remove handlers); what a handler throws is
 * reported (`reportError`) and does not stop the others. An `event` that is not a string, or a
 * handler that is not a function, is not added; `emit` and `off` of a non-string event address
 * the empty string's.
 */
function __mcpCreateEmitter() {
  /** `[event, handler]` pairs, in the order added. */
  let handlers = [];
  const type = (event) => (typeof event === 'string' ? event : '');
  return {
    emit(event, data) {
      const t = type(event);
      for (const [e, handler] of handlers.slice()) {
        if (e !== t) continue;
        try {
          handler.call(undefined, data);
        } catch (error) {
          if (typeof reportError === 'function') reportError(error);
          else console.error(error);
        }
      }
    },
    on(event, handler) {
      if (typeof event !== 'string' || typeof handler !== 'function') return;
      if (!handlers.some(([e, h]) => e === event && h === handler)) handlers.push([event, handler]);
    },
    off(event, handler) {
      const t = type(event);
      handlers = handlers.filter(([e, h]) => !(e === t && h === handler));
    },
  };
}

// The options object a page callback receives beside its input (src/browser/js_handler.rs
// says what it carries). `signal` is its one own enumerable property; the extras are
// non-enumerable, reachable by name. The object's functions (reportProgress, log, sendRequest,
// and for a call that may run as a task setStatus and getTaskId) live on two shared
// prototypes as getters that make the function when first read, bound to the call, so they
// work destructured too; they all call the core's one dispatcher with the call's number (no
// closure per call: src/browser/js_handler.rs).
//
//   const make = __mcpCallOptions(requestUserInteraction, dispatch);
//   make(signal, call, inTask, requestId, meta, inputResponses, requestState)
//   dispatch(call, kind, a, b, c): kind 0 reportProgress, 1 log, 2 sendRequest, 3 setStatus, 4 getTaskId

function __mcpCallOptions(requestUserInteraction, dispatch) {
  const CALL = Symbol('modelcontext-polyfill call');
  const hidden = (o, name, value) =>
    Object.defineProperty(o, name, { value, writable: true, configurable: true });
  const lazy = (proto, name, make) =>
    Object.defineProperty(proto, name, {
      configurable: true,
      get() {
        const call = this[CALL];
        if (typeof call !== 'number') return undefined;
        const f = make(call);
        hidden(this, name, f);
        return f;
      },
    });
  const base = {};
  hidden(base, 'requestUserInteraction', requestUserInteraction);
  lazy(base, 'reportProgress', (n) => (progress, total, message) => dispatch(n, 0, progress, total, message));
  lazy(base, 'log', (n) => (level, data, logger) => dispatch(n, 1, level, data, logger));
  lazy(base, 'sendRequest', (n) => (method, params) => dispatch(n, 2, method, params));
  const task = Object.create(base);
  lazy(task, 'setStatus', (n) => (message) => dispatch(n, 3, message));
  lazy(task, 'getTaskId', (n) => () => dispatch(n, 4));
  return (signal, call, inTask, requestId, meta, inputResponses, requestState) => {
    const o = Object.create(inTask ? task : base);
    o.signal = signal;
    Object.defineProperty(o, CALL, { value: call });
    if (requestId !== undefined) hidden(o, 'requestId', requestId);
    if (meta !== undefined) hidden(o, '_meta', meta);
    if (inputResponses !== undefined) hidden(o, 'inputResponses', inputResponses);
    if (requestState !== undefined) hidden(o, 'requestState', requestState);
    return o;
  };
}

// The options object a page callback receives beside its input (src/browser/js_handler.rs
// says what it carries). `signal` is its one own enumerable property; the extras are
// non-enumerable, reachable by name. The object's functions (reportProgress, log, sendRequest,
// and for a call that may run as a task setStatus and getTaskId) live on two shared
// prototypes as getters that make the function when first read, bound to the call, so they
// work destructured too; each call hands over one dispatcher of the core's instead of one
// closure per function.
//
//   const make = __mcpCallOptions(requestUserInteraction);
//   make(signal, dispatch, inTask, requestId, meta, inputResponses, requestState)
//   dispatch(kind, a, b, c): kind 0 reportProgress, 1 log, 2 sendRequest, 3 setStatus, 4 getTaskId

function __mcpCallOptions(requestUserInteraction) {
  const CALL = Symbol('modelcontext-polyfill call');
  const hidden = (o, name, value) =>
    Object.defineProperty(o, name, { value, writable: true, configurable: true });
  const lazy = (proto, name, make) =>
    Object.defineProperty(proto, name, {
      configurable: true,
      get() {
        const dispatch = this[CALL];
        if (typeof dispatch !== 'function') return undefined;
        const f = make(dispatch);
        hidden(this, name, f);
        return f;
      },
    });
  const base = {};
  hidden(base, 'requestUserInteraction', requestUserInteraction);
  lazy(base, 'reportProgress', (d) => (progress, total, message) => d(0, progress, total, message));
  lazy(base, 'log', (d) => (level, data, logger) => d(1, level, data, logger));
  lazy(base, 'sendRequest', (d) => (method, params) => d(2, method, params));
  const task = Object.create(base);
  lazy(task, 'setStatus', (d) => (message) => d(3, message));
  lazy(task, 'getTaskId', (d) => () => d(4));
  return (signal, dispatch, inTask, requestId, meta, inputResponses, requestState) => {
    const o = Object.create(inTask ? task : base);
    o.signal = signal;
    Object.defineProperty(o, CALL, { value: dispatch });
    if (requestId !== undefined) hidden(o, 'requestId', requestId);
    if (meta !== undefined) hidden(o, '_meta', meta);
    if (inputResponses !== undefined) hidden(o, 'inputResponses', inputResponses);
    if (requestState !== undefined) hidden(o, 'requestState', requestState);
    return o;
  };
}

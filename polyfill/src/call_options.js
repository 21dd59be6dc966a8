// The options object a page callback receives beside its input (src/browser/js_handler.rs
// says what it carries). `signal` is its one own enumerable property; the extras are
// non-enumerable, reachable by name. The object's functions (reportProgress, log, sendRequest,
// sendNotification, mcpReq, and for a call that may run as a task setStatus and getTaskId) live
// on two shared prototypes as getters that make the function when first read, bound to the call,
// so they work destructured too; they all call the core's one dispatcher with the call's number
// (no closure per call: src/browser/js_handler.rs).
//
// `signal` too is made when first read, unless the call brings its own: most tools never
// read it, and an AbortController per call was a Blink object per call for the garbage
// collector. It is an own enumerable accessor until then (spread and Object.keys see it, and
// reading it makes it), then a plain data property. A call aborted before its signal is read
// remembers the reason, and the signal is made aborted with it.
//
//   const { make, abort } = __mcpCallOptions(requestUserInteraction, dispatch);
//   make(signal, call, inTask, requestId, meta, inputResponses, requestState)
//     signal: an AbortSignal to hand over as is, or undefined to make one when first read
//   abort(options, reason): aborts the signal of options that `make` made (undefined signal)
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
        const f = make(call, this);
        hidden(this, name, f);
        return f;
      },
    });
  // The signal: made on first read (see above). An options object the page made
  // non-extensible keeps its controller in `stuck` instead.
  const CONTROLLER = Symbol('modelcontext-polyfill signal');
  const ABORTED = Symbol('modelcontext-polyfill abort reason');
  const stuck = new WeakMap();
  const asData = (o, signal) =>
    Object.defineProperty(o, 'signal', { value: signal, writable: true, enumerable: true, configurable: true });
  const controllerOf = (o) => o[CONTROLLER] || stuck.get(o);
  const lazySignal = {
    configurable: true,
    enumerable: true,
    get() {
      let c = controllerOf(this);
      if (c === undefined) {
        c = new AbortController();
        if (ABORTED in this) c.abort(this[ABORTED]);
        if (Object.isExtensible(this)) {
          hidden(this, CONTROLLER, c);
          asData(this, c.signal);
        } else {
          stuck.set(this, c);
        }
      }
      return c.signal;
    },
    set(value) {
      asData(this, value);
    },
  };
  const abort = (o, reason) => {
    const c = controllerOf(o);
    if (c !== undefined) {
      c.abort(reason);
    } else if (!(ABORTED in o)) {
      if (Object.isExtensible(o)) {
        hidden(o, ABORTED, reason);
      } else {
        const made = new AbortController();
        made.abort(reason);
        stuck.set(o, made);
      }
    }
  };
  const base = {};
  hidden(base, 'requestUserInteraction', requestUserInteraction);
  lazy(base, 'reportProgress', (n) => (progress, total, message) => dispatch(n, 0, progress, total, message));
  lazy(base, 'log', (n) => (level, data, logger) => dispatch(n, 1, level, data, logger));
  // sendRequest(method, params), or the MCP TypeScript SDK's form, sendRequest({ method,
  // params }, resultSchema, options) (v1's extra.sendRequest; v2's ctx.mcpReq.send), so a
  // handler ported from the SDK runs as it is. The SDK's schema and options are not used: the
  // result is the client's, as it answered.
  lazy(base, 'sendRequest', (n) => (method, params) => {
    if (method !== null && typeof method === 'object' && typeof method.method === 'string') {
      ({ method, params } = method);
    }
    return dispatch(n, 2, method, params);
  });
  // The MCP TypeScript SDK v1's extra.sendNotification({ method, params }) for the two
  // notifications a call sends about itself: progress (the call's own token, whatever
  // params.progressToken says) and log messages. Resolves when handed over, as the SDK's does.
  lazy(base, 'sendNotification', (_, o) => (notification) => {
    const { method, params = {} } = notification !== null && typeof notification === 'object' ? notification : {};
    if (method === 'notifications/progress') {
      o.reportProgress(params.progress, params.total, params.message);
    } else if (method === 'notifications/message') {
      o.log(params.level, params.data, params.logger);
    } else {
      return Promise.reject(new TypeError(
        `sendNotification: a call sends notifications/progress or notifications/message, not ${JSON.stringify(String(method))}; ` +
          'send other notifications with the session\'s notify(method, params)',
      ));
    }
    return Promise.resolve();
  });
  // The MCP TypeScript SDK v2's ctx.mcpReq (a handler's second argument there), made of the
  // options' own members: the request's id, _meta and signal, send and notify (as above), log,
  // and the two requests it names (elicitInput, requestSampling).
  lazy(base, 'mcpReq', (_, o) => Object.freeze({
    get id() { return o.requestId; },
    get _meta() { return o._meta; },
    get signal() { return o.signal; },
    get inputResponses() { return o.inputResponses; },
    requestState: () => o.requestState,
    send: (request) => o.sendRequest(request),
    notify: (notification) => o.sendNotification(notification),
    log: (level, data, logger) => (o.log(level, data, logger), Promise.resolve()),
    elicitInput: (params) => o.sendRequest('elicitation/create', params),
    requestSampling: (params) => o.sendRequest('sampling/createMessage', params),
  }));
  const task = Object.create(base);
  lazy(task, 'setStatus', (n) => (message) => dispatch(n, 3, message));
  lazy(task, 'getTaskId', (n) => () => dispatch(n, 4));
  const make = (signal, call, inTask, requestId, meta, inputResponses, requestState) => {
    const o = Object.create(inTask ? task : base);
    if (signal === undefined) Object.defineProperty(o, 'signal', lazySignal);
    else o.signal = signal;
    Object.defineProperty(o, CALL, { value: call });
    if (requestId !== undefined) hidden(o, 'requestId', requestId);
    if (meta !== undefined) hidden(o, '_meta', meta);
    if (inputResponses !== undefined) hidden(o, 'inputResponses', inputResponses);
    if (requestState !== undefined) hidden(o, 'requestState', requestState);
    return o;
  };
  return { make, abort };
}

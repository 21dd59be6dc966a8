// The W3C WebMCP conformance cases, written once and run against any `document.modelContext`:
// the polyfill's (webmcp.test.mjs) and native Chromium's (webmcp.test.mjs, `nativeWebMCP: true`).
//
// Each case is `{ name, run, expect }`:
//   run     an async function evaluated *in the page* (so it must be self-contained: it may use
//           only page globals and the `__t` helpers below) that returns a JSON-able record of
//           what it observed;
//   expect  the record spec/WEBMCP.md and webmcp.idl call for. The polyfill must produce exactly
//           this; native Chromium must produce it too, except for the differences listed (with
//           their reasons) in webmcp.test.mjs and tests/page/NATIVE_DIFFERENCES.md.
// Every case runs in a fresh page, so tool names never collide between cases.

/** Helpers installed in the page as `window.__t` before a case runs. */
export const HELPERS = `
window.__t = {
  // An exception as data: its name and the name of its constructor.
  err(e) {
    if (e === null || (typeof e !== 'object' && typeof e !== 'function')) return { value: String(e) };
    return { name: e.name, ctor: e.constructor && e.constructor.name };
  },
  // Calls fn (which should return a promise) and reports how it failed or what it resolved to:
  // { sync: true, error } for a synchronous throw, else { promise, ok, value | error }.
  async outcome(fn) {
    let p;
    try { p = fn(); } catch (e) { return { sync: true, error: __t.err(e) }; }
    const promise = p instanceof Promise;
    try { const value = await p; return { promise, ok: true, value: value === undefined ? 'undefined' : value }; }
    catch (e) { return { promise, ok: false, error: __t.err(e) }; }
  },
  // A minimal valid tool.
  tool(name, extra) {
    return Object.assign({ name, description: 'A tool named ' + name, execute: () => 'ok' }, extra || {});
  },
  // Lets queued tasks run.
  tick(ms) { return new Promise((r) => setTimeout(r, ms || 0)); },
  // Waits (up to 2 s) until f() is true: for what a slow machine does late.
  async until(f) {
    for (const end = performance.now() + 2000; !f() && performance.now() < end;) await __t.tick(10);
  },
  async names(mc) { return (await mc.getTools()).map((t) => t.name); },
  mc() { return document.modelContext; },
};
`;

/** @type {{ name: string, run: () => Promise<object>, expect: object, skipNative?: string }[]} */
export const CASES = [
  // ------------------------------------------------------------------------------------------
  // The interface objects
  {
    name: 'interface: ModelContext',
    run: async () => {
      const mc = document.modelContext;
      let ctor;
      try { new ModelContext(); ctor = 'constructed'; } catch (e) { ctor = __t.err(e); }
      let call;
      try { ModelContext(); call = 'called'; } catch (e) { call = __t.err(e); }
      const proto = ModelContext.prototype;
      const acc = (k) => { const d = Object.getOwnPropertyDescriptor(proto, k); return !!(d && d.get && d.set && d.enumerable && d.configurable); };
      return {
        typeofInterface: typeof ModelContext,
        ctor, call,
        sameObject: document.modelContext === mc,
        onDocumentPrototype: 'modelContext' in Document.prototype && !Object.prototype.hasOwnProperty.call(document, 'modelContext'),
        instanceOfModelContext: mc instanceof ModelContext,
        instanceOfEventTarget: mc instanceof EventTarget,
        protoChain: Object.getPrototypeOf(proto) === EventTarget.prototype,
        toStringTag: Object.prototype.toString.call(mc),
        ownKeys: Reflect.ownKeys(mc).map(String),
        lengths: [proto.registerTool.length, proto.getTools.length, proto.executeTool.length],
        operationsEnumerable: ['registerTool', 'getTools', 'executeTool'].map((k) => Object.getOwnPropertyDescriptor(proto, k).enumerable),
        handlerAttributes: ['ontoolchange', 'ontoolactivated', 'ontoolcancel'].map(acc),
        illegalInvocation: await __t.outcome(() => proto.registerTool.call({}, __t.tool('x'))),
        illegalInvocationGetTools: await __t.outcome(() => proto.getTools.call({})),
      };
    },
    expect: {
      typeofInterface: 'function',
      ctor: { name: 'TypeError', ctor: 'TypeError' },
      call: { name: 'TypeError', ctor: 'TypeError' },
      sameObject: true,
      onDocumentPrototype: true,
      instanceOfModelContext: true,
      instanceOfEventTarget: true,
      protoChain: true,
      toStringTag: '[object ModelContext]',
      ownKeys: [],
      lengths: [1, 0, 1],
      operationsEnumerable: [true, true, true],
      handlerAttributes: [true, true, true],
      illegalInvocation: { promise: true, ok: false, error: { name: 'TypeError', ctor: 'TypeError' } },
      illegalInvocationGetTools: { promise: true, ok: false, error: { name: 'TypeError', ctor: 'TypeError' } },
    },
  },
  {
    name: 'interface: ToolActivatedEvent and ToolCancelEvent',
    run: async () => {
      const out = {};
      for (const name of ['ToolActivatedEvent', 'ToolCancelEvent']) {
        const C = window[name];
        const e0 = new C('x');
        const e1 = new C('y', { toolName: 't', bubbles: true, cancelable: true, composed: true });
        let noArgs;
        try { new C(); noArgs = 'constructed'; } catch (e) { noArgs = __t.err(e); }
        let callNoNew;
        try { C('x'); callNoNew = 'called'; } catch (e) { callNoNew = __t.err(e); }
        const d = Object.getOwnPropertyDescriptor(C.prototype, 'toolName');
        let brand;
        try { d.get.call(new Event('x')); brand = 'read'; } catch (e) { brand = __t.err(e); }
        out[name] = {
          typeofInterface: typeof C,
          length: C.length,
          instanceOfEvent: e0 instanceof Event,
          defaults: [e0.type, e0.toolName, e0.bubbles, e0.cancelable, e0.composed, e0.isTrusted],
          init: [e1.type, e1.toolName, e1.bubbles, e1.cancelable, e1.composed],
          converted: [new C('z', { toolName: 5 }).toolName, new C('z', { toolName: undefined }).toolName, new C('z', { toolName: null }).toolName],
          noArgs, callNoNew,
          toolNameGetter: !!(d && d.get && !d.set && d.enumerable),
          ownKeys: Reflect.ownKeys(e0).filter((k) => k !== 'isTrusted').map(String),
          brand,
          toStringTag: Object.prototype.toString.call(e0),
          dispatchable: document.modelContext.dispatchEvent(new C('custom')),
        };
      }
      return out;
    },
    expect: Object.fromEntries(['ToolActivatedEvent', 'ToolCancelEvent'].map((n) => [n, {
      typeofInterface: 'function',
      length: 1,
      instanceOfEvent: true,
      defaults: ['x', '', false, false, false, false],
      init: ['y', 't', true, true, true],
      converted: ['5', '', 'null'],
      noArgs: { name: 'TypeError', ctor: 'TypeError' },
      callNoNew: { name: 'TypeError', ctor: 'TypeError' },
      toolNameGetter: true,
      ownKeys: [],
      brand: { name: 'TypeError', ctor: 'TypeError' },
      toStringTag: `[object ${n}]`,
      dispatchable: true,
    }])),
  },

  // ------------------------------------------------------------------------------------------
  // registerTool
  {
    name: 'registerTool: resolves to undefined after toolchange',
    run: async () => {
      const mc = document.modelContext;
      const log = [];
      let event;
      mc.addEventListener('toolchange', (e) => { log.push('toolchange'); event = e; });
      const p = mc.registerTool(__t.tool('a'));
      log.push('returned');
      const isPromise = p instanceof Promise;
      const v = await p;
      log.push('resolved');
      await __t.tick(10);
      return {
        isPromise,
        value: v === undefined ? 'undefined' : v,
        log,
        event: [event.constructor.name, event.type, event.bubbles, event.cancelable, event.target === mc, event.isTrusted],
        names: await __t.names(mc),
      };
    },
    expect: {
      isPromise: true,
      value: 'undefined',
      log: ['returned', 'toolchange', 'resolved'],
      event: ['Event', 'toolchange', false, false, true, false],
      names: ['a'],
    },
  },
  {
    name: 'registerTool: duplicate name → InvalidStateError',
    run: async () => {
      const mc = document.modelContext;
      await mc.registerTool(__t.tool('dup'));
      let changes = 0;
      mc.addEventListener('toolchange', () => changes++);
      const r = await __t.outcome(() => mc.registerTool(__t.tool('dup', { description: 'second' })));
      await __t.tick(10);
      return { r, changes, tools: (await mc.getTools()).map((t) => [t.name, t.description]) };
    },
    expect: {
      r: { promise: true, ok: false, error: { name: 'InvalidStateError', ctor: 'DOMException' } },
      changes: 0,
      tools: [['dup', 'A tool named dup']],
    },
  },
  {
    name: 'registerTool: empty name or description → InvalidStateError',
    run: async () => {
      const mc = document.modelContext;
      return {
        emptyName: await __t.outcome(() => mc.registerTool(__t.tool(''))),
        emptyDescription: await __t.outcome(() => mc.registerTool(__t.tool('x', { description: '' }))),
        names: await __t.names(mc),
      };
    },
    expect: {
      emptyName: { promise: true, ok: false, error: { name: 'InvalidStateError', ctor: 'DOMException' } },
      emptyDescription: { promise: true, ok: false, error: { name: 'InvalidStateError', ctor: 'DOMException' } },
      names: [],
    },
  },
  {
    name: 'registerTool: the name rule (≤ 128 of A-Z a-z 0-9 _ - .)',
    run: async () => {
      const mc = document.modelContext;
      const names = ['bad name!', 'a'.repeat(129), 'ünï', 'a/b', 'a:b', 'tab\t', 'a'.repeat(128), 'a.b-c_D9', '.', '9'];
      const out = {};
      for (const n of names) {
        const r = await __t.outcome(() => mc.registerTool(__t.tool(n)));
        out[n.length > 20 ? `${n[0]}×${n.length}` : n] = r.ok ? 'ok' : r.error.name;
      }
      return out;
    },
    expect: {
      'bad name!': 'InvalidStateError',
      'a×129': 'InvalidStateError',
      'ünï': 'InvalidStateError',
      'a/b': 'InvalidStateError',
      'a:b': 'InvalidStateError',
      'tab\t': 'InvalidStateError',
      'a×128': 'ok',
      'a.b-c_D9': 'ok',
      '.': 'ok',
      '9': 'ok',
    },
  },
  {
    name: 'registerTool: inputSchema serialization failures',
    run: async () => {
      const mc = document.modelContext;
      const circular = { type: 'object' };
      circular.self = circular;
      const thrown = new RangeError('from toJSON');
      const out = {
        toJSONUndefined: await __t.outcome(() => mc.registerTool(__t.tool('a', { inputSchema: { toJSON() { return undefined; } } }))),
        toJSONFunction: await __t.outcome(() => mc.registerTool(__t.tool('b', { inputSchema: { toJSON() { return () => 1; } } }))),
        functionSchema: await __t.outcome(() => mc.registerTool(__t.tool('c', { inputSchema: function () {} }))),
        circular: await __t.outcome(() => mc.registerTool(__t.tool('d', { inputSchema: circular }))),
        bigint: await __t.outcome(() => mc.registerTool(__t.tool('e', { inputSchema: { type: 'object', default: 10n } }))),
        notAnObject: await __t.outcome(() => mc.registerTool(__t.tool('f', { inputSchema: 'string' }))),
      };
      let caught;
      try { await mc.registerTool(__t.tool('g', { inputSchema: { toJSON() { throw thrown; } } })); } catch (e) { caught = e; }
      out.throwingToJSONIsThatException = caught === thrown;
      out.names = await __t.names(mc);
      return out;
    },
    expect: {
      toJSONUndefined: { promise: true, ok: false, error: { name: 'TypeError', ctor: 'TypeError' } },
      toJSONFunction: { promise: true, ok: false, error: { name: 'TypeError', ctor: 'TypeError' } },
      functionSchema: { promise: true, ok: false, error: { name: 'TypeError', ctor: 'TypeError' } },
      circular: { promise: true, ok: false, error: { name: 'TypeError', ctor: 'TypeError' } },
      bigint: { promise: true, ok: false, error: { name: 'TypeError', ctor: 'TypeError' } },
      notAnObject: { promise: true, ok: false, error: { name: 'TypeError', ctor: 'TypeError' } },
      throwingToJSONIsThatException: true,
      names: [],
    },
  },
  {
    name: 'registerTool: the stored schema is the JSON string taken at registration',
    run: async () => {
      const mc = document.modelContext;
      const schema = { type: 'object', properties: { q: { type: 'string' } }, skip: undefined, f() {} };
      await mc.registerTool(__t.tool('a', { inputSchema: schema }));
      schema.properties.q.type = 'number';
      await mc.registerTool(__t.tool('b', { inputSchema: { toJSON() { return { type: 'object', from: 'toJSON' }; } } }));
      await mc.registerTool(__t.tool('c', { inputSchema: [1, 2] }));
      await mc.registerTool(__t.tool('d', { inputSchema: {} }));
      const tools = await mc.getTools();
      return { schemas: tools.map((t) => [t.name, JSON.stringify(t.inputSchema)]) };
    },
    expect: {
      schemas: [
        ['a', '{"type":"object","properties":{"q":{"type":"string"}}}'],
        ['b', '{"type":"object","from":"toJSON"}'],
        ['c', '[1,2]'],
        ['d', '{}'],
      ],
    },
  },
  {
    name: 'registerTool: the order of the checks',
    run: async () => {
      const mc = document.modelContext;
      await mc.registerTool(__t.tool('taken'));
      const bad = { toJSON() { return undefined; } };
      const aborted = AbortSignal.abort(new Error('reason'));
      const e = (r) => (r.ok ? 'ok' : r.error.name || r.error.value);
      return {
        duplicateAndBadSchema: e(await __t.outcome(() => mc.registerTool(__t.tool('taken', { inputSchema: bad })))),
        duplicateAndEmptyDescription: e(await __t.outcome(() => mc.registerTool(__t.tool('taken', { description: '' })))),
        badNameAndBadSchema: e(await __t.outcome(() => mc.registerTool(__t.tool('bad name', { inputSchema: bad })))),
        badSchemaAndAborted: e(await __t.outcome(() => mc.registerTool(__t.tool('x', { inputSchema: bad }), { signal: aborted }))),
        abortedAndExposedTo: e(await __t.outcome(() => mc.registerTool(__t.tool('x'), { signal: aborted, exposedTo: ['http://example.com'] }))),
        badSchemaAndExposedTo: e(await __t.outcome(() => mc.registerTool(__t.tool('x', { inputSchema: bad }), { exposedTo: ['http://example.com'] }))),
        duplicateAndAborted: e(await __t.outcome(() => mc.registerTool(__t.tool('taken'), { signal: aborted }))),
        names: await __t.names(mc),
      };
    },
    expect: {
      duplicateAndBadSchema: 'InvalidStateError',
      duplicateAndEmptyDescription: 'InvalidStateError',
      badNameAndBadSchema: 'InvalidStateError',
      badSchemaAndAborted: 'TypeError',
      abortedAndExposedTo: 'Error',
      badSchemaAndExposedTo: 'TypeError',
      duplicateAndAborted: 'InvalidStateError',
      names: ['taken'],
    },
  },
  {
    name: 'registerTool: dictionary conversion failures',
    run: async () => {
      const mc = document.modelContext;
      const o = (f) => __t.outcome(f).then((r) => (r.sync ? `sync ${r.error.name}` : r.ok ? 'ok' : r.error.name));
      return {
        noArguments: await o(() => mc.registerTool()),
        null: await o(() => mc.registerTool(null)),
        number: await o(() => mc.registerTool(5)),
        empty: await o(() => mc.registerTool({})),
        noName: await o(() => mc.registerTool({ description: 'd', execute() {} })),
        noDescription: await o(() => mc.registerTool({ name: 'n', execute() {} })),
        noExecute: await o(() => mc.registerTool({ name: 'n', description: 'd' })),
        executeNotFunction: await o(() => mc.registerTool({ name: 'n', description: 'd', execute: 5 })),
        annotationsNotObject: await o(() => mc.registerTool(__t.tool('n', { annotations: 5 }))),
        optionsNotObject: await o(() => mc.registerTool(__t.tool('n'), 5)),
        signalNotSignal: await o(() => mc.registerTool(__t.tool('n'), { signal: {} })),
        exposedToNotSequence: await o(() => mc.registerTool(__t.tool('n'), { exposedTo: 5 })),
        nameConverted: await o(() => mc.registerTool({ name: { toString() { return 'conv'; } }, description: 'd', execute() {} })),
        names: await __t.names(mc),
      };
    },
    expect: {
      noArguments: 'TypeError',
      null: 'TypeError',
      number: 'TypeError',
      empty: 'TypeError',
      noName: 'TypeError',
      noDescription: 'TypeError',
      noExecute: 'TypeError',
      executeNotFunction: 'TypeError',
      annotationsNotObject: 'TypeError',
      optionsNotObject: 'TypeError',
      signalNotSignal: 'TypeError',
      exposedToNotSequence: 'TypeError',
      nameConverted: 'ok',
      names: ['conv'],
    },
  },
  {
    name: 'registerTool: an already-aborted signal rejects with its reason',
    run: async () => {
      const mc = document.modelContext;
      let changes = 0;
      mc.addEventListener('toolchange', () => changes++);
      const reason = new Error('why');
      let caught;
      try { await mc.registerTool(__t.tool('a'), { signal: AbortSignal.abort(reason) }); } catch (e) { caught = e; }
      let caughtDefault;
      try { await mc.registerTool(__t.tool('b'), { signal: AbortSignal.abort() }); } catch (e) { caughtDefault = e; }
      let caughtString;
      try { await mc.registerTool(__t.tool('c'), { signal: AbortSignal.abort('str') }); } catch (e) { caughtString = e; }
      await __t.tick(10);
      return { same: caught === reason, defaultReason: __t.err(caughtDefault), caughtString, changes, names: await __t.names(mc) };
    },
    expect: {
      same: true,
      defaultReason: { name: 'AbortError', ctor: 'DOMException' },
      caughtString: 'str',
      changes: 0,
      names: [],
    },
  },
  {
    name: 'registerTool: abort before the promise settles',
    run: async () => {
      const mc = document.modelContext;
      const log = [];
      mc.addEventListener('toolchange', () => log.push('toolchange'));
      const ac = new AbortController();
      const reason = new Error('changed my mind');
      const p = mc.registerTool(__t.tool('a'), { signal: ac.signal });
      ac.abort(reason);
      log.push('aborted');
      let settled;
      try { await p; settled = 'resolved'; } catch (e) { settled = e === reason ? 'rejected with the reason' : __t.err(e); }
      await __t.until(() => log.length >= 3);
      await __t.tick(10);
      const logged = [...log];
      const names = await __t.names(mc);
      const again = (await __t.outcome(() => mc.registerTool(__t.tool('a')))).ok;
      return { settled, log: logged, names, again };
    },
    expect: {
      settled: 'rejected with the reason',
      log: ['aborted', 'toolchange', 'toolchange'],
      names: [],
      again: true,
    },
  },
  {
    name: 'registerTool: abort after registration unregisters and fires toolchange',
    run: async () => {
      const mc = document.modelContext;
      const ac = new AbortController();
      await mc.registerTool(__t.tool('a'), { signal: ac.signal });
      await mc.registerTool(__t.tool('b'));
      const before = await __t.names(mc);
      let changes = 0;
      mc.addEventListener('toolchange', () => changes++);
      ac.abort();
      const immediately = await __t.names(mc);
      await __t.tick(10);
      const after = await __t.names(mc);
      ac.abort();
      await __t.tick(10);
      return { before, immediately, after, changes };
    },
    expect: { before: ['a', 'b'], immediately: ['b'], after: ['b'], changes: 1 },
  },
  {
    name: 'registerTool: one signal for several tools unregisters each of them',
    run: async () => {
      const mc = document.modelContext;
      const ac = new AbortController();
      await mc.registerTool(__t.tool('a'), { signal: ac.signal });
      await mc.registerTool(__t.tool('b'));
      await mc.registerTool(__t.tool('c'), { signal: ac.signal });
      await mc.registerTool(__t.tool('d'), { signal: ac.signal });
      const before = await __t.names(mc);
      ac.abort();
      await __t.tick(10);
      return { before, after: await __t.names(mc) };
    },
    expect: { before: ['a', 'b', 'c', 'd'], after: ['b'] },
  },
  {
    name: 'registerTool: exposedTo entries must be potentially trustworthy URLs',
    run: async () => {
      const mc = document.modelContext;
      const entries = ['http://example.com', 'https://example.com', 'http://localhost:8080', 'http://127.0.0.1:1', 'not a url', '', 'ws://example.com', 'wss://example.com/x', 'file:///tmp/x', 'data:text/plain,x', 'http://sub.localhost', 'http://[::1]:80', 'about:blank', 'blob:https://example.com/uuid'];
      const out = {};
      let i = 0;
      for (const e of entries) {
        const r = await __t.outcome(() => mc.registerTool(__t.tool(`t${i++}`), { exposedTo: [e] }));
        out[e || '(empty)'] = r.ok ? 'ok' : r.error.name;
      }
      out.mixed = (await __t.outcome(() => mc.registerTool(__t.tool('m'), { exposedTo: ['https://a.example', 'http://b.example'] }))).error?.name;
      out.emptyList = (await __t.outcome(() => mc.registerTool(__t.tool('e'), { exposedTo: [] }))).ok;
      return out;
    },
    expect: {
      'http://example.com': 'SecurityError',
      'https://example.com': 'ok',
      'http://localhost:8080': 'ok',
      'http://127.0.0.1:1': 'ok',
      'not a url': 'SecurityError',
      '(empty)': 'SecurityError',
      'ws://example.com': 'SecurityError',
      'wss://example.com/x': 'ok',
      'file:///tmp/x': 'ok',
      'data:text/plain,x': 'SecurityError',
      'http://sub.localhost': 'ok',
      'http://[::1]:80': 'ok',
      'about:blank': 'SecurityError',
      'blob:https://example.com/uuid': 'ok',
      mixed: 'SecurityError',
      emptyList: true,
    },
  },
  {
    name: 'registerTool: unregistering does not cancel a running execution',
    run: async () => {
      const mc = document.modelContext;
      const ac = new AbortController();
      let release;
      let execSignal;
      await mc.registerTool(__t.tool('slow', {
        execute: (input, { signal }) => { execSignal = signal; return new Promise((r) => { release = r; }); },
      }), { signal: ac.signal });
      const [tool] = await mc.getTools();
      const p = mc.executeTool(tool, {});
      await __t.tick(10);
      ac.abort();
      await __t.tick(10);
      const abortedAfterUnregister = execSignal.aborted;
      release('done');
      return { result: await p, abortedAfterUnregister, names: await __t.names(mc) };
    },
    expect: { result: 'done', abortedAfterUnregister: false, names: [] },
  },

  // ------------------------------------------------------------------------------------------
  // getTools
  {
    name: 'getTools: RegisteredTool dictionaries, sorted by name',
    run: async () => {
      const mc = document.modelContext;
      await mc.registerTool(__t.tool('b', { title: 'Bee', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true, debugging: 1, extra: true } }));
      await mc.registerTool(__t.tool('a'));
      await mc.registerTool(__t.tool('C', { annotations: { untrustedContentHint: true, consequentialHint: true } }));
      const isPromise = mc.getTools() instanceof Promise;
      const t1 = await mc.getTools();
      const t2 = await mc.getTools();
      return {
        isPromise,
        names: t1.map((t) => t.name),
        keys: t1.map((t) => Object.keys(t)),
        fresh: t1[0] !== t2[0] && t1[0].annotations !== t2[0].annotations,
        windows: t1.map((t) => t.window === window),
        origins: t1.map((t) => t.origin === location.origin),
        titles: t1.map((t) => t.title),
        schemas: t1.map((t) => ('inputSchema' in t ? JSON.stringify(t.inputSchema) : 'absent')),
        annotations: t1.map((t) => ('annotations' in t ? JSON.stringify(t.annotations) : null)),
        descriptions: t1.map((t) => t.description),
      };
    },
    expect: {
      isPromise: true,
      names: ['C', 'a', 'b'],
      keys: [
        ['annotations', 'description', 'name', 'origin', 'title', 'window'],
        ['description', 'name', 'origin', 'title', 'window'],
        ['annotations', 'description', 'inputSchema', 'name', 'origin', 'title', 'window'],
      ],
      fresh: true,
      windows: [true, true, true],
      origins: [true, true, true],
      titles: ['', '', 'Bee'],
      schemas: ['absent', 'absent', '{"type":"object"}'],
      annotations: [
        '{"consequentialHint":true,"debugging":false,"readOnlyHint":false,"untrustedContentHint":true}',
        null,
        '{"consequentialHint":false,"debugging":true,"readOnlyHint":true,"untrustedContentHint":false}',
      ],
      descriptions: ['A tool named C', 'A tool named a', 'A tool named b'],
    },
  },
  {
    name: 'getTools: fromOrigins adds other origins to this document\'s tools',
    run: async () => {
      const mc = document.modelContext;
      await mc.registerTool(__t.tool('a'));
      const n = async (opts) => {
        const r = await __t.outcome(() => mc.getTools(opts));
        return r.ok ? r.value.map((t) => t.name) : r.error.name;
      };
      return {
        own: await n({ fromOrigins: [location.origin] }),
        ownWithPath: await n({ fromOrigins: [location.origin + '/some/path'] }),
        other: await n({ fromOrigins: ['https://example.com'] }),
        both: await n({ fromOrigins: ['https://example.com', location.origin] }),
        emptyList: await n({ fromOrigins: [] }),
        notAUrl: await n({ fromOrigins: ['not a url'] }),
        notTrustworthy: await n({ fromOrigins: ['http://example.com'] }),
        opaque: await n({ fromOrigins: ['data:text/plain,x'] }),
        undefinedList: await n({ fromOrigins: undefined }),
        noOptions: await n(undefined),
        notSequence: await n({ fromOrigins: 5 }),
      };
    },
    expect: {
      own: ['a'],
      ownWithPath: ['a'],
      other: ['a'],
      both: ['a'],
      emptyList: ['a'],
      notAUrl: 'SecurityError',
      notTrustworthy: 'SecurityError',
      opaque: 'SecurityError',
      undefinedList: ['a'],
      noOptions: ['a'],
      notSequence: 'TypeError',
    },
  },

  // ------------------------------------------------------------------------------------------
  // executeTool
  {
    name: 'executeTool: the input object',
    run: async () => {
      const mc = document.modelContext;
      const seen = [];
      await mc.registerTool(__t.tool('a', { execute(input, options) { seen.push({ input: JSON.stringify(input), keys: Object.keys(options), signal: options.signal instanceof AbortSignal, aborted: options.signal.aborted }); return 'ok'; } }));
      const [tool] = await mc.getTools();
      const o = async (...args) => { const r = await __t.outcome(() => mc.executeTool(...args)); return r.sync ? `sync ${r.error.name}` : r.ok ? r.value : r.error.name; };
      const passed = { x: 1, nested: { y: [1, 2] } };
      let identity;
      await mc.registerTool(__t.tool('id', { execute(input) { identity = input === passed; return 'ok'; } }));
      const idTool = (await mc.getTools()).find((t) => t.name === 'id');
      await mc.executeTool(idTool, passed);
      return {
        number: await o(tool, 5),
        null: await o(tool, null),
        string: await o(tool, 'str'),
        boolean: await o(tool, true),
        omitted: await o(tool),
        undefined: await o(tool, undefined),
        object: await o(tool, { q: 'x' }),
        array: await o(tool, []),
        jsonish: await o(tool, { d: new Date(0), f() {}, u: undefined, m: new Map([[1, 2]]) }),
        bigint: await o(tool, { n: 10n }),
        circular: await o(tool, (() => { const c = {}; c.c = c; return c; })()),
        toJSONUndefined: await o(tool, { toJSON() { return undefined; } }),
        function: await o(tool, function () {}),
        seen,
        identity,
      };
    },
    expect: {
      number: 'TypeError',
      null: 'TypeError',
      string: 'TypeError',
      boolean: 'TypeError',
      omitted: 'ok',
      undefined: 'ok',
      object: 'ok',
      array: 'ok',
      jsonish: 'ok',
      bigint: 'TypeError',
      circular: 'TypeError',
      toJSONUndefined: 'TypeError',
      function: 'TypeError',
      seen: [
        { input: '{}', keys: ['signal'], signal: true, aborted: false },
        { input: '{}', keys: ['signal'], signal: true, aborted: false },
        { input: '{"q":"x"}', keys: ['signal'], signal: true, aborted: false },
        { input: '[]', keys: ['signal'], signal: true, aborted: false },
        { input: '{"d":"1970-01-01T00:00:00.000Z","m":{}}', keys: ['signal'], signal: true, aborted: false },
      ],
      identity: false,
    },
  },
  {
    name: 'executeTool: which tool — unknown, other origin, not a RegisteredTool',
    run: async () => {
      const mc = document.modelContext;
      let ran = 0;
      await mc.registerTool(__t.tool('a', { execute() { ran++; return 'ok'; } }));
      const [tool] = await mc.getTools();
      const o = async (...args) => { const r = await __t.outcome(() => mc.executeTool(...args)); return r.sync ? `sync ${r.error.name}` : r.ok ? r.value : r.error.name; };
      return {
        fromGetTools: await o(tool, {}),
        copied: await o({ ...tool }, {}),
        unknownName: await o({ ...tool, name: 'nope' }, {}),
        otherOrigin: await o({ ...tool, origin: 'https://example.com' }, {}),
        otherWindow: await o({ ...tool, window: {} }, {}),
        nameOnly: await o({ name: 'a' }, {}),
        noArguments: await o(),
        null: await o(null, {}),
        withoutOrigin: await o({ name: 'a', description: 'x', window }, {}),
        withoutWindow: await o({ name: 'a', description: 'x', origin: location.origin }, {}),
        otherDescription: await o({ ...tool, description: 'different' }, {}),
        unknownAndBadInput: await o({ ...tool, name: 'nope' }, 5),
        // WebIDL's conversions: DOMString members through toString (a symbol cannot be one),
        // a member's getter's exception as it is, a dictionary that is no object.
        nameObject: await o({ ...tool, name: { toString: () => 'a' } }, {}),
        symbolDescription: await o({ ...tool, description: Symbol('d') }, {}),
        throwingName: await o({ ...tool, get name() { throw new RangeError('name'); } }, {}),
        notObject: await o(5, {}),
        ran,
      };
    },
    expect: {
      fromGetTools: 'ok',
      copied: 'ok',
      unknownName: 'UnknownError',
      otherOrigin: 'UnknownError',
      otherWindow: 'TypeError',
      nameOnly: 'TypeError',
      noArguments: 'TypeError',
      null: 'TypeError',
      withoutOrigin: 'TypeError',
      withoutWindow: 'TypeError',
      otherDescription: 'ok',
      unknownAndBadInput: 'TypeError',
      nameObject: 'ok',
      symbolDescription: 'TypeError',
      throwingName: 'RangeError',
      notObject: 'TypeError',
      ran: 4,
    },
  },
  {
    name: 'executeTool: execute, then toolactivated',
    run: async () => {
      const mc = document.modelContext;
      const log = [];
      let ev;
      mc.addEventListener('toolactivated', (e) => { ev = e; log.push(`modelContext ${e.constructor.name} ${e.toolName}`); });
      window.addEventListener('toolactivated', (e) => log.push(`window ${e.constructor.name} ${e.toolName}`));
      await mc.registerTool(__t.tool('a', { execute() { log.push('execute'); return 'ok'; } }));
      const [tool] = await mc.getTools();
      const p = mc.executeTool(tool, {});
      log.push('returned');
      await p;
      log.push('resolved');
      return { log, event: [ev.type, ev.bubbles, ev.cancelable, ev.isTrusted, ev.target === mc] };
    },
    expect: {
      log: ['returned', 'execute', 'modelContext ToolActivatedEvent a', 'window ToolActivatedEvent a', 'resolved'],
      event: ['toolactivated', false, false, false, true],
    },
  },
  {
    name: 'executeTool: result serialization',
    run: async () => {
      const mc = document.modelContext;
      const values = {
        string: () => 'plain "text"',
        emptyString: () => '',
        object: () => ({ a: 1, b: [true, null] }),
        undefined: () => undefined,
        null: () => null,
        number: () => 5,
        boolean: () => true,
        bigint: () => 10n,
        array: () => [1, 'x'],
        nestedBigint: () => ({ n: 10n }),
        toJSON: () => ({ toJSON() { return 'via toJSON'; } }),
        toJSONUndefined: () => ({ toJSON() { return undefined; } }),
        function: () => function f() {},
        stringObject: () => new String('boxed'),
        promiseOfString: () => Promise.resolve('later'),
        date: () => new Date(0),
      };
      const out = {};
      for (const [k, f] of Object.entries(values)) {
        await mc.registerTool(__t.tool(k, { execute: f }));
      }
      for (const t of await mc.getTools()) {
        const r = await __t.outcome(() => mc.executeTool(t, {}));
        out[t.name] = r.ok ? { result: r.value } : { error: r.error.name };
      }
      return out;
    },
    expect: {
      array: { result: '[1,"x"]' },
      bigint: { result: '10' },
      boolean: { result: 'true' },
      date: { result: '"1970-01-01T00:00:00.000Z"' },
      emptyString: { result: '' },
      function: { error: 'UnknownError' },
      nestedBigint: { error: 'UnknownError' },
      null: { result: 'null' },
      number: { result: '5' },
      object: { result: '{"a":1,"b":[true,null]}' },
      promiseOfString: { result: 'later' },
      string: { result: 'plain "text"' },
      stringObject: { result: '"boxed"' },
      toJSON: { result: '"via toJSON"' },
      toJSONUndefined: { error: 'UnknownError' },
      undefined: { result: 'undefined' },
    },
  },
  {
    name: 'executeTool: long text of any alphabet arrives intact, in the input and in the result',
    run: async () => {
      const mc = document.modelContext;
      await mc.registerTool(__t.tool('echo', {
        inputSchema: { type: 'object', properties: { s: { type: 'string' } } },
        execute: ({ s }) => s + '|' + s.length,
      }));
      const [tool] = await mc.getTools();
      const texts = ['x'.repeat(300) + 'é', 'é'.repeat(400), '日本語'.repeat(200), '😀'.repeat(300), 'a'.repeat(299) + '😀'.repeat(100), 'y'.repeat(1 << 20)];
      const wrong = [];
      for (const s of texts) {
        const got = await mc.executeTool(tool, { s });
        if (got !== s + '|' + s.length) wrong.push([s.length, typeof got === 'string' ? got.length : got]);
      }
      return { wrong };
    },
    expect: { wrong: [] },
  },
  {
    name: 'executeTool: a Symbol result → UnknownError',
    skipNative: 'returning a Symbol from execute crashes the Chromium 156 renderer ("Target crashed")',
    run: async () => {
      const mc = document.modelContext;
      await mc.registerTool(__t.tool('symbol', { execute: () => Symbol('s') }));
      const [t] = await mc.getTools();
      const r = await __t.outcome(() => mc.executeTool(t, {}));
      return r;
    },
    expect: { promise: true, ok: false, error: { name: 'UnknownError', ctor: 'DOMException' } },
  },
  {
    name: 'executeTool: a throwing or rejecting execute → UnknownError',
    run: async () => {
      const mc = document.modelContext;
      await mc.registerTool(__t.tool('syncThrow', { execute() { throw new RangeError('sync boom'); } }));
      await mc.registerTool(__t.tool('asyncThrow', { execute: async () => { throw new Error('async boom'); } }));
      await mc.registerTool(__t.tool('rejectString', { execute: () => Promise.reject('plain string') }));
      await mc.registerTool(__t.tool('rejectUndefined', { execute: () => Promise.reject(undefined) }));
      const out = {};
      for (const t of await mc.getTools()) {
        let e;
        try { await mc.executeTool(t, {}); } catch (x) { e = x; }
        out[t.name] = { ...__t.err(e), keepsMessage: /boom|plain string/.test(e && e.message) };
      }
      return out;
    },
    expect: {
      asyncThrow: { name: 'UnknownError', ctor: 'DOMException', keepsMessage: true },
      rejectString: { name: 'UnknownError', ctor: 'DOMException', keepsMessage: true },
      rejectUndefined: { name: 'UnknownError', ctor: 'DOMException', keepsMessage: false },
      syncThrow: { name: 'UnknownError', ctor: 'DOMException', keepsMessage: true },
    },
  },
  {
    name: 'executeTool: cancelling through options.signal',
    run: async () => {
      const mc = document.modelContext;
      const log = [];
      let execSignal;
      let cancelEvent;
      mc.addEventListener('toolcancel', (e) => { cancelEvent = e; log.push(`modelContext ${e.constructor.name} ${e.toolName}`); });
      window.addEventListener('toolcancel', (e) => log.push(`window ${e.constructor.name} ${e.toolName}`));
      let finish;
      await mc.registerTool(__t.tool('slow', {
        execute: (input, { signal }) => {
          execSignal = signal;
          signal.addEventListener('abort', () => log.push('execute signal aborted'));
          return new Promise((r) => { finish = r; });
        },
      }));
      const [tool] = await mc.getTools();
      const ac = new AbortController();
      const reason = new Error('stop');
      const p = mc.executeTool(tool, {}, { signal: ac.signal });
      await __t.tick(10);
      ac.abort(reason);
      log.push('abort() returned');
      let settled;
      try { await p; settled = 'resolved'; } catch (e) { settled = e === reason ? 'rejected with the reason' : __t.err(e); }
      log.push('promise settled');
      await __t.tick(200);
      finish('too late');
      await __t.tick(10);
      return {
        log,
        settled,
        execSignalReason: execSignal.reason === reason ? 'the caller\'s reason' : __t.err(execSignal.reason),
        event: [cancelEvent.type, cancelEvent.bubbles, cancelEvent.cancelable, cancelEvent.isTrusted],
      };
    },
    expect: {
      log: ['abort() returned', 'promise settled', 'execute signal aborted', 'modelContext ToolCancelEvent slow', 'window ToolCancelEvent slow'],
      settled: 'rejected with the reason',
      execSignalReason: { name: 'AbortError', ctor: 'DOMException' },
      event: ['toolcancel', false, false, false],
    },
  },
  {
    name: 'executeTool: a never-settling execute, then abort',
    run: async () => {
      const mc = document.modelContext;
      let cancels = 0;
      mc.addEventListener('toolcancel', () => cancels++);
      await mc.registerTool(__t.tool('hang', { execute: () => new Promise(() => {}) }));
      const [tool] = await mc.getTools();
      const ac = new AbortController();
      const p = mc.executeTool(tool, {}, { signal: ac.signal });
      setTimeout(() => ac.abort(), 20);
      let settled;
      try { await p; settled = 'resolved'; } catch (e) { settled = __t.err(e); }
      await __t.tick(200);
      return { settled, cancels };
    },
    expect: { settled: { name: 'AbortError', ctor: 'DOMException' }, cancels: 1 },
  },
  {
    name: 'executeTool: a signal aborted before the call',
    run: async () => {
      const mc = document.modelContext;
      const log = [];
      mc.addEventListener('toolactivated', () => log.push('toolactivated'));
      mc.addEventListener('toolcancel', () => log.push('toolcancel'));
      await mc.registerTool(__t.tool('a', { execute() { log.push('execute'); return 'ok'; } }));
      const [tool] = await mc.getTools();
      const reason = new Error('before');
      let settled;
      try { await mc.executeTool(tool, {}, { signal: AbortSignal.abort(reason) }); settled = 'resolved'; } catch (e) { settled = e === reason ? 'rejected with the reason' : __t.err(e); }
      await __t.tick(10);
      return { settled, log };
    },
    expect: { settled: 'rejected with the reason', log: [] },
  },
  {
    name: 'executeTool: abort before execute has been called',
    run: async () => {
      const mc = document.modelContext;
      const log = [];
      mc.addEventListener('toolactivated', () => log.push('toolactivated'));
      mc.addEventListener('toolcancel', () => log.push('toolcancel'));
      await mc.registerTool(__t.tool('a', { execute() { log.push('execute'); return 'ok'; } }));
      const [tool] = await mc.getTools();
      const ac = new AbortController();
      const p = mc.executeTool(tool, {}, { signal: ac.signal });
      ac.abort();
      let settled;
      try { await p; settled = 'resolved'; } catch (e) { settled = __t.err(e); }
      await __t.tick(200);
      return { settled, log };
    },
    // The abort is processed a task later, when the tool has started (and here already
    // answered): it runs, and no toolcancel follows its answer.
    expect: { settled: { name: 'AbortError', ctor: 'DOMException' }, log: ['execute', 'toolactivated'] },
  },
  {
    name: 'executeTool: abort in the same task reaches the tool through its signal',
    run: async () => {
      const mc = document.modelContext;
      const log = [];
      mc.addEventListener('toolactivated', () => log.push('toolactivated'));
      mc.addEventListener('toolcancel', () => log.push('toolcancel'));
      let late;
      await mc.registerTool(__t.tool('a', {
        execute(i, { signal }) {
          log.push('execute');
          late = new Promise((r) => signal.addEventListener('abort', () => { log.push(`execute signal aborted: ${signal.reason.name}`); r('late'); }));
          return late;
        },
      }));
      const [tool] = await mc.getTools();
      const cancelled = new Promise((r) => mc.addEventListener('toolcancel', r, { once: true }));
      const ac = new AbortController();
      const p = mc.executeTool(tool, {}, { signal: ac.signal });
      ac.abort('gave up');
      let settled;
      try { settled = `resolved ${await p}`; } catch (e) { settled = `rejected ${e}`; }
      await cancelled;
      const lateValue = await late;
      await __t.tick(10);
      let after;
      try { after = `resolved ${await p}`; } catch (e) { after = `rejected ${e}`; }
      return { settled, after, lateValue, log };
    },
    expect: {
      settled: 'rejected gave up',
      after: 'rejected gave up',
      lateValue: 'late',
      log: ['execute', 'toolactivated', 'execute signal aborted: AbortError', 'toolcancel'],
    },
  },
  {
    // A tool whose effect makes it inapplicable unregisters itself while it runs: the call it
    // is answering is not cancelled by that (webmcp issue 300), and the removal still holds.
    name: 'executeTool: a tool unregistered while it runs, by itself or by another, still answers',
    run: async () => {
      const mc = document.modelContext;
      const log = [];
      mc.addEventListener('toolcancel', () => log.push('toolcancel'));
      const own = new AbortController();
      const other = new AbortController();
      await mc.registerTool(__t.tool('self', { async execute() { own.abort(); await __t.tick(5); return { status: 'self' }; } }), { signal: own.signal });
      await mc.registerTool(__t.tool('bystander'), { signal: other.signal });
      await mc.registerTool(__t.tool('remover', { async execute() { other.abort(); return { status: 'remover' }; } }));
      const find = async (name) => (await mc.getTools()).find((t) => t.name === name);
      const selfTool = await find('self');
      const removerTool = await find('remover');
      const first = await mc.executeTool(selfTool, {});
      const afterSelf = await __t.names(mc);
      const second = await mc.executeTool(removerTool, {});
      const afterRemover = await __t.names(mc);
      // The removed tool is gone for a new call.
      let again;
      try { again = `resolved ${await mc.executeTool(selfTool, {})}`; } catch (e) { again = __t.err(e); }
      return { first, afterSelf, second, afterRemover, again, log };
    },
    expect: {
      first: '{"status":"self"}',
      afterSelf: ['bystander', 'remover'],
      second: '{"status":"remover"}',
      afterRemover: ['remover'],
      again: { name: 'UnknownError', ctor: 'DOMException' },
      log: [],
    },
  },
  {
    name: 'executeTool: abort after the result does nothing',
    run: async () => {
      const mc = document.modelContext;
      let cancels = 0;
      mc.addEventListener('toolcancel', () => cancels++);
      let execSignal;
      await mc.registerTool(__t.tool('a', { execute(i, { signal }) { execSignal = signal; return 'done'; } }));
      const [tool] = await mc.getTools();
      const ac = new AbortController();
      const result = await mc.executeTool(tool, {}, { signal: ac.signal });
      ac.abort();
      await __t.tick(10);
      return { result, cancels, execSignalAborted: execSignal.aborted };
    },
    expect: { result: 'done', cancels: 0, execSignalAborted: false },
  },
  {
    name: 'executeTool: input that violates the inputSchema → DataError',
    run: async () => {
      const mc = document.modelContext;
      let ran = 0;
      await mc.registerTool(__t.tool('typed', {
        inputSchema: { type: 'object', properties: { text: { type: 'string' }, n: { type: 'integer', minimum: 1 } }, required: ['text'] },
        execute() { ran++; return 'ran'; },
      }));
      const [tool] = await mc.getTools();
      const o = async (input) => {
        try { return await mc.executeTool(tool, input); } catch (e) { return { name: e.name, path: /\/(text|n)\b/.test(e.message) ? e.message.match(/\/(text|n)\b/)[0] : null, keyword: (e.message.match(/\b(type|required|minimum)\b/) || [null])[0] }; }
      };
      return {
        valid: await o({ text: 'x', n: 2 }),
        wrongType: await o({ text: 5 }),
        missing: await o({}),
        belowMinimum: await o({ text: 'x', n: 0 }),
        ran,
      };
    },
    expect: {
      valid: 'ran',
      wrongType: { name: 'DataError', path: '/text', keyword: 'type' },
      missing: { name: 'DataError', path: null, keyword: 'required' },
      belowMinimum: { name: 'DataError', path: '/n', keyword: 'minimum' },
      ran: 1,
    },
  },

  // ------------------------------------------------------------------------------------------
  // Event handler attributes
  {
    name: 'event handler attributes: ontoolchange, ontoolactivated, ontoolcancel',
    run: async () => {
      const mc = document.modelContext;
      const log = [];
      const initial = [mc.ontoolchange, mc.ontoolactivated, mc.ontoolcancel];
      const onchange = function (e) { log.push(`ontoolchange ${e.type} ${this === mc}`); };
      mc.ontoolchange = onchange;
      mc.ontoolactivated = (e) => log.push(`ontoolactivated ${e.toolName}`);
      mc.ontoolcancel = (e) => log.push(`ontoolcancel ${e.toolName}`);
      const same = mc.ontoolchange === onchange;
      await mc.registerTool(__t.tool('slow', { execute: () => new Promise(() => {}) }));
      const [tool] = await mc.getTools();
      const ac = new AbortController();
      const p = mc.executeTool(tool, {}, { signal: ac.signal }).catch(() => {});
      await __t.tick(10);
      ac.abort();
      await p;
      await __t.tick(200);
      mc.ontoolchange = 5;
      const afterNumber = mc.ontoolchange;
      const obj = { handleEvent() { log.push('object handler'); } };
      mc.ontoolchange = obj;
      const afterObject = mc.ontoolchange === obj;
      mc.ontoolchange = null;
      mc.dispatchEvent(new Event('toolchange'));
      mc.ontoolactivated = () => false;
      const ev = new ToolActivatedEvent('toolactivated', { cancelable: true });
      mc.dispatchEvent(ev);
      return { initial, same, log, afterNumber, afterObject, returnFalseCancels: ev.defaultPrevented };
    },
    expect: {
      initial: [null, null, null],
      same: true,
      log: ['ontoolchange toolchange true', 'ontoolactivated slow', 'ontoolcancel slow'],
      afterNumber: null,
      afterObject: true,
      returnFalseCancels: true,
    },
  },
];

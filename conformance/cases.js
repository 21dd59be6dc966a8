// The conformance cases: each one a small function with one clear expectation, run in the page
// against whatever `document.modelContext` the page has (this polyfill, native Chromium's, or
// another polyfill; see index.html).
//
// A case is { id, group, title, run(t) }:
//   group  'webmcp'  what spec/WEBMCP.md and webmcp.idl require of every implementation;
//          'project' what this project adds on purpose (spec/WEBMCP.md says so): navigator.modelContext,
//                    input validation (DataError), kept error messages, earlier drafts;
//          'session' the session API and the MCP server inside the page — only this polyfill (and,
//                    for the MCP-over-tab cases, polyfills that serve MCP on the tab channel) pass.
//   run    an async function; it checks with t.eq / t.ok / t.rejects and throws on the first
//          failure (the message is the case's detail). Every tool it registers through t.reg is
//          unregistered when it ends, and every name it makes with t.n is unique to the case.
//
// Expectations follow spec/WEBMCP.md (the IDL wins where they differ). Each title says what is
// expected; a failing case's detail says what was seen instead.

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

/** An exception (or any rejection value) as a short readable string: `Name` or `value`. */
export function describeError(e) {
  if (e === null || e === undefined) return String(e);
  if (typeof e === 'object' || typeof e === 'function') {
    const ctor = e.constructor && e.constructor.name;
    const name = e.name || ctor || 'object';
    return ctor && ctor !== name ? `${name} (${ctor})` : name;
  }
  return `${typeof e} ${JSON.stringify(e)}`;
}

function show(v) {
  if (v === undefined) return 'undefined';
  if (typeof v === 'function') return 'function';
  if (typeof v === 'bigint') return `${v}n`;
  try {
    const s = JSON.stringify(v);
    return s === undefined ? String(v) : s;
  } catch {
    return String(v);
  }
}

class CheckFailed extends Error {}

/** The checker handed to each case. */
export class Checker {
  constructor(mc, index) {
    this.mc = mc;
    this.prefix = `c${index}_`;
    this.controller = new AbortController();
    this.cleanups = [];
    this.checks = 0;
  }

  /** A tool name unique to this case. */
  n(name) {
    return this.prefix + name;
  }

  /** A minimal valid W3C tool. */
  tool(name, extra = {}) {
    return { name: this.n(name), description: `The ${name} tool`, execute: () => 'ok', ...extra };
  }

  /** registerTool with this case's cleanup signal (unless the case passes its own). */
  reg(tool, options = {}) {
    return this.mc.registerTool(tool, { signal: this.controller.signal, ...options });
  }

  /** This case's tools from getTools(), in the order getTools gave them. */
  async mine(options) {
    return (await this.mc.getTools(options)).filter((t) => t.name.startsWith(this.prefix));
  }

  cleanup(fn) {
    this.cleanups.push(fn);
  }

  /**
   * A same-origin iframe showing this page in frame mode (the same implementation loaded, no
   * cases run), removed when the case ends; `allow` is its `allow` attribute. Resolves to its
   * window once its `document.modelContext` exists.
   */
  async frame({ allow } = {}) {
    const el = document.createElement('iframe');
    const url = new URL(location.href);
    url.searchParams.set('frame', '1');
    if (allow !== undefined) el.setAttribute('allow', allow);
    el.src = url.href;
    const loaded = new Promise((r) => el.addEventListener('load', r, { once: true }));
    document.body.append(el);
    this.cleanup(() => el.remove());
    await loaded;
    const win = el.contentWindow;
    for (let i = 0; i < 250 && !win.__conformanceFrameReady; i++) await tick(20);
    if (!win.__conformanceFrameReady) this.fail('the frame did not load the implementation');
    return win;
  }

  /**
   * An iframe showing this page in frame mode on the other loopback origin (127.0.0.1 ⇄
   * localhost, same port), removed when the case ends; `allow` is its `allow` attribute. The
   * frame registers tool `expose` with `exposedTo: [this origin]`. Resolves to `{ win, origin,
   * registered }`, `registered` being `'ok'` or the name of the frame's registration error.
   */
  async crossFrame({ allow, expose }) {
    const url = new URL(location.href);
    if (url.hostname === '127.0.0.1') url.hostname = 'localhost';
    else if (url.hostname === 'localhost') url.hostname = '127.0.0.1';
    else this.fail('a cross-origin frame needs this page on 127.0.0.1 or localhost');
    url.searchParams.set('frame', '1');
    url.searchParams.set('expose', expose);
    url.searchParams.set('to', location.origin);
    const el = document.createElement('iframe');
    if (allow !== undefined) el.setAttribute('allow', allow);
    el.src = url.href;
    const said = new Promise((resolve) => {
      const onMessage = (e) => {
        if (e.source !== el.contentWindow || e.origin !== url.origin) return;
        if (!e.data || e.data.conformanceFrame !== expose) return;
        removeEventListener('message', onMessage);
        resolve(e.data.registered);
      };
      addEventListener('message', onMessage);
      this.cleanup(() => removeEventListener('message', onMessage));
    });
    document.body.append(el);
    this.cleanup(() => el.remove());
    const registered = await Promise.race([said, tick(4000).then(() => 'no answer from the frame')]);
    return { win: el.contentWindow, origin: url.origin, registered };
  }

  fail(message) {
    throw new CheckFailed(message);
  }

  ok(cond, message) {
    this.checks++;
    if (!cond) this.fail(message);
  }

  eq(actual, expected, label) {
    this.checks++;
    const a = show(actual);
    const e = show(expected);
    if (a !== e) this.fail(`${label}: expected ${e}, got ${a}`);
  }

  /**
   * Calls fn, which must return a promise that rejects (a synchronous throw fails the check:
   * promise-returning operations report errors as rejections). Returns the rejection value.
   * `expected` is an error name ('TypeError', 'InvalidStateError', …) or a predicate.
   */
  async rejects(fn, expected, label) {
    this.checks++;
    let p;
    try {
      p = fn();
    } catch (e) {
      this.fail(`${label}: threw ${describeError(e)} synchronously instead of returning a rejected promise`);
    }
    if (!(p instanceof Promise) && !(p && typeof p.then === 'function')) {
      this.fail(`${label}: returned ${show(p)}, not a promise`);
    }
    let value;
    try {
      value = await p;
    } catch (e) {
      if (typeof expected === 'function' ? !expected(e) : !e || e.name !== expected) {
        this.fail(`${label}: expected a rejection with ${typeof expected === 'function' ? 'the expected value' : expected}, got ${describeError(e)}${e && e.message ? `: ${e.message}` : ''}`);
      }
      return e;
    }
    this.fail(`${label}: expected a rejection with ${typeof expected === 'function' ? 'the expected value' : expected}, but it resolved to ${show(value)}`);
  }

  /** Awaits fn(); a rejection fails the check with its description. */
  async resolves(fn, label) {
    this.checks++;
    try {
      return await fn();
    } catch (e) {
      this.fail(`${label}: rejected with ${describeError(e)}${e && e.message ? `: ${e.message}` : ''}`);
    }
  }

  async finish() {
    this.controller.abort();
    for (const fn of this.cleanups.reverse()) {
      try {
        await fn();
      } catch {
        // cleanup is best effort
      }
    }
    // Let the toolchange events of the unregistrations fire before the next case listens.
    await tick(20);
  }
}

// ---------------------------------------------------------------------------------------------
// An MCP client over the tab transport (MCP-B envelope, channel mcp-default), for the cases that
// reach the page's MCP server.

export function tabClient({ channel = 'mcp-default', timeout = 1500 } = {}) {
  let nextId = 1;
  const pending = new Map();
  const messages = [];
  const onMessage = (ev) => {
    if (ev.source !== window) return;
    const d = ev.data;
    if (!d || d.channel !== channel || d.type !== 'mcp' || d.direction !== 'server-to-client') return;
    const p = d.payload;
    if (p === null || typeof p !== 'object') return;
    if (p.id !== undefined && p.method === undefined && pending.has(p.id)) {
      const resolve = pending.get(p.id);
      pending.delete(p.id);
      resolve(p);
    } else {
      messages.push(p);
    }
  };
  window.addEventListener('message', onMessage);
  const post = (payload) =>
    window.postMessage({ channel, type: 'mcp', direction: 'client-to-server', payload }, location.origin);
  const client = {
    messages,
    /** Resolves to the whole JSON-RPC response; rejects when none arrives in time. */
    request(method, params, { wait = timeout } = {}) {
      const id = `conformance-${nextId++}`;
      const msg = { jsonrpc: '2.0', id, method };
      if (params !== undefined) msg.params = params;
      return new Promise((resolve, reject) => {
        pending.set(id, resolve);
        setTimeout(() => {
          if (pending.delete(id)) reject(new Error(`no answer to ${method} on the tab channel within ${wait} ms`));
        }, wait);
        post(msg);
      });
    },
    notify(method, params) {
      const msg = { jsonrpc: '2.0', method };
      if (params !== undefined) msg.params = params;
      post(msg);
    },
    respond(id, result) {
      post({ jsonrpc: '2.0', id, result });
    },
    async initialize(protocolVersion = '2025-11-25', capabilities = {}) {
      const r = await client.request('initialize', {
        protocolVersion,
        capabilities,
        clientInfo: { name: 'conformance-page', version: '1.0.0' },
      });
      if (r.error) throw new Error(`initialize failed: ${r.error.message}`);
      client.notify('notifications/initialized');
      return r.result;
    },
    close() {
      window.removeEventListener('message', onMessage);
    },
  };
  return client;
}

/** `_meta` of a 2026-07-28 (stateless) request. */
const STATELESS_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function mcpClient(t, version) {
  const c = tabClient();
  t.cleanup(() => c.close());
  if (version) await t.resolves(() => c.initialize(version), `initialize (${version}) over the tab transport`);
  return c;
}

function result(t, response, label) {
  if (response.error) t.fail(`${label}: JSON-RPC error ${response.error.code} ${response.error.message}`);
  return response.result;
}

function needSessionApi(t) {
  if (typeof t.mc.registerResource !== 'function' || typeof t.mc.registerPrompt !== 'function') {
    t.fail('no session API (modelContext.registerResource / registerPrompt are missing)');
  }
}

// ---------------------------------------------------------------------------------------------

/** @type {{ id: string, group: 'webmcp' | 'project' | 'session', title: string, run: (t: Checker) => Promise<void> }[]} */
export const CASES = [
  // ------------------------------------------------------------------------- interface objects
  {
    id: 'interface.document-modelContext',
    group: 'webmcp',
    title: 'document.modelContext is a ModelContext, an EventTarget, the same object each time',
    async run(t) {
      t.eq(typeof ModelContext, 'function', 'typeof window.ModelContext');
      t.ok(document.modelContext === t.mc, 'document.modelContext is not the same object on each read');
      t.ok(t.mc instanceof ModelContext, 'document.modelContext is not an instance of ModelContext');
      t.ok(t.mc instanceof EventTarget, 'document.modelContext is not an EventTarget');
      t.eq(Object.getPrototypeOf(ModelContext.prototype) === EventTarget.prototype, true, 'ModelContext.prototype inherits from EventTarget.prototype');
      t.eq(Object.prototype.toString.call(t.mc), '[object ModelContext]', 'Object.prototype.toString');
      t.ok('modelContext' in Document.prototype, 'modelContext is not an attribute of Document.prototype');
    },
  },
  {
    id: 'interface.illegal-constructor',
    group: 'webmcp',
    title: 'new ModelContext() throws a TypeError (Illegal constructor)',
    async run(t) {
      let err;
      try {
        new ModelContext();
      } catch (e) {
        err = e;
      }
      t.eq(describeError(err), 'TypeError', 'new ModelContext()');
    },
  },
  {
    id: 'interface.members',
    group: 'webmcp',
    title: 'registerTool/getTools/executeTool (lengths 1, 0, 1) and the three event handler attributes live on the prototype',
    async run(t) {
      const p = ModelContext.prototype;
      for (const k of ['registerTool', 'getTools', 'executeTool']) t.eq(typeof p[k], 'function', `typeof ModelContext.prototype.${k}`);
      t.eq([p.registerTool.length, p.getTools.length, p.executeTool.length], [1, 0, 1], 'operation lengths');
      for (const k of ['ontoolchange', 'ontoolactivated', 'ontoolcancel']) {
        const d = Object.getOwnPropertyDescriptor(p, k);
        t.ok(d && typeof d.get === 'function' && typeof d.set === 'function', `${k} is not an accessor on the prototype`);
        t.eq(t.mc[k], null, `initial ${k}`);
      }
      t.eq(Reflect.ownKeys(t.mc).filter((k) => typeof k === 'string'), [], 'own properties of the instance');
    },
  },
  {
    id: 'interface.brand-check',
    group: 'webmcp',
    title: 'operations called on a non-ModelContext reject with TypeError',
    async run(t) {
      await t.rejects(() => ModelContext.prototype.getTools.call({}), 'TypeError', 'getTools.call({})');
      await t.rejects(() => ModelContext.prototype.registerTool.call({}, t.tool('x')), 'TypeError', 'registerTool.call({})');
    },
  },
  {
    id: 'events.tool-activated-event',
    group: 'webmcp',
    title: 'ToolActivatedEvent is a constructible Event whose toolName defaults to ""',
    async run(t) {
      t.eq(typeof ToolActivatedEvent, 'function', 'typeof ToolActivatedEvent');
      const e0 = new ToolActivatedEvent('toolactivated');
      t.ok(e0 instanceof Event, 'not an Event');
      t.eq([e0.type, e0.toolName, e0.bubbles, e0.cancelable], ['toolactivated', '', false, false], 'defaults');
      const e1 = new ToolActivatedEvent('x', { toolName: 'search', bubbles: true });
      t.eq([e1.toolName, e1.bubbles], ['search', true], 'with init dictionary');
      let err;
      try {
        ToolActivatedEvent('x');
      } catch (e) {
        err = e;
      }
      t.eq(describeError(err), 'TypeError', 'calling ToolActivatedEvent without new');
      // toolName is an attribute of ToolActivatedEvent: read from another Event, it throws.
      let brand;
      try {
        Object.getOwnPropertyDescriptor(ToolActivatedEvent.prototype, 'toolName').get.call(new Event('toolactivated'));
      } catch (e) {
        brand = e;
      }
      t.eq(describeError(brand), 'TypeError', 'toolName read from a plain Event');
    },
  },
  {
    id: 'events.tool-cancel-event',
    group: 'webmcp',
    title: 'ToolCancelEvent is a constructible Event whose toolName defaults to ""',
    async run(t) {
      t.eq(typeof ToolCancelEvent, 'function', 'typeof ToolCancelEvent');
      const e0 = new ToolCancelEvent('toolcancel');
      t.ok(e0 instanceof Event, 'not an Event');
      t.eq([e0.type, e0.toolName], ['toolcancel', ''], 'defaults');
      t.eq(new ToolCancelEvent('x', { toolName: 7 }).toolName, '7', 'toolName converted to a string');
      t.eq(Object.prototype.toString.call(e0), '[object ToolCancelEvent]', 'Object.prototype.toString');
    },
  },
  {
    id: 'events.handler-attributes',
    group: 'webmcp',
    title: 'ontoolchange fires on registration; setting a non-callable value stores null',
    async run(t) {
      let fired = 0;
      const h = () => fired++;
      t.mc.ontoolchange = h;
      t.cleanup(() => {
        t.mc.ontoolchange = null;
      });
      t.ok(t.mc.ontoolchange === h, 'ontoolchange does not return the handler it was given');
      await t.reg(t.tool('a'));
      t.ok(fired >= 1, 'ontoolchange did not run when a tool was registered');
      t.mc.ontoolchange = 5;
      t.eq(t.mc.ontoolchange, null, 'ontoolchange after setting 5');
    },
  },

  // ------------------------------------------------------------------------------ registerTool
  {
    id: 'registerTool.resolves-after-toolchange',
    group: 'webmcp',
    title: 'registerTool returns a promise that resolves to undefined, after toolchange has fired',
    async run(t) {
      const log = [];
      const h = (e) => log.push(`toolchange:${e.constructor.name}`);
      t.mc.addEventListener('toolchange', h);
      t.cleanup(() => t.mc.removeEventListener('toolchange', h));
      const p = t.reg(t.tool('a'));
      log.push('returned');
      t.ok(p instanceof Promise, 'registerTool did not return a Promise');
      const v = await p;
      log.push('resolved');
      t.eq(v, undefined, 'resolved value');
      t.eq(log, ['returned', 'toolchange:Event', 'resolved'], 'order of events');
      t.eq((await t.mine()).map((x) => x.name), [t.n('a')], 'getTools after registration');
    },
  },
  {
    id: 'registerTool.duplicate',
    group: 'webmcp',
    title: 'a name already registered → rejected with InvalidStateError; the first tool stays',
    async run(t) {
      await t.reg(t.tool('dup'));
      await t.rejects(() => t.reg(t.tool('dup', { description: 'second' })), 'InvalidStateError', 'second registerTool');
      t.eq((await t.mine()).map((x) => x.description), ['The dup tool'], 'descriptions after the duplicate');
    },
  },
  {
    id: 'registerTool.empty-name-or-description',
    group: 'webmcp',
    title: 'an empty name or an empty description → rejected with InvalidStateError',
    async run(t) {
      await t.rejects(() => t.reg({ ...t.tool('x'), name: '' }), 'InvalidStateError', 'empty name');
      await t.rejects(() => t.reg(t.tool('y', { description: '' })), 'InvalidStateError', 'empty description');
      t.eq((await t.mine()).length, 0, 'tools registered');
    },
  },
  {
    id: 'registerTool.name-rule',
    group: 'webmcp',
    title: 'names: at most 128 of A-Z a-z 0-9 _ - . — anything else → InvalidStateError',
    async run(t) {
      for (const bad of ['bad name!', 'ünï', 'a/b', 'a:b']) {
        await t.rejects(() => t.reg(t.tool(bad)), 'InvalidStateError', `name ${JSON.stringify(t.n(bad))}`);
      }
      const long = 'x'.repeat(128 - t.prefix.length);
      await t.rejects(() => t.reg(t.tool(long + 'y')), 'InvalidStateError', 'a 129-character name');
      await t.resolves(() => t.reg(t.tool(long)), 'a 128-character name');
      await t.resolves(() => t.reg(t.tool('a.b-c_D9')), 'name with . - _ and digits');
    },
  },
  {
    id: 'registerTool.schema-serialization',
    group: 'webmcp',
    title: 'inputSchema serializing to undefined → TypeError; a throwing toJSON → that very exception',
    async run(t) {
      await t.rejects(() => t.reg(t.tool('u', { inputSchema: { toJSON: () => undefined } })), 'TypeError', 'toJSON returning undefined');
      const circular = { type: 'object' };
      circular.self = circular;
      await t.rejects(() => t.reg(t.tool('c', { inputSchema: circular })), 'TypeError', 'circular schema');
      const thrown = new RangeError('from toJSON');
      await t.rejects(() => t.reg(t.tool('th', { inputSchema: { toJSON() { throw thrown; } } })), (e) => e === thrown, 'toJSON that throws');
      t.eq((await t.mine()).length, 0, 'tools registered');
    },
  },
  {
    id: 'registerTool.check-order',
    group: 'webmcp',
    title: 'checks run in order: duplicate, then name, then schema, then signal, then exposedTo',
    async run(t) {
      await t.reg(t.tool('taken'));
      const bad = { toJSON: () => undefined };
      const reason = new Error('aborted');
      const aborted = AbortSignal.abort(reason);
      await t.rejects(() => t.reg(t.tool('taken', { inputSchema: bad })), 'InvalidStateError', 'duplicate + bad schema');
      await t.rejects(() => t.reg(t.tool('bad name', { inputSchema: bad })), 'InvalidStateError', 'bad name + bad schema');
      await t.rejects(() => t.mc.registerTool(t.tool('s', { inputSchema: bad }), { signal: aborted }), 'TypeError', 'bad schema + aborted signal');
      await t.rejects(() => t.mc.registerTool(t.tool('e'), { signal: aborted, exposedTo: ['http://example.com'] }), (e) => e === reason, 'aborted signal + insecure exposedTo');
      await t.rejects(() => t.reg(t.tool('taken'), { signal: aborted }), 'InvalidStateError', 'duplicate + aborted signal');
    },
  },
  {
    id: 'registerTool.conversion-errors-reject',
    group: 'webmcp',
    title: 'malformed arguments (no tool, no execute, options not an object) → rejected TypeError, never a synchronous throw',
    async run(t) {
      await t.rejects(() => t.mc.registerTool(), 'TypeError', 'registerTool()');
      await t.rejects(() => t.mc.registerTool(null), 'TypeError', 'registerTool(null)');
      await t.rejects(() => t.mc.registerTool({ name: t.n('n'), description: 'd' }), 'TypeError', 'no execute');
      await t.rejects(() => t.mc.registerTool({ name: t.n('n'), description: 'd', execute: 5 }), 'TypeError', 'execute is not callable');
      await t.rejects(() => t.mc.registerTool(t.tool('n'), 5), 'TypeError', 'options is a number');
      await t.rejects(() => t.mc.registerTool(t.tool('n'), { signal: {} }), 'TypeError', 'signal is not an AbortSignal');
    },
  },
  {
    id: 'registerTool.aborted-signal',
    group: 'webmcp',
    title: 'an already-aborted signal → rejected with signal.reason, no tool, no toolchange',
    async run(t) {
      let changes = 0;
      const h = () => changes++;
      t.mc.addEventListener('toolchange', h);
      t.cleanup(() => t.mc.removeEventListener('toolchange', h));
      const reason = new Error('why');
      await t.rejects(() => t.mc.registerTool(t.tool('a'), { signal: AbortSignal.abort(reason) }), (e) => e === reason, 'aborted with a reason');
      await t.rejects(() => t.mc.registerTool(t.tool('b'), { signal: AbortSignal.abort() }), 'AbortError', 'aborted without a reason');
      await tick(10);
      t.eq(changes, 0, 'toolchange events');
      t.eq((await t.mine()).length, 0, 'tools registered');
    },
  },
  {
    id: 'registerTool.abort-unregisters',
    group: 'webmcp',
    title: 'aborting the signal later unregisters the tool and fires toolchange',
    async run(t) {
      const ac = new AbortController();
      await t.mc.registerTool(t.tool('a'), { signal: ac.signal });
      await t.reg(t.tool('b'));
      let changes = 0;
      const h = () => changes++;
      t.mc.addEventListener('toolchange', h);
      t.cleanup(() => t.mc.removeEventListener('toolchange', h));
      ac.abort();
      t.eq((await t.mine()).map((x) => x.name), [t.n('b')], 'tools right after abort()');
      await tick(10);
      t.eq(changes, 1, 'toolchange events after abort()');
    },
  },
  {
    id: 'registerTool.exposedTo',
    group: 'webmcp',
    title: 'exposedTo entries must be URLs of potentially trustworthy origins, else SecurityError',
    async run(t) {
      await t.rejects(() => t.reg(t.tool('a'), { exposedTo: ['http://example.com'] }), 'SecurityError', 'http://example.com');
      await t.rejects(() => t.reg(t.tool('b'), { exposedTo: ['not a url'] }), 'SecurityError', '"not a url"');
      await t.resolves(() => t.reg(t.tool('c'), { exposedTo: ['https://example.com', 'http://localhost:8080'] }), 'https://example.com and http://localhost:8080');
    },
  },
  {
    id: 'registerTool.annotations-and-title',
    group: 'webmcp',
    title: 'given annotations come back from getTools with all four hints (false by default); none given → no annotations member; title "" when absent',
    async run(t) {
      await t.reg(t.tool('a', { title: 'Tool A', annotations: { readOnlyHint: true, debugging: true } }));
      await t.reg(t.tool('b', { annotations: {} }));
      await t.reg(t.tool('c'));
      const [a, b, c] = await t.mine();
      const four = (x) => x && ['readOnlyHint', 'untrustedContentHint', 'consequentialHint', 'debugging'].map((k) => x[k]);
      t.eq(four(a.annotations), [true, false, false, true], 'annotations of a');
      t.eq(four(b.annotations), [false, false, false, false], 'annotations of b (an empty dictionary given)');
      // The IDL member is optional and has no default.
      t.eq('annotations' in c, false, "'annotations' present on a tool registered without them");
      t.eq([a.title, b.title, c.title], ['Tool A', '', ''], 'titles');
    },
  },
  {
    id: 'registerTool.unregister-keeps-running-call',
    group: 'webmcp',
    title: 'unregistering a tool does not cancel an execution already running',
    async run(t) {
      const ac = new AbortController();
      let release;
      let signal;
      await t.mc.registerTool(
        t.tool('slow', { execute: (i, o) => ((signal = o.signal), new Promise((r) => (release = r))) }),
        { signal: ac.signal },
      );
      const [tool] = await t.mine();
      const p = t.mc.executeTool(tool, {});
      await tick(10);
      ac.abort();
      await tick(10);
      t.eq(signal && signal.aborted, false, "execute's signal aborted after unregistering");
      release('done');
      t.eq(await p, 'done', 'result');
    },
  },

  // --------------------------------------------------------------------------------- getTools
  {
    id: 'getTools.shape-and-order',
    group: 'webmcp',
    title: 'getTools resolves to RegisteredTool dictionaries sorted by name: name, title, description, inputSchema (an object), annotations, window, origin',
    async run(t) {
      await t.reg(t.tool('b', { inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, annotations: { readOnlyHint: true } }));
      await t.reg(t.tool('a'));
      await t.reg(t.tool('C'));
      const p = t.mc.getTools();
      t.ok(p instanceof Promise, 'getTools did not return a Promise');
      const tools = (await p).filter((x) => x.name.startsWith(t.prefix));
      t.eq(tools.map((x) => x.name), [t.n('C'), t.n('a'), t.n('b')], 'order');
      const b = tools[2];
      t.eq(Object.keys(b).sort(), ['annotations', 'description', 'inputSchema', 'name', 'origin', 'title', 'window'], 'members of a tool with a schema and annotations');
      t.eq(b.inputSchema, { type: 'object', properties: { q: { type: 'string' } } }, 'inputSchema parsed back into an object');
      t.ok(b.window === window, 'window is not this window');
      t.eq(b.origin, location.origin, 'origin');
      t.eq('inputSchema' in tools[1], false, "'inputSchema' present on a tool registered without one");
      const again = (await t.mine())[2];
      t.ok(again !== b, 'getTools returned the same object twice');
    },
  },
  {
    id: 'getTools.schema-snapshot',
    group: 'webmcp',
    title: 'the schema is the JSON taken at registration (later mutation and undefined members do not show)',
    async run(t) {
      const schema = { type: 'object', properties: { q: { type: 'string' } }, skip: undefined };
      await t.reg(t.tool('a', { inputSchema: schema }));
      schema.properties.q.type = 'number';
      const [a] = await t.mine();
      t.eq(a.inputSchema, { type: 'object', properties: { q: { type: 'string' } } }, 'inputSchema');
    },
  },
  {
    id: 'getTools.fromOrigins',
    group: 'webmcp',
    title: 'fromOrigins adds the listed origins\' frames to the same-origin tools: this document\'s tool is always listed',
    async run(t) {
      await t.reg(t.tool('a'));
      t.eq((await t.mine({ fromOrigins: [location.origin] })).length, 1, 'fromOrigins: [own origin]');
      t.eq((await t.mine({ fromOrigins: ['https://example.com'] })).length, 1, 'fromOrigins: [https://example.com]');
      t.eq((await t.mine({})).length, 1, 'no fromOrigins');
    },
  },

  {
    id: 'frames.same-origin',
    group: 'webmcp',
    title: 'A same-origin frame\'s tool is listed (with the frame\'s window and origin), runs in the frame, and its registration fires toolchange here',
    async run(t) {
      let changes = 0;
      const onChange = () => changes++;
      t.mc.addEventListener('toolchange', onChange);
      t.cleanup(() => t.mc.removeEventListener('toolchange', onChange));
      const win = await t.frame();
      const activated = [];
      win.document.modelContext.addEventListener('toolactivated', (e) => activated.push(e.toolName));
      const name = t.n('framed');
      // execute is a function of the frame's realm: `window` in it is the frame's.
      const execute = new win.Function("return window === top ? 'ran in top' : 'ran in the frame'");
      await win.document.modelContext.registerTool({ name, description: 'A tool of the frame', execute });
      await tick(20);
      t.ok(changes >= 1, 'toolchange fired in this document when the frame registered');
      const [tool] = await t.mine();
      t.ok(tool !== undefined, 'the frame\'s tool is listed here');
      t.ok(tool.window === win, 'its window is the frame\'s');
      t.eq(tool.origin, location.origin, 'its origin');
      t.eq(await t.mc.executeTool(tool, {}), 'ran in the frame', 'executeTool ran it in the frame');
      t.eq(activated, [name], 'toolactivated fired in the frame\'s document');
    },
  },
  {
    id: 'frames.policy-none',
    group: 'webmcp',
    title: 'In a frame whose allow attribute denies "tools", registerTool, getTools and executeTool reject with NotAllowedError',
    async run(t) {
      const win = await t.frame({ allow: "tools 'none'" });
      const mc = win.document.modelContext;
      const own = { name: t.n('x'), description: 'x', window: win, origin: location.origin };
      await t.rejects(() => mc.registerTool({ name: t.n('x'), description: 'x', execute: () => 'ok' }), 'NotAllowedError', 'registerTool');
      await t.rejects(() => mc.getTools(), 'NotAllowedError', 'getTools');
      await t.rejects(() => mc.executeTool(own, {}), 'NotAllowedError', 'executeTool');
    },
  },

  {
    id: 'frames.cross-origin',
    group: 'webmcp',
    title: 'A cross-origin frame needs allow="tools"; its tool exposed to this origin is listed only with fromOrigins (with its window and origin) and runs in the frame',
    async run(t) {
      const denied = await t.crossFrame({ expose: t.n('denied') });
      t.eq(denied.registered, 'NotAllowedError', 'registerTool in a cross-origin frame without allow="tools"');
      const name = t.n('exposed');
      const f = await t.crossFrame({ allow: 'tools', expose: name });
      t.eq(f.registered, 'ok', 'registerTool in a cross-origin frame with allow="tools"');
      t.eq((await t.mine()).length, 0, 'not listed without fromOrigins');
      const [tool] = await t.mine({ fromOrigins: [f.origin] });
      t.ok(tool !== undefined, 'listed with fromOrigins: [the frame\'s origin]');
      t.ok(tool.window === f.win, 'its window is the frame\'s');
      t.eq(tool.origin, f.origin, 'its origin is the frame\'s');
      t.eq(await t.mc.executeTool(tool, {}), 'ran in the cross-origin frame', 'executeTool ran it in the frame');
    },
  },

  // ------------------------------------------------------------------------------ executeTool
  {
    id: 'executeTool.input-object',
    group: 'webmcp',
    title: 'executeTool: the input must be an object (absent means {}), else TypeError',
    async run(t) {
      const seen = [];
      await t.reg(t.tool('a', { execute: (input) => (seen.push(JSON.stringify(input)), 'ok') }));
      const [tool] = await t.mine();
      await t.rejects(() => t.mc.executeTool(tool, 5), 'TypeError', 'input 5');
      await t.rejects(() => t.mc.executeTool(tool, null), 'TypeError', 'input null');
      await t.rejects(() => t.mc.executeTool(tool, 'str'), 'TypeError', 'input "str"');
      t.eq(await t.mc.executeTool(tool), 'ok', 'input omitted');
      t.eq(await t.mc.executeTool(tool, { q: 'x' }), 'ok', 'input {q:"x"}');
      t.eq(seen, ['{}', '{"q":"x"}'], 'inputs execute saw');
    },
  },
  {
    id: 'executeTool.execute-arguments',
    group: 'webmcp',
    title: 'execute is called with (inputObject, { signal }) where signal is an AbortSignal',
    async run(t) {
      let args;
      await t.reg(t.tool('a', { execute: (...a) => ((args = a), 'ok') }));
      const [tool] = await t.mine();
      await t.mc.executeTool(tool, { x: 1 });
      t.eq(args.length, 2, 'number of arguments');
      t.eq(args[0], { x: 1 }, 'input');
      t.ok(args[1] && args[1].signal instanceof AbortSignal, 'options.signal is not an AbortSignal');
      t.eq(args[1].signal.aborted, false, 'signal.aborted');
    },
  },
  {
    id: 'executeTool.unknown-tool',
    group: 'webmcp',
    title: 'an unknown tool, or one of another origin → rejected with UnknownError',
    async run(t) {
      await t.reg(t.tool('a'));
      const [tool] = await t.mine();
      await t.rejects(() => t.mc.executeTool({ ...tool, name: t.n('nope') }, {}), 'UnknownError', 'unknown name');
      await t.rejects(() => t.mc.executeTool({ ...tool, origin: 'https://example.com' }, {}), 'UnknownError', 'another origin');
    },
  },
  {
    id: 'executeTool.toolactivated',
    group: 'webmcp',
    title: 'executing fires toolactivated (a ToolActivatedEvent with the tool name) at the ModelContext',
    async run(t) {
      const seen = [];
      const h = (e) => seen.push([e.constructor.name, e.toolName, e.target === t.mc]);
      t.mc.addEventListener('toolactivated', h);
      t.cleanup(() => t.mc.removeEventListener('toolactivated', h));
      await t.reg(t.tool('a'));
      const [tool] = await t.mine();
      await t.mc.executeTool(tool, {});
      t.eq(seen, [['ToolActivatedEvent', t.n('a'), true]], 'toolactivated events');
    },
  },
  {
    id: 'executeTool.toolactivated-window-after-execute',
    group: 'webmcp',
    title: 'toolactivated fires at the ModelContext and at window, once execute has been called (WPT executeTool-abort)',
    async run(t) {
      const log = [];
      const onMc = () => log.push('modelContext');
      const onWin = (e) => log.push(`window:${e.toolName}`);
      t.mc.addEventListener('toolactivated', onMc);
      window.addEventListener('toolactivated', onWin);
      t.cleanup(() => {
        t.mc.removeEventListener('toolactivated', onMc);
        window.removeEventListener('toolactivated', onWin);
      });
      await t.reg(t.tool('a', { execute: () => (log.push('execute'), 'ok') }));
      const [tool] = await t.mine();
      await t.mc.executeTool(tool, {});
      t.eq(log, ['execute', 'modelContext', `window:${t.n('a')}`], 'order');
    },
  },
  {
    id: 'executeTool.result-serialization',
    group: 'webmcp',
    title: 'a string result is returned as is; other values are JSON-serialized',
    async run(t) {
      const values = { s: () => 'plain "text"', o: () => ({ a: 1, b: [true, null] }), n: () => 5, arr: () => [1, 'x'], p: () => Promise.resolve('later'), nul: () => null };
      for (const [k, f] of Object.entries(values)) await t.reg(t.tool(k, { execute: f }));
      const out = {};
      for (const tool of await t.mine()) out[tool.name.slice(t.prefix.length)] = await t.mc.executeTool(tool, {});
      t.eq(out, { arr: '[1,"x"]', n: '5', nul: 'null', o: '{"a":1,"b":[true,null]}', p: 'later', s: 'plain "text"' }, 'results');
    },
  },
  {
    id: 'executeTool.unserializable-result',
    group: 'webmcp',
    title: 'a result that cannot be serialized (a function, a nested BigInt) → rejected with UnknownError',
    async run(t) {
      await t.reg(t.tool('f', { execute: () => function f() {} }));
      await t.reg(t.tool('b', { execute: () => ({ n: 10n }) }));
      for (const tool of await t.mine()) await t.rejects(() => t.mc.executeTool(tool, {}), 'UnknownError', tool.name);
    },
  },
  {
    id: 'executeTool.execute-throws',
    group: 'webmcp',
    title: 'a throwing or rejecting execute → rejected with UnknownError',
    async run(t) {
      await t.reg(t.tool('sync', { execute() { throw new RangeError('sync boom'); } }));
      await t.reg(t.tool('async', { execute: async () => { throw new Error('async boom'); } }));
      for (const tool of await t.mine()) await t.rejects(() => t.mc.executeTool(tool, {}), 'UnknownError', tool.name);
    },
  },
  {
    id: 'executeTool.cancel',
    group: 'webmcp',
    title: 'aborting options.signal rejects with the reason, then aborts the signal execute got and fires toolcancel',
    async run(t) {
      const log = [];
      const h = (e) => log.push(`toolcancel:${e.constructor.name}:${e.toolName}`);
      t.mc.addEventListener('toolcancel', h);
      t.cleanup(() => t.mc.removeEventListener('toolcancel', h));
      let execSignal;
      await t.reg(t.tool('slow', { execute: (i, { signal }) => ((execSignal = signal), new Promise(() => {})) }));
      const [tool] = await t.mine();
      const ac = new AbortController();
      const reason = new Error('stop');
      const p = t.mc.executeTool(tool, {}, { signal: ac.signal });
      await tick(10);
      ac.abort(reason);
      await t.rejects(() => p, (e) => e === reason, 'executeTool after abort');
      await tick(10);
      t.eq(log, [`toolcancel:ToolCancelEvent:${t.n('slow')}`], 'toolcancel events');
      t.eq(execSignal && execSignal.aborted, true, "execute's signal aborted");
    },
  },
  {
    id: 'executeTool.aborted-before',
    group: 'webmcp',
    title: 'a signal aborted before the call → rejected with its reason; execute never runs',
    async run(t) {
      let ran = 0;
      await t.reg(t.tool('a', { execute: () => (ran++, 'ok') }));
      const [tool] = await t.mine();
      const reason = new Error('before');
      await t.rejects(() => t.mc.executeTool(tool, {}, { signal: AbortSignal.abort(reason) }), (e) => e === reason, 'executeTool');
      await tick(10);
      t.eq(ran, 0, 'execute runs');
    },
  },

  // ---------------------------------------------------------------- this project, on purpose
  {
    id: 'project.navigator-modelContext',
    group: 'project',
    title: 'navigator.modelContext (earlier drafts) is the same object as document.modelContext',
    async run(t) {
      t.ok(navigator.modelContext === document.modelContext, `navigator.modelContext is ${navigator.modelContext === undefined ? 'undefined' : 'another object'}`);
    },
  },
  {
    id: 'project.input-validation',
    group: 'project',
    title: 'input that violates inputSchema → rejected with DataError naming the path and keyword; execute does not run',
    async run(t) {
      let ran = 0;
      await t.reg(t.tool('typed', {
        inputSchema: { type: 'object', properties: { text: { type: 'string' }, n: { type: 'integer', minimum: 1 } }, required: ['text'] },
        execute: () => (ran++, 'ran'),
      }));
      const [tool] = await t.mine();
      const e1 = await t.rejects(() => t.mc.executeTool(tool, { text: 5 }), 'DataError', 'text: 5');
      t.ok(/\/text/.test(e1.message) && /type/.test(e1.message), `the message does not name /text and type: ${e1.message}`);
      const e2 = await t.rejects(() => t.mc.executeTool(tool, { text: 'x', n: 0 }), 'DataError', 'n: 0');
      t.ok(/\/n/.test(e2.message) && /minimum/.test(e2.message), `the message does not name /n and minimum: ${e2.message}`);
      await t.rejects(() => t.mc.executeTool(tool, {}), 'DataError', 'text missing');
      t.eq(await t.mc.executeTool(tool, { text: 'x', n: 2 }), 'ran', 'valid input');
      t.eq(ran, 1, 'execute runs');
    },
  },
  {
    id: 'project.error-message-kept',
    group: 'project',
    title: "a throwing execute's UnknownError keeps the handler's message",
    async run(t) {
      await t.reg(t.tool('a', { execute() { throw new Error('the disk is full'); } }));
      const [tool] = await t.mine();
      const e = await t.rejects(() => t.mc.executeTool(tool, {}), 'UnknownError', 'executeTool');
      t.ok(/the disk is full/.test(e.message), `message: ${e.message}`);
    },
  },
  {
    id: 'project.earlier-drafts',
    group: 'project',
    title: 'earlier drafts: provideContext({tools}) replaces the tool set, unregisterTool(name) and clearContext() remove',
    async run(t) {
      for (const k of ['provideContext', 'unregisterTool', 'clearContext']) t.eq(typeof t.mc[k], 'function', `typeof modelContext.${k}`);
      const silence = console.warn;
      console.warn = () => {};
      try {
        t.mc.provideContext({ tools: [t.tool('p1'), t.tool('p2')] });
        await tick();
        t.eq((await t.mine()).map((x) => x.name), [t.n('p1'), t.n('p2')], 'after provideContext');
        t.mc.unregisterTool(t.n('p1'));
        t.eq((await t.mine()).map((x) => x.name), [t.n('p2')], 'after unregisterTool');
        t.mc.clearContext();
        t.eq((await t.mine()).length, 0, 'after clearContext');
      } finally {
        console.warn = silence;
      }
    },
  },

  // ---------------------------------------------------------------------------- session API
  {
    id: 'session.registerTool-name-def',
    group: 'session',
    title: 'registerTool(name, {description, inputSchema, handler}) returns an unregister function; the tool is in getTools',
    async run(t) {
      needSessionApi(t);
      const unregister = t.mc.registerTool(t.n('s'), {
        title: 'S',
        description: 'A session tool',
        inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
        handler: ({ q }) => ({ content: [{ type: 'text', text: `got ${q}` }] }),
      });
      t.cleanup(() => unregister());
      t.eq(typeof unregister, 'function', 'registerTool(name, def) returned');
      const [tool] = await t.mine();
      t.eq([tool && tool.name, tool && tool.title, tool && tool.description], [t.n('s'), 'S', 'A session tool'], 'getTools entry');
      t.eq(await t.mc.executeTool(tool, { q: 'x' }), '{"content":[{"type":"text","text":"got x"}]}', 'executeTool through the W3C door');
      unregister();
      t.eq((await t.mine()).length, 0, 'tools after unregister()');
    },
  },
  {
    id: 'session.connect-disconnect',
    group: 'session',
    title: 'connect() resolves to a session whose registrations disconnect() removes',
    async run(t) {
      needSessionApi(t);
      const session = await t.resolves(() => t.mc.connect(), 'connect()');
      t.cleanup(() => session.disconnect());
      for (const k of ['registerTool', 'registerResource', 'registerPrompt', 'notify', 'disconnect']) t.eq(typeof session[k], 'function', `typeof session.${k}`);
      session.registerTool(t.n('x'), { description: 'x', handler: () => 'x' });
      t.eq((await t.mine()).length, 1, 'tools after session.registerTool');
      t.eq(session.isConnected(), true, 'isConnected()');
      session.disconnect();
      t.eq((await t.mine()).length, 0, 'tools after disconnect()');
      let err;
      try {
        session.registerTool(t.n('y'), { description: 'y', handler: () => 'y' });
      } catch (e) {
        err = e;
      }
      t.eq(describeError(err), 'InvalidStateError (DOMException)', 'registerTool after disconnect');
    },
  },
  {
    id: 'session.mcp-initialize',
    group: 'session',
    title: 'MCP over the tab transport: initialize (2025-11-25) answers serverInfo and tools/resources/prompts capabilities',
    async run(t) {
      const c = await mcpClient(t);
      const r = result(t, await c.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'conformance-page', version: '1' } }), 'initialize');
      t.eq(r.protocolVersion, '2025-11-25', 'protocolVersion');
      t.ok(r.serverInfo && typeof r.serverInfo.name === 'string', 'serverInfo.name missing');
      t.ok(r.capabilities && r.capabilities.tools, 'capabilities.tools missing');
      c.notify('notifications/initialized');
      t.eq(result(t, await c.request('ping'), 'ping'), {}, 'ping');
    },
  },
  {
    id: 'session.mcp-tools-list',
    group: 'session',
    title: 'MCP tools/list lists a tool registered through the W3C door, with its schema and annotations',
    async run(t) {
      await t.reg(t.tool('w3c', { title: 'W', inputSchema: { type: 'object', properties: { a: { type: 'number' } } }, annotations: { readOnlyHint: true } }));
      const c = await mcpClient(t, '2025-11-25');
      const r = result(t, await c.request('tools/list', {}), 'tools/list');
      const tool = r.tools.find((x) => x.name === t.n('w3c'));
      t.ok(tool, 'the tool is not in tools/list');
      t.eq(tool.inputSchema, { type: 'object', properties: { a: { type: 'number' } } }, 'inputSchema');
      t.eq(tool.annotations && tool.annotations.readOnlyHint, true, 'annotations.readOnlyHint');
      t.eq(tool.title, 'W', 'title');
    },
  },
  {
    id: 'session.mcp-tools-call',
    group: 'session',
    title: 'MCP tools/call runs a W3C execute and returns its string as text content',
    async run(t) {
      await t.reg(t.tool('echo', { inputSchema: { type: 'object', properties: { s: { type: 'string' } } }, execute: ({ s }) => `echo:${s}` }));
      const c = await mcpClient(t, '2025-11-25');
      const r = result(t, await c.request('tools/call', { name: t.n('echo'), arguments: { s: 'hi' } }), 'tools/call');
      t.eq(r.content, [{ type: 'text', text: 'echo:hi' }], 'content');
      t.ok(!r.isError, 'isError is set');
    },
  },
  {
    id: 'session.mcp-invalid-arguments',
    group: 'session',
    title: 'MCP tools/call with arguments that violate the schema → an isError result (2025-11-25); the handler does not run',
    async run(t) {
      let ran = 0;
      await t.reg(t.tool('typed', { inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, execute: () => (ran++, 'ran') }));
      const c = await mcpClient(t, '2025-11-25');
      const r = result(t, await c.request('tools/call', { name: t.n('typed'), arguments: { n: 'x' } }), 'tools/call');
      t.eq(r.isError, true, 'isError');
      t.ok(/\/n/.test(r.content[0].text), `the text does not name /n: ${r.content[0].text}`);
      t.eq(ran, 0, 'handler runs');
    },
  },
  {
    id: 'session.mcp-handler-extra',
    group: 'session',
    title: 'session-API handlers get (args, extra) with extra.signal, and extra.reportProgress sends notifications/progress',
    async run(t) {
      needSessionApi(t);
      let extraKeys;
      const unregister = t.mc.registerTool(t.n('p'), {
        description: 'progress',
        handler: async (args, extra) => {
          extraKeys = ['signal', 'reportProgress', 'log', 'sendRequest'].filter((k) => k in extra);
          extra.reportProgress(1, 2, 'half');
          extra.reportProgress(2, 2, 'done');
          return 'ok';
        },
      });
      t.cleanup(() => unregister());
      const c = await mcpClient(t, '2025-11-25');
      const r = result(t, await c.request('tools/call', { name: t.n('p'), arguments: {}, _meta: { progressToken: 'tok' } }), 'tools/call');
      t.eq(r.content, [{ type: 'text', text: 'ok' }], 'content');
      t.eq(extraKeys, ['signal', 'reportProgress', 'log', 'sendRequest'], 'members of extra');
      const progress = c.messages.filter((m) => m.method === 'notifications/progress').map((m) => [m.params.progressToken, m.params.progress, m.params.total, m.params.message]);
      t.eq(progress, [['tok', 1, 2, 'half'], ['tok', 2, 2, 'done']], 'progress notifications');
    },
  },
  {
    id: 'session.mcp-resources',
    group: 'session',
    title: 'registerResource: resources/list and resources/read (static and template) reach the handler',
    async run(t) {
      needSessionApi(t);
      const u1 = t.mc.registerResource(`test://${t.prefix}static`, { name: 'static', mimeType: 'text/plain', handler: (uri) => `text of ${uri}` });
      const u2 = t.mc.registerResource(`test://${t.prefix}item/{id}`, { name: 'item', mimeType: 'application/json', handler: (uri, vars) => JSON.stringify(vars) });
      t.cleanup(() => (u1(), u2()));
      const c = await mcpClient(t, '2025-11-25');
      const list = result(t, await c.request('resources/list', {}), 'resources/list');
      t.ok(list.resources.some((r) => r.uri === `test://${t.prefix}static`), 'the static resource is not listed');
      const templates = result(t, await c.request('resources/templates/list', {}), 'resources/templates/list');
      t.ok(templates.resourceTemplates.some((r) => r.uriTemplate === `test://${t.prefix}item/{id}`), 'the template is not listed');
      const r1 = result(t, await c.request('resources/read', { uri: `test://${t.prefix}static` }), 'resources/read static');
      t.eq(r1.contents, [{ uri: `test://${t.prefix}static`, mimeType: 'text/plain', text: `text of test://${t.prefix}static` }], 'static contents');
      const r2 = result(t, await c.request('resources/read', { uri: `test://${t.prefix}item/42` }), 'resources/read template');
      t.eq(r2.contents[0].text, '{"id":"42"}', 'template variables');
    },
  },
  {
    id: 'session.mcp-prompts',
    group: 'session',
    title: 'registerPrompt: prompts/list shows the arguments; prompts/get renders; a missing required argument → -32602',
    async run(t) {
      needSessionApi(t);
      const u = t.mc.registerPrompt(t.n('greet'), {
        description: 'Greets',
        arguments: [{ name: 'who', required: true }],
        handler: ({ who }) => `Hello, ${who}!`,
      });
      t.cleanup(() => u());
      const c = await mcpClient(t, '2025-11-25');
      const list = result(t, await c.request('prompts/list', {}), 'prompts/list');
      const p = list.prompts.find((x) => x.name === t.n('greet'));
      t.eq(p && p.arguments, [{ name: 'who', required: true }], 'listed arguments');
      const got = result(t, await c.request('prompts/get', { name: t.n('greet'), arguments: { who: 'Ada' } }), 'prompts/get');
      t.eq(got.messages, [{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }], 'messages');
      const missing = await c.request('prompts/get', { name: t.n('greet'), arguments: {} });
      t.eq(missing.error && missing.error.code, -32602, 'error code for a missing argument');
    },
  },
  {
    id: 'session.mcp-stateless',
    group: 'session',
    title: 'MCP 2026-07-28 (stateless): server/discover, then tools/list with resultType "complete" — no initialize',
    async run(t) {
      needSessionApi(t);
      await t.reg(t.tool('s'));
      // A channel of its own: the default channel's session may already be in the handshake era.
      const channel = `${t.prefix}stateless`;
      const session = await t.resolves(() => t.mc.connect({ transport: { type: 'tab', channelId: channel } }), 'connect({ transport: tab })');
      t.cleanup(() => session.disconnect());
      const c = tabClient({ channel });
      t.cleanup(() => c.close());
      const d = result(t, await c.request('server/discover', { _meta: STATELESS_META }), 'server/discover');
      t.ok(Array.isArray(d.supportedVersions) && d.supportedVersions.includes('2026-07-28'), `supportedVersions: ${show(d.supportedVersions)}`);
      const r = result(t, await c.request('tools/list', { _meta: STATELESS_META }), 'tools/list');
      t.eq(r.resultType, 'complete', 'resultType');
      t.ok(r.tools.some((x) => x.name === t.n('s')), 'the tool is not listed');
      const bad = await c.request('tools/list', { _meta: { ...STATELESS_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } });
      t.eq(bad.error && bad.error.code, -32022, 'error code for an unsupported protocol version');
    },
  },
];

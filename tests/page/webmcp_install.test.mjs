// The installer (polyfill/src/install.js): one ModelContext at navigator.modelContext and
// document.modelContext, the interface objects, idempotence across copies and builds, and both
// ways of loading it (classic <script> and ESM import).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, requireDist, inlinePage, CRATE_VERSION } from './harness.mjs';

const CLASSIC = '<script src="/dist/modelcontext.iife.js"></script>';
const ESM = `<script type="module">import '/dist/modelcontext.js'; window.esmDone = true;</script>`;

/** What a page sees of the installation (evaluated in the page). */
function observe() {
  const mark = globalThis[Symbol.for('modelcontext-polyfill')];
  const mc = document.modelContext;
  let ctor;
  try { new ModelContext(); ctor = 'constructed'; } catch (e) { ctor = `${e.constructor.name}: ${e.message}`; }
  const d = (o, k) => { const x = Object.getOwnPropertyDescriptor(o, k); return x && { get: typeof x.get, enumerable: x.enumerable, configurable: x.configurable }; };
  return {
    sameObject: mc === navigator.modelContext && mc === document.modelContext,
    isModelContext: mc instanceof ModelContext && mc instanceof EventTarget,
    ctor,
    interfaces: ['ModelContext', 'ToolActivatedEvent', 'ToolCancelEvent'].map((n) => [n, typeof window[n], Object.getOwnPropertyDescriptor(window, n)?.enumerable]),
    // The interface objects keep their names (the release scripts' minifier renames classes).
    names: [ModelContext.name, ToolActivatedEvent.name, ToolCancelEvent.name, mc.constructor.name, Object.prototype.toString.call(mc)],
    events: [new ToolActivatedEvent('toolactivated').toolName, new ToolCancelEvent('toolcancel', { toolName: 't' }).toolName, new ToolActivatedEvent('x') instanceof Event],
    documentAccessor: d(Document.prototype, 'modelContext'),
    navigatorAccessor: d(Object.getPrototypeOf(navigator), 'modelContext'),
    ownProperty: Object.prototype.hasOwnProperty.call(document, 'modelContext') || Object.prototype.hasOwnProperty.call(navigator, 'modelContext'),
    otherDocument: document.implementation.createHTMLDocument('x').modelContext,
    testing: typeof navigator.modelContextTesting,
    mark: mark && { version: mark.version, format: mark.format, same: mark.modelContext === mc, native: mark.native },
    leakedGlobals: ['wasm_bindgen', 'install', '__mcpDefineModelContext', '__mcpDefineToolEvent'].filter((n) => n in window),
  };
}

const EXPECTED = (format) => ({
  sameObject: true,
  isModelContext: true,
  ctor: "TypeError: Failed to construct 'ModelContext': Illegal constructor",
  interfaces: [['ModelContext', 'function', false], ['ToolActivatedEvent', 'function', false], ['ToolCancelEvent', 'function', false]],
  names: ['ModelContext', 'ToolActivatedEvent', 'ToolCancelEvent', 'ModelContext', '[object ModelContext]'],
  events: ['', 't', true],
  documentAccessor: { get: 'function', enumerable: true, configurable: true },
  navigatorAccessor: { get: 'function', enumerable: true, configurable: true },
  ownProperty: false,
  otherDocument: null,
  testing: 'object',
  mark: { version: CRATE_VERSION, format, same: true, native: null },
  leakedGlobals: [],
});

const duplicateWarnings = (consoleMessages) =>
  consoleMessages.filter((m) => m.type === 'warning' && /already installed/.test(m.text)).map((m) => m.text);

test('classic script: installs synchronously, one object at both places', () => {
  requireDist();
  return withPage(async ({ page, consoleMessages }) => {
    assert.deepEqual(await page.evaluate(observe), EXPECTED('classic'));
    assert.equal(await page.evaluate(() => window.seenByNextScript), true);
    assert.deepEqual(consoleMessages.filter((m) => m.type === 'warning' || m.type === 'error').map((m) => m.text)
      .filter((t) => !/favicon|404/.test(t)), []);
  }, { html: `${CLASSIC}<script>window.seenByNextScript = document.modelContext === navigator.modelContext && !!document.modelContext;</script>` });
});

test('ESM import: installed before the importing module body runs', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.esmDone === true);
    assert.deepEqual(await page.evaluate(observe), EXPECTED('esm'));
    assert.equal(await page.evaluate(() => window.seenInBody), true);
  }, { html: `<script type="module">import '/dist/modelcontext.js'; window.seenInBody = !!document.modelContext; window.esmDone = true;</script>` }));

/**
 * Every function a page reaches from what the polyfill gives it (the objects, their prototypes,
 * the interface objects, the ES module's exports and their prototypes), whose name is not what
 * the property it is reached by says: `key` for a method or a class, `get key` / `set key` for an
 * accessor (WebIDL's names, and what a class's own members are named). Evaluated in the page.
 */
async function misnamed(src) {
  const m = src ? await import(src) : null;
  if (m) await m.ready;
  const stop = [Object.prototype, Function.prototype, EventTarget.prototype, Event.prototype, Error.prototype, Promise.prototype];
  const seen = new Set(stop);
  const out = [];
  const walk = (obj, path) => {
    if (obj === null || (typeof obj !== 'object' && typeof obj !== 'function') || seen.has(obj)) return;
    seen.add(obj);
    for (const key of Object.getOwnPropertyNames(obj)) {
      if (typeof obj === 'function' && ['caller', 'arguments', 'length', 'name'].includes(key)) continue;
      const d = Object.getOwnPropertyDescriptor(obj, key);
      for (const [f, want] of [[d.value, key], [d.get, `get ${key}`], [d.set, `set ${key}`]]) {
        if (typeof f === 'function' && key !== 'constructor' && f.name !== want) out.push(`${path}.${key}: ${JSON.stringify(f.name)}`);
        if (key !== 'constructor') walk(f, `${path}.${key}`);
      }
    }
    walk(Object.getPrototypeOf(obj), `${path}.__proto__`);
  };
  walk({ ModelContext, ToolActivatedEvent, ToolCancelEvent }, 'window');
  walk(navigator.modelContext, 'modelContext');
  walk(navigator.modelContextTesting, 'modelContextTesting');
  if (m) walk(m, 'module');
  return out;
}

test('every function a page reaches is named as WebIDL or its class names it (the classic script, and the ES module with its exports)', async () => {
  await withPage(async ({ page }) => {
    assert.deepEqual(await page.evaluate(misnamed, null), []);
  }, { html: CLASSIC });
  await withPage(async ({ page }) => {
    // The module's exports include the client's classes (stand-ins until the client module loads).
    const names = await page.evaluate(async () => Object.keys(await import('/dist/modelcontext.js')));
    assert.ok(names.includes('McpClient') && names.includes('TabClientTransport'), names.join(' '));
    assert.deepEqual(await page.evaluate(misnamed, '/dist/modelcontext.js'), []);
  }, { html: ESM });
});

test('loading the classic build three times: later copies do nothing and one warning is logged', () =>
  withPage(async ({ page, consoleMessages }) => {
    await page.waitForFunction(() => window.toolsAfter); // getTools() settles once the core has loaded
    const r = await page.evaluate(() => ({ first: window.first === document.modelContext, tools: window.toolsAfter }));
    assert.deepEqual(r, { first: true, tools: ['kept'] });
    assert.deepEqual(await page.evaluate(observe), EXPECTED('classic'));
    const warnings = duplicateWarnings(consoleMessages);
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.match(warnings[0], new RegExp(`modelcontext-polyfill ${CRATE_VERSION}: already installed \\(version ${CRATE_VERSION}\\); this copy does nothing`));
  }, {
    html: `${CLASSIC}<script>window.first = document.modelContext;
      document.modelContext.registerTool({ name: 'kept', description: 'd', execute() {} });</script>
      ${CLASSIC}${CLASSIC}<script>document.modelContext.getTools().then((t) => { window.toolsAfter = t.map((x) => x.name); });</script>`,
  }));

test('classic then ESM: the ESM copy does nothing and warns once', () =>
  withPage(async ({ page, consoleMessages }) => {
    await page.waitForFunction(() => window.esmDone === true);
    assert.deepEqual(await page.evaluate(observe), EXPECTED('classic'));
    assert.equal(duplicateWarnings(consoleMessages).length, 1);
  }, { html: `${CLASSIC}${ESM}` }));

test('ESM then classic: the classic copy does nothing and warns once', () =>
  withPage(async ({ page, consoleMessages }) => {
    await page.waitForFunction(() => window.esmDone === true);
    await page.addScriptTag({ url: '/dist/modelcontext.iife.js' });
    await page.addScriptTag({ url: '/dist/modelcontext.iife.js' });
    assert.deepEqual(await page.evaluate(observe), EXPECTED('esm'));
    assert.equal(duplicateWarnings(consoleMessages).length, 1);
  }, { html: ESM }));

test('the installed object works through both names (a smoke run of each door)', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      await navigator.modelContext.registerTool({ name: 'w3c', description: 'd', execute: () => 'w3c' });
      const off = document.modelContext.registerTool('session', { description: 'd', handler: () => 'session' });
      const names = (await document.modelContext.getTools()).map((t) => t.name);
      off();
      return { names, after: (await navigator.modelContext.getTools()).map((t) => t.name), offType: typeof off };
    });
    assert.deepEqual(r, { names: ['session', 'w3c'], after: ['w3c'], offType: 'function' });
  }, { html: CLASSIC }));

// [SecureContext]: plain http to a name other than localhost is not a secure context. Chromium
// resolves insecure.test to the test server here.
const INSECURE_HOST = ['--host-resolver-rules=MAP insecure.test 127.0.0.1'];

test('in a context that is not secure nothing is installed (as in Chromium); the console says why once, and the ES module\'s ready rejects saying it', () =>
  withPage(async ({ page, server, consoleMessages }) => {
    const origin = server.origin.replace('127.0.0.1', 'insecure.test');
    await page.goto(origin + (await inlinePage(`${CLASSIC}${CLASSIC}<script type="module">
      import { ready } from '/dist/modelcontext.js';
      window.esmReady = ready.then(() => 'resolved', (e) => e.name + ': ' + e.message);
    </script>`)));
    await page.waitForFunction(() => window.esmReady);
    const r = await page.evaluate(async () => ({
      secure: isSecureContext,
      present: ['modelContext' in document, 'modelContext' in navigator, 'modelContextTesting' in navigator, typeof ModelContext, typeof ToolActivatedEvent],
      record: typeof globalThis[Symbol.for('modelcontext-polyfill')],
      ready: await window.esmReady,
    }));
    const expected = `modelcontext-polyfill: not installed: ${origin} is not a secure context, and WebMCP is exposed to secure contexts only ` +
      `(https:, localhost, file:), as in Chromium. To try it over plain http, start Chromium with --unsafely-treat-insecure-origin-as-secure=${origin}.`;
    assert.deepEqual(r, {
      secure: false,
      present: [false, false, false, 'undefined', 'undefined'],
      record: 'undefined',
      ready: `NotSupportedError: ${expected}`,
    });
    // Three copies (two classic, one ES module), one warning.
    const warnings = consoleMessages.filter((m) => m.text.includes('not a secure context'));
    assert.equal(warnings.length, 1, warnings.map((m) => m.text).join('\n'));
    assert.equal(warnings[0].type, 'warning');
    assert.equal(warnings[0].text, `${expected} (version ${CRATE_VERSION})`);
  }, { args: INSECURE_HOST }));

// A lockdown (SES's `lockdown()`, or Object.freeze) before the polyfill loads: the prototypes
// take no new property.
const FREEZE_PROTOTYPES = `<script>
  Object.freeze(Document.prototype);
  Object.freeze(Object.getPrototypeOf(navigator));
  Object.freeze(SubmitEvent.prototype);
</script>`;

test('prototypes frozen by a lockdown: the accessors go on document and navigator themselves, and everything works', () =>
  withPage(async ({ page, consoleMessages }) => {
    const r = await page.evaluate(async () => {
      await globalThis[Symbol.for('modelcontext-polyfill')].ready;
      const mc = document.modelContext;
      await mc.registerTool({ name: 'hi', description: 'd', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, execute: ({ n }) => 'hi ' + n });
      const tools = await mc.getTools();
      return {
        same: mc === navigator.modelContext && mc instanceof ModelContext,
        own: [Object.prototype.hasOwnProperty.call(document, 'modelContext'), Object.prototype.hasOwnProperty.call(navigator, 'modelContext')],
        onPrototypes: ['modelContext' in Document.prototype, 'modelContext' in Object.getPrototypeOf(navigator)],
        tools: tools.map((t) => t.name).sort(),
        ran: await mc.executeTool(tools.find((t) => t.name === 'hi'), { n: 1 }),
        submitExtras: 'agentInvoked' in SubmitEvent.prototype,
      };
    });
    assert.deepEqual(r, {
      same: true, own: [true, true], onPrototypes: [false, false],
      // The form is a tool still; only its submit events lack the extras.
      tools: ['form_tool', 'hi'], ran: 'hi 1', submitExtras: false,
    });
    const w = consoleMessages.filter((m) => m.type === 'warning' && /SubmitEvent\.prototype takes no new property/.test(m.text));
    assert.equal(w.length, 1);
  }, { html: `${FREEZE_PROTOTYPES}${CLASSIC}<form toolname="form_tool" tooldescription="A form"><input name="q"></form>` }));

test('prototypes and objects frozen: nothing is installed and nothing fetched; the console says why once, and ready rejects saying it', () =>
  withPage(async ({ page, goto, consoleMessages }) => {
    const requested = [];
    page.on('request', (q) => requested.push(new URL(q.url()).pathname));
    await goto(await inlinePage(`${FREEZE_PROTOTYPES}<script>Object.freeze(document); Object.freeze(navigator);</script>${CLASSIC}${CLASSIC}
      <script type="module">
        import { ready } from '/dist/modelcontext.js';
        window.esmReady = ready.then(() => 'resolved', (e) => e.name + ': ' + e.message);
      </script>`));
    await page.waitForFunction(() => window.esmReady);
    const r = await page.evaluate(async () => ({
      present: [typeof document.modelContext, typeof navigator.modelContext, typeof ModelContext],
      record: typeof globalThis[Symbol.for('modelcontext-polyfill')],
      ready: await window.esmReady,
    }));
    const why = 'modelcontext-polyfill: not installed: neither Document.prototype nor document can take a new property ' +
      "(a lockdown, such as SES's, froze them). Load the polyfill before the lockdown.";
    assert.deepEqual(r, { present: ['undefined', 'undefined', 'undefined'], record: 'undefined', ready: `NotSupportedError: ${why}` });
    const w = consoleMessages.filter((m) => m.text.includes('not installed'));
    assert.deepEqual(w.map((m) => [m.type, m.text]), [['warning', `${why} (version ${CRATE_VERSION})`]]);
    assert.deepEqual(requested.filter((p) => /modelcontext_(core|glue)/.test(p)), []);
  }));

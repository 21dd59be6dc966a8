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
    // The interface objects keep their names (the release scripts are minified without renaming).
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

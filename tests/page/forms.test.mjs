// The declarative API (src/browser/forms/): `<form toolname tooldescription [toolautosubmit]>`
// registers a tool whose input schema comes from the form's controls; an agent's call fills the
// form and waits for its submission, whose SubmitEvent has agentInvoked and respondWith.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, requireDist, PAGE_UNTIL } from './harness.mjs';
import { MCP_CLIENT } from './webmcp.mcp.mjs';

const HELPERS = `
${PAGE_UNTIL}
window.__tool = async (name) => (await document.modelContext.getTools()).find((t) => t.name === name);
window.__names = async () => (await document.modelContext.getTools()).map((t) => t.name);
window.__tick = () => new Promise((r) => setTimeout(r, 50));
// A promise's value, or the name of its rejection.
window.__outcome = async (p) => {
  try { return await p; } catch (e) { return e.name; }
};
// The same, with the rejection's message: "name: message".
window.__outcomeText = async (p) => {
  try { return await p; } catch (e) { return e.name + ': ' + e.message; }
};
// Whether el matches :tool-<kind>-active (native Chromium) or has the polyfill's stand-in
// attribute data-tool-<kind>-active (a script cannot add the pseudo-class to CSS).
window.__active = (el, kind) => {
  try { return el.matches(':tool-' + kind + '-active'); } catch { return el.hasAttribute('data-tool-' + kind + '-active'); }
};
`;
const POLYFILL = '<script src="/dist/modelcontext.iife.js"></script>';
const page = (body = '') => `<script>${HELPERS}</script><script>${MCP_CLIENT}</script>${POLYFILL}\n${body}`;

const SEARCH = '<form toolname="search" tooldescription="Search the site"><input name="q"></form>';

test('a plain text input: the schema native Chromium gives', () => {
  requireDist('modelcontext.iife.js');
  return withPage(async ({ page: p }) => {
    const t = await p.evaluate(() => window.__tool('search'));
    assert.deepEqual(t.inputSchema, { type: 'object', properties: { q: { type: 'string' } }, required: [] });
    assert.equal(t.description, 'Search the site');
    assert.equal('annotations' in t, false);
    assert.equal(t.title, '');
  }, { html: page(SEARCH) });
});

test('native Chromium (no polyfill): the same schema for the same form', () =>
  withPage(async ({ page: p }) => {
    const r = await p.evaluate(async () => {
      const t = (await document.modelContext.getTools()).find((x) => x.name === 'search');
      return {
        inputSchema: t.inputSchema,
        annotations: 'annotations' in t,
        submitEvent: ['agentInvoked', 'respondWith'].map((k) => k in SubmitEvent.prototype),
      };
    });
    assert.deepEqual(r, {
      inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: [] },
      annotations: false,
      submitEvent: [true, true],
    });
  }, { html: `<script>${HELPERS}</script>${SEARCH}`, nativeWebMCP: true }));

const BOOK = `
  <form toolname="book" tooldescription="Book a room">
    <input name="name" required minlength="2" maxlength="40" toolparamdescription="Your name">
    <input name="email" type="email" required>
    <input name="site" type="url">
    <input name="phone" type="tel">
    <input name="day" type="date">
    <input name="guests" type="number" min="1" max="8" step="1">
    <input name="budget" type="range" min="0" max="100">
    <input name="ratio" type="number" step="any">
    <input name="vip" type="checkbox">
    <input name="extras" type="checkbox" value="wifi"><input name="extras" type="checkbox" value="parking">
    <select name="room" required toolparamdescription="Room kind">
      <option value="single">1</option><option value="double">2</option><option>suite</option>
    </select>
    <select name="meals" multiple><option>breakfast</option><option>dinner</option></select>
    <input type="radio" name="seat" value="window" required><input type="radio" name="seat" value="aisle">
    <textarea name="notes" toolparamdescription="Anything else"></textarea>
    <label>Your  city <input name="city"></label>
    <label><input type="radio" name="size" value="s"> Small</label><label for="m">Medium</label><input id="m" type="radio" name="size" value="m">
    <label>Newsletter <input type="checkbox" name="news"></label>
    <label>Floor <select name="floor"><option value="1">First</option><option value="2" label="Lab">Second</option></select></label>
    <input type="hidden" name="token" value="x">
    <input type="file" name="upload">
    <input placeholder="no name">
    <button name="go">Go</button>
  </form>`;
const choices = (list) => ({
  anyOf: list.map(([v, title]) => (title === undefined ? { type: 'string', const: v } : { type: 'string', const: v, title })),
  enum: list.map(([v]) => v),
});
const BOOK_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Your name', minLength: 2, maxLength: 40 },
    email: { type: 'string', format: 'email' },
    site: { type: 'string', format: 'uri' },
    phone: { type: 'string' },
    day: { type: 'string', format: 'date', description: "Dates MUST be provided in 'YYYY-MM-DD' format." },
    guests: { type: 'number', minimum: 1, maximum: 8, multipleOf: 1 },
    budget: { type: 'number', minimum: 0, maximum: 100, multipleOf: 1 },
    ratio: { type: 'number' },
    vip: { type: 'boolean' },
    extras: { type: 'array', items: { type: 'string', ...choices([['wifi'], ['parking']]) }, uniqueItems: true },
    room: { type: 'string', ...choices([['single', '1'], ['double', '2'], ['suite', 'suite']]), description: 'Room kind' },
    meals: { type: 'array', items: { type: 'string', ...choices([['breakfast', 'breakfast'], ['dinner', 'dinner']]) }, uniqueItems: true },
    seat: { type: 'string', ...choices([['window'], ['aisle']]) },
    notes: { type: 'string', description: 'Anything else' },
    city: { type: 'string', description: 'Your  city' },
    size: { type: 'string', ...choices([['s', 'Small'], ['m', 'Medium']]) },
    news: { type: 'boolean', description: 'Newsletter' },
    floor: { type: 'string', ...choices([['1', 'First'], ['2', 'Second']]), description: 'Floor' },
  },
  required: ['name', 'email', 'room', 'seat'],
};
// D11 (NATIVE_DIFFERENCES.md): the polyfill keeps minlength/maxlength and the email and url
// formats as schema constraints (it validates input with them); native Chromium drops them, and
// lists a control without a name under the property "".
const BOOK_NATIVE = structuredClone(BOOK_SCHEMA);
delete BOOK_NATIVE.properties.name.minLength;
delete BOOK_NATIVE.properties.name.maxLength;
delete BOOK_NATIVE.properties.email.format;
delete BOOK_NATIVE.properties.site.format;
BOOK_NATIVE.properties[''] = { type: 'string' };

sideBySide('schema synthesis for each kind of control: choices with titles, labels as descriptions, steps',
  BOOK,
  async () => (await __tool('book')).inputSchema,
  BOOK_SCHEMA,
  BOOK_NATIVE);

test('forms added, changed and removed later update the tools and fire toolchange', () =>
  withPage(async ({ page: p }) => {
    const r = await p.evaluate(async () => {
      const out = {};
      let changes = 0;
      document.modelContext.addEventListener('toolchange', () => changes++);
      out.initial = await __names();
      const form = document.createElement('form');
      form.setAttribute('toolname', 'later');
      form.setAttribute('tooldescription', 'Added later');
      form.innerHTML = '<input name="a">';
      document.body.append(form);
      await __until(async () => (await __names()).includes('later'), 'the new form');
      await __until(() => changes >= 1, 'toolchange');
      out.added = await __names();

      let before = changes;
      form.setAttribute('tooldescription', 'Changed');
      await __until(() => changes > before, 'toolchange after tooldescription');
      out.description = (await __tool('later')).description;

      before = changes;
      form.setAttribute('toolautosubmit', '');
      await __until(() => changes > before, 'toolchange after toolautosubmit');

      before = changes;
      form.setAttribute('toolname', 'renamed');
      await __until(() => changes > before, 'toolchange after toolname');
      out.renamed = await __names();

      before = changes;
      const b = document.createElement('input');
      b.name = 'b';
      b.type = 'number';
      form.append(b);
      await __until(() => changes > before, 'toolchange after a control was added');
      out.withB = (await __tool('renamed')).inputSchema.properties;

      before = changes;
      form.elements.a.name = 'c';
      await __until(() => changes > before, 'toolchange after a control was renamed');
      out.renamedControl = Object.keys((await __tool('renamed')).inputSchema.properties);

      before = changes;
      b.remove();
      await __until(() => changes > before, 'toolchange after a control was removed');
      out.withoutB = Object.keys((await __tool('renamed')).inputSchema.properties);

      before = changes;
      form.remove();
      await __until(() => changes > before, 'toolchange after the form was removed');
      out.removed = await __names();

      // Unrelated mutations change nothing.
      before = changes;
      document.body.append(document.createElement('div'));
      document.body.setAttribute('data-x', '1');
      await __tick();
      out.unrelated = changes - before;
      return out;
    });
    assert.deepEqual(r, {
      initial: ['search'],
      added: ['later', 'search'],
      description: 'Changed',
      renamed: ['renamed', 'search'],
      withB: { a: { type: 'string' }, b: { type: 'number', multipleOf: 1 } },
      renamedControl: ['c', 'b'],
      withoutB: ['c'],
      removed: ['search'],
      unrelated: 0,
    });
  }, { html: page(SEARCH) }));

test('a page that starts without tool forms: forms that arrive later, in any way, become tools', () =>
  withPage(async ({ page: p }) => {
    const r = await p.evaluate(async () => {
      const out = {};
      out.initial = await __names();
      // Unrelated changes first (these batches are not scanned: no tool form could be in them).
      const list = document.createElement('ul');
      document.body.append(list);
      for (let i = 0; i < 50; i++) { list.append(document.createElement('li')); await Promise.resolve(); }
      await __tick();
      out.afterUnrelated = await __names();
      // Nested in an added subtree.
      const wrap = document.createElement('section');
      wrap.innerHTML = '<div><form toolname="nested" tooldescription="Nested"><input name="a"></form></div>';
      document.body.append(wrap);
      await __until(async () => (await __names()).includes('nested'), 'the nested form');
      wrap.remove();
      await __until(async () => !(await __names()).includes('nested'), 'the nested form removed');
      out.afterRemove = await __names();
      // A plain form that gets its toolname later.
      const plain = document.createElement('form');
      plain.setAttribute('tooldescription', 'Named later');
      plain.innerHTML = '<input name="b">';
      document.body.append(plain);
      await __tick();
      out.plain = await __names();
      plain.setAttribute('toolname', 'named');
      await __until(async () => (await __names()).includes('named'), 'the form named later');
      plain.remove();
      await __until(async () => !(await __names()).includes('named'), 'the named form removed');
      // From a DocumentFragment, and from innerHTML on an element already in the page.
      const frag = document.createDocumentFragment();
      const f = document.createElement('form');
      f.setAttribute('toolname', 'fragment');
      f.setAttribute('tooldescription', 'From a fragment');
      frag.append(f);
      document.body.append(frag);
      await __until(async () => (await __names()).includes('fragment'), 'the fragment form');
      f.remove();
      await __until(async () => !(await __names()).includes('fragment'), 'the fragment form removed');
      list.innerHTML = '<li><form toolname="inner" tooldescription="From innerHTML"></form></li>';
      await __until(async () => (await __names()).includes('inner'), 'the innerHTML form');
      out.final = await __names();
      return out;
    });
    assert.deepEqual(r, {
      initial: [],
      afterUnrelated: [],
      afterRemove: [],
      plain: [],
      final: ['inner'],
    });
  }, { html: page('') }));

test('with a tool form in the page, unrelated DOM churn changes nothing; its controls, labels and options still do', () =>
  withPage(async ({ page: p }) => {
    const r = await p.evaluate(async () => {
      const out = {};
      let changes = 0;
      document.modelContext.addEventListener('toolchange', () => changes++);
      await __until(async () => (await __names()).includes('book'), 'the form');
      await __tick();
      const schema = async () => (await __tool('book')).inputSchema;
      // Churn elsewhere: a list re-rendered, one batch at a time.
      const list = document.getElementById('elsewhere');
      const base = changes;
      for (let i = 0; i < 50; i++) { list.append(document.createElement('li')); await Promise.resolve(); }
      list.replaceChildren();
      await __tick();
      out.churn = changes - base;
      // A label outside the form (for=) gets new text in a child element.
      let before = changes;
      document.getElementById('who-label').querySelector('span').textContent = 'Guest name';
      await __until(() => changes > before, 'toolchange after the label changed');
      out.label = (await schema()).properties.who.description;
      // A control outside the form joins it through its form attribute.
      before = changes;
      const outside = document.createElement('input');
      outside.name = 'size';
      outside.type = 'number';
      outside.setAttribute('form', 'booking');
      list.append(outside);
      await __until(() => changes > before, 'toolchange after a control joined from outside');
      out.joined = Object.keys((await schema()).properties);
      // An option added to the form's select.
      before = changes;
      const o = document.createElement('option');
      o.textContent = 'terrace';
      document.querySelector('select[name=room]').append(o);
      await __until(() => changes > before, 'toolchange after an option was added');
      out.rooms = (await schema()).properties.room.enum;
      return out;
    });
    assert.deepEqual(r, {
      churn: 0,
      label: 'Guest name',
      joined: ['who', 'room', 'size'],
      rooms: ['hall', 'terrace'],
    });
  }, { html: page(`<form id="booking" toolname="book" tooldescription="Books a table"><input id="who" name="who"><select name="room"><option>hall</option></select></form>
<label id="who-label" for="who"><span>Name</span></label><ul id="elsewhere"></ul>`) }));

test('DOM changes that cannot concern a tool form do not make the polyfill scan the document', () =>
  withPage(async ({ page: p }) => {
    const r = await p.evaluate(async () => {
      // (After the core's own first scan.)
      await globalThis[Symbol.for('modelcontext-polyfill')].ready;
      await __tick();
      // The scan is document.querySelectorAll('form[toolname]'): count it.
      let scans = 0;
      const qsa = Document.prototype.querySelectorAll;
      Document.prototype.querySelectorAll = function (sel) {
        if (sel === 'form[toolname]') scans++;
        return qsa.call(this, sel);
      };
      const out = {};
      const list = document.getElementById('elsewhere');
      const churn = async () => {
        const before = scans;
        for (let i = 0; i < 20; i++) {
          const li = document.createElement('li');
          li.innerHTML = '<span>row</span>';
          li.setAttribute('name', 'x' + i); // a watched attribute, on an element added in the same batch
          list.append(li);
          await Promise.resolve();
        }
        list.replaceChildren();
        await __tick();
        return scans - before;
      };
      // No tool form yet: plain elements and plain forms coming and going are not scanned for.
      out.noForms = await churn();
      let before = scans;
      const plain = document.createElement('form');
      plain.innerHTML = '<input name="q">';
      document.body.append(plain);
      await __tick();
      out.plainForm = scans - before;
      // A toolname attribute is.
      before = scans;
      plain.setAttribute('tooldescription', 'Later');
      plain.setAttribute('toolname', 'later');
      await __until(async () => (await __names()).includes('later'), 'the form named later');
      out.named = scans > before;
      // With a tool form known: churn elsewhere is still not scanned for...
      out.known = await churn();
      // ...a control added to the form is.
      before = scans;
      const input = document.createElement('input');
      input.name = 'extra';
      plain.append(input);
      await __until(async () => Object.keys((await __tool('later')).inputSchema.properties).includes('extra'), 'the added control');
      out.control = scans > before;
      // Components' shadow roots re-rendering their own controls, which no tool form can
      // use (a control joins a form of its own tree): not scanned for...
      const roots = [];
      for (let i = 0; i < 20; i++) roots.push(list.appendChild(document.createElement('li')).appendChild(document.createElement('div')).attachShadow({ mode: 'open' }));
      await __tick();
      before = scans;
      for (let round = 0; round < 5; round++) {
        for (const root of roots) root.innerHTML = `<button>b${round}</button><input name="c${round}"><label>l</label>`;
        await Promise.resolve();
      }
      await __tick();
      out.components = scans - before;
      // ...a tool form arriving in one is.
      roots[3].innerHTML = '<form toolname="in_root" tooldescription="In a component"><input name="r"></form>';
      await __until(async () => (await __names()).includes('in_root'), 'the form in a component root');
      out.inRoot = scans > before;
      Document.prototype.querySelectorAll = qsa;
      return out;
    });
    assert.deepEqual(r, { noForms: 0, plainForm: 0, named: true, known: 0, control: true, components: 0, inRoot: true });
  }, { html: page('<ul id="elsewhere"></ul>') }));

test('a form without a description, or with a taken name, is not a tool (a console warning)', () =>
  withPage(async ({ page: p, consoleMessages }) => {
    const names = await p.evaluate(() => __names());
    assert.deepEqual(names, ['search']);
    const warnings = consoleMessages.filter((m) => m.type === 'warning').map((m) => m.text);
    assert.equal(warnings.length, 2, warnings.join('\n'));
    assert.ok(warnings.every((w) => /is not registered as a tool/.test(w)));
  }, {
    html: page(`${SEARCH}
      <form toolname="nodesc"><input name="q"></form>
      <form toolname="search" tooldescription="again"><input name="q"></form>`),
  }));

const AUTO = `
  <form toolname="greet" tooldescription="Greets" toolautosubmit>
    <input name="who" required><input name="loud" type="checkbox">
    <select name="lang"><option>en</option><option>fr</option></select>
  </form>
  <script>
    window.__seen = [];
    document.querySelector('form').addEventListener('submit', (e) => {
      const f = e.target;
      window.__seen.push({
        agentInvoked: e.agentInvoked, who: f.who.value, loud: f.loud.checked, lang: f.lang.value,
      });
      if (!e.agentInvoked) return;
      e.preventDefault();
      e.respondWith(Promise.resolve((f.lang.value === 'fr' ? 'Bonjour ' : 'Hello ') + f.who.value + (f.loud.checked ? '!' : '')));
    });
  </script>`;

test('toolautosubmit: executeTool fills and submits; the handler sees agentInvoked and responds', () =>
  withPage(async ({ page: p }) => {
    const r = await p.evaluate(async () => {
      const t = await __tool('greet');
      const result = await document.modelContext.executeTool(t, { who: 'Ada', loud: true, lang: 'fr' });
      // A submit that is not an agent's: agentInvoked is false, respondWith refuses.
      let userSubmit;
      const form = document.querySelector('form');
      form.addEventListener('submit', (e) => {
        try {
          e.respondWith(Promise.resolve('x'));
          userSubmit = 'no throw';
        } catch (err) {
          userSubmit = err.name;
        }
        e.preventDefault(); // the page stays (a navigation would race the evaluate's answer)
      }, { once: true });
      form.who.value = 'Bob';
      form.requestSubmit();
      return {
        result,
        seen: __seen,
        userSubmit,
        defaultFalse: new SubmitEvent('submit').agentInvoked,
        protoHas: ['agentInvoked', 'respondWith'].map((k) => k in SubmitEvent.prototype),
      };
    });
    assert.deepEqual(r, {
      result: 'Bonjour Ada!',
      seen: [
        { agentInvoked: true, who: 'Ada', loud: true, lang: 'fr' },
        { agentInvoked: false, who: 'Bob', loud: true, lang: 'fr' },
      ],
      userSubmit: 'InvalidStateError',
      defaultFalse: false,
      protoHas: [true, true],
    });
  }, { html: page(AUTO) }));

// The same steps against the polyfill and against native Chromium (no polyfill): the record
// must be `expected`, on native `nativeExpected` where it differs (the differences
// tests/page/NATIVE_DIFFERENCES.md explains).
function sideBySide(name, html, run, expected, nativeExpected = expected, { nativePageErrors = false } = {}) {
  test(`${name} (polyfill)`, () =>
    withPage(async ({ page: p }) => assert.deepEqual(await p.evaluate(run), expected), { html: page(html) }));
  test(`${name} (native Chromium)`, () =>
    withPage(async ({ page: p }) => assert.deepEqual(await p.evaluate(run), nativeExpected),
      { html: `<script>${HELPERS}</script>${html}`, nativeWebMCP: true, allowPageErrors: nativePageErrors }));
}

sideBySide('respondWith without preventDefault throws InvalidStateError; preventDefault without respondWith fails the call',
  `<form toolname="plain" tooldescription="Plain" toolautosubmit><input name="q"></form>
   <script>
     window.__thrown = [];
     document.querySelector('form').addEventListener('submit', (e) => {
       try {
         e.respondWith(Promise.resolve('nope'));
       } catch (err) {
         __thrown.push([err.name, err instanceof DOMException]);
       }
       e.preventDefault(); // stay on the page, and give no result
       setTimeout(() => { try { e.respondWith(Promise.resolve('late')); } catch (err) { __thrown.push(['late', err.name]); } });
     });
   </script>`,
  async () => {
    const result = await __outcome(document.modelContext.executeTool(await __tool('plain'), { q: 'x' }));
    await __tick();
    return { thrown: __thrown, result };
  },
  { thrown: [['InvalidStateError', true], ['late', 'InvalidStateError']], result: 'UnknownError' });

sideBySide('a submission that goes ahead (it navigates, here into an iframe) without respondWith resolves with null',
  `<iframe name="sink"></iframe>
   <form toolname="nav" tooldescription="Navigates" toolautosubmit action="/__nowhere" target="sink"><input name="q"></form>`,
  async () => {
    const result = await document.modelContext.executeTool(await __tool('nav'), { q: 'hello' });
    await __until(() => {
      try {
        return frames.sink.location.search;
      } catch {
        return '';
      }
    }, 'the iframe navigation');
    return { result, search: frames.sink.location.search };
  },
  { result: null, search: '?q=hello' });

sideBySide('respondWith: the last call answers; a rejected promise fails the call',
  `<form id="a" toolname="twice" tooldescription="Twice" toolautosubmit><input name="q"></form>
   <form id="b" toolname="rejects" tooldescription="Rejects" toolautosubmit><input name="q"></form>
   <script>
     window.__thrown = [];
     document.querySelector('#a').addEventListener('submit', (e) => {
       e.preventDefault();
       e.respondWith(Promise.resolve('one'));
       try { e.respondWith(Promise.resolve('two')); } catch (err) { __thrown.push(err.name); }
     });
     document.querySelector('#b').addEventListener('submit', (e) => {
       e.preventDefault();
       const rejected = Promise.reject(new Error('nope'));
       rejected.catch(() => {}); // handled here: only the call should fail
       e.respondWith(rejected);
     });
   </script>`,
  async () => {
    const mc = document.modelContext;
    const o = async (p) => { try { return await p; } catch (e) { return e.name; } };
    return {
      twice: await o(mc.executeTool(await __tool('twice'), { q: 'x' })),
      thrown: __thrown,
      rejects: await o(mc.executeTool(await __tool('rejects'), { q: 'x' })),
    };
  },
  { twice: 'two', thrown: [], rejects: 'UnknownError' },
  undefined,
  // Native Chromium also reports the rejection's reason as an uncaught error in the page,
  // although the page handled the promise.
  { nativePageErrors: true });

// Input with a member the form has no parameter for: native Chromium fails the call with
// UnknownError, naming it, before filling anything (the digest is silent; the polyfill copies
// native). A control that cannot be filled (an <output>) is named as an invalid value.
sideBySide('a member the tool has no parameter for fails the call, the form untouched; the next call is served',
  `<form toolname="f" tooldescription="A form" toolautosubmit><input name="q" value="start"><output name="o"></output><button>Go</button></form>
   <script>
     document.querySelector('form').addEventListener('submit', (e) => {
       e.preventDefault();
       e.respondWith(Promise.resolve('q=' + new FormData(e.target).get('q')));
     });
   </script>`,
  async () => {
    const run = async (input) => __outcomeText(document.modelContext.executeTool(await __tool('f'), input));
    const q = () => document.querySelector('input[name=q]').value;
    const unknown = await run({ q: 'a', zzz: 1 });
    const afterUnknown = q();
    const output = await run({ q: 'b', o: 'x' });
    const afterOutput = q();
    return { unknown, afterUnknown, output, afterOutput, next: await run({ q: 'c' }) };
  },
  {
    unknown: 'UnknownError: Input contains a parameter "zzz" but there is no such parameter for the tool',
    afterUnknown: 'start',
    output: 'UnknownError: Invalid value "x" for parameter o',
    afterOutput: 'start',
    next: 'q=c',
  });

// Controls out of an agent's reach are no parameters (disabled, in a disabled fieldset,
// read-only), nor are two text controls of one name; a call naming one fails as for any
// member without a parameter. A submission is made by the form's default button, whose name and
// value are in it. Native Chromium and the polyfill alike.
sideBySide('disabled, read-only and same-named controls are no parameters; the default button submits',
  `<form toolname="k" tooldescription="Kinds" toolautosubmit>
     <input name="d" disabled><fieldset disabled><input name="fs"></fieldset>
     <input name="r" readonly value="rv"><input name="dup"><input name="dup">
     <input name="q"><input type="submit" name="go" value="Go">
   </form>
   <script>
     document.querySelector('form').addEventListener('submit', (e) => {
       e.preventDefault();
       e.respondWith(Promise.resolve(JSON.stringify([...new FormData(e.target, e.submitter)])));
     });
   </script>`,
  async () => {
    const tool = await __tool('k');
    const run = (input) => __outcomeText(document.modelContext.executeTool(tool, input));
    return {
      properties: Object.keys(tool.inputSchema.properties),
      disabled: await run({ d: 'x' }),
      fieldset: await run({ fs: 'x' }),
      readonly: await run({ r: 'x' }),
      dup: await run({ dup: 'x' }),
      submitted: JSON.parse(await run({ q: 'hello' })),
    };
  },
  {
    properties: ['q'],
    disabled: 'UnknownError: Input contains a parameter "d" but there is no such parameter for the tool',
    fieldset: 'UnknownError: Input contains a parameter "fs" but there is no such parameter for the tool',
    readonly: 'UnknownError: Input contains a parameter "r" but there is no such parameter for the tool',
    dup: 'UnknownError: Invalid value "x" for parameter dup',
    submitted: [['r', 'rv'], ['dup', ''], ['dup', ''], ['q', 'hello'], ['go', 'Go']],
  });

// Forms in shadow trees are tools too (native Chromium has them): open and closed roots, nested
// ones and declarative shadow DOM; a submit event stays in its tree (it is not composed), where
// the call still claims it; forms and roots added later; a host removed and put back.
sideBySide('forms in shadow trees: open, closed, nested, declarative; submitted in their tree; added, removed and put back later',
  `<form toolname="light" tooldescription="Light DOM"><input name="l"></form>
   <div id="open"></div>
   <div id="closed"></div>
   <div><template shadowrootmode="open"><form toolname="declarative" tooldescription="Declarative shadow DOM"><input name="d"></form></template></div>
   <script>
     const open = document.getElementById('open').attachShadow({ mode: 'open' });
     open.innerHTML = '<form toolname="auto" tooldescription="Autosubmit in a shadow root" toolautosubmit>' +
       '<input name="q" required><button>Go</button></form><div id="inner"></div>';
     open.getElementById('inner').attachShadow({ mode: 'open' }).innerHTML =
       '<form toolname="nested" tooldescription="In a nested root"><label>N <input name="n" type="number"></label></form>';
     document.getElementById('closed').attachShadow({ mode: 'closed' }).innerHTML =
       '<form toolname="closed" tooldescription="In a closed root"><input name="c"></form>';
     window.__events = [];
     open.addEventListener('submit', (e) => {
       __events.push('root, agentInvoked ' + e.agentInvoked);
       e.preventDefault();
       e.respondWith(Promise.resolve('got ' + new FormData(e.target).get('q')));
     });
     window.addEventListener('submit', () => __events.push('window'), true);
     window.__open = open;
   </script>`,
  async () => {
    const names = async () => (await document.modelContext.getTools()).map((t) => t.name);
    const has = async (name) => (await names()).includes(name);
    const initial = await names();
    const nested = (await __tool('nested')).inputSchema;
    const called = await __outcome(document.modelContext.executeTool(await __tool('auto'), { q: 'hi' }));
    const events = [...__events];
    const t = document.createElement('template');
    t.innerHTML = '<form toolname="later" tooldescription="Added later"><input name="x"></form>';
    __open.append(t.content);
    const host = document.body.appendChild(document.createElement('div'));
    host.attachShadow({ mode: 'closed' }).innerHTML = '<form toolname="late_closed" tooldescription="A closed root attached later"><input name="y"></form>';
    await __until(async () => (await has('later')) && has('late_closed'), 'the forms added later');
    const added = await names();
    const openHost = document.getElementById('open');
    openHost.remove();
    await __until(async () => !(await has('auto')), 'the tools of the removed host to go');
    const removed = await names();
    document.body.append(openHost);
    await __until(() => has('auto'), 'the tools of the host put back');
    return { initial, nested, called, events, added, removed, back: await names() };
  },
  {
    initial: ['auto', 'closed', 'declarative', 'light', 'nested'],
    nested: { type: 'object', properties: { n: { type: 'number', description: 'N', multipleOf: 1 } }, required: [] },
    called: 'got hi',
    events: ['root, agentInvoked true'],
    added: ['auto', 'closed', 'declarative', 'late_closed', 'later', 'light', 'nested'],
    removed: ['closed', 'declarative', 'late_closed', 'light'],
    back: ['auto', 'closed', 'declarative', 'late_closed', 'later', 'light', 'nested'],
  });

// A component with a tool form in its shadow root, shown and removed again and again (a dialog):
// its tool goes with it, and so does its root, once the page lets go of it (held weakly).
test('shadow roots of removed components are not kept: their tools go, the roots are collected', () =>
  withPage(async ({ page: p, context }) => {
    await p.evaluate(async () => {
      await globalThis[Symbol.for('modelcontext-polyfill')].ready;
      window.__refs = [];
      window.__seen = [];
      for (let i = 0; i < 10; i++) {
        const host = document.body.appendChild(document.createElement('div'));
        const root = host.attachShadow({ mode: i % 2 ? 'open' : 'closed' });
        root.innerHTML = `<form toolname="dialog_${i}" tooldescription="A dialog"><input name="q"></form>`;
        __refs.push(new WeakRef(root));
        await __until(async () => (await __names()).includes(`dialog_${i}`), `dialog_${i}`);
        host.remove();
        await __until(async () => !(await __names()).includes(`dialog_${i}`), `dialog_${i} to go`);
      }
    });
    const cdp = await context.newCDPSession(p);
    for (let i = 0; i < 3; i++) {
      await cdp.send('HeapProfiler.collectGarbage');
      await p.evaluate(() => new Promise((r) => setTimeout(r, 20)));
    }
    assert.deepEqual(await p.evaluate(async () => ({
      tools: (await __names()).length,
      alive: __refs.filter((r) => r.deref() !== undefined).length,
    })), { tools: 0, alive: 0 });
  }, { html: page('') }));

// The wrapper the polyfill puts on Element.prototype.attachShadow (to find closed roots) must
// not change what the method does; and it comes off when the core cannot load.
const ATTACH_SHADOW = async () => {
  const frame = document.body.appendChild(document.createElement('iframe'));
  const platform = frame.contentWindow.Element.prototype;
  const shape = (proto) => {
    const { value, ...rest } = Object.getOwnPropertyDescriptor(proto, 'attachShadow');
    return { ...rest, name: value.name, length: value.length };
  };
  const outcome = (f) => {
    try {
      const r = f();
      return r instanceof ShadowRoot ? 'ShadowRoot' : String(r);
    } catch (e) {
      return e.name;
    }
  };
  const div = document.createElement('div');
  return {
    same: JSON.stringify(shape(Element.prototype)) === JSON.stringify(shape(platform)),
    open: outcome(() => div.attachShadow({ mode: 'open' })) + ' ' + (div.shadowRoot !== null),
    again: outcome(() => div.attachShadow({ mode: 'open' })),
    input: outcome(() => document.createElement('input').attachShadow({ mode: 'open' })),
    notElement: outcome(() => Element.prototype.attachShadow.call({}, { mode: 'open' })),
    closed: (() => { const d = document.createElement('div'); d.attachShadow({ mode: 'closed' }); return d.shadowRoot; })(),
    wrapped: !Function.prototype.toString.call(Element.prototype.attachShadow).includes('[native code]'),
  };
};

test('attachShadow, wrapped to find shadow roots, behaves as the platform\'s', () =>
  withPage(async ({ page: p }) => {
    await p.evaluate(() => document.modelContext.getTools());
    assert.deepEqual(await p.evaluate(ATTACH_SHADOW), {
      same: true, open: 'ShadowRoot true', again: 'NotSupportedError', input: 'NotSupportedError',
      notElement: 'TypeError', closed: null, wrapped: true,
    });
  }, { html: page('') }));

test('attachShadow is the platform\'s again when the core cannot load', () =>
  withPage(async ({ page: p }) => {
    const failed = await p.evaluate(() => globalThis[Symbol.for('modelcontext-polyfill')].ready.then(() => 'loaded', (e) => e.name));
    assert.equal(failed, 'NotSupportedError');
    assert.equal((await p.evaluate(ATTACH_SHADOW)).wrapped, false);
  }, { html: `<script>modelContextPolyfillConfig = { coreUrl: '/no/such/core.wasm' };</script>${POLYFILL}` }));

test('toolautosubmit on an invalid form: the call fails, naming the control', () =>
  withPage(async ({ page: p }) => {
    const r = await p.evaluate(async () => {
      try {
        await document.modelContext.executeTool(await __tool('greet'), { who: '' });
        return 'resolved';
      } catch (e) {
        return [e.name, /who/.test(e.message)];
      }
    });
    assert.deepEqual(r, ['UnknownError', true]);
  }, { html: page(AUTO) }));

const MANUAL = `
  <form toolname="order" tooldescription="Orders a pizza"><input name="size"><button>Order</button></form>
  <script>
    window.__seen = [];
    document.querySelector('form').addEventListener('submit', (e) => {
      window.__seen.push([e.agentInvoked, e.target.size.value]);
      if (!e.agentInvoked) return;
      e.preventDefault();
      e.respondWith(Promise.resolve({ ordered: e.target.size.value }));
    });
  </script>`;

test('without toolautosubmit the call waits for the user to submit', () =>
  withPage(async ({ page: p }) => {
    const r = await p.evaluate(async () => {
      let settled = false;
      const call = document.modelContext.executeTool(await __tool('order'), { size: 'large' });
      call.then(() => (settled = true), () => (settled = true));
      await __until(() => document.querySelector('form').size.value === 'large', 'the form filled');
      await __tick();
      const before = { settled, seen: __seen.length, filled: document.querySelector('form').size.value };
      document.querySelector('form').requestSubmit(); // the user
      const result = await call;
      return { before, result, seen: __seen };
    });
    assert.deepEqual(r, {
      before: { settled: false, seen: 0, filled: 'large' },
      result: '{"ordered":"large"}',
      seen: [[true, 'large']],
    });
  }, { html: page(MANUAL) }));

test('without toolautosubmit a waiting call cancels cleanly with an AbortSignal', () =>
  withPage(async ({ page: p }) => {
    const r = await p.evaluate(async () => {
      const ac = new AbortController();
      const call = document.modelContext.executeTool(await __tool('order'), { size: 'small' }, { signal: ac.signal });
      await __until(() => document.querySelector('form').size.value === 'small', 'the form filled');
      // The call rejects inside abort(); the abort reaches the form a task later, when
      // toolcancel fires (as in Chromium and the web-platform-tests).
      const toolcancel = new Promise((r) => document.modelContext.addEventListener('toolcancel', r, { once: true }));
      ac.abort(new Error('stop'));
      let outcome;
      try {
        outcome = await call;
      } catch (e) {
        outcome = ['rejected', e.message];
      }
      await toolcancel;
      // A later submit by the user is an ordinary one: not agent-invoked, and not cancelled by
      // the polyfill. (The listener below, added last, sees whether anything before it cancelled
      // the submit, then cancels it itself: a navigating form submission can keep the test's page
      // from closing.)
      const form = document.querySelector('form');
      let cancelled;
      form.addEventListener('submit', (e) => {
        cancelled = e.defaultPrevented;
        e.preventDefault();
      });
      form.requestSubmit();
      return { outcome, seen: __seen, cancelled };
    });
    assert.deepEqual(r, { outcome: ['rejected', 'stop'], seen: [[false, 'small']], cancelled: false });
  }, { html: page(MANUAL) }));

test('MCP tools/call works the same: listed, filled, submitted, answered', () =>
  withPage(async ({ page: p }) => {
    const r = await p.evaluate(async () => {
      const mcp = await __mcp.connect();
      const list = (await mcp.request('tools/list')).result.tools.map((t) => [t.name, t.inputSchema]);
      const auto = (await mcp.request('tools/call', { name: 'greet', arguments: { who: 'Eve', lang: 'en' } })).result;
      const pending = mcp.request('tools/call', { name: 'order', arguments: { size: 'medium' } });
      await __until(() => document.querySelector('#order').size.value === 'medium', 'the form filled');
      document.querySelector('#order').requestSubmit();
      const manual = (await pending).result;
      return { list, auto, manual, seen: __seen };
    });
    assert.deepEqual(r.list, [
      ['greet', {
        type: 'object',
        properties: {
          who: { type: 'string' },
          loud: { type: 'boolean' },
          lang: { type: 'string', anyOf: [{ type: 'string', const: 'en', title: 'en' }, { type: 'string', const: 'fr', title: 'fr' }], enum: ['en', 'fr'] },
        },
        required: ['who'],
      }],
      ['order', { type: 'object', properties: { size: { type: 'string' } }, required: [] }],
    ]);
    assert.equal(r.auto.isError ?? false, false);
    assert.deepEqual(r.auto.content, [{ type: 'text', text: 'Hello Eve' }]);
    assert.equal(r.manual.isError ?? false, false);
    assert.match(JSON.stringify(r.manual), /medium/);
    assert.deepEqual(r.seen, [
      { agentInvoked: true, who: 'Eve', loud: false, lang: 'en' },
      ['order', true, 'medium'],
    ]);
  }, {
    html: page(`${AUTO}
      <form id="order" toolname="order" tooldescription="Orders a pizza"><input name="size"><button>Order</button></form>
      <script>
        document.querySelector('#order').addEventListener('submit', (e) => {
          __seen.push(['order', e.agentInvoked, e.target.size.value]);
          e.preventDefault();
          e.respondWith(Promise.resolve({ ordered: e.target.size.value }));
        });
      </script>`),
  }));

// tooltitle, side by side with native Chromium: reflected as the RegisteredTool's title, and its
// change or removal fires toolchange.
const TITLED = '<form toolname="titled" tooltitle="Find things" tooldescription="Search"><input name="q"></form>';
async function titleRecord(p) {
  return p.evaluate(async () => {
    const mc = document.modelContext;
    const title = async () => (await mc.getTools()).find((t) => t.name === 'titled').title;
    const out = { initial: await title() };
    let changes = 0;
    mc.addEventListener('toolchange', () => changes++);
    const form = document.querySelector('form');
    form.setAttribute('tooltitle', 'Changed');
    await __until(() => changes >= 1, 'toolchange after tooltitle changed');
    out.changed = await title();
    form.removeAttribute('tooltitle');
    await __until(() => changes >= 2, 'toolchange after tooltitle removed');
    await __tick();
    out.removed = await title();
    return out;
  });
}
const TITLE_EXPECTED = { initial: 'Find things', changed: 'Changed', removed: '' };

test('tooltitle is the tool title; changing or removing it fires toolchange (polyfill)', () =>
  withPage(async ({ page: p }) => assert.deepEqual(await titleRecord(p), TITLE_EXPECTED), { html: page(TITLED) }));

test('tooltitle is the tool title; changing or removing it fires toolchange (native Chromium)', () =>
  withPage(async ({ page: p }) => assert.deepEqual(await titleRecord(p), TITLE_EXPECTED),
    { html: `<script>${HELPERS}</script>${TITLED}`, nativeWebMCP: true }));

// Input coerced as native Chromium fills controls: a number into a text control, a numeric string
// into a number control; the same steps against the polyfill and native Chromium.
const COERCE = '<form toolname="coerce" tooldescription="Coercion" toolautosubmit><input name="t"><input name="n" type="number"></form>'
  + '<script>document.querySelector("form").addEventListener("submit", (e) => { e.preventDefault(); const f = e.target; e.respondWith(Promise.resolve(JSON.stringify([f.t.value, f.n.value]))); });</script>';
async function coerceRecord(p) {
  return p.evaluate(async () => {
    const mc = document.modelContext;
    const t = (await mc.getTools()).find((x) => x.name === 'coerce');
    const o = async (input) => { try { return await mc.executeTool(t, input); } catch (e) { return e.name; } };
    return { numberIntoText: await o({ t: 123 }), stringIntoNumber: await o({ n: '456' }) };
  });
}
const COERCE_EXPECTED = { numberIntoText: '["123",""]', stringIntoNumber: '["123","456"]' };

test('input is coerced into text and number controls as native fills them (polyfill)', () =>
  withPage(async ({ page: p }) => assert.deepEqual(await coerceRecord(p), COERCE_EXPECTED), { html: page(COERCE) }));

test('input is coerced into text and number controls as native fills them (native Chromium)', () =>
  withPage(async ({ page: p }) => assert.deepEqual(await coerceRecord(p), COERCE_EXPECTED),
    { html: `<script>${HELPERS}</script>${COERCE}`, nativeWebMCP: true }));

// The polyfill validates the coerced input: a number's text in decimal notation becomes that
// number (native Chromium sets the text as typed, and fails a call whose text the control
// sanitizes away); other text stays text and fails the schema, and the next call is served.
test('a number control takes decimal text only; other text fails the schema, the next call is served (polyfill)', () =>
  withPage(async ({ page: p }) => {
    const r = await p.evaluate(async () => {
      const mc = document.modelContext;
      const t = (await mc.getTools()).find((x) => x.name === 'coerce');
      const o = async (input) => { try { return await mc.executeTool(t, input); } catch (e) { return e.name; } };
      return [await o({ n: ' 1e2 ' }), await o({ n: '-.5e1' }), await o({ n: '0x10' }), await o({ n: 'Infinity' }), await o({ n: '7.' }), await o({ n: '8' })];
    });
    assert.deepEqual(r, ['["","100"]', '["","-5"]', 'DataError', 'DataError', 'DataError', '["","8"]']);
  }, { html: page(COERCE) }));

// min, max and step are read as Chromium reads them: HTML's valid floating-point numbers only,
// and multipleOf only where the step base (min, else value) is a multiple of the step.
const NUMBERS = `<form toolname="nums" tooldescription="Numbers">
  <input name="a" type="number" min="0.5" step="0.5"><input name="b" type="number" min="1" step="0.3">
  <input name="c" type="number" value="0.5" step="1"><input name="d" type="number" min="-3" step="1.5">
  <input name="e" type="number" min="-2" step="0"><input name="f" type="number" min="0.5" step="any">
  <input name="g" type="range" min="0.5" max="10"><input name="h" type="number" value="x" min="zz" step="2">
  <input name="i" type="number" min="0.1" step="0.1"><input name="j" type="number" min=" 2 " max="8px" step="0.5">
  <input name="k" type="number" min="1e1" max="+20" step="x"><input name="l" type="number" min=".5" max="7." step="-1">
  <input name="m" type="number" min="0x10" max="Infinity" step="2.50"><input name="n" type="number" min="-.5" max="1E-1" step="1e-1">
</form>`;
const num = (extra) => ({ type: 'number', ...extra });
sideBySide('number attributes: valid floating-point numbers only, multipleOf from the step and its base',
  NUMBERS,
  async () => (await __tool('nums')).inputSchema,
  {
    type: 'object',
    properties: {
      a: num({ minimum: 0.5, multipleOf: 0.5 }), b: num({ minimum: 1 }), c: num(),
      d: num({ minimum: -3, multipleOf: 1.5 }), e: num({ minimum: -2, multipleOf: 1 }), f: num({ minimum: 0.5 }),
      g: num({ minimum: 0.5, maximum: 10 }), h: num({ multipleOf: 2 }), i: num({ minimum: 0.1, multipleOf: 0.1 }),
      j: num({ multipleOf: 0.5 }), k: num({ minimum: 10, multipleOf: 1 }), l: num({ minimum: 0.5 }),
      m: num({ multipleOf: 2.5 }), n: num({ minimum: -0.5, maximum: 0.1, multipleOf: 0.1 }),
    },
    required: [],
  });

// A call waiting for the user (no toolautosubmit): the form and its submit button are marked
// active (native: the :tool-form-active and :tool-submit-active pseudo-classes, which a script
// cannot add to CSS; the polyfill: the data-tool-form-active and data-tool-submit-active
// attributes), the button has the focus; form.reset() fails the call and clears the marks.
const ACTIVE = '<form toolname="order" tooldescription="Orders"><input name="size"><input type="submit" id="go"></form>';
sideBySide('a waiting call marks the form active, focuses its submit button; reset cancels it',
  ACTIVE,
  async () => {
    const form = document.querySelector('form');
    const go = document.querySelector('#go');
    const marks = () => [__active(form, 'form'), __active(go, 'submit')];
    const before = marks();
    const call = document.modelContext.executeTool(await __tool('order'), { size: 'large' });
    await __until(() => form.size.value === 'large', 'the form filled');
    await __tick();
    const during = { marks: marks(), focused: document.activeElement === go };
    form.reset();
    const outcome = await __outcome(call);
    return { before, during, outcome, after: marks() };
  },
  { before: [false, false], during: { marks: [true, true], focused: true }, outcome: 'UnknownError', after: [false, false] });

// Filling a control with what it already holds fires no input or change event.
sideBySide('a second call with the same input fires no input or change events (select multiple, select, text)',
  `<form toolname="pick" tooldescription="Pick" toolautosubmit>
     <select name="many" multiple><option>a</option><option>b</option><option>c</option></select>
     <select name="one"><option>x</option><option>y</option></select>
     <input name="t">
   </form>
   <script>
     window.__ev = [];
     for (const el of document.forms[0].elements) for (const type of ['input', 'change']) el.addEventListener(type, () => __ev.push(type + ' ' + el.name));
     document.forms[0].addEventListener('submit', (e) => {
       e.preventDefault();
       e.respondWith(Promise.resolve([...e.target.many.selectedOptions].map((o) => o.value).join() + '|' + e.target.one.value + '|' + e.target.t.value));
     });
   </script>`,
  async () => {
    const t = await __tool('pick');
    const input = { many: ['a', 'c'], one: 'y', t: 'hi' };
    const first = await document.modelContext.executeTool(t, input);
    const e1 = __ev.splice(0);
    const second = await document.modelContext.executeTool(t, input);
    return { first, e1, second, e2: __ev.splice(0) };
  },
  {
    first: 'a,c|y|hi',
    e1: ['input many', 'change many', 'input one', 'change one', 'input t', 'change t'],
    second: 'a,c|y|hi',
    e2: [],
  });

// toolactivated fires (at the ModelContext and at the window) once the form holds the input.
sideBySide('toolactivated fires with the form already filled',
  `<form toolname="fill" tooldescription="Fill" toolautosubmit><input name="q" value="initial"></form>
   <script>
     window.__seen = [];
     const q = document.querySelector('input');
     document.modelContext.addEventListener('toolactivated', (e) => __seen.push(['modelContext', e.toolName, q.value]));
     window.addEventListener('toolactivated', (e) => __seen.push(['window', e.toolName, q.value]));
     document.forms[0].addEventListener('submit', (e) => { e.preventDefault(); e.respondWith(Promise.resolve('done')); });
   </script>`,
  async () => {
    const result = await document.modelContext.executeTool(await __tool('fill'), { q: 'testing' });
    return { result, seen: __seen };
  },
  { result: 'done', seen: [['modelContext', 'fill', 'testing'], ['window', 'fill', 'testing']] },
  // D2: native Chromium fires toolactivated only at the ModelContext.
  { result: 'done', seen: [['modelContext', 'fill', 'testing']] });

// Cancelling a call waiting for the user: the marks are on while toolactivated fires, off by
// the time toolcancel fires, and the call rejects with AbortError (the other form untouched).
sideBySide('cancelling a waiting form call clears its marks before toolcancel; AbortError',
  `<form id="f1" toolname="one" tooldescription="One"><button id="b1" type="submit">Go</button></form>
   <form id="f2" toolname="two" tooldescription="Two"><button id="b2" type="submit">Go</button></form>`,
  async () => {
    const [f1, f2, b1, b2] = ['f1', 'f2', 'b1', 'b2'].map((id) => document.getElementById(id));
    const marks = () => [__active(f1, 'form'), __active(b1, 'submit'), __active(f2, 'form'), __active(b2, 'submit')];
    const seen = { cancels: 0 };
    document.modelContext.addEventListener('toolactivated', () => (seen.activated = marks()));
    document.modelContext.addEventListener('toolcancel', () => { seen.cancel = marks(); seen.cancels++; });
    const ac = new AbortController();
    const call = document.modelContext.executeTool(await __tool('one'), {}, { signal: ac.signal });
    await __until(() => seen.activated, 'toolactivated');
    ac.abort();
    const outcome = await __outcome(call);
    // Native Chromium fires toolcancel in a task of its own, which a loaded machine runs late.
    await __until(() => seen.cancels, 'toolcancel');
    await __tick();
    return { ...seen, outcome, after: marks() };
  },
  {
    cancels: 1,
    activated: [true, true, false, false],
    cancel: [false, false, false, false],
    outcome: 'AbortError',
    after: [false, false, false, false],
  });

// A submit handler that cancels the agent's submission and submits the form itself: that
// submission answers the call (it navigates: null).
sideBySide('preventDefault() then form.submit() in the submit handler: the call resolves',
  `<iframe name="sink"></iframe>
   <form toolname="self" tooldescription="Submits itself" toolautosubmit action="/__nowhere" target="sink"><input name="q"></form>
   <script>
     document.forms[0].addEventListener('submit', (e) => { e.preventDefault(); e.target.submit(); });
   </script>`,
  async () => {
    const result = await __outcome(document.modelContext.executeTool(await __tool('self'), { q: 'x' }));
    return { result, ownSubmit: Object.prototype.hasOwnProperty.call(document.forms[0], 'submit') };
  },
  { result: null, ownSubmit: false });

// A form removed during its submit event, after respondWith: the page's answer still counts.
sideBySide('a form removed during its submit event after respondWith still answers',
  `<iframe name="sink"></iframe>
   <form toolname="gone" tooldescription="Goes away" toolautosubmit target="sink" action="about:blank"><input name="q"></form>
   <script>
     document.forms[0].addEventListener('submit', (e) => {
       e.preventDefault();
       e.respondWith(Promise.resolve('answered'));
       e.target.remove();
     });
   </script>`,
  async () => {
    const answered = await __outcome(document.modelContext.executeTool(await __tool('gone'), { q: 'x' }));
    await __tick();
    return { answered, listed: (await document.modelContext.getTools()).map((t) => t.name) };
  },
  { answered: 'answered', listed: [] });

// A form removed while its call waits for the user: the call fails. A form the user could not
// submit (no toolautosubmit, no submit button) fails the call at once, unfilled.
sideBySide('a form removed while its call waits for the user fails the call; one without a submit button fails at once',
  `<form id="waits" toolname="waits" tooldescription="Waits for the user"><input name="q"><button>Go</button></form>
   <form id="stuck" toolname="stuck" tooldescription="No way to submit"><input name="q"></form>`,
  async () => {
    const stuck = await __outcome(document.modelContext.executeTool(await __tool('stuck'), { q: 'z' }));
    const stuckValue = document.getElementById('stuck').q.value;
    const form = document.getElementById('waits');
    const call = __outcome(document.modelContext.executeTool(await __tool('waits'), { q: 'y' }));
    await __until(() => form.q.value === 'y', 'the form filled');
    form.remove();
    const waiting = await Promise.race([call, new Promise((r) => setTimeout(() => r('still pending'), 2000))]);
    return { stuck, stuckValue, waiting, listed: (await document.modelContext.getTools()).map((t) => t.name) };
  },
  { stuck: 'UnknownError', stuckValue: '', waiting: 'UnknownError', listed: ['stuck'] });

// The validator module (dist/modelcontext_validator.wasm) is loaded when first needed
// (src/browser/validator.rs, polyfill/src/validator.js):
// - installing the polyfill does not fetch it, nor does a tool without a schema, nor one whose
//   schema is plain (src/server/plain_schema/: the core checks it, with the module's answers;
//   `$ref`s into the document, `oneOf`, `allOf`, `not`, `if`, `propertyNames`, `prefixItems`
//   and the patterns zod writes included; 2020-12 or draft 7);
// - the first tool registered with a schema the core cannot check (here: a pattern naming a
//   Unicode property) starts the fetch, off the critical path;
// - calls made before it has loaded wait for it, then are validated (executeTool: DataError
//   naming path and keyword; MCP tools/call: an isError result);
// - a schema the validator refuses once loaded: console warning, tool registered unvalidated;
//   after the load, invalid schemas are refused at registration again;
// - modelContextPolyfillConfig.validatorUrl moves it; a URL that cannot be loaded makes calls of
//   tools with a schema fail with an error naming the URL (executeTool: UnknownError; MCP:
//   isError), never run unvalidated.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, requireDist, inlinePage } from './harness.mjs';
import { MCP_CLIENT } from './webmcp.mcp.mjs';

requireDist('modelcontext.iife.js', 'modelcontext.js', 'modelcontext_validator.wasm');

const VALIDATOR = 'modelcontext_validator.wasm';
const CLASSIC = `<script src="/dist/modelcontext.iife.js"></script><script>${MCP_CLIENT}</script>`;
const ESM = `<script type="module">import '/dist/modelcontext.js'; window.installed = true;</script>`;
// A pattern naming a Unicode property (a lowercase letter of any script) makes it a schema only
// the validator module checks.
const TYPED = { type: 'object', properties: { text: { type: 'string', pattern: '^\\p{Ll}+$' }, n: { type: 'integer', minimum: 1 } }, required: ['text'] };
const PLAIN = { type: 'object', properties: { text: { type: 'string', minLength: 1 }, n: { type: 'integer', minimum: 1 } }, required: ['text'] };

/** Records every request the page makes for the validator module. */
function watchValidator(page) {
  const seen = [];
  page.on('request', (r) => {
    if (r.url().includes(VALIDATOR)) seen.push(r.url());
  });
  return seen;
}

/** Lets the page go idle a few times (idle callbacks, timers) so a scheduled fetch would start. */
const settle = (page) => page.evaluate(() => new Promise((r) => setTimeout(() => requestIdleCallback(() => setTimeout(r, 100)), 300)));

for (const [build, html, ready] of [
  ['classic', CLASSIC, null],
  ['ESM', ESM, () => window.installed === true],
]) {
  test(`${build} build: installing does not fetch the validator, nor a plain schema (checked by the core, $ref included); the first schema with a pattern does`, () =>
    withPage(async ({ page, goto }) => {
      const seen = watchValidator(page);
      await goto(await inlinePage(html));
      if (ready) await page.waitForFunction(ready);
      await settle(page);
      assert.deepEqual(seen, [], 'the validator was fetched at install');
      assert.equal(await page.evaluate(() => typeof document.modelContext.registerTool), 'function');

      // A tool without a schema needs no validator.
      await page.evaluate(() => document.modelContext.registerTool({ name: 'plain', description: 'P', execute: () => 'p' }));
      await settle(page);
      assert.deepEqual(seen, [], 'a tool without a schema fetched the validator');

      // A plain schema: checked by the core, valid calls run, invalid ones are refused with the
      // module's message; nothing is fetched.
      const plain = await page.evaluate(async (schema) => {
        const mc = document.modelContext;
        await mc.registerTool({ name: 'checked', description: 'C', inputSchema: schema, execute: ({ n }) => `n=${n}` });
        const tool = (await mc.getTools()).find((t) => t.name === 'checked');
        const outcome = (p) => p.then((v) => ({ ok: v }), (e) => ({ name: e.name, message: e.message }));
        return [
          await outcome(mc.executeTool(tool, { text: 'a', n: 2 })),
          await outcome(mc.executeTool(tool, { text: 'a', n: 0 })),
          await outcome(mc.executeTool(tool, { text: '', n: 1 })),
        ];
      }, PLAIN);
      assert.deepEqual(plain[0], { ok: 'n=2' });
      assert.equal(plain[1].name, 'DataError');
      assert.match(plain[1].message, /\/n: 0 is less than the minimum of 1 \[keyword: minimum\]/);
      assert.equal(plain[2].name, 'DataError');
      assert.match(plain[2].message, /\/text: "" is shorter than 1 character \[keyword: minLength\]/);
      // Registers tool `name` with `schema`, then calls it with each of `args`: 'ran', or the
      // error's message.
      const calls = (name, schema, args) => page.evaluate(async ({ name, schema, args }) => {
        const mc = document.modelContext;
        await mc.registerTool({ name, description: name, inputSchema: schema, execute: () => 'ran' });
        const tool = (await mc.getTools()).find((t) => t.name === name);
        const out = [];
        for (const a of args) out.push(await mc.executeTool(tool, a).then(() => 'ran', (e) => e.message));
        return out;
      }, { name, schema, args });
      // The same in draft 7, as zod-to-json-schema writes it.
      const draft7 = await calls('draft7', { $schema: 'http://json-schema.org/draft-07/schema#', ...PLAIN }, [{ text: 'a', n: 0 }]);
      assert.match(draft7[0], /\/n: 0 is less than the minimum of 1 \[keyword: minimum\]/);
      // `$ref`s into `$defs`, as zod 4 writes them.
      const refs = await calls('refs', { type: 'object', properties: { from: { $ref: '#/$defs/day' }, to: { $ref: '#/$defs/day' } }, required: ['from'], $defs: { day: { type: 'string', minLength: 6 } } },
        [{ from: 'monday' }, { from: 'mon' }]);
      assert.equal(refs[0], 'ran');
      assert.match(refs[1], /\/from: "mon" is shorter than 6 characters \[keyword: minLength\]/);
      // A discriminated union (oneOf), an intersection (allOf), a conditional, a not, propertyNames.
      const union = await calls('union', { allOf: [{ type: 'object' }, { oneOf: [{ properties: { kind: { const: 'a' } }, required: ['n'] }, { properties: { kind: { const: 'b' } } }] }], if: { required: ['n'] }, then: { properties: { n: { not: { const: 0 } } } }, propertyNames: { maxLength: 4 } },
        [{ kind: 'a', n: 1 }, { kind: 'c', n: 1 }, { kind: 'a', n: 0 }, { kind: 'a', n: 1, extra: 1 }]);
      assert.equal(union[0], 'ran');
      assert.match(union[1], /is not valid under any of the schemas listed in the 'oneOf' keyword \[keyword: oneOf\]/);
      assert.match(union[2], /\/n: \{"const":0\} is not allowed for 0 \[keyword: not\]/);
      assert.match(union[3], /"extra" is longer than 4 characters \[keyword: propertyNames\]/);
      // A tuple, as zod 4 writes it.
      const tuple = await calls('tuple', { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false, minItems: 2, maxItems: 2 } } },
        [{ pair: ['a', 1] }, { pair: [1, 'a'] }]);
      assert.equal(tuple[0], 'ran');
      assert.match(tuple[1], /\/pair\/0: 1 is not of type "string" \[keyword: type\]/);
      // Patterns as zod writes them (a uuid, a date) and a hand-written one: the core's.
      const patterns = await calls('patterns', { type: 'object', properties: {
        id: { type: 'string', format: 'uuid', pattern: '^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$' },
        day: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
        tag: { type: 'string', pattern: '^#[\\w-]+$' },
      } }, [{ id: '123e4567-e89b-12d3-a456-426614174000', day: '2026-12-01', tag: '#a-b_1' }, { id: 'x' }, { day: '2026-12-1' }, { tag: '#é' }]);
      assert.equal(patterns[0], 'ran');
      assert.match(patterns[1], /\/id: "x" does not match "\^\(\[0-9a-fA-F\]\{8\}-/);
      assert.match(patterns[2], /\/day: "2026-12-1" does not match "\^\\d\{4\}-\\d\{2\}-\\d\{2\}\$" \[keyword: pattern\]/);
      assert.match(patterns[3], /\/tag: "#é" does not match "\^#\[\\w-\]\+\$" \[keyword: pattern\]/);
      await settle(page);
      assert.deepEqual(seen, [], 'a plain schema fetched the validator');

      // The first tool with a schema: registration returns at once, the fetch follows.
      const fetched = page.waitForRequest((r) => r.url().includes(VALIDATOR));
      await page.evaluate((schema) => document.modelContext.registerTool({ name: 'typed', description: 'T', inputSchema: schema, execute: () => 'ran' }), TYPED);
      const request = await fetched;
      assert.equal(new URL(request.url()).pathname, `/dist/${VALIDATOR}`, 'fetched beside the polyfill script');
      const url = await page.evaluate(() => globalThis[Symbol.for('modelcontext-polyfill')].validatorUrl);
      assert.equal(url, request.url());
      await settle(page);
      assert.equal(seen.length, 1, `fetched once: ${seen}`);
    }));
}

test('calls made before the validator has loaded wait for it, then are validated (executeTool and MCP tools/call)', () =>
  withPage(async ({ page, context, goto }) => {
    // Hold the validator back so the calls are surely made before it has loaded.
    let release;
    const held = new Promise((r) => (release = r));
    await context.route(`**/${VALIDATOR}`, async (route) => {
      await held;
      await route.continue();
    });
    await goto(await inlinePage(CLASSIC));
    const pending = page.evaluate(async (schema) => {
      const mc = document.modelContext;
      const ran = [];
      await mc.registerTool({ name: 'typed', description: 'T', inputSchema: schema, execute: (input) => { ran.push(input); return 'ran'; } });
      const [tool] = await mc.getTools();
      window.__settled = 0;
      const counted = (p) => p.finally(() => window.__settled++);
      const outcome = (p) => counted(p.then((v) => ({ ok: v }), (e) => ({ name: e.name, message: e.message })));
      const mcp = await __mcp.connect({ protocolVersion: '2025-11-25' });
      const calls = [
        outcome(mc.executeTool(tool, { text: 'x', n: 2 })),
        outcome(mc.executeTool(tool, { text: 5 })),
        outcome(mc.executeTool(tool, { text: 'x', n: 0 })),
        counted(mcp.request('tools/call', { name: 'typed', arguments: { text: 'y' } })),
        counted(mcp.request('tools/call', { name: 'typed', arguments: { n: 'many' } })),
      ];
      window.__callsMade = true;
      const [valid, wrongType, belowMinimum, mcpValid, mcpInvalid] = await Promise.all(calls);
      return { valid, wrongType, belowMinimum, mcpValid: mcpValid.result, mcpInvalid: mcpInvalid.result, ran };
    }, TYPED);
    await page.waitForFunction(() => window.__callsMade === true);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await page.evaluate(() => window.__settled), 0, 'a call settled before the validator loaded');
    release();
    const r = await pending;

    assert.deepEqual(r.valid, { ok: 'ran' });
    assert.equal(r.wrongType.name, 'DataError');
    assert.match(r.wrongType.message, /\/text\b.*\btype\b/);
    assert.equal(r.belowMinimum.name, 'DataError');
    assert.match(r.belowMinimum.message, /\/n\b.*\bminimum\b/);
    assert.equal(r.mcpValid.isError, undefined);
    assert.deepEqual(r.mcpValid.content, [{ type: 'text', text: 'ran' }]);
    assert.equal(r.mcpInvalid.isError, true);
    assert.match(r.mcpInvalid.content[0].text, /\/n\b.*\btype\b/);
    assert.match(r.mcpInvalid.content[0].text, /required/);
    assert.deepEqual(r.ran, [{ text: 'x', n: 2 }, { text: 'y' }], 'only the valid calls ran');
  }));

test('a schema the validator refuses: warned and unvalidated when deferred, refused at registration once loaded', () =>
  withPage(async ({ page, consoleMessages }) => {
    const BAD = { type: 'object', properties: { a: { type: 5 } } };
    const r = await page.evaluate(async (bad) => {
      const mc = document.modelContext;
      // Before the load: registered (deferred) by both doors.
      await mc.registerTool({ name: 'early', description: 'E', inputSchema: bad, execute: (i) => JSON.stringify(i) });
      const [early] = await mc.getTools();
      // The call waits for the validator; the schema it refuses validates nothing.
      const result = await mc.executeTool(early, { a: 'anything' });
      const s = await mc.connect();
      let sessionDoor;
      try {
        s.registerTool('late', { inputSchema: bad, handler() {} });
        sessionDoor = 'registered';
      } catch (e) {
        sessionDoor = `${e.name}: ${e.message}`;
      }
      await mc.registerTool({ name: 'late2', description: 'L', inputSchema: bad, execute: () => 'x' });
      return { result, sessionDoor, names: (await mc.getTools()).map((t) => t.name) };
    }, BAD);
    assert.equal(r.result, '{"a":"anything"}');
    assert.match(r.sessionDoor, /^TypeError: .*inputSchema/, 'once loaded, compilation is immediate');
    assert.deepEqual(r.names, ['early', 'late2'], 'the W3C door still registers it, unvalidated, with a warning');
    const warnings = consoleMessages.filter((m) => m.type === 'warning').map((m) => m.text);
    assert.ok(warnings.some((w) => /inputSchema of tool "early" cannot validate .*registered before the validator loaded/.test(w)), warnings.join('\n'));
    assert.ok(warnings.some((w) => /inputSchema of tool "late2" cannot validate/.test(w)), warnings.join('\n'));
  }, { html: CLASSIC }));

test('validatorUrl moves the module; one that cannot be loaded fails calls with an error naming it', () =>
  withPage(async ({ page, server, goto, consoleMessages }) => {
    const seen = watchValidator(page);
    // First a working URL elsewhere: the module is fetched from there.
    await goto(await inlinePage(`<script>modelContextPolyfillConfig = { validatorUrl: '/dist/./${VALIDATOR}?moved' };</script>${CLASSIC}`));
    const moved = await page.evaluate(async (schema) => {
      const mc = document.modelContext;
      await mc.registerTool({ name: 'typed', description: 'T', inputSchema: schema, execute: () => 'ran' });
      const [tool] = await mc.getTools();
      return mc.executeTool(tool, { n: 1 }).then(() => 'ran', (e) => e.name);
    }, TYPED);
    assert.equal(moved, 'DataError');
    assert.deepEqual(seen, [server.url(`/dist/${VALIDATOR}?moved`)]);

    // Then one that does not exist.
    const missing = server.url('/no/such/validator.wasm');
    await goto(await inlinePage(`<script>modelContextPolyfillConfig = { validatorUrl: '/no/such/validator.wasm' };</script>${CLASSIC}`));
    const r = await page.evaluate(async (schema) => {
      const mc = document.modelContext;
      const ran = [];
      await mc.registerTool({ name: 'typed', description: 'T', inputSchema: schema, execute: () => { ran.push('typed'); return 'ran'; } });
      await mc.registerTool({ name: 'plain', description: 'P', execute: () => { ran.push('plain'); return 'plain'; } });
      const tools = await mc.getTools();
      const typed = tools.find((t) => t.name === 'typed');
      const plain = tools.find((t) => t.name === 'plain');
      const outcome = (p) => p.then((v) => ({ ok: v }), (e) => ({ name: e.name, message: e.message }));
      const w3c = await outcome(mc.executeTool(typed, { text: 'valid' }));
      const again = await outcome(mc.executeTool(typed, { text: 'valid' }));
      const other = await outcome(mc.executeTool(plain, {}));
      const mcp = await __mcp.connect({ protocolVersion: '2025-06-18' });
      const call = await mcp.request('tools/call', { name: 'typed', arguments: { text: 'valid' } });
      return { w3c, again, other, mcp: call.result, ran };
    }, TYPED);
    for (const failed of [r.w3c, r.again]) {
      assert.equal(failed.name, 'UnknownError');
      assert.ok(failed.message.includes(missing), failed.message);
      assert.match(failed.message, /HTTP 404/);
    }
    assert.deepEqual(r.other, { ok: 'plain' });
    assert.equal(r.mcp.isError, true);
    assert.ok(r.mcp.content[0].text.includes(missing), r.mcp.content[0].text);
    assert.deepEqual(r.ran, ['plain'], 'the tool with a schema never ran unvalidated');
    const warnings = consoleMessages.filter((m) => m.type === 'warning' && m.text.includes(missing));
    assert.equal(warnings.length, 1, 'one console warning names the URL');
  }));

// A pattern runs in linear time, whether the core checks it or the validator module does: an
// agent's string cannot hold the page the way a backtracking RegExp would (`a+b` on 100,000 `a`s
// takes seconds in RegExp, `^(a+)+$` on 40 characters hours). Each call is answered, and so is
// the next one.
test('pattern: a string made to make a regular expression backtrack is refused at once, by the core and by the validator module, and the next call is answered', () =>
  withPage(async ({ page, goto }) => {
    await goto(await inlinePage(CLASSIC));
    const r = await page.evaluate(async () => {
      const mc = document.modelContext;
      const outcome = (p) => p.then((v) => ({ ok: v }), (e) => ({ name: e.name, message: e.message }));
      await mc.registerTool({ name: 'nested', description: 'N', inputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } }, execute: () => 'ran' });
      await mc.registerTool({ name: 'unanchored', description: 'U', inputSchema: { type: 'object', properties: { s: { type: 'string', pattern: 'a+b' } } }, execute: () => 'ran' });
      // A Unicode property: the validator module's.
      await mc.registerTool({ name: 'letters', description: 'L', inputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(\\p{Ll}+)+$' } } }, execute: () => 'ran' });
      const tools = await mc.getTools();
      const tool = (name) => tools.find((t) => t.name === name);
      return {
        nested: await outcome(mc.executeTool(tool('nested'), { s: 'a'.repeat(40) + 'b' })),
        unanchored: await outcome(mc.executeTool(tool('unanchored'), { s: 'a'.repeat(100000) })),
        letters: await outcome(mc.executeTool(tool('letters'), { s: 'a'.repeat(40) + 'B' })),
        next: await outcome(mc.executeTool(tool('nested'), { s: 'aaaa' })),
        validator: performance.getEntriesByType('resource').filter((e) => e.name.endsWith('modelcontext_validator.wasm')).length,
      };
    });
    assert.equal(r.nested.name, 'DataError');
    assert.match(r.nested.message, /\/s: "a+b" does not match "\^\(a\+\)\+\$" \[keyword: pattern\]/);
    assert.equal(r.unanchored.name, 'DataError');
    assert.match(r.unanchored.message, /does not match "a\+b" \[keyword: pattern\]/);
    assert.equal(r.letters.name, 'DataError');
    assert.match(r.letters.message, /\/s: "a+B" does not match "\^\(\\p\{Ll\}\+\)\+\$" \[keyword: pattern\]/);
    assert.deepEqual(r.next, { ok: 'ran' });
    assert.equal(r.validator, 1, 'the validator module was loaded for the Unicode property alone');
  }, { timeout: 60_000 }));

// A pattern with a backreference is the validator module's, which runs it by backtracking,
// each match stopped at 1,000,000 steps (about 35 ms here). Its report of every violation
// matched every string first: 50 strings that each fail just under the limit held the page for
// 1.6 s (2,000, at that rate, about a minute). Such a schema is reported to its first
// violation, where the check stops.
test('pattern: 2,000 strings that each make a backreference pattern backtrack nearly to its limit are refused after the first, and the next call is answered', () =>
  withPage(async ({ page, goto }) => {
    await goto(await inlinePage(CLASSIC));
    const r = await page.evaluate(async () => {
      const mc = document.modelContext;
      let ran = 0;
      await mc.registerTool({
        name: 'twice', description: 'T',
        inputSchema: { type: 'object', properties: { xs: { type: 'array', items: { type: 'string', pattern: '^(a|a)+\\1$' } } }, required: ['xs'] },
        execute: ({ xs }) => { ran += 1; return String(xs.length); },
      });
      const mcp = await __mcp.connect();
      const call = (xs) => mcp.request('tools/call', { name: 'twice', arguments: { xs } });
      const refused = await call(Array.from({ length: 2000 }, () => 'a'.repeat(17) + '!'));
      const next = await call(['aa', 'aaaa']);
      return { refused: [refused.error.code, refused.error.message], next: next.result.content[0].text, ran };
    });
    assert.deepEqual(r.refused, [-32602, 'Invalid arguments for tool twice: /xs/0: "aaaaaaaaaaaaaaaaa!" does not match "^(a|a)+\\1$" [keyword: pattern]']);
    assert.equal(r.next, '2');
    assert.equal(r.ran, 1);
  }, { timeout: 60_000 }));

// Strings that each take a backtracking pattern tens of thousands of steps to *match* pass one
// by one, so the first-violation report does not bound them: the matches of one check of an
// instance share a time budget of 0.5 s (src/schema/pattern.rs; a refused call is checked
// twice). 20,000 such strings are refused once it is spent (each string's match takes
// milliseconds: minutes for the array before), and so is the
// same array under `not`, where a match the budget refused must not count as a failed match
// that passes; the next call is answered.
test('pattern: 20,000 strings that each match a backtracking pattern slowly are refused once the instance\'s time budget is spent, and the next call is answered', () =>
  withPage(async ({ page, goto }) => {
    await goto(await inlinePage(CLASSIC));
    const r = await page.evaluate(async () => {
      const mc = document.modelContext;
      let ran = 0;
      const tool = (name, items) => mc.registerTool({
        name, description: 'T',
        inputSchema: { type: 'object', properties: { xs: { type: 'array', items } }, required: ['xs'] },
        execute: ({ xs }) => { ran += 1; return String(xs.length); },
      });
      await tool('slow', { type: 'string', pattern: '^(?:(a|a)+\\1x|a+)$' });
      await tool('negated', { not: { pattern: '^(a|a)+\\1x$' } });
      const mcp = await __mcp.connect();
      const call = (name, xs) => mcp.request('tools/call', { name, arguments: { xs } });
      const many = Array.from({ length: 20_000 }, () => 'a'.repeat(16));
      const out = {};
      for (const name of ['slow', 'negated']) {
        const t0 = performance.now();
        const refused = await call(name, many);
        out[name] = { refused: [refused.error?.code, refused.error?.message], ms: performance.now() - t0, few: (await call(name, many.slice(0, 3))).result?.content[0].text };
      }
      return { ...out, ran };
    });
    for (const name of ['slow', 'negated']) {
      assert.equal(r[name].refused[0], -32602, name);
      assert.match(r[name].refused[1], /^Invalid arguments for tool \w+: .*Error executing regex: the patterns that backtrack took more than 500 ms for this instance/, name);
      assert.equal(r[name].few, '3', `${name}: the next call`);
    }
    assert.equal(r.ran, 2);
    console.log(`# refused after ${Math.round(r.slow.ms)} ms and ${Math.round(r.negated.ms)} ms`);
  }, { timeout: 60_000 }));

// A tool `unique` of `properties`, called over the tab with `distinct` items of `kind`, then with
// one repeated, then with `next`: what each answered, how often the tool ran, and whether the
// validator module was loaded.
const uniqueCalls = (page, properties, kind, next) => page.evaluate(async ({ properties, kind, next }) => {
  const mc = document.modelContext;
  let ran = 0;
  await mc.registerTool({
    name: 'unique', description: 'U', inputSchema: { type: 'object', properties, required: ['xs'] },
    execute: ({ xs }) => { ran += 1; return String(xs.length); },
  });
  const mcp = await __mcp.connect();
  const call = (xs) => mcp.request('tools/call', { name: 'unique', arguments: { xs, l: 'a' } });
  const distinct = kind === 'numbers'
    ? Array.from({ length: 200000 }, (_, i) => i)
    // Item i: its 15 bits as [] (0) and [[]] (1).
    : Array.from({ length: 20000 }, (_, i) => Array.from({ length: 15 }, (_, b) => ((i >> b) & 1 ? [[]] : [])));
  const repeated = kind === 'numbers' ? [199999.0, 0.5] : [distinct[12345]];
  const ok = await call(distinct);
  const refused = await call([...distinct, ...repeated]);
  const after = await call(next);
  return {
    ok: ok.result.content[0].text,
    refused: [refused.error.code, refused.error.message.slice(0, 60), refused.error.message.endsWith('has non-unique elements [keyword: uniqueItems]')],
    next: after.result.content[0].text,
    ran,
    validator: performance.getEntriesByType('resource').filter((e) => e.name.endsWith('modelcontext_validator.wasm')).length,
  };
}, { properties, kind, next });

test('uniqueItems: an array of 200,000 numbers (an agent\'s, over the tab) is checked by the core without comparing every pair: distinct ones run the tool, one repeated is refused, and the next call is answered', () =>
  withPage(async ({ page, goto }) => {
    // Refused arguments are read into values for their report up to limits.maxMessageValues
    // (100,000 by default; past it the report names where the check failed, from the text):
    // the refused call's 200,002 numbers are reported on in full with the limit raised.
    await goto(await inlinePage(`<script>window.modelContextPolyfillConfig = { limits: { maxMessageValues: 1e6 } };</script>${CLASSIC}`));
    // (Before, the pairs of the first took minutes; 40,000 numbers took 4 s natively.)
    const r = await uniqueCalls(page, { xs: { type: 'array', items: { type: 'number' }, uniqueItems: true } }, 'numbers', [1, 2, 3]);
    assert.equal(r.ok, '200000');
    assert.deepEqual(r.refused, [-32602, 'Invalid arguments for tool unique: /xs: [0,1,2,3,4,5,6,7,8,9', true]);
    assert.equal(r.next, '3');
    assert.equal(r.ran, 2, 'the refused call did not run the tool');
    assert.equal(r.validator, 0, 'the core checked it: the validator module was not loaded');
  }, { timeout: 60_000 }));

// The validator module decides uniqueItems by sorting too: the jsonschema crate's hash of an
// array is its items' hashes alone, so `[]`, `[[]]` and `[[], []]` collide, and 16,000 such
// distinct items made each insertion compare with every item before it (6.6 s in the page).
test('uniqueItems: 20,000 distinct arrays of arrays (all of one hash in the jsonschema crate) are checked by the validator module without comparing every pair, and the next call is answered', () =>
  withPage(async ({ page, goto }) => {
    // The arguments hold some 470,000 values, and the validator module, which reads them into
    // values in its own memory, is given none of more than limits.maxMessageValues (100,000 by
    // default; past it they are refused unread): the limit raised.
    await goto(await inlinePage(`<script>window.modelContextPolyfillConfig = { limits: { maxMessageValues: 1e6 } };</script>${CLASSIC}`));
    // A Unicode property in a pattern: the validator module checks the schema.
    const properties = { xs: { type: 'array', uniqueItems: true }, l: { type: 'string', pattern: '^\\p{Ll}+$' } };
    const r = await uniqueCalls(page, properties, 'nested', [[], [[]]]);
    assert.equal(r.ok, '20000');
    assert.deepEqual(r.refused, [-32602, 'Invalid arguments for tool unique: /xs: [[[],[],[],[],[],[],', true]);
    assert.equal(r.next, '2');
    assert.equal(r.ran, 2, 'the refused call did not run the tool');
    assert.equal(r.validator, 1, 'the validator module checked it');
  }, { timeout: 60_000 }));

// What an answer to invalid arguments quotes is bounded, whichever module checked them: an
// agent's 1.2 MB of wrong items was answered with 32 MB (each item's violation worded and listed
// twice), and a long string or key was quoted whole in each violation of it.
test('invalid arguments: 90,000 wrong items and a 1,000,000-character string are answered in a few kilobytes, by the core and by the validator module, and the next call is answered', () =>
  withPage(async ({ page, goto }) => {
    await goto(await inlinePage(CLASSIC));
    const r = await page.evaluate(async () => {
      const mc = document.modelContext;
      const ran = [];
      const properties = { xs: { type: 'array', items: { type: 'integer' } }, name: { type: 'string', maxLength: 8 } };
      await mc.registerTool({
        name: 'core', description: 'C', inputSchema: { type: 'object', properties },
        execute: () => { ran.push('core'); return 'core'; },
      });
      // A Unicode property in a pattern: checked by the validator module.
      await mc.registerTool({
        name: 'module', description: 'M',
        inputSchema: { type: 'object', properties: { ...properties, l: { type: 'string', pattern: '^\\p{Ll}+$' } } },
        execute: () => { ran.push('module'); return 'module'; },
      });
      const mcp = await __mcp.connect();
      const answers = {};
      for (const name of ['core', 'module']) {
        const call = (args) => mcp.request('tools/call', { name, arguments: args });
        const said = (a) => ({ bytes: JSON.stringify(a).length, text: a.error ? a.error.message : a.result.content[0].text, listed: a.error?.data?.violations?.length });
        answers[name] = {
          // (Under the 100,000 values refused arguments are read into for their report.)
          items: said(await call({ xs: Array(90000).fill('x') })),
          long: said(await call({ name: 'é'.repeat(1000000) })),
          next: (await call({ xs: [1], name: 'ok' })).result.content[0].text,
        };
      }
      const validator = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('modelcontext_validator.wasm')).length;
      return { answers, ran, validator };
    });
    for (const name of ['core', 'module']) {
      const { items, long, next } = r.answers[name];
      assert.ok(items.bytes < 16 * 1024, `${name}: ${items.bytes} bytes`);
      assert.equal(items.text.match(/\[keyword: type\]/g).length, 32, name);
      assert.ok(items.text.includes('/xs/31: "x" is not of type "integer"') && !items.text.includes('/xs/32:'), items.text);
      assert.ok(items.text.endsWith('(the first 32 violations found; there may be more)'), items.text);
      if (items.listed !== undefined) assert.equal(items.listed, 32, name);
      assert.ok(long.bytes < 4 * 1024, `${name}: ${long.bytes} bytes`);
      assert.match(long.text, /\/name: "é{99} … \(999830 characters left out\) … é{71}" is longer than 8 characters \[keyword: maxLength\]$/);
      assert.equal(next, name);
    }
    assert.deepEqual(r.ran, ['core', 'module'], 'only the good calls ran');
    assert.equal(r.validator, 1);
  }, { timeout: 60_000 }));

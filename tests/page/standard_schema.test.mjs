// Tool schemas given as Standard Schemas (zod here, and hand-made ones for the edges), which the
// MCP TypeScript SDK and @mcp-b/global take (polyfill/src/standard_schema.js): listed and
// validated as the JSON Schema the library gives, the tool fed the value the library parses, and
// a clear TypeError for what cannot work. Without this, JSON.stringify turned a zod schema into
// its internals ({"def":…,"type":"object"}), which agents were shown and which checked nothing.

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, requireDist, serveBundle, PAGE_UNTIL } from './harness.mjs';

requireDist('modelcontext.iife.js');

const ZOD_URL = '/__standard_schema/zod.js';

before(() => serveBundle(ZOD_URL, `import { z } from 'zod'; window.z = z;`));

const HTML = `<script>${PAGE_UNTIL}</script><script src="${ZOD_URL}"></script><script src="/dist/modelcontext.iife.js"></script>`;

/** In the page: an McpClient on the page's tab server. */
const CLIENT = async () => {
  const { McpClient, TabClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
  const client = new McpClient(new TabClientTransport({ targetOrigin: location.origin }));
  await client.connect();
  return client;
};

test('registerTool(tool) with a zod schema: listed as its JSON Schema, input checked by it, execute gets the parsed value, a refinement refused as DataError; over MCP too', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async (clientText) => {
      const mc = document.modelContext;
      const seen = [];
      await mc.registerTool({
        name: 'order',
        description: 'Orders a coffee',
        inputSchema: z.object({
          size: z.enum(['small', 'large']),
          shots: z.number().int().default(1),
          name: z.string().transform((s) => s.toUpperCase()).refine((s) => s !== 'BAD', 'that name is taken'),
        }),
        execute: (input) => {
          seen.push(input);
          return `${input.size} x${input.shots} for ${input.name}`;
        },
      });
      const [tool] = await mc.getTools();
      const run = (input) => mc.executeTool(tool, input).then((v) => v, (e) => `${e.name}: ${e.message}`);
      const out = { schema: tool.inputSchema };
      out.valid = await run({ size: 'small', name: 'ada' });
      out.wrongType = await run({ size: 'huge', name: 'ada' });
      out.refined = await run({ size: 'large', name: 'bad' });
      const client = await (0, eval)(`(${clientText})`)();
      out.listed = (await client.listTools()).tools[0].inputSchema;
      out.call = (await client.callTool('order', { size: 'large', shots: 2, name: 'bo' })).content[0].text;
      out.callWrong = await client.callTool('order', { size: 3, name: 'bo' });
      out.callRefined = await client.callTool('order', { size: 'small', name: 'bad' });
      out.after = (await client.callTool('order', { size: 'small', name: 'cy' })).content[0].text;
      await client.close();
      out.seen = seen;
      return out;
    }, CLIENT.toString());
    const schema = r.schema;
    assert.equal(schema.type, 'object');
    assert.deepEqual(schema.properties.size, { type: 'string', enum: ['small', 'large'] });
    assert.equal(schema.properties.shots.default, 1);
    assert.deepEqual(schema.required, ['size', 'name']);
    assert.ok(!("def" in schema), JSON.stringify(schema));
    assert.deepEqual(r.listed, schema);
    assert.equal(r.valid, 'small x1 for ADA');
    assert.equal(r.wrongType, 'DataError: Invalid arguments for tool order: /size: "huge" is not one of "small" or "large" [keyword: enum]');
    assert.equal(r.refined, "DataError: The input does not match the tool's zod schema: /name: that name is taken");
    assert.equal(r.call, 'large x2 for BO');
    assert.equal(r.callWrong.isError, true);
    assert.match(r.callWrong.content[0].text, /\/size: 3 is not one of/);
    assert.equal(r.callRefined.isError, true);
    assert.match(r.callRefined.content[0].text, /that name is taken/);
    assert.equal(r.after, 'small x1 for CY');
    // Neither refused input reached the tool; the parsed values did (default, transform).
    assert.deepEqual(r.seen, [
      { size: 'small', shots: 1, name: 'ADA' },
      { size: 'large', shots: 2, name: 'BO' },
      { size: 'small', shots: 1, name: 'CY' },
    ]);
  }, { html: HTML }));

test('the session API and provideContext: zod input and output schemas, structuredContent checked against the converted output schema', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async (clientText) => {
      const mc = navigator.modelContext;
      const session = await mc.connect({ serverInfo: { name: 'zod', version: '1' } });
      session.registerTool('stats', {
        description: 'Sum of numbers',
        inputSchema: z.object({ xs: z.array(z.number()).min(1) }),
        outputSchema: z.object({ sum: z.number(), n: z.number().int() }),
        handler: ({ xs }) => ({ content: [], structuredContent: { sum: xs.reduce((a, b) => a + b, 0), n: xs.length } }),
      });
      session.registerTool('broken', {
        description: 'Breaks its output schema',
        inputSchema: z.object({}),
        outputSchema: z.object({ ok: z.boolean() }),
        handler: () => ({ content: [], structuredContent: { ok: 'yes' } }),
      });
      mc.provideContext({ tools: [{ name: 'legacy', description: 'Earlier drafts', inputSchema: z.object({ q: z.string() }), execute: ({ q }) => q.length }] });
      const client = await (0, eval)(`(${clientText})`)();
      const { tools } = await client.listTools();
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      const out = {
        statsIn: byName.stats.inputSchema,
        statsOut: byName.stats.outputSchema,
        legacyIn: byName.legacy.inputSchema,
        stats: (await client.callTool('stats', { xs: [1, 2.5] })).structuredContent,
        statsEmpty: await client.callTool('stats', { xs: [] }),
        broken: await client.callTool('broken', {}),
        legacy: (await client.callTool('legacy', { q: 'four' })).content[0].text,
        legacyWrong: (await client.callTool('legacy', { q: 4 })).isError,
      };
      await client.close();
      return out;
    }, CLIENT.toString());
    assert.deepEqual(r.statsIn.properties.xs, { type: 'array', minItems: 1, items: { type: 'number' } });
    assert.deepEqual(r.statsOut.required, ['sum', 'n']);
    assert.equal(r.statsOut.properties.n.type, 'integer');
    assert.deepEqual(r.legacyIn.properties, { q: { type: 'string' } });
    assert.deepEqual(r.stats, { sum: 3.5, n: 2 });
    assert.equal(r.statsEmpty.isError, true);
    assert.match(r.statsEmpty.content[0].text, /\/xs: \[\] has less than 1 item|minItems/);
    assert.equal(r.broken.isError, true, JSON.stringify(r.broken));
    assert.match(r.broken.content[0].text, /\/ok: "yes" is not of type "boolean"/);
    assert.equal(r.legacy, '4');
    assert.equal(r.legacyWrong, true);
  }, { html: HTML }));

test('what cannot work is a TypeError that says what to pass, and registers nothing; a Standard Schema of another library (draft 7 only, asynchronous validate) works', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = document.modelContext;
      const attempt = (inputSchema) =>
        mc.registerTool({ name: 'x', description: 'x', inputSchema, execute: () => 'x' }).then(() => 'registered', (e) => `${e.name}: ${e.message}`);
      const out = {};
      // zod 3's kind: a Standard Schema with no JSON Schema.
      out.noJson = await attempt({ '~standard': { version: 1, vendor: 'old', validate: (v) => ({ value: v }) } });
      // The MCP SDK v1's raw shape.
      out.rawShape = await attempt({ a: z.number(), b: z.string() });
      // A library whose conversion fails for every target.
      out.failing = await attempt({ '~standard': { version: 1, vendor: 'lib', validate: (v) => ({ value: v }), jsonSchema: { input: () => { throw new Error('no luck'); } } } });
      out.listedAfterRefusals = (await mc.getTools()).length;
      // Draft 7 only, and a validate that answers later and trims.
      const targets = [];
      const draft7 = {
        '~standard': {
          version: 1,
          vendor: 'lib',
          validate: async (v) => (typeof v.word === 'string' ? { value: { word: v.word.trim() } } : { issues: [{ message: 'word needed', path: [{ key: 'word' }] }] }),
          jsonSchema: {
            input: ({ target }) => {
              targets.push(target);
              if (target !== 'draft-07') throw new Error(`no ${target}`);
              return { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { word: { type: 'string' } } };
            },
          },
        },
      };
      const seen = [];
      await mc.registerTool({ name: 'echo', description: 'Echo', inputSchema: draft7, execute: ({ word }) => (seen.push(word), `<${word}>`) });
      const [echo] = await mc.getTools();
      out.targets = targets;
      out.schema = echo.inputSchema;
      out.echo = await mc.executeTool(echo, { word: '  hi  ' });
      out.missing = await mc.executeTool(echo, {}).then((v) => v, (e) => `${e.name}: ${e.message}`);
      out.seen = seen;
      // A plain JSON Schema that happens to have properties named like schemas is not touched.
      await mc.registerTool({ name: 'plain', description: 'p', inputSchema: { type: 'object', properties: { a: { type: 'number' } } }, execute: () => 'p' });
      out.plain = (await mc.getTools()).find((t) => t.name === "plain").inputSchema;
      return out;
    });
    assert.equal(r.noJson, 'TypeError: The inputSchema is a Standard Schema ("old") that gives no JSON Schema (~standard.jsonSchema): pass its JSON Schema instead, or a version of the library that gives one (zod 4.2 or later).');
    assert.equal(r.rawShape, 'TypeError: The inputSchema is an object of schemas ({ a: …, … }), as the MCP SDK v1 takes them: pass one schema for the whole object (with zod, z.object({ … })) or a JSON Schema.');
    assert.equal(r.failing, 'TypeError: The inputSchema (lib) could not give its JSON Schema: no luck');
    assert.equal(r.listedAfterRefusals, 0);
    assert.deepEqual(r.targets, ['draft-2020-12', 'draft-07']);
    assert.equal(r.schema.$schema, 'http://json-schema.org/draft-07/schema#');
    assert.equal(r.echo, '<hi>');
    assert.equal(r.missing, "DataError: The input does not match the tool's lib schema: /word: word needed");
    assert.deepEqual(r.seen, ['hi']);
    assert.deepEqual(r.plain, { type: 'object', properties: { a: { type: 'number' } } });
  }, { html: HTML }));

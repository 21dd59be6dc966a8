import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage } from './harness.mjs';

test('smoke: W3C API on the classic build', () =>
  withPage(async ({ page }) => {
    const r = await page.evaluate(async () => {
      const mc = document.modelContext;
      const out = { same: mc === navigator.modelContext, events: [] };
      mc.addEventListener('toolchange', () => out.events.push('toolchange'));
      const p = mc.registerTool({
        name: 'echo', description: 'Echo',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        execute: async ({ text }) => ({ echoed: text }),
      });
      await p; out.events.push('resolved');
      const tools = await mc.getTools();
      out.tools = tools.map((t) => [t.name, t.title, JSON.stringify(t.inputSchema), JSON.stringify(t.annotations), t.origin, t.window === window]);
      out.result = await mc.executeTool(tools[0], { text: 'hi' });
      try { await mc.executeTool(tools[0], { text: 5 }); } catch (e) { out.bad = `${e.name}: ${e.message}`; }
      try { new ModelContext(); } catch (e) { out.ctor = `${e.name}: ${e.message}`; }
      return out;
    });
    assert.equal(r.same, true);
    assert.deepEqual(r.events, ['toolchange', 'resolved']);
    assert.equal(r.result, '{"echoed":"hi"}');
    assert.match(r.bad, /DataError/);
  }, { html: '<script src="/dist/modelcontext.iife.js"></script>' }));

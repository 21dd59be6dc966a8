#!/usr/bin/env node
// Probe what Chromium exposes for WebMCP, with and without --enable-features=WebMCP.
//   node tests/page/probe-native.mjs            → JSON on stdout
// The findings are summarized by hand in tests/page/NATIVE_NOTES.md.

import { launchChromium } from './lib/chromium.mjs';
import { startStaticServer } from '../../scripts/lib/static-server.mjs';
import { REPO_ROOT } from '../../scripts/lib/project.mjs';

function probe() {
  const describe = (obj) => {
    if (obj == null) return null;
    const chain = [];
    for (let o = obj; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
      const props = {};
      for (const k of Reflect.ownKeys(o)) {
        const d = Object.getOwnPropertyDescriptor(o, k);
        const kind = d.get ? (d.set ? 'accessor rw' : 'getter') : typeof d.value === 'function' ? `method/${d.value.length}` : typeof d.value;
        props[String(k)] = kind;
      }
      chain.push({ name: o.constructor?.name ?? '?', own: props });
    }
    return chain;
  };
  const tryDo = (f) => {
    try {
      const v = f();
      return { ok: true, value: v };
    } catch (e) {
      return { ok: false, error: `${e.name}: ${e.message}` };
    }
  };
  const r = {
    userAgent: navigator.userAgent,
    isSecureContext: window.isSecureContext,
    'typeof document.modelContext': typeof document.modelContext,
    'typeof navigator.modelContext': typeof navigator.modelContext,
    'document.modelContext === navigator.modelContext': document.modelContext === navigator.modelContext,
    "'modelContext' in Document.prototype": 'modelContext' in Document.prototype,
    "'modelContext' in Navigator.prototype": 'modelContext' in Navigator.prototype,
    'typeof window.ModelContext': typeof window.ModelContext,
    'typeof window.ToolActivatedEvent': typeof window.ToolActivatedEvent,
    'typeof window.ToolCancelEvent': typeof window.ToolCancelEvent,
    'typeof navigator.modelContextTesting': typeof navigator.modelContextTesting,
    'typeof window.ModelContextTesting': typeof window.ModelContextTesting,
    'WebMCP-ish globals': Object.getOwnPropertyNames(window).filter((n) => /model|tool|mcp/i.test(n)),
    'new ModelContext()': window.ModelContext ? tryDo(() => new window.ModelContext()) : 'n/a',
    'new ToolActivatedEvent("toolactivated").toolName': window.ToolActivatedEvent
      ? tryDo(() => new ToolActivatedEvent('toolactivated').toolName) : 'n/a',
    'new ToolActivatedEvent("x", {toolName:"t"}).toolName': window.ToolActivatedEvent
      ? tryDo(() => new ToolActivatedEvent('x', { toolName: 't' }).toolName) : 'n/a',
    'new ToolCancelEvent("toolcancel").toolName': window.ToolCancelEvent
      ? tryDo(() => new ToolCancelEvent('toolcancel').toolName) : 'n/a',
    'ToolActivatedEvent.prototype chain': window.ToolActivatedEvent ? describe(ToolActivatedEvent.prototype) : null,
    'document.modelContext chain': describe(document.modelContext),
    'navigator.modelContext chain': describe(navigator.modelContext),
    'navigator.modelContextTesting chain': describe(navigator.modelContextTesting),
    "'toolName' in HTMLFormElement.prototype": 'toolName' in HTMLFormElement.prototype,
    'form-ish props on HTMLFormElement.prototype': Object.getOwnPropertyNames(HTMLFormElement.prototype).filter((n) => /tool/i.test(n)),
    'SubmitEvent.prototype props': Object.getOwnPropertyNames(SubmitEvent.prototype),
    'HTMLInputElement tool props': Object.getOwnPropertyNames(HTMLInputElement.prototype).filter((n) => /tool/i.test(n)),
  };
  return r;
}

async function behaviour() {
  const mc = document.modelContext || navigator.modelContext;
  if (!mc) return null;
  const log = [];
  const out = {};
  mc.addEventListener('toolchange', () => log.push('toolchange'));
  mc.addEventListener('toolactivated', (e) => log.push(`toolactivated:${e.toolName}`));
  window.addEventListener('toolactivated', (e) => log.push(`window toolactivated:${e.toolName}`));
  try {
    const p = mc.registerTool({
      name: 'echo',
      description: 'Echo the input',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      annotations: { readOnlyHint: true },
      execute: async (input, extra) => {
        log.push(`execute extra keys: ${extra ? Object.keys(extra).join(',') : typeof extra}`);
        return { echoed: input.text };
      },
    });
    out['registerTool returns'] = Object.prototype.toString.call(p);
    out['registerTool resolves to'] = String(await p);
    log.push('registerTool resolved');
  } catch (e) {
    out['registerTool error'] = `${e.name}: ${e.message}`;
  }
  try {
    await mc.registerTool({ name: 'echo', description: 'dup', execute() {} });
    out['duplicate registerTool'] = 'resolved';
  } catch (e) {
    out['duplicate registerTool'] = `${e.name}: ${e.message}`;
  }
  try {
    out['registerTool bad name (sync?)'] = 'no sync throw';
    await mc.registerTool({ name: 'bad name!', description: 'x', execute() {} });
    out['registerTool bad name'] = 'resolved';
  } catch (e) {
    out['registerTool bad name'] = `${e.name}: ${e.message}`;
  }
  if (mc.getTools) {
    try {
      out['getTools()'] = JSON.parse(JSON.stringify(await mc.getTools(), (k, v) => (k === 'window' ? `[${Object.prototype.toString.call(v)}]` : v)));
    } catch (e) {
      out['getTools error'] = `${e.name}: ${e.message}`;
    }
  }
  if (mc.executeTool && mc.getTools) {
    try {
      const [tool] = await mc.getTools();
      out['executeTool result'] = await mc.executeTool(tool, { text: 'hi' });
    } catch (e) {
      out['executeTool error'] = `${e.name}: ${e.message}`;
    }
    try {
      const [tool] = await mc.getTools();
      out['executeTool schema-violating input'] = await mc.executeTool(tool, { text: 5 });
    } catch (e) {
      out['executeTool schema-violating input'] = `${e.name}: ${e.message}`;
    }
  }
  const t = navigator.modelContextTesting;
  if (t) {
    try {
      out['modelContextTesting.listTools()'] = await t.listTools();
    } catch (e) {
      out['modelContextTesting.listTools error'] = `${e.name}: ${e.message}`;
    }
    try {
      out['modelContextTesting.executeTool'] = await t.executeTool('echo', JSON.stringify({ text: 'yo' }));
    } catch (e) {
      out['modelContextTesting.executeTool error'] = `${e.name}: ${e.message}`;
    }
  }
  await new Promise((r) => setTimeout(r, 50));
  out.eventLog = log;
  return out;
}

async function workerProbe() {
  const src = `postMessage({ navigatorModelContext: typeof navigator.modelContext, ModelContext: typeof self.ModelContext });`;
  const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
  return new Promise((resolve) => {
    w.onmessage = (e) => resolve(e.data);
    w.onerror = (e) => resolve({ error: e.message });
  });
}

const server = await startStaticServer({ root: REPO_ROOT });
server.route('/probe.html', { body: '<!doctype html><meta charset="utf-8"><title>probe</title><form toolname="f" tooldescription="d"><input name="q"></form>' });
const report = {};
for (const nativeWebMCP of [false, true]) {
  const browser = await launchChromium({ nativeWebMCP });
  const page = await browser.newPage();
  await page.goto(server.url('/probe.html'));
  const label = nativeWebMCP ? 'with --enable-features=WebMCP' : 'without flag';
  report[label] = {
    version: browser.version(),
    surface: await page.evaluate(probe),
    behaviour: await page.evaluate(behaviour),
    worker: await page.evaluate(workerProbe),
  };
  await browser.close();
}
await server.close();
console.log(JSON.stringify(report, null, 2));

#!/usr/bin/env node
// `make demo`: serve the repository, let a real MCP client drive the basic example in headless
// Chromium, print what the agent saw, then keep serving for a person to open the examples.
//
//   node scripts/demo.mjs               (after `make build`; `make demo` does both)
//   PORT=9000 node scripts/demo.mjs     another port (default 8787)
//   DEMO_ONCE=1 node scripts/demo.mjs   exit after printing (tests/page/demo.test.mjs)
//
// The agent is examples/agent/agent.js: MCP-B's TabClientTransport (@mcp-b/transports) and the
// official MCP TypeScript client (@modelcontextprotocol/client), loaded unbundled from
// node_modules/ through an import map this server generates at /examples/importmap.js.

import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, DIST_DIR } from './lib/project.mjs';
import { startStaticServer } from './lib/static-server.mjs';
import { importMapFor, importMapLoaderScript, MCP_PEERS } from './lib/importmap.mjs';
import { launchChromium } from '../tests/page/lib/chromium.mjs';

const once = !!process.env.DEMO_ONCE && process.env.DEMO_ONCE !== '0';
const port = Number(process.env.PORT || 8787);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`demo: bad PORT ${process.env.PORT}`);
  process.exit(1);
}
if (!fs.existsSync(path.join(DIST_DIR, 'modelcontext.js'))) {
  console.error('demo: dist/ is not built; run `make build` (or `make demo`, which builds first)');
  process.exit(1);
}

let server;
try {
  server = await startStaticServer({ root: REPO_ROOT, port, log: !!process.env.DEMO_LOG });
} catch (e) {
  console.error(`demo: cannot listen on 127.0.0.1:${port}: ${e.code || e.message} (set PORT=... to pick another)`);
  process.exit(1);
}
server.route('/examples/importmap.js', {
  body: importMapLoaderScript(importMapFor(MCP_PEERS)),
  type: 'text/javascript; charset=utf-8',
});

const examples = `${server.altOrigin}/examples/`;
const line = (s = '') => console.log(s ? `demo: ${s}` : 'demo:');
const json = (v) => JSON.stringify(v);

/** Opens examples/basic/ in headless Chromium, runs the agent in it, returns its transcript. */
async function driveBasicExample() {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(30_000);
    const pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${examples}basic/`);
    await page.waitForFunction(() => window.todoApp?.ready === true);
    // The page has only the polyfill; bring the agent in: the import map, then the module.
    await page.addScriptTag({ url: '/examples/importmap.js' });
    const transcript = await page.evaluate(async () => {
      const agent = await import('/examples/agent/agent.js');
      return agent.runDemo();
    });
    const pageLog = await page.$$eval('#log li:not(.empty)', (items) => items.map((li) => li.innerText.replace(/\s+/g, ' ').trim()));
    const todos = await page.$$eval('#todos li:not(.empty)', (items) => items.map((li) => li.innerText.trim()));
    if (pageErrors.length) throw new Error(`errors in the page: ${pageErrors.join('; ')}`);
    return { transcript, pageLog, todos };
  } finally {
    await browser.close().catch(() => {});
  }
}

line(`serving ${REPO_ROOT} on ${server.origin} and ${server.altOrigin}`);
line(`opening ${examples}basic/ in headless Chromium; the agent is examples/agent/agent.js`);
let failed = false;
try {
  const { transcript: t, pageLog, todos } = await driveBasicExample();
  line(`agent: connected over MCP-B TabClientTransport (channel mcp-default) with @modelcontextprotocol/client`);
  line(`agent: server ${t.server?.name} ${t.server?.version}, protocol ${t.protocolVersion}`);
  line(`agent: tools/list → ${t.tools.length} tools`);
  for (const tool of t.tools) {
    line(`agent:   ${tool.name} — ${tool.description} annotations=${json(tool.annotations ?? {})}`);
  }
  line(`agent: tools/call ${t.call.name} ${json(t.call.arguments)} → ${t.call.isError ? 'isError: ' : 'ok: '}${t.call.text}`);
  line(`agent: tools/call ${t.list.name} {} → ${t.list.text}`);
  line(`agent: tools/call ${t.invalid.name} ${json(t.invalid.arguments)} → ${t.invalid.isError ? 'rejected (isError): ' : 'accepted?! '}${t.invalid.text}`);
  line(`page: the tool-call log shows ${pageLog.length} call(s): ${pageLog.join(' | ')}`);
  line(`page: todos now: ${todos.join(' | ')}`);
  if (t.call.isError || !t.invalid.isError) {
    failed = true;
    line('FAILED: expected the first call to succeed and the invalid one to be rejected');
  }
} catch (e) {
  failed = true;
  console.error(`demo: the headless agent run failed: ${e.stack || e.message}`);
}

if (once) {
  await server.close();
  line(failed ? 'done (with failures)' : 'done');
  process.exit(failed ? 1 : 0);
}

line();
line(`open ${examples} in a browser: basic/ is the page, agent/ drives it with the same client`);
line(`     (also on ${server.origin}/examples/, a second origin for cross-origin examples)`);
line('Ctrl-C to stop');

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, async () => {
    await server.close();
    process.exit(0);
  });
}

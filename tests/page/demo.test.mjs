// `make demo` (scripts/demo.mjs) and the example pages it serves: the headless agent run prints
// what a real MCP client saw, and the agent page works for a person too.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { withPage, requireDist, REPO_ROOT } from './harness.mjs';
import { importMapFor, importMapLoaderScript, MCP_PEERS } from '../../scripts/lib/importmap.mjs';

requireDist('modelcontext.js');

function runDemo(env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'scripts', 'demo.mjs')], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGTERM'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('DEMO_ONCE=1 node scripts/demo.mjs: the agent lists the tools, makes a call, and sees an invalid call rejected', async () => {
  const r = await runDemo({ DEMO_ONCE: '1', PORT: '0' });
  console.log(r.stdout);
  assert.equal(r.code, 0, `demo exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  const out = r.stdout;
  assert.match(out, /^demo: agent: connected over MCP-B TabClientTransport \(channel mcp-default\) with @modelcontextprotocol\/client$/m);
  assert.match(out, /^demo: agent: server localhost:\d+ \d+\.\d+\.\d+, protocol 20\d\d-\d\d-\d\d$/m);
  assert.match(out, /^demo: agent: tools\/list → 4 tools$/m);
  // Each tool with its description and annotations, both doors.
  assert.match(out, /^demo: agent: {3}add_todo — Add an item to the todo list\. .* annotations=\{.*\}$/m);
  assert.match(out, /^demo: agent: {3}list_todos — .* annotations=\{"readOnlyHint":true\}$/m);
  assert.match(out, /^demo: agent: {3}complete_todo — /m);
  assert.match(out, /^demo: agent: {3}clear_completed — .* annotations=\{"destructiveHint":true,"idempotentHint":true\}$/m);
  // One good call with its result, one invalid call with the validator's error text.
  assert.match(out, /^demo: agent: tools\/call add_todo \{"text":"Try an MCP client on this page"\} → ok: \{"id":2,"text":"Try an MCP client on this page","done":false\}$/m);
  assert.match(out, /^demo: agent: tools\/call add_todo \{"text":42\} → rejected \(isError\): .*\/text.*type/m);
  // The page saw the calls that passed validation, and only those.
  assert.match(out, /^demo: page: the tool-call log shows 2 call\(s\): .*add_todo.*\| .*list_todos/m);
  assert.match(out, /^demo: done$/m);
  assert.equal(r.stderr, '');
});

test('examples/agent/ works in a browser: the scripted agent and the manual form', () =>
  withPage(async ({ page, server, goto }) => {
    const unroute = server.route('/examples/importmap.js', {
      body: importMapLoaderScript(importMapFor(MCP_PEERS)),
      type: 'text/javascript',
    });
    try {
      await agentPage(page, goto);
    } finally {
      unroute();
    }
  }));

async function agentPage(page, goto) {
  await goto('/examples/agent/');
  await page.waitForFunction(() => window.agentPageReady === true);
  // clear_completed is registered with the session API, which waits for the core's deferred
  // module; an agent that lists the tools before it has arrived sees the other three, then
  // hears tools/list_changed, and the page lists them again.
  await page.waitForFunction(() => document.querySelectorAll('#tool option').length === 4);
  const options = await page.$$eval('#tool option', (o) => o.map((x) => x.value));
  assert.deepEqual(options, ['add_todo', 'clear_completed', 'complete_todo', 'list_todos']);

  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('transcript').textContent.includes('tools/call add_todo (invalid)'));
  const transcript = await page.textContent('#transcript');
  assert.match(transcript, /▸ tools\/list/);
  assert.match(transcript, /is not of type/);

  // The manual form: complete todo #1.
  await page.selectOption('#tool', 'complete_todo');
  await page.fill('#args', '{"id": 1}');
  await page.click('#call-form button');
  await page.waitForFunction(() => document.getElementById('transcript').textContent.includes('tools/call complete_todo'));
  assert.match(await page.textContent('#transcript'), /Done: #1 Read the WebMCP spec/);
  assert.equal(await page.$eval('#todos li', (li) => li.className), 'done');
  const log = await page.$$eval('#log li', (l) => l.map((x) => x.textContent));
  assert.ok(log.some((x) => x.includes('complete_todo')), log.join('\n'));
}

test('examples/agent/ without the demo server says what is missing', () =>
  withPage(async ({ page, goto }) => {
    await goto('/examples/agent/');
    await page.waitForFunction(() => document.getElementById('transcript').textContent.includes('make demo'));
  }, { allowPageErrors: true }));

test('examples/index.html links to pages that exist; examples/basic/ works with executeTool alone', () =>
  withPage(async ({ page, goto }) => {
    await goto('/examples/');
    const links = await page.$$eval('a[href]', (a) => a.map((x) => x.href));
    assert.ok(links.length >= 2);
    for (const href of links) {
      const res = await fetch(href);
      assert.equal(res.status, 200, href);
    }
    await goto('/examples/basic/');
    await page.waitForFunction(() => window.todoApp?.ready === true);
    const r = await page.evaluate(async () => {
      const mc = document.modelContext;
      const tools = await mc.getTools();
      const add = tools.find((t) => t.name === 'add_todo');
      const result = await mc.executeTool(add, { text: 'From executeTool' });
      let invalid;
      try {
        await mc.executeTool(add, { text: '' });
      } catch (e) {
        invalid = `${e.name}: ${e.message}`;
      }
      return { names: tools.map((t) => t.name), result, invalid, log: document.getElementById('log').children.length };
    });
    assert.deepEqual(r.names, ['add_todo', 'clear_completed', 'complete_todo', 'list_todos']);
    assert.equal(JSON.parse(r.result).text, 'From executeTool');
    assert.match(r.invalid, /DataError: .*minLength/);
    assert.equal(r.log, 1);
  }));

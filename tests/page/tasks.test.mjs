// Long-running page tools as MCP tasks (the Tasks extension, SEP-2663) and page skills (the
// Skills extension, SEP-2640), driven the way an agent meets them: the official MCP client
// (@modelcontextprotocol/client, 2026-07-28) over MCP-B's TabClientTransport, against a page
// whose only MCP code is the one-line polyfill import and its registrations.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, inlinePage, requireDist } from './harness.mjs';
import { importMapFor, importMapScript, importMapLoaderScript, MCP_PEERS } from '../../scripts/lib/importmap.mjs';

requireDist('modelcontext.js');
const IMPORT_MAP = importMapScript(importMapFor(MCP_PEERS));

// The page author's code: a slow export that runs as a task, reports its steps and stops when
// cancelled; an order that needs the user's approval (an elicitation inside the task); a skill.
const PAGE_SCRIPT = `
  const mc = navigator.modelContext;
  window.log = [];
  const wait = (ms, signal) => new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(t); reject(signal.reason); }, { once: true });
  });
  mc.registerTool('export_report', {
    description: 'Exports the report (slow: runs as a task)',
    taskSupport: 'optional',
    inputSchema: { type: 'object', properties: { rows: { type: 'integer' }, stepMs: { type: 'integer' } }, required: ['rows'] },
    async handler({ rows, stepMs = 150 }, extra) {
      extra.signal.addEventListener('abort', () => log.push('aborted: ' + extra.signal.reason.message));
      for (let step = 1; step <= 3; step++) {
        extra.setStatus('step ' + step + ' of 3');
        await wait(stepMs, extra.signal);
      }
      log.push('exported in task ' + extra.getTaskId());
      return { content: [{ type: 'text', text: 'report ready: ' + rows + ' rows' }] };
    },
  });
  mc.registerTool('place_order', {
    description: 'Places an order once the user approves it',
    taskSupport: 'required',
    inputSchema: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
    async handler({ item }, extra) {
      const r = await extra.sendRequest('elicitation/create', {
        message: 'Order ' + item + '?',
        requestedSchema: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] },
      });
      return 'order ' + item + ': ' + (r.content && r.content.approve ? 'placed' : 'declined');
    },
  });
  mc.registerTool('quick', { description: 'Answers at once', taskSupport: 'optional', handler: () => 'quick answer' });
  window.unregisterSkill = mc.registerSkill('checkout-help', {
    description: 'How to complete a checkout on this site',
    instructions: '# Checkout\\nFill the address form, then pay.',
    frontmatter: { license: 'MIT' },
    files: { 'references/shipping.md': '# Shipping\\nTwo to three days.' },
  });
  window.pageReady = true;
`;

const AGENT_SCRIPT = `
  import { Client } from '@modelcontextprotocol/client';
  import { TabClientTransport } from '@mcp-b/transports';
  import { startTask as startTaskOn } from '/examples/tasks/start-task.js';
  const TASKS = 'io.modelcontextprotocol/tasks';
  // A result schema that takes the server's result as it is (the Standard Schema interface).
  const asIs = { '~standard': { version: 1, vendor: 'tasks-test', validate: (value) => ({ value }) } };
  window.connectAgent = async (capabilities) => {
    const client = new Client({ name: 'task-agent', version: '1.0.0' }, { capabilities, versionNegotiation: { mode: 'auto' } });
    await client.connect(new TabClientTransport({ targetOrigin: location.origin }));
    const call = (method, params) => client.request({ method, params }, asIs);
    // The call that may start a task bypasses the client's result decoding (examples/tasks/start-task.js).
    const startTask = (name, args) => startTaskOn(client, name, args, capabilities);
    // Polls tasks/get until the task is terminal (or reaches \`until\`), every pollIntervalMs (≤ 50 ms here).
    const poll = async (taskId, until = null, seen = []) => {
      for (let i = 0; i < 200; i++) {
        const t = await call('tasks/get', { taskId });
        seen.push(t.status + (t.statusMessage ? ' (' + t.statusMessage + ')' : ''));
        if (t.status === until || ['completed', 'failed', 'cancelled'].includes(t.status)) return t;
        await new Promise((r) => setTimeout(r, Math.min(t.pollIntervalMs ?? 100, 50)));
      }
      throw new Error('task did not settle');
    };
    return { client, call, poll, startTask };
  };
  window.TASKS = TASKS;
  window.agentReady = true;
`;

function pageHtml() {
  return `<!doctype html><meta charset="utf-8"><title>tasks</title>
${IMPORT_MAP}
<script type="module">import '/dist/modelcontext.js';\n${PAGE_SCRIPT}</script>
<script type="module">${AGENT_SCRIPT}</script>`;
}

async function openPage(page, goto) {
  await goto(await inlinePage(pageHtml()));
  await page.waitForFunction(() => window.pageReady && window.agentReady);
}

test('an agent starts a slow page tool as a task, polls it to completion, and reads the result', () =>
  withPage(async ({ page, goto }) => {
    await openPage(page, goto);
    const r = await page.evaluate(async () => {
      const { client, call, poll, startTask } = await connectAgent({ elicitation: {}, extensions: { [TASKS]: {} } });
      const out = { version: client.getNegotiatedProtocolVersion(), caps: client.getServerCapabilities() };
      out.created = await startTask('export_report', { rows: 42 });
      out.seen = [];
      out.done = await poll(out.created.taskId, null, out.seen);
      out.again = await call('tasks/get', { taskId: out.created.taskId });
      out.quick = await call('tools/call', { name: 'quick', arguments: {} });
      out.log = [...log];
      await client.close();
      return out;
    });
    assert.equal(r.version, '2026-07-28');
    assert.deepEqual(r.caps.extensions['io.modelcontextprotocol/tasks'], {});
    assert.equal(r.created.resultType, 'task');
    assert.match(r.created.taskId, /^[0-9a-f]{32}$/);
    assert.equal(r.created.status, 'working');
    assert.equal(r.created.statusMessage, 'step 1 of 3', 'the status set before the task existed');
    assert.ok(Number.isInteger(r.created.ttlMs) && Number.isInteger(r.created.pollIntervalMs));
    assert.ok(r.seen.some((s) => /^working \(step [23] of 3\)$/.test(s)), `the agent saw the steps: ${r.seen}`);
    assert.equal(r.done.status, 'completed');
    assert.equal(r.done.result.content[0].text, 'report ready: 42 rows');
    assert.deepEqual(r.again.result, r.done.result, 'the result stays readable');
    assert.deepEqual(r.log, [`exported in task ${r.created.taskId}`]);
    assert.equal(r.quick.taskId, undefined, 'a handler that answers at once is not a task');
    assert.equal(r.quick.content[0].text, 'quick answer');
  }));

test('tasks/cancel reaches the handler as an abort, and the task settles cancelled', () =>
  withPage(async ({ page, goto }) => {
    await openPage(page, goto);
    const r = await page.evaluate(async () => {
      const { client, call, poll, startTask } = await connectAgent({ extensions: { [TASKS]: {} } });
      const out = {};
      const created = await startTask('export_report', { rows: 1, stepMs: 60000 });
      out.ack = await call('tasks/cancel', { taskId: created.taskId });
      out.after = await poll(created.taskId);
      await new Promise((r) => setTimeout(r, 50));
      out.log = [...log];
      try {
        await call('tasks/get', { taskId: 'no-such-task' });
      } catch (e) {
        out.unknown = e.code;
      }
      await client.close();
      return out;
    });
    assert.deepEqual(Object.keys(r.ack).filter((k) => ['taskId', 'status', 'result', 'error'].includes(k)), [], 'the ack carries no task');
    assert.equal(r.after.status, 'cancelled');
    assert.deepEqual(r.log, ['aborted: The task was cancelled by the client (tasks/cancel)']);
    assert.equal(r.unknown, -32602);
  }));

test('a task asks the user through inputRequests and resumes on tasks/update', () =>
  withPage(async ({ page, goto }) => {
    await openPage(page, goto);
    const r = await page.evaluate(async () => {
      const { client, call, poll, startTask } = await connectAgent({ elicitation: {}, extensions: { [TASKS]: {} } });
      const out = {};
      const created = await startTask('place_order', { item: 'tea' });
      out.waiting = await poll(created.taskId, 'input_required');
      const [key] = Object.keys(out.waiting.inputRequests);
      out.ack = await call('tasks/update', { taskId: created.taskId, inputResponses: { [key]: { action: 'accept', content: { approve: true } } } });
      out.done = await poll(created.taskId);
      await client.close();
      // An agent that does not accept tasks cannot call a tool that requires one.
      const plain = await connectAgent({});
      try {
        await plain.call('tools/call', { name: 'place_order', arguments: { item: 'tea' } });
      } catch (e) {
        out.refused = { code: e.code, data: e.data };
      }
      await plain.client.close();
      return out;
    });
    assert.equal(r.waiting.status, 'input_required');
    const [req] = Object.values(r.waiting.inputRequests);
    assert.equal(req.method, 'elicitation/create');
    assert.equal(req.params.message, 'Order tea?');
    assert.equal(r.ack.taskId, undefined, 'an empty ack');
    assert.equal(r.done.status, 'completed');
    assert.equal(r.done.result.content[0].text, 'order tea: placed');
    assert.equal(r.refused.code, -32021);
    assert.deepEqual(r.refused.data.requiredCapabilities, { extensions: { 'io.modelcontextprotocol/tasks': {} } });
  }));

test('a page skill is listed, fetched and read by the agent, and goes away when unregistered', () =>
  withPage(async ({ page, goto }) => {
    await openPage(page, goto);
    const r = await page.evaluate(async () => {
      const { client, call } = await connectAgent({});
      const out = { caps: client.getServerCapabilities() };
      out.list = await call('skills/list', {});
      const uri = out.list.skills[0].uri;
      out.get = await call('skills/get', { uri });
      out.md = await client.readResource({ uri });
      out.dir = await call('resources/directory/read', { uri: 'skill://checkout-help' });
      out.file = await client.readResource({ uri: 'skill://checkout-help/references/shipping.md' });
      const digest = async (text) =>
        'sha256:' + [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))].map((b) => b.toString(16).padStart(2, '0')).join('');
      out.digests = [await digest(out.md.contents[0].text), await digest(out.file.contents[0].text)];
      window.unregisterSkill();
      out.after = await call('skills/list', {});
      await client.close();
      return out;
    });
    assert.deepEqual(r.caps.extensions['io.modelcontextprotocol/skills'], { directoryRead: true });
    const entry = r.list.skills[0];
    assert.equal(entry.uri, 'skill://checkout-help/SKILL.md');
    assert.deepEqual(entry.frontmatter, { name: 'checkout-help', description: 'How to complete a checkout on this site', license: 'MIT' });
    assert.deepEqual(r.get.skill, entry);
    assert.deepEqual(
      entry.resources.map((x) => [x.uri, x.digest]),
      [
        ['skill://checkout-help/SKILL.md', r.digests[0]],
        ['skill://checkout-help/references/shipping.md', r.digests[1]],
      ],
      'digests are the SHA-256 of what resources/read serves',
    );
    assert.equal(r.md.contents[0].mimeType, 'text/markdown');
    assert.match(r.md.contents[0].text, /^---\nname: "checkout-help"\n/);
    assert.deepEqual(
      r.dir.resources.map((x) => [x.uri, x.mimeType]),
      [
        ['skill://checkout-help/SKILL.md', 'text/markdown'],
        ['skill://checkout-help/references', 'inode/directory'],
      ],
    );
    assert.deepEqual(r.after.skills, []);
  }));

test('registerSkill refuses a bad definition with a TypeError or the engine\'s reason', () =>
  withPage(async ({ page, goto }) => {
    await openPage(page, goto);
    const r = await page.evaluate(() => {
      const tries = {
        noDescription: () => navigator.modelContext.registerSkill('a-skill', {}),
        badName: () => navigator.modelContext.registerSkill('A Skill', { description: 'x' }),
        traversal: () => navigator.modelContext.registerSkill('a-skill', { description: 'x', files: { '../up.md': 'x' } }),
        badBlob: () => navigator.modelContext.registerSkill('a-skill', { description: 'x', files: { 'a.bin': { blob: '*' } } }),
        badTaskSupport: () => navigator.modelContext.registerTool('t', { taskSupport: 'sometimes', handler: () => 'x' }),
      };
      const out = {};
      for (const [k, f] of Object.entries(tries)) {
        try {
          f();
          out[k] = 'registered';
        } catch (e) {
          out[k] = e.name + ': ' + e.message;
        }
      }
      out.good = typeof navigator.modelContext.registerSkill('a-skill', { description: 'x', files: { 'a.bin': { blob: 'AAE=' } } });
      return out;
    });
    assert.match(r.noDescription, /^TypeError: .*description is required/);
    assert.match(r.badName, /naming rules/);
    assert.match(r.traversal, /segment "\.\." is not allowed/);
    assert.match(r.badBlob, /^TypeError: .*not standard base64/);
    assert.match(r.badTaskSupport, /^TypeError: .*taskSupport must be/);
    assert.equal(r.good, 'function', 'the next good registration works');
  }));

test('examples/tasks/: a person clicks through the export task, and cancels a second one', () =>
  withPage(async ({ page, server, goto }) => {
    const unroute = server.route('/examples/importmap.js', {
      body: importMapLoaderScript(importMapFor(MCP_PEERS)),
      type: 'text/javascript',
    });
    try {
      await goto('/examples/tasks/');
      await page.waitForFunction(() => window.tasksExample);
      await page.fill('#rows', '30');
      await page.click('#start');
      await page.waitForFunction(() => document.getElementById('agent-log').textContent.includes('result:'), null, { timeout: 20_000 });
      const log = await page.textContent('#agent-log');
      assert.match(log, /^connected: protocol 2026-07-28$/m);
      assert.match(log, /^tools\/call → task [0-9a-f]{32} \(working; poll every \d+ ms, ttl \d+ ms\)$/m);
      assert.match(log, /^tasks\/get → working: aggregating totals \(2\/4\)$/m);
      assert.match(log, /^tasks\/get → completed: compressing \(4\/4\)$/m);
      assert.match(log, /^result: report\.csv: 30 rows, 1440 bytes$/m);
      assert.equal(await page.textContent('#page-status'), 'done');
      // A second export, cancelled from the agent while the page works.
      await page.click('#start');
      await page.waitForFunction(() => !document.getElementById('cancel').disabled);
      await page.click('#cancel');
      await page.waitForFunction(() => document.getElementById('agent-log').textContent.includes('tasks/get → cancelled'));
      assert.equal(await page.textContent('#page-status'), 'cancelled');
      const pageLog = await page.$$eval('#page-log li', (l) => l.map((x) => x.textContent));
      assert.match(pageLog.at(-1), /^stopped: The task was cancelled by the client \(tasks\/cancel\)$/);
    } finally {
      unroute();
    }
  }));

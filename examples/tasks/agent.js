// The agent side: the official MCP client over MCP-B's tab transport, declaring the Tasks
// extension, starts export_report, polls the task (tasks/get) and shows each status, and can
// cancel it (tasks/cancel).
import { Client } from '@modelcontextprotocol/client';
import { TabClientTransport } from '@mcp-b/transports';
import { startTask } from './start-task.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const CAPABILITIES = { extensions: { [TASKS]: {} } };
// Takes results as the server sends them (a CreateTaskResult is not a CallToolResult).
const asIs = { '~standard': { version: 1, vendor: 'example', validate: (value) => ({ value }) } };
const $ = (id) => document.getElementById(id);

let client;
let current;

function say(line) {
  const log = $('agent-log');
  log.textContent = (log.textContent === 'Not started.' ? '' : log.textContent) + line + '\n';
}

async function connect() {
  if (client) return client;
  client = new Client(
    { name: 'tasks-example-agent', version: '1.0.0' },
    { capabilities: CAPABILITIES, versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new TabClientTransport({ targetOrigin: location.origin }));
  say(`connected: protocol ${client.getNegotiatedProtocolVersion()}`);
  return client;
}

const call = (method, params) => client.request({ method, params }, asIs);

/** Starts the export and polls it until it ends; resolves with the final task. */
export async function runExport(rows) {
  await connect();
  const created = await startTask(client, 'export_report', { rows }, CAPABILITIES);
  if (created.resultType !== 'task') {
    say(`answered at once: ${JSON.stringify(created.content)}`);
    return created;
  }
  current = created.taskId;
  $('cancel').disabled = false;
  say(`tools/call → task ${created.taskId} (${created.status}; poll every ${created.pollIntervalMs} ms, ttl ${created.ttlMs} ms)`);
  let last = '';
  for (;;) {
    const t = await call('tasks/get', { taskId: created.taskId });
    const line = `tasks/get → ${t.status}${t.statusMessage ? `: ${t.statusMessage}` : ''}`;
    if (line !== last) say((last = line));
    if (['completed', 'failed', 'cancelled'].includes(t.status)) {
      $('cancel').disabled = true;
      current = undefined;
      if (t.status === 'completed') say(`result: ${t.result.content[0].text}`);
      return t;
    }
    await new Promise((r) => setTimeout(r, Math.min(t.pollIntervalMs, 250)));
  }
}

export async function cancelExport() {
  if (!current) return;
  await call('tasks/cancel', { taskId: current });
  say('tasks/cancel → acknowledged');
}

window.tasksExample = { runExport, cancelExport };
$('start').addEventListener('click', () => runExport(Number($('rows').value) || 1).catch((e) => say(`error: ${e.message}`)));
$('cancel').addEventListener('click', () => cancelExport().catch((e) => say(`error: ${e.message}`)));

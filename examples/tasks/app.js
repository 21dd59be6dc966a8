// A page with one slow tool. The polyfill turns a call of it into an MCP task when the agent
// accepts tasks (the Tasks extension, SEP-2663): the agent gets a task id at once and polls.
// Everything here is plain page code plus the one-line import.
import '/dist/modelcontext.js';

const mc = document.modelContext;
const $ = (id) => document.getElementById(id);
const wait = (ms, signal) =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(t); reject(signal.reason); }, { once: true });
  });

function pageLog(text) {
  const list = $('page-log');
  list.querySelector('.empty')?.remove();
  list.append(Object.assign(document.createElement('li'), { textContent: text }));
}

const STEPS = ['querying orders', 'aggregating totals', 'rendering the CSV', 'compressing'];

mc.registerTool('export_report', {
  title: 'Export the sales report',
  description: 'Builds the sales report as CSV. Takes a few seconds: runs as a task when the client accepts tasks.',
  taskSupport: 'optional',
  inputSchema: {
    type: 'object',
    properties: { rows: { type: 'integer', minimum: 1, description: 'How many rows to export' } },
    required: ['rows'],
  },
  async handler({ rows }, extra) {
    $('page-status').textContent = 'working';
    try {
      for (const [i, step] of STEPS.entries()) {
        // In a task this is the task's statusMessage; otherwise progress for a progressToken.
        extra.setStatus?.(`${step} (${i + 1}/${STEPS.length})`) ?? extra.reportProgress(i, STEPS.length, step);
        pageLog(`${step}…`);
        await wait(700, extra.signal);
      }
    } catch (e) {
      $('page-status').textContent = 'cancelled';
      pageLog(`stopped: ${e.message}`);
      throw e;
    }
    $('page-status').textContent = 'done';
    pageLog(`exported ${rows} rows`);
    return { content: [{ type: 'text', text: `report.csv: ${rows} rows, ${rows * 48} bytes` }], structuredContent: { file: 'report.csv', rows } };
  },
});

mc.registerSkill('sales-report', {
  description: 'How to export the sales report from this page and read the result',
  instructions: [
    '# Exporting the sales report',
    '',
    'Call `export_report` with the number of rows. It runs as a task: poll `tasks/get`',
    'every `pollIntervalMs` until `completed`, then read `result.structuredContent.file`.',
    'Cancel with `tasks/cancel` if the user changes their mind.',
  ].join('\n'),
  files: { 'references/columns.md': '# Columns\n\ndate, order id, customer, total (EUR)\n' },
});

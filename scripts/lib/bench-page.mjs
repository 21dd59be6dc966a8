// What `make bench` (scripts/bench.mjs) and scripts/bench-breakdown.mjs share: their page, the
// client floor, and how they read their settings.
//
// The client floor: a bare page script answering MCP-B's tab wire with canned JSON-RPC (no
// checks, no validation). No server can go below it with the bench's client, so its ratio to
// @mcp-b/global is the best any server's ratio can be. The bench page of the floor defines
// window.__benchFloor(), which installs it (a document.modelContext with registerTool, and the
// wire listener) when the page's timed start calls it, so that parsing it is not part of the start.

import { importMapFor, importMapScript, MCP_PEERS } from './importmap.mjs';

function installFloor() {
  // Tools in a Map. Each tool keeps its own copy of its schema, as every real server does
  // (MCP-B converts it, ours parses it). Keeping the page's one shared object instead would let
  // postMessage's structured clone send it once for all 1,001 tools, a saving no server's list
  // gets.
  const tools = new Map();
  document.modelContext = {
    registerTool: async (t) => void tools.set(t.name, { ...t, inputSchema: JSON.parse(JSON.stringify(t.inputSchema)) }),
  };
  window.addEventListener('message', async (ev) => {
    const d = ev.data;
    if (ev.source !== window || !d || d.type !== 'mcp' || d.direction !== 'client-to-server') return;
    const post = (payload) => window.postMessage({ channel: d.channel, type: 'mcp', direction: 'server-to-client', payload }, location.origin);
    const p = d.payload;
    if (p === 'mcp-check-ready') return post('mcp-server-ready');
    if (!p || p.id === undefined) return;
    const reply = (result) => post({ jsonrpc: '2.0', id: p.id, result });
    if (p.method === 'initialize') {
      reply({ protocolVersion: p.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'floor', version: '0' } });
    } else if (p.method === 'tools/list') {
      reply({ tools: [...tools.values()].map(({ name, description, inputSchema }) => ({ name, description, inputSchema })) });
    } else if (p.method === 'tools/call') {
      const text = String(await tools.get(p.params.name).execute(p.params.arguments ?? {}));
      reply({ content: [{ type: 'text', text }] });
    } else reply({});
  });
}

/**
 * The bench page: the client (the official MCP TypeScript client and MCP-B's TabClientTransport,
 * as `window.Bench`) through an import map; for the floor (`floor`), window.__benchFloor; `head`:
 * anything else to put before the client's script.
 */
export function benchPage({ title, floor = false, head = '' }) {
  return `<!doctype html><meta charset="utf-8"><title>${title}</title>
${importMapScript(importMapFor(MCP_PEERS))}
${head}${floor ? `<script>window.__benchFloor = ${installFloor.toString()};</script>` : ''}
<script type="module">
  import { Client } from '@modelcontextprotocol/client';
  import { TabClientTransport } from '@mcp-b/transports';
  window.Bench = { Client, TabClientTransport };
</script>`;
}

/** The positive integer in environment variable `name`, else `dflt`. */
export function intEnv(name, dflt) {
  const v = Number(process.env[name] ?? dflt);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer`);
  return v;
}

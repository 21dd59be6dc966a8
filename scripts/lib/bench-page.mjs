// What `make bench` (scripts/bench.mjs), scripts/bench-breakdown.mjs and `make soak`
// (scripts/soak.mjs) share: their page, how it loads an implementation, the client floor, and how
// they read their settings.
//
// The page defines window.__benchLoad(kind, src), which loads the implementation to measure when
// the page's timed start calls it (parsing it is not part of the start):
//   'esm'      import(src), resolving with the module;
//   'classic'  a <script src> added to the document, resolving when it has run;
//   'floor'    the client floor: a bare page script answering MCP-B's tab wire with canned
//              JSON-RPC (no checks, no validation). No server can go below it with the bench's
//              client, so its ratio to @mcp-b/global is the best any server's ratio can be.

import { importMapFor, importMapScript, MCP_PEERS } from './importmap.mjs';

function installFloor() {
  // Tools in a Map, each schema the page gave copied once (JSON text's round trip), as a real
  // server keeps what it was given apart from the page's objects; tools given one schema object
  // share the copy, as they share the object in the page, so a structured clone of the listing
  // sends it once (a server that keeps a copy per tool would send it 1,001 times, and a listing
  // of that costs the client several times as much). The listing is made once per change.
  const tools = new Map();
  const copies = new WeakMap();
  const copyOf = (schema) => {
    if (schema === null || typeof schema !== 'object') return schema;
    if (!copies.has(schema)) copies.set(schema, JSON.parse(JSON.stringify(schema)));
    return copies.get(schema);
  };
  let listed = null;
  document.modelContext = {
    registerTool: async (t) => {
      tools.set(t.name, { ...t, inputSchema: copyOf(t.inputSchema) });
      listed = null;
    },
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
      listed ??= { tools: [...tools.values()].map(({ name, description, inputSchema }) => ({ name, description, inputSchema })) };
      reply(listed);
    } else if (p.method === 'tools/call') {
      const text = String(await tools.get(p.params.name).execute(p.params.arguments ?? {}));
      reply({ content: [{ type: 'text', text }] });
    } else reply({});
  });
}

/** Loads the implementation to measure (runs in the page: window.__benchLoad). */
async function loadImplementation(kind, src) {
  if (kind === 'floor') return installFloor();
  if (kind === 'esm') return import(src);
  if (kind !== 'classic') throw new Error(`unknown kind ${kind}`);
  await new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.onload = resolve;
    s.onerror = () => reject(new Error(`could not load ${src}`));
    document.head.append(s);
  });
}

/**
 * The bench page: the client (the official MCP TypeScript client and MCP-B's TabClientTransport,
 * as `window.Bench`) through an import map, and window.__benchLoad; `head`: anything else to put
 * before them.
 */
export function benchPage({ title, head = '' }) {
  return `<!doctype html><meta charset="utf-8"><title>${title}</title>
${importMapScript(importMapFor(MCP_PEERS))}
${head}<script>${installFloor.toString()}
window.__benchLoad = ${loadImplementation.toString()};</script>
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

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
// And window.__tabAsk(method, params): a request sent over the tab wire as an agent's raw
// envelope, resolving with the answer's payload (for what the official client does not send: a
// listing before initialize, a 2026-07-28 agent's, a second initialize on the channel).

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
      tools.set(t.name, { ...t, inputSchema: copyOf(t.inputSchema), outputSchema: copyOf(t.outputSchema) });
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
      // (An outputSchema listed, as a server lists it: the client then checks each result by it.)
      listed ??= { tools: [...tools.values()].map(({ name, description, inputSchema, outputSchema }) => ({ name, description, inputSchema, ...(outputSchema ? { outputSchema } : {}) })) };
      reply(listed);
    } else if (p.method === 'tools/call') {
      const r = await tools.get(p.params.name).execute(p.params.arguments ?? {});
      if (Array.isArray(r?.content)) reply(r);
      else if (r !== null && typeof r === 'object') reply({ content: [{ type: 'text', text: JSON.stringify(r) }], structuredContent: r });
      else reply({ content: [{ type: 'text', text: String(r) }] });
    } else reply({});
  });
}

/**
 * Sends `method` with `params` over the tab wire as an agent's envelope on the default channel
 * and resolves with the payload of the answer to it (matched by id); rejects after 5 s without
 * one. Runs in the page: window.__tabAsk (the bench page's; a test may define it in its own).
 */
export function tabAsk(method, params) {
  const id = `ask-${(tabAsk.sent = (tabAsk.sent || 0) + 1)}`;
  return new Promise((resolve, reject) => {
    const on = (e) => {
      const d = e.data;
      if (d && d.direction === 'server-to-client' && d.payload && d.payload.id === id) {
        removeEventListener('message', on);
        clearTimeout(timer);
        resolve(d.payload);
      }
    };
    const timer = setTimeout(() => {
      removeEventListener('message', on);
      reject(new Error(`${method}: no answer over the tab wire in 5 s`));
    }, 5000);
    addEventListener('message', on);
    postMessage({ channel: 'mcp-default', type: 'mcp', direction: 'client-to-server', payload: { jsonrpc: '2.0', id, method, params } }, location.origin);
  });
}

/**
 * What a tool may return beyond text and a plain object, by name (the bench page's
 * window.__resultShapes()): a CallToolResult of its own (text, an image, a resource link, an
 * embedded resource, an error), structured content beside its text, other JSON values, nothing.
 * `make split-list`'s trace calls a tool returning each (scripts/bench-breakdown.mjs), so that
 * the call module has what answers them; tests/page/deferred.test.mjs checks it does.
 */
function resultShapes() {
  return {
    text: { content: [{ type: 'text', text: 't' }] },
    image: { content: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] },
    link: { content: [{ type: 'resource_link', uri: 'https://example.com/a', name: 'a' }] },
    embedded: { content: [{ type: 'resource', resource: { uri: 'https://example.com/b', mimeType: 'text/plain', text: 'b' } }] },
    error: { content: [{ type: 'text', text: 'no' }], isError: true },
    structured: { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } },
    number: 42,
    truth: true,
    list: [1, 'two', { three: 3 }],
    empty: null,
    nothing: undefined,
  };
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
window.__benchLoad = ${loadImplementation.toString()};
window.__tabAsk = ${tabAsk.toString()};
window.__resultShapes = ${resultShapes.toString()};</script>
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

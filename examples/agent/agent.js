// A minimal in-page agent: MCP-B's TabClientTransport (@mcp-b/transports) carries the official
// MCP TypeScript client (@modelcontextprotocol/client) to the MCP server the polyfill runs in this
// same window, on channel `mcp-default`. No model here: the "agent" is a fixed script, which is
// enough to show what a real one would see and do.
//
// The bare imports resolve through the import map /examples/importmap.js (served by
// scripts/demo.mjs from node_modules/).
import { Client } from '@modelcontextprotocol/client';
import { TabClientTransport } from '@mcp-b/transports';

/** Connects a new client to the page's MCP server. */
export async function connectAgent({ name = 'example-agent', onNotification } = {}) {
  const client = new Client({ name, version: '1.0.0' });
  if (onNotification) {
    client.setNotificationHandler('notifications/tools/list_changed', (n) => onNotification(n));
  }
  await client.connect(new TabClientTransport({ targetOrigin: location.origin }));
  return client;
}

/** The text of a tool result's content blocks. */
export function resultText(result) {
  return (result.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

/**
 * The scripted run: list the tools, make one good call, make one call with invalid arguments.
 * `step(label, value)` is called as it goes; the transcript is also returned.
 */
export async function runDemo({ step = () => {} } = {}) {
  const client = await connectAgent();
  try {
    const server = client.getServerVersion();
    step('connected', { server, protocolVersion: client.getNegotiatedProtocolVersion?.() });

    const { tools } = await client.listTools();
    const listed = tools.map(({ name, title, description, annotations }) => ({ name, title, description, annotations }));
    step('tools/list', listed);

    const goodArgs = { text: 'Try an MCP client on this page' };
    const good = await client.callTool({ name: 'add_todo', arguments: goodArgs });
    step('tools/call add_todo', { arguments: goodArgs, result: good });

    const list = await client.callTool({ name: 'list_todos', arguments: {} });
    step('tools/call list_todos', { arguments: {}, result: list });

    const badArgs = { text: 42 };
    const bad = await client.callTool({ name: 'add_todo', arguments: badArgs });
    step('tools/call add_todo (invalid)', { arguments: badArgs, result: bad });

    return {
      server,
      protocolVersion: client.getNegotiatedProtocolVersion?.(),
      tools: listed,
      call: { name: 'add_todo', arguments: goodArgs, isError: !!good.isError, text: resultText(good), structuredContent: good.structuredContent },
      list: { name: 'list_todos', text: resultText(list) },
      invalid: { name: 'add_todo', arguments: badArgs, isError: !!bad.isError, text: resultText(bad) },
    };
  } finally {
    await client.close();
  }
}

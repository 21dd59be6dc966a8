// The tests a page's developer writes for the tools of a component and for an MCP client, run in
// each DOM emulation (counter.test.js: jsdom; counter.happy-dom.test.js: happy-dom).
import { test, expect } from 'vitest';
import { act, createElement as h } from 'react';
import { createRoot } from 'react-dom/client';
import { McpClient, PostMessageClientTransport, TabClientTransport } from 'modelcontext-polyfill';
import { Counter } from './Counter.js';

globalThis.IS_REACT_ACT_ENVIRONMENT = true;

const tool = async (name) => (await document.modelContext.getTools()).find((t) => t.name === name);

export function cases() {
  test('an agent increments the counter through document.modelContext', async () => {
    const root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(() => root.render(h(Counter)));
    const increment = await tool('increment');
    expect(increment?.inputSchema).toMatchObject({ required: ['n'] });
    let result;
    await act(async () => {
      result = await document.modelContext.executeTool(increment, { n: 2 });
    });
    expect(result).toBe('added 2');
    expect(document.getElementById('counter').textContent).toBe('count=2 calls=1');
    // Input the schema refuses never reaches execute.
    await expect(document.modelContext.executeTool(increment, { n: 'two' })).rejects.toMatchObject({ name: 'DataError' });
    expect(document.getElementById('counter').textContent).toBe('count=2 calls=1');
    // Unmounted, the component's tool is gone.
    await act(() => root.unmount());
    expect(await tool('increment')).toBeUndefined();
  });

  test('an McpClient lists and calls the page tools over a MessageChannel', async () => {
    await document.modelContext.registerTool({
      name: 'add',
      description: 'Adds a and b',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      execute: ({ a, b }) => String(a + b),
    });
    const { port1, port2 } = new MessageChannel();
    const session = await navigator.modelContext.connect({
      serverInfo: { name: 'app', version: '1.0.0' },
      transport: { type: 'postMessage', target: port1 },
    });
    const client = new McpClient(new PostMessageClientTransport({ target: port2 }));
    await client.connect();
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('add');
    expect((await client.callTool('add', { a: 2, b: 3 })).content[0].text).toBe('5');
    expect((await client.callTool('add', { a: 'x', b: 1 })).isError).toBe(true);
    expect((await client.callTool('add', { a: 4, b: 1 })).content[0].text).toBe('5');
    await client.close();
    session.disconnect();
  });

  test('the tab transport, which a DOM emulation cannot carry, names the MessageChannel way', async () => {
    const client = new McpClient(new TabClientTransport({ targetOrigin: location.origin }));
    await expect(client.connect()).rejects.toThrow(/not a Window.*Use a MessageChannel/);
  });
}

// The page's tools under Jest (native ES modules: `npm test` runs Node with
// --experimental-vm-modules) in its jsdom environment.
import { MessageChannel } from 'node:worker_threads'; // Jest's jsdom environment has none
import { ready, McpClient, PostMessageClientTransport } from 'modelcontext-polyfill';

const add = {
  name: 'add',
  description: 'Adds a and b',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  execute: ({ a, b }) => String(a + b),
};

test('a tool registered on document.modelContext runs through executeTool', async () => {
  await document.modelContext.registerTool(add);
  const tool = (await document.modelContext.getTools()).find((t) => t.name === 'add');
  expect(await document.modelContext.executeTool(tool, { a: 1, b: 2 })).toBe('3');
  await expect(document.modelContext.executeTool(tool, { a: 'x', b: 2 })).rejects.toMatchObject({ name: 'DataError' });
  expect(await document.modelContext.executeTool(tool, { a: 2, b: 2 })).toBe('4');
});

test('an McpClient calls it over a MessageChannel', async () => {
  await ready;
  const { port1, port2 } = new MessageChannel();
  const session = await navigator.modelContext.connect({ transport: { type: 'postMessage', target: port1 } });
  const client = new McpClient(new PostMessageClientTransport({ target: port2 }));
  await client.connect();
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['add']);
  expect((await client.callTool('add', { a: 2, b: 3 })).content[0].text).toBe('5');
  expect((await client.callTool('add', { a: 'x', b: 3 })).isError).toBe(true);
  await client.close();
  session.disconnect();
  port1.close();
  port2.close();
});

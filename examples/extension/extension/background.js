// The background service worker: an MCP client for the page's tools, one per tab, over the
// chrome.runtime.Port its content script opens. McpClient and ExtensionClientTransport come from
// the polyfill's self-contained classic build (complete when importScripts returns); copy it here first: cp dist/modelcontext.inline.iife.js examples/extension/extension/
importScripts('modelcontext.inline.iife.js');
const { McpClient, ExtensionClientTransport } = globalThis[Symbol.for('modelcontext-polyfill')].client;

const clients = new Map(); // tab id → McpClient

chrome.runtime.onConnect.addListener(async (port) => {
  if (port.name !== 'modelcontext-example') return;
  const tabId = port.sender.tab.id;
  const client = new McpClient(new ExtensionClientTransport({ port }), {
    clientInfo: { name: 'modelcontext-example-extension', version: '1.0.0' },
  });
  client.onclose = () => clients.delete(tabId);
  await client.connect();
  clients.set(tabId, client);
  const { tools } = await client.listTools();
  console.log(`tab ${tabId}: ${client.serverInfo.name} has ${tools.length} tools: ${tools.map((t) => t.name).join(', ')}`);
  await chrome.action.setBadgeText({ tabId, text: String(tools.length) });
});

// The toolbar button calls the page's tools: append a line to its note, then read the note back.
chrome.action.onClicked.addListener(async (tab) => {
  const client = clients.get(tab.id);
  if (!client) return;
  await client.callTool('append_note', { text: `Hello from the extension at ${new Date().toLocaleTimeString()}` });
  const note = await client.callTool('read_note');
  console.log(`tab ${tab.id}: the note is now:\n${note.content[0].text}`);
});

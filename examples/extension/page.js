// The page: two tools on a note, served to a browser extension. The extension's content script
// is the other end of a chrome.runtime.Port look-alike made of window.postMessage messages, and
// the polyfill's ExtensionServerTransport serves on it (MCP-B's extension wire: raw JSON-RPC).
import { ExtensionServerTransport, ready } from '/dist/modelcontext.js';

await ready; // the transport classes come with the core wasm

const FROM_PAGE = 'modelcontext-example-page';
const FROM_EXTENSION = 'modelcontext-example-extension';
const $ = (id) => document.getElementById(id);
const mc = document.modelContext;

function log(line) {
  $('log').querySelector('.empty')?.remove();
  $('log').append(Object.assign(document.createElement('li'), { textContent: line }));
}

await mc.registerTool({
  name: 'read_note',
  description: 'The text of the note on the page.',
  annotations: { readOnlyHint: true },
  execute: () => {
    log('read_note');
    return $('note').value;
  },
});
await mc.registerTool({
  name: 'append_note',
  description: 'Append a line to the note on the page.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: ({ text }) => {
    log(`append_note ${JSON.stringify(text)}`);
    $('note').value += `${$('note').value ? '\n' : ''}${text}`;
    return 'Appended.';
  },
});

/** A chrome.runtime.Port look-alike whose other end is the content script. */
function contentScriptPort() {
  const messageListeners = new Set();
  const disconnectListeners = new Set();
  const post = (kind, message) => window.postMessage({ from: FROM_PAGE, kind, message }, location.origin);
  const listeners = (set) => ({ addListener: (f) => set.add(f), removeListener: (f) => set.delete(f) });
  addEventListener('message', (e) => {
    if (e.source !== window || e.data?.from !== FROM_EXTENSION) return;
    if (e.data.kind === 'hello') post('ready');
    if (e.data.kind === 'message') {
      $('status').textContent = 'An extension is connected.';
      messageListeners.forEach((f) => f(e.data.message));
    }
    if (e.data.kind === 'disconnect') {
      $('status').textContent = 'The extension disconnected; reload the page to connect again.';
      disconnectListeners.forEach((f) => f());
    }
  });
  return {
    name: 'modelcontext-example',
    postMessage: (message) => post('message', message),
    onMessage: listeners(messageListeners),
    onDisconnect: listeners(disconnectListeners),
    disconnect: () => post('disconnect'),
    ready: () => post('ready'),
  };
}

const port = contentScriptPort();
await mc.connect({
  serverInfo: { name: 'extension-example-page', version: '1.0.0' },
  transport: new ExtensionServerTransport(port),
});
port.ready(); // tell the content script (if it is already there) that the server is listening
window.extensionExample = { ready: true };

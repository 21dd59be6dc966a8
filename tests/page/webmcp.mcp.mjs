// A minimal MCP client for page tests, talking to the page's own server over the default tab
// transport (`window.postMessage` envelopes on channel `mcp-default`, shared/spec/WIRE.md).
// Install it in a page with `<script>${MCP_CLIENT}</script>`, then, in page.evaluate:
//
//   const mcp = await __mcp.connect();                 // initialize + notifications/initialized
//   const { result } = await mcp.request('tools/list');
//   mcp.notifications                                  // every notification received since connect

export const MCP_CLIENT = `
window.__mcp = {
  async connect({ channel = 'mcp-default', protocolVersion = '2025-06-18' } = {}) {
    const pending = new Map();
    const notifications = [];
    let nextId = 1;
    window.addEventListener('message', (e) => {
      const d = e.data;
      if (e.source !== window || !d || d.channel !== channel || d.type !== 'mcp' || d.direction !== 'server-to-client') return;
      const p = d.payload;
      if (!p || typeof p !== 'object') return;
      if (p.id !== undefined && pending.has(p.id) && !p.method) {
        pending.get(p.id)(p);
        pending.delete(p.id);
      } else if (p.method) {
        notifications.push(p);
      }
    });
    const send = (payload) =>
      window.postMessage({ channel, type: 'mcp', direction: 'client-to-server', payload }, location.origin);
    const request = (method, params) => {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no reply to ' + method)), 5000);
        pending.set(id, (reply) => { clearTimeout(timer); resolve(reply); });
        send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
      });
    };
    // The page's tab server starts when the polyfill's core has loaded (a real client waits for
    // its 'mcp-server-ready'); messages posted before would reach no server.
    await globalThis[Symbol.for('modelcontext-polyfill')]?.ready;
    const init = await request('initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'page-test', version: '1.0.0' },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return { init, request, notify: (method, params) => send({ jsonrpc: '2.0', method, params }), notifications };
  },
};
`;

// Sends a tools/call that may start an MCP task (the Tasks extension) on an official MCP
// client's own transport, and resolves with the raw result: a CreateTaskResult
// (`resultType: "task"`, `taskId`, …) or an immediate CallToolResult.
//
// The official client (@modelcontextprotocol/client 2.4.0) does not accept `resultType: "task"`
// yet (its wire codec knows only "complete" and "input_required"), so this one request bypasses
// its result decoding; tasks/get, tasks/update and tasks/cancel go through the client as usual.
let lastId = 0;

export function startTask(client, name, args, capabilities) {
  return new Promise((resolve, reject) => {
    const t = client.transport;
    const id = `start-task-${++lastId}`;
    const prev = t.onmessage;
    t.onmessage = (m, extra) => {
      if (!m || m.id !== id) return prev?.(m, extra);
      t.onmessage = prev;
      if (m.error) reject(Object.assign(new Error(m.error.message), m.error));
      else resolve(m.result);
    };
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': client.getNegotiatedProtocolVersion(),
      'io.modelcontextprotocol/clientCapabilities': capabilities,
    };
    t.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta } }).catch(reject);
  });
}

// The client side for page scripts: the error classes McpClient rejects with, and the
// exported classes (McpClient and the client transports, all implemented in Rust:
// src/client/). This file only defines the Error subclasses (which must be real JS classes
// for `instanceof` to work) and gathers the exports.

function __mcpDefineClient(wasm) {
  function named(cls, name) {
    Object.defineProperty(cls.prototype, 'name', { value: name, writable: true, configurable: true });
    return cls;
  }

  // The seed's transport errors: a string `code` on every one.
  const TransportError = named(class TransportError extends Error {
    constructor(message = 'Transport error', code = 'TRANSPORT_ERROR') {
      super(message);
      this.code = code;
    }
  }, 'TransportError');

  const TransportClosedError = named(class TransportClosedError extends TransportError {
    constructor(message = 'Transport is closed', details = undefined) {
      super(message, 'TRANSPORT_CLOSED');
      this.reason = details && details.reason !== undefined ? String(details.reason) : undefined;
    }
  }, 'TransportClosedError');

  const RequestTimeoutError = named(class RequestTimeoutError extends TransportError {
    constructor(message = 'Request timed out', details = undefined) {
      super(message, 'REQUEST_TIMEOUT');
      this.requestId = details ? details.requestId : undefined;
      this.method = details ? details.method : undefined;
      this.timeoutMs = details ? details.timeoutMs : undefined;
    }
  }, 'RequestTimeoutError');

  // A JSON-RPC error answered by the server (as the MCP SDK's McpError: numeric code, data).
  const McpError = named(class McpError extends Error {
    constructor(code, message, data = undefined) {
      super(`MCP error ${code}: ${message}`);
      this.code = code;
      this.data = data;
    }
  }, 'McpError');

  const errors = { TransportError, TransportClosedError, RequestTimeoutError, McpError };
  if (typeof wasm.setClientErrorClasses === 'function') wasm.setClientErrorClasses(errors);

  const client = { ...errors };
  for (const name of [
    'McpClient', 'TabClientTransport', 'PostMessageClientTransport', 'BroadcastChannelClientTransport',
    'IframeParentClientTransport', 'EventClientTransport', 'ExtensionClientTransport',
  ]) {
    if (typeof wasm[name] === 'function') client[name] = wasm[name];
  }
  return Object.freeze(client);
}

//! JSON-RPC 2.0 and MCP error codes.

/// Invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// The JSON sent is not a valid Request object.
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist or is not available.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameter(s).
pub const INVALID_PARAMS: i64 = -32602;
/// Internal JSON-RPC error.
pub const INTERNAL_ERROR: i64 = -32603;
/// MCP (handshake era): resource not found.
pub const RESOURCE_NOT_FOUND: i64 = -32002;
/// MCP 2026-07-28: HTTP headers and body disagree.
pub const HEADER_MISMATCH: i64 = -32020;
/// MCP 2026-07-28: the request needs a client capability the client did not declare.
pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
/// MCP 2026-07-28: the request's protocol version is not supported.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// MCP 2025-11-25: URL elicitation required.
pub const URL_ELICITATION_REQUIRED: i64 = -32042;

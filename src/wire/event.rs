//! The event wire: messages as events on an emitter both ends hold (`emit`, `on`, `off`),
//! requests under one event name and answers under another.

/// The event a client's messages are emitted as (the server's `receiveEvent`).
pub const TO_SERVER_EVENT: &str = "mcp:request";
/// The event a server's messages are emitted as (the client's `receiveEvent`).
pub const TO_CLIENT_EVENT: &str = "mcp:response";

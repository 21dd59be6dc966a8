//! Browser transports (wasm only): each carries JSON-RPC text between a peer and an engine
//! [`crate::server::Session`], and owns its framing, origin and size checks.

pub mod tab;

//! JSON-RPC 2.0 and MCP: message shapes, versions, error codes. Pure Rust.

pub mod error_codes;
pub mod json_text;
pub mod jsonrpc;
pub(crate) mod scan;
pub mod values;
pub mod version;

pub use jsonrpc::{ErrorObject, Message, RequestId};
pub use version::{Era, ProtocolVersion};

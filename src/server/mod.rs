//! The engine: an MCP server in pure Rust (no web-sys, no js-sys).

pub mod cancel;
pub mod runtime;
pub mod validator;

pub use cancel::CancellationToken;
pub use runtime::{LocalBoxFuture, Runtime};
pub use validator::{CompiledSchema, SchemaCompiler, SchemaViolation};

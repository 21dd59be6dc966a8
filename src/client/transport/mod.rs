//! Client transports.
//!
//! The client core speaks to any [`ClientTransport`] (pure Rust). In the browser, each
//! exported transport class lives in its own file here, follows the MCP TypeScript SDK's
//! `Transport` shape (`start`/`send`/`close` + `onmessage`/`onclose`/`onerror`, restartable
//! after `close` for reconnection), and owns its framing, origin and shape checks.

pub mod ids;

pub use super::core::{ClientTransport, TransportSink};
pub use ids::IdNamespace;

#[cfg(target_arch = "wasm32")]
pub mod base;
#[cfg(target_arch = "wasm32")]
pub mod broadcast;
#[cfg(target_arch = "wasm32")]
pub mod event;
#[cfg(target_arch = "wasm32")]
pub mod extension;
#[cfg(target_arch = "wasm32")]
pub mod iframe;
#[cfg(target_arch = "wasm32")]
pub mod post_message;
#[cfg(target_arch = "wasm32")]
pub mod tab;

//! The MCP client side: a page calling a worker's, a frame's or another tab's server.
//!
//! | file | what it holds |
//! |---|---|
//! | `core/` | [`Client`]: requests, timeouts, cancellation, handshake, heartbeat, reconnection (pure Rust) |
//! | `phase.rs` | the lifecycle phases and the versions the handshake speaks |
//! | `error.rs` | [`ClientError`], one variant per way a request can fail |
//! | `reconnect.rs` | the backoff policy and the pluggable [`ReconnectScheduler`] |
//! | `handshake.rs` | the MCP-B readiness handshake (check, re-check, time out) |
//! | `wait.rs` | a three-way race (the one-shot slot is [`crate::peer::slot`]) |
//! | `transport/` | the [`ClientTransport`] trait, id tagging for shared channels (`ids.rs`); wasm only: `base.rs` and one exported transport per file |
//! | `bridge.rs` | wasm only: a page's transport object, scheduler and handlers as core types; `ClientError` → JS error classes |
//! | `wasm/` | wasm only: the exported `McpClient` class (`options.rs`: its JS options) |
//!
//! JS exposure: `globalThis[Symbol.for('modelcontext-polyfill')].client` and the ES module's
//! named exports (`McpClient`, the `*ClientTransport` classes, `TransportError`,
//! `TransportClosedError`, `RequestTimeoutError`, `McpError` — the error classes live in
//! `polyfill/src/client.js`).

pub mod core;
pub mod error;
pub mod handshake;
pub mod phase;
pub mod reconnect;
pub mod transport;
pub(crate) mod wait;

pub use self::core::{
    Client, ClientOptions, ClientTransport, CloseHook, ErrorHook, IncomingRequest,
    NotificationHandler, Phase, ProgressHandler, ReconnectHook, RequestHandler, RequestOptions,
    ServerDetails, TransportSink, DEFAULT_TIMEOUT_MS, HANDSHAKE_VERSIONS, NO_TIMEOUT_MS,
};
pub use error::ClientError;
pub use handshake::{Handshake, HandshakeError};
pub use reconnect::{CancelFn, ReconnectOptions, ReconnectScheduler, RuntimeScheduler};

#[cfg(target_arch = "wasm32")]
pub mod bridge;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

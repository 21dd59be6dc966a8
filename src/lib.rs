//! # modelcontext-polyfill
//!
//! WebMCP for every page: `navigator.modelContext` / `document.modelContext` and an MCP
//! server inside the page, written in Rust and compiled to WebAssembly.
//!
//! | module | what it holds |
//! |---|---|
//! | [`protocol`] | JSON-RPC 2.0 and MCP message shapes, versions, error codes (pure Rust) |
//! | [`server`] | the engine: lifecycle, dispatch, registry, notifications, cancellation (pure Rust) |
//! | [`schema`] | JSON Schema validation on the `jsonschema` crate |
//! | [`executor`] | a single-threaded executor for native hosts (stdio server, tests) |
//! | `browser` | wasm only: the installer and the JS ⇄ Rust glue |
//! | `transport` | wasm only: browser transports |

pub mod executor;
pub mod protocol;
pub mod schema;
pub mod server;

#[cfg(target_arch = "wasm32")]
pub mod browser;
#[cfg(target_arch = "wasm32")]
pub mod transport;

//! # modelcontext-polyfill
//!
//! WebMCP for every page: `navigator.modelContext` / `document.modelContext` and an MCP
//! server inside the page, written in Rust and compiled to WebAssembly.
//!
//! | module | what it holds |
//! |---|---|
//! | [`collections`] | ordered maps and sets kept as sorted vectors (small code, fast lookups) |
//! | [`protocol`] | JSON-RPC 2.0 and MCP message shapes, versions, error codes (pure Rust) |
//! | [`peer`] | the JSON-RPC peer both the server's sessions and the client are (pure Rust) |
//! | [`server`] | the engine: lifecycle, dispatch, registry, notifications, cancellation (pure Rust) |
//! | [`schema`] | JSON Schema validation on the `jsonschema` crate (feature `validator`) |
//! | [`executor`] | a single-threaded executor for native hosts (stdio server, tests) |
//! | `browser` | wasm only: the installer and the JS ⇄ Rust glue |
//! | `js` | wasm only: the leaf JS helpers and drop-guards `browser`, `transport` and the client share |
//! | `transport` | wasm only: browser transports |
//! | `wire` | wasm only: each wire's envelope and defaults, shared by server and client transports |
//!
//! Features: `validator` (the `schema` module), `browser` (on wasm32: `browser`, `transport`
//! and the wasm client; without it a wasm32 build holds no wasm-bindgen code),
//! `validator-module` (on wasm32: the validator as its own module, `schema::module`). The
//! browser build is two wasm modules: the core (`browser`) and the validator, which the core
//! loads when a tool first needs it (`browser::validator`).

#[cfg(any(not(target_arch = "wasm32"), feature = "browser"))]
pub mod client;
pub mod collections;
pub mod executor;
pub mod peer;
pub mod protocol;
#[cfg(feature = "validator")]
pub mod schema;
pub mod server;

#[cfg(all(target_arch = "wasm32", feature = "browser"))]
pub mod browser;
#[cfg(all(target_arch = "wasm32", feature = "browser"))]
pub mod js;
#[cfg(all(target_arch = "wasm32", feature = "browser"))]
pub mod transport;
#[cfg(all(target_arch = "wasm32", feature = "browser"))]
pub mod wire;

//! # modelcontext-polyfill
//!
//! WebMCP for every page: `navigator.modelContext` / `document.modelContext` and an MCP
//! server inside the page, written in Rust and compiled to WebAssembly.
//!
//! | module | what it holds |
//! |---|---|
//! | [`collections`] | ordered maps and sets kept as sorted vectors (small code, fast lookups), values under numbers |
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
//! Features: `validator` (the `schema` module); on wasm32, `web-server` (`browser` and
//! `transport`: the installer and the server side), `web-client` (the exported wasm client),
//! `browser` (both), `validator-module` (the validator as its own module, `schema::module`);
//! without `web-server` or `web-client` a wasm32 build holds no wasm-bindgen code. The browser
//! build is three wasm modules: the core (`web-server`), the client (`web-client`), loaded when a
//! page first makes a client, and the validator, which the core loads when a tool first needs
//! it (`browser::validator`).

#![deny(missing_docs)]

#[cfg(any(not(target_arch = "wasm32"), feature = "web-client"))]
pub mod client;
pub mod collections;
pub mod executor;
pub mod peer;
pub mod protocol;
#[cfg(feature = "validator")]
pub mod schema;
pub mod server;
#[cfg(test)]
mod test_rng;

#[cfg(all(target_arch = "wasm32", feature = "web"))]
pub mod browser;
#[cfg(all(target_arch = "wasm32", feature = "web"))]
pub mod js;
#[cfg(all(target_arch = "wasm32", feature = "web-server"))]
pub mod transport;
#[cfg(all(target_arch = "wasm32", feature = "web"))]
pub mod wire;

/// The allocator of every module the build makes for the browser (the core, the client
/// module, the validator module): `talc`'s for WebAssembly instead of Rust's default there
/// (dlmalloc). Every request the core serves makes and drops a few dozen small allocations (its
/// text, its parameters' maps, its context, the answer), and with dlmalloc they were about a
/// sixth of the core's own time in a call (CPU profile, Chromium 156); each module is also
/// smaller with it (the core's first module by 1.6 KB gzip).
#[cfg(all(
    target_arch = "wasm32",
    any(feature = "web", feature = "validator-module"),
    not(target_feature = "atomics")
))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

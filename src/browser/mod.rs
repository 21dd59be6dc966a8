//! wasm-only glue: the engine behind `modelContext` and the JS ⇄ Rust bridges.
//!
//! | file | what it holds |
//! |---|---|
//! | `engine.rs` | [`Engine`]: the server, the event target, the task queue, the tab server, each feature's state |
//! | `setup.rs` | making an engine from the installer's config; raw MCP sessions for JS transports |
//! | `store.rs` | the tool store every door shares: tool data, the tool dictionary, registering and removing |
//! | `webmcp/` | the W3C API: `registerTool`, `getTools`, `executeTool` (`execute.rs`) |
//! | `forms/` | the declarative API: `<form toolname>` as tools (`controls.rs`: the schema from a form's controls; `changes.rs`: which DOM changes can concern them; `invocation.rs`: an agent's call under way) |
//! | `frames/` | the frame tree: tools listed, called and announced across documents (`wire.rs`, `listing.rs`, `calls.rs`: across origins; `policy.rs`: the `tools` permissions policy) |
//! | `scope.rs` | what a session registered, and the steps every `register*` of it shares |
//! | `session_api.rs` | `connect`, `registerTool(name, def)`, `registerResource`, `registerPrompt` |
//! | `skill_api.rs` | `registerSkill(name, def)`: skills for the MCP Skills extension |
//! | `legacy.rs` | earlier drafts' methods and `modelContextTesting` |
//! | `native.rs` | living beside a native `document.modelContext`: tools mirrored both ways |
//! | `js_handler.rs` | page functions as engine handlers |
//! | `runtime.rs` | the engine's runtime on the browser event loop (the wasm client's too) |
//! | `validator.rs` | the validator module, loaded when a tool first needs it |

/// Items of the core module only (feature `web-server`).
macro_rules! server_side {
    ($($item:item)*) => { $( #[cfg(feature = "web-server")] $item )* };
}

// Everything here but `runtime` (which the wasm client runs on too) is the core's.
pub mod runtime;
#[cfg(all(feature = "web-server", feature = "validator"))]
pub mod schema_suite;
server_side! {
    pub mod engine;
    pub mod forms;
    pub mod frames;
    pub mod js_handler;
    pub mod legacy;
    pub mod native;
    pub mod scope;
    pub mod session_api;
    pub mod setup;
    pub mod skill_api;
    pub mod store;
    pub mod validator;
    pub mod webmcp;
    pub use engine::Engine;
    pub use setup::McpSession;
}

pub use crate::js::DomError;

/// The crate version, for diagnostics.
#[cfg(feature = "web-server")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = polyfillVersion)]
pub fn polyfill_version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

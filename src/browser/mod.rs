//! wasm-only glue: installing `modelContext` and bridging JS ⇄ Rust.

use wasm_bindgen::prelude::*;

/// The crate version, for diagnostics.
#[wasm_bindgen(js_name = polyfillVersion)]
pub fn polyfill_version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

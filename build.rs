//! The core wasm's stack size.
//!
//! Rust gives a wasm32 module a 1 MiB stack in its linear memory, and wasm memory never
//! shrinks: every page paid a megabyte it did not use. The core's deep recursion is serde_json's
//! (parsing, serializing and dropping a `Value`), and serde_json refuses to parse more than 128
//! levels, so the core's stack use is bounded: about 61 KB for a tool result 126 levels deep,
//! the deepest measured (arguments of 126 levels under a raised `limits.maxDepth`: 59 KB).
//! 256 KiB is four times that. The stack comes first in memory, so running past it would trap
//! rather than overwrite data. `tests/page/tab_transport.test.mjs` sends the deepest
//! messages and results the core accepts; with a 48 KiB stack it fails.
//!
//! The validator module (feature `validator-module`) keeps Rust's default: the `jsonschema`
//! crate compiles and validates by recursion, several frames per level.

/// The core's stack, in bytes.
const CORE_STACK_BYTES: usize = 256 * 1024;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "wasm32");
    let validator_module = std::env::var_os("CARGO_FEATURE_VALIDATOR_MODULE").is_some();
    if wasm && !validator_module {
        println!("cargo:rustc-link-arg-cdylib=-zstack-size={CORE_STACK_BYTES}");
    }
}

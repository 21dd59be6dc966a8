//! JSON Schema validation on the `jsonschema` crate, behind [`crate::server::SchemaCompiler`].
//!
//! The engine sees two operations — compile a schema into a handle, validate an instance
//! against a handle — and nothing of the crate underneath:
//!
//! ```
//! use modelcontext_polyfill::schema::JsonSchemaCompiler;
//! use modelcontext_polyfill::server::SchemaCompiler;
//! use serde_json::json;
//!
//! let compiler = JsonSchemaCompiler::new();
//! let schema = compiler.compile(&json!({"type": "object", "required": ["q"]})).unwrap();
//! let violations = schema.validate(&json!({}));
//! assert_eq!(violations[0].keyword, "required");
//! ```
//!
//! | file | what it holds |
//! |---|---|
//! | `backtracking.rs` | which schemas have a pattern run by backtracking (reported to their first violation) |
//! | `compiler.rs` | [`JsonSchemaCompiler`]: dialects, registered documents, options |
//! | `compiled.rs` | [`JsonSchema`]: the handle; crate errors as [`crate::server::SchemaViolation`]s |
//! | `dialect.rs` | [`Dialect`]: the drafts and their `$schema` URIs |
//! | `offline.rs` | the retriever that fetches nothing |
//! | `pattern.rs` | `pattern` with one time budget for an instance's matches, where a pattern backtracks |
//! | `unique.rs` | `uniqueItems` by sorting, in the crate's keyword's place |
//! | [`suite`] | runs the official JSON-Schema-Test-Suite on parsed files (no I/O) |
//! | [`module`] | the validator as its own wasm module: a C ABI over JSON text (feature `validator-module` exports it) |

mod backtracking;
mod compiled;
mod compiler;
mod dialect;
pub mod module;
mod offline;
mod pattern;
pub mod suite;
mod unique;

pub use compiled::{JsonSchema, DEPTH_KEYWORD, INTERNAL_KEYWORD};
pub use compiler::{Document, JsonSchemaCompiler, DEFAULT_MAX_DEPTH};
pub use dialect::Dialect;

#[cfg(test)]
mod tests;

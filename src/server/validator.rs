//! The engine's view of JSON Schema validation: compile once, validate many times.
//!
//! The engine does not know which validator it runs on; [`crate::schema`] supplies one built
//! on the `jsonschema` crate. Keeping this boundary narrow lets the validator live in its
//! own wasm module, off a page's critical path.

use serde_json::Value;
use std::rc::Rc;

/// One way an instance fails a schema.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaViolation {
    /// JSON Pointer to the failing part of the instance (`""` for the root).
    pub instance_path: String,
    /// The keyword that failed (`"required"`, `"type"`, `"minimum"`, …).
    pub keyword: String,
    /// JSON Pointer into the schema to the failing keyword.
    pub schema_path: String,
    /// The validator's message.
    pub message: String,
}

impl SchemaViolation {
    /// `"/a/0: 'x' is not of type 'integer' (type)"` style, naming path and keyword.
    pub fn describe(&self) -> String {
        let path = if self.instance_path.is_empty() {
            "(root)"
        } else {
            &self.instance_path
        };
        format!("{path}: {} [keyword: {}]", self.message, self.keyword)
    }
}

/// A compiled schema.
pub trait CompiledSchema {
    /// All violations of `instance` (empty when valid), in the validator's order.
    fn validate(&self, instance: &Value) -> Vec<SchemaViolation>;
}

/// Compiles schemas. The dialect is chosen by the schema's `$schema`
/// (2020-12 when absent).
pub trait SchemaCompiler {
    /// Compiles `schema`; `Err` carries the validator's message for an invalid schema.
    fn compile(&self, schema: &Value) -> Result<Rc<dyn CompiledSchema>, String>;
}

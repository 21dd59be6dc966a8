//! JSON Schema validation on the `jsonschema` crate, behind [`crate::server::SchemaCompiler`].

//! The retriever the compiler hands the `jsonschema` crate: it fetches nothing.
//!
//! A page's schemas must not make the validator reach the network or a file system. A
//! `$ref` to a document that was not registered beforehand
//! ([`super::JsonSchemaCompiler::with_resources`]) fails compilation with a message that
//! names the URI and says how to make it resolvable.

use jsonschema::{Retrieve, Uri};
use serde_json::Value;

/// Refuses every retrieval with a message naming the URI.
pub(crate) struct Offline;

impl Retrieve for Offline {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!(
            "'{uri}' is not a registered document and the validator does not fetch \
             documents; register it with JsonSchemaCompiler::with_resources"
        )
        .into())
    }
}

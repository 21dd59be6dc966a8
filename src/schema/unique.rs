//! `uniqueItems` for the `jsonschema` crate, by sorting.
//!
//! The crate finds repeated items with a hash set whose hash of an array feeds in its items'
//! hashes and nothing else: `[]`, `[[]]` and `[[], []]` hash alike, as do `1`, `[1]` and
//! `[[1]]`, though no two of them are equal. An agent's array of such items (distinct, all of
//! one hash) makes every insertion compare with every item before it: 16,000 items of about
//! 64 bytes took 5.5 s natively, 4,000 took 0.14 s. This keyword takes the
//! crate's place and decides with the engine's own check
//! ([`unique`](crate::server::plain_schema::unique): the items sorted by a total order whose
//! equality is JSON Schema's, then neighbours compared), in O(n log n) comparisons whatever the
//! items are.
//!
//! A keyword put in the crate's place is compiled whatever vocabularies the meta-schema
//! declares, so [`super::JsonSchemaCompiler`] leaves the crate's own where a document in play
//! declares `$vocabulary` ([`VOCABULARY`]).

use crate::server::plain_schema::unique;
use jsonschema::{Keyword, ValidationError};
use serde_json::{Map, Value};

/// The keyword this module replaces.
pub const NAME: &str = "uniqueItems";

/// `uniqueItems: true` (`false` and other values check nothing, as in the crate).
struct UniqueItems;

impl<'i> Keyword<'i> for UniqueItems {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        if self.is_valid(instance) {
            return Ok(());
        }
        // The crate's wording, which the engine's plain schemas use too.
        Err(ValidationError::custom(format!(
            "{instance} has non-unique elements"
        )))
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        match instance {
            Value::Array(items) => unique(items),
            _ => true,
        }
    }
}

/// A keyword that accepts everything: `uniqueItems` with a value other than `true`.
struct Nothing;

impl<'i> Keyword<'i> for Nothing {
    fn validate(&self, _: &'i Value) -> Result<(), ValidationError<'i>> {
        Ok(())
    }

    fn is_valid(&self, _: &'i Value) -> bool {
        true
    }
}

/// The factory [`jsonschema::ValidationOptions::with_keyword`] takes for [`NAME`].
///
/// # Errors
///
/// None: a value other than `true` checks nothing (the meta-schema, which the crate checks
/// before any keyword is compiled, refuses those that are not booleans).
#[allow(clippy::unnecessary_wraps)] // the factory's signature
pub fn factory<'a>(
    _: &'a Map<String, Value>,
    value: &'a Value,
    _: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> Keyword<'i>>, ValidationError<'a>> {
    if *value == Value::Bool(true) {
        Ok(Box::new(UniqueItems))
    } else {
        Ok(Box::new(Nothing))
    }
}

/// The member a meta-schema names its vocabularies with: where a document in play has one
/// (at any depth; a property of that name counts too), the crate's own keyword is kept, which
/// is only slower.
pub const VOCABULARY: &str = "$vocabulary";

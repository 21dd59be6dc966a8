//! A compiled schema: the handle [`super::JsonSchemaCompiler`] returns.

use super::pattern;
use crate::server::depth;
use crate::server::validator::{depth_violation, MAX_VIOLATIONS};
use crate::server::{CompiledSchema, SchemaViolation};
use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};

pub use crate::server::validator::DEPTH_KEYWORD;

/// The keyword reported if the validator itself fails on an instance.
pub const INTERNAL_KEYWORD: &str = "$internal";

/// A schema compiled by [`super::JsonSchemaCompiler`]; validates instances against it.
pub struct JsonSchema {
    validator: Validator,
    max_depth: usize,
    /// Whether a pattern of the schema may be run by backtracking: reported to its first
    /// violation ([`super::backtracking`]).
    first_only: bool,
}

impl std::fmt::Debug for JsonSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonSchema")
            .field("max_depth", &self.max_depth)
            .field("first_only", &self.first_only)
            .finish_non_exhaustive()
    }
}

impl JsonSchema {
    pub(crate) fn new(validator: Validator, max_depth: usize, first_only: bool) -> Self {
        JsonSchema {
            validator,
            max_depth,
            first_only,
        }
    }

    /// The first `at_most` violations of `instance`, in the `jsonschema` crate's order
    /// ([`CompiledSchema::validate`] is this with [`MAX_VIOLATIONS`]).
    ///
    /// A schema whose patterns may be run by backtracking gives the first violation only
    /// (`src/schema/backtracking.rs`). An instance nested deeper than the compiler's depth
    /// limit is not walked at all: the answer is one violation with keyword [`DEPTH_KEYWORD`]
    /// at the root.
    pub fn violations(&self, instance: &Value, at_most: usize) -> Vec<SchemaViolation> {
        if depth::exceeds(instance, self.max_depth) {
            return vec![depth_violation(self.max_depth)];
        }
        let collected = catch_unwind(AssertUnwindSafe(|| {
            if self.first_only {
                // The crate's check that stops at the first violation, its patterns timed
                // together (`src/schema/pattern.rs`): a match refused or not finished leaves
                // no answer, and the instance is invalid even where the check passed it (a
                // failed match under `not`).
                pattern::begin();
                return match self.validator.validate(instance) {
                    Err(error) if at_most > 0 => vec![violation(&error)],
                    Ok(()) if at_most > 0 && pattern::ran_out() => vec![SchemaViolation::new(
                        String::new(),
                        pattern::NAME.to_owned(),
                        String::new(),
                        pattern::ran_out_message(),
                    )],
                    _ => Vec::new(),
                };
            }
            self.validator
                .iter_errors(instance)
                .take(at_most)
                .map(|error| violation(&error))
                .collect::<Vec<_>>()
        }));
        collected.unwrap_or_else(|_| {
            vec![SchemaViolation {
                instance_path: String::new(),
                keyword: INTERNAL_KEYWORD.to_owned(),
                schema_path: String::new(),
                message: "the validator failed internally on this instance".to_owned(),
            }]
        })
    }
}

impl CompiledSchema for JsonSchema {
    /// The first [`MAX_VIOLATIONS`] violations ([`JsonSchema::violations`]).
    fn validate(&self, instance: &Value) -> Vec<SchemaViolation> {
        self.violations(instance, MAX_VIOLATIONS)
    }
}

/// One `jsonschema` error as the engine's violation.
fn violation(error: &ValidationError<'_>) -> SchemaViolation {
    SchemaViolation::new(
        error.instance_path().as_str().to_owned(),
        keyword(error),
        error.schema_path().as_str().to_owned(),
        error.to_string(),
    )
}

/// The schema keyword that failed.
///
/// It is the last keyword on the error's schema path, which names the keyword the schema
/// author wrote: `dependentRequired` rather than the `required` check it performs,
/// `minContains` rather than `contains`, and for a `false` subschema the keyword that held it
/// (`"items"` for `{"items": false}`, `"properties"` for `{"properties": {"a": false}}`).
/// A `propertyNames` failure is reported as `propertyNames`, since its instance path points
/// at the object, not at a value. The root schema `false` is `"false"`.
fn keyword(error: &ValidationError<'_>) -> String {
    match error.kind() {
        ValidationErrorKind::PropertyNames { .. } => "propertyNames".to_owned(),
        kind => last_keyword(error.schema_path().as_str()).unwrap_or_else(|| {
            if matches!(kind, ValidationErrorKind::FalseSchema) {
                "false".to_owned()
            } else {
                kind.keyword().to_owned()
            }
        }),
    }
}

/// Keywords whose value is an object keyed by property names: the segment after them is a
/// name, not a keyword.
const NAMED_MEMBERS: [&str; 7] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
];

/// The last keyword on a schema path, skipping property names and array indices.
fn last_keyword(schema_path: &str) -> Option<String> {
    let segments: Vec<String> = schema_path
        .split('/')
        .skip(1)
        .map(unescape_segment)
        .collect();
    let mut position = 0;
    let mut last = None;
    while let Some(keyword) = segments.get(position) {
        position += 1;
        let names_next = NAMED_MEMBERS.contains(&keyword.as_str());
        let indexes_next = segments.get(position).is_some_and(|next| is_index(next));
        if names_next || indexes_next {
            position += 1;
        }
        last = Some(keyword.clone());
    }
    last
}

fn is_index(segment: &str) -> bool {
    !segment.is_empty() && segment.bytes().all(|byte| byte.is_ascii_digit())
}

/// A JSON Pointer segment with `~1` and `~0` decoded.
fn unescape_segment(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

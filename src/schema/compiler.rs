//! [`JsonSchemaCompiler`]: the engine's [`SchemaCompiler`] on the `jsonschema` crate.

use super::backtracking;
use super::compiled::JsonSchema;
use super::dialect::Dialect;
use super::offline::Offline;
use super::pattern;
use super::unique;
use crate::server::depth;
use crate::server::{CompiledSchema, SchemaCompiler};
use jsonschema::error::ValidationErrorKind;
use jsonschema::{Registry, ValidationError, ValidationOptions};
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

pub use crate::server::validator::DEFAULT_MAX_DEPTH;

/// A document that `$ref` (or `$schema`) may name, registered with
/// [`JsonSchemaCompiler::with_documents`].
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// The absolute URI the document is known by.
    pub uri: String,
    /// The document.
    pub contents: Value,
    /// The dialect that reads it when it has no `$schema`; `None` for the compiler's default.
    pub dialect: Option<Dialect>,
}

/// Compiles JSON Schemas with the `jsonschema` crate.
///
/// - **Dialect**: a schema's `$schema` picks draft 4, 6, 7, 2019-09 or 2020-12; without
///   `$schema` the default dialect applies ([`Dialect::Draft202012`] unless
///   [`with_default_dialect`](Self::with_default_dialect) says otherwise). A `$schema` naming
///   none of these is refused, unless it names a meta-schema registered with
///   [`with_resources`](Self::with_resources).
/// - **References**: nothing is fetched from the network or a file. `$ref`s resolve within
///   the schema and against documents registered with
///   [`with_resources`](Self::with_resources); any other `$ref` fails compilation with a
///   message naming its URI.
/// - **`format`**: an annotation by default, in every dialect. JSON Schema 2020-12 and
///   2019-09 make `format` an annotation unless the meta-schema requires the format-assertion
///   vocabulary (honoured); drafts 4 to 7 leave it to the implementation, and this compiler
///   chooses the 2020-12 behaviour for them too, so that one tool schema means the same in
///   every dialect. [`with_format_assertion(true)`](Self::with_format_assertion) turns the
///   checks on.
/// - **Numbers**: a number with a zero fraction (`1.0`) is an integer (draft 6 and later;
///   draft 4 requires an integer literal).
/// - **Depth**: schemas and instances nested deeper than [`DEFAULT_MAX_DEPTH`] levels are
///   refused before the recursive compiler or validator sees them.
/// - **Failure**: an invalid schema is an `Err` naming the offending place; nothing panics.
#[derive(Clone)]
pub struct JsonSchemaCompiler {
    default_dialect: Dialect,
    assert_formats: bool,
    max_depth: usize,
    resources: Vec<Document>,
    /// The resources, indexed for the default dialect; `Err` when indexing failed.
    registry: Result<Option<Rc<Registry<'static>>>, String>,
    /// What the resources hold that decides how a schema is compiled.
    resources_hold: Holds,
}

impl Default for JsonSchemaCompiler {
    fn default() -> Self {
        JsonSchemaCompiler {
            default_dialect: Dialect::default(),
            assert_formats: false,
            max_depth: DEFAULT_MAX_DEPTH,
            resources: Vec::new(),
            registry: Ok(None),
            resources_hold: Holds::default(),
        }
    }
}

impl std::fmt::Debug for JsonSchemaCompiler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonSchemaCompiler")
            .field("default_dialect", &self.default_dialect)
            .field("assert_formats", &self.assert_formats)
            .field("max_depth", &self.max_depth)
            .field("resources", &self.resources.len())
            .finish_non_exhaustive()
    }
}

impl JsonSchemaCompiler {
    /// A compiler with the defaults: 2020-12, `format` as annotation, no registered documents.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads schemas without `$schema` — and registered documents without `$schema` nor a
    /// dialect of their own — in `dialect`.
    ///
    /// Registered documents are indexed again for the new dialect; should that fail, every
    /// later compilation returns the reason.
    #[must_use]
    pub fn with_default_dialect(mut self, dialect: Dialect) -> Self {
        self.default_dialect = dialect;
        self.reindex();
        self
    }

    /// Whether `format` is checked (`true`) or only an annotation (`false`, the default).
    #[must_use]
    pub fn with_format_assertion(mut self, assert: bool) -> Self {
        self.assert_formats = assert;
        self
    }

    /// How many levels of arrays and objects a schema, an instance or a registered document
    /// may nest ([`DEFAULT_MAX_DEPTH`] unless set). Raising it trades safety for reach: the
    /// stack must hold about 2 KiB per level (measured natively).
    #[must_use]
    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self.reindex();
        self
    }

    /// Registers documents that `$ref` (or `$schema`) may name, each under its absolute
    /// URI. Documents without `$schema` are read in the default dialect.
    ///
    /// # Errors
    ///
    /// Names the document that could not be registered: a URI that is not absolute, an
    /// unknown `$schema`, a `$ref` to a document that is not registered, …
    pub fn with_resources(self, resources: Vec<(String, Value)>) -> Result<Self, String> {
        let documents = resources
            .into_iter()
            .map(|(uri, contents)| Document {
                uri,
                contents,
                dialect: None,
            })
            .collect();
        self.with_documents(documents)
    }

    /// As [`with_resources`](Self::with_resources), with a dialect per document for those
    /// without `$schema`. All documents are indexed together, so they may refer to each other.
    ///
    /// # Errors
    ///
    /// As for [`with_resources`](Self::with_resources).
    pub fn with_documents(mut self, documents: Vec<Document>) -> Result<Self, String> {
        self.resources.extend(documents);
        self.resources_hold = Holds::default();
        for document in &self.resources {
            self.resources_hold.add(&document.contents);
        }
        self.reindex();
        match &self.registry {
            Ok(_) => Ok(self),
            Err(message) => Err(message.clone()),
        }
    }

    /// Indexes the registered documents again after a setting they depend on changed.
    fn reindex(&mut self) {
        self.registry = index(&self.resources, self.default_dialect, self.max_depth);
    }

    /// The dialect `schema` is read in: its `$schema`, or the default dialect.
    ///
    /// `Ok(None)` means `$schema` names a registered custom meta-schema, whose own dialect
    /// the `jsonschema` crate works out.
    fn dialect_of(
        &self,
        schema: &Value,
        registry: Option<&Registry<'_>>,
    ) -> Result<Option<Dialect>, String> {
        let Some(uri) = schema.get("$schema").and_then(Value::as_str) else {
            return Ok(Some(self.default_dialect));
        };
        if let Some(dialect) = Dialect::from_schema_uri(uri) {
            return Ok(Some(dialect));
        }
        if registry.is_some_and(|registry| registry.contains_resource(uri.trim_end_matches('#'))) {
            return Ok(None);
        }
        let known: Vec<&str> = Dialect::ALL
            .iter()
            .map(|dialect| dialect.schema_uri())
            .collect();
        Err(format!(
            "unknown $schema \"{uri}\": the validator knows {}",
            known.join(", ")
        ))
    }

    /// Compiles `schema` into the concrete handle.
    ///
    /// [`SchemaCompiler::compile`] is this, behind the engine's trait object.
    ///
    /// # Errors
    ///
    /// The schema is invalid for its dialect (the message names the place), names an unknown
    /// `$schema`, has a `$ref` that cannot be resolved, nests too deeply, or the registered
    /// documents could not be indexed.
    pub fn compile_schema(&self, schema: &Value) -> Result<JsonSchema, String> {
        if depth::exceeds(schema, self.max_depth) {
            return Err(format!(
                "the schema nests arrays and objects more than {} levels deep, deeper than \
                 the validator accepts",
                self.max_depth
            ));
        }
        let registry = self.registry.clone()?;
        let dialect = self.dialect_of(schema, registry.as_deref())?;

        let mut holds = self.resources_hold;
        holds.add(schema);
        let mut options: ValidationOptions<'_> = jsonschema::options().with_retriever(Offline);
        if !holds.vocabulary {
            options = options.with_keyword(unique::NAME, unique::factory);
            if holds.backtracking {
                options = options.with_keyword(pattern::NAME, pattern::factory);
            }
        }
        if let Some(registry) = registry.as_deref() {
            options = options.with_registry(registry);
        }
        if let Some(dialect) = dialect {
            options = options.with_draft(dialect.draft());
        }
        if self.assert_formats {
            options = options.should_validate_formats(true);
        } else if dialect.is_some_and(Dialect::formats_are_optional_assertions) {
            // 2019-09 and 2020-12 already annotate, unless their meta-schema asks for the
            // format-assertion vocabulary; leaving the crate's choice there honours that.
            options = options.should_validate_formats(false);
        }

        let built = catch_unwind(AssertUnwindSafe(|| options.build(schema)));
        match built {
            Ok(Ok(validator)) => Ok(JsonSchema::new(
                validator,
                self.max_depth,
                holds.backtracking,
            )),
            Ok(Err(error)) => Err(compile_error(&error)),
            Err(_) => Err("the validator failed internally on this schema".to_owned()),
        }
    }
}

/// What a document holds that decides how a schema is compiled, found in one walk of it (and of
/// each document added).
#[derive(Clone, Copy, Default)]
pub(super) struct Holds {
    /// A member named `$vocabulary`: the crate's own `uniqueItems` is kept ([`super::unique`]).
    pub(super) vocabulary: bool,
    /// A string or member name with a lookaround's or backreference's syntax: the schema is
    /// reported to its first violation ([`super::backtracking`]).
    pub(super) backtracking: bool,
}

impl Holds {
    /// Adds what `document` holds (the walk ends once both are found).
    pub(super) fn add(&mut self, document: &Value) {
        if self.vocabulary && self.backtracking {
            return;
        }
        match document {
            Value::String(s) => self.backtracking |= backtracking::fancy(s),
            Value::Array(items) => items.iter().for_each(|item| self.add(item)),
            Value::Object(members) => {
                for (name, value) in members {
                    self.vocabulary |= name == unique::VOCABULARY;
                    self.backtracking |= backtracking::fancy(name);
                    self.add(value);
                }
            }
            _ => {}
        }
    }
}

impl SchemaCompiler for JsonSchemaCompiler {
    fn compile(&self, schema: &Value) -> Result<Rc<dyn CompiledSchema>, String> {
        let compiled = self.compile_schema(schema)?;
        Ok(Rc::new(compiled))
    }
}

/// Indexes `resources`; `default` reads those without `$schema` and without a dialect of
/// their own. Documents deeper than `max_depth` are refused.
fn index(
    resources: &[Document],
    default: Dialect,
    max_depth: usize,
) -> Result<Option<Rc<Registry<'static>>>, String> {
    if resources.is_empty() {
        return Ok(None);
    }
    if let Some(deep) = resources
        .iter()
        .find(|document| depth::exceeds(&document.contents, max_depth))
    {
        return Err(format!(
            "cannot register \"{}\": it nests arrays and objects more than {max_depth} levels \
             deep, deeper than the validator accepts",
            deep.uri
        ));
    }
    let mut builder = Registry::new().retriever(Offline);
    for Document {
        uri,
        contents,
        dialect,
    } in resources
    {
        let draft = dialect.unwrap_or(default).draft().detect(contents);
        let added = if Dialect::from_draft(draft).is_some() {
            builder.add(uri, draft.create_resource(contents.clone()))
        } else {
            // A custom meta-schema: the crate follows its `$schema` chain itself.
            builder.add(uri, contents.clone())
        };
        builder = added.map_err(|error| format!("cannot register \"{uri}\": {error}"))?;
    }
    let prepared = catch_unwind(AssertUnwindSafe(|| builder.prepare()));
    match prepared {
        Ok(Ok(registry)) => Ok(Some(Rc::new(registry))),
        Ok(Err(error)) => Err(format!("cannot register the documents: {error}")),
        Err(_) => Err("the validator failed internally while registering documents".to_owned()),
    }
}

/// The message for a schema the crate refused.
fn compile_error(error: &ValidationError<'_>) -> String {
    if let ValidationErrorKind::Referencing(reference) = error.kind() {
        return format!("unresolvable reference: {reference}");
    }
    let path = error.instance_path().as_str();
    if path.is_empty() {
        format!("invalid schema: {error}")
    } else {
        format!("invalid schema at {path}: {error}")
    }
}

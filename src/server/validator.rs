//! The engine's view of JSON Schema validation: compile once, validate many times.
//!
//! The engine does not know which validator it runs on; `crate::schema` (feature
//! `validator`) supplies one built on the `jsonschema` crate. Keeping this boundary narrow
//! lets the validator live in its own wasm module, off a page's critical path: in a browser
//! the compiler is a lazy bridge (`crate::browser::validator`) that hands out deferred
//! handles until the module has loaded, and says through [`SchemaCompiler::ready`] when
//! validating can start.

use super::limits::shorten;
use super::runtime::LocalBoxFuture;
use serde_json::Value;
use std::rc::Rc;

/// How deeply schemas and instances may nest arrays and objects by default.
///
/// The `jsonschema` crate compiles and validates by recursion, one or more stack frames per
/// level. Measured natively on a 1 MiB stack, a schema nested 600 JSON levels compiles and
/// validates and one nested 1000 levels overflows; an instance 1000 levels deep validates
/// against a recursive schema. 128 levels is far beyond any tool schema, matches
/// `serde_json`'s own parsing limit, and leaves a wide margin on a 1 MiB stack (the default
/// for wasm32-unknown-unknown) for the caller's own frames.
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// The keyword reported when an instance nests deeper than the validator's depth limit.
pub const DEPTH_KEYWORD: &str = "$depth";

/// The one violation of an instance nested more than `max_depth` levels deep (it is not
/// walked at all).
pub fn depth_violation(max_depth: usize) -> SchemaViolation {
    SchemaViolation {
        instance_path: String::new(),
        keyword: DEPTH_KEYWORD.to_owned(),
        schema_path: String::new(),
        message: format!(
            "the instance nests arrays and objects more than {max_depth} levels deep, \
             deeper than the validator accepts"
        ),
    }
}

/// The keyword reported for arguments too large to read into a value for their report (see
/// [`CompiledSchema::text_violations`]).
pub const VALUES_KEYWORD: &str = "$values";

/// The one violation of JSON text a schema refuses that holds more than `max_values` values:
/// at `instance_path`, the value (or the container of the value) where the refusal is, `""`
/// where that is not known.
pub fn values_violation(instance_path: String, max_values: usize) -> SchemaViolation {
    SchemaViolation::new(
        instance_path,
        VALUES_KEYWORD.to_owned(),
        String::new(),
        format!(
            "the schema refuses this value or one inside it; the instance holds more than \
             {max_values} JSON values, more than are read to report each violation"
        ),
    )
}

/// The one violation of JSON text that holds more than `max_values` values, refused where its
/// check could not be made within them: at `instance_path`, the value whose reading ran out
/// (`""`: the instance, given to no schema that would read it whole,
/// [`CompiledSchema::reads_text_whole`], or to one that reads no text). Unchecked, refused:
/// unlike [`values_violation`], it does not say the schema refuses it.
pub fn unread_violation(instance_path: String, max_values: usize) -> SchemaViolation {
    SchemaViolation::new(
        instance_path,
        VALUES_KEYWORD.to_owned(),
        String::new(),
        format!(
            "the instance holds more than {max_values} JSON values, more than are read to check \
             this value against the schema"
        ),
    )
}

/// The most violations one validation reports: [`CompiledSchema::validate`] stops collecting
/// there, and a report that lists this many says that more may exist. Every violation of an
/// instance is worded and carried to the caller, so without a bound an agent's argument of
/// 200,000 wrong items (under 1 MiB of JSON) was answered with 200,000 violations, tens of
/// megabytes of error text and data, built in the page's memory first. A model corrects a
/// call from the first few; a page author reads them all the same.
pub const MAX_VIOLATIONS: usize = 32;

/// `violations` as one line of text, `; ` between them (each as
/// [`SchemaViolation::describe`] words it); when there are [`MAX_VIOLATIONS`], the validation
/// stopped there, and the line says that more may exist.
pub fn describe_all(violations: &[SchemaViolation]) -> String {
    let parts: Vec<String> = violations.iter().map(SchemaViolation::describe).collect();
    let mut text = parts.join("; ");
    if violations.len() >= MAX_VIOLATIONS {
        text.push_str(&format!(
            "; (the first {MAX_VIOLATIONS} violations found; there may be more)"
        ));
    }
    text
}

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
    /// A violation whose message and instance path are [`shorten`]ed (both may quote the
    /// instance, at any length).
    pub fn new(
        instance_path: String,
        keyword: String,
        schema_path: String,
        message: String,
    ) -> SchemaViolation {
        SchemaViolation {
            instance_path: shorten(instance_path),
            keyword,
            schema_path,
            message: shorten(message),
        }
    }

    /// `"/a/0: 'x' is not of type 'integer' (type)"` style, naming path and keyword.
    pub fn describe(&self) -> String {
        let path = if self.instance_path.is_empty() {
            "(root)"
        } else {
            &self.instance_path
        };
        format!("{path}: {} [keyword: {}]", self.message, self.keyword)
    }

    /// `{"instancePath", "keyword", "schemaPath", "message"}`: how the validator module
    /// (`crate::schema::module`) reports a violation to the browser's core module.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "instancePath": self.instance_path,
            "keyword": self.keyword,
            "schemaPath": self.schema_path,
            "message": self.message,
        })
    }

    /// Reads what [`to_json`](Self::to_json) wrote; `None` if `v` is not a violation.
    pub fn from_json(v: &Value) -> Option<SchemaViolation> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        Some(SchemaViolation {
            instance_path: s("instancePath")?,
            keyword: s("keyword")?,
            schema_path: s("schemaPath")?,
            message: s("message")?,
        })
    }
}

/// A compiled schema.
pub trait CompiledSchema {
    /// The violations of `instance` (empty when valid), in the validator's order: the first
    /// [`MAX_VIOLATIONS`] found, each made by [`SchemaViolation::new`].
    ///
    /// A handle whose compilation was deferred compiles on its first call (see
    /// [`SchemaCompiler::ready`]); called before its validator is ready, it reports one
    /// violation saying so rather than accepting the instance unchecked.
    fn validate(&self, instance: &Value) -> Vec<SchemaViolation>;

    /// Whether JSON text `text` is an instance this schema accepts, decided without reading
    /// it into a value where the schema can (a plain one:
    /// [`PlainSchema::accepts_text`](super::plain_schema::PlainSchema::accepts_text)). `false`
    /// means "not shown valid": the caller reads the text and calls `validate`, which says why
    /// (the default, for every other schema).
    fn accepts_text(&self, text: &str) -> bool {
        let _ = text;
        false
    }

    /// The violations of the instance JSON text `text` holds, for text `accepts_text` did
    /// not show valid and that holds more than `max_values` values (which `serde_json` reads:
    /// the caller found out when its reading, at most that many values, ran out): more
    /// than the caller reads into a value to `validate` it, for an agent's call it refuses
    /// (4 MiB of `[[],[],…]` is 1.3 million values, some 200 MB of memory that a wasm module
    /// keeps). The default: one [`unread_violation`] at the root: the text is not checked
    /// (the validator module's schemas answer so too: they would read it whole). A plain schema
    /// names the value where its check fails ([`values_violation`]), or the part it needs
    /// whole whose reading ran out of `max_values` ([`unread_violation`]), and gives none
    /// where its check of the text with such parts read on that budget accepts it.
    fn text_violations(&self, text: &str, max_values: usize) -> Vec<SchemaViolation> {
        let _ = text;
        vec![unread_violation(String::new(), max_values)]
    }

    /// Whether [`accepts_text`](Self::accepts_text) reads the text whole into memory the
    /// engine does not bound (the validator module reads an instance into values in its own
    /// memory, which it keeps once grown). Such a schema is not given an agent's arguments of
    /// more values than the caller's limit: they are refused unread
    /// ([`unread_violation`]). `false` (the default) for every schema that reads on the
    /// caller's budget or not at all.
    fn reads_text_whole(&self) -> bool {
        false
    }

    /// Whether checking an instance may read the text of one of its strings, not only its
    /// type: a tool call's long argument strings a transport held out of the engine
    /// ([`HeldArguments`](super::held::HeldArguments)) are read in first when it may. `true`
    /// (the default) for every schema but a plain one whose keywords never do
    /// ([`PlainSchema`](super::plain_schema::PlainSchema)'s).
    fn reads_string_texts(&self) -> bool {
        true
    }

    /// For a handle whose compilation was deferred: compiles it now if its validator is
    /// ready, and returns why the schema could not be compiled. Such a schema then validates
    /// nothing (`validate` accepts every instance), as a schema refused at registration
    /// leaves its tool unvalidated. `None` for every schema compiled at once (the default).
    fn deferred_error(&self) -> Option<String> {
        None
    }

    /// Whether validating waits for [`SchemaCompiler::ready`] (a handle handed out before its
    /// validator was ready). `false` for every schema compiled at once (the default).
    fn is_deferred(&self) -> bool {
        false
    }
}

/// Compiles schemas. The dialect is chosen by the schema's `$schema`
/// (2020-12 when absent).
pub trait SchemaCompiler {
    /// Compiles `schema`; `Err` carries the validator's message for an invalid schema.
    ///
    /// A compiler whose validator is not ready yet may return a deferred handle instead
    /// (always `Ok`); its compilation errors then surface through
    /// [`CompiledSchema::deferred_error`].
    fn compile(&self, schema: &Value) -> Result<Rc<dyn CompiledSchema>, String>;

    /// What validation must wait for: `None` when compiled handles validate now (the
    /// default, and every native compiler), else a future that resolves once they do
    /// (`Ok`) or never will (`Err` naming the reason, e.g. the validator module's URL and
    /// why it could not be loaded). The engine awaits it before checking a call of a tool
    /// that has a deferred schema (MCP `tools/call`, WebMCP `executeTool`).
    fn ready(&self) -> Option<LocalBoxFuture<'static, Result<(), String>>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bound's note is added exactly when the validation may have stopped at it.
    #[test]
    fn describe_all_says_when_there_may_be_more() {
        let one = SchemaViolation::new("/a".into(), "type".into(), "/type".into(), "m".into());
        let fewer = vec![one.clone(); MAX_VIOLATIONS - 1];
        assert_eq!(
            describe_all(&fewer),
            vec!["/a: m [keyword: type]"; MAX_VIOLATIONS - 1].join("; ")
        );
        let full = vec![one; MAX_VIOLATIONS];
        assert!(describe_all(&full).ends_with(
            "/a: m [keyword: type]; (the first 32 violations found; there may be more)"
        ));
    }
}

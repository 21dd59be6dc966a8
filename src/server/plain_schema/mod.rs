//! Plain JSON Schemas, checked by the engine itself.
//!
//! Most tool schemas are made of a handful of keywords: an object with typed `properties`,
//! `required` names, an `enum` or two, bounds. [`PlainSchema::compile`] accepts a JSON Schema
//! 2020-12 (or draft 7) document made only of those and checks instances against it here, giving the same
//! violations as the `jsonschema`-based validator (`crate::schema`): the same instance path,
//! keyword, schema path and message for each (when there are several, in this module's order:
//! by keyword as the crate prioritises them, properties in instance order).
//! `tests/plain_schema.rs` holds the two side by side over the JSON-Schema-Test-Suite and a
//! corpus of tool schemas and instances.
//!
//! `pattern` is plain when it is written in the subset [`Pattern`] accepts (the patterns zod
//! writes for `uuid`, `email`, `datetime`, `ipv4`… are): the engine checks it with a
//! linear-time engine, as the validator's is. Never with the page's `RegExp`, which backtracks:
//! an agent's string could hold the page (quadratic for `a+b`, exponential for `^(a+)+$`).
//!
//! A `$ref` that points into the document (`#/$defs/day`, `#/definitions/a`, `#/properties/b`)
//! is plain when its target is; the target is compiled once, for every `$ref` to it, and a
//! violation's schema path is the target's own location, as the full validator gives it.
//! Cycles, anchors, other documents, a `false` target and, in draft 7, a `$ref` with siblings
//! are the validator's.
//!
//! Anything else — a `pattern` outside that subset (a lookaround, `\p{…}`), `patternProperties`,
//! `contains`, a float `multipleOf`, a `$schema` other than 2020-12 or draft 7, a keyword this
//! module does not know, a value of the wrong type — gives `None`, and the caller uses the full
//! validator. In a browser this keeps the validator module (`crate::browser::validator`) from
//! loading at all for pages whose tools only use plain schemas.
//!
//! ```
//! use modelcontext_polyfill::server::plain_schema::PlainSchema;
//! use modelcontext_polyfill::server::CompiledSchema;
//! use serde_json::json;
//!
//! let schema = PlainSchema::compile(&json!({
//!     "type": "object",
//!     "properties": { "q": { "type": "string", "minLength": 1 } },
//!     "required": ["q"]
//! }))
//! .unwrap();
//! assert!(schema.validate(&json!({ "q": "rust" })).is_empty());
//! let v = schema.validate(&json!({ "q": 7 }));
//! assert_eq!((v[0].instance_path.as_str(), v[0].keyword.as_str()), ("/q", "type"));
//! assert_eq!(v[0].message, r#"7 is not of type "string""#);
//! // A pattern in the engine's subset is plain; one with a Unicode property is the validator's.
//! assert!(PlainSchema::compile(&json!({ "type": "string", "pattern": "^[a-z]+$" })).is_some());
//! assert!(PlainSchema::compile(&json!({ "type": "string", "pattern": "^\\p{L}+$" })).is_none());
//! ```

mod numbers;
mod pattern;
mod text;
mod walk;

/// `uniqueItems` by sorting, which the `jsonschema` validator (`crate::schema`) checks with too.
#[cfg(feature = "validator")]
pub(crate) use numbers::unique;
pub use pattern::Pattern;

use super::validator::{
    depth_violation, unread_violation, values_violation, CompiledSchema, SchemaViolation,
};
use super::validator::{DEFAULT_MAX_DEPTH, MAX_VIOLATIONS};
use crate::protocol::values::ValueBudget;
use crate::server::depth;
use numbers::MAX_SAFE;
use serde_json::{Number, Value};
use std::sync::Arc;
use walk::{walk, Path, Walk};

/// How deeply a plain schema may nest subschemas; deeper ones go to the full validator.
const MAX_SCHEMA_DEPTH: usize = 32;

/// How many subschemas a plain schema may compile to (each `$ref` target counts once: it is
/// compiled once and shared by every `$ref` to it).
const MAX_NODES: usize = 10_000;

/// The `$schema`s a plain schema may name (without a trailing `#`, over http or https): 2020-12,
/// the default dialect, and draft 7, which zod-to-json-schema and MCP SDKs write. The plain
/// keywords mean the same in both, and `format` is an annotation in both (the full validator
/// asserts it in neither unless told to).
const DRAFT_2020_12: &str = "json-schema.org/draft/2020-12/schema";
const DRAFT_7: &str = "json-schema.org/draft-07/schema";

/// A schema made only of the plain keywords, compiled.
pub struct PlainSchema {
    root: Node,
}

/// Whether `serde_json` reads `text` into a value, decided as [`PlainSchema::accepts_text`]
/// reads text, without making one: JSON it can hold (no lone surrogate's escape, no number
/// past `f64`'s range, nested at most [`DEFAULT_MAX_DEPTH`] levels). A text kept to be read
/// later (a `tools/call`'s arguments, handed to a page's function as text) is refused as its
/// value would have been.
///
/// ```
/// use modelcontext_polyfill::server::plain_schema::is_readable;
/// assert!(is_readable(r#"{"a": [1, "\u00e9", {"b": null}]}"#));
/// assert!(!is_readable(r#"{"a": "\ud800"}"#));
/// assert!(!is_readable(r#"[1e400]"#));
/// assert!(!is_readable(r#"{"a": 1"#));
/// ```
pub fn is_readable(text: &str) -> bool {
    text::accepts(&Node::True, text, None)
}

/// Why `serde_json` does not read `text` into a value: the error
/// [`values::parse`](crate::protocol::values::parse) gives, found as [`is_readable`] reads,
/// without making a value; `None` where it reads.
///
/// ```
/// use modelcontext_polyfill::server::plain_schema::read_error;
/// let text = r#"{"a": [1, "\ud800"]}"#;
/// let e = read_error(text).expect("a lone surrogate");
/// assert_eq!(e.to_string(), serde_json::from_str::<serde_json::Value>(text).unwrap_err().to_string());
/// assert!(read_error(r#"{"a": [1]}"#).is_none());
/// ```
pub fn read_error(text: &str) -> Option<serde_json::Error> {
    text::read_error(text)
}

enum Node {
    /// `true`.
    True,
    /// `false`, at its location.
    False(String),
    Checks(Box<Checks>),
}

/// The JSON types, as bits in the order the `jsonschema` crate lists them in messages.
const NULL: u8 = 1;
const BOOLEAN: u8 = 1 << 1;
const INTEGER: u8 = 1 << 2;
const NUMBER: u8 = 1 << 3;
const STRING: u8 = 1 << 4;
const ARRAY: u8 = 1 << 5;
const OBJECT: u8 = 1 << 6;
const TYPE_NAMES: [(&str, u8); 7] = [
    ("null", NULL),
    ("boolean", BOOLEAN),
    ("integer", INTEGER),
    ("number", NUMBER),
    ("string", STRING),
    ("array", ARRAY),
    ("object", OBJECT),
];

#[derive(Default)]
struct Checks {
    /// The schema's location (a JSON Pointer), the prefix of every violation's schema path.
    at: String,
    /// Allowed types, and whether `type` was one name (the message differs).
    types: Option<(u8, bool)>,
    required: Vec<String>,
    properties: Vec<(String, Node)>,
    /// `additionalProperties`, unless absent or `true`.
    additional: Option<Node>,
    /// The other keywords, boxed only when the schema uses one of them: a tool schema is
    /// kept for as long as the tool is registered, and most of its subschemas are a `type`.
    rare: Option<Box<Rare>>,
}

/// The keywords most subschemas do not use.
#[derive(Default)]
struct Rare {
    constant: Option<Value>,
    /// `enum`'s values.
    options: Option<Vec<Value>>,
    minimum: Option<Number>,
    maximum: Option<Number>,
    exclusive_minimum: Option<Number>,
    exclusive_maximum: Option<Number>,
    multiple_of: Option<u64>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    /// `pattern`, when the engine checks it ([`Pattern`]).
    pattern: Option<Box<Pattern>>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    min_properties: Option<u64>,
    max_properties: Option<u64>,
    unique_items: bool,
    items: Option<Node>,
    /// `prefixItems` (2020-12): the first items' own schemas; `items` then covers the rest.
    prefix_items: Vec<Node>,
    any_of: Vec<Node>,
    one_of: Vec<Node>,
    all_of: Vec<Node>,
    /// `propertyNames`.
    property_names: Option<Node>,
    /// `not`: the subschema compiled, and as written (its violation's message quotes it).
    not: Option<(Node, Value)>,
    /// `if`, `then`, `else`.
    if_: Option<Node>,
    then: Option<Node>,
    else_: Option<Node>,
    /// `$ref`'s target, compiled (shared with the other `$ref`s to it).
    reference: Option<Arc<Node>>,
}

/// What a subschema without the rare keywords has of them: none.
static NO_RARE: Rare = Rare {
    constant: None,
    options: None,
    minimum: None,
    maximum: None,
    exclusive_minimum: None,
    exclusive_maximum: None,
    multiple_of: None,
    min_length: None,
    max_length: None,
    pattern: None,
    min_items: None,
    max_items: None,
    min_properties: None,
    max_properties: None,
    unique_items: false,
    items: None,
    prefix_items: Vec::new(),
    any_of: Vec::new(),
    one_of: Vec::new(),
    all_of: Vec::new(),
    property_names: None,
    not: None,
    if_: None,
    then: None,
    else_: None,
    reference: None,
};

impl Checks {
    fn rare(&self) -> &Rare {
        self.rare.as_deref().unwrap_or(&NO_RARE)
    }
}

impl PlainSchema {
    /// The schema compiled, if it is plain (see the module's documentation); else `None`.
    pub fn compile(schema: &Value) -> Option<PlainSchema> {
        let draft7 = match schema.get("$schema") {
            None => false,
            Some(dialect) => {
                let uri = dialect.as_str()?;
                let uri = uri.strip_suffix('#').unwrap_or(uri);
                let place = uri
                    .strip_prefix("https://")
                    .or_else(|| uri.strip_prefix("http://"))?;
                match place {
                    DRAFT_2020_12 => false,
                    DRAFT_7 => true,
                    _ => return None,
                }
            }
        };
        let mut cx = Cx {
            document: schema,
            draft7,
            budget: MAX_NODES,
            targets: Vec::new(),
        };
        Some(PlainSchema {
            root: cx.node(schema, String::new(), 0, true)?,
        })
    }

    /// Whether `text` is JSON whose value this schema accepts, decided as the text is read:
    /// no container is built, but where a subschema needs one whole (an `anyOf`, an `enum`…).
    /// `false` when the value is refused, and for text this reading does not take (not JSON,
    /// a lone surrogate's escape, nested past the depth limit): the caller then reads the
    /// value and [`validate`](CompiledSchema::validate)s it, which says why.
    ///
    /// ```
    /// use modelcontext_polyfill::server::plain_schema::PlainSchema;
    /// use serde_json::json;
    ///
    /// let schema = PlainSchema::compile(&json!({
    ///     "type": "array",
    ///     "items": { "type": "object", "properties": { "n": { "type": "integer" } }, "required": ["n"] }
    /// }))
    /// .unwrap();
    /// assert!(schema.accepts_text(r#"[{"n": 1}, {"n": 2, "note": "x"}]"#));
    /// assert!(!schema.accepts_text(r#"[{"n": 1}, {"m": 2}]"#));
    /// assert!(!schema.accepts_text(r#"[{"n": 1}"#));
    /// ```
    pub fn accepts_text(&self, text: &str) -> bool {
        text::accepts(&self.root, text, Some(text::WHOLE_VALUES))
    }

    /// [`accepts_text`](Self::accepts_text) with a container that a subschema needs whole for
    /// its branches alone (`anyOf`, `oneOf`, `not`, `if`) read into a value when it holds at
    /// most `up_to` values (`accepts_text` reads one of 10,000), and otherwise checked branch
    /// by branch from its text; with `None`, read into a value whatever its size, as is a
    /// container needed whole for another keyword (`const`, `enum`, `uniqueItems`), which with
    /// `Some` is not shown valid past 10,000 values. For tests, which hold the ways to the same
    /// verdicts.
    #[doc(hidden)]
    pub fn accepts_text_reading_whole_up_to(&self, text: &str, up_to: Option<usize>) -> bool {
        text::accepts(&self.root, text, up_to)
    }

    /// The first `at_most` violations of `instance`, worded and ordered as the full
    /// validator's ([`CompiledSchema::validate`] is this with [`MAX_VIOLATIONS`]). The walk
    /// ends once it has found that many.
    pub fn violations(&self, instance: &Value, at_most: usize) -> Vec<SchemaViolation> {
        // As the full validator: an instance nested too deeply is not walked.
        if depth::exceeds(instance, DEFAULT_MAX_DEPTH) {
            return vec![depth_violation(DEFAULT_MAX_DEPTH)];
        }
        // Deciding first: a valid instance, the common case, costs no violation built.
        if at_most == 0
            || walk(
                &self.root,
                instance,
                &Path::Root,
                "false",
                &mut Walk::deciding(),
            )
        {
            return Vec::new();
        }
        let mut out = Vec::new();
        walk(
            &self.root,
            instance,
            &Path::Root,
            "false",
            &mut Walk::reporting(&mut out, at_most),
        );
        out
    }
}

/// What compiling a schema carries through its subschemas.
struct Cx<'p> {
    /// The whole document, which a `$ref` points into.
    document: &'p Value,
    /// Whether the document names draft 7, where a `$ref` hides its siblings.
    draft7: bool,
    /// How many more subschemas may be compiled ([`MAX_NODES`]).
    budget: usize,
    /// The `$ref` targets compiled so far, by their JSON Pointer (a document has a handful).
    targets: Vec<(String, Arc<Node>)>,
}

impl<'p> Cx<'p> {
    /// The subschema at `pointer` (`schema`), compiled at its first `$ref` or `$defs` entry and
    /// shared from then on. One still being compiled is compiled again: a cycle ends at the
    /// depth limit.
    fn target(&mut self, schema: &Value, pointer: &str, depth: usize) -> Option<Arc<Node>> {
        if let Some((_, done)) = self.targets.iter().find(|(p, _)| p == pointer) {
            return Some(done.clone());
        }
        let node = Arc::new(self.node(schema, pointer.to_owned(), depth, false)?);
        self.targets.push((pointer.to_owned(), node.clone()));
        Some(node)
    }

    fn node(&mut self, schema: &Value, at: String, depth: usize, root: bool) -> Option<Node> {
        if depth > MAX_SCHEMA_DEPTH {
            return None;
        }
        self.budget = self.budget.checked_sub(1)?;
        let map = match schema {
            Value::Bool(true) => return Some(Node::True),
            Value::Bool(false) => return Some(Node::False(at)),
            Value::Object(map) => map,
            _ => return None,
        };
        let mut c = Checks::default();
        // Boxed when the first rare keyword is met (most subschemas have none).
        let mut rare: Option<Box<Rare>> = None;
        macro_rules! r {
            () => {
                rare.get_or_insert_default()
            };
        }
        let sub = |key: &str| format!("{at}/{}", escape(key));
        for (key, value) in map {
            match key.as_str() {
                "type" => c.types = Some(types(value)?),
                "const" => r!().constant = Some(value.clone()),
                "enum" => r!().options = Some(value.as_array()?.clone()),
                "minimum" => r!().minimum = Some(number(value)?),
                "maximum" => r!().maximum = Some(number(value)?),
                "exclusiveMinimum" => r!().exclusive_minimum = Some(number(value)?),
                "exclusiveMaximum" => r!().exclusive_maximum = Some(number(value)?),
                // Whole divisors only: the crate checks fractional ones with exact fractions.
                "multipleOf" => {
                    r!().multiple_of = Some(value.as_u64().filter(|m| (1..=MAX_SAFE).contains(m))?)
                }
                "minLength" => r!().min_length = Some(value.as_u64()?),
                "maxLength" => r!().max_length = Some(value.as_u64()?),
                "pattern" => r!().pattern = Some(Box::new(Pattern::new(value.as_str()?)?)),
                "minItems" => r!().min_items = Some(value.as_u64()?),
                "maxItems" => r!().max_items = Some(value.as_u64()?),
                "minProperties" => r!().min_properties = Some(value.as_u64()?),
                "maxProperties" => r!().max_properties = Some(value.as_u64()?),
                "required" => c.required = names(value)?,
                "uniqueItems" => r!().unique_items = value.as_bool()?,
                "properties" => {
                    let at = sub("properties");
                    for (name, s) in value.as_object()? {
                        let n = self.node(s, format!("{at}/{}", escape(name)), depth + 1, false)?;
                        c.properties.push((name.clone(), n));
                    }
                }
                "additionalProperties" => {
                    c.additional = match self.node(value, sub(key), depth + 1, false)? {
                        Node::True => None,
                        n => Some(n),
                    }
                }
                "items" => r!().items = Some(self.node(value, sub(key), depth + 1, false)?),
                // Draft 7 has no `prefixItems` (it ignores the word); its tuples are an `items`
                // array, which is the validator's.
                "prefixItems" if !self.draft7 => {
                    r!().prefix_items = self.schemas(value, &sub(key), depth)?
                }
                // A `false` one is reported with the whole object: the validator's.
                "propertyNames" if value != &Value::Bool(false) => {
                    r!().property_names = Some(self.node(value, sub(key), depth + 1, false)?)
                }
                "not" => {
                    r!().not = Some((self.node(value, sub(key), depth + 1, false)?, value.clone()))
                }
                "if" => r!().if_ = Some(self.node(value, sub(key), depth + 1, false)?),
                "then" => r!().then = Some(self.node(value, sub(key), depth + 1, false)?),
                "else" => r!().else_ = Some(self.node(value, sub(key), depth + 1, false)?),
                // A pointer into this document, its target compiled once. A violation's schema
                // path is the target's own location (`/$defs/a/type`), as the full validator
                // gives it. A cycle ends at the depth limit, and the full validator takes the
                // schema.
                "$ref" => {
                    let pointer = value.as_str()?.strip_prefix('#')?;
                    // Only plain pointers (a percent-escape or an anchor is the validator's).
                    if !pointer.is_empty() && !pointer.starts_with('/') || pointer.contains('%') {
                        return None;
                    }
                    // Draft 7 ignores a `$ref`'s siblings: such a schema is the validator's.
                    if self.draft7 && map.len() > 1 {
                        return None;
                    }
                    let document: &'p Value = self.document;
                    let target = document.pointer(pointer)?;
                    // A `false` target is reported under the keyword that holds it, which the
                    // walk does not know here: the validator's.
                    if target == &Value::Bool(false) {
                        return None;
                    }
                    r!().reference = Some(self.target(target, pointer, depth + 1)?);
                }
                // Where `$ref`s point: each must be plain itself, and is compiled once for
                // every `$ref` to it.
                "$defs" | "definitions" => {
                    let place = sub(key);
                    for (name, s) in value.as_object()? {
                        self.target(s, &format!("{place}/{}", escape(name)), depth + 1)?;
                    }
                }
                "anyOf" | "oneOf" | "allOf" => {
                    let nodes = self.schemas(value, &sub(key), depth)?;
                    let r = r!();
                    match key.as_str() {
                        "anyOf" => r.any_of = nodes,
                        "oneOf" => r.one_of = nodes,
                        _ => r.all_of = nodes,
                    }
                }
                // Annotations (`format` is one by default in 2020-12, and the full validator
                // treats it as one in draft 7 too, unless told otherwise).
                "title" | "description" | "$comment" | "format" => {
                    value.as_str()?;
                }
                "deprecated" | "readOnly" | "writeOnly" => {
                    value.as_bool()?;
                }
                "examples" => {
                    value.as_array()?;
                }
                "default" => {}
                "$schema" if root => {}
                _ => return None,
            }
        }
        c.at = at;
        c.rare = rare;
        Some(Node::Checks(Box::new(c)))
    }

    /// The subschemas of `anyOf`, `oneOf`, `allOf` or `prefixItems` (at `at`, in a schema at
    /// `depth`), each compiled at `{at}/{i}`. The list must not be empty: an empty one is an
    /// invalid schema, which the validator refuses.
    fn schemas(&mut self, value: &Value, at: &str, depth: usize) -> Option<Vec<Node>> {
        let list = value.as_array().filter(|list| !list.is_empty())?;
        list.iter()
            .enumerate()
            .map(|(i, s)| self.node(s, format!("{at}/{i}"), depth + 1, false))
            .collect()
    }
}

/// `type`: one name, or a non-empty list of distinct names.
fn types(value: &Value) -> Option<(u8, bool)> {
    let bit = |v: &Value| {
        let name = v.as_str()?;
        TYPE_NAMES.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
    };
    match value {
        Value::String(_) => Some((bit(value)?, true)),
        Value::Array(list) if !list.is_empty() => {
            let mut bits = 0;
            for v in list {
                let b = bit(v)?;
                if bits & b != 0 {
                    return None;
                }
                bits |= b;
            }
            Some((bits, list.len() == 1))
        }
        _ => None,
    }
}

/// `required`: distinct strings.
fn names(value: &Value) -> Option<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for v in value.as_array()? {
        let s = v.as_str()?;
        if out.iter().any(|o| o == s) {
            return None;
        }
        out.push(s.to_owned());
    }
    Some(out)
}

fn number(value: &Value) -> Option<Number> {
    match value {
        Value::Number(n) => Some(n.clone()),
        _ => None,
    }
}

/// A property name as a JSON Pointer segment.
fn escape(name: &str) -> String {
    if name.contains(['~', '/']) {
        name.replace('~', "~0").replace('/', "~1")
    } else {
        name.to_owned()
    }
}

impl CompiledSchema for PlainSchema {
    /// A string's text is read by `const`, `enum`, `minLength`, `maxLength`, `pattern` and
    /// `uniqueItems` (and by a violation's message, which the caller deals with); `true` when
    /// a subschema has one of them, or when the schema is too large to tell cheaply.
    fn reads_string_texts(&self) -> bool {
        let mut budget = MAX_NODES;
        reads_texts(&self.root, &mut budget)
    }

    /// The first [`MAX_VIOLATIONS`] violations ([`PlainSchema::violations`]).
    fn validate(&self, instance: &Value) -> Vec<SchemaViolation> {
        self.violations(instance, MAX_VIOLATIONS)
    }

    fn accepts_text(&self, text: &str) -> bool {
        PlainSchema::accepts_text(self, text)
    }

    /// One violation, at the value whose check fails first in the text's order, or at the
    /// container a subschema needs whole whose reading, with a budget of `max_values` for
    /// all such, ran out before its check was made (an [`unread_violation`]: not said to be
    /// refused). None where that reading accepts the text: `accepts_text` reads a part
    /// needed whole into at most 10,000 values, this one into what is left of `max_values`.
    fn text_violations(&self, text: &str, max_values: usize) -> Vec<SchemaViolation> {
        let budget = ValueBudget::new(max_values);
        match text::refused_at(&self.root, text, &budget) {
            Some(at) if budget.ran_out() => vec![unread_violation(at, max_values)],
            Some(at) => vec![values_violation(at, max_values)],
            None => Vec::new(),
        }
    }
}

/// Whether `node` or a subschema of it reads a string's text (see
/// [`PlainSchema::reads_string_texts`]); `true` past `budget` subschemas (a `$ref` target is
/// shared, so a walk may meet it many times).
fn reads_texts(node: &Node, budget: &mut usize) -> bool {
    let Node::Checks(c) = node else {
        return false;
    };
    if *budget == 0 {
        return true;
    }
    *budget -= 1;
    let r = c.rare();
    if r.constant.is_some()
        || r.options.is_some()
        || r.min_length.is_some()
        || r.max_length.is_some()
        || r.pattern.is_some()
        || r.unique_items
    {
        return true;
    }
    let mut any = |n: &Node| reads_texts(n, budget);
    c.properties.iter().any(|(_, n)| any(n))
        || [&c.additional, &r.items, &r.if_, &r.then, &r.else_]
            .into_iter()
            .flatten()
            .any(&mut any)
        || [&r.prefix_items, &r.any_of, &r.one_of, &r.all_of]
            .into_iter()
            .flatten()
            .any(&mut any)
        || r.not.as_ref().is_some_and(|(n, _)| any(n))
        || r.reference.as_deref().is_some_and(any)
}

//! One walk of an instance against a plain schema, in two modes: deciding (the first violation
//! ends it and nothing is built — the common, valid case) and reporting (violations up to a
//! number, worded as the `jsonschema` crate words them). Each keyword is checked in one place,
//! so the two modes cannot disagree.

use super::numbers::{compare, equal, is_integer, is_multiple, unique};
use super::{escape, Checks, Node, TYPE_NAMES};
use super::{ARRAY, BOOLEAN, INTEGER, NULL, NUMBER, OBJECT, STRING};
use crate::protocol::json_text;
use crate::server::SchemaViolation;
use serde_json::{Number, Value};
use std::cmp::Ordering;

/// Where the walk is in the instance; written out as a JSON Pointer only for a violation.
#[derive(Clone, Copy)]
pub(super) enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    fn pointer(&self) -> String {
        match self {
            Path::Root => String::new(),
            Path::Key(parent, key) => format!("{}/{}", parent.pointer(), escape(key)),
            Path::Index(parent, i) => format!("{}/{i}", parent.pointer()),
        }
    }
}

/// The walk's mode: deciding (no list), or reporting into a list until it holds `at_most`.
pub(super) struct Walk<'o> {
    out: Option<&'o mut Vec<SchemaViolation>>,
    at_most: usize,
}

impl<'o> Walk<'o> {
    /// Deciding: the first violation ends the walk, nothing is built.
    pub(super) fn deciding() -> Walk<'o> {
        Walk {
            out: None,
            at_most: 0,
        }
    }

    /// Reporting into `out` until it holds `at_most` violations.
    pub(super) fn reporting(out: &'o mut Vec<SchemaViolation>, at_most: usize) -> Walk<'o> {
        Walk {
            out: Some(out),
            at_most,
        }
    }

    /// Whether the walk ends at the first violation from here: deciding, or reporting with
    /// its list full.
    fn stops(&self) -> bool {
        self.room() == 0
    }

    /// How many more violations the walk records (none when deciding).
    fn room(&self) -> usize {
        self.out
            .as_ref()
            .map_or(0, |out| self.at_most.saturating_sub(out.len()))
    }

    /// Records the violation `v` makes when reporting; `false` when the walk ends here
    /// (deciding, or the list is full).
    fn fail(&mut self, v: impl FnOnce() -> SchemaViolation) -> bool {
        if self.stops() {
            return false;
        }
        if let Some(out) = &mut self.out {
            out.push(v());
        }
        !self.stops()
    }
}

/// Whether `instance` (at `path`) is valid against `node`; when reporting, violations are
/// recorded until the list is full (the walk then ends, its answer `false`). `holder` is the
/// keyword that holds `node` (what a `false` schema is reported as).
pub(super) fn walk(node: &Node, instance: &Value, path: &Path, holder: &str, w: &mut Walk) -> bool {
    let c = match node {
        Node::True => return true,
        Node::False(at) => {
            w.fail(|| {
                SchemaViolation::new(
                    path.pointer(),
                    holder.to_owned(),
                    at.clone(),
                    format!(
                        "False schema does not allow {instance}",
                        instance = json_text::to_string(instance)
                    ),
                )
            });
            return false;
        }
        Node::Checks(c) => c,
    };
    let r = c.rare();
    let mut valid = true;
    // A violation of this schema's `$keyword`, worded `$message` (built only when reporting);
    // when deciding, the walk ends here.
    macro_rules! fail {
        ($keyword:expr, $message:expr) => {{
            valid = false;
            if !w.fail(|| violation(path, c, $keyword, $message)) {
                return false;
            }
        }};
    }
    // A subschema's verdict: when deciding, an invalid one ends the walk.
    macro_rules! descend {
        ($ok:expr) => {{
            if !$ok {
                valid = false;
                if w.stops() {
                    return false;
                }
            }
        }};
    }
    if let Some((bits, single)) = c.types {
        if !type_matches(bits, instance) {
            fail!("type", type_message(instance, bits, single));
        }
    }
    if let Some(k) = r.constant.as_ref().filter(|k| !equal(k, instance)) {
        fail!(
            "const",
            format!("{k} was expected", k = json_text::to_string(k))
        );
    }
    if let Some(options) = &r.options {
        if !options.iter().any(|o| equal(o, instance)) {
            fail!("enum", enum_message(instance, options));
        }
    }
    if let Value::Number(n) = instance {
        if let Some(l) = past(n, &r.minimum, &[Ordering::Less]) {
            fail!(
                "minimum",
                format!(
                    "{instance} is less than the minimum of {l}",
                    instance = json_text::to_string(instance)
                )
            );
        }
        if let Some(l) = past(n, &r.maximum, &[Ordering::Greater]) {
            fail!(
                "maximum",
                format!(
                    "{instance} is greater than the maximum of {l}",
                    instance = json_text::to_string(instance)
                )
            );
        }
        if let Some(l) = past(n, &r.exclusive_minimum, &[Ordering::Less, Ordering::Equal]) {
            fail!(
                "exclusiveMinimum",
                format!(
                    "{instance} is less than or equal to the minimum of {l}",
                    instance = json_text::to_string(instance)
                )
            );
        }
        if let Some(l) = past(
            n,
            &r.exclusive_maximum,
            &[Ordering::Greater, Ordering::Equal],
        ) {
            fail!(
                "exclusiveMaximum",
                format!(
                    "{instance} is greater than or equal to the maximum of {l}",
                    instance = json_text::to_string(instance)
                )
            );
        }
        if let Some(m) = r.multiple_of.filter(|m| !is_multiple(n, *m)) {
            fail!(
                "multipleOf",
                // `m` ≤ 2^53 is whole, so it prints as the validator prints it as a float.
                format!(
                    "{instance} is not a multiple of {m}",
                    instance = json_text::to_string(instance)
                )
            );
        }
    }
    // The counts: a string's characters, an array's items, an object's properties.
    let counted = match instance {
        Value::String(s) => Some((s.chars().count(), 0, [r.min_length, r.max_length])),
        Value::Array(items) => Some((items.len(), 1, [r.min_items, r.max_items])),
        Value::Object(map) => Some((map.len(), 2, [r.min_properties, r.max_properties])),
        _ => None,
    };
    if let Some((len, kind, limits)) = counted {
        for (bound, limit) in limits.into_iter().enumerate() {
            let (keyword, phrase, one, many) = COUNTS[kind][bound];
            let beyond = |m: &u64| {
                if bound == 0 {
                    (len as u64) < *m
                } else {
                    len as u64 > *m
                }
            };
            if let Some(m) = limit.filter(beyond) {
                fail!(
                    keyword,
                    format!(
                        "{instance} {phrase} {m} {}",
                        if m == 1 { one } else { many },
                        instance = json_text::to_string(instance)
                    )
                );
            }
        }
    }
    if let (Value::String(s), Some(p)) = (instance, &r.pattern) {
        if !p.is_match(s) {
            fail!(
                "pattern",
                format!(
                    "{instance} does not match \"{}\"",
                    p.source,
                    instance = json_text::to_string(instance)
                )
            );
        }
    }
    if let Value::Object(map) = instance {
        for r in c.required.iter().filter(|r| !map.contains_key(*r)) {
            fail!(
                "required",
                format!(
                    "{} is a required property",
                    json_text::to_string(&Value::String(r.clone()))
                )
            );
        }
    }
    if let Value::Array(items) = instance {
        if r.unique_items && !unique(items) {
            fail!(
                "uniqueItems",
                format!(
                    "{instance} has non-unique elements",
                    instance = json_text::to_string(instance)
                )
            );
        }
    }
    if let Value::Object(map) = instance {
        let mut unexpected = Vec::new();
        for (k, v) in map {
            let child = Path::Key(path, k);
            let held = c.properties.iter().find(|(name, _)| name == k);
            descend!(match (held, &c.additional) {
                (Some((_, n)), _) => walk(n, v, &child, "properties", w),
                (None, Some(Node::False(_))) => {
                    unexpected.push(k.as_str());
                    true
                }
                (None, Some(n)) => walk(n, v, &child, "additionalProperties", w),
                (None, None) => true,
            });
        }
        if !unexpected.is_empty() {
            fail!("additionalProperties", {
                // Without `properties` every member is unexpected, and the crate reports the
                // first one's value as refused by the `false` schema, at the object.
                match map.values().next().filter(|_| c.properties.is_empty()) {
                    Some(first) => format!(
                        "False schema does not allow {first}",
                        first = json_text::to_string(first)
                    ),
                    None => format!(
                        "Additional properties are not allowed ({} {} unexpected)",
                        unexpected
                            .iter()
                            .map(|k| format!("'{k}'"))
                            .collect::<Vec<_>>()
                            .join(", "),
                        if unexpected.len() == 1 { "was" } else { "were" }
                    ),
                }
            });
        }
    }
    // `propertyNames`: each name checked as a string; its violations are reported at the
    // object, under this keyword, with the name schema's own path and message.
    if let (Value::Object(map), Some(n)) = (instance, &r.property_names) {
        for name in map.keys() {
            let name = Value::String(name.clone());
            let mut found = Vec::new();
            let mut inner = match w.room() {
                0 => Walk::deciding(),
                room => Walk::reporting(&mut found, room),
            };
            if !walk(n, &name, path, "propertyNames", &mut inner) {
                valid = false;
                if w.stops() {
                    return false;
                }
                for v in found {
                    w.fail(|| {
                        SchemaViolation::new(
                            path.pointer(),
                            "propertyNames".to_owned(),
                            v.schema_path,
                            v.message,
                        )
                    });
                }
            }
        }
    }
    if let (Value::Array(items), Some(n)) = (instance, &r.items) {
        // Past `prefixItems`, when there is one.
        for (i, item) in items.iter().enumerate().skip(r.prefix_items.len()) {
            descend!(walk(n, item, &Path::Index(path, i), "items", w));
        }
    }
    if let Value::Array(items) = instance {
        for (i, (n, item)) in r.prefix_items.iter().zip(items).enumerate() {
            descend!(walk(n, item, &Path::Index(path, i), "prefixItems", w));
        }
    }
    // `allOf`: each branch's own violations, as if its keywords were this schema's.
    for n in &r.all_of {
        descend!(walk(n, instance, path, "allOf", w));
    }
    let holds = |holder: &str, b: &Node| walk(b, instance, path, holder, &mut Walk::deciding());
    if !r.any_of.is_empty() && !r.any_of.iter().any(|b| holds("anyOf", b)) {
        fail!(
            "anyOf",
            format!(
                "{instance} is not valid under any of the schemas listed in the 'anyOf' keyword",
                instance = json_text::to_string(instance)
            )
        );
    }
    if !r.one_of.is_empty() {
        // Stops at the second valid branch.
        let valid = r
            .one_of
            .iter()
            .filter(|b| holds("oneOf", b))
            .take(2)
            .count();
        if valid == 0 {
            fail!(
                "oneOf",
                format!(
                    "{instance} is not valid under any of the schemas listed in the 'oneOf' keyword",
                    instance = json_text::to_string(instance)
                )
            );
        } else if valid > 1 {
            fail!(
                "oneOf",
                format!(
                    "{instance} is valid under more than one of the schemas listed in the 'oneOf' keyword",
                    instance = json_text::to_string(instance)
                )
            );
        }
    }
    if let Some((n, written)) = &r.not {
        if holds("not", n) {
            fail!(
                "not",
                format!(
                    "{written} is not allowed for {instance}",
                    written = json_text::to_string(written),
                    instance = json_text::to_string(instance)
                )
            );
        }
    }
    // `then` or `else` by `if`'s verdict, their own violations as `allOf`'s branches.
    if let Some(condition) = &r.if_ {
        let (branch, holder) = if holds("if", condition) {
            (&r.then, "then")
        } else {
            (&r.else_, "else")
        };
        if let Some(n) = branch {
            descend!(walk(n, instance, path, holder, w));
        }
    }
    if let Some(n) = &r.reference {
        descend!(walk(n, instance, path, "$ref", w));
    }
    valid
}

/// A violation of keyword `keyword` of `c`, for the instance at `path`.
fn violation(path: &Path, c: &Checks, keyword: &str, message: String) -> SchemaViolation {
    SchemaViolation::new(
        path.pointer(),
        keyword.to_owned(),
        format!("{}/{keyword}", c.at),
        message,
    )
}

fn type_matches(bits: u8, instance: &Value) -> bool {
    let of = match instance {
        Value::Null => NULL,
        Value::Bool(_) => BOOLEAN,
        Value::String(_) => STRING,
        Value::Array(_) => ARRAY,
        Value::Object(_) => OBJECT,
        Value::Number(n) if is_integer(n) => INTEGER | NUMBER,
        Value::Number(_) => NUMBER,
    };
    bits & of != 0
}

/// `x is not of type "t"`, or `x is not of types "a", "b"` (in the crate's order of types).
fn type_message(instance: &Value, bits: u8, single: bool) -> String {
    let listed: Vec<String> = TYPE_NAMES
        .iter()
        .filter(|(_, b)| bits & b != 0)
        .map(|(n, _)| format!("\"{n}\""))
        .collect();
    if single {
        format!(
            "{instance} is not of type {}",
            listed[0],
            instance = json_text::to_string(instance)
        )
    } else {
        format!(
            "{instance} is not of types {}",
            listed.join(", "),
            instance = json_text::to_string(instance)
        )
    }
}

/// The count keywords, minimum then maximum, of strings, arrays and objects: the keyword, the
/// message's phrase, the unit in the singular and the plural.
#[rustfmt::skip]
const COUNTS: [[(&str, &str, &str, &str); 2]; 3] = [
    [("minLength", "is shorter than", "character", "characters"), ("maxLength", "is longer than", "character", "characters")],
    [("minItems", "has less than", "item", "items"), ("maxItems", "has more than", "item", "items")],
    [("minProperties", "has less than", "property", "properties"), ("maxProperties", "has more than", "property", "properties")],
];

/// `limit`, when `n` compares to it as one of `bad`.
fn past<'a>(n: &Number, limit: &'a Option<Number>, bad: &[Ordering]) -> Option<&'a Number> {
    limit.as_ref().filter(|l| bad.contains(&compare(n, l)))
}

/// `x is not one of a, b or c` (at most three listed; then "or N other candidates").
fn enum_message(instance: &Value, options: &[Value]) -> String {
    let mut m = json_text::to_string(instance);
    m.push_str(" is not one of ");
    if options.len() <= 3 {
        for (i, o) in options.iter().enumerate() {
            if i > 0 {
                m.push_str(if i == options.len() - 1 { " or " } else { ", " });
            }
            json_text::write_value(&mut m, o);
        }
    } else {
        for (i, o) in options.iter().take(2).enumerate() {
            if i > 0 {
                m.push_str(", ");
            }
            json_text::write_value(&mut m, o);
        }
        m.push_str(&format!(" or {} other candidates", options.len() - 2));
    }
    m
}

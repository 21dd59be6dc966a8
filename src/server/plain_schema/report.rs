//! The violations of an invalid instance, worded as the `jsonschema` crate words them.

use super::check::{any_of_valid, property, type_matches};
use super::numbers::{compare, equal, is_multiple, unique};
use super::{escape, Node, TYPE_NAMES};
use crate::server::SchemaViolation;
use serde_json::{Number, Value};
use std::cmp::Ordering;

/// Appends the violations of `instance` (at `path`) against `node`; `holder` is the keyword
/// that holds `node` (what a `false` schema is reported as).
pub(super) fn errors(
    node: &Node,
    instance: &Value,
    path: &str,
    holder: &str,
    out: &mut Vec<SchemaViolation>,
) {
    let c = match node {
        Node::True => return,
        Node::False(at) => {
            out.push(SchemaViolation {
                instance_path: path.to_owned(),
                keyword: holder.to_owned(),
                schema_path: at.clone(),
                message: format!("False schema does not allow {instance}"),
            });
            return;
        }
        Node::Checks(c) => c,
    };
    let mut say = |keyword: &str, message: String| {
        out.push(SchemaViolation {
            instance_path: path.to_owned(),
            keyword: keyword.to_owned(),
            schema_path: format!("{}/{keyword}", c.at),
            message,
        })
    };
    if let Some((bits, single)) = c.types {
        if !type_matches(bits, instance) {
            let listed: Vec<String> = TYPE_NAMES
                .iter()
                .filter(|(_, b)| bits & b != 0)
                .map(|(n, _)| format!("\"{n}\""))
                .collect();
            say(
                "type",
                if single {
                    format!("{instance} is not of type {}", listed[0])
                } else {
                    format!("{instance} is not of types {}", listed.join(", "))
                },
            );
        }
    }
    if let Some(k) = c.constant.as_ref().filter(|k| !equal(k, instance)) {
        say("const", format!("{k} was expected"));
    }
    if let Some(Value::Array(options)) = &c.options {
        if !options.iter().any(|o| equal(o, instance)) {
            say("enum", enum_message(instance, options));
        }
    }
    if let Value::Number(n) = instance {
        let bound = |limit, bad| past(n, limit, bad);
        if let Some(l) = bound(&c.minimum, &[Ordering::Less]) {
            say(
                "minimum",
                format!("{instance} is less than the minimum of {l}"),
            );
        }
        if let Some(l) = bound(&c.maximum, &[Ordering::Greater]) {
            say(
                "maximum",
                format!("{instance} is greater than the maximum of {l}"),
            );
        }
        if let Some(l) = bound(&c.exclusive_minimum, &[Ordering::Less, Ordering::Equal]) {
            say(
                "exclusiveMinimum",
                format!("{instance} is less than or equal to the minimum of {l}"),
            );
        }
        if let Some(l) = bound(&c.exclusive_maximum, &[Ordering::Greater, Ordering::Equal]) {
            say(
                "exclusiveMaximum",
                format!("{instance} is greater than or equal to the maximum of {l}"),
            );
        }
        if let Some(m) = c.multiple_of.filter(|m| !is_multiple(n, *m)) {
            say(
                "multipleOf",
                format!("{instance} is not a multiple of {}", m as f64),
            );
        }
    }
    // The counts: a string's characters, an array's items, an object's properties.
    let counted = match instance {
        Value::String(s) => Some((s.chars().count(), 0, [c.min_length, c.max_length])),
        Value::Array(items) => Some((items.len(), 1, [c.min_items, c.max_items])),
        Value::Object(map) => Some((map.len(), 2, [c.min_properties, c.max_properties])),
        _ => None,
    };
    if let Some((len, kind, limits)) = counted {
        for (bound, limit) in limits.into_iter().enumerate() {
            let (keyword, phrase, one, many) = COUNTS[kind][bound];
            let past = |m: &u64| {
                if bound == 0 {
                    (len as u64) < *m
                } else {
                    len as u64 > *m
                }
            };
            if let Some(m) = limit.filter(past) {
                say(
                    keyword,
                    format!(
                        "{instance} {phrase} {m} {}",
                        if m == 1 { one } else { many }
                    ),
                );
            }
        }
    }
    if let Value::Object(map) = instance {
        for r in c.required.iter().filter(|r| !map.contains_key(*r)) {
            say(
                "required",
                format!("{} is a required property", Value::String(r.clone())),
            );
        }
    }
    if let Value::Array(items) = instance {
        if c.unique_items && !unique(items) {
            say("uniqueItems", format!("{instance} has non-unique elements"));
        }
    }
    if let Value::Object(map) = instance {
        let mut unexpected = Vec::new();
        for (k, v) in map {
            let child = format!("{path}/{}", escape(k));
            match property(c, k) {
                Some(n) => errors(n, v, &child, "properties", out),
                None => match &c.additional {
                    Some(Node::False(_)) => unexpected.push(k.as_str()),
                    Some(n) => errors(n, v, &child, "additionalProperties", out),
                    None => {}
                },
            }
        }
        let first = map.values().next().filter(|_| c.properties.is_empty());
        if let (Some(first), Some(Node::False(_))) = (first, &c.additional) {
            // Without `properties`, the crate reports the first member's value as refused by
            // the `false` schema, at the object.
            out.push(SchemaViolation {
                instance_path: path.to_owned(),
                keyword: "additionalProperties".to_owned(),
                schema_path: format!("{}/additionalProperties", c.at),
                message: format!("False schema does not allow {first}"),
            });
        } else if !unexpected.is_empty() {
            let listed: Vec<String> = unexpected.iter().map(|k| format!("'{k}'")).collect();
            out.push(SchemaViolation {
                instance_path: path.to_owned(),
                keyword: "additionalProperties".to_owned(),
                schema_path: format!("{}/additionalProperties", c.at),
                message: format!(
                    "Additional properties are not allowed ({} {} unexpected)",
                    listed.join(", "),
                    if unexpected.len() == 1 { "was" } else { "were" }
                ),
            });
        }
    }
    if let (Value::Array(items), Some(n)) = (instance, &c.items) {
        for (i, item) in items.iter().enumerate() {
            errors(n, item, &format!("{path}/{i}"), "items", out);
        }
    }
    if !any_of_valid(c, instance) {
        out.push(SchemaViolation {
            instance_path: path.to_owned(),
            keyword: "anyOf".to_owned(),
            schema_path: format!("{}/anyOf", c.at),
            message: format!(
                "{instance} is not valid under any of the schemas listed in the 'anyOf' keyword"
            ),
        });
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
    let mut m = format!("{instance} is not one of ");
    if options.len() <= 3 {
        for (i, o) in options.iter().enumerate() {
            if i == 0 {
                m.push_str(&o.to_string());
            } else if i == options.len() - 1 {
                m.push_str(&format!(" or {o}"));
            } else {
                m.push_str(&format!(", {o}"));
            }
        }
    } else {
        for (i, o) in options.iter().take(2).enumerate() {
            if i > 0 {
                m.push_str(", ");
            }
            m.push_str(&o.to_string());
        }
        m.push_str(&format!(" or {} other candidates", options.len() - 2));
    }
    m
}

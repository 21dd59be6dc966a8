//! Deciding whether an instance is valid, building nothing (the common case).

use super::numbers::{compare, equal, is_integer, is_multiple, unique};
use super::{Checks, Node, ARRAY, BOOLEAN, INTEGER, NULL, NUMBER, OBJECT, STRING};
use serde_json::{Number, Value};
use std::cmp::Ordering;

/// Whether `instance` is valid (no violation is built on this path).
pub(super) fn valid(node: &Node, instance: &Value) -> bool {
    let c = match node {
        Node::True => return true,
        Node::False(_) => return false,
        Node::Checks(c) => c,
    };
    if let Some((bits, _)) = c.types {
        if !type_matches(bits, instance) {
            return false;
        }
    }
    kind_valid(c, instance) && any_of_valid(c, instance)
}

/// The checks that apply to `instance`'s type.
fn kind_valid(c: &Checks, instance: &Value) -> bool {
    if c.constant.as_ref().is_some_and(|k| !equal(k, instance)) {
        return false;
    }
    if let Some(Value::Array(options)) = &c.options {
        if !options.iter().any(|o| equal(o, instance)) {
            return false;
        }
    }
    match instance {
        Value::Number(n) => numeric_valid(c, n),
        Value::String(s) => {
            let len = s.chars().count() as u64;
            c.min_length.is_none_or(|m| len >= m) && c.max_length.is_none_or(|m| len <= m)
        }
        Value::Array(items) => {
            let len = items.len() as u64;
            c.min_items.is_none_or(|m| len >= m)
                && c.max_items.is_none_or(|m| len <= m)
                && (!c.unique_items || unique(items))
                && c.items
                    .as_ref()
                    .is_none_or(|n| items.iter().all(|i| valid(n, i)))
        }
        Value::Object(map) => {
            let len = map.len() as u64;
            c.min_properties.is_none_or(|m| len >= m)
                && c.max_properties.is_none_or(|m| len <= m)
                && c.required.iter().all(|r| map.contains_key(r))
                && map.iter().all(|(k, v)| match property(c, k) {
                    Some(n) => valid(n, v),
                    None => c.additional.as_ref().is_none_or(|n| valid(n, v)),
                })
        }
        _ => true,
    }
}

pub(super) fn any_of_valid(c: &Checks, instance: &Value) -> bool {
    c.any_of.is_empty() || c.any_of.iter().any(|n| valid(n, instance))
}

fn numeric_valid(c: &Checks, n: &Number) -> bool {
    let below = |limit: &Option<Number>, ord: &[Ordering]| {
        limit.as_ref().is_some_and(|l| ord.contains(&compare(n, l)))
    };
    !below(&c.minimum, &[Ordering::Less])
        && !below(&c.maximum, &[Ordering::Greater])
        && !below(&c.exclusive_minimum, &[Ordering::Less, Ordering::Equal])
        && !below(&c.exclusive_maximum, &[Ordering::Greater, Ordering::Equal])
        && c.multiple_of.is_none_or(|m| is_multiple(n, m))
}

pub(super) fn property<'a>(c: &'a Checks, name: &str) -> Option<&'a Node> {
    c.properties.iter().find(|(k, _)| k == name).map(|(_, n)| n)
}

pub(super) fn type_matches(bits: u8, instance: &Value) -> bool {
    let of = match instance {
        Value::Null => NULL,
        Value::Bool(_) => BOOLEAN,
        Value::String(_) => STRING,
        Value::Array(_) => ARRAY,
        Value::Object(_) => OBJECT,
        Value::Number(n) => {
            if is_integer(n) {
                INTEGER | NUMBER
            } else {
                NUMBER
            }
        }
    };
    bits & of != 0
}

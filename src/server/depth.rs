//! Nesting depth of a JSON value, measured without recursion.
//!
//! The `jsonschema` crate compiles and validates recursively, so a value nested deeply
//! enough would exhaust the stack — an abort, not a recoverable panic, and in wasm a trap
//! that takes the whole module down. The compiler (`crate::schema`) measures depth first and
//! refuses values deeper than its limit; plain schemas (`super::plain_schema`) give the same
//! answer.

use serde_json::Value;

/// Whether `value` nests arrays and objects more than `limit` levels deep.
///
/// A scalar has depth 0; `[]` and `{}` have depth 1; `[[1]]` has depth 2. The walk keeps
/// its own stack on the heap and stops as soon as the limit is passed.
pub(crate) fn exceeds(value: &Value, limit: usize) -> bool {
    let mut pending: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((current, depth)) = pending.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match current {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(members) => Box::new(members.values()),
            _ => continue,
        };
        let depth = depth + 1;
        if depth > limit {
            return true;
        }
        pending.extend(children.map(|child| (child, depth)));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::exceeds;
    use serde_json::json;

    #[test]
    fn counts_containers_not_scalars() {
        assert!(!exceeds(&json!(1), 0));
        assert!(exceeds(&json!([]), 0));
        assert!(!exceeds(&json!([]), 1));
        assert!(!exceeds(&json!({"a": [1, {"b": 2}]}), 3));
        assert!(exceeds(&json!({"a": [1, {"b": {}}]}), 3));
    }
}

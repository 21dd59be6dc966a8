//! Cursor pagination over lists sorted by a unique key.
//!
//! A cursor names the last key of the previous page (hex-encoded, so it is opaque to
//! clients), which keeps pages stable while items are added or removed between calls.

use crate::server::limits::quote;
use serde_json::{Map, Value};

use super::error::ServerError;

fn encode(key: &str) -> String {
    key.bytes().map(|b| format!("{b:02x}")).collect()
}

fn decode(cursor: &str) -> Option<String> {
    if cursor.is_empty() || cursor.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..cursor.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(cursor.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

/// Reads the `cursor` param: absent → first page; not a string or not one of ours → -32602.
pub fn read_cursor(params: &Map<String, Value>) -> Result<Option<String>, ServerError> {
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(c)) => decode(c)
            .map(Some)
            .ok_or_else(|| ServerError::invalid_params(format!("Invalid cursor: {c:?}"))),
        Some(other) => Err(ServerError::invalid_params(format!(
            "\"cursor\" must be a string, got {other}",
            other = quote(other)
        ))),
    }
}

/// One page of `items` (sorted by key) after `after`, and the next cursor if more remain.
pub fn page<T>(
    items: impl Iterator<Item = (String, T)>,
    after: Option<&str>,
    size: usize,
) -> (Vec<T>, Option<String>) {
    let size = size.max(1);
    let mut out = Vec::new();
    let mut last_key = None;
    let mut more = false;
    for (key, item) in items {
        if after.is_some_and(|a| key.as_str() <= a) {
            continue;
        }
        if out.len() == size {
            more = true;
            break;
        }
        last_key = Some(key);
        out.push(item);
    }
    let next = if more {
        last_key.map(|k| encode(&k))
    } else {
        None
    };
    (out, next)
}

/// One page of a list already sorted by its unique keys, starting after `after`: the
/// items, cloned, and the next cursor if more remain. Finds the start by binary search, so
/// serving a page costs the page, not the list.
pub fn page_sorted<T: Clone>(
    items: &[(String, T)],
    after: Option<&str>,
    size: usize,
) -> (Vec<T>, Option<String>) {
    let size = size.max(1);
    let start = after.map_or(0, |a| items.partition_point(|(k, _)| k.as_str() <= a));
    let end = items.len().min(start.saturating_add(size));
    let page = items[start..end].iter().map(|(_, t)| t.clone()).collect();
    let next = (end < items.len() && end > start).then(|| encode(&items[end - 1].0));
    (page, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_and_cursors() {
        let keys = || {
            ["a", "b", "c", "d", "e"]
                .into_iter()
                .map(|k| (k.to_string(), k))
        };
        let (p1, c1) = page(keys(), None, 2);
        assert_eq!(p1, vec!["a", "b"]);
        let after = decode(c1.as_ref().unwrap()).unwrap();
        let (p2, _) = page(keys(), Some(&after), 2);
        assert_eq!(p2, vec!["c", "d"]);
        let (p3, c3) = page(keys(), Some("d"), 2);
        assert_eq!((p3, c3), (vec!["e"], None));
        // The sorted-slice form gives the same pages and cursors.
        let sorted: Vec<(String, &str)> = keys().collect();
        assert_eq!(page_sorted(&sorted, None, 2), (vec!["a", "b"], c1.clone()));
        assert_eq!(page_sorted(&sorted, Some(&after), 2).0, vec!["c", "d"]);
        assert_eq!(page_sorted(&sorted, Some("d"), 2), (vec!["e"], None));
        // A cursor naming a key that was removed since still finds its place.
        assert_eq!(page_sorted(&sorted, Some("bb"), 2).0, vec!["c", "d"]);
        assert_eq!(page_sorted(&sorted, Some("z"), 2), (vec![], None));
        let params = |v: Value| v.as_object().cloned().unwrap();
        assert!(read_cursor(&params(serde_json::json!({"cursor":"zz"}))).is_err());
        assert!(read_cursor(&params(serde_json::json!({"cursor":5}))).is_err());
    }
}

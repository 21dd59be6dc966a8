//! JSON numbers and values compared as the `jsonschema` crate compares them.

use serde_json::{Number, Value};
use std::cmp::Ordering;

/// 2^53: whole divisors up to it are exact as `f64`, as the crate requires.
pub(super) const MAX_SAFE: u64 = 1 << 53;

/// An integer, or a float with no fraction (`1.0` is an integer in 2020-12).
pub(super) fn is_integer(n: &Number) -> bool {
    n.is_u64() || n.is_i64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// Exact comparison of two JSON numbers, integers and floats mixed.
pub(super) fn compare(a: &Number, b: &Number) -> Ordering {
    match (int(a), int(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(x), None) => compare_int_float(x, b.as_f64().unwrap_or(f64::NAN)),
        (None, Some(y)) => compare_int_float(y, a.as_f64().unwrap_or(f64::NAN)).reverse(),
        (None, None) => {
            let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
            x.partial_cmp(&y).unwrap_or(Ordering::Equal)
        }
    }
}

fn int(n: &Number) -> Option<i128> {
    n.as_u64()
        .map(i128::from)
        .or_else(|| n.as_i64().map(i128::from))
}

fn compare_int_float(i: i128, f: f64) -> Ordering {
    // Every u64/i64 lies strictly inside ±2^127.
    if f >= 1.7e38 {
        return Ordering::Less;
    }
    if f <= -1.7e38 {
        return Ordering::Greater;
    }
    let floor = f.floor();
    match i.cmp(&(floor as i128)) {
        Ordering::Equal if f > floor => Ordering::Less,
        o => o,
    }
}

/// `multipleOf` with a whole divisor, as the crate decides it: integers exactly; floats with a
/// fraction never; whole floats by their shortest decimal text when it has no exponent and
/// the float is past 2^53, else by the float remainder.
pub(super) fn is_multiple(n: &Number, m: u64) -> bool {
    if let Some(v) = n.as_u64() {
        return v % m == 0;
    }
    if let Some(v) = n.as_i64() {
        return v % (m as i64) == 0;
    }
    let Some(f) = n.as_f64() else {
        return true;
    };
    if f.abs() >= MAX_SAFE as f64 {
        let text = n.to_string();
        if let Some(answer) = decimal_is_multiple(&text, m) {
            return answer;
        }
    }
    f.fract() == 0.0 && f % (m as f64) == 0.0
}

fn decimal_is_multiple(text: &str, m: u64) -> Option<bool> {
    if text.contains(['e', 'E']) {
        return None;
    }
    let text = text.strip_prefix('-').unwrap_or(text);
    let (digits, fraction) = match text.split_once('.') {
        Some((d, f)) => (d, Some(f)),
        None => (text, None),
    };
    if fraction.is_some_and(|f| !f.bytes().all(|b| b == b'0')) {
        return Some(false);
    }
    let mut remainder = 0_u64;
    for b in digits.bytes() {
        remainder = (remainder * 10 + u64::from(b - b'0')) % m;
    }
    Some(remainder == 0)
}

/// JSON equality: numbers by value (`1 == 1.0`), objects whatever their key order.
pub(super) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Ordering::Equal,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

pub(super) fn unique(items: &[Value]) -> bool {
    items
        .iter()
        .enumerate()
        .all(|(i, a)| items[i + 1..].iter().all(|b| !equal(a, b)))
}

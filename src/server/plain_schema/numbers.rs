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

/// `uniqueItems`: no two of `items` [`equal`]. A few are compared pairwise; more are sorted by
/// [`order`] (whose `Equal` is [`equal`]) and compared with their neighbours, so an agent's
/// array of 40,000 numbers costs milliseconds, not the 4 s (native) its pairs took.
pub(crate) fn unique(items: &[Value]) -> bool {
    if items.len() <= PAIRWISE {
        return unique_pairwise(items);
    }
    let mut sorted: Vec<&Value> = items.iter().collect();
    sorted.sort_unstable_by(|a, b| order(a, b));
    sorted
        .windows(2)
        .all(|w| order(w[0], w[1]) != Ordering::Equal)
}

/// How many items [`unique`] compares pairwise rather than sorts.
const PAIRWISE: usize = 16;

/// [`unique`] by comparing every pair.
fn unique_pairwise(items: &[Value]) -> bool {
    items
        .iter()
        .enumerate()
        .all(|(i, a)| items[i + 1..].iter().all(|b| !equal(a, b)))
}

/// A total order of JSON values whose `Equal` is [`equal`]: by type (null, booleans, numbers,
/// strings, arrays, objects), then numbers by [`compare`], strings by their characters, arrays
/// item by item, objects member by member in their names' order (so the order they were
/// written in does not count).
fn order(a: &Value, b: &Value) -> Ordering {
    fn rank(v: &Value) -> u8 {
        match v {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Number(_) => 2,
            Value::String(_) => 3,
            Value::Array(_) => 4,
            Value::Object(_) => 5,
        }
    }
    fn names(m: &serde_json::Map<String, Value>) -> Vec<&String> {
        let mut names: Vec<&String> = m.keys().collect();
        names.sort_unstable();
        names
    }
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Number(x), Value::Number(y)) => compare(x, y),
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Array(x), Value::Array(y)) => x
            .iter()
            .zip(y)
            .map(|(p, q)| order(p, q))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| x.len().cmp(&y.len())),
        (Value::Object(x), Value::Object(y)) => {
            let (p, q) = (names(x), names(y));
            p.iter()
                .zip(&q)
                .map(|(k, l)| k.cmp(l).then_with(|| order(&x[k.as_str()], &y[l.as_str()])))
                .find(|o| o.is_ne())
                .unwrap_or_else(|| p.len().cmp(&q.len()))
        }
        _ => rank(a).cmp(&rank(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `order`'s `Equal` is `equal`, over values of every kind made to be alike (numbers equal
    /// as integers and floats, objects with their members in another order, nested); and
    /// `unique` sorted answers as `unique` pairwise.
    #[test]
    fn the_order_is_equal_where_the_values_are() {
        let values = [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(0.0),
            json!(-0.0),
            json!(1),
            json!(1.0),
            json!(1.5),
            json!(-1),
            json!(9007199254740992u64),
            json!(9007199254740992.0),
            json!(9007199254740993u64),
            json!(u64::MAX),
            json!(1.8446744073709552e19),
            json!(i64::MIN),
            json!(""),
            json!("a"),
            json!("b"),
            json!([]),
            json!([1]),
            json!([1.0]),
            json!([1, 2]),
            json!([2, 1]),
            json!({}),
            json!({"a": 1}),
            json!({"a": 1.0}),
            json!({"b": 1}),
            json!({"a": 1, "b": [1, {}]}),
            json!({"b": [1.0, {}], "a": 1.0}),
            json!({"a": 2}),
            json!([{"a": 1, "b": 2}]),
            json!([{"b": 2, "a": 1}]),
        ];
        for a in &values {
            for b in &values {
                assert_eq!(order(a, b) == Ordering::Equal, equal(a, b), "{a} {b}");
                assert_eq!(order(a, b), order(b, a).reverse(), "{a} {b}");
                for c in &values {
                    if order(a, b).is_le() && order(b, c).is_le() {
                        assert!(order(a, c).is_le(), "{a} {b} {c}");
                    }
                }
            }
        }
        let mut rng = crate::test_rng::Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..2_000 {
            let n = rng.below(40);
            let items: Vec<Value> = (0..n)
                .map(|_| values[rng.below(values.len())].clone())
                .collect();
            assert_eq!(unique(&items), unique_pairwise(&items), "{items:?}");
        }
        let many: Vec<Value> = (0..100_000u64).map(Value::from).collect();
        assert!(unique(&many));
        let mut again = many.clone();
        again.push(json!(99_999.0));
        assert!(!unique(&again));
    }
}

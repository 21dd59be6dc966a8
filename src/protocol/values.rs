//! Reading JSON text into [`Value`]s, at most so many of them.
//!
//! A tree of values costs far more memory than its text: a `Value` is 48 bytes in wasm32, an
//! array's slots double as it fills, and `[]` is two bytes of text. Reading an agent's 4 MiB of
//! `[[],[],…]` made 1.3 million values and grew the core's memory by some 200 MB, which wasm
//! memory keeps for the page's life. A [`ValueBudget`] bounds what one message's reading may
//! make: every value read through [`Counted`] (a container and each thing inside it) takes one
//! from the budget, and the reading stops with an error at the first value past it, having
//! made no more than the budget's worth. The caller tells that error from a syntax error with
//! [`ValueBudget::ran_out`].
//!
//! ```
//! use modelcontext_polyfill::protocol::values::{from_str, ValueBudget};
//! let budget = ValueBudget::new(4);
//! // An object, an array and its two numbers: four values.
//! assert_eq!(from_str(r#"{"a":[1,2]}"#, &budget).unwrap(), serde_json::json!({"a": [1, 2]}));
//! assert!(!budget.ran_out());
//! // A fifth is one too many: an error, told from a syntax error by the budget.
//! budget.reset();
//! assert!(from_str(r#"{"a":[1,2,3]}"#, &budget).is_err());
//! assert!(budget.ran_out());
//! budget.reset();
//! assert!(from_str(r#"{"a":"#, &budget).is_err());
//! assert!(!budget.ran_out());
//! ```

use std::cell::Cell;
use std::fmt;

use super::scan;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// How many values one reading may still make, shared by everything read with it.
#[derive(Debug)]
pub struct ValueBudget {
    limit: usize,
    left: Cell<usize>,
    ran_out: Cell<bool>,
    /// Whether a reading that runs out goes on to the value's end, keeping nothing more,
    /// instead of failing ([`draining`](Self::draining)).
    drains: bool,
}

impl ValueBudget {
    /// A budget of `limit` values.
    pub fn new(limit: usize) -> Self {
        ValueBudget {
            limit,
            left: Cell::new(limit),
            ran_out: Cell::new(false),
            drains: false,
        }
    }

    /// A budget of `limit` values whose running out does not fail the reading: the rest of the
    /// text is read as JSON still (what is made of it dropped at once, nothing kept) and the
    /// value comes out short, for a caller that asks [`ran_out`](Self::ran_out) and drops it
    /// then: a reading that is to go on past a value too large to keep, whose text is then
    /// read again another way.
    pub fn draining(limit: usize) -> Self {
        ValueBudget {
            drains: true,
            ..Self::new(limit)
        }
    }

    /// A budget no reading runs out of.
    pub fn unlimited() -> Self {
        Self::new(usize::MAX)
    }

    /// The budget's size.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Whether a reading was refused a value since the budget was made or [`reset`](Self::reset).
    pub fn ran_out(&self) -> bool {
        self.ran_out.get()
    }

    /// Whole again, for a new reading.
    pub fn reset(&self) {
        self.rewind(self.limit);
    }

    /// The values still left: where to [`rewind`](Self::rewind) to before reading again
    /// what is read from here.
    pub fn left(&self) -> usize {
        self.left.get()
    }

    /// `left` values left again (what [`left`](Self::left) said before a reading that is to be
    /// done again), and not run out.
    pub fn rewind(&self, left: usize) {
        self.left.set(left);
        self.ran_out.set(false);
    }

    /// Before a reading of `text`: when it holds more values than are left, `uncounted` of
    /// them aside (a reading that takes no value for its text's outer object takes one
    /// fewer), leaves none, so that the reading runs out at its first value, having made none
    /// (not for a budget that [`drains`](Self::draining), whose reading goes on).
    /// (Inlined into both callers, each on every message's path: apart, it was one more
    /// function in the core's first module.)
    #[inline(always)]
    pub(crate) fn foresee(&self, text: &str, uncounted: usize) {
        let limit = self.left().saturating_add(uncounted);
        if !self.drains && scan::holds_more_values(text.as_bytes(), limit) {
            self.left.set(0);
        }
    }

    /// Takes one value; `false` (and [`ran_out`](Self::ran_out) from now on) when none is left.
    fn take(&self) -> bool {
        match self.left.get() {
            0 => {
                self.ran_out.set(true);
                false
            }
            n => {
                self.left.set(n - 1);
                true
            }
        }
    }
}

/// Reads one value as `Value`'s own `Deserialize` does (the same value for the same text:
/// duplicate keys keep the last value where the first was), each value it makes taken from
/// the budget.
#[derive(Clone, Copy)]
pub struct Counted<'b>(pub &'b ValueBudget);

impl<'de> DeserializeSeed<'de> for Counted<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        // (Past a draining budget's end the reading goes on, and nothing read is kept.)
        if !self.0.take() && !self.0.drains {
            return Err(de::Error::custom(format_args!(
                "more than {} values",
                self.0.limit
            )));
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Counted<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Number::from_f64(n).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(self)? {
            // (Past a draining budget's end, nothing is kept.)
            if !self.0.ran_out() {
                items.push(v);
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let v = map.next_value_seed(self)?;
            if !self.0.ran_out() {
                members.insert(key, v);
            }
        }
        Ok(Value::Object(members))
    }
}

/// The value `text` holds (the whole text: nothing but whitespace after it), read with
/// `budget`.
///
/// Text that holds more values than the budget has left is not read at all: it runs the
/// budget out at its first value, found by a scan that makes none
/// (`scan::holds_more_values`). A reading would make all those values only to drop them,
/// and wasm memory keeps what it grew to (an agent's 1.3 million empty arrays grew it by 12 MiB
/// for the 100,000 values read before the budget ran out). The scan is made only of text
/// longer than that many bytes, and for text that is not JSON it counts commas and brackets:
/// such text with more of them than the budget is refused for its values, not for its syntax.
pub fn from_str(text: &str, budget: &ValueBudget) -> serde_json::Result<Value> {
    budget.foresee(text, 0);
    let mut de = serde_json::Deserializer::from_str(text);
    let v = Counted(budget).deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// The value `text` holds, with no budget: what `serde_json::from_str::<Value>` reads, by the
/// same code as a budgeted reading (the core's one reader of values from text).
pub fn parse(text: &str) -> serde_json::Result<Value> {
    from_str(text, &ValueBudget::unlimited())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// Random JSON text: nested arrays and objects (duplicate keys among them), numbers of
    /// every kind, strings with escapes.
    fn text(rng: &mut Rng, depth: u32) -> String {
        match rng.below(if depth == 0 { 6 } else { 8 }) {
            0 => "null".into(),
            1 => "true".into(),
            2 => format!("{}", rng.below(1000) as i64 - 500),
            3 => "18446744073709551615".into(),
            4 => "-1.5e300".into(),
            5 => r#""a\"\u00e9\ud83d\ude00""#.into(),
            6 => {
                let n = rng.below(4);
                let items: Vec<String> = (0..n).map(|_| text(rng, depth - 1)).collect();
                format!("[{}]", items.join(","))
            }
            _ => {
                let n = rng.below(4);
                let members: Vec<String> = (0..n)
                    .map(|_| format!(r#""k{}":{}"#, rng.below(3), text(rng, depth - 1)))
                    .collect();
                format!("{{{}}}", members.join(","))
            }
        }
    }

    fn count(v: &Value) -> usize {
        1 + match v {
            Value::Array(a) => a.iter().map(count).sum(),
            Value::Object(o) => o.values().map(count).sum(),
            _ => 0,
        }
    }

    #[test]
    fn reads_what_serde_json_reads_and_counts_every_value_it_makes() {
        let mut rng = Rng(7);
        for _ in 0..2000 {
            let t = text(&mut rng, 4);
            let want: Value = serde_json::from_str(&t).unwrap();
            let budget = ValueBudget::unlimited();
            let got = from_str(&t, &budget).unwrap();
            assert_eq!(got, want, "{t}");
            // (Order too: `Value`'s equality of objects ignores it.)
            assert_eq!(got.to_string(), want.to_string(), "{t}");
            // Duplicate keys: a value read and then replaced was made all the same.
            let made = usize::MAX - budget.left.get();
            assert!(made >= count(&want), "{t}");
            // Exactly that many is enough; one fewer runs out.
            assert_eq!(from_str(&t, &ValueBudget::new(made)).unwrap(), want);
            let short = ValueBudget::new(made - 1);
            assert!(from_str(&t, &short).is_err());
            assert!(short.ran_out(), "{t}");
        }
    }

    #[test]
    fn a_syntax_error_is_not_running_out() {
        for bad in ["[1,", "{\"a\" 1}", "[1] x", "\"\\ud800\"", ""] {
            let budget = ValueBudget::new(100);
            assert!(from_str(bad, &budget).is_err(), "{bad}");
            assert!(!budget.ran_out(), "{bad}");
        }
    }

    #[test]
    fn a_reading_past_the_budget_stops_there() {
        // A million values of text; the budget of ten stops the reading at the eleventh, and
        // says so.
        let t = format!("[{}[]]", "[],".repeat(999_999));
        let budget = ValueBudget::new(10);
        let e = from_str(&t, &budget).unwrap_err();
        assert!(budget.ran_out());
        assert!(e.to_string().starts_with("more than 10 values"), "{e}");
        budget.reset();
        assert!(!budget.ran_out());
        assert_eq!(from_str("[[]]", &budget).unwrap(), serde_json::json!([[]]));
    }

    /// The scan counts the values a budgeted reading takes: for each text, the count is the
    /// least limit it does not pass.
    #[test]
    fn a_scan_counts_the_values_a_reading_takes() {
        let texts = [
            "1",
            " [] ",
            "{}",
            r#"{"a": [1, 2, {"b": []}], "c": "x,[{"}"#,
            r#"["\"", "\\", [ ], { }, [[[]]], {"k": {}}]"#,
            "[null,true,false,-1.5e3]",
            r#"{"a,b": "[", "c": "\"]"}"#,
        ];
        for text in texts {
            let budget = ValueBudget::new(1_000);
            from_str(text, &budget).unwrap();
            let count = 1_000 - budget.left();
            assert!(!scan::holds_more_values(text.as_bytes(), count), "{text}");
            assert!(
                scan::holds_more_values(text.as_bytes(), count - 1),
                "{text}"
            );
        }
        assert!(!scan::holds_more_values(b"", 0));
        assert!(!scan::holds_more_values(b"  ", 0));
        // Past the limit the scan stops: 1.3 million empty arrays, a limit of 100,000.
        let many = format!("[{}[]]", "[],".repeat(1_300_000));
        assert!(scan::holds_more_values(many.as_bytes(), 100_000));
        assert!(!scan::holds_more_values(many.as_bytes(), 1_300_002));
    }

    #[test]
    fn text_past_the_budget_is_not_read_even_for_its_syntax() {
        // Not JSON at its end: past a budget of ten, refused for its values (by the scan, not
        // a reading, which would stop at the eleventh value either way)...
        let t = format!("[{}x]", "[],".repeat(999_999));
        let budget = ValueBudget::new(10);
        let e = from_str(&t, &budget).unwrap_err();
        assert!(e.to_string().starts_with("more than 10 values"), "{e}");
        assert!(budget.ran_out());
        // ...within the budget, for its syntax.
        let budget = ValueBudget::new(2_000_000);
        let e = from_str(&t, &budget).unwrap_err();
        assert!(e.to_string().starts_with("expected value"), "{e}");
        assert!(!budget.ran_out());
        // Not JSON at its start, with more commas than the budget: refused for its values too.
        let t = format!("[x{}]", ",1".repeat(20));
        let budget = ValueBudget::new(10);
        assert!(from_str(&t, &budget).is_err());
        assert!(budget.ran_out());
        let budget = ValueBudget::new(30);
        assert!(from_str(&t, &budget).is_err());
        assert!(!budget.ran_out());
    }

    #[test]
    fn a_draining_budget_reads_to_the_end_and_keeps_no_more() {
        let t = format!("[{}{{\"a\": [1, 2]}}]", "[],".repeat(999_999));
        let budget = ValueBudget::draining(10);
        let got = from_str(&t, &budget).unwrap();
        assert!(budget.ran_out());
        // Ten values made, the array's among them; nothing after kept.
        assert_eq!(got, serde_json::json!([[], [], [], [], [], [], [], [], []]));
        // What fits is read as any budget reads it, and does not run out.
        for t in ["[[], {\"a\": [1, 2]}]", "{\"a\": {\"b\": null}, \"a\": 1}"] {
            let budget = ValueBudget::draining(100);
            assert_eq!(from_str(t, &budget).unwrap(), parse(t).unwrap());
            assert!(!budget.ran_out());
        }
        // Text that is not JSON still fails, past the end of the budget too.
        for bad in [
            "[1, 2, 3,",
            "[1, 2, 3, {\"a\" 1}]",
            "[1, 2, \"\\ud800\"]",
            "[1] x",
        ] {
            assert!(from_str(bad, &ValueBudget::draining(2)).is_err(), "{bad}");
        }
    }
}

//! A value's JSON text, written the way `serde_json` writes it, faster for long strings.
//!
//! Every answer a session sends is one [`Value`] written as text once (the tab and window
//! wires then hand that text to `JSON.parse`, its long strings apart: [`to_string_apart`]);
//! the cached `tools/list` text, what the core sends to the validator module and the tab
//! session's snapshot are written here too, and so is every other value the core and the
//! client module turn into text (a value in an error message, a tool's non-string result as
//! its text block, a value handed to the page through `JSON.parse`): `Value`'s `Display` is
//! not used in either module, so `serde_json`'s text serializer is not in them (the validator
//! module keeps it: `jsonschema` formats with it).
//!
//! `serde_json` looks at a string's bytes one at a time to find the ones JSON escapes; a tool
//! that returns a page's text or a document makes that string hundreds of kilobytes long (a
//! tools/call of a 1 MiB text result spent 7 % of its time there in a CPU profile, Chromium
//! 156, and another 2 % checking that the finished text was UTF-8). Here a string is looked at a word (eight bytes) at a time, the
//! runs that need no escape are copied as they are, and the text is built as a `String` from
//! string slices and ASCII, so it needs no check at the end.
//!
//! The output is byte for byte `serde_json::to_string`'s (compact, keys in the map's order,
//! `"`, `\` and the control characters escaped as `serde_json` escapes them, nothing else;
//! numbers in their `Display` form, which is `serde_json`'s, but the core module's fractional
//! numbers, written by the JS engine: `write_number`); the tests compare the two over
//! every byte value at every position of an eight-byte word, long strings and the shared
//! JSON-Schema-Test-Suite's documents.
//!
//! Two operations: [`to_string`], a value's text in a buffer of about its size (with text
//! around it: [`to_string_within`]), and
//! [`write_value`], a value's text appended to a buffer the caller sized. A third,
//! [`to_string_apart`], is for a caller that makes a JS value of the text (`JSON.parse`): it
//! leaves the long strings out, with where they were, so that they cross into JS as strings
//! (one copy) instead of being escaped into the text, copied with it and parsed back.
//!
//! ```
//! use modelcontext_polyfill::protocol::json_text::{to_string, write_value};
//! use serde_json::json;
//!
//! let v = json!({"content": [{"type": "text", "text": "a \"quote\"\n"}], "n": [1, -2, 0.5]});
//! assert_eq!(to_string(&v), serde_json::to_string(&v).unwrap());
//!
//! let mut text = String::from(r#"{"tools":["#);
//! write_value(&mut text, &json!({"name": "x"}));
//! text.push_str("]}");
//! assert_eq!(text, r#"{"tools":[{"name":"x"}]}"#);
//! ```

use serde_json::Value;
use std::fmt::Write as _;

/// `v` as compact JSON text, written into one allocation of about its size.
///
/// A buffer doubled from small would copy a tool's 1 MiB result into 2 MiB after a copy of
/// 1 MiB, and wasm memory, which never shrinks, would keep the 4 MiB that took; this one is
/// sized from the strings' and keys' lengths, with room for some escapes.
pub fn to_string(v: &Value) -> String {
    to_string_within("", v, "")
}

/// [`to_string`] with `head` before the value's text and `tail` after it, in the same one
/// buffer: an answer's envelope around its result.
pub fn to_string_within(head: &str, v: &Value, tail: &str) -> String {
    let hint = size_hint(v, 0);
    let mut text = String::with_capacity(head.len() + hint + hint / 16 + 64 + tail.len());
    text.push_str(head);
    write_value(&mut text, v);
    text.push_str(tail);
    text
}

/// About how many bytes `v` takes as JSON text: its strings' and keys' bytes and the
/// punctuation around them, a guess for numbers, literals and whatever is nested deeper than
/// a few levels (escapes are not counted).
fn size_hint(v: &Value, depth: u32) -> usize {
    const GUESS: usize = 8;
    match v {
        Value::String(s) => s.len() + 2,
        _ if depth >= 8 => GUESS,
        Value::Array(a) => 2 + a.iter().map(|x| size_hint(x, depth + 1) + 1).sum::<usize>(),
        Value::Object(m) => {
            2 + m
                .iter()
                .map(|(k, x)| k.len() + 4 + size_hint(x, depth + 1))
                .sum::<usize>()
        }
        _ => GUESS,
    }
}

/// Appends `v` as compact JSON text to `out`.
pub fn write_value(out: &mut String, v: &Value) {
    write_tree(out, v, &mut AllIn);
}

/// How [`write_tree`] writes strings, told where it is: every one in the text ([`AllIn`]), or
/// the long ones left out ([`LongApart`]). Both are compiled apart, so the path kept for the
/// second costs the first nothing.
trait Strings<'a> {
    /// Writes string `s` (a value, not a key) to `out`, or something in its place.
    fn string(&mut self, out: &mut String, s: &'a str);
    /// The writer goes down `step`.
    fn enter(&mut self, step: Step<'a>);
    /// The writer comes back up from the last step entered.
    fn leave(&mut self);
}

/// Every string in the text ([`write_value`]).
struct AllIn;

impl<'a> Strings<'a> for AllIn {
    fn string(&mut self, out: &mut String, s: &'a str) {
        write_str(out, s);
    }
    fn enter(&mut self, _: Step<'a>) {}
    fn leave(&mut self) {}
}

/// The strings of `min` bytes or more written `null` and listed with their paths
/// ([`to_string_apart`]).
struct LongApart<'a, 'b> {
    min: usize,
    also: &'b [&'b str],
    path: Vec<Step<'a>>,
    apart: Vec<Apart<'a>>,
}

impl<'a> Strings<'a> for LongApart<'a, '_> {
    fn string(&mut self, out: &mut String, s: &'a str) {
        if s.len() < self.min && !self.also.contains(&s) {
            return write_str(out, s);
        }
        out.push_str("null");
        self.apart.push(Apart {
            path: self.path.clone(),
            text: s,
        });
    }
    fn enter(&mut self, step: Step<'a>) {
        self.path.push(step);
    }
    fn leave(&mut self) {
        self.path.pop();
    }
}

/// Appends `v` as compact JSON text to `out`, its strings written by `strings`.
fn write_tree<'a>(out: &mut String, v: &'a Value, strings: &mut impl Strings<'a>) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => strings.string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                strings.enter(Step::Index(i));
                write_tree(out, item, strings);
                strings.leave();
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(out, key);
                out.push(':');
                strings.enter(Step::Key(key));
                write_tree(out, item, strings);
                strings.leave();
            }
            out.push('}');
        }
    }
}

/// Appends `n` as JSON text: its `Display` form, `serde_json`'s, but for a number held as a
/// float (a fraction or an exponent) in the core module (`web-server`), which the JS engine
/// writes (`Number.prototype.toString`: the shortest text that reads back as the same number,
/// as `serde_json`'s; an exponent with its sign, `1e+21` where `serde_json` writes `1e21`), so
/// that `serde_json`'s float formatter (0.9 KB gzip) is not in the core's first module, whose
/// listings write the fractional numbers of pages' schemas. (The client module keeps
/// `serde_json`'s: it has the formatter for other uses.)
fn write_number(out: &mut String, n: &serde_json::Number) {
    #[cfg(all(target_arch = "wasm32", feature = "web-server"))]
    if n.is_f64() {
        if let Some(f) = n.as_f64() {
            if let Ok(text) = js_sys::Number::from(f).to_string_with_radix(10) {
                out.push_str(&String::from(text));
                return;
            }
        }
    }
    if let Some(i) = n.as_i64() {
        return write_integer(out, i);
    }
    // (Writing into a String cannot fail; a Number is never NaN or infinite.)
    let _ = write!(out, "{n}");
}

/// Appends the integer `n` in decimal, as `Display` writes it, without the formatting
/// machinery (`core::fmt`): a request's id is written into every answer, and array indexes
/// and counts into many.
///
/// ```
/// let mut out = String::new();
/// for n in [0, 7, -12, 1_000_000, i64::MIN, i64::MAX] {
///     out.clear();
///     modelcontext_polyfill::protocol::json_text::write_integer(&mut out, n);
///     assert_eq!(out, n.to_string());
/// }
/// ```
pub fn write_integer(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    let mut rest = n.unsigned_abs();
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

/// A step from a value to one inside it: an object's key or an array's index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    /// The member of an object with this key.
    Key(&'a str),
    /// The item of an array at this index.
    Index(usize),
}

/// A string [`to_string_apart`] left out of the text: where it was (the steps from the value
/// written to it; none when it is that value) and the string.
#[derive(Debug, PartialEq, Eq)]
pub struct Apart<'a> {
    /// The steps from the value written to the string.
    pub path: Vec<Step<'a>>,
    /// The string, unescaped.
    pub text: &'a str,
}

/// `v` as [`to_string`] writes it, but every string of `min` bytes or more written `null` and
/// listed, in the order written, with its path: the text and the strings left out (object keys
/// are never left out). A value without such a string is [`to_string`]'s text and an empty
/// list; [`has_long_string`] tells, without writing anything, whether it is worth calling.
///
/// ```
/// use modelcontext_polyfill::protocol::json_text::{to_string_apart, Apart, Step};
/// use serde_json::json;
///
/// let long = "x".repeat(100);
/// let v = json!({"content": [{"type": "text", "text": long}]});
/// let (text, apart) = to_string_apart(&v, 64);
/// assert_eq!(text, r#"{"content":[{"type":"text","text":null}]}"#);
/// let path = vec![Step::Key("content"), Step::Index(0), Step::Key("text")];
/// assert_eq!(apart, vec![Apart { path, text: &long }]);
/// assert!(to_string_apart(&v, 101).1.is_empty());
/// ```
pub fn to_string_apart(v: &Value, min: usize) -> (String, Vec<Apart<'_>>) {
    to_string_apart_with(v, min, &[])
}

/// [`to_string_apart`], which also leaves out every string equal to one of `also` (the
/// markers of strings a result holds outside the engine, `server::held`), whatever its length.
pub fn to_string_apart_with<'a>(
    v: &'a Value,
    min: usize,
    also: &[&str],
) -> (String, Vec<Apart<'a>>) {
    let mut text = String::with_capacity(64);
    let mut strings = LongApart {
        min,
        also,
        path: Vec::new(),
        apart: Vec::new(),
    };
    write_tree(&mut text, v, &mut strings);
    (text, strings.apart)
}

/// Whether `v` holds a string of `min` bytes or more (or is one): whether [`to_string_apart`]
/// would leave any out.
pub fn has_long_string(v: &Value, min: usize) -> bool {
    match v {
        Value::String(s) => s.len() >= min,
        Value::Array(items) => items.iter().any(|x| has_long_string(x, min)),
        Value::Object(map) => map.values().any(|x| has_long_string(x, min)),
        _ => false,
    }
}

/// `text` with each escape of a lone surrogate (`\ud800` not followed by the escape of a low
/// surrogate, or a low surrogate's escape on its own) written `\ufffd`, the replacement
/// character; `None` when there is none. `JSON.stringify` writes a JS string's lone surrogates
/// so (a page's text cut in the middle of an emoji has one), and `serde_json` refuses them,
/// where a UTF-8 copy of the same JS string would have U+FFFD in their place. Only escapes
/// inside strings are read, an escaped backslash followed by `u` included.
///
/// ```
/// use modelcontext_polyfill::protocol::json_text::lone_surrogates_replaced;
///
/// let text = r#"{"a":"cut \ud83d","b":"\ud83d\ude00 \\ud800 \udc00"}"#;
/// assert_eq!(
///     lone_surrogates_replaced(text).as_deref(),
///     Some(r#"{"a":"cut \ufffd","b":"\ud83d\ude00 \\ud800 \ufffd"}"#)
/// );
/// assert_eq!(lone_surrogates_replaced(r#"["\ud83d\ude00"]"#), None);
/// ```
pub fn lone_surrogates_replaced(text: &str) -> Option<String> {
    let b = text.as_bytes();
    // The code unit of the `\uXXXX` escape at `i`, if there is one.
    let unit = |i: usize| -> Option<u32> {
        let hex = b.get(i..i + 6)?;
        if hex[0] != b'\\' || hex[1] != b'u' {
            return None;
        }
        hex[2..].iter().try_fold(0, |n, &d| {
            let digit = (d as char).to_digit(16)?;
            Some(n * 16 + digit)
        })
    };
    let mut out: Option<Vec<u8>> = None;
    let (mut i, mut in_string, mut copied) = (0, false, 0);
    while i < b.len() {
        match (in_string, b[i]) {
            (false, b'"') | (true, b'"') => in_string = !in_string,
            (true, b'\\') => {
                let lone = match unit(i) {
                    Some(0xD800..=0xDBFF) => {
                        if matches!(unit(i + 6), Some(0xDC00..=0xDFFF)) {
                            i += 12;
                            continue;
                        }
                        true
                    }
                    Some(0xDC00..=0xDFFF) => true,
                    _ => false,
                };
                if lone {
                    let o = out.get_or_insert_with(|| Vec::with_capacity(b.len()));
                    o.extend_from_slice(&b[copied..i]);
                    o.extend_from_slice(b"\\ufffd");
                    i += 6;
                    copied = i;
                } else {
                    // Any other escape: its two characters (a `\uXXXX`'s hex is plain text).
                    i += 2;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    let mut o = out?;
    o.extend_from_slice(&b[copied..]);
    // Only ASCII escapes were replaced by ASCII: the bytes are still UTF-8.
    String::from_utf8(o).ok()
}

/// The value of JSON text that `serde_json` refused for its lone surrogates, read again with
/// each written U+FFFD ([`lone_surrogates_replaced`]); `None` when it has none, or is not JSON
/// for another reason.
pub fn from_str_lone_surrogates_replaced(text: &str) -> Option<Value> {
    super::values::parse(&lone_surrogates_replaced(text)?).ok()
}

/// The value of JSON text as `JSON.stringify` writes it: read, or, where `serde_json` refuses
/// its lone surrogates' escapes, read with each written U+FFFD; `serde_json`'s error when it
/// is not JSON it reads (nested past 128 levels, for one).
pub fn read(text: &str) -> Result<Value, serde_json::Error> {
    super::values::parse(text).or_else(|e| from_str_lone_surrogates_replaced(text).ok_or(e))
}

/// `s` as a JSON string (see `write_str`): how error messages quote a name, with code
/// every build has (where `{:?}` would bring `char`'s escaping for non-ASCII text).
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_str(&mut out, s);
    out
}

/// Appends `s` as a JSON string: quoted, with `"`, `\` and the control characters escaped.
fn write_str(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    out.push('"');
    // `run`: the start of the bytes not yet written; `i`: the next byte to look at.
    let mut run = 0;
    let mut i = 0;
    loop {
        // Whole words with nothing to escape are passed over, sixteen bytes at a time, then
        // eight.
        for block in bytes[i..].chunks_exact(16) {
            if escape_bits(word(&block[..8])) | escape_bits(word(&block[8..])) != 0 {
                break;
            }
            i += 16;
        }
        while let Some(w) = bytes.get(i..i + 8) {
            if escape_bits(word(w)) != 0 {
                break;
            }
            i += 8;
        }
        // The word at `i` has a byte to escape, or this is the tail (short strings, keys,
        // are all tail): then checked as a word too, padded with spaces, which need no
        // escape. Its bytes one by one.
        let end = bytes.len().min(i + 8);
        if i == end {
            break;
        }
        if end - i < 8 {
            let mut tail = [b' '; 8];
            tail[..end - i].copy_from_slice(&bytes[i..end]);
            if escape_bits(word(&tail)) == 0 {
                break;
            }
        }
        for (at, &b) in bytes.iter().enumerate().take(end).skip(i) {
            let escape: &str = match b {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'\t' => "\\t",
                0x08 => "\\b",
                0x0c => "\\f",
                0x00..=0x1f => "",
                _ => continue,
            };
            // Every byte escaped is ASCII, so `at` and `at + 1` are character boundaries.
            out.push_str(&s[run..at]);
            if escape.is_empty() {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xf)]));
            } else {
                out.push_str(escape);
            }
            run = at + 1;
        }
        i = end;
    }
    out.push_str(&s[run..]);
    out.push('"');
}

/// The eight bytes of `w` (eight long) as a little-endian word.
fn word(w: &[u8]) -> u64 {
    u64::from_le_bytes(w.try_into().unwrap_or_default())
}

/// Nonzero when any byte of `word` is a control character (below 0x20), `"` or `\`.
///
/// The classic test for a byte below `n` in a word (`(x - n·0x01…) & !x & 0x80…`, exact as a
/// yes or no for `n` ≤ 128: the lowest such byte borrows nothing from the bytes below it, so
/// its high bit comes out set, and a byte at or above 0x80 never counts), for 0x20, and for 1
/// against the word XORed with `"` and with `\` (the bytes equal to them become zero).
const fn escape_bits(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let quote = word ^ (ONES * b'"' as u64);
    let backslash = word ^ (ONES * b'\\' as u64);
    (word.wrapping_sub(ONES * 0x20) & !word
        | quote.wrapping_sub(ONES) & !quote
        | backslash.wrapping_sub(ONES) & !backslash)
        & HIGH
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::{Path, PathBuf};

    fn same(v: &Value) {
        let mut text = String::new();
        write_value(&mut text, v);
        assert_eq!(text, serde_json::to_string(v).unwrap(), "{v:?}");
        assert_eq!(to_string(v), text);
    }

    #[test]
    fn every_byte_at_every_position_of_a_word() {
        // Every ASCII byte, and a two-, three- and four-byte character, at each offset of
        // strings of lengths 1 to 24 (so in a whole word, across two, and in the tail).
        let specials: Vec<String> = (0u8..0x80)
            .map(|b| char::from(b).to_string())
            .chain(["é", "€", "😀", "\u{7f}", "\u{2028}"].map(String::from))
            .collect();
        for len in 1..=24 {
            for at in 0..len {
                for special in &specials {
                    let s: String = (0..len)
                        .map(|i| if i == at { special.as_str() } else { "a" })
                        .collect();
                    same(&Value::String(s));
                }
            }
        }
    }

    #[test]
    fn long_strings_clean_escaped_and_mixed() {
        let clean = "lorem ipsum dolor sit amet, ".repeat(40_000);
        same(&json!(clean));
        let lines = "a line of text\n\twith \"quotes\" and a \\ backslash\r\n".repeat(20_000);
        same(&json!(lines));
        let mixed: String = (0..200_000u32)
            .map(|i| char::from_u32(i % 0x3000).unwrap_or('?'))
            .collect();
        same(&json!(mixed));
        same(&json!({ "content": [{ "type": "text", "text": clean }], "isError": false }));
    }

    #[test]
    fn keys_numbers_and_structure() {
        same(&json!({
            "": null, "a\"b": true, "c\\d": false, "\u{1}": [], "e\nf": {},
            "n": [0, -0, 1, -1, u64::MAX, i64::MIN, 0.5, -1.5e-300, 1e300, 3.0, 2.5e20, f64::MIN_POSITIVE],
            "nested": [[[{"x": [1, [2, [3]]]}]]],
            "1": "integer-like key", "0": "kept in the map's order"
        }));
        same(&json!(null));
        same(&json!(42));
        same(&json!([]));
    }

    /// `v` from [`to_string_apart`]'s text and strings: the text parsed, each string put
    /// back at its path.
    fn put_back(text: &str, apart: &[Apart]) -> Value {
        let mut v: Value = serde_json::from_str(text).unwrap();
        for a in apart {
            let mut at = &mut v;
            for step in &a.path {
                at = match step {
                    Step::Key(k) => at.get_mut(*k).unwrap(),
                    Step::Index(i) => at.get_mut(*i).unwrap(),
                };
            }
            assert_eq!(*at, Value::Null, "{:?} was not left null", a.path);
            *at = Value::String(a.text.into());
        }
        v
    }

    #[test]
    fn long_strings_apart_are_where_they_were() {
        let long = "a \"long\" string\n".repeat(10);
        let v = json!({
            "jsonrpc": "2.0", "id": 7,
            "result": {
                "content": [{"type": "text", "text": long}, {"type": "text", "text": "short"}],
                "structuredContent": {"\"odd\" key": [1, [long.clone(), null]], "__proto__": long},
            },
        });
        let (text, apart) = to_string_apart(&v, 100);
        assert_eq!(apart.len(), 3);
        assert!(!text.contains("long"), "{text}");
        assert!(text.contains(r#""text":"short""#), "{text}");
        assert_eq!(put_back(&text, &apart), v);
        assert_eq!(
            apart[1].path,
            [
                Step::Key("result"),
                Step::Key("structuredContent"),
                Step::Key("\"odd\" key"),
                Step::Index(1),
                Step::Index(0)
            ]
        );
        // Nothing that long: to_string's text, nothing apart.
        let (text, apart) = to_string_apart(&v, long.len() + 1);
        assert_eq!((text, apart.len()), (to_string(&v), 0));
        // The value itself.
        let itself = json!(long);
        let (text, apart) = to_string_apart(&itself, 1);
        assert_eq!((text.as_str(), apart[0].path.len()), ("null", 0));
    }

    /// The JSON-Schema-Test-Suite's documents (schemas and instances of every kind:
    /// unicode, escapes, large and fractional numbers, deep nesting), where
    /// `tests/json_schema_suite.rs` finds them.
    #[test]
    fn the_schema_suites_documents() {
        let root = match std::env::var_os("JSON_SCHEMA_TEST_SUITE") {
            Some(dir) => PathBuf::from(dir),
            None => {
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/spec/json-schema-test-suite")
            }
        };
        let Ok(dirs) = std::fs::read_dir(&root) else {
            panic!("{} is missing", root.display());
        };
        let mut files = 0;
        let mut stack: Vec<_> = dirs.flatten().map(|e| e.path()).collect();
        while let Some(path) = stack.pop() {
            if path.is_dir() {
                stack.extend(
                    std::fs::read_dir(&path)
                        .unwrap()
                        .flatten()
                        .map(|e| e.path()),
                );
            } else if path.extension().is_some_and(|e| e == "json") {
                let text = std::fs::read_to_string(&path).unwrap();
                same(&serde_json::from_str::<Value>(&text).unwrap());
                files += 1;
            }
        }
        assert!(
            files > 100,
            "only {files} documents under {}",
            root.display()
        );
    }
}

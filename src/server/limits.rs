//! Configurable limits on what a peer may send, and the cheap pre-parse checks.

use crate::protocol::scan;

/// What a session may be subscribed to at once, in all: the URIs it subscribed to with
/// `resources/subscribe`, its open `subscriptions/listen` streams, and each URI and task id a
/// stream names. Past it a subscription or a stream that would add more is refused (-32600,
/// naming the limit) until one is dropped or torn down. An agent may subscribe to any URI (one
/// a template would match included) and open any number of streams, each naming as many URIs
/// as a message holds, so without a bound a peer could grow what the session keeps (in wasm
/// memory, which never shrinks) without end, and make each request's check of its id against
/// the open streams longer.
pub const MAX_SUBSCRIPTIONS: usize = 4_096;

/// The bytes of text (URIs and task ids) a session's subscriptions and streams hold in all; past
/// it, as past [`MAX_SUBSCRIPTIONS`]: 4,096 URIs of 4 MiB each would otherwise be 16 GiB.
pub const MAX_SUBSCRIPTION_BYTES: usize = 4 * 1024 * 1024;

/// The longest progress token and `subscriptions/listen` request id, in bytes of text, that the
/// server repeats: each progress notification carries its request's token, and each
/// notification on a stream the stream's id, as often as the page reports progress or changes
/// what the stream follows, so a peer's token of megabytes would cost megabytes per
/// notification, however small the page's own. A longer progress token gets no progress
/// notifications (MCP lets a server send none); a `subscriptions/listen` request with a longer
/// id is refused (-32600, naming the limit). Tokens and ids are short: a number or a UUID.
pub const MAX_REPEATED_ID_BYTES: usize = 1_024;

/// The most characters of a peer's text an error quotes whole: a violation's message and
/// instance path (`"…" is longer than 10 characters`, `/key`), a name that is not known. Past
/// it the text keeps its beginning and end, where a violation's wording and a quoted value's
/// edges are, and says how many characters it left out between them (see [`shorten`]).
pub const MAX_ECHO_CHARS: usize = 256;

/// Characters kept at each end of a text [`shorten`] cuts.
const ECHO_KEPT: usize = 100;

/// `text` as an error quotes it: unchanged up to [`MAX_ECHO_CHARS`] characters; longer, its
/// first and last 100 characters with the number left out between them, which is itself
/// shorter than the bound (so shortening twice changes nothing).
///
/// ```
/// use modelcontext_polyfill::server::limits::{shorten, MAX_ECHO_CHARS};
/// let long = format!("\"{}\" is longer than 10 characters", "é".repeat(100_000));
/// let short = shorten(long);
/// assert!(short.chars().count() <= MAX_ECHO_CHARS);
/// assert!(short.starts_with("\"éé") && short.ends_with("é\" is longer than 10 characters"));
/// assert!(short.contains("(99831 characters left out)"));
/// assert_eq!(shorten(short.clone()), short);
/// ```
pub fn shorten(text: String) -> String {
    // A character is at least one byte: a text this short in bytes is short in characters.
    if text.len() <= MAX_ECHO_CHARS {
        return text;
    }
    // Where characters start: at every byte but UTF-8's continuation bytes (`10xxxxxx`).
    let starts = |b: u8| b & 0xc0 != 0x80;
    let chars = text.bytes().filter(|&b| starts(b)).count();
    if chars <= MAX_ECHO_CHARS {
        return text;
    }
    let nth_start = |n: usize| {
        let mut at = text.bytes().enumerate().filter(|&(_, b)| starts(b));
        at.nth(n).map_or(text.len(), |(i, _)| i)
    };
    let (head_end, tail_start) = (nth_start(ECHO_KEPT), nth_start(chars - ECHO_KEPT));
    format!(
        "{} … ({} characters left out) … {}",
        &text[..head_end],
        chars - 2 * ECHO_KEPT,
        &text[tail_start..]
    )
}

/// A peer's JSON value as an error quotes it (`… must be a string, got …`): its JSON text,
/// [`shorten`]ed.
pub fn quote(value: &serde_json::Value) -> String {
    shorten(crate::protocol::json_text::to_string(value))
}

/// The most of a peer's names an error lists (the arguments a prompt does not have, of the
/// many an agent may send); past it the list says how many more there are.
pub const MAX_NAMES_LISTED: usize = 32;

/// `names`, `, ` between them, as an error lists them: at most [`MAX_NAMES_LISTED`], each
/// [`shorten`]ed, then how many more there are.
///
/// ```
/// use modelcontext_polyfill::server::limits::list_names;
/// assert_eq!(list_names(&["a", "b"]), "a, b");
/// let many: Vec<String> = (0..100).map(|i| i.to_string()).collect();
/// let many: Vec<&str> = many.iter().map(String::as_str).collect();
/// assert!(list_names(&many).ends_with(", 30, 31, and 68 more"));
/// ```
pub fn list_names(names: &[&str]) -> String {
    let mut listed: Vec<String> = names
        .iter()
        .take(MAX_NAMES_LISTED)
        .map(|&n| shorten(n.to_owned()))
        .collect();
    if names.len() > MAX_NAMES_LISTED {
        listed.push(format!("and {} more", names.len() - MAX_NAMES_LISTED));
    }
    listed.join(", ")
}

/// Limits applied to every session.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Largest message accepted, in bytes of JSON text.
    pub max_message_bytes: usize,
    /// Deepest nesting of arrays/objects accepted.
    pub max_depth: usize,
    /// Handler-running requests (`tools/call`, `resources/read`, `prompts/get`,
    /// `completion/complete`) a session runs at once; more wait in a queue. The default
    /// (1,024) lets an agent's burst of concurrent calls run at once, as they would against
    /// the page's functions directly; a transport for a less trusted peer can set less.
    pub max_in_flight: usize,
    /// Requests a session keeps waiting past `max_in_flight`; past both, a request is
    /// refused (-32600). Other requests (`ping`, lists, …) never wait.
    pub max_queued: usize,
    /// Bytes the waiting requests of a session may keep together: each one's `arguments` text
    /// (a `tools/call`'s, read apart) and the values its other params were read into, as
    /// [`params_bytes`] estimates them (a batch's requests as single ones). A request that
    /// would go past it is refused (-32600) like one past `max_queued`.
    pub max_queued_bytes: usize,
    /// Messages in one batch (2025-03-26 only).
    pub max_batch_len: usize,
    /// JSON values one message may hold, a `tools/call`'s `arguments` (read apart as text)
    /// aside, a batch's items together: its reading stops at the first value past it, and the
    /// message is refused (-32600). A value read is 48 bytes of wasm memory at least, which never shrinks; the
    /// default lets one message make some 5 to 10 MB of them, where a client's `_meta`,
    /// capabilities or answers hold a few hundred. Also the most values a call's `arguments`
    /// are read into to be checked, unless the tool's schema accepts their text: past it a
    /// refusal is reported from the text
    /// ([`CompiledSchema::text_violations`](super::CompiledSchema::text_violations)); and the
    /// most a schema that reads the text whole (the validator module's) is given of them.
    pub max_values: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message_bytes: 4 * 1024 * 1024,
            max_depth: 64,
            max_in_flight: 1024,
            max_queued: 4096,
            max_queued_bytes: 64 * 1024 * 1024,
            max_batch_len: 64,
            max_values: 100_000,
        }
    }
}

/// The deepest array/object nesting in `text`, scanning at most until `stop_above` is
/// exceeded. Strings (with escapes) are skipped, eight bytes at a time: a message's long string
/// (a tool's argument) costs little more than its copy. Runs before parsing, so hostile input
/// never reaches a recursive parser.
pub fn nesting_depth(text: &str, stop_above: usize) -> usize {
    let bytes = text.as_bytes();
    let (mut depth, mut max, mut i) = (0usize, 0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            // To the string's closing quote, past each escape; unterminated, nothing after it
            // is counted.
            b'"' => match scan::string_end(bytes, i) {
                Some(end) => {
                    i = end;
                    continue;
                }
                None => return max,
            },
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    max = depth;
                    if max > stop_above {
                        return max;
                    }
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    max
}

/// The wasm memory (or, natively, the heap) a request's `params` keep once read from their JSON
/// text, estimated from how this build lays the values out: the map itself, each member's entry
/// (its index slot, hash, key and value), a key's and a string's bytes, an array's slots as
/// many as its capacity, and the same for everything inside. A queued request is charged this
/// (with its `arguments` text) against [`Limits::max_queued_bytes`], since text understates
/// what a tree costs by up to some twenty times: `[]` is two bytes of text and a value of 48 in
/// wasm32 (80 natively). Walks the tree (recursively: its depth is bounded by
/// [`Limits::max_depth`] and by `serde_json`'s own limit of 128) and allocates nothing.
pub fn params_bytes(params: &serde_json::Map<String, serde_json::Value>) -> usize {
    use serde_json::{Map, Value};
    use std::mem::size_of;
    const SLOT: usize = size_of::<Value>();
    // An object's entry: `indexmap`'s bucket (hash, key, value) and its index table's slot
    // and control byte.
    const ENTRY: usize = 2 * size_of::<usize>() + size_of::<String>() + SLOT + 1;
    fn map(m: &Map<String, Value>) -> usize {
        m.iter()
            .map(|(k, v)| ENTRY + k.capacity() + inside(v))
            .sum()
    }
    // What a value holds beyond its own slot.
    fn inside(v: &Value) -> usize {
        match v {
            Value::String(s) => s.capacity(),
            Value::Array(a) => a.capacity() * SLOT + a.iter().map(inside).sum::<usize>(),
            Value::Object(m) => map(m),
            Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        }
    }
    size_of::<Map<String, Value>>() + map(params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// Texts of every length around the bound, of one- to four-byte characters mixed at
    /// random: a text of at most `MAX_ECHO_CHARS` characters is kept whole; a longer one is
    /// cut to its first and last 100 characters with the right count between them, at most
    /// `MAX_ECHO_CHARS` characters in all; shortening again changes nothing.
    #[test]
    fn shorten_keeps_both_ends_and_counts_what_it_leaves_out() {
        let mut rng = Rng(0x5eed_0ec0);
        const CHARS: [char; 5] = ['a', 'é', '€', '𝄞', '"'];
        for len in (0..400).chain([1_000, 100_000]) {
            let chars: Vec<char> = (0..len).map(|_| *rng.pick(&CHARS)).collect();
            let text: String = chars.iter().collect();
            let short = shorten(text.clone());
            if len <= MAX_ECHO_CHARS {
                assert_eq!(short, text);
                continue;
            }
            let head: String = chars[..100].iter().collect();
            let tail: String = chars[len - 100..].iter().collect();
            let want = format!("{head} … ({} characters left out) … {tail}", len - 200);
            assert_eq!(short, want, "{len}");
            assert!(short.chars().count() <= MAX_ECHO_CHARS, "{len}");
            assert_eq!(shorten(short.clone()), short);
        }
    }

    #[test]
    fn depth_ignores_brackets_in_strings() {
        assert_eq!(nesting_depth(r#"{"a":[1,{"b":"[[[{{"}]}"#, 100), 3);
        assert_eq!(nesting_depth(r#""\"[""#, 100), 0);
        assert_eq!(nesting_depth("1", 100), 0);
        let deep = "[".repeat(10_000);
        assert_eq!(nesting_depth(&deep, 64), 65);
    }

    /// The scan byte by byte, as `nesting_depth` made it before it skipped strings by words.
    fn byte_by_byte(text: &str, stop_above: usize) -> usize {
        let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
        for b in text.bytes() {
            if in_string {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > max {
                        max = depth;
                        if max > stop_above {
                            return max;
                        }
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        max
    }

    #[test]
    fn long_strings_are_skipped_as_a_byte_scan_skips_them() {
        // Quotes, escapes and brackets at every offset of an eight-byte word, in strings and
        // out, closed and not, and in long strings (many words), with multibyte characters.
        let pieces = [
            r#"\""#,
            r#"\\"#,
            "[",
            "]",
            "{",
            "}",
            r#"""#,
            "x",
            "é",
            r#"\u005b"#,
            ",",
            ":",
            "\\\\",
        ];
        let mut texts = Vec::new();
        for pad in 0..17 {
            for (i, a) in pieces.iter().enumerate() {
                for b in &pieces[i..] {
                    let fill = "y".repeat(pad);
                    texts.push(format!(
                        r#"{{"s":"{fill}{a}{fill}{b}","t":[{{"u":"{a}"}}]}}"#
                    ));
                    texts.push(format!(r#"[["{fill}{a}{b}{fill}"],{{"#));
                    texts.push(format!(r#"{{"s":"{fill}{a}"#));
                }
            }
        }
        texts.push(format!(r#"{{"a":"{}","b":[[1]]}}"#, "z".repeat(1 << 16)));
        texts.push(format!(r#"{{"a":"{}\"[[[","b":[[1]]}}"#, "z".repeat(4099)));
        for t in &texts {
            for stop in [0, 1, 2, 64] {
                assert_eq!(
                    nesting_depth(t, stop),
                    byte_by_byte(t, stop),
                    "{t:?} stop {stop}"
                );
            }
        }
    }
}

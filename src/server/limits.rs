//! Configurable limits on what a peer may send, and the cheap pre-parse checks.

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
    /// Bytes of JSON text the waiting requests of a session may hold together; a request
    /// that would go past it is refused (-32600) like one past `max_queued`. A batch's
    /// requests count its text shared evenly.
    pub max_queued_bytes: usize,
    /// Messages in one batch (2025-03-26 only).
    pub max_batch_len: usize,
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
        }
    }
}

/// The deepest array/object nesting in `text`, scanning at most until `stop_above` is
/// exceeded. Strings (with escapes) are skipped. Runs before parsing, so hostile input
/// never reaches a recursive parser.
pub fn nesting_depth(text: &str, stop_above: usize) -> usize {
    let mut depth = 0usize;
    let mut max = 0usize;
    let mut in_string = false;
    let mut escaped = false;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_ignores_brackets_in_strings() {
        assert_eq!(nesting_depth(r#"{"a":[1,{"b":"[[[{{"}]}"#, 100), 3);
        assert_eq!(nesting_depth(r#""\"[""#, 100), 0);
        assert_eq!(nesting_depth("1", 100), 0);
        let deep = "[".repeat(10_000);
        assert_eq!(nesting_depth(&deep, 64), 65);
    }
}

//! Scans of JSON text that make no value: where a value or a string ends, where whitespace
//! does, and how many values a text holds. The readers of values (`values`), of messages
//! (`jsonrpc`) and of schemas' instances from their text (`server::plain_schema`) share them,
//! and they depend on nothing.

/// The index of the first `"` or `\` in `bytes` at `from` or after (`from` itself when it is
/// past the end; `bytes.len()` when there is none): eight bytes a step while none of them is
/// either (a word has a byte equal to `b` when `w ^ (b * 0x01…01)` has a zero byte).
fn quote_or_backslash(bytes: &[u8], from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |w: u64| w.wrapping_sub(ONES) & !w & HIGH != 0;
    let Some(rest) = bytes.get(from..) else {
        return from;
    };
    let mut i = from;
    for chunk in rest.chunks_exact(8) {
        let w = u64::from_le_bytes([
            chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7],
        ]);
        if has_zero(w ^ (ONES * u64::from(b'"'))) || has_zero(w ^ (ONES * u64::from(b'\\'))) {
            break;
        }
        i += 8;
    }
    while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\\' {
        i += 1;
    }
    i
}

/// The index just past the JSON string whose opening quote is `bytes[start]`, past each escape
/// (its text is not checked); `None` when it does not end.
pub(crate) fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    loop {
        i = quote_or_backslash(bytes, i);
        match bytes.get(i)? {
            b'\\' => i += 2,
            _ => return Some(i + 1),
        }
    }
}

/// The index of the first byte at or after `i` that is not JSON whitespace.
pub(crate) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The index just past the JSON value starting at `b[start]` (brackets counted, strings
/// skipped; not validated).
pub(crate) fn value_end(b: &[u8], start: usize) -> Option<usize> {
    match b.get(start)? {
        b'"' => string_end(b, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = start;
            while i < b.len() {
                match b[i] {
                    b'"' => {
                        i = string_end(b, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let mut i = start;
            while i < b.len() && !matches!(b[i], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                i += 1;
            }
            Some(i)
        }
    }
}

/// Whether the JSON text `b` holds more than `limit` values (scalars, arrays and objects, as
/// [`Counted`](super::values::Counted) counts them as it reads), found by a scan that makes
/// none: a value is the text's first, follows a comma, or is a container's first item or
/// member. Text that is not JSON is counted the same way, by its commas and brackets outside
/// strings, but never as more values than it has bytes (as JSON's values each take one at
/// least): text no longer than `limit` is not scanned, so that an everyday message's reading
/// asks only its length. (Inlined, and the scan never: it is in the core's deferred module,
/// not its first; a long message that comes before that module has arrived reads it at once,
/// as anything of it needed early does.)
#[inline(always)]
pub(crate) fn holds_more_values(b: &[u8], limit: usize) -> bool {
    b.len() > limit && counts_past(b, limit)
}

/// [`holds_more_values`]'s scan.
#[inline(never)]
fn counts_past(b: &[u8], limit: usize) -> bool {
    let mut count = usize::from(skip_ws(b, 0) < b.len());
    let mut i = 0;
    while i < b.len() && count <= limit {
        match b[i] {
            b'"' => match string_end(b, i) {
                Some(end) => {
                    i = end;
                    continue;
                }
                None => break,
            },
            b',' => count += 1,
            b'{' | b'[' if !matches!(b.get(skip_ws(b, i + 1)), Some(b'}' | b']')) => count += 1,
            _ => {}
        }
        i += 1;
    }
    count > limit
}

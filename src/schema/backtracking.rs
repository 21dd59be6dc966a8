//! Which schemas have a pattern the crate runs by backtracking.
//!
//! The `jsonschema` crate runs a pattern with a lookaround or a backreference on
//! `fancy-regex`'s backtracking engine, which stops each match at 1,000,000 steps (about 35 ms
//! in Chromium) but keeps no count across matches; and its report of an instance's violations
//! checks every part of it before the first is yielded. An agent's array of strings that each
//! take nearly the limit to fail (50 strings of 18 characters against `^(a|a)+\1$`: 1.6 s in
//! the page; 2,000, at that rate, about a minute) is then checked whole. For such a schema
//! [`super::JsonSchema`] reports the first violation only, from the crate's check that stops
//! there: one string's limit, whatever the array holds.
//!
//! The test is on the schema's text: any string or member name with `(?=`, `(?!`, `(?<=`,
//! `(?<!`, `\k<` or a backslash before a digit 1–9. It may find one where no pattern is (a
//! description quoting one); the report is then shorter, never wrong.

/// Whether `s` has a lookaround's or a backreference's syntax (the compiler asks it of every
/// string and member name of a document, `super::compiler::Holds`).
pub fn fancy(s: &str) -> bool {
    ["(?=", "(?!", "(?<=", "(?<!", "\\k<"]
        .iter()
        .any(|p| s.contains(p))
        || s.as_bytes()
            .windows(2)
            .any(|w| w[0] == b'\\' && (b'1'..=b'9').contains(&w[1]))
}

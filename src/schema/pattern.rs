//! `pattern` for the `jsonschema` crate, with one time budget for the matches of an instance.
//!
//! The crate runs a pattern with a lookaround or a backreference on `fancy-regex`'s
//! backtracking engine, which stops each match at 1,000,000 steps (about 35 ms in Chromium)
//! but keeps no count across matches. An agent's array of strings that each take many steps
//! to *match* passes the check string by string: sixteen `a`s against
//! `^(?:(a|a)+\1x|a+)$` take about 12 ms each in the validator module under V8, so 2,000 such
//! strings held the page for some 24 s, and a 4 MiB message holds 200,000. (Strings that fail
//! are already bounded: such a schema is reported to its first violation,
//! [`super::backtracking`].)
//!
//! For a schema with such a pattern, this keyword takes the crate's place and times every
//! match of the instance being checked with one clock: once [`BUDGET_MS`] of matching is
//! spent, every later match fails at once, and so does the instance, whatever keyword around
//! the pattern would have turned a failed match into success (`not`, `anyOf`):
//! [`begin`] starts an instance's budget and [`ran_out`] tells the caller it was spent or a
//! match hit its step limit, so the instance is then invalid. The clock is the page's
//! (`performance.now()`, an import of the validator module's own, `clock.now`), or the
//! system's natively.
//!
//! Where a pattern is only a regular one (no lookaround, no backreference), `fancy-regex`
//! hands it to the `regex` crate, which runs in time linear in the string, as the crate does
//! for such a schema. `patternProperties` (and `additionalProperties` beside it) still run
//! the crate's own matching, bounded per member name.

use jsonschema::{Keyword, ValidationError};
use serde_json::{Map, Value};
use std::cell::Cell;

/// The keyword this module replaces.
pub const NAME: &str = "pattern";

/// How long the matches of backtracking patterns may take, together, for one check of an
/// instance: past it the instance is invalid. Half a second, since the engine checks a refused
/// instance twice (whether it is valid, from its text, then why not, from its value), so a
/// refused call costs up to a second. A legitimate instance's matches take a small part of it:
/// a lookahead such as a password rule's matches a short string in microseconds.
pub const BUDGET_MS: f64 = 500.0;

/// `fancy-regex`'s limit for one match, as the crate leaves it (its default).
const STEP_LIMIT: usize = 1_000_000;

thread_local! {
    /// When the instance's budget runs out (ms on [`now`]'s clock).
    static DEADLINE: Cell<f64> = const { Cell::new(f64::INFINITY) };
    /// Why a match of this instance could not be run or finished, if one could not.
    static RAN_OUT: Cell<Option<RanOut>> = const { Cell::new(None) };
}

/// Starts the budget of one instance's check.
pub fn begin() {
    DEADLINE.with(|d| d.set(now() + BUDGET_MS));
    RAN_OUT.with(|r| r.set(None));
}

/// Why a match gave no answer.
#[derive(Clone, Copy)]
enum RanOut {
    /// The instance's [`BUDGET_MS`] was spent.
    Budget,
    /// One match took more than [`STEP_LIMIT`] steps.
    Steps,
}

/// Records why a match gave no answer (the first reason stays).
fn give_up(why: RanOut) {
    RAN_OUT.with(|r| {
        if r.get().is_none() {
            r.set(Some(why));
        }
    });
}

/// Whether a match since [`begin`] was refused (the budget was spent) or stopped at its step
/// limit: the instance's check is then no answer, and the instance invalid.
pub fn ran_out() -> bool {
    RAN_OUT.with(Cell::get).is_some()
}

/// The message of the violation an instance whose matches [`ran_out`] gets.
pub fn ran_out_message() -> String {
    match RAN_OUT.with(Cell::get) {
        Some(RanOut::Steps) => format!(
            "Error executing regex: a match took more than {STEP_LIMIT} steps of backtracking"
        ),
        _ => format!(
            "Error executing regex: the patterns that backtrack took more than {BUDGET_MS} ms \
             for this instance"
        ),
    }
}

/// A compiled `pattern`.
struct Pattern {
    regex: fancy_regex::Regex,
    source: String,
}

impl Pattern {
    /// Whether `text` matches, within the budget (`None`: not decided).
    fn matches(&self, text: &str) -> Option<bool> {
        let deadline = DEADLINE.with(Cell::get);
        if ran_out() || now() > deadline {
            give_up(RanOut::Budget);
            return None;
        }
        let outcome = self.regex.is_match(text).ok();
        if outcome.is_none() {
            give_up(RanOut::Steps);
        } else if now() > deadline {
            give_up(RanOut::Budget);
        }
        outcome
    }
}

impl<'i> Keyword<'i> for Pattern {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        let Value::String(text) = instance else {
            return Ok(());
        };
        match self.matches(text) {
            Some(true) => Ok(()),
            // The crate's wording.
            Some(false) => Err(ValidationError::custom(format!(
                "{instance} does not match \"{}\"",
                self.source
            ))),
            None => Err(ValidationError::custom(ran_out_message())),
        }
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        match instance {
            Value::String(text) => self.matches(text) == Some(true),
            _ => true,
        }
    }
}

/// The factory [`jsonschema::ValidationOptions::with_keyword`] takes for [`NAME`].
///
/// # Errors
///
/// The pattern is not a string, or not a regular expression the crate accepts (the
/// meta-schema's check before any keyword is compiled refuses a pattern that is not a
/// string; the crate's own translation of ECMA-262 syntax decides the rest).
pub fn factory<'a>(
    _: &'a Map<String, Value>,
    value: &'a Value,
    _: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> Keyword<'i>>, ValidationError<'a>> {
    let Value::String(source) = value else {
        return Err(ValidationError::custom(format!(
            "{value} is not of type \"string\""
        )));
    };
    let regex = jsonschema_regex::to_rust_regex(source)
        .ok()
        .and_then(|translated| {
            fancy_regex::RegexBuilder::new(&translated)
                .backtrack_limit(STEP_LIMIT)
                .build()
                .ok()
        })
        .ok_or_else(|| ValidationError::custom(format!("{value} is not a \"regex\"")))?;
    Ok(Box::new(Pattern {
        regex,
        source: source.clone(),
    }))
}

/// Milliseconds on a monotonic clock: the page's `performance.now()` in the validator module,
/// the system's natively.
#[cfg(not(target_arch = "wasm32"))]
fn now() -> f64 {
    thread_local! {
        static START: std::time::Instant = std::time::Instant::now();
    }
    START.with(|s| s.elapsed().as_secs_f64() * 1000.0)
}

/// Milliseconds on a monotonic clock: the page's `performance.now()` in the validator module,
/// the system's natively.
#[cfg(all(target_arch = "wasm32", feature = "validator-module"))]
fn now() -> f64 {
    #[link(wasm_import_module = "clock")]
    extern "C" {
        /// `performance.now()` (polyfill/src/validator.js provides it).
        #[link_name = "now"]
        fn performance_now() -> f64;
    }
    // SAFETY: an import that takes nothing and returns a number.
    unsafe { performance_now() }
}

/// Milliseconds on a monotonic clock: `Date.now()` in a wasm-bindgen build with the validator
/// inside (the wasm tests' default features).
#[cfg(all(
    target_arch = "wasm32",
    not(feature = "validator-module"),
    feature = "web"
))]
fn now() -> f64 {
    js_sys::Date::now()
}

/// No clock in a wasm32 build with neither the validator module's import nor wasm-bindgen:
/// only the step limit bounds a match there.
#[cfg(all(
    target_arch = "wasm32",
    not(feature = "validator-module"),
    not(feature = "web")
))]
fn now() -> f64 {
    0.0
}

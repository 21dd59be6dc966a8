//! What every transport checks before a message reaches the engine: which origins may talk
//! (where a Window is a peer), how large a message may be, and how fast a peer may send.
//!
//! Options read here (all optional, on any transport's options):
//! - `rateLimit: { messages, perMs } | false` — a token bucket per peer; default 200 per
//!   1000 ms. Past it, messages are dropped (requests answered with a JSON-RPC error), with
//!   one console warning per burst.
//! - `maxMessageBytes` — the largest message accepted, in bytes of JSON text; default (and
//!   ceiling) the engine's `limits.max_message_bytes`. Larger messages are answered with an
//!   error when their id is readable, else dropped.
//! - `onOriginViolation(origin)` — called for each message from the expected peer window
//!   but a refused origin.

use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::jsio;
use crate::browser::js;
pub use crate::transport::tab::AllowedOrigins;

/// A token-bucket rate: `messages` per `per_ms` milliseconds (also the burst size).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateLimit {
    pub messages: f64,
    pub per_ms: f64,
}

impl RateLimit {
    pub const DEFAULT: RateLimit = RateLimit {
        messages: 200.0,
        per_ms: 1000.0,
    };
}

/// The security options every transport shares.
#[derive(Clone, Debug)]
pub struct Security {
    pub rate: Option<RateLimit>,
    pub max_bytes: Option<usize>,
    pub on_violation: Option<Function>,
}

impl Default for Security {
    fn default() -> Self {
        Security {
            rate: Some(RateLimit::DEFAULT),
            max_bytes: None,
            on_violation: None,
        }
    }
}

fn positive(v: &JsValue, what: &str) -> Result<f64, JsValue> {
    match v.as_f64() {
        Some(n) if n.is_finite() && n > 0.0 => Ok(n),
        _ => Err(js::type_error(&format!(
            "{what} must be a positive number, got {}",
            js::to_dom_string(v).unwrap_or_default()
        ))),
    }
}

impl Security {
    /// Reads `rateLimit`, `maxMessageBytes` and `onOriginViolation` from `opts`; `ctx`
    /// names the options object in error messages (e.g. `connect(options): options.transport`).
    pub fn from_js(opts: &JsValue, ctx: &str) -> Result<Security, JsValue> {
        let mut s = Security::default();
        let rate = js::get(opts, "rateLimit")?;
        if rate == JsValue::FALSE || rate.is_null() {
            s.rate = None;
        } else if !rate.is_undefined() {
            if !rate.is_object() {
                return Err(js::type_error(&format!(
                    "{ctx}.rateLimit must be {{ messages, perMs }} or false"
                )));
            }
            let messages = js::get(&rate, "messages")?;
            let per_ms = js::get(&rate, "perMs")?;
            s.rate = Some(RateLimit {
                messages: if messages.is_undefined() {
                    RateLimit::DEFAULT.messages
                } else {
                    positive(&messages, &format!("{ctx}.rateLimit.messages"))?
                },
                per_ms: if per_ms.is_undefined() {
                    RateLimit::DEFAULT.per_ms
                } else {
                    positive(&per_ms, &format!("{ctx}.rateLimit.perMs"))?
                },
            });
        }
        let max = js::get(opts, "maxMessageBytes")?;
        if !max.is_undefined() {
            s.max_bytes = Some(positive(&max, &format!("{ctx}.maxMessageBytes"))? as usize);
        }
        let cb = js::get(opts, "onOriginViolation")?;
        if !cb.is_undefined() && !cb.is_null() {
            s.on_violation = Some(cb.dyn_into().map_err(|_| {
                js::type_error(&format!("{ctx}.onOriginViolation must be a function"))
            })?);
        }
        Ok(s)
    }

    /// Tells the page a message came from a refused origin.
    pub fn violation(&self, origin: &str) {
        if let Some(cb) = &self.on_violation {
            jsio::invoke(cb, &JsValue::from_str(origin));
        }
    }
}

/// Reads an origin allow-list option (`'https://a.example'`, `['https://a', …]` or `'*'`).
/// `None` when the option is absent. `'*'` draws a console warning naming `kind`.
pub fn origins_from_js(
    v: &JsValue,
    what: &str,
    kind: &str,
) -> Result<Option<AllowedOrigins>, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    let list: Vec<String> = if let Some(s) = v.as_string() {
        vec![s]
    } else if js_sys::Array::is_array(v) {
        js_sys::Array::from(v)
            .iter()
            .map(|x| {
                x.as_string()
                    .ok_or_else(|| js::type_error(&format!("{what} must hold origin strings")))
            })
            .collect::<Result<_, _>>()?
    } else {
        return Err(js::type_error(&format!(
            "{what} must be an origin string, an array of them, or '*'"
        )));
    };
    if list.is_empty() {
        return Err(js::type_error(&format!(
            "{what} must name at least one origin"
        )));
    }
    if list.iter().any(|o| o == "*") {
        js::warn(&format!(
            "modelcontext-polyfill: the {kind} transport accepts messages from any origin ('*'); \
             name the origins you trust instead"
        ));
        return Ok(Some(AllowedOrigins::Any));
    }
    for o in &list {
        if o != "null" && !o.contains("://") {
            return Err(js::type_error(&format!(
                "{what}: {o:?} is not an origin (expected e.g. \"https://example.com\")"
            )));
        }
    }
    Ok(Some(AllowedOrigins::List(list)))
}

/// The `targetOrigin` to answer a peer whose messages come from `origin`: that origin, or
/// `'*'` for opaque origins (`"null"`, which `postMessage` cannot name), which reach this
/// point only when the allow-list admits them.
pub fn reply_origin(origin: &str) -> String {
    if origin == "null" || origin.is_empty() {
        "*".into()
    } else {
        origin.to_string()
    }
}

/// A per-peer token bucket.
#[derive(Clone, Debug)]
pub struct Bucket {
    tokens: f64,
    last: f64,
    /// Inside a burst past the limit (warned already).
    limited: bool,
}

/// What [`Bucket::take`] decided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Admit {
    Yes,
    /// Dropped; the first drop of a burst (warn now).
    NoWarn,
    /// Dropped, later in the same burst.
    No,
}

impl Bucket {
    pub fn new(rate: &RateLimit, now: f64) -> Bucket {
        Bucket {
            tokens: rate.messages,
            last: now,
            limited: false,
        }
    }

    pub fn take(&mut self, rate: &RateLimit, now: f64) -> Admit {
        let elapsed = (now - self.last).max(0.0);
        self.last = now;
        self.tokens = (self.tokens + elapsed * rate.messages / rate.per_ms).min(rate.messages);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            self.limited = false;
            Admit::Yes
        } else if self.limited {
            Admit::No
        } else {
            self.limited = true;
            Admit::NoWarn
        }
    }
}

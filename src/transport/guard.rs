//! What every transport checks before a message reaches the engine: which origins may talk
//! (where a Window is a peer), how large a message may be, and how fast a peer may send.
//!
//! Options read here (all optional, on any transport's options):
//! - `rateLimit: { messages, perMs } | false` — a token bucket per peer. Past it, messages
//!   are dropped (requests answered with a JSON-RPC error), with one console warning per
//!   burst. The default depends on who the peer can be ([`Security::limited_by_default`]):
//!   none for the page's own window and the peers it created or chose on its own origin
//!   (the tab and event transports, a Worker or MessagePort, a same-origin frame), where a
//!   limit would only refuse a legitimate agent; 200 per 1000 ms where a peer could do harm
//!   (a cross-origin frame or window, other tabs on a BroadcastChannel, an extension port).
//! - `maxMessageBytes` — the largest message accepted, in bytes of JSON text; default (and
//!   ceiling) the engine's `limits.max_message_bytes`. Larger messages are answered with an
//!   error when their id is readable, else dropped; they are measured before being copied
//!   into wasm memory ([`message_text`]), so a refused message never grows it.
//! - `onOriginViolation(origin)` — called for each message from the expected peer window
//!   but a refused origin.
//! - `maxInFlight`, `maxQueued`, `maxQueuedBytes` — the in-flight cap and the queue behind
//!   it for this transport's sessions; default the engine's (`modelContextPolyfillConfig.limits`).
//!   A transport whose peers could do harm can be given less than the page's own clients.

use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::js;
use crate::protocol::jsonrpc;
use crate::protocol::RequestId;
use crate::server::held;
use crate::server::{HeldArguments, HeldText, Limits, ServerError};
use std::rc::Rc;

/// Which origins may talk to a server.
#[derive(Clone, Debug, PartialEq)]
pub enum AllowedOrigins {
    /// Any origin (`'*'`, asked for explicitly).
    Any,
    /// Exactly these origins.
    List(Vec<String>),
}

impl AllowedOrigins {
    /// Whether a message from `origin` is admitted.
    pub fn allows(&self, origin: &str) -> bool {
        match self {
            AllowedOrigins::Any => true,
            AllowedOrigins::List(l) => l.iter().any(|o| o == origin),
        }
    }
}

/// A token-bucket rate: `messages` per `per_ms` milliseconds (also the burst size).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateLimit {
    /// Messages a bucket holds: the burst size.
    pub messages: f64,
    /// Milliseconds in which a bucket refills `messages`.
    pub per_ms: f64,
}

impl RateLimit {
    /// 200 messages a second: the limit of a transport whose peer may be hostile.
    pub const DEFAULT: RateLimit = RateLimit {
        messages: 200.0,
        per_ms: 1000.0,
    };
}

/// The security options every transport shares.
#[derive(Clone, Debug, Default)]
pub struct Security {
    /// `rateLimit`: `None` for no limit.
    pub rate: Option<RateLimit>,
    /// `rateLimit` was given (a limit or `false`): the transport's default does not apply.
    pub rate_given: bool,
    /// `maxMessageBytes`: a larger message is refused (the engine's limit when `None`).
    pub max_bytes: Option<usize>,
    /// `onOriginViolation`: called with the origin of each message refused for it.
    pub on_violation: Option<Function>,
    /// `maxInFlight`: handler-running requests a session runs at once.
    pub max_in_flight: Option<usize>,
    /// `maxQueued`: requests a session keeps waiting past them (0: none).
    pub max_queued: Option<usize>,
    /// `maxQueuedBytes`: the bytes the waiting requests may keep (`Limits::max_queued_bytes`).
    pub max_queued_bytes: Option<usize>,
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

/// An optional whole-number option: positive, or also 0 when `zero` is allowed.
fn count(
    opts: &JsValue,
    key: &'static str,
    ctx: &str,
    zero: bool,
) -> Result<Option<usize>, JsValue> {
    let v = js::get(opts, key)?;
    if v.is_undefined() {
        return Ok(None);
    }
    match v.as_f64() {
        Some(n) if n.is_finite() && n.fract() == 0.0 && (n >= 1.0 || (zero && n == 0.0)) => {
            Ok(Some(n as usize))
        }
        _ => Err(js::type_error(&format!(
            "{ctx}.{key} must be a {} integer, got {}",
            if zero { "non-negative" } else { "positive" },
            js::to_dom_string(&v).unwrap_or_default()
        ))),
    }
}

impl Security {
    /// `engine`'s limits with this transport's `maxInFlight`, `maxQueued` and
    /// `maxQueuedBytes` in place of the engine's.
    pub fn session_limits(&self, engine: &Limits) -> Limits {
        Limits {
            max_in_flight: self.max_in_flight.unwrap_or(engine.max_in_flight),
            max_queued: self.max_queued.unwrap_or(engine.max_queued),
            max_queued_bytes: self.max_queued_bytes.unwrap_or(engine.max_queued_bytes),
            ..engine.clone()
        }
    }

    /// Reads `rateLimit`, `maxMessageBytes` and `onOriginViolation` from `opts`; `ctx`
    /// names the options object in error messages (e.g. `connect(options): options.transport`).
    pub fn from_js(opts: &JsValue, ctx: &str) -> Result<Security, JsValue> {
        let mut s = Security::default();
        let rate = js::get(opts, "rateLimit")?;
        s.rate_given = !rate.is_undefined();
        if rate == JsValue::FALSE || rate.is_null() {
            s.rate = None;
        } else if !rate.is_undefined() {
            if !rate.is_object() {
                return Err(js::option_error(
                    ctx,
                    ".rateLimit must be { messages, perMs } or false",
                ));
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
        s.max_in_flight = count(opts, "maxInFlight", ctx, false)?;
        s.max_queued = count(opts, "maxQueued", ctx, true)?;
        s.max_queued_bytes = count(opts, "maxQueuedBytes", ctx, false)?;
        let cb = js::get(opts, "onOriginViolation")?;
        if !cb.is_undefined() && !cb.is_null() {
            s.on_violation = Some(
                cb.dyn_into()
                    .map_err(|_| js::option_error(ctx, ".onOriginViolation must be a function"))?,
            );
        }
        Ok(s)
    }

    /// Applies the default rate limit ([`RateLimit::DEFAULT`]) when `rateLimit` was not
    /// given and the transport's peer could do harm (`risky`: see the module docs); no
    /// default limit otherwise.
    pub fn limited_by_default(mut self, risky: bool) -> Security {
        if !self.rate_given && risky {
            self.rate = Some(RateLimit::DEFAULT);
        }
        self
    }

    /// Tells the page a message came from a refused origin.
    pub fn violation(&self, origin: &str) {
        if let Some(cb) = &self.on_violation {
            js::invoke(cb, &JsValue::from_str(origin));
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
                    .ok_or_else(|| js::option_error(what, " must hold origin strings"))
            })
            .collect::<Result<_, _>>()?
    } else {
        return Err(js::option_error(
            what,
            " must be an origin string, an array of them, or '*'",
        ));
    };
    if list.is_empty() {
        return Err(js::option_error(what, " must name at least one origin"));
    }
    if list.iter().any(|o| o == "*") {
        js::warn(&format!(
            "modelcontext-polyfill: the {kind} transport accepts messages from any origin ('*'); \
             name the origins you trust instead"
        ));
        return Ok(Some(AllowedOrigins::Any));
    }
    for o in &list {
        // (A scan for the three bytes: `str::contains` brings the two-way string searcher into
        // the core's first module, which parses these at the start.)
        if o != "null" && !o.as_bytes().windows(3).any(|w| w == b"://") {
            return Err(js::type_error(&format!(
                "{what}: {o:?} is not an origin (expected e.g. \"https://example.com\")"
            )));
        }
    }
    Ok(Some(AllowedOrigins::List(list)))
}

/// Whether an allow-list admits a peer on an origin other than the page's own (`'*'`
/// included): such a peer is not one the page itself runs, so limits apply by default.
pub fn admits_foreign(allowed: &AllowedOrigins) -> bool {
    match allowed {
        AllowedOrigins::Any => true,
        AllowedOrigins::List(l) => {
            let own = js::own_origin();
            l.iter().any(|o| *o != own)
        }
    }
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
    /// Admitted.
    Yes,
    /// Dropped; the first drop of a burst (warn now).
    NoWarn,
    /// Dropped, later in the same burst.
    No,
}

impl Bucket {
    /// A full bucket.
    pub fn new(rate: &RateLimit, now: f64) -> Bucket {
        Bucket {
            tokens: rate.messages,
            last: now,
            limited: false,
        }
    }

    /// Refills for the time since the last message, then takes a token for this one.
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

/// A request id read from a JS message without parsing it further.
pub fn request_id(payload: &JsValue) -> Option<RequestId> {
    request_id_of(&js::get(payload, "id").ok()?)
}

/// [`request_id`] of a message's `id` member, already read.
pub fn request_id_of(id: &JsValue) -> Option<RequestId> {
    if let Some(s) = id.as_string() {
        return Some(RequestId::String(s));
    }
    let n = id.as_f64()?;
    (n.is_finite() && n.fract() == 0.0 && n.abs() < 9.0e15).then_some(RequestId::Number(n as i64))
}

/// The console warning for the first message a rate limit drops in a burst.
pub fn warn_dropping(label: &str, peer: &str, rate: &RateLimit) {
    js::warn(&format!(
        "modelcontext-polyfill: the {label} transport is dropping messages from {peer}: \
         more than {} in {} ms (rateLimit)",
        rate.messages, rate.per_ms
    ));
}

/// Why a message has no JSON text to hand to the engine ([`message_text`]'s error).
pub enum Unread {
    /// Over the limit; the size in bytes (at least this: a refused message is measured
    /// without copying it, in UTF-16 code units, each at least one UTF-8 byte).
    TooBig(usize),
    /// No JSON representation (`JSON.stringify` gave `undefined`): a function, a symbol…
    NotJson,
    /// Serializing threw (a cycle, a BigInt, a throwing `toJSON`, a string past the
    /// engine's maximum length); the exception.
    Threw(JsValue),
}

thread_local! {
    /// `polyfill/src/message_text.js`'s `__mcpMessageText`, set by [`use_message_text`].
    static MESSAGE_TEXT: js::Helper = const { js::Helper::new("messageText") };
}

/// Takes the measuring function from the engine's `config.messageText` (the core's
/// `__mcpMessageText`); the engine cannot be made without it.
pub fn use_message_text(config: &JsValue) -> Result<(), JsValue> {
    MESSAGE_TEXT.with(|m| m.require(config))
}

/// Measures `payload` and, when it fits, returns its JSON text. The measuring is
/// `__mcpMessageText`'s (`polyfill/src/message_text.js`), in JS, in one call: a message whose
/// first few values already hold more than `max` characters of strings is refused without
/// serializing it at all (a huge argument costs no second copy); otherwise it is serialized
/// with `JSON.stringify` (the text stays in the JS heap) and measured before it is copied
/// into wasm memory: past `max` bytes it is refused uncopied, so wasm memory (which never
/// shrinks) stays bounded by the configured limit whatever peers send.
///
/// A `tools/call` whose arguments hold long strings comes with them held out of its text
/// (`server::held::HeldArguments`): `__mcpMessageText` then gives `[text, marker, string, …]`,
/// and the strings are the received message's ([`held::hold_received`]) for its `tools/call`
/// to take.
pub fn message_text(payload: &JsValue, max: usize) -> Result<String, Unread> {
    let measured = MESSAGE_TEXT
        .with(|m| m.call(|f| f.call2(&JsValue::UNDEFINED, payload, &JsValue::from(max as f64))));
    let measured = match measured {
        Ok(v) => v,
        Err(e) => return Err(Unread::Threw(e)),
    };
    // At most `max` code units, so at most 3 × max bytes are copied.
    if let Some(text) = measured.as_string() {
        return if text.len() > max {
            Err(Unread::TooBig(text.len()))
        } else {
            Ok(text)
        };
    }
    Err(match measured.as_f64() {
        Some(n) => Unread::TooBig(n as usize),
        None if measured.is_undefined() => Unread::NotJson,
        None => return Ok(with_held_arguments(&measured)),
    })
}

/// `__mcpMessageText`'s `[text, marker, string, …]`: the text (measured in JS, held strings
/// included), its held strings made the received message's. Apart from [`message_text`],
/// which an agent's discovery runs: only a `tools/call` holds anything.
#[inline(never)]
fn with_held_arguments(measured: &JsValue) -> String {
    let parts: &js_sys::Array = measured.unchecked_ref();
    let text = parts.get(0).as_string().unwrap_or_default();
    let texts = (1..parts.length())
        .step_by(2)
        .map(|i| {
            let marker = parts.get(i).as_string().unwrap_or_default();
            let held: Box<dyn HeldText> = Box::new(js::HeldString(parts.get(i + 1)));
            (marker, held)
        })
        .collect();
    held::hold_received(Rc::new(HeldArguments::new(texts)));
    text
}

/// The JSON-RPC error answering request `id` refused for exceeding a limit (-32600), as a
/// value: [`limit_error`]'s, and what stands for a client's answer refused so.
pub fn limit_failure(
    id: &RequestId,
    what: &'static str,
    limit: usize,
    actual: Option<usize>,
) -> serde_json::Value {
    let e = ServerError::LimitExceeded {
        what,
        limit,
        actual,
    };
    jsonrpc::failure(Some(id), e.to_error_object(None))
}

/// [`limit_failure`] as a JS object, to post.
pub fn limit_error(
    id: &RequestId,
    what: &'static str,
    limit: usize,
    actual: Option<usize>,
) -> JsValue {
    js::from_json(&limit_failure(id, what, limit, actual))
}

/// Answers an oversized request (`payload`: a method and an id) with a -32600 error naming
/// the limit; an oversized notification or response is dropped.
pub fn refuse_oversize(payload: &JsValue, max: usize, actual: usize, reply: impl Fn(&JsValue)) {
    if let Some(id) = request_of(payload) {
        reply(&limit_error(
            &id,
            "Message size in bytes",
            max,
            Some(actual),
        ));
    }
}

/// The id of `payload` when it is a request (a method and an id; not a batch).
pub fn request_of(payload: &JsValue) -> Option<RequestId> {
    if !payload.is_object() || js_sys::Array::is_array(payload) {
        return None;
    }
    js::get(payload, "method").ok()?.as_string()?;
    request_id(payload)
}

/// The id of `payload` when it is a client's answer (no method, a `result` or an `error`, an
/// id; not a batch): [`request_of`]'s counterpart.
pub fn answer_of(payload: &JsValue) -> Option<RequestId> {
    if !payload.is_object() || js_sys::Array::is_array(payload) {
        return None;
    }
    let has = |k: &'static str| js::get(payload, k).is_ok_and(|v| !v.is_undefined());
    if has("method") || !(has("result") || has("error")) {
        return None;
    }
    request_id(payload)
}

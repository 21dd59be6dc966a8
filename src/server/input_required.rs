//! Input-required results (multi-round-trip requests, SEP-2322; protocol 2026-07-28).
//!
//! A handler that needs something from the client — an elicitation, a sampling, the client's
//! roots — returns an `InputRequiredResult`:
//!
//! ```json
//! { "resultType": "input_required",
//!   "inputRequests": { "<key>": { "method": "elicitation/create", "params": { … } } },
//!   "requestState": "<opaque>" }
//! ```
//!
//! and the client retries the same request with `inputResponses` (`<key>` → the result of that
//! request) and the `requestState` it was given. Only `tools/call`, `prompts/get` and
//! `resources/read` may answer this way. What the engine adds around handlers:
//!
//! - the retry's `inputResponses` (an object of result objects) and `requestState` (a string)
//!   are read strictly — anything else is `-32602` — and handed to the handler through its
//!   [`RequestContext`] ([`RequestContext::input_responses`], [`RequestContext::request_state`]);
//! - `requestState` leaves signed (HMAC-SHA-256 under a per-server key, see
//!   [`super::Server::set_state_key`]) and comes back verified: a tampered or foreign state is
//!   `-32602`, and the handler sees exactly the string it wrote;
//! - an input request for a method whose capability the client did not declare is
//!   `-32021` MissingRequiredClientCapability, listing what is missing (nothing is sent);
//! - in the handshake era (≤ 2025-11-25), which has no input-required results, the engine asks
//!   the client itself with server-to-client requests and calls the handler again with the
//!   answers, so one handler serves both eras.

use crate::server::limits::quote;
use serde_json::{json, Map, Value};
use std::cell::RefCell;

use super::context::RequestContext;
use super::crypto::{base64url_decode, base64url_encode, hex, hmac_sha256};
use super::error::ServerError;
use super::futures::join_all;
use super::runtime::LocalBoxFuture;

/// The `resultType` of an input-required result.
pub const INPUT_REQUIRED: &str = "input_required";

/// How many rounds the engine drives in the handshake era before it gives up on a handler
/// that keeps asking.
pub const MAX_ROUNDS: usize = 16;

/// The methods an input request may name, with the client capability each needs.
pub const INPUT_METHODS: [(&str, &str); 3] = [
    ("elicitation/create", "elicitation"),
    ("sampling/createMessage", "sampling"),
    ("roots/list", "roots"),
];

pub use super::context::Inputs;

/// A handler's input-required result, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct InputRequired {
    /// `key` → `{ method, params }`, in the handler's order.
    pub requests: Map<String, Value>,
    /// The state as the handler wrote it (unsigned).
    pub request_state: Option<String>,
}

/// Whether `v` is an input-required result (`resultType: "input_required"`).
pub fn is_input_required(v: &Value) -> bool {
    v.get("resultType").and_then(Value::as_str) == Some(INPUT_REQUIRED)
}

/// Checks a handler's input-required result. `Err` names what is malformed (a handler bug:
/// the caller reports it as an internal error).
pub fn parse_result(v: &Value) -> Result<InputRequired, String> {
    let requests = match v.get("inputRequests") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(o)) => o.clone(),
        Some(other) => {
            return Err(format!(
                "inputRequests must be an object, got {other}",
                other = quote(other)
            ))
        }
    };
    for (key, r) in &requests {
        let method = r
            .get("method")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("inputRequests[{key:?}] needs a string \"method\""))?;
        if !INPUT_METHODS.iter().any(|(m, _)| *m == method) {
            return Err(format!(
                "inputRequests[{key:?}]: {method:?} cannot be asked of a client (use one of {})",
                INPUT_METHODS.map(|(m, _)| m).join(", ")
            ));
        }
        if r.get("params").is_some_and(|p| !p.is_object()) {
            return Err(format!("inputRequests[{key:?}].params must be an object"));
        }
    }
    let request_state = match v.get("requestState") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err(format!(
                "requestState must be a string, got {other}",
                other = quote(other)
            ))
        }
    };
    if requests.is_empty() && request_state.is_none() {
        return Err("an input_required result needs inputRequests or requestState".into());
    }
    Ok(InputRequired {
        requests,
        request_state,
    })
}

/// Reads `inputResponses` and `requestState` from a request's params, verifying the state.
pub fn read_inputs(params: &Map<String, Value>, key: &StateKey) -> Result<Inputs, ServerError> {
    let responses = match params.get("inputResponses") {
        None => None,
        Some(Value::Object(o)) => {
            for (k, v) in o {
                if !v.is_object() {
                    return Err(ServerError::InvalidParams {
                        message: format!(
                            "inputResponses[{k:?}] must be the result object of the request it \
                             answers, got {v}",
                            v = quote(v)
                        ),
                        data: Some(json!({ "key": k })),
                    });
                }
            }
            Some(o.clone())
        }
        Some(other) => {
            return Err(ServerError::invalid_params(format!(
            "inputResponses must be an object mapping input request keys to results, got {other}",
            other = quote(other)
        )))
        }
    };
    let request_state = match params.get("requestState") {
        None => None,
        Some(Value::String(s)) => Some(key.verify(s).ok_or_else(|| {
            ServerError::invalid_params(
                "requestState failed its integrity check: it was not issued by this server \
                 or was altered",
            )
        })?),
        Some(other) => {
            return Err(ServerError::invalid_params(format!(
                "requestState must be the string the server sent, got {other}",
                other = quote(other)
            )))
        }
    };
    Ok(Inputs {
        responses,
        request_state,
    })
}

/// The client capabilities `ir`'s requests need that `caps` does not declare, as a
/// `ClientCapabilities` object (`None` when nothing is missing).
pub fn missing_capabilities(ir: &InputRequired, caps: &Value) -> Option<Value> {
    let mut missing = Map::new();
    for r in ir.requests.values() {
        let method = r.get("method").and_then(Value::as_str).unwrap_or_default();
        if let Some((_, cap)) = INPUT_METHODS.iter().find(|(m, _)| *m == method) {
            if caps.get(*cap).is_none() {
                missing.insert((*cap).to_string(), json!({}));
            }
        }
    }
    (!missing.is_empty()).then_some(Value::Object(missing))
}

/// The wire form of `ir` (2026-07-28): the state signed.
pub fn wire_result(ir: &InputRequired, key: &StateKey) -> Value {
    let mut out = Map::new();
    out.insert("resultType".into(), json!(INPUT_REQUIRED));
    if !ir.requests.is_empty() {
        out.insert("inputRequests".into(), Value::Object(ir.requests.clone()));
    }
    if let Some(s) = &ir.request_state {
        out.insert("requestState".into(), json!(key.sign(s)));
    }
    Value::Object(out)
}

/// What one run of a handler produced.
pub(crate) enum Round<T> {
    Done(T),
    Input(InputRequired),
}

/// Runs a handler until it is done: in the stateless era the first input-required result is
/// checked against the client's capabilities and returned (signed); in the handshake era the
/// engine asks the client for each input and runs the handler again with the answers, at most
/// [`MAX_ROUNDS`] times. `run` runs the handler once in a context; `failed` turns a failure
/// to obtain input into the handler's outcome (an `isError` tool result, or an error);
/// `done` makes the request's result of the outcome.
///
/// The future is the request's whole answer, so the method needs no block around it: a
/// block would keep what it captured beside this future, and this future is not an `async
/// fn`'s, which would keep each argument twice (as captured and as a local), for as long as
/// the request runs. The rare round that asks the client is a future of its own, allocated
/// only when needed.
#[allow(clippy::manual_async_fn)] // on purpose: see above
pub(crate) fn drive<T: 'static>(
    mut ctx: RequestContext,
    stateless: bool,
    key: StateKey,
    run: impl Fn(RequestContext) -> LocalBoxFuture<'static, Result<Round<T>, ServerError>>,
    failed: impl Fn(String) -> Result<T, ServerError>,
    done: impl Fn(T) -> Result<Value, ServerError>,
) -> impl std::future::Future<Output = Result<Value, ServerError>> {
    async move {
        for _ in 0..MAX_ROUNDS {
            let ir = match run(ctx.clone()).await? {
                Round::Done(v) => return done(v),
                Round::Input(ir) => ir,
            };
            if stateless {
                // 2026-07-28: the input-required result is the answer.
                if let Some(required) = missing_capabilities(&ir, ctx.client_capabilities()) {
                    return Err(ServerError::MissingClientCapability { required });
                }
                return Ok(wire_result(&ir, &key));
            }
            // The handshake era: ask the client ourselves.
            let InputRequired {
                requests,
                request_state,
            } = ir;
            let responses = match ask_client(&ctx, requests).await {
                Ok(responses) => responses,
                Err(message) => return failed(message).and_then(&done),
            };
            if ctx.is_cancelled() {
                return failed("The request was cancelled".into()).and_then(&done);
            }
            ctx.set_inputs(Inputs {
                responses: Some(responses),
                request_state,
            });
        }
        failed(format!(
            "The handler still asked for input after {MAX_ROUNDS} rounds"
        ))
        .and_then(&done)
    }
}

/// Sends each of a handler's input requests to the client at once; the answers by the
/// handler's keys, or why one could not be had.
fn ask_client(
    ctx: &RequestContext,
    requests: Map<String, Value>,
) -> LocalBoxFuture<'static, Result<Map<String, Value>, String>> {
    let asks: Vec<LocalBoxFuture<'static, Result<Value, String>>> = requests
        .iter()
        .map(|(k, r)| {
            let method = r["method"].as_str().unwrap_or_default().to_string();
            let fut = ctx.request(&method, r.get("params").cloned());
            let k = k.clone();
            Box::pin(async move {
                fut.await.map_err(|e| {
                    format!(
                        "Could not get input {k:?} ({method}) from the client: {}",
                        e.message
                    )
                })
            }) as LocalBoxFuture<'static, Result<Value, String>>
        })
        .collect();
    Box::pin(async move {
        let mut responses = Map::new();
        for ((k, _), answer) in requests.into_iter().zip(join_all(asks).await) {
            responses.insert(k, answer?);
        }
        Ok(responses)
    })
}

// ---- requestState integrity: HMAC-SHA-256 ([`super::crypto`]) ---------------------------

/// The key `requestState` is signed with. Each server has its own; the browser layer sets a
/// random one (`crypto.getRandomValues`), native hosts get one from the standard library's
/// per-process random hasher keys unless they set their own.
#[derive(Clone)]
pub struct StateKey(std::rc::Rc<RefCell<Vec<u8>>>);

impl Default for StateKey {
    fn default() -> Self {
        use std::collections::hash_map::RandomState;
        use std::hash::{BuildHasher, Hasher};
        let mut key = Vec::with_capacity(32);
        for i in 0u64..4 {
            let mut h = RandomState::new().build_hasher();
            h.write_u64(i);
            h.write_usize(&key as *const _ as usize);
            key.extend_from_slice(&h.finish().to_le_bytes());
        }
        StateKey(std::rc::Rc::new(RefCell::new(key)))
    }
}

impl StateKey {
    /// Replaces the key (the browser layer sets 32 random bytes).
    pub fn set(&self, key: &[u8]) {
        *self.0.borrow_mut() = key.to_vec();
    }

    /// HMAC-SHA-256 of `data` under this key (also what makes task ids unguessable).
    pub fn mac(&self, data: &[u8]) -> [u8; 32] {
        hmac_sha256(&self.0.borrow(), data)
    }

    /// `base64url(payload) "." hex(HMAC-SHA-256(key, payload))`.
    pub fn sign(&self, payload: &str) -> String {
        let mac = hmac_sha256(&self.0.borrow(), payload.as_bytes());
        format!("{}.{}", base64url_encode(payload.as_bytes()), hex(&mac))
    }

    /// The payload of a token this key signed; `None` for anything else.
    pub fn verify(&self, token: &str) -> Option<String> {
        let (data, mac) = token.rsplit_once('.')?;
        let payload = base64url_decode(data)?;
        let expected = hex(&hmac_sha256(&self.0.borrow(), &payload));
        // Compare without an early exit.
        let same = expected.len() == mac.len()
            && expected
                .bytes()
                .zip(mac.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0;
        if !same {
            return None;
        }
        String::from_utf8(payload).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_survives_signing_and_tampering_is_caught() {
        let key = StateKey::default();
        key.set(b"k1");
        let token = key.sign("round-1");
        assert_eq!(key.verify(&token).as_deref(), Some("round-1"));
        assert_eq!(key.verify(&format!("{token}-TAMPERED")), None);
        assert_eq!(key.verify("round-1"), None);
        let other = StateKey::default();
        other.set(b"k2");
        assert_eq!(other.verify(&token), None);
        // A payload swapped under the old signature.
        let (_, mac) = token.rsplit_once('.').unwrap();
        assert_eq!(
            key.verify(&format!("{}.{mac}", base64url_encode(b"round-2"))),
            None
        );
    }

    #[test]
    fn results_are_checked() {
        let ok =
            json!({"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}}});
        assert!(is_input_required(&ok));
        assert_eq!(parse_result(&ok).unwrap().requests.len(), 1);
        for bad in [
            json!({"resultType":"input_required"}),
            json!({"resultType":"input_required","inputRequests":{"a":{"method":"tools/call"}}}),
            json!({"resultType":"input_required","inputRequests":{"a":{}}}),
            json!({"resultType":"input_required","inputRequests":[]}),
            json!({"resultType":"input_required","requestState":5}),
        ] {
            assert!(parse_result(&bad).is_err(), "{bad}");
        }
        let caps = json!({"sampling":{}});
        let ir = parse_result(&json!({"resultType":"input_required","inputRequests":{
            "a":{"method":"sampling/createMessage","params":{}},
            "b":{"method":"elicitation/create","params":{}},
            "c":{"method":"roots/list"}}}))
        .unwrap();
        assert_eq!(
            missing_capabilities(&ir, &caps),
            Some(json!({"elicitation":{},"roots":{}}))
        );
    }
}

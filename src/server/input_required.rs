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

use serde_json::{json, Map, Value};
use std::cell::RefCell;

use super::context::RequestContext;
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

/// What a retry brought: the client's answers and the (verified) state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inputs {
    pub responses: Option<Map<String, Value>>,
    pub request_state: Option<String>,
}

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
        Some(other) => return Err(format!("inputRequests must be an object, got {other}")),
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
        Some(other) => return Err(format!("requestState must be a string, got {other}")),
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
                             answers, got {v}"
                        ),
                        data: Some(json!({ "key": k })),
                    });
                }
            }
            Some(o.clone())
        }
        Some(other) => {
            return Err(ServerError::invalid_params(format!(
            "inputResponses must be an object mapping input request keys to results, got {other}"
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
                "requestState must be the string the server sent, got {other}"
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

/// How a request that may need input ended.
pub(crate) enum Outcome<T> {
    Done(T),
    /// 2026-07-28: the input-required result to send.
    Input(Value),
}

/// Runs a handler until it is done: in the stateless era the first input-required result is
/// checked against the client's capabilities and returned (signed); in the handshake era the
/// engine asks the client for each input and runs the handler again with the answers, at most
/// [`MAX_ROUNDS`] times. `run` runs the handler once in a context; `failed` turns a failure
/// to obtain input into the request's answer (an `isError` tool result, or an error).
pub(crate) async fn drive<T: 'static>(
    ctx: RequestContext,
    stateless: bool,
    key: StateKey,
    run: impl Fn(RequestContext) -> LocalBoxFuture<'static, Result<Round<T>, ServerError>>,
    failed: impl Fn(String) -> Result<T, ServerError>,
) -> Result<Outcome<T>, ServerError> {
    let mut ctx = ctx;
    for _ in 0..MAX_ROUNDS {
        let ir = match run(ctx.clone()).await? {
            Round::Done(v) => return Ok(Outcome::Done(v)),
            Round::Input(ir) => ir,
        };
        if stateless {
            if let Some(required) = missing_capabilities(&ir, ctx.client_capabilities()) {
                return Err(ServerError::MissingClientCapability { required });
            }
            return Ok(Outcome::Input(wire_result(&ir, &key)));
        }
        // The handshake era: ask the client ourselves.
        let asks: Vec<LocalBoxFuture<'static, Result<Value, String>>> = ir
            .requests
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
        let mut responses = Map::new();
        for ((k, _), answer) in ir.requests.iter().zip(join_all(asks).await) {
            match answer {
                Ok(v) => {
                    responses.insert(k.clone(), v);
                }
                Err(message) => return failed(message).map(Outcome::Done),
            }
        }
        if ctx.is_cancelled() {
            return failed("The request was cancelled".into()).map(Outcome::Done);
        }
        ctx.inputs = Inputs {
            responses: Some(responses),
            request_state: ir.request_state,
        };
    }
    failed(format!(
        "The handler still asked for input after {MAX_ROUNDS} rounds"
    ))
    .map(Outcome::Done)
}

// ---- requestState integrity: HMAC-SHA-256 ----------------------------------------------

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

/// Lowercase hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

const B64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The standard Base64 alphabet (RFC 4648 §4).
pub(crate) const B64_STANDARD: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64url_encode(data: &[u8]) -> String {
    base64_encode_with(data, B64URL, false)
}

fn base64url_decode(s: &str) -> Option<Vec<u8>> {
    base64_decode_with(s, B64URL)
}

/// Base64 of `data` in `alphabet`, `=`-padded when `pad`.
pub(crate) fn base64_encode_with(data: &[u8], alphabet: &[u8; 64], pad: bool) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(alphabet[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else if pad {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes Base64 in `alphabet` (no padding); `None` for anything else.
pub(crate) fn base64_decode_with(s: &str, alphabet: &[u8; 64]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.bytes() {
        let v = alphabet.iter().position(|&x| x == c)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // Leftover bits must be zero padding (canonical encoding only).
    (acc == 0 && bits < 6).then_some(out)
}

const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// SHA-256 (FIPS 180-4).
pub fn sha256(data: &[u8]) -> [u8; 32] {
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    let bit_len = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bit_len.to_be_bytes());
    for block in msg.chunks(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, v) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(v);
        }
    }
    let mut out = [0u8; 32];
    for (i, x) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
}

/// HMAC-SHA-256 (RFC 2104).
pub fn hmac_sha256(key: &[u8], msg: &[u8]) -> [u8; 32] {
    let mut k = [0u8; 64];
    if key.len() > 64 {
        k[..32].copy_from_slice(&sha256(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let mut inner = Vec::with_capacity(64 + msg.len());
    inner.extend(k.iter().map(|b| b ^ 0x36));
    inner.extend_from_slice(msg);
    let inner_hash = sha256(&inner);
    let mut outer = Vec::with_capacity(96);
    outer.extend(k.iter().map(|b| b ^ 0x5c));
    outer.extend_from_slice(&inner_hash);
    sha256(&outer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_and_hmac_match_the_published_vectors() {
        assert_eq!(
            hex(&sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hex(&sha256(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        // RFC 4231 test case 2.
        assert_eq!(
            hex(&hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // RFC 4231 test case 6 (a key longer than the block).
        assert_eq!(
            hex(&hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn base64url_round_trips() {
        for s in ["", "a", "ab", "abc", "abcd", "{\"round\":1}", "ünï ✓"] {
            assert_eq!(
                base64url_decode(&base64url_encode(s.as_bytes())).unwrap(),
                s.as_bytes()
            );
        }
        assert_eq!(base64url_encode(b"\xfb\xff"), "-_8");
        assert!(base64url_decode("a=").is_none());
    }

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

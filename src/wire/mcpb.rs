//! MCP-B's window envelope, shared by the tab and iframe wires:
//! `{ channel, type: 'mcp', direction, payload }`, where the payload is a JSON-RPC message
//! (an object) or one of the control strings of the readiness handshake.

use wasm_bindgen::prelude::*;

use crate::js;

/// The envelope's `type`.
pub const TYPE: &str = "mcp";
/// The `direction` of a client's message.
pub const TO_SERVER: &str = "client-to-server";
/// The `direction` of a server's message.
pub const TO_CLIENT: &str = "server-to-client";
/// A client asking whether a server is there.
pub const CHECK: &str = "mcp-check-ready";
/// A server announcing itself (on start, and in answer to [`CHECK`]).
pub const READY: &str = "mcp-server-ready";
/// A server saying it stopped.
pub const STOPPED: &str = "mcp-server-stopped";

#[wasm_bindgen]
extern "C" {
    /// `polyfill/src/gates.js`'s `__mcpPostEnvelope`, called with a typed signature.
    type PostEnvelope;
    #[wasm_bindgen(method, catch, js_name = call)]
    fn post(
        this: &PostEnvelope,
        this_arg: &JsValue,
        target: &JsValue,
        channel: &JsValue,
        direction: &JsValue,
        payload: &JsValue,
        target_origin: &JsValue,
    ) -> Result<JsValue, JsValue>;
}

thread_local! {
    /// The envelope poster from the engine's config ([`use_post_envelope`]).
    static POST_ENVELOPE: js::Helper = const { js::Helper::new("postEnvelope") };
}

/// Takes `config.postEnvelope` (absent: [`post`] builds the envelope member by member).
pub fn use_post_envelope(config: &JsValue) {
    POST_ENVELOPE.with(|p| p.take(config));
}

/// `target.postMessage(envelope(channel, direction, payload), target_origin)`: one call into
/// JS with the engine's poster, which posts from a microtask of its own (so an attached
/// DevTools client does not record the wasm's whole call stack with every answer: see
/// `polyfill/src/gates.js`), and about a dozen, posted at once, without it. Either way a payload
/// a structured clone refuses (a page's proxy in an answer) goes as its JSON copy. With the
/// poster, a post that fails is reported from its microtask (as [`js::report`] does) and this
/// returns `Ok`; without it, the failure is returned.
pub fn post(
    target: &JsValue,
    channel: &JsValue,
    direction: &'static str,
    payload: &JsValue,
    target_origin: &JsValue,
) -> Result<(), JsValue> {
    let posted = POST_ENVELOPE.with(|p| {
        p.with(|f| {
            f.unchecked_ref::<PostEnvelope>().post(
                &JsValue::UNDEFINED,
                target,
                channel,
                &js::name(direction),
                payload,
                target_origin,
            )
        })
    });
    match posted {
        Some(r) => r.map(drop),
        None => {
            let post = |p: &JsValue| {
                js::call(
                    target,
                    "postMessage",
                    &[&envelope(channel, direction, p), target_origin],
                )
            };
            // (Only a server's answers carry a page's object: a client posts its messages as
            // they are.)
            #[cfg(feature = "web-server")]
            let posted = js::post_or_json_copy(payload, post);
            #[cfg(not(feature = "web-server"))]
            let posted = post(payload);
            posted.map(drop)
        }
    }
}

/// `payload` in an envelope on `channel` going `direction`.
pub fn envelope(channel: &JsValue, direction: &'static str, payload: &JsValue) -> JsValue {
    let env: JsValue = js::object().into();
    js::set(&env, "channel", channel);
    js::set(&env, "type", &js::name(TYPE));
    js::set(&env, "direction", &js::name(direction));
    js::set(&env, "payload", payload);
    env
}

/// The payload of `data` when it is an envelope on `channel` going `direction` with a
/// payload. The fields are compared as JS strings: nothing of traffic that is not ours is
/// copied into wasm.
pub fn open_envelope(
    data: &JsValue,
    channel: &JsValue,
    direction: &'static str,
) -> Option<JsValue> {
    if !data.is_object() {
        return None;
    }
    let field = |k: &'static str| js::field(data, k).unwrap_or(JsValue::UNDEFINED);
    if field("channel") != *channel
        || field("type") != js::name(TYPE)
        || field("direction") != js::name(direction)
    {
        return None;
    }
    payload_of(data)
}

/// The payload of an envelope whose other members were checked (by a message gate: see
/// `js::MessageGate`), when it has one.
pub fn payload_of(data: &JsValue) -> Option<JsValue> {
    let payload = js::field(data, "payload").unwrap_or(JsValue::UNDEFINED);
    (!payload.is_null_or_undefined()).then_some(payload)
}

/// Whether `data` is a client's envelope on `channel` (payload or not).
pub fn is_to_server(data: &JsValue, channel: &JsValue) -> bool {
    data.is_object()
        && js::get(data, "channel").ok().as_ref() == Some(channel)
        && js::get(data, "direction").ok() == Some(js::name(TO_SERVER))
}

//! The extension wire: raw JSON-RPC on a `chrome.runtime.Port` (or `{ type, payload }`
//! envelopes when a `messageType` is set, as on the postMessage wire), and the server's
//! `{ type: 'keep-alive', timestamp }` messages, which keep the port's service worker awake
//! and which clients ignore.

use wasm_bindgen::prelude::*;

use crate::js;

/// The port name a client connects with when none is given.
pub const DEFAULT_PORT_NAME: &str = "mcp";
/// The `type` of a keep-alive message.
pub const KEEP_ALIVE: &str = "keep-alive";
/// How often a server sends one, in milliseconds.
pub const KEEP_ALIVE_MS: f64 = 25_000.0;

/// A keep-alive message stamped `now` (milliseconds since the epoch).
pub fn keep_alive(now: f64) -> JsValue {
    let ping: JsValue = js::object().into();
    js::set(&ping, "type", &JsValue::from_str(KEEP_ALIVE));
    js::set(&ping, "timestamp", &JsValue::from_f64(now));
    ping
}

/// Whether `msg` is a keep-alive message.
pub fn is_keep_alive(msg: &JsValue) -> bool {
    msg.is_object()
        && js::get(msg, "type")
            .ok()
            .and_then(|t| t.as_string())
            .as_deref()
            == Some(KEEP_ALIVE)
}

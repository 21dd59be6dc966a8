//! The postMessage wire: `{ type, payload }` on a Worker, a worker's `self`, a MessagePort
//! or a Window; `type` tells MCP traffic from the page's other messages.

use wasm_bindgen::prelude::*;

use crate::js;

/// The `type` when none is given.
pub const DEFAULT_MESSAGE_TYPE: &str = "mcp";

/// `payload` in an envelope of `message_type`.
pub fn envelope(message_type: &str, payload: &JsValue) -> JsValue {
    let env: JsValue = js::object().into();
    js::set(&env, "type", &JsValue::from_str(message_type));
    js::set(&env, "payload", payload);
    env
}

/// The payload of `data` when it is an envelope of `message_type` with a payload.
pub fn open_envelope(data: &JsValue, message_type: &str) -> Option<JsValue> {
    if !data.is_object() {
        return None;
    }
    if js::get(data, "type").ok()?.as_string().as_deref() != Some(message_type) {
        return None;
    }
    let payload = js::get(data, "payload").ok()?;
    (!payload.is_undefined() && !payload.is_null()).then_some(payload)
}

/// Checks the `{ctx}.target` of a postMessage transport (server or client) and says whether it is a Window.
/// A Window target's messages arrive on this context's own window; `receive` names them
/// in the error when this context has none.
pub fn check_target(target: &JsValue, ctx: &str, receive: &str) -> Result<bool, JsValue> {
    if !target.is_object() || !js::has_method(target, "postMessage") {
        return Err(js::type_error(&format!(
            "{ctx}.target is required: a Worker, a Window, a MessagePort or a worker's self \
             (something with postMessage())"
        )));
    }
    let is_window = js::is_window(target);
    if !is_window && !js::has_method(target, "addEventListener") {
        return Err(js::type_error(&format!(
            "{ctx}.target must have addEventListener() (a Worker, a MessagePort or a worker's self)"
        )));
    }
    if is_window && web_sys::window().is_none() {
        return Err(js::type_error(&format!(
            "{ctx}.target is a Window, but this context has no window to receive {receive} on"
        )));
    }
    Ok(is_window)
}

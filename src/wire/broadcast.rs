//! The BroadcastChannel wire: `{ type: 'mcp', instanceId, to?, payload }` among the pages of
//! an origin. `instanceId` names the sender; a server's answers carry `to`, the client
//! instance they are for, so the channel's other clients can ignore them.

use wasm_bindgen::prelude::*;

use crate::js;

/// The envelope's `type`.
pub const TYPE: &str = "mcp";

/// `payload` from instance `from`, addressed to instance `to` when given.
pub fn envelope(from: &str, to: Option<&JsValue>, payload: &JsValue) -> JsValue {
    let env: JsValue = js::object().into();
    js::set(&env, "type", &JsValue::from_str(TYPE));
    js::set(&env, "instanceId", &JsValue::from_str(from));
    if let Some(to) = to {
        js::set(&env, "to", to);
    }
    js::set(&env, "payload", payload);
    env
}

/// One envelope read from a channel message's `data`.
pub struct Opened {
    /// The sender's `instanceId` (never empty).
    pub from: String,
    /// The instance it is addressed to, when it says.
    pub to: Option<String>,
    /// The message; `undefined` or `null` when there is none.
    pub payload: JsValue,
}

/// The envelope in `data`, when it is one (`type: 'mcp'` and a sender).
pub fn open_envelope(data: &JsValue) -> Option<Opened> {
    if !data.is_object() {
        return None;
    }
    let field = |k: &'static str| js::get(data, k).ok().and_then(|v| v.as_string());
    if field("type").as_deref() != Some(TYPE) {
        return None;
    }
    let from = field("instanceId").filter(|s| !s.is_empty())?;
    Some(Opened {
        from,
        to: field("to"),
        payload: js::get(data, "payload").unwrap_or(JsValue::UNDEFINED),
    })
}

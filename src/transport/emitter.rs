//! The seed's simple event emitter (`createSimpleEmitter`): a plain object with
//! `emit(event, data)`, `on(event, handler)`, `off(event, handler)`. The event transport
//! makes one when the page brings no emitter of its own.
//!
//! It is made by the core's JS helper (`polyfill/src/emitter.js`, `createEmitter` in the
//! engine's config), not in wasm: a page's handlers usually hold the emitter themselves (a
//! client that listens on it also emits on it), and a handler list kept in wasm made each
//! handler a root of the module's reference table, so that cycle was never collected (every
//! session connected and disconnected on a built-in emitter kept it, its client and its
//! handlers for the page's life).

use wasm_bindgen::prelude::*;

use crate::js;

thread_local! {
    /// `polyfill/src/emitter.js`'s `__mcpCreateEmitter`, set by [`use_create_emitter`].
    static CREATE: js::Helper = const { js::Helper::new("createEmitter") };
}

/// Takes the emitter's maker from the engine's `config.createEmitter`; the engine cannot be
/// made without it.
pub fn use_create_emitter(config: &JsValue) -> Result<(), JsValue> {
    CREATE.with(|c| c.require(config))
}

/// A new emitter (see `polyfill/src/emitter.js` for what it does).
pub fn create() -> Result<JsValue, JsValue> {
    CREATE.with(|c| c.call(|f| f.call0(&JsValue::UNDEFINED)))
}

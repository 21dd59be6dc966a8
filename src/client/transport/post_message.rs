//! `PostMessageClientTransport`: a client for a server behind `postMessage` — a Worker, a
//! worker's own `self`, a MessagePort, or a Window — in the seed's format
//! `{ type: messageType, payload }` (`messageType` defaults to `'mcp'`).
//!
//! With a Window target (an iframe's `contentWindow`, `window.opener`, `window.parent`)
//! answers arrive on this window: only those whose `event.source` is the target and whose
//! origin is `origin` (default: this page's origin; `'*'` with a warning) are read, and
//! messages are posted with `origin` as the target origin, and the transport closes when the
//! window does (`closed`: a closed popup, a removed frame's window), looked at every
//! [`base::GONE_POLL_MS`]. Workers and ports are private channels: whoever holds one may
//! talk.
//!
//! ```js
//! const t = new PostMessageClientTransport({ target: worker });
//! ```

use std::cell::RefCell;
use wasm_bindgen::prelude::*;

use super::base::{
    self, client_transport_class, opt_string, options_object, window_message, Base, Port, Ready,
    Wire,
};
use crate::js;
use crate::js::Listener;
use crate::wire::post_message::{self, envelope, open_envelope};

pub use crate::wire::post_message::DEFAULT_MESSAGE_TYPE;

struct PostMessageWire {
    target: JsValue,
    is_window: bool,
    origin: String,
    message_type: String,
    listener: RefCell<Option<Listener>>,
    /// For a Window target, the look at whether it closed ([`base::watch_peer`]).
    watch: RefCell<Option<js::Timer>>,
}

impl Wire for PostMessageWire {
    fn open(&self, port: Port) -> Result<Ready, JsValue> {
        let message_type = self.message_type.clone();
        let listener = if self.is_window {
            let own: JsValue = web_sys::window()
                .map(JsValue::from)
                .ok_or_else(|| js::type_error("a Window target needs a window to receive on"))?;
            let target = self.target.clone();
            *self.watch.borrow_mut() = Some(base::watch_peer(
                port.clone(),
                "the target window was closed",
                Box::new(move || js::is_closed(&target)),
            )?);
            let (target, origin) = (self.target.clone(), self.origin.clone());
            Listener::dom(&own, "message", move |ev: JsValue, _| {
                let Some(data) = window_message(&ev, Some(&target), &origin) else {
                    return;
                };
                if let Some(p) = open_envelope(&data, &message_type) {
                    port.message(p);
                }
            })?
        } else {
            let l = Listener::dom(&self.target, "message", move |ev: JsValue, _| {
                let data = js::get(&ev, "data").unwrap_or(JsValue::UNDEFINED);
                if let Some(p) = open_envelope(&data, &message_type) {
                    port.message(p);
                }
            })?;
            // A MessagePort delivers only once started.
            if js::instance_of(&self.target, "MessagePort") {
                let _ = js::call(&self.target, "start", &[]);
            }
            l
        };
        *self.listener.borrow_mut() = Some(listener);
        Ok(Box::pin(async { Ok(()) }))
    }

    fn post(&self, message: &JsValue) -> Result<(), JsValue> {
        let env = envelope(&self.message_type, message);
        if self.is_window {
            // A closed window drops what is posted to it without an error.
            if js::is_closed(&self.target) {
                return Err(js::type_error("the target window is closed"));
            }
            js::call(
                &self.target,
                "postMessage",
                &[&env, &JsValue::from_str(&self.origin)],
            )?;
        } else {
            js::call(&self.target, "postMessage", &[&env])?;
        }
        Ok(())
    }

    fn shut(&self) {
        self.listener.borrow_mut().take();
        self.watch.borrow_mut().take();
    }
}

client_transport_class!(PostMessageClientTransport);

#[wasm_bindgen]
impl PostMessageClientTransport {
    /// `new PostMessageClientTransport({ target, origin = location.origin, messageType = 'mcp' })`
    /// or `new PostMessageClientTransport(target, { origin, messageType })`.
    #[wasm_bindgen(constructor)]
    pub fn new(a: JsValue, b: JsValue) -> Result<PostMessageClientTransport, JsValue> {
        let ctx = "new PostMessageClientTransport(options): options";
        // The seed's positional form: the target first.
        let (target, o) = if a.is_object() && js::has_method(&a, "postMessage") {
            (a, options_object(&b, ctx)?)
        } else {
            let o = options_object(&a, ctx)?;
            (js::get(&o, "target")?, o)
        };
        let is_window = post_message::check_target(&target, ctx, "answers")?;
        let origin = opt_string(&o, "origin", ctx)?.unwrap_or_else(js::own_origin);
        if is_window && origin == "*" {
            base::warn_any_origin("PostMessageClientTransport");
        }
        let message_type = opt_string(&o, "messageType", ctx)?
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| DEFAULT_MESSAGE_TYPE.into());
        let wire = PostMessageWire {
            target,
            is_window,
            origin,
            message_type,
            listener: RefCell::new(None),
            watch: RefCell::new(None),
        };
        Ok(PostMessageClientTransport {
            base: Base::new("PostMessageClientTransport", Box::new(wire)),
        })
    }
}

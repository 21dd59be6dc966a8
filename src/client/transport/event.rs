//! `EventClientTransport`: a client for a server in the same context over an emitter with
//! `emit/on/off` (the seed's `EventTransport`, seen from the client): JSON-RPC messages
//! go out as `sendEvent` (default `'mcp:request'`) and come back as `receiveEvent`
//! (default `'mcp:response'`).
//!
//! ```js
//! const t = new EventClientTransport({ emitter });
//! ```

use std::cell::RefCell;
use wasm_bindgen::prelude::*;

use super::base::{client_transport_class, opt_string, options_object, Base, Port, Ready, Wire};
use crate::js;
use crate::js::Listener;

/// The client's `sendEvent` when none is given.
pub const DEFAULT_SEND_EVENT: &str = crate::wire::event::TO_SERVER_EVENT;
/// The client's `receiveEvent` when none is given.
pub const DEFAULT_RECEIVE_EVENT: &str = crate::wire::event::TO_CLIENT_EVENT;

struct EventWire {
    emitter: JsValue,
    send_event: String,
    receive_event: String,
    listener: RefCell<Option<Listener>>,
}

impl Wire for EventWire {
    fn open(&self, port: Port) -> Result<Ready, JsValue> {
        let listener = Listener::with(
            &self.emitter,
            "on",
            "off",
            Some(&self.receive_event),
            move |data: JsValue, _| port.message(data),
        )?;
        *self.listener.borrow_mut() = Some(listener);
        Ok(Box::pin(async { Ok(()) }))
    }

    fn post(&self, message: &JsValue) -> Result<(), JsValue> {
        js::call(
            &self.emitter,
            "emit",
            &[&JsValue::from_str(&self.send_event), message],
        )?;
        Ok(())
    }

    fn shut(&self) {
        self.listener.borrow_mut().take();
    }
}

client_transport_class!(EventClientTransport);

#[wasm_bindgen]
impl EventClientTransport {
    /// `new EventClientTransport({ emitter, sendEvent = 'mcp:request',
    /// receiveEvent = 'mcp:response' })` or `new EventClientTransport(emitter, options)`.
    #[wasm_bindgen(constructor)]
    pub fn new(a: JsValue, b: JsValue) -> Result<EventClientTransport, JsValue> {
        let ctx = "new EventClientTransport(options): options";
        let (emitter, o) = if js::has_method(&a, "emit") {
            (a, options_object(&b, ctx)?)
        } else {
            let o = options_object(&a, ctx)?;
            (js::get(&o, "emitter")?, o)
        };
        for m in ["emit", "on", "off"] {
            if !js::has_method(&emitter, m) {
                return Err(js::type_error(&format!(
                    "{ctx}.emitter is required: an object with emit(), on() and off() (no {m}())"
                )));
            }
        }
        let wire = EventWire {
            emitter,
            send_event: opt_string(&o, "sendEvent", ctx)?
                .unwrap_or_else(|| DEFAULT_SEND_EVENT.into()),
            receive_event: opt_string(&o, "receiveEvent", ctx)?
                .unwrap_or_else(|| DEFAULT_RECEIVE_EVENT.into()),
            listener: RefCell::new(None),
        };
        Ok(EventClientTransport {
            base: Base::new("EventClientTransport", Box::new(wire)),
        })
    }
}

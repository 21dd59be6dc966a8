//! The event transport (the seed's `EventTransport`), for a client in the same context:
//! JSON-RPC message objects arrive as `receiveEvent` (default `mcp:request`) on an emitter
//! with `emit/on/off`, and answers leave as `sendEvent` (default `mcp:response`).

use std::rc::Rc;
use wasm_bindgen::prelude::*;

use super::guard::Security;
use super::hub::{Hub, HubServer, Reply, Rules};
use super::served::Served;
use super::{emitter, opt_string, Started};
use crate::js;
use crate::js::Listener;
use crate::server::Server;
use crate::wire;

/// The server's `sendEvent` when none is given.
pub const DEFAULT_SEND_EVENT: &str = wire::event::TO_CLIENT_EVENT;
/// The server's `receiveEvent` when none is given.
pub const DEFAULT_RECEIVE_EVENT: &str = wire::event::TO_SERVER_EVENT;

/// An `event` transport's options.
#[derive(Clone)]
pub struct EventConfig {
    /// The emitter both sides use (`emit`, `on`, `off`); a built-in one when none is given.
    pub emitter: JsValue,
    /// The event type answers are dispatched as (`sendEvent`).
    pub send_event: String,
    /// The event type requests arrive as (`receiveEvent`).
    pub receive_event: String,
    /// Rate limit, size limit and violation callback.
    pub security: Security,
}

impl EventConfig {
    /// `{ emitter?, sendEvent?, receiveEvent? }`; a built-in emitter when none is given.
    pub fn from_js(opts: &JsValue, ctx: &str) -> Result<EventConfig, JsValue> {
        let given = js::get(opts, "emitter")?;
        let emitter = if given.is_undefined() || given.is_null() {
            emitter::create()?
        } else {
            for m in ["emit", "on", "off"] {
                if !js::has_method(&given, m) {
                    return Err(js::type_error(&format!(
                        "{ctx}.emitter must have emit(), on() and off() methods (no {m}())"
                    )));
                }
            }
            given
        };
        Ok(EventConfig {
            emitter,
            send_event: opt_string(opts, "sendEvent", ctx)?
                .unwrap_or_else(|| DEFAULT_SEND_EVENT.into()),
            receive_event: opt_string(opts, "receiveEvent", ctx)?
                .unwrap_or_else(|| DEFAULT_RECEIVE_EVENT.into()),
            // A client in the same context, on an emitter the page chose: no default limit.
            security: Security::from_js(opts, ctx)?.limited_by_default(false),
        })
    }

    /// Writes the effective options (defaults filled in) onto `o`: `transport.options`.
    pub fn normalize(&self, o: &JsValue) {
        js::set(o, "emitter", &self.emitter);
        js::set(o, "sendEvent", &JsValue::from_str(&self.send_event));
        js::set(o, "receiveEvent", &JsValue::from_str(&self.receive_event));
    }
}

/// Starts serving `server` on the emitter.
pub fn start(server: &Server, c: EventConfig) -> Result<Started, JsValue> {
    let claim = Served::claim_on(
        &c.emitter,
        &format!("event:{}", c.receive_event),
        &format!("The event {:?} on this emitter", c.receive_event),
    )?;
    // The emitter hands each message object to page code as it is: no object is shared.
    let rules = Rules {
        copies: false,
        ..Rules::default()
    };
    let hub = Hub::with_rules(server.clone(), c.security.clone(), "event", 1, rules);
    let emitter = c.emitter.clone();
    let send_event = JsValue::from_str(&c.send_event);
    let reply: Reply = Rc::new(move |msg: &JsValue| {
        if let Err(e) = js::call(&emitter, "emit", &[&send_event, msg]) {
            js::report(&e);
        }
    });
    let weak = Rc::downgrade(&hub);
    let listener = Listener::with(
        &c.emitter,
        "on",
        "off",
        Some(&c.receive_event),
        move |data: JsValue, _| {
            if let Some(hub) = weak.upgrade() {
                hub.deliver("emitter", &data, reply.clone());
            }
        },
    )?;
    Ok(Started::new(HubServer::new(hub, listener, claim)))
}

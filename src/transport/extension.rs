//! The extension transport, wire-compatible with MCP-B's `ExtensionServerTransport`: raw
//! JSON-RPC messages (no envelope) over a `chrome.runtime.Port`-shaped object
//! (`postMessage`, `onMessage.addListener/removeListener`, `onDisconnect.addListener`),
//! and `{ type: 'keep-alive', timestamp }` from the server every 25 s (clients ignore it).
//!
//! With `messageType` the seed's envelope `{ type: messageType, payload }` is used instead.
//! The port's `onDisconnect` ends the transport (and calls the `onDisconnect` option);
//! closing the transport calls `port.disconnect()`.

use js_sys::Function;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::guard::Security;
use super::hub::{Hub, Reply};
use super::served::{Claim, Served};
use super::{opt_string, Running, Started};
use crate::js;
use crate::js::{Listener, Timer};
use crate::server::Server;
use crate::wire::extension::keep_alive;
use crate::wire::post_message::{envelope, open_envelope};

pub use crate::wire::extension::KEEP_ALIVE_MS;

/// An `extension` transport's options.
#[derive(Clone)]
pub struct ExtensionConfig {
    /// The `chrome.runtime.Port` (or an object of its shape).
    pub port: JsValue,
    /// When given, messages are wrapped as `{ type: messageType, payload }`; raw JSON-RPC
    /// otherwise.
    pub message_type: Option<String>,
    /// `None`: no keep-alive.
    pub keep_alive_ms: Option<f64>,
    /// Called when the port disconnects (`onDisconnect`).
    pub on_disconnect: Option<Function>,
    /// Rate limit, size limit and violation callback.
    pub security: Security,
}

fn event_api(port: &JsValue, name: &'static str) -> Option<JsValue> {
    let api = js::get(port, name).ok()?;
    (js::has_method(&api, "addListener") && js::has_method(&api, "removeListener")).then_some(api)
}

impl ExtensionConfig {
    /// `{ port, messageType?, keepAlive?, keepAliveInterval?, onDisconnect? }`.
    pub fn from_js(opts: &JsValue, ctx: &str) -> Result<ExtensionConfig, JsValue> {
        let port = js::get(opts, "port")?;
        if !port.is_object()
            || !js::has_method(&port, "postMessage")
            || event_api(&port, "onMessage").is_none()
            || event_api(&port, "onDisconnect").is_none()
        {
            return Err(js::option_error(
                ctx,
                ".port is required: a chrome.runtime.Port (or an object of its shape: \
                 postMessage(), onMessage.addListener/removeListener, \
                 onDisconnect.addListener/removeListener)",
            ));
        }
        let keep_alive = js::get(opts, "keepAlive")?;
        let interval = js::get(opts, "keepAliveInterval")?;
        let keep_alive_ms = if keep_alive == JsValue::FALSE {
            None
        } else if interval.is_undefined() {
            Some(KEEP_ALIVE_MS)
        } else {
            match interval.as_f64() {
                Some(n) if n.is_finite() && n > 0.0 => Some(n),
                _ => {
                    return Err(js::option_error(
                        ctx,
                        ".keepAliveInterval must be a positive number of milliseconds",
                    ))
                }
            }
        };
        let cb = js::get(opts, "onDisconnect")?;
        let on_disconnect = if cb.is_undefined() || cb.is_null() {
            None
        } else {
            Some(
                cb.dyn_into()
                    .map_err(|_| js::option_error(ctx, ".onDisconnect must be a function"))?,
            )
        };
        Ok(ExtensionConfig {
            port,
            message_type: opt_string(opts, "messageType", ctx)?,
            keep_alive_ms,
            on_disconnect,
            // An extension is not the page's code: limited by default.
            security: Security::from_js(opts, ctx)?.limited_by_default(true),
        })
    }

    /// Writes the effective options (defaults filled in) onto `o`: `transport.options`.
    pub fn normalize(&self, o: &JsValue) {
        if let Some(mt) = &self.message_type {
            js::set(o, "messageType", &JsValue::from_str(mt));
        }
        js::set(
            o,
            "keepAliveInterval",
            &self.keep_alive_ms.map_or(JsValue::FALSE, JsValue::from_f64),
        );
    }
}

struct ExtensionServer {
    hub: Rc<Hub>,
    config: ExtensionConfig,
    on_message: RefCell<Option<Listener>>,
    on_disconnect: RefCell<Option<Listener>>,
    keep_alive: RefCell<Option<Timer>>,
    claim: RefCell<Option<Claim>>,
}

impl ExtensionServer {
    /// Ends serving; `disconnect_port` when this side closes (not when the port did).
    fn finish(&self, disconnect_port: bool) {
        if self.on_message.borrow_mut().take().is_none() {
            return;
        }
        self.on_disconnect.borrow_mut().take();
        self.keep_alive.borrow_mut().take();
        self.claim.borrow_mut().take();
        self.hub.close();
        if disconnect_port {
            let _ = js::call(&self.config.port, "disconnect", &[]);
        } else if let Some(cb) = &self.config.on_disconnect {
            js::invoke(cb, &JsValue::UNDEFINED);
        }
    }

    fn on_message(&self, message: JsValue, reply: &Reply) {
        let payload = match &self.config.message_type {
            Some(mt) => match open_envelope(&message, mt) {
                Some(p) => p,
                None => return,
            },
            None => {
                // Raw JSON-RPC: an object naming jsonrpc 2.0, or a batch; keep-alives and
                // anything else are not for the server.
                let is_batch = js_sys::Array::is_array(&message);
                let is_rpc = message.is_object()
                    && js::get(&message, "jsonrpc")
                        .ok()
                        .and_then(|v| v.as_string())
                        .as_deref()
                        == Some("2.0");
                if !is_batch && !is_rpc {
                    return;
                }
                message
            }
        };
        self.hub.deliver("port", &payload, reply.clone());
    }
}

impl Running for ExtensionServer {
    fn stop(&self) {
        self.finish(true);
    }
    fn is_open(&self) -> bool {
        !self.hub.is_closed()
    }
}

/// Starts serving `server` on the port.
pub fn start(server: &Server, c: ExtensionConfig) -> Result<Started, JsValue> {
    let claim = Served::claim_on(&c.port, "extension", "This port")?;
    let port = c.port.clone();
    let mt = c.message_type.clone();
    let me = Rc::new(ExtensionServer {
        hub: Hub::new(server.clone(), c.security.clone(), "extension", 1),
        config: c,
        on_message: RefCell::new(None),
        on_disconnect: RefCell::new(None),
        keep_alive: RefCell::new(None),
        claim: RefCell::new(Some(claim)),
    });
    let p = port.clone();
    let reply: Reply = Rc::new(move |msg: &JsValue| {
        let posted = js::post_or_json_copy(msg, |m| {
            let out = match &mt {
                Some(mt) => envelope(mt, m),
                None => m.clone(),
            };
            js::call(&p, "postMessage", &[&out])
        });
        if let Err(e) = posted {
            js::report(&e);
        }
    });
    let weak = Rc::downgrade(&me);
    let on_message = js::get(&port, "onMessage")?;
    *me.on_message.borrow_mut() = Some(Listener::with(
        &on_message,
        "addListener",
        "removeListener",
        None,
        move |message: JsValue, _| {
            if let Some(me) = weak.upgrade() {
                me.on_message(message, &reply);
            }
        },
    )?);
    let weak = Rc::downgrade(&me);
    let on_disconnect = js::get(&port, "onDisconnect")?;
    *me.on_disconnect.borrow_mut() = Some(Listener::with(
        &on_disconnect,
        "addListener",
        "removeListener",
        None,
        move |_, _| {
            if let Some(me) = weak.upgrade() {
                me.finish(false);
            }
        },
    )?);
    if let Some(ms) = me.config.keep_alive_ms {
        let weak = Rc::downgrade(&me);
        *me.keep_alive.borrow_mut() = Some(Timer::interval(ms, move || {
            let Some(me) = weak.upgrade() else { return };
            let ping = keep_alive(js_sys::Date::now());
            if js::call(&me.config.port, "postMessage", &[&ping]).is_err() {
                // The port is gone.
                me.finish(false);
            }
        })?);
    }
    Ok(Started::new(me))
}

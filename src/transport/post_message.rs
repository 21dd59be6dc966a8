//! The postMessage transport (the seed's `PostMessageTransport`) for a Worker, a dedicated
//! worker's `self`, a MessagePort or a Window: envelopes `{ type: messageType, payload }`
//! (`messageType` defaults to `'mcp'`).
//!
//! With a Window peer (an iframe's `contentWindow`, `window.parent`, `window.opener`) the
//! server listens on its own window and accepts a message only when `event.source` is that
//! window and `event.origin` is allowed (`origin`: default the page's own origin; `'*'` only
//! when asked for, with a warning); answers go to the origin the message came from. Other
//! peers (workers, ports) are capabilities in themselves: whoever holds one may talk.

use std::rc::Rc;
use wasm_bindgen::prelude::*;

use super::guard::{admits_foreign, origins_from_js, reply_origin, AllowedOrigins, Security};
use super::hub::{Hub, HubServer, Reply};
use super::served::Served;
use super::{opt_string, Started};
use crate::js;
use crate::js::{Listener, MessageGate};
use crate::server::Server;
use crate::wire::post_message::{self, envelope, open_envelope};

pub use crate::wire::post_message::DEFAULT_MESSAGE_TYPE;

/// A `postMessage` transport's options.
#[derive(Clone)]
pub struct PostMessageConfig {
    /// What messages are posted to and heard from: a Worker, a worker's `self`, a
    /// MessagePort, a Window.
    pub target: JsValue,
    /// `target` is a window: messages are checked against `allowed` and posted to its origin.
    pub is_window: bool,
    /// The origins a window target may speak from (`origin`; the page's own by default).
    pub allowed: AllowedOrigins,
    /// The envelope's `type` (`messageType`).
    pub message_type: String,
    /// Rate limit, size limit and violation callback.
    pub security: Security,
}

impl PostMessageConfig {
    /// `{ target, origin?, messageType?, … }`.
    pub fn from_js(opts: &JsValue, ctx: &str) -> Result<PostMessageConfig, JsValue> {
        let target = js::get(opts, "target")?;
        let is_window = post_message::check_target(&target, ctx, "its messages")?;
        let allowed = origins_from_js(
            &js::get(opts, "origin")?,
            &format!("{ctx}.origin"),
            "postMessage",
        )?
        .unwrap_or_else(|| AllowedOrigins::List(vec![js::own_origin()]));
        // A Worker or MessagePort is the page's own capability, and so is a window on its
        // own origin: no rate limit unless asked for. A window on another origin may be
        // hostile: limited by default.
        let risky = is_window && admits_foreign(&allowed);
        Ok(PostMessageConfig {
            target,
            is_window,
            allowed,
            message_type: opt_string(opts, "messageType", ctx)?
                .unwrap_or_else(|| DEFAULT_MESSAGE_TYPE.into()),
            security: Security::from_js(opts, ctx)?.limited_by_default(risky),
        })
    }

    /// Writes the effective options (defaults filled in) onto `o`: `transport.options`.
    pub fn normalize(&self, o: &JsValue) {
        js::set(o, "messageType", &JsValue::from_str(&self.message_type));
        if self.is_window {
            js::set(o, "origin", &origins_to_js(&self.allowed));
        }
    }
}

/// An allow-list as the page would write it: `'*'` or an array of origins.
pub fn origins_to_js(a: &AllowedOrigins) -> JsValue {
    match a {
        AllowedOrigins::Any => JsValue::from_str("*"),
        AllowedOrigins::List(l) => l
            .iter()
            .map(|o| JsValue::from_str(o))
            .collect::<js_sys::Array>()
            .into(),
    }
}

/// Starts serving `server` on the target.
pub fn start(server: &Server, c: PostMessageConfig) -> Result<Started, JsValue> {
    let claim = Served::claim_on(
        &c.target,
        &format!("postMessage:{}", c.message_type),
        &format!("This postMessage target (messageType {:?})", c.message_type),
    )?;
    let hub = Hub::new(server.clone(), c.security.clone(), "postMessage", 1);
    let weak = Rc::downgrade(&hub);
    let listener = if c.is_window {
        let own = js::global();
        let target = c.target.clone();
        let allowed = c.allowed.clone();
        let message_type = c.message_type.clone();
        // Gated on the first checks below: the target window, then the envelope's type.
        let (source, kind) = (target.clone(), JsValue::from_str(&message_type));
        let fields = [("type", Some(&kind))];
        let gate = MessageGate {
            source: Some(&source),
            fields: &fields,
        };
        Listener::message(&own, gate, move |ev: JsValue, _| {
            let Some(hub) = weak.upgrade() else { return };
            // Source first: messages from other windows are not for this server at all.
            if js::get(&ev, "source").ok().as_ref() != Some(&target) {
                return;
            }
            // Then the envelope's shape (other traffic between the windows is not ours to
            // judge), then the origin.
            let data = js::get(&ev, "data").unwrap_or(JsValue::UNDEFINED);
            let Some(payload) = open_envelope(&data, &message_type) else {
                return;
            };
            let origin = js::event_origin(&ev);
            if !allowed.allows(&origin) {
                hub.security().violation(&origin);
                return;
            }
            let (t, mt, to) = (target.clone(), message_type.clone(), reply_origin(&origin));
            let reply: Reply = Rc::new(move |msg: &JsValue| {
                let to = JsValue::from_str(&to);
                let posted = js::post_or_json_copy(msg, |m| {
                    js::call(&t, "postMessage", &[&envelope(&mt, m), &to])
                });
                if let Err(e) = posted {
                    js::report(&e);
                }
            });
            hub.deliver("window", &payload, reply);
        })?
    } else {
        let target = c.target.clone();
        let message_type = c.message_type.clone();
        let l = Listener::dom(&c.target, "message", move |ev: JsValue, _| {
            let Some(hub) = weak.upgrade() else { return };
            let data = js::get(&ev, "data").unwrap_or(JsValue::UNDEFINED);
            let Some(payload) = open_envelope(&data, &message_type) else {
                return;
            };
            let (t, mt) = (target.clone(), message_type.clone());
            let reply: Reply = Rc::new(move |msg: &JsValue| {
                let posted = js::post_or_json_copy(msg, |m| {
                    js::call(&t, "postMessage", &[&envelope(&mt, m)])
                });
                if let Err(e) = posted {
                    js::report(&e);
                }
            });
            hub.deliver("port", &payload, reply);
        })?;
        // A MessagePort delivers only once started (onmessage would start it implicitly).
        if js::instance_of(&c.target, "MessagePort") {
            let _ = js::call(&c.target, "start", &[]);
        }
        l
    };
    Ok(Started::new(HubServer::new(hub, listener, claim)))
}

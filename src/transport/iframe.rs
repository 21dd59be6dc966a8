//! The iframe transports, on MCP-B's wire (`shared/spec/WIRE.md`): envelopes
//! `{ channel, type: 'mcp', direction, payload }`, default channel `mcp-iframe`.
//!
//! **iframeChild** — the server runs in the embedded app (MCP-B's `IframeChildTransport`;
//! its `IframeParentTransport` client talks to it unchanged). It accepts only messages whose
//! `event.source` is `window.parent` and whose origin is in `parentOrigin`; it announces
//! `'mcp-server-ready'` on start (to the allowed origins) and answers every
//! `'mcp-check-ready'`; answers go to the origin the client's message came from;
//! `'mcp-server-stopped'` on close.
//!
//! **iframeParent** — the server runs in the host page and the client in the iframe. The
//! parent drives the handshake, as a parent does in MCP-B: it posts `'mcp-server-ready'`
//! (direction `server-to-client`) to `iframe.contentWindow` every 250 ms until the child
//! speaks (an `'mcp-check-ready'`, answered with `'mcp-server-ready'`, or any JSON-RPC
//! message). `connect()` resolves then, or rejects with a `TimeoutError` after
//! `connectionTimeout` ms (default 10 000). Only `event.source === iframe.contentWindow` from
//! an origin in `targetOrigin` is accepted.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;

use super::guard::{admits_foreign, origins_from_js, reply_origin, AllowedOrigins, Security};
use super::hub::{Hub, Reply};
use super::post_message::origins_to_js;
use super::served::{Claim, Served};
use super::{opt_string, Running, Started};
use crate::js;
use crate::js::{DomError, Listener, Timer};
use crate::server::Server;
use crate::wire::{
    self,
    mcpb::{self, open_envelope, CHECK, READY, STOPPED, TO_CLIENT, TO_SERVER},
};

pub use crate::wire::iframe::DEFAULT_CHANNEL;
/// `connectionTimeout` when none is given.
pub const DEFAULT_CONNECTION_TIMEOUT_MS: f64 = wire::iframe::CONNECTION_TIMEOUT_MS as f64;
/// `checkReadyRetryMs` when none is given.
pub const CHECK_READY_RETRY_MS: f64 = wire::iframe::CHECK_INTERVAL_MS as f64;

/// Posts `payload` in a server-to-client envelope, from a microtask of its own where the
/// engine has its poster (see [`mcpb::post`]); a failed post is reported, never returned.
fn post(to: &JsValue, channel: &str, payload: &JsValue, target_origin: &str) {
    let (channel, origin) = (JsValue::from_str(channel), JsValue::from_str(target_origin));
    if let Err(e) = mcpb::post(to, &channel, TO_CLIENT, payload, &origin) {
        js::report(&e);
    }
}

/// Posts `payload` to every origin `allowed` names that the window may be at
/// (`wire::iframe::may_be_at`), or to `'*'` when any origin is allowed. postMessage would drop
/// the others, with an error in the page's console each time: those to a window this page can
/// read and whose origin differs, such as a frame's first document while the app loads.
fn post_to_allowed(to: &JsValue, channel: &str, payload: &JsValue, allowed: &AllowedOrigins) {
    match allowed {
        AllowedOrigins::Any => post(to, channel, payload, "*"),
        AllowedOrigins::List(l) => {
            for o in l.iter().map(|o| reply_origin(o)) {
                if wire::iframe::may_be_at(to, &o) {
                    post(to, channel, payload, &o);
                }
            }
        }
    }
}

/// The payload of a client-to-server envelope on `channel`, checked before anything else is
/// read from it.
fn client_payload(data: &JsValue, channel: &str) -> Option<JsValue> {
    open_envelope(data, &JsValue::from_str(channel), TO_SERVER)
}

/// A client message on `channel` from the peer window `peer`: its payload and the origin
/// to answer at, once `event.source` is `peer`, the data a client envelope and the origin
/// allowed (an origin that is not is a security violation).
fn accept_client_message(
    ev: &JsValue,
    peer: &JsValue,
    channel: &str,
    allowed: &AllowedOrigins,
    hub: &Hub,
) -> Option<(JsValue, String)> {
    if js::get(ev, "source").ok().as_ref() != Some(peer) {
        return None;
    }
    let data = js::get(ev, "data").unwrap_or(JsValue::UNDEFINED);
    let payload = client_payload(&data, channel)?;
    let origin = js::event_origin(ev);
    if !allowed.allows(&origin) {
        hub.security().violation(&origin);
        return None;
    }
    Some((payload, reply_origin(&origin)))
}

/// Answers an accepted client payload: `'mcp-check-ready'` with `'mcp-server-ready'` (other
/// strings are dropped), a JSON-RPC message by delivering it to `hub` as peer `key`, its
/// answers posted to `peer` at origin `to`.
fn answer_client(
    hub: &Hub,
    key: &str,
    peer: JsValue,
    channel: &str,
    payload: &JsValue,
    to: String,
) {
    if let Some(s) = payload.as_string() {
        if s == CHECK {
            post(&peer, channel, &JsValue::from_str(READY), &to);
        }
        return;
    }
    let channel = channel.to_string();
    let reply: Reply = Rc::new(move |msg: &JsValue| post(&peer, &channel, msg, &to));
    hub.deliver(key, payload, reply);
}

fn need_window(ctx: &str) -> Result<web_sys::Window, JsValue> {
    web_sys::window().ok_or_else(|| {
        js::option_error(ctx, ": the iframe transports need a window (not a worker)")
    })
}

// ---- iframeChild -------------------------------------------------------------------------

/// An `iframeChild` transport's options: this page is the embedded app, its parent the client.
#[derive(Clone)]
pub struct ChildConfig {
    /// The origins the parent may speak from (`parentOrigin`).
    pub allowed: AllowedOrigins,
    /// The MCP-B channel (`channelId`).
    pub channel: String,
    /// Rate limit, size limit and violation callback.
    pub security: Security,
}

impl ChildConfig {
    /// `{ parentOrigin, channelId? }` (`allowedOrigins` is accepted for `parentOrigin`, as
    /// MCP-B names it).
    pub fn from_js(opts: &JsValue, ctx: &str) -> Result<ChildConfig, JsValue> {
        need_window(ctx)?;
        let mut v = js::get(opts, "parentOrigin")?;
        let mut name = "parentOrigin";
        if v.is_undefined() {
            v = js::get(opts, "allowedOrigins")?;
            name = "allowedOrigins";
        }
        let allowed =
            origins_from_js(&v, &format!("{ctx}.{name}"), "iframeChild")?.ok_or_else(|| {
                js::option_error(
                    ctx,
                    ".parentOrigin is required: the origin of the embedding page \
                 (e.g. 'https://host.example'), an array of origins, or '*'",
                )
            })?;
        Ok(ChildConfig {
            channel: opt_string(opts, "channelId", ctx)?.unwrap_or_else(|| DEFAULT_CHANNEL.into()),
            // A frame on another origin may be hostile: limited by default; a same-origin
            // one is the page's own.
            security: Security::from_js(opts, ctx)?.limited_by_default(admits_foreign(&allowed)),
            allowed,
        })
    }

    /// Writes the effective options (defaults filled in) onto `o`: `transport.options`.
    pub fn normalize(&self, o: &JsValue) {
        js::set(o, "parentOrigin", &origins_to_js(&self.allowed));
        js::set(o, "channelId", &JsValue::from_str(&self.channel));
    }
}

struct ChildServer {
    hub: Rc<Hub>,
    parent: JsValue,
    config: ChildConfig,
    client_origin: RefCell<Option<String>>,
    listener: RefCell<Option<Listener>>,
    claim: RefCell<Option<Claim>>,
}

impl ChildServer {
    fn on_message(&self, ev: JsValue) {
        let (channel, allowed) = (&self.config.channel, &self.config.allowed);
        let Some((payload, to)) =
            accept_client_message(&ev, &self.parent, channel, allowed, &self.hub)
        else {
            return;
        };
        *self.client_origin.borrow_mut() = Some(to.clone());
        answer_client(
            &self.hub,
            "parent",
            self.parent.clone(),
            channel,
            &payload,
            to,
        );
    }
}

impl Running for ChildServer {
    fn stop(&self) {
        if self.listener.borrow_mut().take().is_none() {
            return;
        }
        self.claim.borrow_mut().take();
        self.hub.close();
        let stopped = JsValue::from_str(STOPPED);
        match self.client_origin.borrow().as_deref() {
            Some(o) => post(&self.parent, &self.config.channel, &stopped, o),
            None => post_to_allowed(
                &self.parent,
                &self.config.channel,
                &stopped,
                &self.config.allowed,
            ),
        }
    }
    fn is_open(&self) -> bool {
        !self.hub.is_closed()
    }
}

/// Starts serving `server` to the parent window.
pub fn start_child(server: &Server, c: ChildConfig) -> Result<Started, JsValue> {
    let window = need_window("iframeChild")?;
    let parent: JsValue = window.parent()?.map(JsValue::from).unwrap_or(JsValue::NULL);
    let own: &JsValue = window.as_ref();
    if parent.is_null() || parent == *own {
        return Err(DomError::InvalidState(
            "The iframeChild transport needs a parent window, but this page is not in a frame"
                .into(),
        )
        .into_js());
    }
    let claim = Served::claim_name(
        &format!("iframeChild:{}", c.channel),
        &format!("The iframe channel {:?}", c.channel),
    )?;
    let me = Rc::new(ChildServer {
        hub: Hub::new(server.clone(), c.security.clone(), "iframeChild", 1),
        parent,
        config: c,
        client_origin: RefCell::new(None),
        listener: RefCell::new(None),
        claim: RefCell::new(Some(claim)),
    });
    let weak = Rc::downgrade(&me);
    let listener = Listener::dom(own, "message", move |ev: JsValue, _| {
        if let Some(me) = weak.upgrade() {
            me.on_message(ev);
        }
    })?;
    *me.listener.borrow_mut() = Some(listener);
    post_to_allowed(
        &me.parent,
        &me.config.channel,
        &JsValue::from_str(READY),
        &me.config.allowed,
    );
    Ok(Started::new(me))
}

// ---- iframeParent ------------------------------------------------------------------------

/// An `iframeParent` transport's options: this page embeds the client's frame.
#[derive(Clone)]
pub struct ParentConfig {
    /// The `HTMLIFrameElement` the client runs in.
    pub iframe: JsValue,
    /// The origins the frame's content may speak from (`targetOrigin`).
    pub allowed: AllowedOrigins,
    /// The MCP-B channel (`channelId`).
    pub channel: String,
    /// `None`: wait for ever.
    pub timeout_ms: Option<f64>,
    /// How often the readiness check is sent until the frame answers (`checkReadyRetryMs`).
    pub retry_ms: f64,
    /// Rate limit, size limit and violation callback.
    pub security: Security,
}

impl ParentConfig {
    /// `{ iframe, targetOrigin, channelId?, connectionTimeout?, checkReadyRetryMs? }`.
    pub fn from_js(opts: &JsValue, ctx: &str) -> Result<ParentConfig, JsValue> {
        need_window(ctx)?;
        let iframe = js::get(opts, "iframe")?;
        if !js::instance_of(&iframe, "HTMLIFrameElement") {
            return Err(js::option_error(
                ctx,
                ".iframe is required: the HTMLIFrameElement the client runs in",
            ));
        }
        let allowed = origins_from_js(
            &js::get(opts, "targetOrigin")?,
            &format!("{ctx}.targetOrigin"),
            "iframeParent",
        )?
        .ok_or_else(|| {
            js::option_error(
                ctx,
                ".targetOrigin is required: the origin of the iframe's content \
                 (e.g. 'https://app.example'), or '*'",
            )
        })?;
        let number = |key: &'static str, default: f64| -> Result<f64, JsValue> {
            let v = js::get(opts, key)?;
            if v.is_undefined() {
                return Ok(default);
            }
            match v.as_f64() {
                Some(n) if n > 0.0 => Ok(n),
                _ => Err(js::type_error(&format!(
                    "{ctx}.{key} must be a positive number of milliseconds"
                ))),
            }
        };
        let timeout = number("connectionTimeout", DEFAULT_CONNECTION_TIMEOUT_MS)?;
        // A frame on another origin may be hostile: limited by default.
        let security = Security::from_js(opts, ctx)?.limited_by_default(admits_foreign(&allowed));
        Ok(ParentConfig {
            iframe,
            allowed,
            channel: opt_string(opts, "channelId", ctx)?.unwrap_or_else(|| DEFAULT_CHANNEL.into()),
            timeout_ms: timeout.is_finite().then_some(timeout),
            retry_ms: number("checkReadyRetryMs", CHECK_READY_RETRY_MS)?.min(60_000.0),
            security,
        })
    }

    /// Writes the effective options (defaults filled in) onto `o`: `transport.options`.
    pub fn normalize(&self, o: &JsValue) {
        js::set(o, "targetOrigin", &origins_to_js(&self.allowed));
        js::set(o, "channelId", &JsValue::from_str(&self.channel));
        js::set(
            o,
            "connectionTimeout",
            &JsValue::from_f64(self.timeout_ms.unwrap_or(f64::INFINITY)),
        );
    }
}

struct ParentServer {
    hub: Rc<Hub>,
    config: ParentConfig,
    connected: Cell<bool>,
    /// Settles `ready`: fulfilled when the iframe's client connects, rejected on timeout or close.
    ready: js::Deferred,
    probe: RefCell<Option<Timer>>,
    deadline: RefCell<Option<Timer>>,
    listener: RefCell<Option<Listener>>,
    client_origin: RefCell<Option<String>>,
    claim: RefCell<Option<Claim>>,
}

impl ParentServer {
    fn child(&self) -> JsValue {
        js::get(&self.config.iframe, "contentWindow").unwrap_or(JsValue::NULL)
    }

    /// Announces this server to the iframe's current window (`post_to_allowed`: at each
    /// allowed origin the window may be at).
    fn announce(&self) {
        let child = self.child();
        if child.is_object() {
            post_to_allowed(
                &child,
                &self.config.channel,
                &JsValue::from_str(READY),
                &self.config.allowed,
            );
        }
    }

    fn on_message(&self, ev: JsValue) {
        let child = self.child();
        if !child.is_object() {
            return;
        }
        let (channel, allowed) = (&self.config.channel, &self.config.allowed);
        let Some((payload, to)) = accept_client_message(&ev, &child, channel, allowed, &self.hub)
        else {
            return;
        };
        *self.client_origin.borrow_mut() = Some(to.clone());
        if !self.connected.replace(true) {
            self.probe.borrow_mut().take();
            self.deadline.borrow_mut().take();
            self.ready.settle(true, &JsValue::UNDEFINED);
        }
        answer_client(&self.hub, "iframe", child, channel, &payload, to);
    }

    fn give_up(&self) {
        if self.connected.get() {
            return;
        }
        let ms = self.config.timeout_ms.unwrap_or_default();
        let src = js::get(&self.config.iframe, "src")
            .ok()
            .and_then(|s| s.as_string())
            .unwrap_or_default();
        let origins = match &self.config.allowed {
            AllowedOrigins::Any => "any origin".to_string(),
            AllowedOrigins::List(l) => l.join(", "),
        };
        let err = DomError::Timeout(format!(
            "iframeParent transport: no MCP client in the iframe ({src}) answered within {ms} ms \
             (expected 'mcp-check-ready' or a JSON-RPC message on channel {:?} from {origins})",
            self.config.channel
        ))
        .into_js();
        // Rejected with the timeout first, so shutdown's AbortError does not apply.
        self.ready.settle(false, &err);
        self.shutdown(false);
    }

    fn shutdown(&self, announce: bool) {
        if self.listener.borrow_mut().take().is_none() {
            return;
        }
        self.probe.borrow_mut().take();
        self.deadline.borrow_mut().take();
        self.claim.borrow_mut().take();
        self.hub.close();
        if announce {
            let child = self.child();
            if child.is_object() {
                let stopped = JsValue::from_str(STOPPED);
                match self.client_origin.borrow().as_deref() {
                    Some(o) => post(&child, &self.config.channel, &stopped, o),
                    None => post_to_allowed(
                        &child,
                        &self.config.channel,
                        &stopped,
                        &self.config.allowed,
                    ),
                }
            }
        }
        if !self.ready.is_settled() {
            let e = DomError::Abort(
                "The iframeParent transport was closed before the iframe connected".into(),
            );
            self.ready.settle(false, &e.into_js());
        }
    }
}

impl Running for ParentServer {
    fn stop(&self) {
        self.shutdown(true);
    }
    fn is_open(&self) -> bool {
        !self.hub.is_closed()
    }
}

/// Starts serving `server` to the frame; ready once it answers.
pub fn start_parent(server: &Server, c: ParentConfig) -> Result<Started, JsValue> {
    let window = need_window("iframeParent")?;
    let claim = Served::claim_on(
        &c.iframe,
        &format!("iframeParent:{}", c.channel),
        &format!("This iframe (channel {:?})", c.channel),
    )?;
    let me = Rc::new(ParentServer {
        hub: Hub::new(server.clone(), c.security.clone(), "iframeParent", 1),
        config: c,
        connected: Cell::new(false),
        ready: js::Deferred::new(),
        probe: RefCell::new(None),
        deadline: RefCell::new(None),
        listener: RefCell::new(None),
        client_origin: RefCell::new(None),
        claim: RefCell::new(Some(claim)),
    });
    let ready = me.ready.promise().clone();
    let weak: Weak<ParentServer> = Rc::downgrade(&me);
    let w = weak.clone();
    let listener = Listener::dom(window.as_ref(), "message", move |ev: JsValue, _| {
        if let Some(me) = w.upgrade() {
            me.on_message(ev);
        }
    })?;
    *me.listener.borrow_mut() = Some(listener);
    let w = weak.clone();
    *me.probe.borrow_mut() = Some(Timer::interval(me.config.retry_ms, move || {
        if let Some(me) = w.upgrade() {
            me.announce();
        }
    })?);
    if let Some(ms) = me.config.timeout_ms {
        let w = weak;
        *me.deadline.borrow_mut() = Some(Timer::timeout(ms, move || {
            if let Some(me) = w.upgrade() {
                me.give_up();
            }
        })?);
    }
    me.announce();
    let mut started = Started::new(me);
    started.ready = Some(ready);
    Ok(started)
}

//! The tab transport, wire-compatible with MCP-B's `TabServerTransport`: server and
//! client in one window, talking through `window.postMessage` envelopes
//! `{ channel, type: 'mcp', direction, payload }` (see `shared/spec/WIRE.md`).

use js_sys::{Reflect, Symbol};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::guard::{Gate, Security, Text};
use crate::js;
use crate::protocol::error_codes::{INVALID_REQUEST, PARSE_ERROR};
use crate::protocol::jsonrpc::{self, ErrorObject};
use crate::server::{Server, Session};

/// The default channel.
pub const DEFAULT_CHANNEL: &str = "mcp-default";
const READY: &str = "mcp-server-ready";
const CHECK: &str = "mcp-check-ready";
const STOPPED: &str = "mcp-server-stopped";

/// Which origins may talk to the server.
#[derive(Clone, Debug, PartialEq)]
pub enum AllowedOrigins {
    Any,
    List(Vec<String>),
}

impl AllowedOrigins {
    pub fn allows(&self, origin: &str) -> bool {
        match self {
            AllowedOrigins::Any => true,
            AllowedOrigins::List(l) => l.iter().any(|o| o == origin),
        }
    }
}

/// Tab transport settings.
#[derive(Clone, Debug)]
pub struct TabOptions {
    pub enabled: bool,
    pub channel: String,
    pub allowed: AllowedOrigins,
    /// `rateLimit`, `maxMessageBytes`, `onOriginViolation` (`guard.rs`). The peer is the
    /// window itself, so a rate limit applies to the transport as a whole; there is none by
    /// default (the page's own scripts are its clients: a limit would only refuse a
    /// legitimate agent).
    pub security: Security,
}

impl TabOptions {
    /// Reads `false` (off) or `{ channelId, allowedOrigins, onOriginViolation, rateLimit,
    /// maxMessageBytes }`; the default is on, channel `mcp-default`, the page's own origin
    /// only, no rate limit and the engine's message size limit. `'*'` must be asked
    /// for and draws a console warning. `ctx` names the options in error messages.
    pub fn from_js(v: &JsValue, own_origin: &str, ctx: &str) -> Result<TabOptions, JsValue> {
        let mut o = TabOptions {
            enabled: true,
            channel: DEFAULT_CHANNEL.into(),
            allowed: AllowedOrigins::List(vec![own_origin.to_string()]),
            security: Security::default(),
        };
        if v.is_undefined() || v.is_null() || *v == JsValue::TRUE {
            return Ok(o);
        }
        if *v == JsValue::FALSE {
            o.enabled = false;
            return Ok(o);
        }
        if !v.is_object() {
            return Err(js::type_error("tab options must be an object or false"));
        }
        let channel = js::get(v, "channelId")?;
        if !channel.is_undefined() {
            o.channel = js::to_dom_string(&channel)?;
        }
        let allowed = js::get(v, "allowedOrigins")?;
        if !allowed.is_undefined() {
            let list: Vec<String> = js_sys::Array::from(&allowed)
                .iter()
                .map(|x| js::to_dom_string(&x))
                .collect::<Result<_, _>>()?;
            o.allowed = if list.iter().any(|x| x == "*") {
                js::warn("modelcontext-polyfill: the tab transport accepts messages from any origin ('*')");
                AllowedOrigins::Any
            } else {
                AllowedOrigins::List(list)
            };
        }
        o.security = Security::from_js(v, ctx)?;
        Ok(o)
    }
}

fn channels_key() -> Symbol {
    Symbol::for_("modelcontext-polyfill.tab-channels")
}

/// The set of channels served in this window, shared by every copy of the polyfill.
fn served_channels(window: &JsValue) -> js_sys::Set {
    let key = channels_key();
    match Reflect::get(window, &key)
        .ok()
        .and_then(|s| s.dyn_into::<js_sys::Set>().ok())
    {
        Some(s) => s,
        None => {
            let s = js_sys::Set::new(&JsValue::UNDEFINED);
            let _ = Reflect::set(window, &key, &s);
            s
        }
    }
}

type Listener = Closure<dyn FnMut(web_sys::MessageEvent)>;

struct Inner {
    server: Server,
    options: TabOptions,
    /// Rate and size checks (one bucket: the window is the only peer).
    gate: Gate,
    window: web_sys::Window,
    /// `options.channel` as a JS string, made once.
    channel: JsValue,
    /// The current session, shared so a message is fed to it without holding the cell's
    /// borrow (a handler that synchronously stops the server must not hit a `RefCell` panic).
    session: RefCell<Option<Rc<Session>>>,
    /// Sessions a later `initialize` replaced while they had requests running or queued
    /// ([`Session::retire`]): they still answer those, and see the notifications and
    /// responses that may concern them (`notifications/cancelled`, answers to their own
    /// requests to the client), then close themselves.
    retired: RefCell<Vec<Rc<Session>>>,
    listener: RefCell<Option<Listener>>,
}

/// A running tab server. Dropping it stops it (see [`TabServer::stop`]).
pub struct TabServer(Rc<Inner>);

impl Inner {
    fn post(&self, payload: &JsValue) {
        let env: JsValue = js::object().into();
        js::set(&env, "channel", &self.channel);
        js::set(&env, "type", &js::name("mcp"));
        js::set(&env, "direction", &js::name("server-to-client"));
        js::set(&env, "payload", payload);
        let _ = self.window.post_message(&env, "*");
    }

    /// Answers a payload the engine never sees with a JSON-RPC error (`id: null`).
    fn post_error(&self, code: i64, message: &str) {
        let reply = jsonrpc::failure(None, ErrorObject::new(code, message));
        if let Ok(payload) = js::parse(&reply.to_string()) {
            self.post(&payload);
        }
    }

    fn new_session(self: &Rc<Self>) -> Rc<Session> {
        let weak = Rc::downgrade(self);
        Rc::new(self.server.connect(move |text| {
            if let (Some(me), Ok(payload)) = (weak.upgrade(), js::parse(&text)) {
                me.post(&payload);
            }
        }))
    }

    /// The session for the next message: a fresh one for every `initialize` (a client that
    /// connects or reconnects starts over, as with MCP-B's server) and after the current one
    /// closed; otherwise the current one. The wire has no client address, so an `initialize`
    /// may come from a second client in the window rather than the first one starting over:
    /// the replaced session retires instead of closing, and what it was running is still
    /// answered.
    fn session_for(self: &Rc<Self>, is_initialize: bool) -> Rc<Session> {
        if !is_initialize {
            if let Some(s) = self.session.borrow().as_ref().filter(|s| !s.is_closed()) {
                return s.clone();
            }
        }
        let fresh = self.new_session();
        let old = self.session.borrow_mut().replace(fresh.clone());
        if let Some(old) = old {
            old.retire();
            if !old.is_closed() {
                self.retired.borrow_mut().push(old);
            }
        }
        fresh
    }

    /// Hands a notification or response to the retired sessions still running something.
    fn to_retired(&self, text: &str) {
        self.retired.borrow_mut().retain(|s| !s.is_closed());
        let retired: Vec<Rc<Session>> = self.retired.borrow().clone();
        for s in retired {
            s.receive(text);
        }
    }

    fn on_message(self: &Rc<Self>, ev: web_sys::MessageEvent) {
        // Shape checks first: our window, our channel, the client's direction, a payload.
        // Anything else is someone else's traffic and is ignored without a reply.
        let own: &JsValue = self.window.as_ref();
        if ev.source().map(JsValue::from).as_ref() != Some(own) {
            return;
        }
        let data = ev.data();
        let field = |k: &str| js::get(&data, k).unwrap_or(JsValue::UNDEFINED);
        // (Compared as JS strings: nothing is copied into wasm for traffic that is not ours.)
        if field("channel") != self.channel
            || field("type") != js::name("mcp")
            || field("direction") != js::name("client-to-server")
        {
            return;
        }
        let payload = field("payload");
        if payload.is_undefined() || payload.is_null() {
            return;
        }
        let origin = ev.origin();
        if !self.options.allowed.allows(&origin) {
            self.gate.security().violation(&origin);
            return;
        }
        let peer = format!("channel {:?}", self.options.channel);
        if !self.gate.admit(&peer, &payload, |reply| self.post(reply)) {
            return;
        }
        // Control strings. A string that is none of them is a malformed message: MCP-B
        // payloads are JSON-RPC objects, never JSON text.
        if let Some(s) = payload.as_string() {
            if s == CHECK {
                self.post(&JsValue::from_str(READY));
            } else {
                self.post_error(
                    INVALID_REQUEST,
                    &format!(
                        "Invalid request: the payload is the string {:?}, which is neither a \
                         JSON-RPC message nor the control string {CHECK:?}",
                        truncate(&s, 64)
                    ),
                );
            }
            return;
        }
        // A payload JSON cannot represent (a BigInt, …) is a parse error; an oversized one
        // is refused before it is copied into wasm memory.
        let text = match self.gate.text(&payload, |reply| self.post(reply)) {
            Text::Fits(t) => t,
            Text::TooBig(_) => return,
            Text::NotJson => {
                return self.post_error(
                    PARSE_ERROR,
                    "Parse error: the payload has no JSON representation",
                )
            }
            Text::Threw(e) => {
                return self.post_error(
                    PARSE_ERROR,
                    &format!(
                        "Parse error: the payload cannot be serialized as JSON: {}",
                        js::error_message(&e)
                    ),
                )
            }
        };
        let method = js::get(&payload, "method").ok().and_then(|m| m.as_string());
        // A notification or a response (not a request, not a batch) may concern a retired
        // session too.
        let is_request =
            method.is_some() && !js::get(&payload, "id").is_ok_and(|id| id.is_undefined());
        if !is_request && !js_sys::Array::is_array(&payload) {
            self.to_retired(&text);
        }
        self.session_for(method.as_deref() == Some("initialize"))
            .receive(&text);
    }

    /// Stops listening, posts `mcp-server-stopped`, closes the session, frees the channel.
    /// Idempotent: only the call that removes the listener does anything.
    fn stop(&self) {
        let Some(l) = self.listener.borrow_mut().take() else {
            return;
        };
        let _ = self
            .window
            .remove_event_listener_with_callback("message", l.as_ref().unchecked_ref());
        self.post(&JsValue::from_str(STOPPED));
        let session = self.session.borrow_mut().take();
        if let Some(s) = session {
            s.close();
        }
        for s in std::mem::take(&mut *self.retired.borrow_mut()) {
            s.close();
        }
        served_channels(self.window.as_ref()).delete(&JsValue::from_str(&self.options.channel));
    }
}

fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

impl TabServer {
    /// Starts serving on `options.channel`; refuses a channel already served in this window.
    pub fn start(server: Server, options: TabOptions) -> Result<TabServer, JsValue> {
        let window =
            web_sys::window().ok_or_else(|| js::type_error("The tab transport needs a window"))?;
        let served = served_channels(window.as_ref());
        let channel = JsValue::from_str(&options.channel);
        if served.has(&channel) {
            return Err(js::dom_exception(
                "InvalidStateError",
                &format!(
                    "A tab server already serves channel \"{}\" in this window; two would both answer every call.",
                    options.channel
                ),
            ));
        }
        let gate = Gate::new(
            options.security.clone(),
            server.config().limits.max_message_bytes,
            "tab",
        );
        let inner = Rc::new(Inner {
            server,
            options,
            gate,
            window: window.clone(),
            channel: channel.clone(),
            session: RefCell::new(None),
            retired: RefCell::new(Vec::new()),
            listener: RefCell::new(None),
        });
        let weak = Rc::downgrade(&inner);
        let listener =
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
                if let Some(me) = weak.upgrade() {
                    me.on_message(ev);
                }
            });
        window.add_event_listener_with_callback("message", listener.as_ref().unchecked_ref())?;
        *inner.listener.borrow_mut() = Some(listener);
        served.add(&channel);
        inner.post(&JsValue::from_str(READY));
        Ok(TabServer(inner))
    }

    /// Stops serving: posts `mcp-server-stopped`, closes the session, frees the channel.
    pub fn stop(self) {
        self.0.stop();
    }
}

impl Drop for TabServer {
    /// A server dropped without `stop()` must not leave its listener behind: the closure
    /// is freed with it, and a freed closure still registered would throw on every message.
    fn drop(&mut self) {
        self.0.stop();
    }
}

// ---- persistence hooks (used by `persist.rs`, the `persist` option) ------------------------

impl TabServer {
    /// The channel served.
    pub fn channel(&self) -> &str {
        &self.0.options.channel
    }

    /// A snapshot of the current session (`Session::snapshot`), if one is open.
    pub fn session_snapshot(&self) -> Option<serde_json::Value> {
        self.0
            .session
            .borrow()
            .as_ref()
            .filter(|s| !s.is_closed())
            .map(|s| s.snapshot())
    }

    /// Makes a session restored from `snapshot` (`Server::connect_restored`) the current one.
    pub fn restore_session(&self, snapshot: &serde_json::Value) -> Result<(), String> {
        let weak = Rc::downgrade(&self.0);
        let session = self.0.server.connect_restored(snapshot, move |text| {
            if let (Some(me), Ok(payload)) = (weak.upgrade(), js::parse(&text)) {
                me.post(&payload);
            }
        })?;
        let old = self.0.session.borrow_mut().replace(Rc::new(session));
        if let Some(old) = old {
            old.close();
        }
        Ok(())
    }
}

//! The tab transport, wire-compatible with MCP-B's `TabServerTransport`: server and
//! client in one window, talking through `window.postMessage` envelopes
//! `{ channel, type: 'mcp', direction, payload }` (see `shared/spec/WIRE.md`).

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

use super::guard::{origins_from_js, AllowedOrigins, Security};
use super::hub::{Hub, Reply, Rules};
use super::served::{Claim, Served};
use crate::collections::VecMap;
use crate::js::{self, Listener, MessageGate};
use crate::protocol::error_codes::INVALID_REQUEST;
use crate::protocol::jsonrpc::{self, ErrorObject};
use crate::server::{Replaced, Server, Session, SessionChain};
use crate::wire::mcpb::{self, open_envelope, CHECK, READY, STOPPED, TO_CLIENT, TO_SERVER, TYPE};

pub use crate::wire::tab::DEFAULT_CHANNEL;

/// Tab transport settings.
#[derive(Clone, Debug)]
pub struct TabOptions {
    /// Whether the installer starts the tab transport (`tab: false` turns it off).
    pub enabled: bool,
    /// The MCP-B channel (`channelId`).
    pub channel: String,
    /// The origins a client's messages may come from (`allowedOrigins`).
    pub allowed: AllowedOrigins,
    /// `rateLimit`, `maxMessageBytes`, `onOriginViolation` (`guard.rs`). The peer is the
    /// window itself, so a rate limit applies to the transport as a whole; there is none by
    /// default (the page's own scripts are its clients: a limit would only refuse a
    /// legitimate agent).
    pub security: Security,
    /// What the server does when another server answers on its channel in this window (see
    /// [`TabServer`]): `true`, stop serving, so that each request is answered once (the
    /// default tab server, which the page did not ask for); `false`, keep serving (a server the
    /// page made). Both warn. Not an option a page sets.
    pub yields: bool,
}

impl TabOptions {
    /// Reads `false` (off) or `{ channelId, allowedOrigins, onOriginViolation, rateLimit,
    /// maxMessageBytes }`; the default is on, channel `mcp-default`, the page's own origin
    /// only, no rate limit and the engine's message size limit. `allowedOrigins` follows the
    /// rule every transport's origin list does ([`origins_from_js`]): origins, or `'*'`, which
    /// must be asked for and draws a console warning. `ctx` names the options in error
    /// messages.
    pub fn from_js(v: &JsValue, own_origin: &str, ctx: &str) -> Result<TabOptions, JsValue> {
        let mut o = TabOptions {
            enabled: true,
            channel: DEFAULT_CHANNEL.into(),
            allowed: AllowedOrigins::List(vec![own_origin.to_string()]),
            security: Security::default(),
            yields: false,
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
        if let Some(a) = origins_from_js(&allowed, &format!("{ctx}.allowedOrigins"), "tab")? {
            o.allowed = a;
        }
        o.security = Security::from_js(v, ctx)?;
        Ok(o)
    }
}

/// A running tab server: one [`Hub`] peer (the window), whose sessions a later `initialize`
/// retires rather than closes: the wire has no client address, so the `initialize` may come
/// from a second client in the window, and what the first was running is still answered.
/// Dropping it stops it (see [`TabServer::stop`]).
///
/// Another server on the same channel, which this realm's claim cannot see (`@mcp-b/global`
/// starts one with its own `document.modelContext`), would answer every request too, and a
/// client would keep whichever answer came first. Each server answers a client's
/// `mcp-check-ready` with `mcp-server-ready`, and announces itself with one when it starts, so
/// the server counts the `mcp-server-ready`s it posts and watches the channel's: one it did not
/// post is another server's. The count is the realm's, per channel (`READIES`): a server
/// stopped and another started on its channel at once would otherwise take the first one's
/// last `mcp-server-ready`, still on its way, for someone else's. A client posts its
/// `initialize` only after its first `mcp-server-ready`, so the check answers of both servers
/// come before it. A server that [`TabOptions::yields`] then stops serving without posting
/// `mcp-server-stopped` (which would end the other server's clients); one that does not keeps
/// serving. Each warns once.
pub struct TabServer(Rc<Inner>);

thread_local! {
    /// Per channel, the `mcp-server-ready`s this realm's tab servers posted that no server has
    /// seen yet (see [`TabServer`]); a channel leaves the list at 0.
    static READIES: RefCell<VecMap<String, u32>> = const { RefCell::new(VecMap::new()) };
}

struct Inner {
    hub: Rc<Hub>,
    options: TabOptions,
    window: web_sys::Window,
    /// `options.channel` as a JS string, made once.
    channel: JsValue,
    /// The hub's name for the one peer, the window (`channel "mcp-default"`), as warnings
    /// show it.
    peer: String,
    listener: RefCell<Option<Listener>>,
    /// The listener that sees the channel's `mcp-server-ready`s.
    watch: RefCell<Option<Listener>>,
    /// Whether another server was seen (and warned of).
    other_seen: Cell<bool>,
    /// This window's origin, every message's here, and whether `options.allowed` allows it.
    own_origin: String,
    own_allowed: bool,
    claim: RefCell<Option<Claim>>,
}

impl Inner {
    fn post(&self, payload: &JsValue) {
        let window: &JsValue = self.window.as_ref();
        // Target origin '*': the page's own window.
        let _ = mcpb::post(window, &self.channel, TO_CLIENT, payload, &js::name("*"));
    }

    /// Posts `mcp-server-ready`, counted (see [`TabServer`]).
    fn post_ready(&self) {
        READIES.with(|r| {
            *r.borrow_mut()
                .get_or_insert_with(self.options.channel.clone(), || 0) += 1;
        });
        self.post(&JsValue::from_str(READY));
    }

    /// A `mcp-server-ready` on our channel from our window: ours, or another server's.
    fn on_ready_seen(&self) {
        let channel = self.options.channel.as_str();
        let ours = READIES.with(|r| {
            let mut r = r.borrow_mut();
            let n = r.get_mut(channel)?;
            *n -= 1;
            if *n == 0 {
                r.remove(channel);
            }
            Some(())
        });
        if ours.is_some() || self.other_seen.replace(true) {
            return;
        }
        if self.options.yields {
            js::warn(&format!(
                "modelcontext-polyfill: another MCP server answers on the tab channel {channel:?} in this \
                 window (@mcp-b/global runs one, for example). The polyfill's default tab server stops, so \
                 that each request is answered once; to serve on the tab too, give it another channel \
                 (modelContextPolyfillConfig.tab.channelId)."
            ));
            self.shut(false);
        } else {
            js::warn(&format!(
                "modelcontext-polyfill: another MCP server also answers on the tab channel {channel:?} in \
                 this window, so every request there is answered twice; serve on another channelId."
            ));
        }
    }

    fn reply(self: &Rc<Self>) -> Reply {
        let weak = Rc::downgrade(self);
        Rc::new(move |payload: &JsValue| {
            if let Some(me) = weak.upgrade() {
                me.post(payload);
            }
        })
    }

    /// The check order: our window as the source, our channel, the client's direction and a
    /// payload (anything else is someone else's traffic, ignored without a reply); then the
    /// origin; then the control strings; then the hub (rate, size, the session). `checked` is
    /// the data the message gate found to come from our window on our channel going to the
    /// server, or `undefined` without a gate (`js::MessageGate`), when those checks are made
    /// here.
    fn on_message(self: &Rc<Self>, ev: &JsValue, checked: &JsValue) {
        let payload = if checked.is_object() {
            mcpb::payload_of(checked)
        } else {
            // (`ev` is a MessageEvent: its members are read without a type test.)
            let own: &JsValue = self.window.as_ref();
            if js::field(ev, "source").ok().as_ref() != Some(own) {
                return;
            }
            let data = js::field(ev, "data").unwrap_or(JsValue::UNDEFINED);
            open_envelope(&data, &self.channel, TO_SERVER)
        };
        let Some(payload) = payload else {
            return;
        };
        // The source is this window (checked above, or by the gate), and a message event's
        // source and origin both come from the realm that posted it: the origin is this
        // window's own, not read from the event (each read makes a new string).
        if !self.own_allowed {
            self.hub.security().violation(&self.own_origin);
            return;
        }
        // Control strings (answered with a constant, without a session). A string that is
        // none of them is a malformed message: MCP-B payloads are JSON-RPC objects, never
        // JSON text.
        if let Some(s) = payload.as_string() {
            if s == CHECK {
                self.post_ready();
            } else {
                let e = ErrorObject::new(
                    INVALID_REQUEST,
                    format!(
                        "Invalid request: the payload is the string {:?}, which is neither a \
                         JSON-RPC message nor the control string {CHECK:?}",
                        truncate(&s, 64)
                    ),
                );
                self.post(&js::from_json(&jsonrpc::failure(None, e)));
            }
            return;
        }
        self.hub.deliver(&self.peer, &payload, self.reply());
    }

    /// Stops listening, posts `mcp-server-stopped` when `announce`, closes the sessions, frees
    /// the channel. Idempotent: only the call that removes the listener does anything.
    fn shut(&self, announce: bool) {
        if self.listener.borrow_mut().take().is_none() {
            return;
        }
        self.watch.borrow_mut().take();
        if announce {
            self.post(&JsValue::from_str(STOPPED));
        }
        self.hub.close();
        self.claim.borrow_mut().take();
    }

    fn stop(&self) {
        self.shut(true);
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
        let claim = Served::claim_name(
            &format!("tab:{}", options.channel),
            &format!("The tab channel \"{}\"", options.channel),
        )?;
        let rules = Rules {
            replaced: Replaced::Retire,
            answer_malformed: true,
            ..Rules::default()
        };
        let hub = Hub::with_rules(server, options.security.clone(), "tab", 1, rules);
        let channel = JsValue::from_str(&options.channel);
        let peer = format!("channel {:?}", options.channel);
        let own_origin = js::own_origin();
        let own_allowed = options.allowed.allows(&own_origin);
        let inner = Rc::new(Inner {
            hub,
            options,
            window: window.clone(),
            channel,
            peer,
            listener: RefCell::new(None),
            watch: RefCell::new(None),
            other_seen: Cell::new(false),
            own_origin,
            own_allowed,
            claim: RefCell::new(Some(claim)),
        });
        let weak = Rc::downgrade(&inner);
        // Gated on the first checks of `on_message` (`open_envelope`'s, in its order): our
        // window, our channel, the wire's type, the client's direction (so our own answers,
        // which this listener hears too, stay in JS).
        let (kind, to_server) = (js::name(TYPE), js::name(TO_SERVER));
        let fields = [
            ("channel", Some(&inner.channel)),
            ("type", Some(&kind)),
            ("direction", Some(&to_server)),
        ];
        let gate = MessageGate {
            source: Some(window.as_ref()),
            fields: &fields,
        };
        let listener = Listener::message(window.as_ref(), gate, move |ev: JsValue, checked| {
            if let Some(me) = weak.upgrade() {
                me.on_message(&ev, &checked);
            }
        })?;
        *inner.listener.borrow_mut() = Some(listener);
        // The channel's `mcp-server-ready`s (the gate keeps every other message in JS). The
        // payload is compared first: it is what sets a request or an answer apart at once.
        let (to_client, ready) = (js::name(TO_CLIENT), js::name(READY));
        let fields = [
            ("payload", Some(&ready)),
            ("direction", Some(&to_client)),
            ("channel", Some(&inner.channel)),
            ("type", Some(&kind)),
        ];
        let gate = MessageGate {
            source: Some(window.as_ref()),
            fields: &fields,
        };
        let weak = Rc::downgrade(&inner);
        let watch = Listener::message(window.as_ref(), gate, move |_, _| {
            if let Some(me) = weak.upgrade() {
                me.on_ready_seen();
            }
        })?;
        *inner.watch.borrow_mut() = Some(watch);
        inner.post_ready();
        Ok(TabServer(inner))
    }

    /// Whether it still serves (false once stopped, or after it gave way to another server).
    pub fn is_open(&self) -> bool {
        self.0.listener.borrow().is_some()
    }

    /// Stops serving: posts `mcp-server-stopped`, closes the sessions, frees the channel.
    pub fn stop(self) {
        self.0.stop();
    }
}

impl Drop for TabServer {
    /// A server dropped without `stop()` stops too: its listener and its claim on the
    /// channel go with it.
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

    fn chain(&self) -> Rc<SessionChain> {
        self.0.hub.chain_or_open(&self.0.peer, self.0.reply())
    }

    /// A snapshot of the current session (`Session::snapshot`), if one is open.
    pub fn session_snapshot(&self) -> Option<serde_json::Value> {
        let chain = self.0.hub.chain(&self.0.peer)?;
        chain.current().map(|s: Rc<Session>| s.snapshot())
    }

    /// Makes a session restored from `snapshot` (`Server::connect_restored`) the current one.
    pub fn restore_session(&self, snapshot: &serde_json::Value) -> Result<(), String> {
        self.chain().restore(snapshot)
    }
}

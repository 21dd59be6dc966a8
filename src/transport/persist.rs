//! The tab transport as `connect()` opens it (`tab.rs` holds the transport itself), and its
//! `persist` option (the seed's TabServerTransport state persistence).
//!
//! With `persist: true` (or `{ storagePrefix }`) the tab session's state — negotiated
//! version, client info and capabilities, initialized flag, log level, subscriptions, and
//! the ids of requests still running — is kept in `sessionStorage` under
//! `<storagePrefix>-session-<channelId>` (prefix default `mcp-tab`), written after every
//! client message and on `pagehide`. When a page of the same tab (a reload, a same-origin
//! navigation) starts a persisted tab server on that channel, the session is restored: the
//! agent goes on calling tools without a new `initialize`; requests that were running when
//! the page went away are answered with an error.

use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

use super::tab::{TabOptions, TabServer};
use super::{opt_string, Running, Started};
use crate::js;
use crate::js::Listener;
use crate::protocol::json_text;
use crate::server::Server;
use crate::wire::mcpb;

/// The `sessionStorage` key prefix when `persist` is `true`.
pub const DEFAULT_STORAGE_PREFIX: &str = "mcp-tab";

/// A tab transport's options as `connect()` reads them.
#[derive(Clone)]
pub struct TabConfig {
    /// The tab transport's own options.
    pub tab: TabOptions,
    /// `Some(prefix)` when the session persists.
    pub persist: Option<String>,
}

impl TabConfig {
    /// `{ channelId?, allowedOrigins?, onOriginViolation?, rateLimit?, maxMessageBytes?,
    /// persist? }`; also `false` (off), `true`, `undefined` or `null` (the defaults), as
    /// `modelContextPolyfillConfig.tab` may be.
    pub fn from_js(opts: &JsValue, ctx: &str) -> Result<TabConfig, JsValue> {
        let tab = TabOptions::from_js(opts, &js::own_origin(), ctx)?;
        let p = if opts.is_object() {
            js::get(opts, "persist")?
        } else {
            JsValue::UNDEFINED
        };
        let persist = if p.is_undefined() || p.is_null() || p == JsValue::FALSE {
            None
        } else if p == JsValue::TRUE {
            Some(DEFAULT_STORAGE_PREFIX.to_string())
        } else if p.is_object() {
            Some(
                opt_string(&p, "storagePrefix", &format!("{ctx}.persist"))?
                    .unwrap_or_else(|| DEFAULT_STORAGE_PREFIX.into()),
            )
        } else {
            return Err(js::option_error(
                ctx,
                ".persist must be a boolean or { storagePrefix }",
            ));
        };
        Ok(TabConfig { tab, persist })
    }

    /// Writes the effective options (defaults filled in) onto `o`: `transport.options`.
    pub fn normalize(&self, o: &JsValue) {
        js::set(o, "channelId", &JsValue::from_str(&self.tab.channel));
        js::set(
            o,
            "allowedOrigins",
            &super::post_message::origins_to_js(&self.tab.allowed),
        );
        js::set(o, "persist", &JsValue::from_bool(self.persist.is_some()));
    }

    /// The `sessionStorage` key of this channel's session.
    pub fn storage_key(&self) -> Option<String> {
        self.persist
            .as_ref()
            .map(|p| format!("{p}-session-{}", self.tab.channel))
    }
}

struct TabRunning {
    tab: RefCell<Option<TabServer>>,
    /// `sessionStorage` key, when persisting.
    key: Option<String>,
    listeners: RefCell<Vec<Listener>>,
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

impl TabRunning {
    /// Writes the session's state to `sessionStorage` (or removes it when there is none
    /// worth keeping: no session, or one not initialized).
    fn save(&self) {
        let (Some(key), Some(store)) = (&self.key, storage()) else {
            return;
        };
        let snap = self
            .tab
            .borrow()
            .as_ref()
            .and_then(|t| t.session_snapshot());
        match snap.filter(|s| !s["protocolVersion"].is_null()) {
            Some(s) => {
                let _ = store.set_item(key, &json_text::to_string(&s));
            }
            None => {
                let _ = store.remove_item(key);
            }
        }
    }

    /// Loads the session a previous page of this tab kept, if any.
    fn restore(&self) {
        let (Some(key), Some(store)) = (&self.key, storage()) else {
            return;
        };
        let Ok(Some(text)) = store.get_item(key) else {
            return;
        };
        let restored = crate::protocol::values::parse(&text)
            .map_err(|e| e.to_string())
            .and_then(|snap| match self.tab.borrow().as_ref() {
                Some(t) => t.restore_session(&snap),
                None => Ok(()),
            });
        if let Err(e) = restored {
            js::warn(&format!(
                "modelcontext-polyfill: the tab session kept in sessionStorage[{key:?}] could not be restored ({e}); \
                 the client must initialize again"
            ));
            let _ = store.remove_item(key);
        }
    }
}

impl Running for TabRunning {
    fn stop(&self) {
        self.listeners.borrow_mut().clear();
        let tab = self.tab.borrow_mut().take();
        if let Some(t) = tab {
            t.stop();
        }
        // A session the page ends on purpose is not carried to the next page.
        if let (Some(key), Some(store)) = (&self.key, storage()) {
            let _ = store.remove_item(key);
        }
    }
    fn is_open(&self) -> bool {
        self.tab.borrow().as_ref().is_some_and(|t| t.is_open())
    }
}

/// Starts the tab transport on `server`, restoring a persisted session first when asked to.
pub fn start(server: &Server, c: TabConfig) -> Result<Started, JsValue> {
    let tab = TabServer::start(server.clone(), c.tab.clone())?;
    let me = Rc::new(TabRunning {
        tab: RefCell::new(Some(tab)),
        key: c.storage_key(),
        listeners: RefCell::new(Vec::new()),
    });
    if me.key.is_some() {
        persist_session(&me, &c.tab.channel)?;
    }
    Ok(Started::new(me))
}

/// A persisted session: restored now, saved after every client message and on `pagehide`.
/// Apart from [`start`] (`scripts/lib/core-split.mjs`, `CORE_APART`): a page's start runs
/// `start`, and only the engine of a persisted session, which waits for the core's deferred
/// module (`polyfill/src/install.js`), runs this.
#[inline(never)]
fn persist_session(me: &Rc<TabRunning>, channel: &str) -> Result<(), JsValue> {
    me.restore();
    let window = js::global();
    // Runs after the tab server's own listener (added first): the state a client message
    // changed is saved as soon as it changed.
    let weak = Rc::downgrade(me);
    let channel = JsValue::from_str(channel);
    let on_message = Listener::dom(&window, "message", move |ev: JsValue, _| {
        let data = js::get(&ev, "data").unwrap_or(JsValue::UNDEFINED);
        let ours = mcpb::is_to_server(&data, &channel);
        if let (true, Some(me)) = (ours, weak.upgrade()) {
            me.save();
        }
    })?;
    let weak = Rc::downgrade(me);
    let on_hide = Listener::dom(&window, "pagehide", move |_, _| {
        if let Some(me) = weak.upgrade() {
            me.save();
        }
    })?;
    me.listeners.borrow_mut().extend([on_message, on_hide]);
    Ok(())
}

//! The tab transport, wire-compatible with MCP-B's `TabServerTransport`: server and
//! client in one window, talking through `window.postMessage` envelopes
//! `{ channel, type: 'mcp', direction, payload }` (see `shared/spec/WIRE.md`).

use js_sys::{Reflect, Symbol};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::browser::js;
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
    pub on_violation: Option<js_sys::Function>,
}

impl TabOptions {
    /// Reads `false` (off) or `{ channelId, allowedOrigins, onOriginViolation }`; the
    /// default is on, channel `mcp-default`, the page's own origin only. `'*'` must be
    /// asked for and draws a console warning.
    pub fn from_js(v: &JsValue, own_origin: &str) -> Result<TabOptions, JsValue> {
        let mut o = TabOptions {
            enabled: true,
            channel: DEFAULT_CHANNEL.into(),
            allowed: AllowedOrigins::List(vec![own_origin.to_string()]),
            on_violation: None,
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
        let cb = js::get(v, "onOriginViolation")?;
        o.on_violation = cb.dyn_into().ok();
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
    window: web_sys::Window,
    session: RefCell<Option<Session>>,
    listener: RefCell<Option<Listener>>,
}

/// A running tab server.
pub struct TabServer(Rc<Inner>);

impl Inner {
    fn post(&self, payload: &JsValue) {
        let env: JsValue = js::object().into();
        js::set(&env, "channel", &JsValue::from_str(&self.options.channel));
        js::set(&env, "type", &JsValue::from_str("mcp"));
        js::set(&env, "direction", &JsValue::from_str("server-to-client"));
        js::set(&env, "payload", payload);
        let _ = self.window.post_message(&env, "*");
    }

    fn new_session(self: &Rc<Self>) -> Session {
        let weak = Rc::downgrade(self);
        self.server.connect(move |text| {
            if let (Some(me), Ok(payload)) = (weak.upgrade(), js::parse(&text)) {
                me.post(&payload);
            }
        })
    }

    fn on_message(self: &Rc<Self>, ev: web_sys::MessageEvent) {
        // Shape checks first: our window, our channel, the client's direction.
        let own: &JsValue = self.window.as_ref();
        if ev.source().map(JsValue::from).as_ref() != Some(own) {
            return;
        }
        let data = ev.data();
        let field = |k: &str| js::get(&data, k).unwrap_or(JsValue::UNDEFINED);
        if field("channel").as_string().as_deref() != Some(self.options.channel.as_str())
            || field("type").as_string().as_deref() != Some("mcp")
            || field("direction").as_string().as_deref() != Some("client-to-server")
        {
            return;
        }
        let payload = field("payload");
        if payload.is_undefined() || payload.is_null() {
            return;
        }
        let origin = ev.origin();
        if !self.options.allowed.allows(&origin) {
            if let Some(cb) = &self.options.on_violation {
                let _ = cb.call1(&JsValue::UNDEFINED, &JsValue::from_str(&origin));
            }
            return;
        }
        if let Some(s) = payload.as_string() {
            if s == CHECK {
                self.post(&JsValue::from_str(READY));
            }
            return;
        }
        // A client that (re)connects starts over with `initialize`: give it a fresh
        // session, as MCP-B's server does.
        let is_initialize = js::get(&payload, "method")
            .ok()
            .and_then(|m| m.as_string())
            .as_deref()
            == Some("initialize");
        let text = match js::stringify(&payload) {
            Ok(Some(t)) => t,
            _ => return,
        };
        let needs_new = {
            let s = self.session.borrow();
            s.as_ref()
                .is_none_or(|s| is_initialize && s.protocol_version().is_some())
        };
        if needs_new {
            let fresh = self.new_session();
            if let Some(old) = self.session.borrow_mut().replace(fresh) {
                old.close();
            }
        }
        let session = self.session.borrow();
        if let Some(s) = session.as_ref() {
            s.receive(&text);
        }
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
        let inner = Rc::new(Inner {
            server,
            options,
            window: window.clone(),
            session: RefCell::new(None),
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
        let inner = &self.0;
        if let Some(l) = inner.listener.borrow_mut().take() {
            let _ = inner
                .window
                .remove_event_listener_with_callback("message", l.as_ref().unchecked_ref());
        }
        inner.post(&JsValue::from_str(STOPPED));
        if let Some(s) = inner.session.borrow_mut().take() {
            s.close();
        }
        served_channels(inner.window.as_ref()).delete(&JsValue::from_str(&inner.options.channel));
    }
}

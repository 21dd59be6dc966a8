//! `TabClientTransport`: a client for a server in the same window, wire-compatible with
//! MCP-B's `TabClientTransport` (envelopes `{ channel, type: 'mcp', direction, payload }`,
//! see `shared/spec/WIRE.md`). `start()` posts `'mcp-check-ready'` and resolves on
//! `'mcp-server-ready'` (or the server's first message); `'mcp-server-stopped'` closes.
//!
//! ```js
//! const t = new TabClientTransport({ channelId: 'mcp-default', targetOrigin: location.origin });
//! ```

use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

use super::base::{
    client_transport_class, opt_ms, opt_string, options_object, window_message, Base, Port, Ready,
    Wire,
};
use crate::browser::runtime::BrowserRuntime;
use crate::client::Handshake;
use crate::js;
use crate::js::Listener;
use crate::server::CancellationToken;
use crate::wire::mcpb::{self, open_envelope, CHECK, READY, STOPPED, TO_CLIENT, TO_SERVER};

pub use crate::wire::tab::DEFAULT_CHANNEL;

/// What an incoming server payload means for the connection.
pub(crate) enum Incoming {
    Ready,
    Stopped,
    Message(JsValue),
    Ignored,
}

pub(crate) fn classify(payload: JsValue) -> Incoming {
    match payload.as_string() {
        Some(s) if s == READY => Incoming::Ready,
        Some(s) if s == STOPPED => Incoming::Stopped,
        Some(_) => Incoming::Ignored,
        None => Incoming::Message(payload),
    }
}

/// Posts `payload` to the server's window `w` in a client-to-server envelope on `channel`:
/// from a microtask of its own once the installer has handed over its envelope poster
/// (`setClientHelpers`, `src/client/bridge.rs`), as the core's transports post (see
/// [`mcpb::post`]); a post that fails then is reported from there.
pub(crate) fn post_to_server(
    w: &JsValue,
    channel: &str,
    payload: &JsValue,
    target_origin: &str,
) -> Result<(), JsValue> {
    mcpb::post(
        w,
        &JsValue::from_str(channel),
        TO_SERVER,
        payload,
        &JsValue::from_str(target_origin),
    )
}

/// Posts `'mcp-check-ready'` to the server's window `w`, reporting a failure.
pub(crate) fn post_check(w: &JsValue, channel: &str, target_origin: &str) {
    if let Err(e) = post_to_server(w, channel, &JsValue::from_str(CHECK), target_origin) {
        js::report(&e);
    }
}

/// What the server said in `data` (when it is a server-to-client envelope on `channel`):
/// `'mcp-server-ready'` or any message settles `ready` and a message goes to `port`;
/// `'mcp-server-stopped'` closes the connection, saying that `server` stopped.
pub(crate) fn on_server_data(
    data: &JsValue,
    channel: &str,
    server: &str,
    ready: &CancellationToken,
    port: &Port,
) {
    let Some(payload) = open_envelope(data, &JsValue::from_str(channel), TO_CLIENT) else {
        return;
    };
    match classify(payload) {
        Incoming::Ready => ready.cancel("ready"),
        Incoming::Stopped => port.closed(&format!(
            "{server} on channel {channel:?} stopped (mcp-server-stopped)"
        )),
        Incoming::Message(m) => {
            ready.cancel("ready");
            port.message(m);
        }
        Incoming::Ignored => {}
    }
}

struct TabWire {
    channel: String,
    target_origin: String,
    connection_timeout: Option<u64>,
    listener: RefCell<Option<Listener>>,
}

impl TabWire {
    fn window() -> Result<JsValue, JsValue> {
        web_sys::window().map(JsValue::from).ok_or_else(|| {
            js::no_window(
                "TabClientTransport",
                "it talks to a server in the same window",
            )
        })
    }

    fn post_payload(&self, payload: &JsValue) -> Result<(), JsValue> {
        post_to_server(
            &TabWire::window()?,
            &self.channel,
            payload,
            &self.target_origin,
        )
    }
}

impl Wire for TabWire {
    fn open(&self, port: Port) -> Result<Ready, JsValue> {
        let window = TabWire::window()?;
        let ready = CancellationToken::new();
        let (channel, origin, r, own) = (
            self.channel.clone(),
            self.target_origin.clone(),
            ready.clone(),
            window.clone(),
        );
        let listener = Listener::dom(&window, "message", move |ev: JsValue, _| {
            // Our window only, then the origin, then the envelope.
            if let Some(data) = window_message(&ev, Some(&own), &origin) {
                on_server_data(&data, &channel, "the tab server", &r, &port);
            }
        })?;
        *self.listener.borrow_mut() = Some(listener);
        let (channel, origin) = (self.channel.clone(), self.target_origin.clone());
        let check: Rc<dyn Fn()> = Rc::new(move || {
            if let Ok(w) = TabWire::window() {
                post_check(&w, &channel, &origin);
            }
        });
        let timeout = self.connection_timeout;
        let channel = self.channel.clone();
        let handshake = Handshake {
            interval_ms: None,
            timeout_ms: timeout,
        }
        .run(
            Rc::new(BrowserRuntime),
            check,
            ready,
            CancellationToken::new(),
        );
        Ok(Box::pin(async move {
            handshake.await.map_err(|_| {
                format!(
                    "no tab server answered 'mcp-check-ready' on channel {channel:?} within {} ms",
                    timeout.unwrap_or_default()
                )
            })
        }))
    }

    fn post(&self, message: &JsValue) -> Result<(), JsValue> {
        self.post_payload(message)
    }

    fn shut(&self) {
        self.listener.borrow_mut().take();
    }
}

client_transport_class!(TabClientTransport);

#[wasm_bindgen]
impl TabClientTransport {
    /// `new TabClientTransport({ channelId = 'mcp-default', targetOrigin = location.origin,
    /// connectionTimeout })`. `targetOrigin` is checked against every message's origin
    /// (`'*'` skips it; only this window's own messages are read either way); `connectionTimeout` bounds `start()` (ms;
    /// default: wait for the server).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<TabClientTransport, JsValue> {
        let ctx = "new TabClientTransport(options): options";
        let o = options_object(&options, ctx)?;
        let channel = opt_string(&o, "channelId", ctx)?.unwrap_or_else(|| DEFAULT_CHANNEL.into());
        if channel.is_empty() {
            return Err(js::type_error(&format!(
                "{ctx}.channelId must not be empty"
            )));
        }
        // No warning for '*' here: only this very window's messages are accepted anyway.
        let target_origin = opt_string(&o, "targetOrigin", ctx)?.unwrap_or_else(js::own_origin);
        let wire = TabWire {
            channel,
            target_origin,
            connection_timeout: opt_ms(&o, "connectionTimeout", ctx)?,
            listener: RefCell::new(None),
        };
        Ok(TabClientTransport {
            base: Base::new("TabClientTransport", Box::new(wire)),
        })
    }
}

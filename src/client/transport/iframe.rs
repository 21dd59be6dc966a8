//! `IframeParentClientTransport`: the embedding page's client for a server inside an
//! iframe, wire-compatible with MCP-B's `IframeParentTransport` (MCP-B envelopes on channel
//! `mcp-iframe`). `start()` posts `'mcp-check-ready'` to `iframe.contentWindow` every
//! `checkIntervalMs` (250) until the child answers `'mcp-server-ready'`, and fails with a
//! clear error after `connectionTimeout` (10 s). Only messages whose `event.source` is the
//! iframe's current window and whose origin is `targetOrigin` are read. Once the iframe has
//! had a window, the transport closes when it has none (the element was removed from the
//! document, and its server with it): the frame's window is looked at every
//! [`base::GONE_POLL_MS`], so a client's requests in flight end then, not at their timeout.
//!
//! ```js
//! const t = new IframeParentClientTransport({ iframe, targetOrigin: 'https://app.example' });
//! ```

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

use super::base::{
    self, client_transport_class, opt_ms, opt_string, options_object, window_message, Base, Port,
    Ready, Wire,
};
use super::tab::{on_server_data, post_check, post_to_server};
use crate::browser::runtime::BrowserRuntime;
use crate::client::{Handshake, HandshakeError};
use crate::js;
use crate::js::Listener;
use crate::server::CancellationToken;

use crate::wire::iframe::may_be_at;
pub use crate::wire::iframe::{
    CHECK_INTERVAL_MS as DEFAULT_CHECK_INTERVAL_MS,
    CONNECTION_TIMEOUT_MS as DEFAULT_CONNECTION_TIMEOUT_MS, DEFAULT_CHANNEL,
};

struct IframeWire {
    iframe: JsValue,
    target_origin: String,
    channel: String,
    check_interval: u64,
    connection_timeout: u64,
    listener: RefCell<Option<Listener>>,
    /// The look at the iframe's window ([`base::watch_peer`]), while listening.
    watch: RefCell<Option<js::Timer>>,
}

fn content_window(iframe: &JsValue) -> Option<JsValue> {
    js::get(iframe, "contentWindow")
        .ok()
        .filter(|w| !w.is_null() && !w.is_undefined())
}

impl Wire for IframeWire {
    fn open(&self, port: Port) -> Result<Ready, JsValue> {
        let gone = port.clone();
        // Whether the iframe has had a window since this connection began: an element not
        // yet in the document has none, which is no loss. (Any window the checks or the
        // server's messages met counts, whenever the iframe was removed.)
        let had_window = Rc::new(Cell::new(content_window(&self.iframe).is_some()));
        let window: JsValue = web_sys::window()
            .map(JsValue::from)
            .ok_or_else(|| js::type_error("IframeParentClientTransport needs a window"))?;
        let ready = CancellationToken::new();
        let (iframe, channel, origin, r) = (
            self.iframe.clone(),
            self.channel.clone(),
            self.target_origin.clone(),
            ready.clone(),
        );
        let had = had_window.clone();
        let listener = Listener::dom(&window, "message", move |ev: JsValue, _| {
            // The iframe's current window (it changes when the frame navigates).
            if let Some(data) = window_message(&ev, content_window(&iframe).as_ref(), &origin) {
                had.set(true);
                on_server_data(&data, &channel, "the iframe's server", &r, &port);
            }
        })?;
        *self.listener.borrow_mut() = Some(listener);
        // The iframe removed: no window, and no server, will answer again.
        let (iframe, had) = (self.iframe.clone(), had_window.clone());
        *self.watch.borrow_mut() = Some(base::watch_peer(
            gone,
            "the iframe was removed from the document",
            Box::new(move || {
                let has = content_window(&iframe).is_some();
                had.set(had.get() || has);
                had.get() && !has
            }),
        )?);
        let (iframe, channel, origin) = (
            self.iframe.clone(),
            self.channel.clone(),
            self.target_origin.clone(),
        );
        // Posted to whatever window the iframe holds at each check (none before it loads),
        // unless it is known not to be at the target origin (the frame's first document).
        let check: Rc<dyn Fn()> = Rc::new(move || {
            if let Some(w) = content_window(&iframe) {
                had_window.set(true);
                if may_be_at(&w, &origin) {
                    post_check(&w, &channel, &origin);
                }
            }
        });
        let handshake = Handshake {
            interval_ms: Some(self.check_interval),
            timeout_ms: Some(self.connection_timeout),
        }
        .run(
            Rc::new(BrowserRuntime),
            check,
            ready,
            CancellationToken::new(),
        );
        let (channel, origin) = (self.channel.clone(), self.target_origin.clone());
        Ok(Box::pin(async move {
            handshake.await.map_err(|e| match e {
                HandshakeError::TimedOut { after_ms, checks } => format!(
                    "the iframe did not answer 'mcp-check-ready' with 'mcp-server-ready' within \
                     {after_ms} ms ({checks} checks on channel {channel:?}, targetOrigin {origin:?}); \
                     is an IframeChild server running in it, on the same channel, allowing this origin?"
                ),
                HandshakeError::Aborted { reason } => reason,
            })
        }))
    }

    fn post(&self, message: &JsValue) -> Result<(), JsValue> {
        let w = content_window(&self.iframe).ok_or_else(|| {
            js::type_error("the iframe has no contentWindow (is it in the document?)")
        })?;
        post_to_server(&w, &self.channel, message, &self.target_origin)
    }

    fn shut(&self) {
        self.listener.borrow_mut().take();
        self.watch.borrow_mut().take();
    }
}

client_transport_class!(IframeParentClientTransport);

#[wasm_bindgen]
impl IframeParentClientTransport {
    /// `new IframeParentClientTransport({ iframe, targetOrigin, channelId = 'mcp-iframe',
    /// checkIntervalMs = 250, connectionTimeout = 10000 })`. `targetOrigin` is required
    /// (`'*'` disables the origin check, with a warning).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<IframeParentClientTransport, JsValue> {
        let ctx = "new IframeParentClientTransport(options): options";
        let o = options_object(&options, ctx)?;
        let iframe = js::get(&o, "iframe")?;
        let is_iframe = js::instance_of(&iframe, "HTMLIFrameElement")
            || (iframe.is_object()
                && js_sys::Reflect::has(&iframe, &"contentWindow".into()).unwrap_or(false));
        if !is_iframe {
            return Err(js::type_error(&format!(
                "{ctx}.iframe must be an HTMLIFrameElement"
            )));
        }
        let target_origin = opt_string(&o, "targetOrigin", ctx)?
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                js::type_error(&format!(
                    "{ctx}.targetOrigin is required: the iframe's origin (e.g. 'https://app.example'), or '*'"
                ))
            })?;
        if target_origin == "*" {
            base::warn_any_origin("IframeParentClientTransport");
        }
        let channel = opt_string(&o, "channelId", ctx)?.unwrap_or_else(|| DEFAULT_CHANNEL.into());
        let check_interval =
            opt_ms(&o, "checkIntervalMs", ctx)?.unwrap_or(DEFAULT_CHECK_INTERVAL_MS);
        if check_interval == 0 {
            return Err(js::type_error(&format!(
                "{ctx}.checkIntervalMs must be at least 1"
            )));
        }
        let wire = IframeWire {
            iframe,
            target_origin,
            channel,
            check_interval,
            connection_timeout: opt_ms(&o, "connectionTimeout", ctx)?
                .unwrap_or(DEFAULT_CONNECTION_TIMEOUT_MS),
            listener: RefCell::new(None),
            watch: RefCell::new(None),
        };
        Ok(IframeParentClientTransport {
            base: Base::new("IframeParentClientTransport", Box::new(wire)),
        })
    }
}

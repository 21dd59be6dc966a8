//! `ExtensionClientTransport`: a client for a server at the other end of a
//! `chrome.runtime.Port`, in MCP-B's extension format — raw JSON-RPC messages, no envelope;
//! the server's `{ type: 'keep-alive' }` messages are ignored; the port disconnecting
//! closes the transport.
//!
//! A given `port` serves one connection (a disconnected port cannot be reused). To be able
//! to reconnect, give `connect` (a function returning a fresh port) or let the transport
//! call `chrome.runtime.connect(extensionId?, { name: portName })` itself.
//!
//! ```js
//! const t = new ExtensionClientTransport({ port: chrome.runtime.connect({ name: 'mcp' }) });
//! ```

use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;

use super::base::{client_transport_class, opt_string, options_object, Base, Port, Ready, Wire};
use crate::js;
use crate::js::DomError;
use crate::js::Listener;
use crate::wire::extension::is_keep_alive;

pub use crate::wire::extension::DEFAULT_PORT_NAME;

enum Source {
    /// A port given once.
    Given(JsValue),
    /// A function returning a fresh port.
    Factory(js_sys::Function),
    /// `chrome.runtime.connect(extensionId?, { name })`.
    Runtime {
        extension_id: Option<String>,
        port_name: String,
    },
}

struct ExtensionWire {
    source: Source,
    given_used: Cell<bool>,
    port: RefCell<Option<JsValue>>,
    listeners: RefCell<Vec<Listener>>,
}

fn check_port(port: &JsValue, ctx: &str) -> Result<(), JsValue> {
    let has_event = |k: &'static str| {
        js::get(port, k)
            .map(|e| js::has_method(&e, "addListener") && js::has_method(&e, "removeListener"))
            .unwrap_or(false)
    };
    if !(js::has_method(port, "postMessage") && has_event("onMessage") && has_event("onDisconnect"))
    {
        return Err(js::type_error(&format!(
            "{ctx} must be a chrome.runtime.Port (postMessage(), onMessage and onDisconnect)"
        )));
    }
    Ok(())
}

impl ExtensionWire {
    fn next_port(&self) -> Result<JsValue, JsValue> {
        let port = match &self.source {
            Source::Given(p) => {
                if self.given_used.replace(true) {
                    return Err(DomError::InvalidState(
                        "ExtensionClientTransport: the given port was already used and cannot be \
                         reconnected; pass connect: () => chrome.runtime.connect(...) instead"
                            .into(),
                    )
                    .into_js());
                }
                p.clone()
            }
            Source::Factory(f) => f.call0(&JsValue::UNDEFINED)?,
            Source::Runtime {
                extension_id,
                port_name,
            } => {
                let runtime = js::get(&js::global(), "chrome")
                    .and_then(|c| js::get(&c, "runtime"))
                    .unwrap_or(JsValue::UNDEFINED);
                if !js::has_method(&runtime, "connect") {
                    return Err(js::type_error(
                        "ExtensionClientTransport: chrome.runtime.connect is not available here; pass { port } or { connect }",
                    ));
                }
                let info: JsValue = js::object().into();
                js::set(&info, "name", &JsValue::from_str(port_name));
                match extension_id {
                    Some(id) => js::call(&runtime, "connect", &[&JsValue::from_str(id), &info])?,
                    None => js::call(&runtime, "connect", &[&info])?,
                }
            }
        };
        check_port(&port, "ExtensionClientTransport: the port")?;
        Ok(port)
    }
}

impl Wire for ExtensionWire {
    fn open(&self, port_sink: Port) -> Result<Ready, JsValue> {
        let port = self.next_port()?;
        let on_message = js::get(&port, "onMessage")?;
        let on_disconnect = js::get(&port, "onDisconnect")?;
        let p = port_sink.clone();
        let messages = Listener::with(
            &on_message,
            "addListener",
            "removeListener",
            None,
            move |msg: JsValue, _| {
                if !is_keep_alive(&msg) {
                    p.message(msg);
                }
            },
        )?;
        let disconnects = Listener::with(
            &on_disconnect,
            "addListener",
            "removeListener",
            None,
            move |_, _| {
                port_sink.closed("the extension port disconnected");
            },
        )?;
        *self.listeners.borrow_mut() = vec![messages, disconnects];
        *self.port.borrow_mut() = Some(port);
        Ok(Box::pin(async { Ok(()) }))
    }

    fn post(&self, message: &JsValue) -> Result<(), JsValue> {
        let port = self
            .port
            .borrow()
            .clone()
            .ok_or_else(|| js::type_error("no port"))?;
        js::call(&port, "postMessage", &[message])?;
        Ok(())
    }

    fn shut(&self) {
        self.listeners.borrow_mut().clear();
        if let Some(p) = self.port.borrow_mut().take() {
            let _ = js::call(&p, "disconnect", &[]);
        }
    }
}

client_transport_class!(ExtensionClientTransport);

#[wasm_bindgen]
impl ExtensionClientTransport {
    /// `new ExtensionClientTransport({ port })`, `({ connect: () => port })` or
    /// `({ extensionId?, portName = 'mcp' })`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<ExtensionClientTransport, JsValue> {
        let ctx = "new ExtensionClientTransport(options): options";
        let o = options_object(&options, ctx)?;
        let port = js::get(&o, "port")?;
        let connect = js::get(&o, "connect")?;
        let source = if !port.is_undefined() && !port.is_null() {
            check_port(&port, &format!("{ctx}.port"))?;
            Source::Given(port)
        } else if let Some(f) = connect.dyn_ref::<js_sys::Function>() {
            Source::Factory(f.clone())
        } else if !connect.is_undefined() {
            return Err(js::type_error(&format!(
                "{ctx}.connect must be a function returning a port"
            )));
        } else {
            Source::Runtime {
                extension_id: opt_string(&o, "extensionId", ctx)?,
                port_name: opt_string(&o, "portName", ctx)?
                    .unwrap_or_else(|| DEFAULT_PORT_NAME.into()),
            }
        };
        let wire = ExtensionWire {
            source,
            given_used: Cell::new(false),
            port: RefCell::new(None),
            listeners: RefCell::new(Vec::new()),
        };
        Ok(ExtensionClientTransport {
            base: Base::new("ExtensionClientTransport", Box::new(wire)),
        })
    }
}

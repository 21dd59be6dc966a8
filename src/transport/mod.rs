//! Browser transports (wasm only): each carries JSON-RPC text between a peer and an engine
//! [`crate::server::Session`], and owns its framing, origin and size checks.
//!
//! [`open`] picks a transport from `connect()`'s `transport` option.

pub mod tab;

use wasm_bindgen::prelude::*;

use crate::browser::js;
use crate::server::Server;

/// A transport opened for one `connect()` session; closing it stops serving.
pub struct Connection {
    close: Option<Box<dyn FnOnce()>>,
    is_open: Box<dyn Fn() -> bool>,
}

impl Connection {
    pub fn new(close: impl FnOnce() + 'static, is_open: impl Fn() -> bool + 'static) -> Connection {
        Connection {
            close: Some(Box::new(close)),
            is_open: Box::new(is_open),
        }
    }

    pub fn is_open(&self) -> bool {
        (self.is_open)()
    }

    pub fn close(mut self) {
        if let Some(c) = self.close.take() {
            c();
        }
    }
}

/// Opens the transport `options` describes (`{ type: 'tab' | … , … }`). An unknown or
/// missing `type` is a `TypeError` naming it.
pub fn open(server: &Server, options: &JsValue) -> Result<Connection, JsValue> {
    if !options.is_object() {
        return Err(js::type_error("connect(options): options.transport must be an object"));
    }
    let kind = js::get(options, "type")?;
    let Some(kind) = kind.as_string() else {
        return Err(js::type_error(
            "connect(options): options.transport.type is required (one of 'tab')",
        ));
    };
    match kind.as_str() {
        "tab" => {
            let origin = js::get(&js_sys::global().into(), "origin")?
                .as_string()
                .unwrap_or_else(|| "null".into());
            let opts = tab::TabOptions::from_js(options, &origin)?;
            let server = tab::TabServer::start(server.clone(), opts)?;
            let handle = std::rc::Rc::new(std::cell::RefCell::new(Some(server)));
            let h = handle.clone();
            Ok(Connection::new(
                move || {
                    if let Some(s) = h.borrow_mut().take() {
                        s.stop();
                    }
                },
                move || handle.borrow().is_some(),
            ))
        }
        other => Err(js::type_error(&format!(
            "connect(options): unknown transport type {other:?} (expected one of 'tab')"
        ))),
    }
}

//! wasm only: the bridges between the client core and JS — a page's transport object as a
//! [`ClientTransport`], a page's scheduler function as a [`ReconnectScheduler`], page
//! handlers, and the one function mapping [`ClientError`] to the JS error classes.

use js_sys::{Function, Promise, Reflect};
use serde_json::Value;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::core::{
    ClientTransport, IncomingRequest, NotificationHandler, RequestHandler, TransportSink,
};
use super::error::ClientError;
use super::reconnect::{CancelFn, ReconnectScheduler};
use crate::js;
use crate::js::DomError;
use crate::protocol::error_codes::INTERNAL_ERROR;
use crate::protocol::ErrorObject;
use crate::server::LocalBoxFuture;

// ---- the error classes ------------------------------------------------------------------

thread_local! {
    /// `{ TransportError, TransportClosedError, RequestTimeoutError, McpError }` from
    /// `polyfill/src/client.js`, handed over at install.
    static CLASSES: RefCell<JsValue> = const { RefCell::new(JsValue::UNDEFINED) };
}

/// Receives the client error classes (called once by the installer).
#[wasm_bindgen(js_name = setClientErrorClasses)]
pub fn set_client_error_classes(classes: JsValue) {
    CLASSES.with(|c| *c.borrow_mut() = classes);
}

/// Receives the installer's helpers for the client module (called once, when the module
/// loads): `postEnvelope` (`polyfill/src/gates.js`), with which the tab and iframe client
/// transports post their messages from a microtask of their own instead of from deep in the
/// wasm's call stack, whose every frame an attached DevTools client records with each
/// `postMessage`. Without it (a page loading the module by hand) they post at once.
#[wasm_bindgen(js_name = setClientHelpers)]
pub fn set_client_helpers(helpers: JsValue) {
    crate::wire::mcpb::use_post_envelope(&helpers);
}

/// `new classes[name](...args)`, or a plain `Error` named `name` before the classes arrive.
fn construct(name: &'static str, message: &str, args: &[JsValue]) -> JsValue {
    let class = CLASSES.with(|c| js::get(&c.borrow(), name).unwrap_or(JsValue::UNDEFINED));
    if let Some(class) = class.dyn_ref::<Function>() {
        let arr: js_sys::Array = args.iter().collect();
        if let Ok(e) = Reflect::construct(class, &arr) {
            return e;
        }
    }
    let e: JsValue = js_sys::Error::new(message).into();
    js::set(&e, "name", &JsValue::from_str(name));
    e
}

fn details(pairs: &[(&'static str, JsValue)]) -> JsValue {
    let o: JsValue = js::object().into();
    for (k, v) in pairs {
        js::set(&o, k, v);
    }
    o
}

/// A `TransportError` with a `code` (`'CONNECTION_FAILED'`, `'SEND_FAILED'`, …).
pub fn transport_error(code: &str, message: &str) -> JsValue {
    construct(
        "TransportError",
        message,
        &[JsValue::from_str(message), JsValue::from_str(code)],
    )
}

/// The JS error a page sees for `e`. An abort rejects with the signal's reason when there
/// is one, as `fetch` does.
pub fn to_js_error(e: &ClientError, signal: Option<&JsValue>) -> JsValue {
    let message = e.to_string();
    match e {
        ClientError::RequestTimeout {
            id,
            method,
            timeout_ms,
        } => construct(
            "RequestTimeoutError",
            &message,
            &[
                JsValue::from_str(&message),
                details(&[
                    ("requestId", js::from_json(&id.to_value())),
                    ("method", JsValue::from_str(method)),
                    ("timeoutMs", JsValue::from_f64(*timeout_ms as f64)),
                ]),
            ],
        ),
        ClientError::TransportClosed { reason } => construct(
            "TransportClosedError",
            &message,
            &[
                JsValue::from_str(&message),
                details(&[("reason", JsValue::from_str(reason))]),
            ],
        ),
        ClientError::Aborted { .. } => {
            let reason = signal
                .and_then(|s| js::get(s, "reason").ok())
                .filter(|r| !r.is_undefined());
            reason.unwrap_or_else(|| DomError::Abort(message).into_js())
        }
        ClientError::Rpc(obj) => construct(
            "McpError",
            &message,
            &[
                JsValue::from_f64(obj.code as f64),
                JsValue::from_str(&obj.message),
                obj.data
                    .as_ref()
                    .map(js::from_json)
                    .unwrap_or(JsValue::UNDEFINED),
            ],
        ),
        ClientError::NotConnected { .. } | ClientError::AlreadyConnected => {
            DomError::InvalidState(message).into_js()
        }
        ClientError::UnsupportedVersion { .. }
        | ClientError::Transport { .. }
        | ClientError::Protocol { .. } => transport_error(e.code(), &message),
    }
}

/// The JSON-RPC error for an exception a page handler threw: its numeric `code`,
/// `message` and `data` when it has them (an `McpError`), else -32603 with its message.
pub fn error_object(e: &JsValue) -> ErrorObject {
    let code = js::get(e, "code").ok().and_then(|c| c.as_f64());
    match code {
        Some(c) if c.fract() == 0.0 && c.is_finite() => {
            let message = js::get(e, "message")
                .ok()
                .and_then(|m| m.as_string())
                .unwrap_or_else(|| js::error_message(e));
            let mut obj = ErrorObject::new(c as i64, message);
            if let Ok(Some(d)) = js::get(e, "data").and_then(|d| js::to_json(&d)) {
                obj = obj.with_data(d);
            }
            obj
        }
        _ => ErrorObject::new(INTERNAL_ERROR, js::error_message(e)),
    }
}

// ---- a page's transport object ----------------------------------------------------------

struct JsTransportState {
    sink: RefCell<Option<TransportSink>>,
}

/// Any object with the MCP SDK `Transport` shape: `start()`, `send(message)`, `close()`,
/// and `onmessage`/`onclose`/`onerror` properties the client sets. The exported client
/// transports are such objects; so are the SDK's and MCP-B's.
pub struct JsTransport {
    obj: JsValue,
    state: Rc<JsTransportState>,
    onmessage: JsValue,
    onclose: JsValue,
    onerror: JsValue,
}

impl JsTransport {
    /// Checks the shape (`TypeError` naming what is missing).
    pub fn new(obj: JsValue, ctx: &str) -> Result<JsTransport, JsValue> {
        for m in ["start", "send", "close"] {
            if !js::has_method(&obj, m) {
                return Err(js::type_error(&format!(
                    "{ctx}: the transport must have start(), send() and close() (no {m}()); \
                     use one of the client transports, e.g. new PostMessageClientTransport({{ target: worker }})"
                )));
            }
        }
        let state = Rc::new(JsTransportState {
            sink: RefCell::new(None),
        });
        let sink_of =
            |w: &Weak<JsTransportState>| w.upgrade().and_then(|s| s.sink.borrow().clone());
        let w = Rc::downgrade(&state);
        let onmessage = Closure::<dyn FnMut(JsValue)>::new(move |msg: JsValue| {
            let Some(sink) = sink_of(&w) else { return };
            match js::to_json(&msg) {
                Ok(Some(v)) => sink.message(v),
                Ok(None) => sink.error("received a message JSON cannot represent".into()),
                Err(e) => sink.error(format!(
                    "received a message that is not JSON: {}",
                    js::error_message(&e)
                )),
            }
        })
        .into_js_value();
        let w = Rc::downgrade(&state);
        let onclose = Closure::<dyn FnMut(JsValue)>::new(move |reason: JsValue| {
            let sink = w.upgrade().and_then(|s| s.sink.borrow_mut().take());
            if let Some(sink) = sink {
                sink.closed(reason.as_string());
            }
        })
        .into_js_value();
        let w = Rc::downgrade(&state);
        let onerror = Closure::<dyn FnMut(JsValue)>::new(move |err: JsValue| {
            if let Some(sink) = sink_of(&w) {
                sink.error(js::error_message(&err));
            }
        })
        .into_js_value();
        Ok(JsTransport {
            obj,
            state,
            onmessage,
            onclose,
            onerror,
        })
    }

    /// The page's transport object this wraps.
    pub fn object(&self) -> &JsValue {
        &self.obj
    }

    fn install(&self, on: bool) {
        for (k, f) in [
            ("onmessage", &self.onmessage),
            ("onclose", &self.onclose),
            ("onerror", &self.onerror),
        ] {
            let v = if on { f.clone() } else { JsValue::UNDEFINED };
            let _ = Reflect::set(&self.obj, &JsValue::from_str(k), &v);
        }
    }
}

/// A future settling with `v` when it is a thenable (`Err` with the rejection's
/// message); `None` for a plain value.
fn thenable(v: JsValue) -> Option<LocalBoxFuture<'static, Result<(), String>>> {
    let is_thenable = js::get(&v, "then")
        .map(|t| t.is_function())
        .unwrap_or(false);
    if !is_thenable {
        return None;
    }
    let p = Promise::resolve(&v);
    Some(Box::pin(async move {
        JsFuture::from(p)
            .await
            .map(|_| ())
            .map_err(|e| js::error_message(&e))
    }))
}

impl ClientTransport for JsTransport {
    fn start(&self, sink: TransportSink) -> LocalBoxFuture<'static, Result<(), String>> {
        *self.state.sink.borrow_mut() = Some(sink);
        self.install(true);
        match js::call(&self.obj, "start", &[]) {
            Ok(v) => thenable(v).unwrap_or_else(|| Box::pin(async { Ok(()) })),
            Err(e) => {
                let m = js::error_message(&e);
                Box::pin(async move { Err(m) })
            }
        }
    }

    fn send(&self, message: &Value) -> Result<(), String> {
        let v = js::from_json(message);
        let r = js::call(&self.obj, "send", &[&v]).map_err(|e| js::error_message(&e))?;
        // A rejected send fails its request at once (another message's is reported).
        if let Some(watch) = thenable(r) {
            let state = Rc::downgrade(&self.state);
            let id = message
                .get("method")
                .and(message.get("id"))
                .and_then(crate::protocol::RequestId::from_value);
            js::spawn(async move {
                if let Err(m) = watch.await {
                    let sink = state.upgrade().and_then(|s| s.sink.borrow().clone());
                    if let Some(sink) = sink {
                        sink.send_failed(id.as_ref(), format!("send failed: {m}"));
                    }
                }
            });
        }
        Ok(())
    }

    fn close(&self) {
        // Detach first: the transport's own onclose for this close is not a lost connection.
        self.state.sink.borrow_mut().take();
        self.install(false);
        match js::call(&self.obj, "close", &[]) {
            Ok(v) => {
                if let Some(watch) = thenable(v) {
                    js::spawn(async move {
                        let _ = watch.await;
                    });
                }
            }
            Err(e) => js::report(&e),
        }
    }
}

// ---- a page's scheduler -----------------------------------------------------------------

/// `(reconnect, delay, attemptCount) => cancel | void` (seed 004).
pub struct JsScheduler(pub Function);

impl ReconnectScheduler for JsScheduler {
    fn schedule(
        &self,
        reconnect: Box<dyn FnOnce()>,
        delay_ms: u64,
        attempt_count: u32,
    ) -> Result<Option<CancelFn>, String> {
        let once = RefCell::new(Some(reconnect));
        // Owned by JS (a page may call it any time, or never); only its first call counts.
        let f = Closure::<dyn FnMut()>::new(move || {
            let r = once.borrow_mut().take();
            if let Some(r) = r {
                r();
            }
        })
        .into_js_value();
        let ret = self
            .0
            .call3(
                &JsValue::UNDEFINED,
                &f,
                &JsValue::from_f64(delay_ms as f64),
                &JsValue::from_f64(attempt_count as f64),
            )
            .map_err(|e| js::error_message(&e))?;
        Ok(ret.dyn_into::<Function>().ok().map(|cancel| -> CancelFn {
            Box::new(move || {
                // A throwing cancel function is reported; closing goes on.
                if let Err(e) = cancel.call0(&JsValue::UNDEFINED) {
                    js::report(&e);
                }
            })
        }))
    }
}

// ---- page handlers ----------------------------------------------------------------------

/// `cb({ method, params }, { requestId, signal })` answering a server-to-client request;
/// what it returns (or resolves to) is the result, what it throws the error.
pub fn request_handler(cb: Function) -> RequestHandler {
    Rc::new(move |req: IncomingRequest| {
        let request: JsValue = js::object().into();
        js::set(&request, "method", &JsValue::from_str(&req.method));
        if let Some(p) = &req.params {
            js::set(&request, "params", &js::from_json(p));
        }
        let extra: JsValue = js::object().into();
        js::set(&extra, "requestId", &js::from_json(&req.id.to_value()));
        if let Ok(controller) = web_sys::AbortController::new() {
            js::set(&extra, "signal", &controller.signal());
            req.cancel.on_cancel(move |why| {
                controller.abort_with_reason(&JsValue::from_str(why));
            });
        }
        let returned = cb.call2(&JsValue::UNDEFINED, &request, &extra);
        Box::pin(async move {
            let v = returned.map_err(|e| error_object(&e))?;
            let v = JsFuture::from(Promise::resolve(&v))
                .await
                .map_err(|e| error_object(&e))?;
            match js::to_json(&v) {
                Ok(Some(j)) => Ok(j),
                Ok(None) => Ok(serde_json::json!({})),
                Err(e) => Err(error_object(&e)),
            }
        })
    })
}

/// `cb({ method, params })` for a notification.
pub fn notification_handler(cb: Function) -> NotificationHandler {
    Rc::new(move |method: &str, params: Option<&Value>| {
        let n: JsValue = js::object().into();
        js::set(&n, "method", &JsValue::from_str(method));
        if let Some(p) = params {
            js::set(&n, "params", &js::from_json(p));
        }
        if let Err(e) = cb.call1(&JsValue::UNDEFINED, &n) {
            js::report(&e);
        }
    })
}

//! What every exported client transport shares: the MCP SDK `Transport` shape
//! (`start()`/`send()`/`close()` returning promises, `onmessage`/`onclose`/`onerror`
//! handlers, `isConnected`), the lifecycle (restartable after `close()`, for
//! reconnection), and stale-connection filtering. Each transport supplies a [`Wire`].

use js_sys::{Function, Promise};
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::client::bridge::transport_error;
use crate::client::wait::{never, select3, First};
use crate::js;
use crate::js::DomError;
use crate::server::{CancellationToken, LocalBoxFuture};

/// Resolves when the peer is ready for messages; `Err` carries a message for the page.
pub type Ready = LocalBoxFuture<'static, Result<(), String>>;

/// The part of a transport that differs: listening, posting, stopping.
pub trait Wire {
    /// Starts listening on a fresh connection, reporting to `port`; resolves when ready.
    fn open(&self, port: Port) -> Result<Ready, JsValue>;
    /// Posts one JSON-RPC message (a JS object).
    fn post(&self, message: &JsValue) -> Result<(), JsValue>;
    /// Stops listening (and tells the peer where the wire has a way to). Idempotent.
    fn shut(&self);
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    New,
    Starting,
    Open,
    Closed,
}

/// The shared state of one transport instance.
pub struct Base {
    /// The class name, for messages.
    name: &'static str,
    wire: Box<dyn Wire>,
    state: Cell<State>,
    /// Numbers connections; a [`Port`] of an older one reports nothing.
    generation: Cell<u64>,
    abort: RefCell<CancellationToken>,
    onmessage: RefCell<JsValue>,
    onclose: RefCell<JsValue>,
    onerror: RefCell<JsValue>,
}

/// A connection's way to report to its transport.
#[derive(Clone)]
pub struct Port {
    base: Weak<Base>,
    generation: u64,
}

impl Port {
    fn live(&self) -> Option<Rc<Base>> {
        self.base
            .upgrade()
            .filter(|b| b.generation.get() == self.generation)
    }

    /// A message from the peer (the envelope's payload).
    pub fn message(&self, payload: JsValue) {
        if let Some(b) = self.live() {
            b.deliver(payload);
        }
    }

    /// The peer ended the connection.
    pub fn closed(&self, reason: &str) {
        if let Some(b) = self.live() {
            b.end(Some(reason));
        }
    }

    /// A problem that does not end the connection.
    pub fn error(&self, message: &str) {
        if let Some(b) = self.live() {
            b.fire_error(&transport_error(
                "TRANSPORT_ERROR",
                &format!("{}: {message}", b.name),
            ));
        }
    }
}

fn call_handler(slot: &RefCell<JsValue>, arg: &JsValue) {
    let f = slot.borrow().clone();
    if let Some(f) = f.dyn_ref::<Function>() {
        if let Err(e) = f.call1(&JsValue::UNDEFINED, arg) {
            js::report(&e);
        }
    }
}

fn set_handler(slot: &RefCell<JsValue>, v: JsValue) {
    *slot.borrow_mut() = if v.is_function() { v } else { JsValue::NULL };
}

impl Base {
    /// A new transport named `name` (in its errors) over `wire`.
    pub fn new(name: &'static str, wire: Box<dyn Wire>) -> Rc<Base> {
        Rc::new(Base {
            name,
            wire,
            state: Cell::new(State::New),
            generation: Cell::new(0),
            abort: RefCell::new(CancellationToken::new()),
            onmessage: RefCell::new(JsValue::NULL),
            onclose: RefCell::new(JsValue::NULL),
            onerror: RefCell::new(JsValue::NULL),
        })
    }

    /// Whether a connection is open.
    pub fn is_connected(&self) -> bool {
        self.state.get() == State::Open
    }

    /// `start()`: listens and resolves once the peer is ready. Allowed on a new or closed
    /// transport (a restart begins a fresh connection).
    pub fn start(self: &Rc<Self>) -> Promise {
        if matches!(self.state.get(), State::Starting | State::Open) {
            return Promise::reject(
                &DomError::InvalidState(format!(
                    "{}.start(): the transport is already started",
                    self.name
                ))
                .into_js(),
            );
        }
        let generation = self.generation.get() + 1;
        self.generation.set(generation);
        self.state.set(State::Starting);
        let abort = CancellationToken::new();
        *self.abort.borrow_mut() = abort.clone();
        let port = Port {
            base: Rc::downgrade(self),
            generation,
        };
        let ready = match self.wire.open(port) {
            Ok(r) => r,
            Err(e) => {
                self.wire.shut();
                self.state.set(State::Closed);
                return Promise::reject(&e);
            }
        };
        let me = self.clone();
        future_to_promise(async move {
            let aborted: LocalBoxFuture<'static, String> = Box::pin(abort.cancelled());
            let current =
                |me: &Base| me.generation.get() == generation && me.state.get() == State::Starting;
            match select3(ready, aborted, never::<()>()).await {
                First::A(Ok(())) if current(&me) => {
                    me.state.set(State::Open);
                    Ok(JsValue::UNDEFINED)
                }
                First::A(Ok(())) => Err(transport_error(
                    "TRANSPORT_CLOSED",
                    &format!("{}: closed while starting", me.name),
                )),
                First::A(Err(message)) => {
                    if current(&me) {
                        me.wire.shut();
                        me.state.set(State::Closed);
                    }
                    Err(transport_error(
                        "CONNECTION_FAILED",
                        &format!("{}: {message}", me.name),
                    ))
                }
                First::B(reason) => Err(transport_error(
                    "TRANSPORT_CLOSED",
                    &format!("{}: closed before the server was ready ({reason})", me.name),
                )),
                First::C(()) => Err(JsValue::UNDEFINED),
            }
        })
    }

    /// `send(message)`: posts a JSON-RPC message (an object) on the open connection.
    pub fn send(&self, message: &JsValue) -> Promise {
        if self.state.get() != State::Open {
            let why = match self.state.get() {
                State::Closed => "the transport is closed",
                State::Starting => "the transport is still starting (await start())",
                _ => "the transport is not started (call start())",
            };
            return Promise::reject(
                &DomError::InvalidState(format!("{}.send(): {why}", self.name)).into_js(),
            );
        }
        if !message.is_object() {
            return Promise::reject(&js::type_error(&format!(
                "{}.send(message): the message must be a JSON-RPC object",
                self.name
            )));
        }
        match self.wire.post(message) {
            Ok(()) => Promise::resolve(&JsValue::UNDEFINED),
            Err(e) => Promise::reject(&transport_error(
                "SEND_FAILED",
                &format!("{}.send(): {}", self.name, js::error_message(&e)),
            )),
        }
    }

    /// `close()`: stops listening and calls `onclose`. Idempotent.
    pub fn close(&self) -> Promise {
        self.end(None);
        Promise::resolve(&JsValue::UNDEFINED)
    }

    fn end(&self, reason: Option<&str>) {
        if !matches!(self.state.get(), State::Starting | State::Open) {
            return;
        }
        self.state.set(State::Closed);
        let why = reason.unwrap_or("close() was called");
        self.abort.borrow().cancel(why);
        self.wire.shut();
        let arg = reason.map(JsValue::from_str).unwrap_or(JsValue::UNDEFINED);
        call_handler(&self.onclose, &arg);
    }

    fn deliver(&self, payload: JsValue) {
        if !matches!(self.state.get(), State::Starting | State::Open) {
            return;
        }
        if !payload.is_object() || js_sys::Array::is_array(&payload) {
            let shown = js::stringify(&payload).ok().flatten().unwrap_or_default();
            return self.fire_error(&transport_error(
                "INVALID_MESSAGE",
                &format!(
                    "{}: dropped a payload that is not a JSON-RPC object: {shown}",
                    self.name
                ),
            ));
        }
        call_handler(&self.onmessage, &payload);
    }

    fn fire_error(&self, e: &JsValue) {
        call_handler(&self.onerror, e);
    }

    /// The SDK's `onmessage`: called with each message received; `null` when unset.
    pub fn onmessage(&self) -> JsValue {
        self.onmessage.borrow().clone()
    }
    /// Sets `onmessage`; anything but a function unsets it.
    pub fn set_onmessage(&self, v: JsValue) {
        set_handler(&self.onmessage, v)
    }
    /// The SDK's `onclose`: called when the transport closes; `null` when unset.
    pub fn onclose(&self) -> JsValue {
        self.onclose.borrow().clone()
    }
    /// Sets `onclose`; anything but a function unsets it.
    pub fn set_onclose(&self, v: JsValue) {
        set_handler(&self.onclose, v)
    }
    /// The SDK's `onerror`: called with each error of the wire; `null` when unset.
    pub fn onerror(&self) -> JsValue {
        self.onerror.borrow().clone()
    }
    /// Sets `onerror`; anything but a function unsets it.
    pub fn set_onerror(&self, v: JsValue) {
        set_handler(&self.onerror, v)
    }
}

/// Declares an exported transport class around a [`Base`]: the SDK `Transport` members.
macro_rules! client_transport_class {
    ($name:ident) => {
        /// A client transport with the MCP TypeScript SDK's `Transport` members.
        #[wasm_bindgen::prelude::wasm_bindgen]
        pub struct $name {
            base: std::rc::Rc<$crate::client::transport::base::Base>,
        }

        #[wasm_bindgen::prelude::wasm_bindgen]
        impl $name {
            /// Starts listening; resolves once the server is ready (restartable after
            /// `close()`).
            pub fn start(&self) -> js_sys::Promise {
                self.base.start()
            }

            /// Sends one JSON-RPC message.
            pub fn send(&self, message: wasm_bindgen::JsValue) -> js_sys::Promise {
                self.base.send(&message)
            }

            /// Stops listening and calls `onclose` (idempotent).
            pub fn close(&self) -> js_sys::Promise {
                self.base.close()
            }

            /// Whether a connection is open.
            #[wasm_bindgen(getter, js_name = isConnected)]
            pub fn is_connected(&self) -> bool {
                self.base.is_connected()
            }

            /// `onmessage`: called with each message received (`null` when unset).
            #[wasm_bindgen(getter)]
            pub fn onmessage(&self) -> wasm_bindgen::JsValue {
                self.base.onmessage()
            }
            /// Sets `onmessage`; anything but a function unsets it.
            #[wasm_bindgen(setter)]
            pub fn set_onmessage(&self, f: wasm_bindgen::JsValue) {
                self.base.set_onmessage(f)
            }
            /// `onclose`: called when the transport closes (`null` when unset).
            #[wasm_bindgen(getter)]
            pub fn onclose(&self) -> wasm_bindgen::JsValue {
                self.base.onclose()
            }
            /// Sets `onclose`; anything but a function unsets it.
            #[wasm_bindgen(setter)]
            pub fn set_onclose(&self, f: wasm_bindgen::JsValue) {
                self.base.set_onclose(f)
            }
            /// `onerror`: called with each error of the wire (`null` when unset).
            #[wasm_bindgen(getter)]
            pub fn onerror(&self) -> wasm_bindgen::JsValue {
                self.base.onerror()
            }
            /// Sets `onerror`; anything but a function unsets it.
            #[wasm_bindgen(setter)]
            pub fn set_onerror(&self, f: wasm_bindgen::JsValue) {
                self.base.set_onerror(f)
            }
        }
    };
}

pub(crate) use client_transport_class;

// ---- option readers shared by the transports ---------------------------------------------

/// An optional string option; `TypeError` naming it when it is not a string.
pub fn opt_string(opts: &JsValue, key: &'static str, ctx: &str) -> Result<Option<String>, JsValue> {
    js::opt_string(opts, key, ctx, js::StringRule::Exact)
}

/// An optional non-negative number of milliseconds.
pub fn opt_ms(opts: &JsValue, key: &'static str, ctx: &str) -> Result<Option<u64>, JsValue> {
    let v = js::get(opts, key)?;
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    match v.as_f64() {
        Some(n) if n.is_infinite() && n > 0.0 => Ok(Some(crate::client::NO_TIMEOUT_MS)),
        Some(n) if n.is_finite() && n >= 0.0 => Ok(Some(n.round() as u64)),
        _ => Err(js::type_error(&format!(
            "{ctx}.{key} must be a non-negative number of milliseconds, got {}",
            js::to_dom_string(&v).unwrap_or_default()
        ))),
    }
}

/// The options object of a constructor (`undefined` → `{}`); anything else non-object is a
/// `TypeError`.
pub fn options_object(v: &JsValue, ctx: &str) -> Result<JsValue, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(js::object().into());
    }
    if !v.is_object() {
        return Err(js::type_error(&format!("{ctx} must be an object")));
    }
    Ok(v.clone())
}

/// How often a transport whose peer is a window looks whether it went away (ms): once a
/// second, which wakes an idle page no more than that (a send to a window already gone fails
/// at once, without the look).
pub const GONE_POLL_MS: f64 = 1000.0;

/// Looks every [`GONE_POLL_MS`] whether the peer's window went away (`gone()`), and ends the
/// connection with `reason` when it has: a window that went away never posts again, and what
/// is posted to it is dropped without an error, so the client's requests would otherwise wait
/// for their timeouts. The look stops when the returned timer is dropped (at `shut`).
pub fn watch_peer(
    port: Port,
    reason: &'static str,
    mut gone: Box<dyn FnMut() -> bool>,
) -> Result<js::Timer, JsValue> {
    js::Timer::interval(GONE_POLL_MS, move || {
        if gone() {
            port.closed(reason);
        }
    })
}

/// `event.data` of a window `message` event when `event.source` is `source` and
/// `event.origin` is `origin` (`'*'`: any origin); `None` for any other event, and for
/// every event while there is no `source`.
pub fn window_message(ev: &JsValue, source: Option<&JsValue>, origin: &str) -> Option<JsValue> {
    let source = source?;
    if js::get(ev, "source").ok().as_ref() != Some(source) {
        return None;
    }
    let from = js::event_origin(ev);
    if origin != "*" && from != origin {
        return None;
    }
    Some(js::get(ev, "data").unwrap_or(JsValue::UNDEFINED))
}

/// `'*'` draws a console warning once per transport: any origin may then answer.
pub fn warn_any_origin(class: &str) {
    js::warn(&format!(
        "modelcontext-polyfill: {class} accepts messages from any origin ('*'); name the server's origin instead"
    ));
}

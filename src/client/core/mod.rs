//! [`Client`]: an MCP client on any [`ClientTransport`], running on the engine's
//! [`Runtime`] — request/response correlation, timeouts, cancellation, the `initialize`
//! handshake, server-to-client requests, heartbeat and reconnection. Pure Rust.
//!
//! Lifecycle: `Idle` → `connect()` → `Connecting` → `Connected`; a lost connection either
//! closes the client (`Closed`) or, with reconnection on, moves to `Reconnecting`, where
//! attempts run on the scheduler with exponential backoff until one re-initializes
//! (`Connected`) or the retries run out (`Closed`). `close()` ends every state.
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | [`Client`]'s public methods and its state |
//! | `types.rs` | the transport trait and sink, phases, options, handler types |
//! | `connect.rs` | the `initialize` handshake |
//! | `requests.rs` | requests both ways, answers, notifications |
//! | `lifecycle.rs` | losing and closing, reconnection, heartbeat |
//!
//! Request ids, answers and cancellation are the [`crate::peer`] pieces the server's sessions
//! use too.

use serde_json::{json, Map, Value};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::error::ClientError;
use super::reconnect::{CancelFn, ReconnectScheduler, RuntimeScheduler};
use super::wait::never;
use crate::collections::VecMap;
use crate::peer::{InFlight, Outgoing};
use crate::protocol::jsonrpc::{self};
use crate::server::{CancellationToken, LocalBoxFuture, Runtime};

mod connect;
mod lifecycle;
mod requests;
pub(crate) mod types;

pub use types::*;

type Outcome = Result<Value, ClientError>;

struct Pending {
    method: String,
    message: Value,
    /// The connection it was sent on; `None` while queued for the next connection.
    sent_on: Option<u64>,
    progress: Option<(Value, ProgressHandler)>,
}

struct State {
    phase: Phase,
    /// Numbers connections; reports from an older one are ignored.
    epoch: u64,
    /// Fires when the current connection is lost or left.
    lost: CancellationToken,
    pending: Outgoing<Pending, Outcome>,
    incoming: InFlight,
    server: Option<ServerDetails>,
    /// Numbers scheduled reconnections; a `reconnect` call with an old ticket does nothing.
    reconnect_ticket: u64,
    cancel_reconnect: Option<CancelFn>,
    heartbeat: Option<CancellationToken>,
}

pub(crate) struct Inner {
    runtime: Rc<dyn Runtime>,
    transport: Rc<dyn ClientTransport>,
    options: ClientOptions,
    scheduler: RefCell<Rc<dyn ReconnectScheduler>>,
    random: RefCell<Rc<dyn Fn() -> f64>>,
    st: RefCell<State>,
    request_handlers: RefCell<VecMap<String, RequestHandler>>,
    notification_handlers: RefCell<Vec<(u64, String, NotificationHandler)>>,
    next_handler: Cell<u64>,
    on_close: RefCell<Option<CloseHook>>,
    on_error: RefCell<Option<ErrorHook>>,
    on_reconnect: RefCell<Option<ReconnectHook>>,
}

/// An MCP client. Cheap to clone (shared handle).
#[derive(Clone)]
pub struct Client(Rc<Inner>);

/// A [`Client`] held without keeping it ([`Client::downgrade`]): what a hook the client keeps
/// holds, so that the two do not keep each other.
#[derive(Clone)]
pub struct WeakClient(std::rc::Weak<Inner>);

impl WeakClient {
    /// The client, while something else holds it.
    pub fn upgrade(&self) -> Option<Client> {
        self.0.upgrade().map(Client)
    }
}

impl Client {
    /// A client over `transport`, not yet connected ([`Phase::Idle`]): `runtime` gives it
    /// timers and spawning, `options` its identity, capabilities, timeouts and reconnection.
    pub fn new(
        runtime: Rc<dyn Runtime>,
        transport: Rc<dyn ClientTransport>,
        options: ClientOptions,
    ) -> Client {
        let scheduler: Rc<dyn ReconnectScheduler> = Rc::new(RuntimeScheduler(runtime.clone()));
        Client(Rc::new(Inner {
            runtime,
            transport,
            options,
            scheduler: RefCell::new(scheduler),
            random: RefCell::new(Rc::new(|| 0.5)),
            st: RefCell::new(State {
                phase: Phase::Idle,
                epoch: 0,
                lost: CancellationToken::new(),
                pending: Outgoing::default(),
                incoming: InFlight::default(),
                server: None,
                reconnect_ticket: 0,
                cancel_reconnect: None,
                heartbeat: None,
            }),
            request_handlers: RefCell::new(VecMap::new()),
            notification_handlers: RefCell::new(Vec::new()),
            next_handler: Cell::new(1),
            on_close: RefCell::new(None),
            on_error: RefCell::new(None),
            on_reconnect: RefCell::new(None),
        }))
    }

    /// The options it was made with.
    pub fn options(&self) -> &ClientOptions {
        &self.0.options
    }

    /// Replaces the reconnection scheduler (default: the runtime's timer).
    pub fn set_scheduler(&self, scheduler: Rc<dyn ReconnectScheduler>) {
        *self.0.scheduler.borrow_mut() = scheduler;
    }

    /// The random source for jitter (`[0, 1)`).
    pub fn set_random(&self, random: Rc<dyn Fn() -> f64>) {
        *self.0.random.borrow_mut() = random;
    }

    /// Called once each time the client closes, with the reason (`None` for `close()`).
    pub fn set_on_close(&self, f: Option<CloseHook>) {
        *self.0.on_close.borrow_mut() = f;
    }

    /// Called for errors not tied to one request (bad frames, failed reconnection attempts).
    pub fn set_on_error(&self, f: Option<ErrorHook>) {
        *self.0.on_error.borrow_mut() = f;
    }

    /// Called after a reconnection re-initialized, with the number of attempts it took and
    /// the server's new `initialize` answer.
    pub fn set_on_reconnect(&self, f: Option<ReconnectHook>) {
        *self.0.on_reconnect.borrow_mut() = f;
    }

    /// Where it is in its life: idle, connecting, connected, reconnecting or closed.
    pub fn phase(&self) -> Phase {
        self.0.st.borrow().phase
    }

    /// The server's `initialize` answer on the current (or last) connection.
    pub fn server(&self) -> Option<ServerDetails> {
        self.0.st.borrow().server.clone()
    }

    /// Requests sent or queued and not yet settled.
    pub fn pending_requests(&self) -> usize {
        self.0.st.borrow().pending.len()
    }

    /// Starts the transport and runs the `initialize` handshake. Allowed when idle or
    /// closed; a failure closes the client.
    pub fn connect(&self) -> LocalBoxFuture<'static, Result<ServerDetails, ClientError>> {
        let inner = self.0.clone();
        let epoch = {
            let mut st = inner.st.borrow_mut();
            if !matches!(st.phase, Phase::Idle | Phase::Closed) {
                return Box::pin(async { Err(ClientError::AlreadyConnected) });
            }
            st.phase = Phase::Connecting;
            st.reconnect_ticket += 1;
            Inner::next_epoch(&mut st, "The connection was replaced")
        };
        Box::pin(async move {
            match Inner::establish(&inner, epoch).await {
                Ok(details) => Ok(details),
                Err(e) => {
                    if inner.is_current(epoch) {
                        inner.finish_close(Some(format!("Connecting failed: {e}")));
                    }
                    Err(e)
                }
            }
        })
    }

    /// Sends a request and resolves with its result. Fails at once when idle or closed;
    /// while (re)connecting it is queued and sent once connected, its timeout running.
    pub fn request(
        &self,
        method: &str,
        params: Option<Value>,
        options: RequestOptions,
    ) -> LocalBoxFuture<'static, Outcome> {
        Inner::request(&self.0, method, params, options, false)
    }

    /// Sends a notification (only while connected).
    pub fn notify(&self, method: &str, params: Option<Value>) -> Result<(), ClientError> {
        let phase = self.phase();
        match phase {
            Phase::Connected => self
                .0
                .transport
                .send(&jsonrpc::notification(method, params))
                .map_err(ClientError::transport),
            Phase::Closed => Err(ClientError::transport_closed("The client is closed")),
            Phase::Idle | Phase::Connecting | Phase::Reconnecting => {
                Err(ClientError::NotConnected {
                    method: method.into(),
                    phase,
                })
            }
        }
    }

    /// Calls `handler` for each notification named `method` (`"*"`: every notification).
    /// Returns an id for [`Client::remove_notification_handler`].
    pub fn on_notification(&self, method: &str, handler: NotificationHandler) -> u64 {
        let id = self.0.next_handler.get();
        self.0.next_handler.set(id + 1);
        self.0
            .notification_handlers
            .borrow_mut()
            .push((id, method.to_string(), handler));
        id
    }

    /// Removes the notification handler that `on_notification` returned `id` for (nothing
    /// when there is none).
    pub fn remove_notification_handler(&self, id: u64) {
        self.0
            .notification_handlers
            .borrow_mut()
            .retain(|(i, _, _)| *i != id);
    }

    /// Removes every notification and request handler (what [`Client::on_notification`] and
    /// [`Client::set_request_handler`] added).
    pub fn clear_handlers(&self) {
        self.0.notification_handlers.borrow_mut().clear();
        *self.0.request_handlers.borrow_mut() = VecMap::new();
    }

    /// A handle that does not keep the client.
    pub fn downgrade(&self) -> WeakClient {
        WeakClient(Rc::downgrade(&self.0))
    }

    /// Answers server-to-client requests named `method` (`None` removes the handler).
    /// Handlers for `sampling/createMessage`, `elicitation/create` and `roots/list` declare
    /// the matching capability at the next `initialize`. `ping` is always answered.
    pub fn set_request_handler(&self, method: &str, handler: Option<RequestHandler>) {
        let mut h = self.0.request_handlers.borrow_mut();
        match handler {
            Some(f) => {
                h.insert(method.to_string(), f);
            }
            None => {
                h.remove(method);
            }
        }
    }

    /// Closes the client: requests in flight are cancelled on the server
    /// (`notifications/cancelled`), a scheduled reconnection is cancelled, every pending
    /// request fails with [`ClientError::TransportClosed`], the transport closes. Idempotent.
    pub fn close(&self) {
        let phase = self.phase();
        match phase {
            Phase::Closed => {}
            Phase::Idle => {
                self.0.st.borrow_mut().phase = Phase::Closed;
            }
            Phase::Connected => {
                // The server may still be working on what we asked: tell it we stopped waiting.
                self.0.cancel_sent("The client was closed");
                self.0.finish_close(None)
            }
            _ => self.0.finish_close(None),
        }
    }

    // ---- MCP helpers ----------------------------------------------------------------

    /// `ping`.
    pub fn ping(&self, options: RequestOptions) -> LocalBoxFuture<'static, Outcome> {
        self.request("ping", None, options)
    }

    /// `tools/list`, with `params` (a `cursor`) as given.
    pub fn list_tools(
        &self,
        params: Option<Value>,
        options: RequestOptions,
    ) -> LocalBoxFuture<'static, Outcome> {
        self.request("tools/list", params, options)
    }

    /// `tools/call` of tool `name` with `arguments`.
    pub fn call_tool(
        &self,
        name: &str,
        arguments: Option<Value>,
        options: RequestOptions,
    ) -> LocalBoxFuture<'static, Outcome> {
        self.request("tools/call", Some(named_params(name, arguments)), options)
    }

    /// `resources/read` of `uri`.
    pub fn read_resource(
        &self,
        uri: &str,
        options: RequestOptions,
    ) -> LocalBoxFuture<'static, Outcome> {
        self.request("resources/read", Some(json!({ "uri": uri })), options)
    }

    /// `prompts/get` of prompt `name` with `arguments`.
    pub fn get_prompt(
        &self,
        name: &str,
        arguments: Option<Value>,
        options: RequestOptions,
    ) -> LocalBoxFuture<'static, Outcome> {
        self.request("prompts/get", Some(named_params(name, arguments)), options)
    }
}

/// `{ name, arguments? }`, the params of `tools/call` and `prompts/get`.
fn named_params(name: &str, arguments: Option<Value>) -> Value {
    let mut p = Map::new();
    p.insert("name".into(), Value::from(name));
    if let Some(a) = arguments {
        p.insert("arguments".into(), a);
    }
    Value::Object(p)
}

/// A future that completes after `ms`, or never for [`NO_TIMEOUT_MS`] and above.
pub(crate) fn timer(runtime: &Rc<dyn Runtime>, ms: u64) -> LocalBoxFuture<'static, ()> {
    if ms >= NO_TIMEOUT_MS {
        never()
    } else {
        runtime.sleep(ms)
    }
}

impl Inner {
    /// Leaves the current connection (its waiters hear `why`) and numbers the next one.
    fn next_epoch(st: &mut State, why: &str) -> u64 {
        st.lost.cancel(why);
        st.lost = CancellationToken::new();
        st.epoch += 1;
        st.epoch
    }

    fn is_current(&self, epoch: u64) -> bool {
        let st = self.st.borrow();
        st.epoch == epoch && st.phase != Phase::Closed
    }

    fn emit_error(&self, e: &ClientError) {
        let hook = self.on_error.borrow().clone();
        if let Some(f) = hook {
            f(e);
        }
    }

    fn send_now(&self, message: &Value) {
        if let Err(e) = self.transport.send(message) {
            self.emit_error(&ClientError::transport(e));
        }
    }
}

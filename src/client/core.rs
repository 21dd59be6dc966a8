//! [`Client`]: an MCP client on any [`ClientTransport`], running on the engine's
//! [`Runtime`] — request/response correlation, timeouts, cancellation, the `initialize`
//! handshake, server-to-client requests, heartbeat and reconnection. Pure Rust.
//!
//! Lifecycle: `Idle` → `connect()` → `Connecting` → `Connected`; a lost connection either
//! closes the client (`Closed`) or, with reconnection on, moves to `Reconnecting`, where
//! attempts run on the scheduler with exponential backoff until one re-initializes
//! (`Connected`) or the retries run out (`Closed`). `close()` ends every state.

use serde_json::{json, Map, Value};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use super::error::ClientError;
use super::reconnect::{CancelFn, ReconnectOptions, ReconnectScheduler, RuntimeScheduler};
use super::wait::{never, select3, First};
use crate::peer::slot::Slot;
use crate::peer::{self, Abandon, InFlight, Outgoing, Sent};
use crate::protocol::error_codes::METHOD_NOT_FOUND;
use crate::protocol::jsonrpc::{self, classify, Message};
use crate::protocol::{Era, ErrorObject, ProtocolVersion, RequestId};
use crate::server::{CancellationToken, LocalBoxFuture, Runtime};

/// The default per-request timeout.
pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;

/// Timeouts at or above this (the largest `setTimeout` delay, about 24.8 days) mean "no
/// timeout", so `Infinity` from JS works and no timer overflows.
pub const NO_TIMEOUT_MS: u64 = i32::MAX as u64;

/// The handshake-era versions this client accepts from a server, newest first.
pub const HANDSHAKE_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// What the client needs from a transport. Messages are JSON values in both directions.
///
/// `start` may be called again after `close` (reconnection): each call begins a fresh
/// connection whose incoming traffic goes to the given sink.
pub trait ClientTransport {
    /// Starts a connection; resolves once the peer is ready to receive messages.
    fn start(&self, sink: TransportSink) -> LocalBoxFuture<'static, Result<(), String>>;
    /// Sends one message.
    fn send(&self, message: &Value) -> Result<(), String>;
    /// Ends the current connection. Must not report `closed` to the sink for this call.
    fn close(&self);
}

/// Where a transport delivers what happens on one connection. Reports from a connection
/// the client has since left (a stale sink) are ignored.
#[derive(Clone)]
pub struct TransportSink {
    inner: Weak<Inner>,
    epoch: u64,
}

impl TransportSink {
    /// A message from the peer.
    pub fn message(&self, message: Value) {
        if let Some(inner) = self.inner.upgrade() {
            inner.receive(self.epoch, message);
        }
    }

    /// The connection ended on its own (peer stopped, port disconnected, …).
    pub fn closed(&self, reason: Option<String>) {
        if let Some(inner) = self.inner.upgrade() {
            let reason = reason.unwrap_or_else(|| "The transport closed".into());
            inner.lost(self.epoch, reason);
        }
    }

    /// A transport-level problem that does not end the connection (a malformed frame, a
    /// failed asynchronous send).
    pub fn error(&self, message: String) {
        if let Some(inner) = self.inner.upgrade() {
            if inner.is_current(self.epoch) {
                inner.emit_error(&ClientError::transport(message));
            }
        }
    }

    /// Whether the client still listens to this connection.
    pub fn is_current(&self) -> bool {
        self.inner
            .upgrade()
            .is_some_and(|i| i.is_current(self.epoch))
    }
}

/// Where the client is in its lifecycle.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    Idle,
    Connecting,
    Connected,
    Reconnecting,
    Closed,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Idle => "idle",
            Phase::Connecting => "connecting",
            Phase::Connected => "connected",
            Phase::Reconnecting => "reconnecting",
            Phase::Closed => "closed",
        }
    }
}

/// What the server said in its `initialize` result.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerDetails {
    pub protocol_version: ProtocolVersion,
    pub server_info: Value,
    pub capabilities: Value,
    pub instructions: Option<String>,
    /// The whole `initialize` result.
    pub result: Value,
}

/// Client settings.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// `clientInfo` sent in `initialize` (`{ name, version, … }`).
    pub client_info: Value,
    /// Capabilities declared in `initialize`, merged with those implied by the registered
    /// request handlers (`sampling`, `elicitation`, `roots`).
    pub capabilities: Value,
    /// Per-request timeout (default 60 s); see [`NO_TIMEOUT_MS`].
    pub timeout_ms: u64,
    /// Send a `ping` this often once connected; `None` (the default) sends none.
    pub heartbeat_ms: Option<u64>,
    /// How long a heartbeat ping may take before the connection counts as dead (default:
    /// the heartbeat interval).
    pub heartbeat_timeout_ms: Option<u64>,
    /// Reconnect after a lost connection; `None` (the default) closes instead.
    pub reconnect: Option<ReconnectOptions>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            client_info: json!({ "name": "modelcontext-polyfill-client", "version": env!("CARGO_PKG_VERSION") }),
            capabilities: json!({}),
            timeout_ms: DEFAULT_TIMEOUT_MS,
            heartbeat_ms: None,
            heartbeat_timeout_ms: None,
            reconnect: None,
        }
    }
}

/// Per-request settings.
#[derive(Clone, Default)]
pub struct RequestOptions {
    /// Overrides the client's timeout for this request.
    pub timeout_ms: Option<u64>,
    /// Cancels the request: `notifications/cancelled` is sent and the request fails with
    /// [`ClientError::Aborted`].
    pub cancel: Option<CancellationToken>,
    /// Receives the `params` of each `notifications/progress` for this request (the
    /// request then carries `_meta.progressToken`).
    pub on_progress: Option<ProgressHandler>,
}

/// A request the server sent to this client.
pub struct IncomingRequest {
    pub id: RequestId,
    pub method: String,
    pub params: Option<Value>,
    /// Fires when the server cancels the request or the connection ends.
    pub cancel: CancellationToken,
}

/// Answers a server-to-client request.
pub type RequestHandler =
    Rc<dyn Fn(IncomingRequest) -> LocalBoxFuture<'static, Result<Value, ErrorObject>>>;

/// Receives a notification: `(method, params)`.
pub type NotificationHandler = Rc<dyn Fn(&str, Option<&Value>)>;

/// Receives the `params` of a request's `notifications/progress`.
pub type ProgressHandler = Rc<dyn Fn(Value)>;

/// Receives errors not tied to one request.
pub type ErrorHook = Rc<dyn Fn(&ClientError)>;

/// Receives the close reason (`None` for `close()`).
pub type CloseHook = Rc<dyn Fn(Option<String>)>;

/// Receives the attempts a reconnection took and the server's new `initialize` answer.
pub type ReconnectHook = Rc<dyn Fn(u32, &ServerDetails)>;

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
    request_handlers: RefCell<HashMap<String, RequestHandler>>,
    notification_handlers: RefCell<Vec<(u64, String, NotificationHandler)>>,
    next_handler: Cell<u64>,
    on_close: RefCell<Option<CloseHook>>,
    on_error: RefCell<Option<ErrorHook>>,
    on_reconnect: RefCell<Option<ReconnectHook>>,
}

/// An MCP client. Cheap to clone (shared handle).
#[derive(Clone)]
pub struct Client(Rc<Inner>);

impl Client {
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
            request_handlers: RefCell::new(HashMap::new()),
            notification_handlers: RefCell::new(Vec::new()),
            next_handler: Cell::new(1),
            on_close: RefCell::new(None),
            on_error: RefCell::new(None),
            on_reconnect: RefCell::new(None),
        }))
    }

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

    pub fn remove_notification_handler(&self, id: u64) {
        self.0
            .notification_handlers
            .borrow_mut()
            .retain(|(i, _, _)| *i != id);
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

    pub fn ping(&self, options: RequestOptions) -> LocalBoxFuture<'static, Outcome> {
        self.request("ping", None, options)
    }

    pub fn list_tools(
        &self,
        params: Option<Value>,
        options: RequestOptions,
    ) -> LocalBoxFuture<'static, Outcome> {
        self.request("tools/list", params, options)
    }

    pub fn call_tool(
        &self,
        name: &str,
        arguments: Option<Value>,
        options: RequestOptions,
    ) -> LocalBoxFuture<'static, Outcome> {
        self.request("tools/call", Some(named_params(name, arguments)), options)
    }

    pub fn read_resource(
        &self,
        uri: &str,
        options: RequestOptions,
    ) -> LocalBoxFuture<'static, Outcome> {
        self.request("resources/read", Some(json!({ "uri": uri })), options)
    }

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

    /// The capabilities declared in `initialize`.
    fn capabilities(&self) -> Value {
        let mut caps = match &self.options.capabilities {
            Value::Object(o) => o.clone(),
            _ => Map::new(),
        };
        let handlers = self.request_handlers.borrow();
        for (method, cap) in [
            ("sampling/createMessage", "sampling"),
            ("elicitation/create", "elicitation"),
            ("roots/list", "roots"),
        ] {
            if handlers.contains_key(method) {
                caps.entry(cap).or_insert_with(|| json!({}));
            }
        }
        Value::Object(caps)
    }

    /// Starts the transport and initializes; on success the client is `Connected`, queued
    /// requests go out and the heartbeat starts.
    async fn establish(me: &Rc<Inner>, epoch: u64) -> Result<ServerDetails, ClientError> {
        let lost = me.st.borrow().lost.clone();
        let sink = TransportSink {
            inner: Rc::downgrade(me),
            epoch,
        };
        let timeout = me.options.timeout_ms;
        let started = me.transport.start(sink);
        let lost_fut: LocalBoxFuture<'static, String> = Box::pin(lost.cancelled());
        match select3(started, timer(&me.runtime, timeout), lost_fut).await {
            First::A(Ok(())) => {}
            First::A(Err(m)) => return Err(ClientError::transport(m)),
            First::B(()) => {
                return Err(ClientError::transport(format!(
                    "the transport did not become ready within {timeout} ms"
                )))
            }
            First::C(reason) => return Err(ClientError::transport_closed(reason)),
        }
        let still = |me: &Inner| -> Result<(), ClientError> {
            if lost.is_cancelled() || !me.is_current(epoch) {
                Err(ClientError::transport_closed(lost.reason().unwrap_or_else(
                    || "The client was closed while connecting".into(),
                )))
            } else {
                Ok(())
            }
        };
        still(me)?;
        let params = json!({
            "protocolVersion": ProtocolVersion::LATEST_HANDSHAKE.as_str(),
            "capabilities": me.capabilities(),
            "clientInfo": me.options.client_info,
        });
        let result = Inner::request(
            me,
            "initialize",
            Some(params),
            RequestOptions::default(),
            true,
        )
        .await?;
        still(me)?;
        let offered = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                ClientError::protocol(format!(
                    "the initialize result has no string \"protocolVersion\": {}",
                    jsonrpc::compact(&result)
                ))
            })?;
        let version = ProtocolVersion::parse(offered)
            .filter(|v| v.era() == Era::Handshake)
            .ok_or_else(|| ClientError::UnsupportedVersion {
                offered: offered.to_string(),
            })?;
        let details = ServerDetails {
            protocol_version: version,
            server_info: result.get("serverInfo").cloned().unwrap_or(Value::Null),
            capabilities: result
                .get("capabilities")
                .cloned()
                .unwrap_or_else(|| json!({})),
            instructions: result
                .get("instructions")
                .and_then(Value::as_str)
                .map(String::from),
            result,
        };
        me.send_now(&jsonrpc::notification("notifications/initialized", None));
        still(me)?;
        let queued: Vec<Value> = {
            let mut st = me.st.borrow_mut();
            st.phase = Phase::Connected;
            st.server = Some(details.clone());
            st.pending
                .iter_mut()
                .map(|(_, p)| p)
                .filter(|p| p.sent_on.is_none())
                .map(|p| {
                    p.sent_on = Some(epoch);
                    p.message.clone()
                })
                .collect()
        };
        for m in queued {
            me.send_now(&m);
        }
        Inner::start_heartbeat(me, epoch);
        Ok(details)
    }

    /// Registers a request and sends it now (connected, or `internal`) or queues it.
    fn enqueue(
        &self,
        method: &str,
        params: Option<Value>,
        options: &RequestOptions,
        internal: bool,
    ) -> Result<(i64, Slot<Outcome>), ClientError> {
        let message_and_slot = {
            let mut st = self.st.borrow_mut();
            match st.phase {
                Phase::Idle => {
                    return Err(ClientError::NotConnected {
                        method: method.into(),
                        phase: Phase::Idle,
                    })
                }
                Phase::Closed => return Err(ClientError::transport_closed("The client is closed")),
                _ => {}
            }
            if let Some(reason) = options.cancel.as_ref().and_then(|t| t.reason()) {
                return Err(ClientError::Aborted { reason });
            }
            let send = internal || st.phase == Phase::Connected;
            let sent_on = send.then_some(st.epoch);
            let mut message = Value::Null;
            let (id, slot) = st.pending.begin_with(|id| {
                let mut params = params;
                let progress = options.on_progress.clone().map(|cb| {
                    let token = Value::from(id);
                    let p = params.get_or_insert_with(|| json!({}));
                    if let Some(o) = p.as_object_mut() {
                        let meta = o.entry("_meta").or_insert_with(|| json!({}));
                        if let Some(m) = meta.as_object_mut() {
                            m.insert("progressToken".into(), token.clone());
                        }
                    }
                    (token, cb)
                });
                message = jsonrpc::request(&RequestId::Number(id), method, params);
                Pending {
                    method: method.into(),
                    message: message.clone(),
                    sent_on,
                    progress,
                }
            });
            (id, slot, message, send)
        };
        let (id, slot, message, send) = message_and_slot;
        if send {
            if let Err(e) = self.transport.send(&message) {
                self.st.borrow_mut().pending.forget(id);
                return Err(ClientError::transport(e));
            }
        }
        Ok((id, slot))
    }

    fn request(
        me: &Rc<Inner>,
        method: &str,
        params: Option<Value>,
        options: RequestOptions,
        internal: bool,
    ) -> LocalBoxFuture<'static, Outcome> {
        let timeout_ms = options.timeout_ms.unwrap_or(me.options.timeout_ms);
        let enqueued = me.enqueue(method, params, &options, internal);
        // Dropped before it settles (its caller stopped waiting, polled or not), the request
        // is abandoned like a timed-out one; after a timeout or an abort below it is already
        // gone and the guard finds nothing.
        let guard = enqueued.as_ref().ok().map(|&(id, _)| {
            let weak = Rc::downgrade(me);
            Abandon::new(move || {
                if let Some(me) = weak.upgrade() {
                    me.abandon(id, "The caller no longer waits for the answer");
                }
            })
        });
        let me = me.clone();
        let method = method.to_string();
        Box::pin(async move {
            let mut guard = guard;
            let (id, slot) = enqueued?;
            let cancelled: LocalBoxFuture<'static, String> = match &options.cancel {
                Some(t) => Box::pin(t.cancelled()),
                None => never(),
            };
            match select3(Box::pin(slot), timer(&me.runtime, timeout_ms), cancelled).await {
                First::A(outcome) => {
                    if let Some(g) = guard.as_mut() {
                        g.disarm();
                    }
                    outcome
                }
                First::B(()) => {
                    me.abandon(id, &format!("Request timed out after {timeout_ms} ms"));
                    Err(ClientError::RequestTimeout {
                        id: RequestId::Number(id),
                        method,
                        timeout_ms,
                    })
                }
                First::C(reason) => {
                    me.abandon(id, &reason);
                    Err(ClientError::Aborted { reason })
                }
            }
        })
    }

    /// Forgets a request the caller stopped waiting for and, if the server has it, tells
    /// the server (`notifications/cancelled`; never for `initialize`, as MCP requires).
    fn abandon(&self, id: i64, reason: &str) {
        let tell = {
            let mut st = self.st.borrow_mut();
            let current = st.epoch;
            let live = st.phase != Phase::Closed;
            st.pending
                .forget(id)
                .is_some_and(|p| live && p.sent_on == Some(current) && p.method != "initialize")
        };
        if tell {
            self.send_now(&peer::cancelled(&RequestId::Number(id), reason));
        }
    }

    /// Sends `notifications/cancelled` for every request in flight on the current
    /// connection (they stay pending).
    fn cancel_sent(&self, reason: &str) {
        let ids: Vec<i64> = {
            let st = self.st.borrow();
            st.pending
                .iter()
                .filter(|(_, p)| p.sent_on == Some(st.epoch) && p.method != "initialize")
                .map(|(id, _)| id)
                .collect()
        };
        for id in ids {
            self.send_now(&peer::cancelled(&RequestId::Number(id), reason));
        }
    }

    // ---- incoming -------------------------------------------------------------------

    fn receive(self: &Rc<Self>, epoch: u64, message: Value) {
        if !self.is_current(epoch) {
            return;
        }
        match message {
            Value::Array(items) => {
                for m in items {
                    self.receive_one(epoch, m);
                }
            }
            single => self.receive_one(epoch, single),
        }
    }

    fn receive_one(self: &Rc<Self>, epoch: u64, message: Value) {
        match classify(&message) {
            Err(invalid) => {
                if message.get("method").is_some() {
                    if let Some(id) = &invalid.id {
                        self.send_now(&jsonrpc::failure(Some(id), invalid.to_error()));
                    }
                }
                self.emit_error(&ClientError::protocol(format!(
                    "invalid message from the server: {}",
                    invalid.reason
                )));
            }
            Ok(Message::Response { id, result }) => self.settle(&id, Ok(result)),
            Ok(Message::ErrorResponse {
                id: Some(id),
                error,
            }) => self.settle(&id, Err(ClientError::Rpc(error))),
            Ok(Message::ErrorResponse { id: None, error }) => {
                self.emit_error(&ClientError::Rpc(error))
            }
            Ok(Message::Notification { method, params }) => {
                self.handle_notification(&method, params)
            }
            Ok(Message::Request { id, method, params }) => {
                self.handle_request(epoch, id, method, params)
            }
        }
    }

    fn settle(&self, id: &RequestId, outcome: Outcome) {
        // Only a request already sent can be answered (a queued one has no id out there).
        let sent = self
            .st
            .borrow_mut()
            .pending
            .take_answered(id, |p| p.sent_on.is_some());
        match sent {
            Some(sent) => sent.answer(outcome),
            None => self.emit_error(&ClientError::protocol(format!(
                "a response to unknown request id {id}"
            ))),
        }
    }

    fn handle_notification(&self, method: &str, params: Option<Value>) {
        match method {
            "notifications/cancelled" => {
                if let Some((id, reason)) = peer::read_cancelled(params.as_ref()) {
                    let token = self.st.borrow_mut().incoming.cancel(&id);
                    if let Some(t) = token {
                        t.cancel(reason.unwrap_or_else(|| "Cancelled by the server".into()));
                    }
                }
            }
            "notifications/progress" => {
                let token = params.as_ref().and_then(|p| p.get("progressToken"));
                let cb = token.and_then(|t| {
                    self.st
                        .borrow()
                        .pending
                        .iter()
                        .find_map(|(_, p)| p.progress.as_ref().filter(|(tok, _)| tok == t))
                        .map(|(_, cb)| cb.clone())
                });
                if let Some(cb) = cb {
                    cb(params.unwrap_or_else(|| json!({})));
                    return;
                }
            }
            _ => {}
        }
        let handlers: Vec<NotificationHandler> = self
            .notification_handlers
            .borrow()
            .iter()
            .filter(|(_, m, _)| m == method || m == "*")
            .map(|(_, _, h)| h.clone())
            .collect();
        for h in handlers {
            h(method, params.as_ref());
        }
    }

    fn handle_request(
        self: &Rc<Self>,
        epoch: u64,
        id: RequestId,
        method: String,
        params: Option<Value>,
    ) {
        if method == "ping" {
            return self.send_now(&jsonrpc::success(&id, json!({})));
        }
        let handler = self.request_handlers.borrow().get(&method).cloned();
        let Some(handler) = handler else {
            return self.send_now(&jsonrpc::failure(
                Some(&id),
                ErrorObject::new(METHOD_NOT_FOUND, format!("Method not found: {method}")),
            ));
        };
        let token = CancellationToken::new();
        self.st
            .borrow_mut()
            .incoming
            .start(id.clone(), token.clone());
        let fut = handler(IncomingRequest {
            id: id.clone(),
            method,
            params,
            cancel: token.clone(),
        });
        let weak = Rc::downgrade(self);
        self.runtime.spawn(Box::pin(async move {
            let outcome = fut.await;
            let Some(me) = weak.upgrade() else { return };
            let mine = me.st.borrow_mut().incoming.finish(&id, &token);
            if !mine || token.is_cancelled() || !me.is_current(epoch) {
                return;
            }
            let reply = match outcome {
                Ok(v) => jsonrpc::success(&id, v),
                Err(e) => jsonrpc::failure(Some(&id), e),
            };
            me.send_now(&reply);
        }));
    }

    // ---- losing and closing ---------------------------------------------------------

    /// Takes the requests sent on the current connection (queued ones stay).
    fn take_sent(st: &mut State) -> Vec<Sent<Pending, Outcome>> {
        st.pending.take_where(|p| p.sent_on.is_some())
    }

    /// The connection `epoch` ended without `close()`.
    fn lost(self: &Rc<Self>, epoch: u64, reason: String) {
        let (sent, incoming, heartbeat) = {
            let mut st = self.st.borrow_mut();
            if st.epoch != epoch {
                return;
            }
            match st.phase {
                Phase::Idle | Phase::Closed => return,
                Phase::Connecting | Phase::Reconnecting => {
                    // Mid-handshake: the attempt in progress fails and decides what is next.
                    st.lost.cancel(reason.clone());
                    let sent = Inner::take_sent(&mut st);
                    drop(st);
                    for p in sent {
                        p.answer(Err(ClientError::transport_closed(reason.clone())));
                    }
                    return;
                }
                Phase::Connected => {}
            }
            Inner::next_epoch(&mut st, &reason);
            (
                Inner::take_sent(&mut st),
                st.incoming.take_all(),
                st.heartbeat.take(),
            )
        };
        if let Some(h) = heartbeat {
            h.cancel("The connection was lost");
        }
        for t in incoming {
            t.cancel(reason.clone());
        }
        for p in sent {
            p.answer(Err(ClientError::transport_closed(reason.clone())));
        }
        self.transport.close();
        let retries = self
            .options
            .reconnect
            .as_ref()
            .is_some_and(|r| r.max_retries > 0);
        if retries {
            self.st.borrow_mut().phase = Phase::Reconnecting;
            self.schedule_reconnect(0, reason);
        } else {
            self.finish_close(Some(reason));
        }
    }

    /// Moves to `Closed`: cancels a scheduled reconnection, fails every pending request,
    /// cancels running handlers, closes the transport, calls `on_close` once.
    fn finish_close(&self, reason: Option<String>) {
        let why = reason
            .clone()
            .unwrap_or_else(|| "The client was closed".into());
        let (cancel, heartbeat, pending, incoming) = {
            let mut st = self.st.borrow_mut();
            if st.phase == Phase::Closed {
                return;
            }
            st.phase = Phase::Closed;
            Inner::next_epoch(&mut st, &why);
            st.reconnect_ticket += 1;
            (
                st.cancel_reconnect.take(),
                st.heartbeat.take(),
                st.pending.take_where(|_| true),
                st.incoming.take_all(),
            )
        };
        if let Some(c) = cancel {
            c();
        }
        if let Some(h) = heartbeat {
            h.cancel("The client closed");
        }
        for p in pending {
            p.answer(Err(ClientError::transport_closed(why.clone())));
        }
        for t in incoming {
            t.cancel(why.clone());
        }
        self.transport.close();
        let hook = self.on_close.borrow().clone();
        if let Some(f) = hook {
            f(reason);
        }
    }

    // ---- reconnection ---------------------------------------------------------------

    fn schedule_reconnect(self: &Rc<Self>, attempt_count: u32, last_error: String) {
        let Some(opts) = self.options.reconnect.clone() else {
            return self.finish_close(Some(last_error));
        };
        if attempt_count >= opts.max_retries {
            return self.finish_close(Some(format!(
                "Reconnection failed after {attempt_count} attempt(s): {last_error}"
            )));
        }
        let random = (self.random.borrow().clone())();
        let delay = opts.delay(attempt_count, random);
        let ticket = {
            let mut st = self.st.borrow_mut();
            st.reconnect_ticket += 1;
            st.cancel_reconnect = None;
            st.reconnect_ticket
        };
        let weak = Rc::downgrade(self);
        let reconnect: Box<dyn FnOnce()> = Box::new(move || {
            if let Some(me) = weak.upgrade() {
                Inner::reconnect_now(&me, ticket, attempt_count);
            }
        });
        let scheduler = self.scheduler.borrow().clone();
        match scheduler.schedule(reconnect, delay, attempt_count) {
            Ok(cancel) => {
                let mut st = self.st.borrow_mut();
                // A scheduler may run `reconnect` before returning; its cancel is then moot.
                if st.reconnect_ticket == ticket && st.phase == Phase::Reconnecting {
                    st.cancel_reconnect = cancel;
                }
            }
            Err(message) => {
                let e =
                    ClientError::transport(format!("the reconnection scheduler failed: {message}"));
                self.emit_error(&e);
                self.finish_close(Some(e.to_string()));
            }
        }
    }

    fn reconnect_now(me: &Rc<Inner>, ticket: u64, attempt_count: u32) {
        let epoch = {
            let mut st = me.st.borrow_mut();
            if st.reconnect_ticket != ticket || st.phase != Phase::Reconnecting {
                return;
            }
            st.reconnect_ticket += 1;
            st.cancel_reconnect = None;
            Inner::next_epoch(&mut st, "A reconnection attempt began")
        };
        let me = me.clone();
        me.runtime.clone().spawn(Box::pin(async move {
            match Inner::establish(&me, epoch).await {
                Ok(details) => {
                    let hook = me.on_reconnect.borrow().clone();
                    if let Some(f) = hook {
                        f(attempt_count + 1, &details);
                    }
                }
                Err(e) => {
                    if !me.is_current(epoch) {
                        return;
                    }
                    me.transport.close();
                    me.emit_error(&ClientError::transport(format!(
                        "reconnection attempt {} failed: {e}",
                        attempt_count + 1
                    )));
                    me.schedule_reconnect(attempt_count + 1, e.to_string());
                }
            }
        }));
    }

    // ---- heartbeat ------------------------------------------------------------------

    fn start_heartbeat(me: &Rc<Inner>, epoch: u64) {
        let Some(every) = me.options.heartbeat_ms.filter(|ms| *ms > 0) else {
            return;
        };
        let wait = me.options.heartbeat_timeout_ms.unwrap_or(every);
        let stop = CancellationToken::new();
        if let Some(old) = me.st.borrow_mut().heartbeat.replace(stop.clone()) {
            old.cancel("replaced");
        }
        let weak = Rc::downgrade(me);
        let runtime = me.runtime.clone();
        me.runtime.spawn(Box::pin(async move {
            loop {
                let stopped: LocalBoxFuture<'static, String> = Box::pin(stop.cancelled());
                if !matches!(
                    select3(timer(&runtime, every), stopped, never::<()>()).await,
                    First::A(())
                ) {
                    return;
                }
                let ping = {
                    let Some(me) = weak.upgrade() else { return };
                    if !me.is_current(epoch) || me.st.borrow().phase != Phase::Connected {
                        return;
                    }
                    let opts = RequestOptions {
                        timeout_ms: Some(wait),
                        ..RequestOptions::default()
                    };
                    Inner::request(&me, "ping", None, opts, true)
                };
                match ping.await {
                    Err(ClientError::RequestTimeout { timeout_ms, .. }) => {
                        if let Some(me) = weak.upgrade() {
                            me.lost(
                                epoch,
                                format!("No answer to a heartbeat ping within {timeout_ms} ms"),
                            );
                        }
                        return;
                    }
                    Err(ClientError::TransportClosed { .. }) => return,
                    _ => {}
                }
            }
        }));
    }
}

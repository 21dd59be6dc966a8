//! The client's vocabulary: the transport trait and its sink, the phases, the options, and
//! the handler and hook types a page registers.

use serde_json::{json, Value};
use std::rc::{Rc, Weak};

use super::Inner;
use crate::client::error::ClientError;
pub use crate::client::phase::{Phase, HANDSHAKE_VERSIONS};
use crate::client::reconnect::ReconnectOptions;
use crate::protocol::{ErrorObject, ProtocolVersion, RequestId};
use crate::server::{CancellationToken, LocalBoxFuture};

/// The default per-request timeout.
pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;

/// Timeouts at or above this (the largest `setTimeout` delay, about 24.8 days) mean "no
/// timeout", so `Infinity` from JS works and no timer overflows.
pub const NO_TIMEOUT_MS: u64 = i32::MAX as u64;

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
    pub(super) inner: Weak<Inner>,
    pub(super) epoch: u64,
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

    /// The transport failed to send `id`'s request (or, `None`, another message) after its
    /// `send()` returned: the request fails with `message` at once.
    pub fn send_failed(&self, id: Option<&RequestId>, message: String) {
        if let Some(inner) = self.inner.upgrade() {
            inner.send_failed(self.epoch, id, message);
        }
    }

    /// Whether the client still listens to this connection.
    pub fn is_current(&self) -> bool {
        self.inner
            .upgrade()
            .is_some_and(|i| i.is_current(self.epoch))
    }
}

/// What the server said in its `initialize` result.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerDetails {
    /// The protocol version the server chose, one this client speaks.
    pub protocol_version: ProtocolVersion,
    /// Its `serverInfo` (`{ name, version, … }`).
    pub server_info: Value,
    /// Its `capabilities`.
    pub capabilities: Value,
    /// Its `instructions`, when it gave any.
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
    /// The request's id, which the answer carries back.
    pub id: RequestId,
    /// Its method (`sampling/createMessage`, `roots/list`, …).
    pub method: String,
    /// Its `params`, as sent.
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

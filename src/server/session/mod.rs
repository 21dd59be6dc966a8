//! One connection to one client: its lifecycle, and the plumbing between incoming text and
//! outgoing text (limits, parsing, batches, notifications from the client). The rest, by
//! concept:
//!
//! | file | what it holds |
//! |---|---|
//! | `requests.rs` | serving requests: the in-flight cap, its queue, running handlers |
//! | `era.rs` | handshake or stateless, a handler's context, 2026-07-28 decoration |
//! | `link.rs` | what a handler's context reaches: notifications, logs, requests to the client |
//! | `listen.rs` | notifications to the client: list changes, updates, logs, listen streams |
//! | `to_client.rs` | requests to the client (sampling, roots, elicitation) |
//! | `chain.rs` | a peer's sessions on a wire without client addresses: fresh on `initialize` |
//! | `snapshot.rs` | a session kept across a page load |
//!
//! Request ids, answers and cancellation are the [`crate::peer`] pieces the client uses too.

use crate::collections::VecSet;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use super::call::CallSession;
use super::engine::{Audience, Server};
use super::error::ServerError;
use super::futures::join_all;
use super::limits::{nesting_depth, Limits};
use super::logging::LogLevel;
use super::registry::ListKind;
use super::runtime::LocalBoxFuture;
use super::shape;
use crate::peer::{self, InFlight, Outgoing};
use crate::protocol::error_codes::INTERNAL_ERROR;
use crate::protocol::json_text;
use crate::protocol::jsonrpc::{self, classify_owned, Message};
use crate::protocol::values::{self, ValueBudget};
use crate::protocol::{ErrorObject, ProtocolVersion, RequestId};

mod chain;
mod era;
mod link;
mod listen;
mod requests;
mod sent;
mod snapshot;
mod to_client;

pub use chain::{Incoming, Replaced, SessionChain};
use era::Mode;
pub use era::{
    META_CLIENT_CAPABILITIES, META_LOG_LEVEL, META_PROTOCOL_VERSION, META_SERVER_INFO,
    META_SUBSCRIPTION_ID,
};
use listen::Listen;
use requests::Turn;
pub use sent::{Repeats, Sent, SharedResult, SharedText};
pub use snapshot::SNAPSHOT_FORMAT;
use to_client::ClientAnswer;

struct State {
    /// The version negotiated by `initialize`, once answered.
    negotiated: Option<ProtocolVersion>,
    /// `notifications/initialized` received.
    ready: bool,
    /// The server's change generation when `initialize` was answered.
    since: u64,
    client_info: Option<Value>,
    client_capabilities: Rc<Value>,
    log_level: Option<LogLevel>,
    subscriptions: VecSet<String>,
    listens: Vec<Listen>,
    /// Requests running or queued, by id: cancelling the token ends one (a queued one never
    /// starts).
    in_flight: InFlight,
    /// Handler-running requests started and not finished (at most `limits.max_in_flight`).
    running: usize,
    /// Requests waiting for one of them to finish, first come first served (at most
    /// `limits.max_queued`).
    waiting: VecDeque<Rc<RefCell<Turn>>>,
    /// The bytes the waiting requests keep (at most `limits.max_queued_bytes`): their
    /// arguments' text and their params' values.
    waiting_bytes: usize,
    /// Replaced by another session of the same wire (see [`Session::retire`]): finishes
    /// what runs, announces nothing, closes when done.
    retiring: bool,
    /// Requests sent to the client, by id, with their method.
    outgoing: Outgoing<String, ClientAnswer>,
    closed: bool,
}

pub(crate) struct SessionInner {
    pub(crate) server: Server,
    id: u64,
    sink: Box<dyn Fn(Sent)>,
    /// The limits this session keeps: its transport's, or the server's.
    limits: Limits,
    st: RefCell<State>,
}

/// A client's connection to the [`Server`]. Feed it incoming text with
/// [`Session::receive`]; it writes outgoing text to the sink given to
/// [`Server::connect`].
pub struct Session(pub(crate) Rc<SessionInner>);

enum Outcome {
    Now(Option<Value>),
    /// A success whose result is already serialized and shared (see [`Sent::Shared`]).
    Shared(RequestId, SharedText),
    /// An answer to come, already in the form the sink takes (no value is serialized twice,
    /// no text parsed back).
    Later(LocalBoxFuture<'static, Option<Sent>>),
}

impl Outcome {
    /// The message as the sink takes it, for the paths that gather messages (a batch's
    /// answers) or wait before answering (a queued request).
    fn into_sent(self) -> LocalBoxFuture<'static, Option<Sent>> {
        match self {
            Outcome::Now(v) => {
                Box::pin(async move { v.as_ref().map(json_text::to_string).map(Sent::Text) })
            }
            Outcome::Shared(id, result) => {
                Box::pin(async move { Some(Sent::Shared { id, result }) })
            }
            Outcome::Later(f) => f,
        }
    }
}

impl Session {
    pub(crate) fn new(server: Server, limits: Limits, sink: Box<dyn Fn(Sent)>) -> Session {
        let id = server.next_id();
        Session(Rc::new(SessionInner {
            server,
            id,
            sink,
            limits,
            st: RefCell::new(State {
                negotiated: None,
                ready: false,
                since: 0,
                client_info: None,
                client_capabilities: Rc::new(Value::Object(Map::new())),
                log_level: None,
                subscriptions: VecSet::new(),
                listens: Vec::new(),
                in_flight: InFlight::default(),
                running: 0,
                waiting: VecDeque::new(),
                waiting_bytes: 0,
                retiring: false,
                outgoing: Outgoing::default(),
                closed: false,
            }),
        }))
    }

    /// A number unique among this server's sessions.
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// Handles one incoming message (or batch) of JSON text. Never panics; every
    /// malformed input is answered with a JSON-RPC error.
    pub fn receive(&self, text: &str) {
        self.0.receive(text)
    }

    /// Answers a message a transport refused for its size without reading all of it: a
    /// -32600 error naming `limit` and `len`, addressed to the request's id when `head` (the
    /// message's first bytes) shows it.
    pub fn refuse_oversize(&self, head: &str, len: usize, limit: usize) {
        if !self.0.is_closed() {
            self.0.refuse_oversize(head, len, limit)
        }
    }

    /// The negotiated protocol version (handshake era), if any.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.0.st.borrow().negotiated
    }

    /// Whether `notifications/initialized` has arrived.
    pub fn is_ready(&self) -> bool {
        self.0.st.borrow().ready
    }

    /// The client's `clientInfo`, once initialized.
    pub fn client_info(&self) -> Option<Value> {
        self.0.st.borrow().client_info.clone()
    }

    /// Requests currently running.
    pub fn in_flight(&self) -> usize {
        self.0.st.borrow().in_flight.len()
    }

    /// Requests waiting for a free slot (`limits.max_in_flight` are running).
    pub fn queued(&self) -> usize {
        self.0.st.borrow().waiting.len()
    }

    /// Hands the wire to another session without dropping this one's work: requests already
    /// running or queued still run and are answered, and so are notifications and responses
    /// to them (progress, cancellation, answers to its own requests to the client); it sends
    /// no list-changed or other server-wide notification any more, and closes itself once
    /// nothing is left (at once if nothing runs). For a wire where a second client's
    /// `initialize` starts a new session (the tab transport).
    pub fn retire(&self) {
        let idle = {
            let mut st = self.0.st.borrow_mut();
            st.retiring = true;
            st.in_flight.is_empty()
        };
        if idle {
            self.0.close();
        }
    }

    /// Whether [`Session::retire`] was called (and the session is not closed yet).
    pub fn is_retiring(&self) -> bool {
        let st = self.0.st.borrow();
        st.retiring && !st.closed
    }

    /// Sends a notification to the client.
    pub fn notify(&self, method: &str, params: Option<Value>) {
        self.0.send_notification(method, params)
    }

    /// Whether the session is closed (by [`Session::close`], the transport, or a later `initialize` that replaced it).
    pub fn is_closed(&self) -> bool {
        self.0.is_closed()
    }

    /// Closes the session: running handlers are cancelled, requests to the client fail,
    /// and nothing more is sent.
    pub fn close(&self) {
        self.0.close()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.0.close();
    }
}

// ---- opening sessions ----------------------------------------------------------------------

impl Server {
    /// Opens a session whose outgoing messages (JSON text) go to `sink`.
    pub fn connect(&self, sink: impl Fn(String) + 'static) -> Session {
        self.connect_with(self.config().limits.clone(), move |m| sink(m.into_text()))
    }

    /// [`Server::connect`] with the session's own `limits` (a transport's, in place of the
    /// server's), writing [`Sent`] messages: a transport that converts messages can reuse
    /// its conversion of a shared result.
    pub fn connect_with(&self, limits: Limits, sink: impl Fn(Sent) + 'static) -> Session {
        let session = Session::new(self.clone(), limits, Box::new(sink));
        self.track(session.audience());
        session
    }

    /// Opens a session in the state a [`Session::snapshot`] recorded (the tab transport's
    /// `persist` option: an agent's session outlives a same-tab reload). Requests the snapshot
    /// lists as running are answered at once with an internal error (their page is gone).
    /// A snapshot this server cannot load is an `Err` naming the problem; no session is opened.
    pub fn connect_restored(
        &self,
        snapshot: &Value,
        sink: impl Fn(String) + 'static,
    ) -> Result<Session, String> {
        self.connect_restored_with(snapshot, self.config().limits.clone(), move |m| {
            sink(m.into_text())
        })
    }

    /// [`Server::connect_restored`] with the session's own `limits`, writing [`Sent`]
    /// messages.
    pub fn connect_restored_with(
        &self,
        snapshot: &Value,
        limits: Limits,
        sink: impl Fn(Sent) + 'static,
    ) -> Result<Session, String> {
        let session = Session::new(self.clone(), limits, Box::new(sink));
        let interrupted = session.0.restore(snapshot)?;
        self.track(session.audience());
        session.0.fail_interrupted(&interrupted);
        Ok(session)
    }
}

impl Session {
    /// The session as the server notifies it.
    fn audience(&self) -> Weak<dyn Audience> {
        let weak: Weak<dyn Audience> = Rc::downgrade(&self.0) as Weak<SessionInner>;
        weak
    }
}

impl Audience for SessionInner {
    fn is_closed(&self) -> bool {
        SessionInner::is_closed(self)
    }

    fn list_changed(&self, kind: ListKind, generation: u64) -> bool {
        SessionInner::list_changed(self, kind, generation)
    }

    fn resource_updated(&self, uri: &str) {
        SessionInner::resource_updated(self, uri)
    }

    fn broadcast(&self, method: &str, params: Option<Value>) {
        SessionInner::broadcast(self, method, params)
    }

    fn log(&self, level: LogLevel, logger: Option<&str>, data: Value) {
        super::context::SessionLink::log(self, level, logger, data, None);
    }

    fn task_status(&self, id: &str, detailed: &Value) {
        SessionInner::task_status(self, id, detailed)
    }
}

impl CallSession for SessionInner {
    fn server(&self) -> &Server {
        &self.server
    }

    fn initialized(&self, version: ProtocolVersion, client_info: Option<Value>, caps: Value) {
        SessionInner::initialized(self, version, client_info, caps)
    }

    fn set_log_level(&self, level: LogLevel) {
        SessionInner::set_log_level(self, level)
    }

    fn subscribe(&self, uri: &str, on: bool) -> Result<(), ServerError> {
        SessionInner::subscribe(self, uri, on)
    }
}

impl SessionInner {
    pub(crate) fn is_closed(&self) -> bool {
        self.st.borrow().closed
    }

    fn close(&self) {
        let (tokens, slots) = {
            let mut st = self.st.borrow_mut();
            if st.closed {
                return;
            }
            st.closed = true;
            st.listens.clear();
            st.subscriptions.clear();
            (st.in_flight.take_all(), st.outgoing.take_where(|_| true))
        };
        for t in tokens {
            t.cancel("The session was closed");
        }
        for sent in slots {
            sent.answer(Err(ErrorObject::new(
                INTERNAL_ERROR,
                "The session was closed",
            )));
        }
    }

    fn send(&self, v: &Value) {
        if !self.is_closed() {
            (self.sink)(Sent::Text(json_text::to_string(v)));
        }
    }

    /// Hands the sink a message in the form it takes.
    fn send_sent(&self, sent: Sent) {
        if !self.is_closed() {
            (self.sink)(sent);
        }
    }

    pub(crate) fn send_notification(&self, method: &str, params: Option<Value>) {
        self.send(&jsonrpc::notification(method, params));
    }

    fn receive(self: &Rc<Self>, text: &str) {
        if self.is_closed() {
            return;
        }
        let limits = &self.limits;
        if text.len() > limits.max_message_bytes {
            return self.refuse_oversize(text, text.len(), limits.max_message_bytes);
        }
        let depth = nesting_depth(text, limits.max_depth);
        if depth > limits.max_depth {
            let e = ServerError::LimitExceeded {
                what: "Message nesting depth",
                limit: limits.max_depth,
                actual: None,
            };
            return self.refuse_unparsed(text, e);
        }
        // A well-formed request or notification (nearly every message) is read into its
        // parts; anything else is parsed and classified as a value, which says what is wrong.
        // Either reading makes at most `max_values` values (a call's arguments read apart
        // aside): past them it stops, and the message is refused.
        let budget = ValueBudget::new(limits.max_values);
        let outcome = match jsonrpc::read_call_arguments_apart(text, "tools/call", &budget) {
            Some((message, arguments)) => self.handle_message(message, arguments),
            None => match self.receive_other(text, &budget) {
                Some(outcome) => outcome,
                None => return,
            },
        };
        match outcome {
            Outcome::Now(Some(v)) => self.send(&v),
            Outcome::Now(None) => {}
            Outcome::Shared(id, result) => self.send_sent(Sent::Shared { id, result }),
            // The answer to come is polled once now: a handler done when first polled (a
            // page's tool whose function returns its result) is answered while its message is
            // received, with no task spawned and no turn of the host's queue (in a page, a
            // microtask and a second call into the core per call). Only what still waits is
            // spawned; its first poll there gives its futures the task's waker, in place of
            // the no-op one they were polled with here.
            Outcome::Later(f) => {
                let me = self.clone();
                let mut answer: LocalBoxFuture<'static, ()> = Box::pin(async move {
                    if let Some(sent) = f.await {
                        me.send_sent(sent);
                    }
                    me.close_if_retired();
                });
                let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
                if answer.as_mut().poll(&mut cx).is_pending() {
                    self.server.runtime().spawn(answer);
                }
            }
        }
    }

    /// A message [`jsonrpc::read_call_arguments_apart`] did not read (with `budget`): refused
    /// if it ran out of the budget; a batch, received as one; anything else, read as a value
    /// (with the whole budget) to be handled, its outcome given back. `None` when it was
    /// answered here. (Apart from `receive`, which every message runs; `CORE_APART` in
    /// `scripts/lib/core-split.mjs`.)
    #[inline(never)]
    fn receive_other(self: &Rc<Self>, text: &str, budget: &ValueBudget) -> Option<Outcome> {
        if !budget.ran_out() {
            budget.reset();
            if let Some(items) = jsonrpc::batch_items(text) {
                self.receive_batch(text, items, budget);
                return None;
            }
            match values::from_str(text, budget) {
                // (Not an array: `batch_items` takes every array that is JSON.)
                Ok(single) => return Some(self.handle(single)),
                Err(_) if budget.ran_out() => {}
                // A syntax error, or valid JSON serde cannot hold (a lone surrogate escape).
                Err(e) => {
                    self.refuse_unparsed(text, ServerError::Parse(e.to_string()));
                    return None;
                }
            }
        }
        self.refuse_unparsed(text, too_many(budget));
        None
    }

    /// Answers a message refused before it was parsed, addressed to the request's id when
    /// one can be read from `text` (the whole message or, for an oversized one, its start).
    fn refuse_unparsed(&self, text: &str, e: ServerError) {
        let id = jsonrpc::peek_id(text);
        let error = e.to_error_object(None);
        // A client's answer (to a request of the server's: an elicitation, a sampling) is not
        // answered (its id is the server's, which the client's own requests may share); the
        // request it answers fails with the refusal, so that what waits for it is not left
        // waiting.
        if jsonrpc::peeks_as_response(text) {
            if let Some(id) = &id {
                self.settle_outgoing(id, Err(error));
            }
            return;
        }
        self.send(&jsonrpc::failure(id.as_ref(), error));
    }

    /// Refuses a message of `len` bytes over `limit`; `head` is the message or as much of
    /// its start as the transport kept.
    fn refuse_oversize(&self, head: &str, len: usize, limit: usize) {
        let e = ServerError::LimitExceeded {
            what: "Message size in bytes",
            limit,
            actual: Some(len),
        };
        self.refuse_unparsed(head, e)
    }

    /// A batch (`text`, whose items' texts are `items`): each item is read as a message on its
    /// own is (a call's arguments apart, as text), all of them with `budget` and before any
    /// runs, then each is handled and the answers go out in one array. (Apart from
    /// `receive_other`, which a client's answer runs: `CORE_APART` in
    /// `scripts/lib/core-split.mjs`.)
    #[inline(never)]
    fn receive_batch(self: &Rc<Self>, text: &str, items: Vec<&str>, budget: &ValueBudget) {
        let negotiated = self.st.borrow().negotiated;
        let refuse = |msg: String| {
            self.send(&jsonrpc::failure(
                None,
                ServerError::InvalidRequest(msg).to_error_object(negotiated),
            ))
        };
        match negotiated {
            Some(v) if v.allows_batches() => {}
            Some(v) => {
                return refuse(format!(
                    "Invalid request: JSON-RPC batches are not allowed in protocol {v} \
                     (only 2025-03-26 has them)"
                ))
            }
            None => {
                return refuse(
                    "Invalid request: JSON-RPC batches are allowed only after initialize \
                     negotiated protocol 2025-03-26"
                        .into(),
                )
            }
        }
        if items.is_empty() {
            return refuse("Invalid request: an empty batch".into());
        }
        let max = self.limits.max_batch_len;
        if items.len() > max {
            let e = ServerError::LimitExceeded {
                what: "Batch length",
                limit: max,
                actual: Some(items.len()),
            };
            return self.send(&jsonrpc::failure(None, e.to_error_object(negotiated)));
        }
        // Read, each item: its message and arguments, or its value (not a request it reads
        // into parts: `handle` says what is wrong with it). Past the budget, or where an item
        // is JSON that no value holds (a lone surrogate's escape), the batch is refused whole,
        // as a message that cannot be read is, and nothing of it runs.
        let mut read = Vec::with_capacity(items.len());
        for item in items {
            let start = budget.left();
            if let Some(call) = jsonrpc::read_call_arguments_apart(item, "tools/call", budget) {
                read.push(Ok(call));
                continue;
            }
            if !budget.ran_out() {
                budget.rewind(start);
                if let Ok(v) = values::from_str(item, budget) {
                    read.push(Err(v));
                    continue;
                }
            }
            if budget.ran_out() {
                return self.refuse_unparsed(text, too_many(budget));
            }
            // (The whole text's error, as its reading gives it: where it is in the text.)
            let whole = ValueBudget::new(budget.limit());
            let e = match values::from_str(text, &whole) {
                Err(_) if whole.ran_out() => too_many(&whole),
                Err(e) => ServerError::Parse(e.to_string()),
                Ok(_) => ServerError::Parse(format!("item {} cannot be read", read.len())),
            };
            return self.refuse_unparsed(text, e);
        }
        let outcomes: Vec<Outcome> = read
            .into_iter()
            .map(|r| match r {
                Ok((message, arguments)) => self.handle_message(message, arguments),
                Err(value) => self.handle(value),
            })
            .collect();
        let futs: Vec<LocalBoxFuture<'static, Option<Sent>>> =
            outcomes.into_iter().map(Outcome::into_sent).collect();
        let me = self.clone();
        self.server.runtime().spawn(Box::pin(async move {
            // The answers' texts written into one array's: each was serialized once.
            let mut array = String::new();
            for reply in join_all(futs).await.into_iter().flatten() {
                array.push(if array.is_empty() { '[' } else { ',' });
                array.push_str(&reply.into_text());
            }
            if !array.is_empty() {
                array.push(']');
                me.send_sent(Sent::Text(array));
            }
            me.close_if_retired();
        }));
    }

    /// Handles one message read as a value.
    fn handle(self: &Rc<Self>, message: Value) -> Outcome {
        match classify_owned(message) {
            Err(invalid) => Outcome::Now(Some(jsonrpc::failure(
                invalid.id.as_ref(),
                invalid.to_error(),
            ))),
            Ok(message) => self.handle_message(message, None),
        }
    }

    /// Handles one classified message; `arguments`: a
    /// `tools/call`'s `arguments` as text, when read apart from its params
    /// ([`jsonrpc::read_call_arguments_apart`]).
    fn handle_message(self: &Rc<Self>, message: Message, arguments: Option<&str>) -> Outcome {
        match message {
            Message::Request { id, method, params } => {
                self.handle_request(id, method, params, arguments)
            }
            Message::Notification { method, params } => {
                self.handle_notification(&method, params.unwrap_or(Value::Null));
                Outcome::Now(None)
            }
            Message::Response { id, result } => {
                self.settle_outgoing(&id, Ok(result));
                Outcome::Now(None)
            }
            Message::ErrorResponse { id, error } => {
                if let Some(id) = id {
                    self.settle_outgoing(&id, Err(error));
                }
                Outcome::Now(None)
            }
        }
    }

    /// Closes a retired session ([`Session::retire`]) once nothing of it runs.
    fn close_if_retired(&self) {
        let done = {
            let st = self.st.borrow();
            st.retiring && st.in_flight.is_empty()
        };
        if done {
            self.close();
        }
    }

    fn reply(
        &self,
        id: &RequestId,
        method: &str,
        version: Option<ProtocolVersion>,
        r: Result<Value, ServerError>,
    ) -> Value {
        match r {
            Ok(v) => jsonrpc::success(id, self.decorated(method, v, version)),
            Err(e) => jsonrpc::failure(Some(id), e.to_error_object(version)),
        }
    }

    /// Result `v` of `method` as `version` answers it (2026-07-28: `resultType`, the cache
    /// members, the server's identity).
    fn decorated(&self, method: &str, v: Value, version: Option<ProtocolVersion>) -> Value {
        shape::decorate(method, v, version, self.server.config(), &|| {
            self.server.info()
        })
    }

    fn handle_notification(&self, method: &str, params: Value) {
        match method {
            "notifications/initialized" => {
                let mut st = self.st.borrow_mut();
                if st.negotiated.is_some() {
                    st.ready = true;
                }
            }
            "notifications/cancelled" => self.cancelled(&params),
            // Other notifications (progress, roots/list_changed, unknown ones) need no answer.
            _ => {}
        }
    }

    /// `notifications/cancelled`: the request it names stops (its signal fires, it gets no
    /// response). Apart from [`SessionInner::handle`], which an agent's discovery runs
    /// (`#[inline(never)]`, and `CORE_APART` in `scripts/lib/core-split.mjs`).
    #[inline(never)]
    fn cancelled(&self, params: &Value) {
        let Some((id, reason)) = peer::read_cancelled(Some(params)) else {
            return;
        };
        let reason = reason.unwrap_or_else(|| "Cancelled by the client".into());
        // The id is free again at once: the client may reuse it.
        let token = {
            let mut st = self.st.borrow_mut();
            st.listens.retain(|l| l.id != id);
            st.in_flight.cancel(&id)
        };
        if let Some(t) = token {
            t.cancel(reason);
        }
        self.close_if_retired();
    }

    /// Completes `initialize`: records the client and the negotiated version.
    pub(crate) fn initialized(
        &self,
        version: ProtocolVersion,
        client_info: Option<Value>,
        caps: Value,
    ) {
        let since = self.server.generation();
        let mut st = self.st.borrow_mut();
        st.negotiated = Some(version);
        st.since = since;
        st.client_info = client_info;
        st.client_capabilities = Rc::new(caps);
    }
}

/// The refusal of a message whose reading ran out of `budget` ([`Limits::max_values`]).
fn too_many(budget: &ValueBudget) -> ServerError {
    ServerError::LimitExceeded {
        what: "The number of JSON values in a message (a tool call's arguments aside)",
        limit: budget.limit(),
        actual: None,
    }
}

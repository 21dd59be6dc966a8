//! One connection to one client: lifecycle, in-flight requests, subscriptions, and the
//! plumbing between incoming text and outgoing text.

use serde_json::{json, Map, Value};
use std::cell::RefCell;
use std::collections::{BTreeSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};

use super::context::RequestContext;
use super::engine::Server;
use super::error::ServerError;
use super::futures::{join_all, race, Either};
use super::limits::nesting_depth;
use super::logging::LogLevel;
use super::methods::{self, Call, Reply};
use super::registry::ListKind;
use super::runtime::LocalBoxFuture;
use crate::peer::{self, Answer, CancellationToken, InFlight, Outgoing};
use crate::protocol::error_codes::INTERNAL_ERROR;
use crate::protocol::jsonrpc::{self, classify, Message};
use crate::protocol::{Era, ErrorObject, ProtocolVersion, RequestId};

/// `_meta` keys of the stateless era.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Which notifications a `subscriptions/listen` stream asked for.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ListenFilter {
    pub tools: bool,
    pub resources: bool,
    pub prompts: bool,
    pub resource_uris: BTreeSet<String>,
    /// `notifications/tasks` for these tasks (SEP-2663).
    pub task_ids: BTreeSet<String>,
}

impl ListenFilter {
    fn wants(&self, kind: ListKind) -> bool {
        match kind {
            ListKind::Tools => self.tools,
            ListKind::Resources => self.resources,
            ListKind::Prompts => self.prompts,
        }
    }
}

struct Listen {
    id: RequestId,
    filter: ListenFilter,
    /// The server's change generation when the stream opened.
    since: u64,
}

/// What a request sent to the client waits for.
type ClientAnswer = Result<Value, ErrorObject>;

/// A request admitted, before it runs.
struct Job {
    id: RequestId,
    method: String,
    params: Map<String, Value>,
    version: Option<ProtocolVersion>,
    stateless: bool,
}

/// What the in-flight cap decided for a request.
enum Admission {
    /// Not counted: it runs no page code (`ping`, lists, …).
    Free,
    /// A slot was free.
    Run,
    /// Queued behind the running ones.
    Wait(Rc<RefCell<Turn>>),
}

/// A queued request's place: granted when a slot passes to it.
#[derive(Default)]
struct Turn {
    granted: bool,
    waker: Option<Waker>,
}

/// Resolves with the slot once the queued request's turn comes. Dropped before that (the
/// request was cancelled), it leaves the queue; dropped after, it passes the slot on.
struct TurnFuture {
    turn: Rc<RefCell<Turn>>,
    session: Weak<SessionInner>,
    taken: bool,
}

impl Future for TurnFuture {
    type Output = Permit;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Permit> {
        let granted = {
            let mut t = self.turn.borrow_mut();
            if !t.granted {
                t.waker = Some(cx.waker().clone());
            }
            t.granted
        };
        if granted {
            self.taken = true;
            Poll::Ready(Permit(self.session.clone()))
        } else {
            Poll::Pending
        }
    }
}

impl Drop for TurnFuture {
    fn drop(&mut self) {
        if self.taken {
            return;
        }
        let Some(session) = self.session.upgrade() else {
            return;
        };
        if self.turn.borrow().granted {
            session.release();
        } else if let Ok(mut st) = session.st.try_borrow_mut() {
            st.waiting.retain(|t| !Rc::ptr_eq(t, &self.turn));
        }
    }
}

/// One of the `limits.max_in_flight` slots, held while a handler-running request runs;
/// dropping it passes the slot to the next queued request.
struct Permit(Weak<SessionInner>);

impl Drop for Permit {
    fn drop(&mut self) {
        if let Some(s) = self.0.upgrade() {
            s.release();
        }
    }
}

struct State {
    /// The version negotiated by `initialize`, once answered.
    negotiated: Option<ProtocolVersion>,
    /// `notifications/initialized` received.
    ready: bool,
    /// The server's change generation when `initialize` was answered.
    since: u64,
    client_info: Option<Value>,
    client_capabilities: Value,
    log_level: Option<LogLevel>,
    subscriptions: BTreeSet<String>,
    listens: Vec<Listen>,
    /// Requests running or queued, by id: cancelling the token ends one (a queued one never
    /// starts).
    in_flight: InFlight,
    /// Handler-running requests started and not finished (at most `limits.max_in_flight`).
    running: usize,
    /// Requests waiting for one of them to finish, first come first served (at most
    /// `limits.max_queued`).
    waiting: VecDeque<Rc<RefCell<Turn>>>,
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
    sink: Box<dyn Fn(String)>,
    st: RefCell<State>,
}

/// A client's connection to the [`Server`]. Feed it incoming text with
/// [`Session::receive`]; it writes outgoing text to the sink given to
/// [`Server::connect`].
pub struct Session(pub(crate) Rc<SessionInner>);

enum Outcome {
    Now(Option<Value>),
    Later(LocalBoxFuture<'static, Option<Value>>),
}

/// How a request is to be served.
enum Mode {
    /// Before `initialize` (only `initialize` and `ping` get here).
    PreInit,
    Handshake(ProtocolVersion),
    Stateless(ProtocolVersion),
}

impl Session {
    pub(crate) fn new(server: Server, sink: Box<dyn Fn(String)>) -> Session {
        let id = server.next_id();
        Session(Rc::new(SessionInner {
            server,
            id,
            sink,
            st: RefCell::new(State {
                negotiated: None,
                ready: false,
                since: 0,
                client_info: None,
                client_capabilities: Value::Object(Map::new()),
                log_level: None,
                subscriptions: BTreeSet::new(),
                listens: Vec::new(),
                in_flight: InFlight::default(),
                running: 0,
                waiting: VecDeque::new(),
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
            (self.sink)(v.to_string());
        }
    }

    pub(crate) fn send_notification(&self, method: &str, params: Option<Value>) {
        self.send(&jsonrpc::notification(method, params));
    }

    fn receive(self: &Rc<Self>, text: &str) {
        if self.is_closed() {
            return;
        }
        let limits = &self.server.config().limits;
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
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            // A syntax error, or valid JSON serde cannot hold (a lone surrogate escape).
            Err(e) => return self.refuse_unparsed(text, ServerError::Parse(e.to_string())),
        };
        match value {
            Value::Array(items) => self.receive_batch(items),
            single => match self.handle(single) {
                Outcome::Now(Some(v)) => self.send(&v),
                Outcome::Now(None) => {}
                Outcome::Later(f) => {
                    let me = self.clone();
                    self.server.0.runtime.spawn(Box::pin(async move {
                        if let Some(v) = f.await {
                            me.send(&v);
                        }
                        me.close_if_retired();
                    }));
                }
            },
        }
    }

    /// Answers a message refused before it was parsed, addressed to the request's id when
    /// one can be read from `text` (the whole message or, for an oversized one, its start).
    fn refuse_unparsed(&self, text: &str, e: ServerError) {
        let id = jsonrpc::peek_id(text);
        self.send(&jsonrpc::failure(id.as_ref(), e.to_error_object(None)));
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

    fn receive_batch(self: &Rc<Self>, items: Vec<Value>) {
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
        let max = self.server.config().limits.max_batch_len;
        if items.len() > max {
            let e = ServerError::LimitExceeded {
                what: "Batch length",
                limit: max,
                actual: Some(items.len()),
            };
            return self.send(&jsonrpc::failure(None, e.to_error_object(negotiated)));
        }
        let outcomes: Vec<Outcome> = items.into_iter().map(|m| self.handle(m)).collect();
        let futs: Vec<LocalBoxFuture<'static, Option<Value>>> = outcomes
            .into_iter()
            .map(|o| -> LocalBoxFuture<'static, Option<Value>> {
                match o {
                    Outcome::Now(v) => Box::pin(async move { v }),
                    Outcome::Later(f) => f,
                }
            })
            .collect();
        let me = self.clone();
        self.server.0.runtime.spawn(Box::pin(async move {
            let replies: Vec<Value> = join_all(futs).await.into_iter().flatten().collect();
            if !replies.is_empty() {
                me.send(&Value::Array(replies));
            }
            me.close_if_retired();
        }));
    }

    fn handle(self: &Rc<Self>, message: Value) -> Outcome {
        match classify(&message) {
            Err(invalid) => Outcome::Now(Some(jsonrpc::failure(
                invalid.id.as_ref(),
                invalid.to_error(),
            ))),
            Ok(Message::Request { id, method, params }) => self.handle_request(id, method, params),
            Ok(Message::Notification { method, params }) => {
                self.handle_notification(&method, params.unwrap_or(Value::Null));
                Outcome::Now(None)
            }
            Ok(Message::Response { id, result }) => {
                self.settle_outgoing(&id, Ok(result));
                Outcome::Now(None)
            }
            Ok(Message::ErrorResponse { id, error }) => {
                if let Some(id) = id {
                    self.settle_outgoing(&id, Err(error));
                }
                Outcome::Now(None)
            }
        }
    }

    fn mode(&self, method: &str, params: &Map<String, Value>) -> Result<Mode, ServerError> {
        let negotiated = self.st.borrow().negotiated;
        if let Some(v) = negotiated {
            if method == "initialize" {
                return Err(ServerError::InvalidRequest(format!(
                    "Invalid request: the session is already initialized (protocol {v})"
                )));
            }
            return Ok(Mode::Handshake(v));
        }
        let meta = params.get("_meta").and_then(Value::as_object);
        // `initialize` and `ping` are answered before the handshake, but a request naming
        // its version in `_meta` is a stateless one, and 2026-07-28 has neither method.
        let names_version = meta.is_some_and(|m| m.contains_key(META_PROTOCOL_VERSION));
        if (method == "initialize" || method == "ping") && !names_version {
            return Ok(Mode::PreInit);
        }
        match meta.and_then(|m| m.get(META_PROTOCOL_VERSION)) {
            Some(Value::String(requested)) => match ProtocolVersion::parse(requested) {
                Some(v) if v.era() == Era::Stateless => {
                    if !meta.is_some_and(|m| {
                        m.get(META_CLIENT_CAPABILITIES)
                            .is_some_and(Value::is_object)
                    }) {
                        return Err(ServerError::invalid_params(format!(
                            "_meta[\"{META_CLIENT_CAPABILITIES}\"] must be an object \
                             (required in protocol {v})"
                        )));
                    }
                    Ok(Mode::Stateless(v))
                }
                _ => Err(ServerError::UnsupportedVersion {
                    requested: requested.clone(),
                    supported: ProtocolVersion::ALL
                        .iter()
                        .filter(|v| v.era() == Era::Stateless)
                        .map(|v| v.as_str())
                        .collect(),
                }),
            },
            Some(other) => Err(ServerError::invalid_params(format!(
                "_meta[\"{META_PROTOCOL_VERSION}\"] must be a string, got {other}"
            ))),
            None if method == "server/discover" => Err(ServerError::invalid_params(format!(
                "server/discover: _meta[\"{META_PROTOCOL_VERSION}\"] is required"
            ))),
            None => Err(ServerError::NotInitialized {
                method: method.to_string(),
            }),
        }
    }

    fn handle_request(
        self: &Rc<Self>,
        id: RequestId,
        method: String,
        params: Option<Value>,
    ) -> Outcome {
        let fail_now = |e: ServerError, v: Option<ProtocolVersion>| {
            Outcome::Now(Some(jsonrpc::failure(Some(&id), e.to_error_object(v))))
        };
        let params = match params {
            None => Map::new(),
            Some(Value::Object(o)) => o,
            Some(_) => {
                return fail_now(
                    ServerError::invalid_params(format!(
                        "\"params\" of {method} must be an object (MCP uses named parameters)"
                    )),
                    None,
                )
            }
        };
        let mode = match self.mode(&method, &params) {
            Ok(m) => m,
            Err(e) => return fail_now(e, self.st.borrow().negotiated),
        };
        let (version, stateless) = match mode {
            Mode::PreInit => (None, false),
            Mode::Handshake(v) => (Some(v), false),
            Mode::Stateless(v) => (Some(v), true),
        };
        let admission = {
            let mut st = self.st.borrow_mut();
            if st.in_flight.contains(&id) || st.listens.iter().any(|l| l.id == id) {
                drop(st);
                return fail_now(
                    ServerError::InvalidRequest(format!(
                        "Invalid request: id {id} is already used by a request in flight"
                    )),
                    version,
                );
            }
            let limits = &self.server.config().limits;
            if !methods::runs_handler(&method) {
                Admission::Free
            } else if st.running < limits.max_in_flight.max(1) {
                st.running += 1;
                Admission::Run
            } else if st.waiting.len() < limits.max_queued {
                let turn = Rc::new(RefCell::new(Turn::default()));
                st.waiting.push_back(turn.clone());
                Admission::Wait(turn)
            } else {
                let limit = limits.max_in_flight + limits.max_queued;
                drop(st);
                return fail_now(
                    ServerError::LimitExceeded {
                        what: "Requests in flight and queued",
                        limit,
                        actual: None,
                    },
                    version,
                );
            }
        };
        let job = Job {
            id,
            method,
            params,
            version,
            stateless,
        };
        match admission {
            Admission::Free => self.start(job, None, None),
            Admission::Run => {
                let permit = Permit(Rc::downgrade(self));
                self.start(job, Some(permit), None)
            }
            // Past the in-flight cap: the request waits its turn (cancellable meanwhile, and
            // counted in `in_flight` so its id stays taken) instead of being refused.
            Admission::Wait(turn) => {
                let abort = CancellationToken::new();
                self.st
                    .borrow_mut()
                    .in_flight
                    .start(job.id.clone(), abort.clone());
                let wait = TurnFuture {
                    turn,
                    session: Rc::downgrade(self),
                    taken: false,
                };
                let me = self.clone();
                Outcome::Later(Box::pin(async move {
                    let permit = match race(Box::pin(wait), Box::pin(abort.cancelled())).await {
                        Either::Left(p) if !abort.is_cancelled() => p,
                        // Cancelled (or the session closed) while queued: no response.
                        _ => return None,
                    };
                    match me.start(job, Some(permit), Some(abort)) {
                        Outcome::Now(v) => v,
                        Outcome::Later(f) => f.await,
                    }
                }))
            }
        }
    }

    /// Runs an admitted request. `permit` (a handler-running request's slot) is held until it
    /// is answered; `queued` is the token a request that waited in the queue was cancellable
    /// with, kept as its cancellation.
    fn start(
        self: &Rc<Self>,
        job: Job,
        permit: Option<Permit>,
        queued: Option<CancellationToken>,
    ) -> Outcome {
        let Job {
            id,
            method,
            params,
            version,
            stateless,
        } = job;
        let ctx = self.context(&id, &params, version, stateless);
        let call = Call {
            session: self.clone(),
            id: id.clone(),
            method: method.clone(),
            params,
            version,
            stateless,
            ctx,
        };
        match methods::dispatch(&call) {
            Reply::Now(r) => {
                call.ctx.finish();
                if let Some(t) = &queued {
                    self.forget(&id, t);
                }
                drop(permit);
                Outcome::Now(Some(self.reply(&id, &method, version, r)))
            }
            Reply::Listen(filter) => {
                self.open_listen(id, filter);
                Outcome::Now(None)
            }
            Reply::Later(fut) => {
                // `abort` is the client's cancellation (or the session closing): it fires the
                // handler's signal and suppresses the response. The handler's signal may also
                // fire on its own (a tool timeout); the result produced then still goes out.
                let abort = queued.unwrap_or_default();
                let ctx = call.ctx.clone();
                let signal = call.ctx.cancel.clone();
                abort.on_cancel(move |why| signal.cancel(why));
                self.st
                    .borrow_mut()
                    .in_flight
                    .start(id.clone(), abort.clone());
                let me = self.clone();
                Outcome::Later(Box::pin(async move {
                    let raced = race(fut, Box::pin(abort.cancelled())).await;
                    ctx.finish();
                    me.forget(&id, &abort);
                    // The slot is free for the next queued request (also when cancelled).
                    drop(permit);
                    match raced {
                        // A cancelled request gets no response.
                        Either::Right(_) => None,
                        Either::Left(_) if abort.is_cancelled() => None,
                        Either::Left(r) => Some(me.reply(&id, &method, version, r)),
                    }
                }))
            }
        }
    }

    /// Removes request `id` from `in_flight` if `token` is still its entry (the client may
    /// have reused the id after cancelling).
    fn forget(&self, id: &RequestId, token: &CancellationToken) {
        self.st.borrow_mut().in_flight.finish(id, token);
    }

    /// Gives a finished request's slot to the first request waiting, or frees it.
    fn release(&self) {
        let waker = {
            let Ok(mut st) = self.st.try_borrow_mut() else {
                return;
            };
            match st.waiting.pop_front() {
                Some(turn) => {
                    let mut t = turn.borrow_mut();
                    t.granted = true;
                    t.waker.take()
                }
                None => {
                    st.running = st.running.saturating_sub(1);
                    None
                }
            }
        };
        if let Some(w) = waker {
            w.wake();
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
            Ok(v) => jsonrpc::success(id, self.decorate(method, v, version)),
            Err(e) => jsonrpc::failure(Some(id), e.to_error_object(version)),
        }
    }

    /// 2026-07-28: `resultType`, `ttlMs`/`cacheScope` on cacheable results, and the server's
    /// identity in `_meta`.
    fn decorate(&self, method: &str, mut result: Value, version: Option<ProtocolVersion>) -> Value {
        let stateless = version.is_some_and(|v| v.has_result_type()) || method == "server/discover";
        let Some(obj) = result.as_object_mut().filter(|_| stateless) else {
            return result;
        };
        let version = version.unwrap_or(ProtocolVersion::V2026_07_28);
        obj.entry("resultType").or_insert_with(|| json!("complete"));
        let cacheable = matches!(
            method,
            "server/discover"
                | "tools/list"
                | "resources/list"
                | "resources/templates/list"
                | "prompts/list"
                | "resources/read"
                | "skills/list"
                | "skills/get"
                | "resources/directory/read"
        );
        // An input-required result (server::input_required) is not an answer to cache.
        let complete = obj.get("resultType").and_then(Value::as_str) == Some("complete");
        if cacheable && complete {
            let config = self.server.config();
            obj.entry("ttlMs").or_insert_with(|| json!(config.ttl_ms));
            obj.entry("cacheScope")
                .or_insert_with(|| json!(config.cache_scope));
        }
        let meta = obj
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(m) = meta.as_object_mut() {
            m.entry(META_SERVER_INFO)
                .or_insert_with(|| self.server.info().implementation(version));
        }
        result
    }

    fn context(
        self: &Rc<Self>,
        id: &RequestId,
        params: &Map<String, Value>,
        version: Option<ProtocolVersion>,
        stateless: bool,
    ) -> RequestContext {
        let meta = params.get("_meta").cloned().unwrap_or(Value::Null);
        let progress = match (meta.get("progressToken"), version) {
            (Some(t @ (Value::String(_) | Value::Number(_))), Some(v)) => Some(
                RequestContext::progress_reporter(t.clone(), Rc::downgrade(self), v),
            ),
            _ => None,
        };
        let (log_level, caps) = if stateless {
            (
                meta.get(META_LOG_LEVEL)
                    .and_then(Value::as_str)
                    .and_then(LogLevel::parse),
                meta.get(META_CLIENT_CAPABILITIES)
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Map::new())),
            )
        } else {
            (None, self.st.borrow().client_capabilities.clone())
        };
        RequestContext {
            cancel: CancellationToken::new(),
            version,
            request_id: Some(id.clone()),
            progress,
            session: Some(Rc::downgrade(self)),
            log_level,
            stateless,
            client_capabilities: caps,
            meta,
            inputs: Default::default(),
            task: None,
        }
    }

    fn handle_notification(&self, method: &str, params: Value) {
        match method {
            "notifications/initialized" => {
                let mut st = self.st.borrow_mut();
                if st.negotiated.is_some() {
                    st.ready = true;
                }
            }
            "notifications/cancelled" => {
                let Some((id, reason)) = peer::read_cancelled(Some(&params)) else {
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
            // Other notifications (progress, roots/list_changed, unknown ones) need no answer.
            _ => {}
        }
    }

    // ---- used by methods ------------------------------------------------------------

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
        st.client_capabilities = caps;
    }

    pub(crate) fn set_log_level(&self, level: LogLevel) {
        self.st.borrow_mut().log_level = Some(level);
    }

    pub(crate) fn subscribe(&self, uri: &str, on: bool) {
        let mut st = self.st.borrow_mut();
        if on {
            st.subscriptions.insert(uri.to_string());
        } else {
            st.subscriptions.remove(uri);
        }
    }

    fn open_listen(&self, id: RequestId, filter: ListenFilter) {
        let mut agreed = Map::new();
        if filter.tools {
            agreed.insert("toolsListChanged".into(), json!(true));
        }
        if filter.resources {
            agreed.insert("resourcesListChanged".into(), json!(true));
        }
        if filter.prompts {
            agreed.insert("promptsListChanged".into(), json!(true));
        }
        if !filter.resource_uris.is_empty() {
            agreed.insert(
                "resourceSubscriptions".into(),
                json!(filter.resource_uris.iter().collect::<Vec<_>>()),
            );
        }
        if !filter.task_ids.is_empty() {
            agreed.insert(
                "taskIds".into(),
                json!(filter.task_ids.iter().collect::<Vec<_>>()),
            );
        }
        self.send_notification(
            "notifications/subscriptions/acknowledged",
            Some(json!({
                "notifications": agreed,
                "_meta": { META_SUBSCRIPTION_ID: id.to_value() },
            })),
        );
        let since = self.server.generation();
        self.st
            .borrow_mut()
            .listens
            .push(Listen { id, filter, since });
    }

    // ---- used by the server ---------------------------------------------------------

    /// Announces a change of `kind` made at `generation`, if this session (or a stream of
    /// it) started before it.
    pub(crate) fn list_changed(&self, kind: ListKind, generation: u64) {
        self.fan_out(
            kind.list_changed_method(),
            None,
            |st| st.negotiated.is_some() && st.since < generation,
            |l| l.filter.wants(kind) && l.since < generation,
        );
    }

    /// A server-wide notification: sent once a version is negotiated (handshake era) or on
    /// each open `subscriptions/listen` stream (stateless era).
    pub(crate) fn broadcast(&self, method: &str, params: Option<Value>) {
        self.fan_out(method, params, |st| st.negotiated.is_some(), |_| true);
    }

    /// `notifications/tasks` with `detailed` on each stream that asked for task `id`.
    pub(crate) fn task_status(&self, id: &str, detailed: &Value) {
        self.fan_out(
            "notifications/tasks",
            Some(detailed.clone()),
            |_| false,
            |l| l.filter.task_ids.contains(id),
        );
    }

    pub(crate) fn resource_updated(&self, uri: &str) {
        self.fan_out(
            "notifications/resources/updated",
            Some(json!({ "uri": uri })),
            |st| st.subscriptions.contains(uri),
            |l| l.filter.resource_uris.contains(uri),
        );
    }

    /// Sends `method` to the client directly when `direct` says so (the handshake era), and
    /// on each `subscriptions/listen` stream `stream` picks, its params then carrying the
    /// stream's subscription id in `_meta`.
    fn fan_out(
        &self,
        method: &str,
        params: Option<Value>,
        direct: impl FnOnce(&State) -> bool,
        stream: impl Fn(&Listen) -> bool,
    ) {
        let (direct, streams) = {
            let st = self.st.borrow();
            if st.retiring {
                return;
            }
            let ids: Vec<RequestId> = st
                .listens
                .iter()
                .filter(|l| stream(l))
                .map(|l| l.id.clone())
                .collect();
            (direct(&st), ids)
        };
        if direct {
            self.send_notification(method, params.clone());
        }
        for id in streams {
            let mut p = params.clone().unwrap_or_else(|| json!({}));
            if let Some(o) = p.as_object_mut() {
                let meta = o.entry("_meta").or_insert_with(|| json!({}));
                if let Some(m) = meta.as_object_mut() {
                    m.insert(META_SUBSCRIPTION_ID.into(), id.to_value());
                }
            }
            self.send_notification(method, Some(p));
        }
    }

    /// Sends `notifications/message` when `level` passes the threshold: the request's own
    /// level in the stateless era (`per_request`), else the session's (`logging/setLevel`;
    /// everything before one is set). Returns whether it was sent.
    pub(crate) fn log(
        &self,
        level: LogLevel,
        logger: Option<&str>,
        data: Value,
        per_request: Option<Option<LogLevel>>,
    ) -> bool {
        let threshold = match per_request {
            Some(t) => t,
            None => {
                let st = self.st.borrow();
                if st.negotiated.is_none() {
                    return false;
                }
                Some(st.log_level.unwrap_or(LogLevel::Debug))
            }
        };
        match threshold {
            Some(t) if level >= t && !self.is_closed() => {
                let mut p = Map::new();
                p.insert("level".into(), json!(level.as_str()));
                if let Some(l) = logger {
                    p.insert("logger".into(), json!(l));
                }
                p.insert("data".into(), data);
                self.send_notification("notifications/message", Some(Value::Object(p)));
                true
            }
            _ => false,
        }
    }

    /// Sends a request to the client and resolves with its answer. Refused at once (nothing
    /// is sent) in the stateless era, on a closed session, for a method the version has no
    /// server-to-client request for, and when the client did not declare the capability the
    /// method needs (`sampling`, `roots`, `elicitation`).
    pub(crate) fn request(
        self: &Rc<Self>,
        method: &str,
        params: Option<Value>,
        version: Option<ProtocolVersion>,
    ) -> LocalBoxFuture<'static, Result<Value, ErrorObject>> {
        let refuse = |e: ServerError| -> LocalBoxFuture<'static, Result<Value, ErrorObject>> {
            let e = e.to_error_object(version);
            Box::pin(async move { Err(e) })
        };
        let Some(v) = version.or_else(|| self.st.borrow().negotiated) else {
            return refuse(ServerError::InvalidRequest(format!(
                "Cannot send {method}: the client has not initialized the session"
            )));
        };
        if v.era() == Era::Stateless {
            return refuse(ServerError::InvalidRequest(format!(
                "Cannot send {method}: protocol {v} has no server-to-client requests"
            )));
        }
        if !v.server_request_methods().contains(&method) {
            return refuse(ServerError::InvalidRequest(format!(
                "Cannot send {method}: protocol {v} has no such server-to-client request \
                 (it has {})",
                v.server_request_methods().join(", ")
            )));
        }
        if params
            .as_ref()
            .is_some_and(|p| !p.is_object() && !p.is_null())
        {
            return refuse(ServerError::invalid_params(format!(
                "Cannot send {method}: params must be an object"
            )));
        }
        let needs = match method {
            "sampling/createMessage" => Some("sampling"),
            "roots/list" => Some("roots"),
            "elicitation/create" => Some("elicitation"),
            _ => None,
        };
        if let Some(cap) = needs {
            let declared = self.st.borrow().client_capabilities.get(cap).is_some();
            if !declared {
                return refuse(ServerError::MissingClientCapability {
                    required: json!({ cap: {} }),
                });
            }
        }
        let (id, waiter) = {
            let mut st = self.st.borrow_mut();
            if st.closed {
                drop(st);
                return refuse(ServerError::Internal(format!(
                    "Cannot send {method}: the session is closed"
                )));
            }
            st.outgoing.begin(method.to_string())
        };
        let id = RequestId::Number(id);
        self.send(&jsonrpc::request(&id, method, params));
        // Dropped unanswered (the handler that sent it was cancelled or timed out): the
        // client is told the server no longer needs the answer.
        let session = Rc::downgrade(self);
        Box::pin(Answer::new(waiter, move || {
            let Some(session) = session.upgrade() else {
                return;
            };
            let RequestId::Number(n) = id else { return };
            let method = match session.st.try_borrow_mut() {
                Ok(mut st) => st.outgoing.forget(n),
                Err(_) => None,
            };
            if let Some(method) = method {
                session.send(&peer::cancelled(
                    &id,
                    &format!("The server no longer needs the answer to {method}"),
                ));
            }
        }))
    }

    fn settle_outgoing(&self, id: &RequestId, r: ClientAnswer) {
        let sent = self.st.borrow_mut().outgoing.take_answered(id, |_| true);
        if let Some(sent) = sent {
            sent.answer(r);
        }
    }
}

// ---- snapshot and restore (a transport keeping a session across a page load) ---------------

/// The format of [`Session::snapshot`]; [`Server::connect_restored`] refuses other formats.
pub const SNAPSHOT_FORMAT: u64 = 1;

impl Session {
    /// The session's lifecycle state as JSON, for a transport to keep across a page load
    /// (the tab transport's `persist` option): the negotiated version, the initialized flag,
    /// the client's info and capabilities, the log level, resource subscriptions, and the ids
    /// of requests still running (the restored session answers them with an error).
    /// Stateless-era and uninitialized sessions have nothing to keep: `protocolVersion` is
    /// `null`.
    pub fn snapshot(&self) -> Value {
        let st = self.0.st.borrow();
        let in_flight: Vec<Value> = st.in_flight.ids().map(RequestId::to_value).collect();
        json!({
            "format": SNAPSHOT_FORMAT,
            "protocolVersion": st.negotiated.map(|v| v.as_str()),
            "initialized": st.ready,
            "clientInfo": st.client_info,
            "clientCapabilities": st.client_capabilities,
            "logLevel": st.log_level.map(|l| l.as_str()),
            "subscriptions": st.subscriptions.iter().collect::<Vec<_>>(),
            "inFlight": in_flight,
        })
    }
}

impl SessionInner {
    /// Loads a [`Session::snapshot`] into this fresh session. Checks everything first and
    /// changes nothing on error.
    pub(crate) fn restore(&self, snap: &Value) -> Result<Vec<RequestId>, String> {
        let obj = snap
            .as_object()
            .ok_or_else(|| format!("a session snapshot must be an object, got {snap}"))?;
        if obj.get("format") != Some(&json!(SNAPSHOT_FORMAT)) {
            return Err(format!(
                "unsupported session snapshot format {} (expected {SNAPSHOT_FORMAT})",
                obj.get("format").unwrap_or(&Value::Null)
            ));
        }
        let negotiated = match obj.get("protocolVersion") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => match ProtocolVersion::parse(s) {
                Some(v) if v.era() == Era::Handshake => Some(v),
                _ => return Err(format!("snapshot protocolVersion {s:?} is not a handshake-era version this server speaks")),
            },
            Some(other) => return Err(format!("snapshot protocolVersion must be a string, got {other}")),
        };
        let ready = match obj.get("initialized") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(format!(
                    "snapshot initialized must be a boolean, got {other}"
                ))
            }
        };
        let client_info = obj.get("clientInfo").filter(|v| !v.is_null()).cloned();
        let client_capabilities = match obj.get("clientCapabilities") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(v @ Value::Object(_)) => v.clone(),
            Some(other) => {
                return Err(format!(
                    "snapshot clientCapabilities must be an object, got {other}"
                ))
            }
        };
        let log_level = match obj.get("logLevel") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(
                LogLevel::parse(s)
                    .ok_or_else(|| format!("snapshot logLevel {s:?} is not a log level"))?,
            ),
            Some(other) => return Err(format!("snapshot logLevel must be a string, got {other}")),
        };
        let list = |key: &str| -> Result<Vec<Value>, String> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(a)) => Ok(a.clone()),
                Some(other) => Err(format!("snapshot {key} must be an array, got {other}")),
            }
        };
        let subscriptions = list("subscriptions")?
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                other => Err(format!(
                    "snapshot subscriptions must be strings, got {other}"
                )),
            })
            .collect::<Result<BTreeSet<String>, String>>()?;
        let interrupted = list("inFlight")?
            .iter()
            .map(|v| {
                RequestId::from_value(v)
                    .ok_or_else(|| format!("snapshot inFlight holds a bad id {v}"))
            })
            .collect::<Result<Vec<RequestId>, String>>()?;
        let since = self.server.generation();
        let mut st = self.st.borrow_mut();
        if st.negotiated.is_some() || st.closed {
            return Err("only a fresh session can be restored".into());
        }
        st.negotiated = negotiated;
        st.ready = ready && negotiated.is_some();
        st.since = since;
        st.client_info = if negotiated.is_some() {
            client_info
        } else {
            None
        };
        st.client_capabilities = client_capabilities;
        st.log_level = log_level;
        st.subscriptions = if negotiated.is_some() {
            subscriptions
        } else {
            BTreeSet::new()
        };
        Ok(interrupted)
    }

    /// Answers requests a snapshot says were running when the page went away.
    pub(crate) fn fail_interrupted(&self, ids: &[RequestId]) {
        let version = self.st.borrow().negotiated;
        for id in ids {
            let e = ServerError::Internal(
                "The request was interrupted: the page navigated or reloaded before it finished"
                    .into(),
            );
            self.send(&jsonrpc::failure(Some(id), e.to_error_object(version)));
        }
    }
}

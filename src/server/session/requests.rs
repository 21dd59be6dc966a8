//! Serving the client's requests: the in-flight cap and the queue behind it, running a
//! request's handler, and forgetting it when it finishes or is cancelled.

use serde_json::{Map, Value};
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};

use super::{Mode, Outcome, Sent, SessionInner};
use crate::peer::CancellationToken;
use crate::protocol::jsonrpc;
use crate::protocol::{ProtocolVersion, RequestId};
use crate::server::call::{Call, Reply};
use crate::server::error::ServerError;
use crate::server::futures::{race, Either};
use crate::server::held;
use crate::server::methods;
use crate::server::runtime::LocalBoxFuture;

/// A request admitted, before it runs.
struct Job {
    id: RequestId,
    method: String,
    params: Map<String, Value>,
    /// A `tools/call`'s arguments as JSON text, when its message was read so (see
    /// [`Call::arguments`]).
    arguments: Option<Rc<str>>,
    version: Option<ProtocolVersion>,
    stateless: bool,
}

/// What the in-flight cap decided for a request.
enum Admission {
    /// A slot was free.
    Run,
    /// Queued behind the running ones.
    Wait(Rc<RefCell<Turn>>),
}

/// A queued request's place: granted when a slot passes to it.
#[derive(Default)]
pub(super) struct Turn {
    pub(super) granted: bool,
    pub(super) waker: Option<Waker>,
    /// What the request keeps while it waits (its arguments' text and its params' values,
    /// [`crate::server::limits::params_bytes`]), counted in the session's `waiting_bytes`.
    pub(super) bytes: usize,
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
            let before = st.waiting.len();
            st.waiting.retain(|t| !Rc::ptr_eq(t, &self.turn));
            if st.waiting.len() < before {
                st.waiting_bytes = st.waiting_bytes.saturating_sub(self.turn.borrow().bytes);
            }
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

/// Request `id`'s answer when it is refused before it runs: `e` as a JSON-RPC error, in the
/// words of `version` (`None` before one is negotiated).
fn refused(id: &RequestId, e: ServerError, version: Option<ProtocolVersion>) -> Outcome {
    Outcome::Now(Some(jsonrpc::failure(Some(id), e.to_error_object(version))))
}

impl SessionInner {
    /// Serves request `id` (`arguments`: a `tools/call`'s `arguments` as text, when read apart
    /// from its params).
    pub(super) fn handle_request(
        self: &Rc<Self>,
        id: RequestId,
        method: String,
        params: Option<Value>,
        arguments: Option<&str>,
    ) -> Outcome {
        let fail_now = |e: ServerError, v: Option<ProtocolVersion>| refused(&id, e, v);
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
        let arguments = arguments.map(Rc::from);
        let mode = match self.mode(&method, &params) {
            Ok(m) => m,
            Err(e) => return fail_now(e, self.st.borrow().negotiated),
        };
        let (version, stateless) = match mode {
            Mode::PreInit => (None, false),
            Mode::Handshake(v) => (Some(v), false),
            Mode::Stateless(v) => (Some(v), true),
        };
        {
            let st = self.st.borrow();
            if st.in_flight.contains(&id) || st.listens.iter().any(|l| l.id == id) {
                drop(st);
                return fail_now(
                    ServerError::InvalidRequest(format!(
                        "Invalid request: id {id} is already used by a request in flight"
                    )),
                    version,
                );
            }
        }
        let job = Job {
            id,
            method,
            params,
            arguments,
            version,
            stateless,
        };
        if !methods::runs_handler(&job.method) {
            return self.start(job, None, None);
        }
        self.admit_to_handler(job)
    }

    /// A request whose method runs a handler of the page's (tools, resources, prompts…): it
    /// runs now, waits its turn past `limits.max_in_flight`, or is refused past the queue's
    /// limits. Apart from [`SessionInner::handle_request`], which an agent's discovery runs
    /// (`#[inline(never)]`, and `CORE_APART` in `scripts/lib/core-split.mjs`).
    #[inline(never)]
    fn admit_to_handler(self: &Rc<Self>, job: Job) -> Outcome {
        let refuse = |e: ServerError| refused(&job.id, e, job.version);
        let admission = {
            let mut st = self.st.borrow_mut();
            let limits = &self.limits;
            if st.running < limits.max_in_flight.max(1) {
                st.running += 1;
                Admission::Run
            } else if st.waiting.len() >= limits.max_queued {
                let limit = limits.max_in_flight + limits.max_queued;
                drop(st);
                return refuse(ServerError::LimitExceeded {
                    what: "Requests in flight and queued",
                    limit,
                    actual: None,
                });
            } else {
                // Charged what it keeps while it waits: its arguments' text and its params'
                // values (its message's text is gone once read).
                let size = job.arguments.as_ref().map_or(0, |a| a.len())
                    + crate::server::limits::params_bytes(&job.params);
                if st.waiting_bytes + size > limits.max_queued_bytes {
                    let (limit, actual) = (limits.max_queued_bytes, st.waiting_bytes + size);
                    drop(st);
                    return refuse(ServerError::LimitExceeded {
                        what: "Bytes of queued requests",
                        limit,
                        actual: Some(actual),
                    });
                }
                let turn = Rc::new(RefCell::new(Turn {
                    bytes: size,
                    ..Turn::default()
                }));
                st.waiting.push_back(turn.clone());
                st.waiting_bytes += size;
                Admission::Wait(turn)
            }
        };
        match admission {
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
                // A `tools/call`'s held argument strings (`server::held::HeldArguments`) wait
                // with it, and are its own again while it starts.
                let held = held::take_received();
                Outcome::Later(Box::pin(async move {
                    let permit = match race(Box::pin(wait), Box::pin(abort.cancelled())).await {
                        Either::Left(p) if !abort.is_cancelled() => p,
                        // Cancelled (or the session closed) while queued: no response.
                        _ => return None,
                    };
                    if let Some(h) = held {
                        held::hold_received(h);
                    }
                    me.start(job, Some(permit), Some(abort)).into_sent().await
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
            arguments,
            version,
            stateless,
        } = job;
        let ctx = self.context(&id, &params, version, stateless);
        let mut call = Call {
            session: self.clone(),
            id: id.clone(),
            method: method.clone(),
            params,
            arguments,
            version,
            stateless,
            ctx,
        };
        match methods::dispatch(&mut call) {
            Reply::Now(r) => {
                self.answered_now(&call, queued, permit);
                Outcome::Now(Some(self.reply(&id, &method, version, r)))
            }
            Reply::Text(result) => {
                self.answered_now(&call, queued, permit);
                Outcome::Shared(id, result)
            }
            Reply::Listen(filter) => match self.open_listen(id.clone(), filter) {
                Ok(()) => Outcome::Now(None),
                Err(e) => refused(&id, e, version),
            },
            Reply::Later(fut) => self.start_later(call, fut, queued, permit),
        }
    }

    /// A request whose handler answers later (a tool call, and the rest but discovery): it is
    /// in flight until then. Apart from [`SessionInner::start`] (`#[inline(never)]`, and
    /// `CORE_APART` in `scripts/lib/core-split.mjs`): an agent's discovery, which a page's start
    /// serves from the core's first module, never comes here.
    #[inline(never)]
    fn start_later(
        self: &Rc<Self>,
        call: Call,
        fut: LocalBoxFuture<'static, Result<Value, ServerError>>,
        queued: Option<CancellationToken>,
        permit: Option<Permit>,
    ) -> Outcome {
        let Call {
            id,
            method,
            version,
            ctx,
            ..
        } = call;
        // `abort` is the client's cancellation (or the session closing): it fires the
        // handler's signal and suppresses the response. The handler's signal may also
        // fire on its own (a tool timeout); the result produced then still goes out.
        let abort = queued.unwrap_or_default();
        let signal = ctx.cancel.clone();
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
                Either::Left(r) => {
                    let held = ctx.holder.as_ref().map(|h| h.take()).unwrap_or_default();
                    Some(match r {
                        Ok(v) if held.is_empty() => Sent::Answer {
                            result: me.decorated(&method, v, version),
                            id,
                        },
                        r => Sent::Message(me.reply(&id, &method, version, r), held),
                    })
                }
            }
        }))
    }

    /// A request answered without waiting: its context ends, it leaves the queue's records
    /// and its slot (if it held one) is free.
    fn answered_now(&self, call: &Call, queued: Option<CancellationToken>, permit: Option<Permit>) {
        call.ctx.finish();
        if let Some(t) = &queued {
            self.forget(&call.id, t);
        }
        drop(permit);
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
                    st.waiting_bytes = st.waiting_bytes.saturating_sub(t.bytes);
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
}

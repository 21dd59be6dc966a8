//! [`Hub`]: the engine sessions of one transport, one per peer, and the checks every
//! message passes on its way in (rate, size) after the transport's own envelope, source
//! and origin checks.

use js_sys::Reflect;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

use super::guard::{
    answer_of, limit_error, limit_failure, message_text, refuse_oversize, request_id_of,
    warn_dropping, Admit, Bucket, Security, Unread,
};
use super::held;
use super::served::Claim;
use super::Running;
use crate::js;
use crate::js::Listener;
use crate::protocol::error_codes::PARSE_ERROR;
use crate::protocol::jsonrpc::{self, ErrorObject, RequestId};
use crate::server::{
    Held, Incoming, Repeats, Replaced, Sent, Server, ServerError, SessionChain, SharedResult,
    SharedText,
};

/// Posts one outgoing JSON-RPC message (a JS object) to a peer.
pub type Reply = Rc<dyn Fn(&JsValue)>;

struct Peer {
    key: String,
    /// The peer's sessions: a fresh one for each `initialize` ([`SessionChain`]).
    chain: Rc<SessionChain>,
    /// Where this peer's session writes; updated with each message (a peer's reply origin
    /// may change when its window navigates).
    reply: Rc<RefCell<Reply>>,
    bucket: Option<Bucket>,
    last_seen: f64,
}

/// How a wire's peers are served beyond the checks every transport makes.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// What becomes of a peer's session a later `initialize` replaced.
    pub replaced: Replaced,
    /// A payload that is no JSON-RPC object (a number, a string the wire does not know) goes
    /// to the session, which answers it with an error, and one JSON cannot represent is
    /// answered with a parse error; otherwise both are dropped unanswered (the wire's
    /// envelope, not the message, was someone else's).
    pub answer_malformed: bool,
    /// The wire copies each message it posts (`postMessage`'s structured clone, a port's
    /// serialization), so one JS object may answer several requests: a shared result (a whole
    /// `tools/list`) is parsed once while it is current. A wire that hands its objects to page
    /// code as they are (the event transport's emitter) must not share them.
    pub copies: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            replaced: Replaced::Close,
            answer_malformed: false,
            copies: true,
        }
    }
}

/// The last shared result parsed, while the engine still answers with it and the page still
/// holds it: the `Rc` the engine shares (its allocation, held weakly, cannot be reused for
/// another text while the entry exists; the text itself, boxed, goes with the last answer)
/// and a weak reference to the JS object.
struct SharedParse {
    text: std::rc::Weak<SharedResult>,
    parsed: js_sys::WeakRef,
}

thread_local! {
    static SHARED: RefCell<Option<SharedParse>> = const { RefCell::new(None) };
}

/// A shared result as a JS object: the one parsed last time when the engine still shares the
/// same text and the object has not been collected, else parsed now (and remembered weakly:
/// the cache never keeps the object from the garbage collector).
fn shared_result(result: &SharedText) -> Result<JsValue, JsValue> {
    let hit = SHARED.with(|c| {
        let c = c.borrow();
        let e = c.as_ref()?;
        let same = std::ptr::eq(e.text.as_ptr(), Rc::as_ptr(result));
        same.then(|| e.parsed.deref()).flatten()
    });
    if let Some(obj) = hit {
        return Ok(obj.into());
    }
    let parsed = js::parse(result.text())?;
    share_repeats(&parsed, result.repeats());
    SHARED.with(|c| {
        *c.borrow_mut() = Some(SharedParse {
            text: Rc::downgrade(result),
            parsed: js_sys::WeakRef::new(parsed.unchecked_ref()),
        })
    });
    Ok(parsed)
}

/// Makes each value that `parsed`'s list repeats one JS object, the earlier item's, which the
/// later items' members then hold too ([`Repeats`]): a structured clone copies a shared object
/// once, so an agent's listing of many tools of one schema carries that schema once.
fn share_repeats(parsed: &JsValue, repeats: &Repeats) {
    if repeats.is_empty() {
        return;
    }
    let Ok(list) = js::field(parsed, repeats.list()) else {
        return;
    };
    let Some(list) = list.dyn_ref::<js_sys::Array>() else {
        return;
    };
    for (member, pairs) in repeats.members() {
        let key = js::name(member);
        for &(item, earlier) in pairs {
            let Ok(value) = Reflect::get(&list.get(earlier), &key) else {
                continue;
            };
            if !value.is_undefined() {
                let _ = Reflect::set(&list.get(item), &key, &value);
            }
        }
    }
}

/// An answer whose result holds strings (`server::held`) as the JS object the wire posts: a
/// page's own string where its marker is. Apart from [`to_js`], which every page's start runs
/// (`#[inline(never)]`, and `CORE_APART` in `scripts/lib/core-split.mjs`).
#[inline(never)]
fn holding(v: &serde_json::Value, held: &Held, copies: bool) -> JsValue {
    let markers: Vec<&str> = held.markers().collect();
    let message = js::from_json_holding(v, &markers, &Held::at, &|m| {
        let t = held.get(m)?;
        Some(match t.as_any().downcast_ref::<js::HeldString>() {
            Some(s) => s.0.clone(),
            None => JsValue::from_str(&t.text()),
        })
    });
    // A held structuredContent goes where the result's is (a version without structured
    // content has none: it goes nowhere).
    if let Some(s) = held.structured() {
        let result = js::get(&message, "result").unwrap_or(JsValue::UNDEFINED);
        let there = js::get(&result, "structuredContent").is_ok_and(|x| x.is_object());
        if there {
            // (The page's own object only where the wire's post copies it.)
            let value = match s.as_any().downcast_ref::<js::HeldJson>() {
                Some(h) => match &h.value {
                    Some(v) if copies || !h.own => v.clone(),
                    _ => parsed(&h.text),
                },
                None => parsed(&JsValue::from_str(&s.text())),
            };
            js::set(&result, "structuredContent", &value);
        }
    }
    message
}

/// `JSON.parse` of a held `structuredContent`'s text, for a holder that kept no value of it.
/// (Apart from the answer's code, which a page's start runs: it goes with the core's deferred
/// module.)
#[inline(never)]
fn parsed(text: &JsValue) -> JsValue {
    js::parse_text(text).unwrap_or(JsValue::NULL)
}

/// A session's message as the JS object the wire posts.
fn to_js(sent: Sent, copies: bool) -> Result<JsValue, JsValue> {
    match sent {
        Sent::Shared { id, result } if copies => {
            let env = js_sys::Object::new();
            js::set(&env, "jsonrpc", &JsValue::from_str("2.0"));
            js::set(&env, "id", &js::from_json(&id.to_value()));
            js::set(&env, "result", &shared_result(&result)?);
            Ok(env.into())
        }
        Sent::Answer { id, result } => Ok(js::answer(&id, result)),
        Sent::Message(v, held) if held.is_empty() => Ok(js::from_json(&v)),
        Sent::Message(v, held) => Ok(holding(&v, &held, copies)),
        other => js::parse(&other.into_text()),
    }
}

/// The sessions of one transport.
pub struct Hub {
    server: Server,
    security: Security,
    rules: Rules,
    /// Names the transport in warnings (`"postMessage"`).
    label: String,
    max_peers: usize,
    peers: RefCell<Vec<Peer>>,
    closed: Cell<bool>,
}

fn method_of(payload: &JsValue) -> Option<String> {
    js::field(payload, "method").ok()?.as_string()
}

/// Whether a `tools/call`'s payload asks for a task (`params.task`), which the core's deferred
/// module serves, not its call module (`held`).
fn task_call(payload: &JsValue) -> bool {
    js::field(payload, "params")
        .is_ok_and(|p| p.is_object() && js::field(&p, "task").is_ok_and(|t| !t.is_undefined()))
}

impl Hub {
    /// A hub with the default rules: `label` names the transport in warnings, and at most
    /// `max_peers` peers keep sessions (the least recently heard from is forgotten first).
    pub fn new(server: Server, security: Security, label: &str, max_peers: usize) -> Rc<Hub> {
        Hub::with_rules(server, security, label, max_peers, Rules::default())
    }

    /// A hub whose peers are served by `rules`.
    pub fn with_rules(
        server: Server,
        security: Security,
        label: &str,
        max_peers: usize,
        rules: Rules,
    ) -> Rc<Hub> {
        Rc::new(Hub {
            server,
            security,
            rules,
            label: label.to_string(),
            max_peers: max_peers.max(1),
            peers: RefCell::new(Vec::new()),
            closed: Cell::new(false),
        })
    }

    /// The transport's security options.
    pub fn security(&self) -> &Security {
        &self.security
    }

    fn open_chain(&self, reply: &Rc<RefCell<Reply>>) -> Rc<SessionChain> {
        let slot = reply.clone();
        let limits = self.security.session_limits(&self.server.config().limits);
        let copies = self.rules.copies;
        Rc::new(SessionChain::with_limits(
            self.server.clone(),
            limits,
            self.rules.replaced,
            move |sent| {
                if let Ok(v) = to_js(sent, copies) {
                    let r = slot.borrow().clone();
                    r(&v);
                }
            },
        ))
    }

    /// The largest message accepted, in bytes.
    fn max_bytes(&self) -> usize {
        let engine = self.server.config().limits.max_message_bytes;
        self.security.max_bytes.map_or(engine, |m| m.min(engine))
    }

    /// Hands one message from peer `key` (its envelope already checked) to that peer's
    /// session, opening one for a new peer. `payload` must be a JSON-RPC message or batch
    /// (an object or array); anything else is dropped. Answers go to `reply`.
    pub fn deliver(&self, key: &str, payload: &JsValue, reply: Reply) {
        // Each of these asks JS once: the payload's type, whether it is an array, its `method`
        // and its `id` member. The id as a JSON-RPC id is made only where a refusal names it.
        let is_object = payload.is_object();
        if self.closed.get() || !(is_object || self.rules.answer_malformed) {
            return;
        }
        let is_batch = js_sys::Array::is_array(payload);
        let method = if is_batch { None } else { method_of(payload) };
        // The `id` member, read once (undefined for a batch or a message that is no object).
        let id_member = if is_batch {
            JsValue::UNDEFINED
        } else {
            js::field(payload, "id").unwrap_or(JsValue::UNDEFINED)
        };
        let now = js::now_ms();

        // Find (or, for a request, a notification or a malformed message the wire answers,
        // open) the peer's sessions; take a token.
        let stray = method.is_none() && !is_batch && is_object;
        let (chain, admit) = {
            let mut peers = self.peers.borrow_mut();
            let index = match peers.iter().position(|p| p.key == key) {
                Some(i) => i,
                // A stray response from a peer we never served: nothing to answer.
                None if stray => return,
                None => {
                    if peers.len() >= self.max_peers {
                        // Forget the peer heard from least recently.
                        if let Some((i, _)) = peers.iter().enumerate().min_by(|a, b| {
                            a.1.last_seen
                                .partial_cmp(&b.1.last_seen)
                                .unwrap_or(std::cmp::Ordering::Equal)
                        }) {
                            peers.remove(i);
                        }
                    }
                    let reply_slot = Rc::new(RefCell::new(reply.clone()));
                    let chain = self.open_chain(&reply_slot);
                    peers.push(Peer {
                        key: key.to_string(),
                        chain,
                        reply: reply_slot,
                        bucket: self.security.rate.as_ref().map(|r| Bucket::new(r, now)),
                        last_seen: now,
                    });
                    peers.len() - 1
                }
            };
            let peer = &mut peers[index];
            peer.last_seen = now;
            *peer.reply.borrow_mut() = reply.clone();
            let admit = match (&mut peer.bucket, &self.security.rate) {
                (Some(b), Some(r)) => b.take(r, now),
                _ => Admit::Yes,
            };
            (peer.chain.clone(), admit)
        };

        if admit != Admit::Yes {
            let id = request_id_of(&id_member);
            return self.refuse_over_rate(key, admit, id.as_ref(), method.is_some(), &reply);
        }

        // Measured before it is copied into wasm memory; an oversized request is answered.
        let max = self.max_bytes();
        // A request is a method with an id of any value (an unreadable id is still a
        // request's, answered by the session, never by a retired one).
        let has_id = !id_member.is_undefined();
        let incoming = match &method {
            _ if is_batch || !is_object => Incoming::Batch,
            Some(m) if has_id && m == "initialize" => Incoming::Initialize,
            Some(_) if has_id => Incoming::Request,
            _ => Incoming::Other,
        };
        // While the core's deferred module is on its way, all but discovery waits for it, and
        // so does a message that would replace the peer's session (an agent's second
        // `initialize`): the old session's retirement is the deferred module's. A request is
        // refused, naming why, when it could not be had.
        let answer_malformed = self.rules.answer_malformed;
        let replacing = incoming == Incoming::Initialize && chain.replaces(incoming);
        // (An agent's `tools/call` that is not a task's may be served by the call module, which
        // comes first.)
        let discovery = method.as_deref().filter(|_| !replacing);
        let call = || {
            incoming == Incoming::Request && discovery == Some("tools/call") && !task_call(payload)
        };
        let Some(early) = held::admit(discovery, call) else {
            hand_over(&chain, payload, max, incoming, answer_malformed, &reply);
            return;
        };
        let payload = payload.clone();
        let refused = reply.clone();
        held::hold_message(
            move || hand_over(&chain, &payload, max, incoming, answer_malformed, &reply),
            move |why| {
                if has_id || is_batch {
                    let id = request_id_of(&id_member);
                    refused(&unserved(id.as_ref(), method.as_deref(), why));
                }
            },
            early,
        );
    }

    /// A message over the peer's rate limit: dropped, a request answered with the limit's
    /// error, the console told once per window. Apart from [`Hub::deliver`], which an agent's
    /// discovery runs (`#[inline(never)]`, and `CORE_APART` in `scripts/lib/core-split.mjs`).
    #[inline(never)]
    fn refuse_over_rate(
        &self,
        key: &str,
        admit: Admit,
        id: Option<&RequestId>,
        has_method: bool,
        reply: &Reply,
    ) {
        if let Some(r) = self.security.rate.filter(|_| admit == Admit::NoWarn) {
            warn_dropping(&self.label, key, &r);
        }
        if let (Some(id), true, Some(r)) = (id, has_method, &self.security.rate) {
            reply(&limit_error(
                id,
                "rate limit: messages per window",
                r.messages as usize,
                None,
            ));
        }
    }

    /// Closed: the transport stopped serving.
    pub fn is_closed(&self) -> bool {
        self.closed.get()
    }

    /// Closes every session; later messages are dropped.
    pub fn close(&self) {
        self.closed.set(true);
        let peers = std::mem::take(&mut *self.peers.borrow_mut());
        for p in peers {
            p.chain.close();
        }
    }

    /// The sessions of peer `key`, if it has been heard from.
    pub fn chain(&self, key: &str) -> Option<Rc<SessionChain>> {
        self.peers
            .borrow()
            .iter()
            .find(|p| p.key == key)
            .map(|p| p.chain.clone())
    }

    /// The sessions of peer `key`, opened (answering through `reply`) if it has not been
    /// heard from yet: for a session restored before its peer speaks.
    pub fn chain_or_open(&self, key: &str, reply: Reply) -> Rc<SessionChain> {
        if let Some(c) = self.chain(key) {
            return c;
        }
        let reply_slot = Rc::new(RefCell::new(reply));
        let chain = self.open_chain(&reply_slot);
        self.peers.borrow_mut().push(Peer {
            key: key.to_string(),
            chain: chain.clone(),
            reply: reply_slot,
            bucket: self
                .security
                .rate
                .as_ref()
                .map(|r| Bucket::new(r, js::now_ms())),
            last_seen: js::now_ms(),
        });
        chain
    }
}

/// Hands one message, admitted, to `chain`: its JSON text, or the error a message without one
/// gets (when `answer_malformed`).
fn hand_over(
    chain: &SessionChain,
    payload: &JsValue,
    max: usize,
    incoming: Incoming,
    answer_malformed: bool,
    reply: &Reply,
) {
    match message_text(payload, max) {
        Ok(text) => {
            chain.receive(&text, incoming);
            crate::server::held::let_go();
        }
        Err(Unread::TooBig(n)) if incoming == Incoming::Other => {
            refuse_answer(chain, payload, max, n)
        }
        Err(unread) => refuse_unread(payload, max, unread, answer_malformed, reply),
    }
}

/// A message over the size limit that may be a client's answer (no method, an id, a `result`
/// or an `error`): not answered, as a session answers no answer it refuses, but the request it
/// answers fails with the limit's error (handed to the session as the client's error answer),
/// so that what waits for it (a tool's elicitation) is not left waiting. (Apart from
/// `hand_over`: `CORE_APART` in `scripts/lib/core-split.mjs`.)
#[inline(never)]
fn refuse_answer(chain: &SessionChain, payload: &JsValue, max: usize, actual: usize) {
    let Some(id) = answer_of(payload) else {
        return;
    };
    let failure = limit_failure(&id, "Message size in bytes", max, Some(actual));
    chain.receive(
        &crate::protocol::json_text::to_string(&failure),
        Incoming::Other,
    );
}

/// The answer to a message [`hand_over`] could not take as text: one over the size limit, or
/// one without a JSON representation (when `answer_malformed`). Apart from `hand_over`, which
/// an agent's discovery runs (`#[inline(never)]`, and `CORE_APART` in
/// `scripts/lib/core-split.mjs`).
#[inline(never)]
fn refuse_unread(
    payload: &JsValue,
    max: usize,
    unread: Unread,
    answer_malformed: bool,
    reply: &Reply,
) {
    match unread {
        Unread::TooBig(n) => refuse_oversize(payload, max, n, |m| reply(m)),
        // Cycles, BigInts, a throwing toJSON: not JSON, so not a message.
        Unread::NotJson if answer_malformed => reply(&parse_error(
            "Parse error: the payload has no JSON representation".into(),
        )),
        Unread::Threw(e) if answer_malformed => reply(&parse_error(format!(
            "Parse error: the payload cannot be serialized as JSON: {}",
            js::error_message(&e)
        ))),
        Unread::NotJson | Unread::Threw(_) => {}
    }
}

/// The answer to a request the core's deferred module was needed for and could not be had.
fn unserved(id: Option<&RequestId>, method: Option<&str>, why: &str) -> JsValue {
    let what = method.unwrap_or("This message");
    js::from_json(&jsonrpc::failure(
        id,
        ServerError::Internal(format!("{what} cannot be served: {why}")).to_error_object(None),
    ))
}

/// A JSON-RPC parse error (`id` unknown, so absent) as a JS object.
fn parse_error(message: String) -> JsValue {
    js::from_json(&jsonrpc::failure(
        None,
        ErrorObject::new(PARSE_ERROR, message),
    ))
}

/// A transport that serves through one listener and a claim on what it listens on:
/// stopping removes the listener, gives up the claim and closes the hub's sessions.
pub struct HubServer {
    hub: Rc<Hub>,
    listener: RefCell<Option<Listener>>,
    claim: RefCell<Option<Claim>>,
}

impl HubServer {
    /// Serves `hub`'s peers heard by `listener`, holding `claim` until stopped.
    pub fn new(hub: Rc<Hub>, listener: Listener, claim: Claim) -> HubServer {
        HubServer {
            hub,
            listener: RefCell::new(Some(listener)),
            claim: RefCell::new(Some(claim)),
        }
    }
}

impl Running for HubServer {
    fn stop(&self) {
        self.listener.borrow_mut().take();
        self.claim.borrow_mut().take();
        self.hub.close();
    }
    fn is_open(&self) -> bool {
        !self.hub.is_closed()
    }
}

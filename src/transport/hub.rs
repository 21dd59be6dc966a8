//! [`Hub`]: the engine sessions of one transport, one per peer, and the checks every
//! message passes on its way in (rate, size) after the transport's own envelope, source
//! and origin checks.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

use super::guard::{
    limit_error, message_text, refuse_oversize, request_id, warn_dropping, Admit, Bucket, Security,
    Text,
};
use super::served::Claim;
use super::Running;
use crate::js;
use crate::js::Listener;
use crate::server::{Server, Session};

/// Posts one outgoing JSON-RPC message (a JS object) to a peer.
pub type Reply = Rc<dyn Fn(&JsValue)>;

struct Peer {
    key: String,
    session: Rc<Session>,
    /// Where this peer's session writes; updated with each message (a peer's reply origin
    /// may change when its window navigates).
    reply: Rc<RefCell<Reply>>,
    bucket: Option<Bucket>,
    last_seen: f64,
}

/// The sessions of one transport.
pub struct Hub {
    server: Server,
    security: Security,
    /// Names the transport in warnings (`"postMessage"`).
    label: String,
    max_peers: usize,
    peers: RefCell<Vec<Peer>>,
    closed: Cell<bool>,
}

fn method_of(payload: &JsValue) -> Option<String> {
    js::get(payload, "method").ok()?.as_string()
}

impl Hub {
    pub fn new(server: Server, security: Security, label: &str, max_peers: usize) -> Rc<Hub> {
        Rc::new(Hub {
            server,
            security,
            label: label.to_string(),
            max_peers: max_peers.max(1),
            peers: RefCell::new(Vec::new()),
            closed: Cell::new(false),
        })
    }

    pub fn security(&self) -> &Security {
        &self.security
    }

    fn open_session(&self, reply: &Rc<RefCell<Reply>>) -> Rc<Session> {
        let slot = reply.clone();
        Rc::new(self.server.connect(move |text| {
            if let Ok(v) = js::parse(&text) {
                let r = slot.borrow().clone();
                r(&v);
            }
        }))
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
        if self.closed.get() || !payload.is_object() {
            return;
        }
        let is_batch = js_sys::Array::is_array(payload);
        let method = if is_batch { None } else { method_of(payload) };
        let id = if is_batch { None } else { request_id(payload) };
        let now = js::now_ms();

        // Find (or, for a request or notification, open) the peer's session; take a token.
        let (session, admit) = {
            let mut peers = self.peers.borrow_mut();
            let index = match peers.iter().position(|p| p.key == key) {
                Some(i) => i,
                // A stray response from a peer we never served: nothing to answer.
                None if method.is_none() && !is_batch => return,
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
                    let session = self.open_session(&reply_slot);
                    peers.push(Peer {
                        key: key.to_string(),
                        session,
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
            // A client that starts over with `initialize` gets a fresh session (as MCP-B's
            // servers do): the old one is closed.
            if admit == Admit::Yes
                && method.as_deref() == Some("initialize")
                && id.is_some()
                && peer.session.protocol_version().is_some()
            {
                let fresh = self.open_session(&peer.reply);
                let old = std::mem::replace(&mut peer.session, fresh);
                old.close();
            }
            (peer.session.clone(), admit)
        };

        if admit != Admit::Yes {
            if let Some(r) = self.security.rate.filter(|_| admit == Admit::NoWarn) {
                warn_dropping(&self.label, key, &r);
            }
            if let (Some(id), Some(_), Some(r)) = (&id, &method, &self.security.rate) {
                reply(&limit_error(
                    id,
                    "rate limit: messages per window",
                    r.messages as usize,
                    None,
                ));
            }
            return;
        }

        // Measured before it is copied into wasm memory; an oversized request is answered.
        let max = self.max_bytes();
        match message_text(payload, max) {
            Text::Fits(text) => session.receive(&text),
            Text::TooBig(n) => refuse_oversize(payload, max, n, |m| reply(m)),
            // Cycles, BigInts, a throwing toJSON: not JSON, so not a message.
            Text::NotJson | Text::Threw(_) => {}
        }
    }

    pub fn is_closed(&self) -> bool {
        self.closed.get()
    }

    /// Closes every session; later messages are dropped.
    pub fn close(&self) {
        self.closed.set(true);
        let peers = std::mem::take(&mut *self.peers.borrow_mut());
        for p in peers {
            p.session.close();
        }
    }
}

/// A transport that serves through one listener and a claim on what it listens on:
/// stopping removes the listener, gives up the claim and closes the hub's sessions.
pub struct HubServer {
    hub: Rc<Hub>,
    listener: RefCell<Option<Listener>>,
    claim: RefCell<Option<Claim>>,
}

impl HubServer {
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

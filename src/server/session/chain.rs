//! [`SessionChain`]: the sessions of one peer on a wire that cannot tell one client from
//! another (MCP-B's tab wire has no client address; a hub's peer is one window or port). A
//! client that connects or reconnects starts over with `initialize`, and the server gives it
//! a fresh session (as MCP-B's servers do); what happens to the session it replaces is the
//! wire's choice, [`Replaced`].

use std::cell::RefCell;
use std::rc::Rc;

use super::{Sent, Session};
use crate::server::{Limits, Server};

/// What becomes of a session a later `initialize` replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replaced {
    /// Closed at once: the peer is one client, now starting over.
    Close,
    /// Retired ([`Session::retire`]): what it runs is still answered, then it closes. For a
    /// wire where the `initialize` may come from a second client (the tab wire).
    Retire,
}

/// What a transport saw of an incoming message, from a cheap look at its envelope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Incoming {
    /// A request for `initialize`.
    Initialize,
    /// Another request (a method and an id).
    Request,
    /// A notification or a response: it may concern a retired session too.
    Other,
    /// A batch, or something that is no JSON-RPC message: the current session answers it.
    Batch,
}

/// The current session of one peer, and the retired ones still finishing their work.
pub struct SessionChain {
    server: Server,
    /// The limits each session keeps (the transport's, or the server's).
    limits: Limits,
    sink: Rc<dyn Fn(Sent)>,
    replaced: Replaced,
    current: RefCell<Option<Rc<Session>>>,
    retired: RefCell<Vec<Rc<Session>>>,
}

impl SessionChain {
    /// A chain with no session yet; every session's output goes to `sink`.
    pub fn new(server: Server, replaced: Replaced, sink: impl Fn(String) + 'static) -> Self {
        let limits = server.config().limits.clone();
        SessionChain::with_limits(server, limits, replaced, move |m: Sent| sink(m.into_text()))
    }

    /// [`SessionChain::new`] whose sessions keep `limits` (a transport's own) and write
    /// [`Sent`] messages.
    pub fn with_limits(
        server: Server,
        limits: Limits,
        replaced: Replaced,
        sink: impl Fn(Sent) + 'static,
    ) -> Self {
        SessionChain {
            server,
            limits,
            sink: Rc::new(sink),
            replaced,
            current: RefCell::new(None),
            retired: RefCell::new(Vec::new()),
        }
    }

    fn open(&self) -> Rc<Session> {
        let sink = self.sink.clone();
        Rc::new(
            self.server
                .connect_with(self.limits.clone(), move |m| sink(m)),
        )
    }

    /// The session the next message goes to: a fresh one when there is none, when the
    /// current one closed, and for an `initialize` once the current one has negotiated a
    /// version (one that has not may still be answering its first `initialize`).
    fn session_for(&self, initialize: bool) -> Rc<Session> {
        if let Some(s) = self.kept(initialize) {
            return s;
        }
        let fresh = self.open();
        let old = self.current.borrow_mut().replace(fresh.clone());
        if let Some(old) = old {
            self.replace(old);
        }
        fresh
    }

    /// The current session if the next message goes to it (see [`SessionChain::session_for`]).
    fn kept(&self, initialize: bool) -> Option<Rc<Session>> {
        let starts_over = |s: &Session| initialize && s.protocol_version().is_some();
        self.current
            .borrow()
            .as_ref()
            .filter(|s| !s.is_closed() && !starts_over(s))
            .cloned()
    }

    /// Whether a message of this kind would replace the current session: an `initialize` once
    /// it has negotiated a version, anything once it has closed. Replacing one runs what
    /// [`Replaced`] says, which a core cut in two keeps in its deferred module.
    pub fn replaces(&self, incoming: Incoming) -> bool {
        self.current.borrow().is_some() && self.kept(incoming == Incoming::Initialize).is_none()
    }

    fn replace(&self, old: Rc<Session>) {
        match self.replaced {
            Replaced::Close => old.close(),
            Replaced::Retire => {
                old.retire();
                if !old.is_closed() {
                    self.retired.borrow_mut().push(old);
                }
            }
        }
    }

    /// Hands one message's JSON `text` to the session it is for ([`Session::receive`]).
    pub fn receive(&self, text: &str, incoming: Incoming) {
        if incoming == Incoming::Other {
            self.retired.borrow_mut().retain(|s| !s.is_closed());
            let retired: Vec<Rc<Session>> = self.retired.borrow().clone();
            for s in retired {
                s.receive(text);
            }
        }
        self.session_for(incoming == Incoming::Initialize)
            .receive(text);
    }

    /// Answers a message refused for its size ([`Session::refuse_oversize`]).
    pub fn refuse_oversize(&self, head: &str, len: usize, limit: usize) {
        self.session_for(false).refuse_oversize(head, len, limit)
    }

    /// The current session, if one is open.
    pub fn current(&self) -> Option<Rc<Session>> {
        self.current
            .borrow()
            .as_ref()
            .filter(|s| !s.is_closed())
            .cloned()
    }

    /// Makes a session restored from `snapshot` ([`Server::connect_restored`]) the current
    /// one; the one it replaces is closed.
    pub fn restore(&self, snapshot: &serde_json::Value) -> Result<(), String> {
        let sink = self.sink.clone();
        let restored =
            self.server
                .connect_restored_with(snapshot, self.limits.clone(), move |m| sink(m))?;
        let old = self.current.borrow_mut().replace(Rc::new(restored));
        if let Some(old) = old {
            old.close();
        }
        Ok(())
    }

    /// Closes every session, the current one and the retired ones.
    pub fn close(&self) {
        let current = self.current.borrow_mut().take();
        if let Some(s) = current {
            s.close();
        }
        for s in std::mem::take(&mut *self.retired.borrow_mut()) {
            s.close();
        }
    }
}

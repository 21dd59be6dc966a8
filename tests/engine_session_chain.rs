//! SessionChain: a peer's sessions on a wire without client addresses. A fresh session for
//! each `initialize` once the current one negotiated; the replaced one closed or retired.
mod support;

use modelcontext_polyfill::server::{HandlerError, Incoming, Replaced, SessionChain, ToolDef};
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::task::{Poll, Waker};
use support::*;

#[derive(Clone, Default)]
struct Gate(Rc<Cell<bool>>, Rc<RefCell<Vec<Waker>>>);

impl Gate {
    fn open(&self) {
        self.0.set(true);
        for w in self.1.borrow_mut().drain(..) {
            w.wake();
        }
    }
}

struct Rig {
    h: Harness,
    chain: SessionChain,
    out: Rc<RefCell<Vec<Value>>>,
    /// Every message ever sent (`take` drains `out` only).
    seen: Rc<RefCell<Vec<Value>>>,
    gate: Gate,
}

fn rig(replaced: Replaced) -> Rig {
    let h = Harness::new();
    let gate = Gate::default();
    let g = gate.clone();
    h.server
        .register_tool(ToolDef::new(
            "wait",
            "Waits for the test",
            move |a: Value, _c| {
                let g = g.clone();
                std::future::poll_fn(move |cx| {
                    if g.0.get() {
                        Poll::Ready(Ok::<_, HandlerError>(a.clone()))
                    } else {
                        g.1.borrow_mut().push(cx.waker().clone());
                        Poll::Pending
                    }
                })
            },
        ))
        .unwrap();
    let out = Rc::new(RefCell::new(Vec::new()));
    let seen = Rc::new(RefCell::new(Vec::new()));
    let (o, s) = (out.clone(), seen.clone());
    let chain = SessionChain::new(h.server.clone(), replaced, move |text| {
        let v: Value = serde_json::from_str(&text).unwrap();
        s.borrow_mut().push(v.clone());
        o.borrow_mut().push(v);
    });
    Rig {
        h,
        chain,
        out,
        seen,
        gate,
    }
}

impl Rig {
    fn send(&self, v: Value) {
        let incoming = match (v.get("method").and_then(Value::as_str), v.get("id")) {
            (Some("initialize"), Some(_)) => Incoming::Initialize,
            (Some(_), Some(_)) => Incoming::Request,
            _ => Incoming::Other,
        };
        self.chain.receive(&v.to_string(), incoming);
        self.h.run();
    }
    fn initialize(&self, id: i64) {
        self.send(json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{
            "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}));
        self.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    }
    fn call_wait(&self, id: &str) {
        self.send(json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"wait","arguments":{"n":id}}}));
    }
    fn take(&self) -> Vec<Value> {
        self.h.run();
        std::mem::take(&mut *self.out.borrow_mut())
    }
    fn answered(&self, id: &str) -> bool {
        self.seen
            .borrow()
            .iter()
            .any(|m| m["id"] == json!(id) && m.get("result").is_some())
    }
}

#[test]
fn the_first_message_opens_a_session_and_later_ones_share_it() {
    let r = rig(Replaced::Close);
    assert!(r.chain.current().is_none());
    r.initialize(1);
    let first = r.chain.current().unwrap();
    r.send(json!({"jsonrpc":"2.0","id":2,"method":"ping"}));
    assert_eq!(r.chain.current().unwrap().id(), first.id());
    assert!(r.take().iter().any(|m| m["id"] == 2));
}

#[test]
fn a_second_initialize_closes_the_replaced_session_when_the_wire_says_close() {
    let r = rig(Replaced::Close);
    r.initialize(1);
    let first = r.chain.current().unwrap();
    r.call_wait("a");
    r.take();
    r.initialize(2);
    assert!(first.is_closed());
    assert_ne!(r.chain.current().unwrap().id(), first.id());
    r.gate.open();
    r.take();
    assert!(!r.answered("a"), "a closed session answers nothing");
}

#[test]
fn a_second_initialize_retires_the_replaced_session_which_still_answers_its_calls() {
    let r = rig(Replaced::Retire);
    r.initialize(1);
    let first = r.chain.current().unwrap();
    r.call_wait("a");
    r.take();
    r.initialize(2);
    assert!(first.is_retiring() && !first.is_closed());
    let second = r.chain.current().unwrap();
    assert_ne!(second.id(), first.id());
    // A cancellation (a notification) reaches the retired session too: the new one never
    // saw request "b", and the old one stops it.
    r.call_wait("b");
    r.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b"}}));
    r.gate.open();
    r.take();
    assert!(
        r.answered("a"),
        "the retired session answers the call it was running"
    );
    assert!(!r.answered("b"), "the cancelled call is not answered");
    assert!(first.is_closed(), "retired and idle, it closed itself");
    // The next request is served by the new session.
    r.send(json!({"jsonrpc":"2.0","id":9,"method":"ping"}));
    assert!(r
        .take()
        .iter()
        .any(|m| m["id"] == 9 && m.get("result").is_some()));
}

#[test]
fn an_initialize_before_one_was_answered_keeps_the_session_and_a_closed_one_is_replaced() {
    let r = rig(Replaced::Close);
    r.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}));
    let errors = r.take();
    assert!(
        errors
            .iter()
            .any(|m| m["id"] == 1 && m.get("error").is_some()),
        "{errors:?}"
    );
    let first = r.chain.current().unwrap();
    r.initialize(2);
    assert_eq!(
        r.chain.current().unwrap().id(),
        first.id(),
        "nothing was negotiated: same session"
    );
    first.close();
    r.send(json!({"jsonrpc":"2.0","id":3,"method":"ping"}));
    assert_ne!(r.chain.current().unwrap().id(), first.id());
    assert!(r
        .take()
        .iter()
        .any(|m| m["id"] == 3 && m.get("result").is_some()));
}

#[test]
fn closing_the_chain_closes_current_and_retired_sessions() {
    let r = rig(Replaced::Retire);
    r.initialize(1);
    let first = r.chain.current().unwrap();
    r.call_wait("a");
    r.initialize(2);
    let second = r.chain.current().unwrap();
    r.chain.close();
    assert!(first.is_closed() && second.is_closed());
    assert!(r.chain.current().is_none());
}

#[test]
fn replaces_says_which_message_would_replace_the_current_session() {
    let r = rig(Replaced::Retire);
    assert!(
        !r.chain.replaces(Incoming::Initialize),
        "no session yet: the first one opens, nothing is replaced"
    );
    r.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}));
    assert!(
        !r.chain.replaces(Incoming::Initialize),
        "nothing negotiated yet: an initialize goes to the same session"
    );
    r.initialize(2);
    let first = r.chain.current().unwrap();
    assert!(r.chain.replaces(Incoming::Initialize));
    for kind in [Incoming::Request, Incoming::Other, Incoming::Batch] {
        assert!(!r.chain.replaces(kind), "{kind:?}");
    }
    r.initialize(3);
    assert_ne!(r.chain.current().unwrap().id(), first.id(), "replaced");
    let second = r.chain.current().unwrap();
    second.close();
    assert!(
        r.chain.replaces(Incoming::Request),
        "a closed session is replaced by the next message"
    );
}

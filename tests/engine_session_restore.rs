//! Session snapshots and restoring them (`Session::snapshot`, `Server::connect_restored`):
//! what the tab transport's `persist` option keeps in `sessionStorage` across a reload.
mod support;

use modelcontext_polyfill::collections::VecMap;
use modelcontext_polyfill::server::{HandlerError, ResourceDef, Session, ToolDef};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use support::*;

/// A restored session and what it sent.
struct Restored {
    session: Session,
    out: Rc<RefCell<Vec<Value>>>,
}

impl Restored {
    fn take(&self, h: &Harness) -> Vec<Value> {
        h.run();
        std::mem::take(&mut *self.out.borrow_mut())
    }

    fn request(&self, h: &Harness, id: i64, method: &str, params: Value) -> Value {
        self.session
            .receive(&json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string());
        self.take(h)
            .into_iter()
            .find(|m| m["id"] == json!(id) && m.get("method").is_none())
            .unwrap_or_else(|| panic!("no response to {method}"))
    }
}

fn restore(h: &Harness, snapshot: &Value) -> Result<Restored, String> {
    let out = Rc::new(RefCell::new(Vec::new()));
    let sink = out.clone();
    // Through text, as sessionStorage keeps it.
    let snapshot: Value = serde_json::from_str(&snapshot.to_string()).unwrap();
    let session = h.server.connect_restored(&snapshot, move |text| {
        sink.borrow_mut().push(serde_json::from_str(&text).unwrap())
    })?;
    Ok(Restored { session, out })
}

fn with_tools(h: &Harness) {
    h.server
        .register_tool(ToolDef::new(
            "echo",
            "Echoes",
            |args: Value, _ctx| async move { Ok::<_, HandlerError>(args) },
        ))
        .unwrap();
    h.server
        .register_resource(ResourceDef::new(
            "app://watched",
            "watched",
            |_u: String, _v: VecMap<String, String>, _c| async {
                Ok::<_, HandlerError>(json!("x"))
            },
        ))
        .unwrap();
    h.run();
}

#[test]
fn a_snapshot_records_the_handshake_state() {
    let h = Harness::new();
    with_tools(&h);
    h.initialize_with("2025-06-18", json!({"roots": {}}));
    h.request("logging/setLevel", json!({"level": "warning"}));
    h.request("resources/subscribe", json!({"uri": "app://watched"}));
    let snap = h.session.snapshot();
    assert_eq!(
        snap,
        json!({
            "format": 1,
            "protocolVersion": "2025-06-18",
            "initialized": true,
            "clientInfo": {"name": "t", "version": "0"},
            "clientCapabilities": {"roots": {}},
            "logLevel": "warning",
            "subscriptions": ["app://watched"],
            "inFlight": [],
        })
    );
}

#[test]
fn a_restored_session_serves_without_a_new_initialize() {
    for v in HANDSHAKE_VERSIONS {
        let h = Harness::new();
        with_tools(&h);
        h.initialize(v);
        h.request("logging/setLevel", json!({"level": "warning"}));
        h.request("resources/subscribe", json!({"uri": "app://watched"}));
        let snap = h.session.snapshot();
        h.session.close();

        let r = restore(&h, &snap).unwrap();
        assert_eq!(r.session.protocol_version().unwrap().as_str(), v);
        assert!(r.session.is_ready());
        assert_eq!(
            r.session.client_info(),
            Some(json!({"name":"t","version":"0"}))
        );
        let call = r.request(
            &h,
            7,
            "tools/call",
            json!({"name": "echo", "arguments": {"a": 1}}),
        );
        assert!(call.get("result").is_some(), "{v}: {call}");
        assert_ne!(call["result"]["isError"], json!(true), "{v}: {call}");
        // Still initialized: a second initialize is refused as on the original session.
        let again = r.request(
            &h,
            8,
            "initialize",
            json!({"protocolVersion": v, "capabilities": {}, "clientInfo": {"name":"t","version":"0"}}),
        );
        assert_eq!(code(&again), -32600, "{v}: {again}");
        // The subscription and the log level came along.
        h.server.resource_updated("app://watched");
        let got = r.take(&h);
        assert_eq!(
            got,
            vec![
                json!({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"app://watched"}})
            ],
            "{v}"
        );
        h.server.log(
            modelcontext_polyfill::server::LogLevel::Info,
            None,
            json!("quiet"),
        );
        h.server.log(
            modelcontext_polyfill::server::LogLevel::Error,
            None,
            json!("loud"),
        );
        let got = r.take(&h);
        assert_eq!(got.len(), 1, "{v}: {got:?}");
        assert_eq!(got[0]["params"]["data"], json!("loud"));
    }
}

#[test]
fn a_restored_session_hears_only_of_later_registry_changes() {
    let h = Harness::new();
    with_tools(&h);
    h.initialize("2025-06-18");
    let snap = h.session.snapshot();
    h.session.close();
    let r = restore(&h, &snap).unwrap();
    assert_eq!(r.take(&h), Vec::<Value>::new());
    h.server
        .register_tool(ToolDef::new("late", "Late", |a: Value, _c| async move {
            Ok::<_, HandlerError>(a)
        }))
        .unwrap();
    let got = r.take(&h);
    assert_eq!(
        got,
        vec![json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})]
    );
}

#[test]
fn requests_running_at_snapshot_time_are_answered_with_an_error() {
    let h = Harness::new();
    h.server
        .register_tool(ToolDef::new("never", "Never finishes", |_a: Value, _c| {
            std::future::pending::<Result<Value, HandlerError>>()
        }))
        .unwrap();
    h.initialize("2025-11-25");
    h.send(json!({"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"never","arguments":{}}}));
    h.run();
    assert_eq!(h.session.in_flight(), 1);
    let snap = h.session.snapshot();
    assert_eq!(snap["inFlight"], json!(["slow-1"]));
    h.session.close();
    let r = restore(&h, &snap).unwrap();
    let got = r.take(&h);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["id"], json!("slow-1"));
    assert_eq!(got[0]["error"]["code"], json!(-32603));
    assert!(got[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("interrupted"));
}

#[test]
fn an_uninitialized_snapshot_restores_a_fresh_session() {
    let h = Harness::new();
    with_tools(&h);
    let snap = h.session.snapshot();
    assert_eq!(snap["protocolVersion"], Value::Null);
    let r = restore(&h, &snap).unwrap();
    assert!(r.session.protocol_version().is_none());
    let call = r.request(&h, 1, "tools/list", json!({}));
    assert_eq!(code(&call), -32600, "{call}");
    let init = r.request(
        &h,
        2,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name":"t","version":"0"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], json!("2025-06-18"));
}

#[test]
fn bad_snapshots_are_refused_with_a_reason_and_open_nothing() {
    let h = Harness::new();
    let before = h.server.session_count();
    let good = json!({"format": 1, "protocolVersion": "2025-06-18", "initialized": true});
    let cases: Vec<(Value, &str)> = vec![
        (json!("nope"), "must be an object"),
        (json!({"format": 2}), "format"),
        (
            json!({"format": 1, "protocolVersion": "2026-07-28"}),
            "handshake-era",
        ),
        (
            json!({"format": 1, "protocolVersion": "1999-01-01"}),
            "1999-01-01",
        ),
        (
            json!({"format": 1, "protocolVersion": 5}),
            "protocolVersion",
        ),
        (json!({"format": 1, "initialized": "yes"}), "initialized"),
        (
            json!({"format": 1, "clientCapabilities": []}),
            "clientCapabilities",
        ),
        (json!({"format": 1, "logLevel": "loud"}), "logLevel"),
        (json!({"format": 1, "subscriptions": [1]}), "subscriptions"),
        (json!({"format": 1, "inFlight": [1.5]}), "inFlight"),
    ];
    for (snap, needle) in cases {
        let err = restore(&h, &snap)
            .err()
            .unwrap_or_else(|| panic!("{snap} was accepted"));
        assert!(err.contains(needle), "{snap}: {err}");
        assert_eq!(h.server.session_count(), before, "{snap}");
    }
    assert!(restore(&h, &good).is_ok());
}

#[test]
fn snapshots_survive_a_round_trip_unchanged() {
    let h = Harness::new();
    with_tools(&h);
    h.initialize_with("2025-03-26", json!({"sampling": {}}));
    h.request("resources/subscribe", json!({"uri": "app://watched"}));
    let snap = h.session.snapshot();
    let r = restore(&h, &snap).unwrap();
    assert_eq!(r.session.snapshot(), snap);
}

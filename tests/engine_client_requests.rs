//! Requests from the server to the client (`ctx.request`): sampling, roots, elicitation —
//! fresh ids, schema-valid requests, answers and errors resolving the handler, and the
//! cases where nothing may be sent.
mod support;

use modelcontext_polyfill::server::{CancellationToken, HandlerError, RequestContext, ToolDef};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use support::*;

/// A tool that sends `arguments.method` with `arguments.params` to the client and returns
/// the answer (or fails with the error's code and message).
fn asker() -> ToolDef {
    ToolDef::new(
        "ask",
        "Asks the client",
        |args: Value, ctx: RequestContext| async move {
            let method = args["method"].as_str().unwrap_or_default().to_string();
            let params = args.get("params").cloned();
            match ctx.request(&method, params).await {
                Ok(v) => Ok(json!({ "answer": v })),
                Err(e) => Err(HandlerError::new(format!("{}: {}", e.code, e.message))),
            }
        },
    )
}

fn sampling_params() -> Value {
    json!({"messages":[{"role":"user","content":{"type":"text","text":"2+2?"}}],"maxTokens":10})
}

fn elicit_params() -> Value {
    json!({"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}})
}

const ALL_CAPS: &str = r#"{"sampling":{},"roots":{"listChanged":true},"elicitation":{}}"#;

fn client(version: &str) -> Harness {
    let h = Harness::new();
    h.server.register_tool(asker()).unwrap();
    h.initialize_with(version, serde_json::from_str(ALL_CAPS).unwrap());
    h.take();
    h
}

/// Starts the `ask` tool as request `id`; returns the request the server sent.
fn start(h: &Harness, id: i64, method: &str, params: Value) -> Value {
    let out = h.send_request(
        json!(id),
        "tools/call",
        json!({"name":"ask","arguments":{"method": method, "params": params}}),
    );
    assert_eq!(out.len(), 1, "{out:?}");
    out.into_iter().next().unwrap()
}

#[test]
fn sampling_and_roots_round_trip_in_every_version() {
    for v in HANDSHAKE_VERSIONS {
        let h = client(v);
        let req = start(&h, 10, "sampling/createMessage", sampling_params());
        assert_eq!(req["method"], json!("sampling/createMessage"));
        assert_eq!(req["params"], sampling_params());
        let sid = req["id"].clone();
        assert!(sid.is_i64() || sid.is_string(), "{req}");
        let answer = json!({"role":"assistant","content":{"type":"text","text":"4"},"model":"m"});
        h.send(json!({"jsonrpc":"2.0","id": sid,"result": answer}));
        let out = h.take();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0]["id"], json!(10));
        assert_eq!(
            out[0]["result"]["content"][0]["text"],
            json!(json!({"answer": answer}).to_string()),
            "{v}"
        );
        let req = start(&h, 11, "roots/list", Value::Null);
        assert_eq!(req["method"], json!("roots/list"));
        assert_ne!(req["id"], sid, "every request gets a fresh id");
        h.send(
            json!({"jsonrpc":"2.0","id": req["id"],"result": {"roots":[{"uri":"file:///tmp"}]}}),
        );
        let out = h.take();
        assert!(first_text(&out[0]).contains("file:///tmp"), "{v}");
    }
}

#[test]
fn error_responses_reject_the_handlers_request() {
    let h = client("2025-06-18");
    let req = start(&h, 1, "sampling/createMessage", sampling_params());
    h.send(json!({"jsonrpc":"2.0","id": req["id"],"error":{"code":-1,"message":"User rejected sampling"}}));
    let out = h.take();
    assert_eq!(out[0]["result"]["isError"], json!(true));
    assert_eq!(first_text(&out[0]), "-1: User rejected sampling");
}

/// An answer the server refuses unread (past the values a message may hold, nested too deep,
/// too large) fails the request it answers with the refusal: the tool waiting for it is not
/// left waiting. The next request is served.
#[test]
fn an_answer_refused_unread_fails_the_request_it_answers() {
    let h = client("2025-11-25");
    let junk = format!("[{}]", vec!["[]"; 100_001].join(","));
    let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
    for (n, roots, said) in [
        (1, &junk, "-32600: The number of JSON values in a message"),
        (
            2,
            &deep,
            "-32600: Message nesting depth exceeds the limit of 64",
        ),
    ] {
        let req = start(&h, n, "roots/list", Value::Null);
        let out = h.exchange_text(&format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"roots":{roots}}}}}"#,
            req["id"]
        ));
        let answer = out
            .iter()
            .find(|m| m["id"] == json!(n))
            .unwrap_or_else(|| panic!("the tool's answer: {out:?}"));
        assert_eq!(answer["result"]["isError"], json!(true), "{answer}");
        assert!(first_text(answer).starts_with(said), "{answer}");
        assert_eq!(h.request("ping", json!({}))["result"], json!({}));
    }
}

#[test]
fn concurrent_requests_are_matched_by_id() {
    let h = client("2025-11-25");
    let r1 = start(&h, 1, "sampling/createMessage", sampling_params());
    let r2 = start(&h, 2, "roots/list", Value::Null);
    assert_ne!(r1["id"], r2["id"]);
    // Answered in the other order; an answer to an unknown id is ignored.
    h.send(json!({"jsonrpc":"2.0","id": 999,"result": {}}));
    h.send(json!({"jsonrpc":"2.0","id": r2["id"],"result": {"roots":[]}}));
    let out = h.take();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["id"], json!(2));
    h.send(json!({"jsonrpc":"2.0","id": r1["id"],"result": {"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}}));
    let out = h.take();
    assert_eq!(out[0]["id"], json!(1));
    assert!(first_text(&out[0]).contains("assistant"));
}

#[test]
fn answers_may_arrive_in_a_batch_in_2025_03_26() {
    let h = client("2025-03-26");
    let req = start(&h, 1, "roots/list", Value::Null);
    let out = h.exchange(json!([{"jsonrpc":"2.0","id": req["id"],"result": {"roots":[]}}]));
    assert_eq!(out.len(), 1, "only the tool's response: {out:?}");
    assert_eq!(out[0]["id"], json!(1));
}

#[test]
fn elicitation_exists_from_2025_06_18() {
    for v in HANDSHAKE_VERSIONS {
        let h = client(v);
        let out = h.send_request(json!(1), "tools/call", json!({"name":"ask","arguments":{"method":"elicitation/create","params": elicit_params()}}));
        if v >= "2025-06-18" {
            assert_eq!(out[0]["method"], json!("elicitation/create"), "{v}");
            h.send(json!({"jsonrpc":"2.0","id": out[0]["id"],"result": {"action":"accept","content":{"name":"Ada"}}}));
            assert!(first_text(&h.take()[0]).contains("Ada"));
        } else {
            assert_eq!(out.len(), 1, "{v}: nothing sent to the client: {out:?}");
            assert_eq!(out[0]["id"], json!(1));
            assert_eq!(out[0]["result"]["isError"], json!(true));
            assert!(
                first_text(&out[0]).contains(&format!(
                    "-32600: Cannot send elicitation/create: protocol {v}"
                )),
                "{}",
                out[0]
            );
        }
    }
}

#[test]
fn nothing_is_sent_for_undeclared_capabilities_or_unknown_methods() {
    let h = Harness::new();
    h.server.register_tool(asker()).unwrap();
    h.initialize_with("2025-11-25", json!({"roots":{}}));
    h.take();
    for (method, params, word) in [
        ("sampling/createMessage", sampling_params(), "sampling"),
        ("elicitation/create", elicit_params(), "elicitation"),
        ("tools/list", json!({}), "no such server-to-client request"),
        (
            "notifications/message",
            json!({}),
            "no such server-to-client request",
        ),
        ("roots/list", json!([1]), "params must be an object"),
    ] {
        let out = h.send_request(
            json!(1),
            "tools/call",
            json!({"name":"ask","arguments":{"method": method, "params": params}}),
        );
        assert_eq!(out.len(), 1, "{method}: {out:?}");
        assert_eq!(out[0]["result"]["isError"], json!(true));
        assert!(first_text(&out[0]).contains(word), "{}", out[0]);
    }
    let out = h.send_request(json!(1), "tools/call", json!({"name":"ask","arguments":{"method":"sampling/createMessage","params": sampling_params()}}));
    assert!(
        first_text(&out[0]).starts_with("-32021: Missing required client capability"),
        "{}",
        out[0]
    );
    // ping needs no capability.
    let out = h.send_request(
        json!(2),
        "tools/call",
        json!({"name":"ask","arguments":{"method":"ping"}}),
    );
    assert_eq!(out[0]["method"], json!("ping"));
}

#[test]
fn closing_the_session_fails_pending_and_later_requests() {
    let h = Harness::new();
    let results: Rc<RefCell<Vec<String>>> = Rc::default();
    let kept: Rc<RefCell<Option<RequestContext>>> = Rc::default();
    let (r, k) = (results.clone(), kept.clone());
    h.server
        .register_tool(ToolDef::new(
            "ask",
            "Asks",
            move |_a: Value, ctx: RequestContext| {
                let (r, k) = (r.clone(), k.clone());
                *k.borrow_mut() = Some(ctx.clone());
                async move {
                    let got = ctx.request("roots/list", None).await;
                    r.borrow_mut().push(format!("{got:?}"));
                    Ok::<_, HandlerError>(json!("done"))
                }
            },
        ))
        .unwrap();
    h.initialize_with("2025-06-18", json!({"roots":{}}));
    h.take();
    let out = h.send_request(json!(1), "tools/call", json!({"name":"ask"}));
    assert_eq!(out[0]["method"], json!("roots/list"));
    h.session.close();
    assert_eq!(
        h.take(),
        Vec::<Value>::new(),
        "a closed session sends nothing"
    );
    assert_eq!(results.borrow().len(), 1);
    assert!(
        results.borrow()[0].contains("The session was closed"),
        "{:?}",
        results.borrow()
    );
    let ctx = kept.borrow().clone().unwrap();
    assert!(ctx.is_cancelled());
    let later = h.ex.block_on(ctx.request("roots/list", None));
    assert!(later.unwrap_err().message.contains("the session is closed"));
    assert_eq!(h.take(), Vec::<Value>::new());
}

#[test]
fn the_stateless_era_and_detached_contexts_have_no_client_to_ask() {
    let h = Harness::new();
    h.server.register_tool(asker()).unwrap();
    let r = h.stateless("tools/call", json!({"name":"ask","arguments":{"method":"sampling/createMessage","params": sampling_params()}}));
    assert_eq!(r["result"]["isError"], json!(true));
    assert!(
        first_text(&r).contains("protocol 2026-07-28 has no server-to-client requests"),
        "{r}"
    );
    let ctx = RequestContext::detached(CancellationToken::new());
    let e = h.ex.block_on(ctx.request("roots/list", None)).unwrap_err();
    assert!(
        e.message.contains("did not come from an MCP session"),
        "{e:?}"
    );
}

#[test]
fn an_abandoned_request_to_the_client_is_cancelled_there() {
    let h = client("2025-06-18");
    let req = start(&h, 1, "roots/list", Value::Null);
    h.notify(
        "notifications/cancelled",
        json!({"requestId": 1, "reason": "stop"}),
    );
    let out = h.take();
    assert_eq!(
        out,
        vec![
            json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{
            "requestId": req["id"], "reason": "The server no longer needs the answer to roots/list"}})
        ]
    );
    // A late answer is ignored.
    h.send(json!({"jsonrpc":"2.0","id": req["id"],"result": {"roots":[]}}));
    assert_eq!(h.take(), Vec::<Value>::new());
    assert_eq!(h.session.in_flight(), 0);
}

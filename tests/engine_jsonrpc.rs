//! JSON-RPC 2.0, strictly: parse errors, invalid requests, unknown methods, bad params and
//! batches, case by case, with exact codes — on every protocol version.
mod support;

use modelcontext_polyfill::server::{HandlerError, Limits, ServerConfig, ToolDef};
use serde_json::{json, Value};
use support::*;

/// A session initialized with `version`, or left uninitialized for `None`.
fn session(version: Option<&str>) -> Harness {
    let h = Harness::new();
    h.server
        .register_tool(ToolDef::new(
            "echo",
            "Echoes",
            |args: Value, _ctx| async move { Ok::<_, HandlerError>(args) },
        ))
        .unwrap();
    h.run();
    if let Some(v) = version {
        h.initialize(v);
        h.take();
    }
    h
}

/// Every handshake version, and an uninitialized session.
fn every_state() -> Vec<Option<&'static str>> {
    let mut all = vec![None];
    all.extend(HANDSHAKE_VERSIONS.iter().map(|v| Some(*v)));
    all
}

/// Sends `text`, expects exactly one single (non-batch) message back.
fn one_reply(h: &Harness, text: &str) -> Value {
    let out = h.exchange_text(text);
    assert_eq!(out.len(), 1, "one reply to {text}: {out:?}");
    assert!(out[0].is_object(), "not a batch reply: {}", out[0]);
    out.into_iter().next().unwrap()
}

#[test]
fn unparsable_json_is_a_parse_error_addressed_to_a_readable_id() {
    let cases = [
        "{",
        "not json",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping""#,
        "",
        "   ",
        "[1,2",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}x"#,
        r#"{"jsonrpc":"2.0","id":1,"method":'ping'}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping",}"#,
        "\u{feff}{}",
        "NaN",
    ];
    for state in every_state() {
        let h = session(state);
        for text in cases {
            let r = one_reply(&h, text);
            assert_eq!(code(&r), -32700, "{state:?} {text:?}: {r}");
            // The id is read from the text when it is there (the client is not left waiting).
            let readable = text.contains(r#""id":1"#);
            assert_eq!(r.get("id"), readable.then_some(&json!(1)), "{text:?}: {r}");
            assert!(message(&r).starts_with("Parse error"), "{r}");
        }
        // The session keeps serving.
        assert_eq!(h.request("ping", json!({}))["result"], json!({}));
    }
}

#[test]
fn wrong_shapes_are_invalid_requests_addressed_when_the_id_is_readable() {
    // (message, id the error must carry, word the message must name)
    let cases: Vec<(Value, Option<Value>, &str)> = vec![
        (
            json!({"id": 1, "method": "ping"}),
            Some(json!(1)),
            "jsonrpc",
        ),
        (
            json!({"jsonrpc": "1.0", "id": 2, "method": "ping"}),
            Some(json!(2)),
            "\"1.0\"",
        ),
        (
            json!({"jsonrpc": 2.0, "id": 3, "method": "ping"}),
            Some(json!(3)),
            "jsonrpc",
        ),
        (
            json!({"jsonrpc": null, "id": "s", "method": "ping"}),
            Some(json!("s")),
            "jsonrpc",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 4, "method": 7}),
            Some(json!(4)),
            "method",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 5, "method": null}),
            Some(json!(5)),
            "method",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 6, "method": ["ping"]}),
            Some(json!(6)),
            "method",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}),
            None,
            "\"id\"",
        ),
        (
            json!({"jsonrpc": "2.0", "id": null, "method": "ping"}),
            None,
            "\"id\"",
        ),
        (
            json!({"jsonrpc": "2.0", "id": true, "method": "ping"}),
            None,
            "\"id\"",
        ),
        (
            json!({"jsonrpc": "2.0", "id": {}, "method": "ping"}),
            None,
            "\"id\"",
        ),
        (
            json!({"jsonrpc": "2.0", "id": [1], "method": "ping"}),
            None,
            "\"id\"",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 7, "method": "ping", "params": 3}),
            Some(json!(7)),
            "params",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 8, "method": "ping", "params": "x"}),
            Some(json!(8)),
            "params",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 9, "method": "ping", "params": true}),
            Some(json!(9)),
            "params",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 10, "method": "ping", "params": null}),
            Some(json!(10)),
            "params",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 11}),
            Some(json!(11)),
            "method",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 12, "method": "ping", "result": {}}),
            Some(json!(12)),
            "method",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 13, "result": {}, "error": {"code": 1, "message": "m"}}),
            Some(json!(13)),
            "both",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 14, "error": "bad"}),
            Some(json!(14)),
            "error",
        ),
        (json!({"jsonrpc": "2.0", "result": {}}), None, "id"),
        (json!({"jsonrpc": "2.0", "method": 5}), None, "method"),
        (json!(1), None, "object"),
        (json!("ping"), None, "object"),
        (json!(null), None, "object"),
        (json!(true), None, "object"),
    ];
    for state in every_state() {
        let h = session(state);
        for (msg, id, word) in &cases {
            let r = one_reply(&h, &msg.to_string());
            assert_eq!(code(&r), -32600, "{state:?} {msg}: {r}");
            assert_eq!(r.get("id"), id.as_ref(), "{state:?} {msg}: {r}");
            assert!(
                message(&r).contains(word),
                "{msg}: message should name {word}: {r}"
            );
        }
        // A huge integer id is not an i64: refused, not truncated.
        let r = one_reply(
            &h,
            r#"{"jsonrpc":"2.0","id":100000000000000000000,"method":"ping"}"#,
        );
        assert_eq!(code(&r), -32600);
        assert!(r.get("id").is_none());
        assert_eq!(h.request("ping", json!({}))["result"], json!({}));
    }
}

#[test]
fn string_and_negative_and_empty_ids_are_echoed_exactly() {
    for state in every_state() {
        let h = session(state);
        for id in [
            json!(""),
            json!("abc"),
            json!(-5),
            json!(0),
            json!(i64::MAX),
            json!("1"),
        ] {
            let out = h.send_request(id.clone(), "ping", json!({}));
            assert_eq!(out.len(), 1);
            assert_eq!(out[0]["id"], id);
            assert_eq!(out[0]["result"], json!({}));
        }
    }
}

#[test]
fn responses_to_nothing_and_unknown_notifications_get_no_reply() {
    for state in every_state() {
        let h = session(state);
        for msg in [
            json!({"jsonrpc":"2.0","id":99,"result":{}}),
            json!({"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"no"}}),
            json!({"jsonrpc":"2.0","error":{"code":-32700,"message":"their parse error"}}),
            json!({"jsonrpc":"2.0","method":"notifications/whatever","params":{}}),
            json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345}}),
            json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}),
            json!({"jsonrpc":"2.0","method":"tools/list"}),
        ] {
            assert_eq!(
                h.exchange(msg.clone()),
                Vec::<Value>::new(),
                "{state:?} {msg}"
            );
        }
    }
}

#[test]
fn unknown_methods_are_method_not_found() {
    for v in HANDSHAKE_VERSIONS {
        let h = session(Some(v));
        for method in [
            "foo/bar",
            "tools/nope",
            "",
            "notifications/initialized",
            "Tools/List",
            "server/discovery",
        ] {
            let out = h.send_request(json!(42), method, json!({}));
            assert_eq!(out.len(), 1);
            assert_eq!(code(&out[0]), -32601, "{v} {method:?}: {}", out[0]);
            assert_eq!(out[0]["id"], json!(42));
            assert!(message(&out[0]).contains(method), "{}", out[0]);
        }
    }
    let h = session(None);
    let r = h.stateless("foo/bar", json!({}));
    assert_eq!(code(&r), -32601);
}

#[test]
fn positional_params_and_bad_params_are_invalid_params() {
    for v in HANDSHAKE_VERSIONS {
        let h = session(Some(v));
        let out = h.send_request(json!(1), "tools/list", json!([]));
        assert_eq!(code(&out[0]), -32602, "{v}");
        assert!(message(&out[0]).contains("params"), "{}", out[0]);
        let cases = [
            ("tools/call", json!({})),
            ("tools/call", json!({"name": 5})),
            ("tools/call", json!({"name": "echo", "arguments": [1]})),
            ("tools/call", json!({"name": "echo", "arguments": "x"})),
            ("tools/list", json!({"cursor": 5})),
            ("tools/list", json!({"cursor": "not-a-cursor"})),
            ("resources/read", json!({})),
            ("resources/read", json!({"uri": 5})),
            ("prompts/get", json!({})),
            ("logging/setLevel", json!({"level": "loud"})),
            ("logging/setLevel", json!({})),
            ("completion/complete", json!({})),
            ("resources/subscribe", json!({"uri": null})),
        ];
        for (method, params) in cases {
            let r = h.request(method, params.clone());
            assert_eq!(code(&r), -32602, "{v} {method} {params}: {r}");
        }
    }
}

#[test]
fn a_batch_in_2025_03_26_answers_requests_in_one_array() {
    let h = session(Some("2025-03-26"));
    let batch = json!([
        {"jsonrpc":"2.0","id":1,"method":"ping"},
        {"jsonrpc":"2.0","method":"notifications/whatever"},
        {"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"echo","arguments":{"a":1}}},
        5,
        {"jsonrpc":"2.0","id":3,"method":"nope/nope"},
        {"jsonrpc":"2.0","id":4,"method":"tools/list"},
        [{"jsonrpc":"2.0","id":5,"method":"ping"}],
    ]);
    let out = h.exchange(batch);
    assert_eq!(out.len(), 1, "{out:?}");
    let replies = out[0].as_array().expect("a batch reply is an array");
    assert_eq!(replies.len(), 6, "{replies:?}");
    assert_eq!(replies[0]["id"], json!(1));
    assert_eq!(replies[0]["result"], json!({}));
    assert_eq!(replies[1]["id"], json!("two"));
    assert_eq!(
        replies[1]["result"]["content"][0]["text"],
        json!("{\"a\":1}")
    );
    assert_eq!(code(&replies[2]), -32600);
    assert!(replies[2].get("id").is_none());
    assert_eq!(replies[3]["id"], json!(3));
    assert_eq!(code(&replies[3]), -32601);
    assert_eq!(replies[4]["id"], json!(4));
    assert_eq!(replies[4]["result"]["tools"][0]["name"], json!("echo"));
    assert_eq!(code(&replies[5]), -32600, "a nested batch is not a message");
}

#[test]
fn a_batch_of_notifications_and_responses_gets_no_reply() {
    let h = session(Some("2025-03-26"));
    let out = h.exchange(json!([
        {"jsonrpc":"2.0","method":"notifications/whatever"},
        {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77}},
        {"jsonrpc":"2.0","id":500,"result":{}},
    ]));
    assert_eq!(out, Vec::<Value>::new());
}

#[test]
fn batches_are_refused_outside_2025_03_26() {
    let batch = json!([{"jsonrpc":"2.0","id":1,"method":"ping"}]);
    for state in every_state() {
        if state == Some("2025-03-26") {
            continue;
        }
        let h = session(state);
        let r = one_reply(&h, &batch.to_string());
        assert_eq!(code(&r), -32600, "{state:?}");
        assert!(r.get("id").is_none());
        assert!(message(&r).contains("batch"), "{r}");
        if state.is_none() {
            assert!(message(&r).contains("initialize"), "{r}");
        }
        // The refused batch's request did not run and the session still serves.
        assert_eq!(h.request("ping", json!({}))["result"], json!({}));
    }
}

#[test]
fn empty_and_oversized_batches_are_invalid_requests() {
    let config = ServerConfig {
        limits: Limits {
            max_batch_len: 3,
            ..Limits::default()
        },
        ..ServerConfig::default()
    };
    let h = Harness::with_config(config);
    h.initialize("2025-03-26");
    let r = one_reply(&h, "[]");
    assert_eq!(code(&r), -32600);
    assert!(message(&r).contains("empty"), "{r}");
    let ping = json!({"jsonrpc":"2.0","id":1,"method":"ping"});
    let r = one_reply(&h, &json!([ping, ping, ping, ping]).to_string());
    assert_eq!(code(&r), -32600);
    assert_eq!(r["error"]["data"], json!({"limit": 3, "actual": 4}));
    assert!(
        message(&r).contains("Batch length is 4; the limit is 3"),
        "{r}"
    );
    let out = h.exchange(json!([ping]));
    assert_eq!(out[0][0]["result"], json!({}));
}

#[test]
fn initialize_inside_a_batch_is_refused_after_initialization() {
    let h = session(Some("2025-03-26"));
    let out = h.exchange(json!([
        {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}},
    ]));
    assert_eq!(code(&out[0][0]), -32600);
    assert_eq!(h.session.protocol_version().unwrap().as_str(), "2025-03-26");
}

//! Notifications: list_changed coalescing, the stateless `subscriptions/listen` stream,
//! logging, progress and cancellation.
mod support;

use modelcontext_polyfill::collections::VecMap;
use modelcontext_polyfill::server::Runtime;
use modelcontext_polyfill::server::{
    HandlerError, LogLevel, PromptDef, RequestContext, ResourceDef, ServerConfig, ToolDef,
};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use support::*;

fn tool(name: &str) -> ToolDef {
    ToolDef::new(name, "A tool", |_a: Value, _c| async {
        Ok::<_, HandlerError>(json!("ok"))
    })
}

fn resource(uri: &str) -> ResourceDef {
    ResourceDef::new(
        uri,
        "r",
        |_u: String, _v: VecMap<String, String>, _c| async { Ok::<_, HandlerError>(json!("x")) },
    )
}

fn prompt(name: &str) -> PromptDef {
    PromptDef::new(
        name,
        |_a: VecMap<String, String>, _c: RequestContext| async {
            Ok::<_, HandlerError>(json!("x"))
        },
    )
}

fn methods(msgs: &[Value]) -> Vec<String> {
    msgs.iter()
        .map(|m| m["method"].as_str().unwrap_or("<response>").to_string())
        .collect()
}

#[test]
fn registrations_in_one_turn_coalesce_into_one_notification_per_kind() {
    for v in HANDSHAKE_VERSIONS {
        let h = Harness::new();
        h.initialize(v);
        h.take();
        for i in 0..5 {
            h.server.register_tool(tool(&format!("t{i}"))).unwrap();
        }
        h.server.register_resource(resource("app://a")).unwrap();
        h.server.register_resource(resource("app://b/{x}")).unwrap();
        h.server.register_prompt(prompt("p1")).unwrap();
        h.server.register_prompt(prompt("p2")).unwrap();
        h.server.unregister_tool("t0");
        let out = h.take();
        assert_eq!(
            methods(&out),
            [
                "notifications/tools/list_changed",
                "notifications/resources/list_changed",
                "notifications/prompts/list_changed"
            ],
            "{v}"
        );
        assert!(out
            .iter()
            .all(|m| m.get("params").is_none() && m.get("id").is_none()));
        // Nothing further once flushed.
        assert_eq!(h.take(), Vec::<Value>::new());
    }
}

/// Runs the executor for `ms` milliseconds of its virtual time (timers included).
fn wait(h: &Harness, ms: u64) {
    h.ex.block_on(h.ex.sleep(ms));
}

#[test]
fn with_no_interval_separate_turns_give_separate_notifications() {
    let h = Harness::with_config(ServerConfig {
        list_changed_interval_ms: 0,
        ..ServerConfig::default()
    });
    h.initialize("2025-06-18");
    h.take();
    h.server.register_tool(tool("a")).unwrap();
    h.server.register_tool(tool("b")).unwrap();
    assert_eq!(methods(&h.take()), ["notifications/tools/list_changed"]);
    h.server.register_tool(tool("c")).unwrap();
    assert_eq!(methods(&h.take()), ["notifications/tools/list_changed"]);
    assert_eq!(h.server.clear_tools(), 3);
    assert_eq!(methods(&h.take()), ["notifications/tools/list_changed"]);
    // Removing what is not there changes nothing.
    assert_eq!(h.server.clear_tools(), 0);
    assert!(!h.server.unregister_tool("zzz"));
    assert!(!h.server.unregister_prompt("zzz"));
    assert!(!h.server.unregister_resource("app://zzz"));
    assert_eq!(h.take(), Vec::<Value>::new());
}

#[test]
fn changes_within_the_interval_of_an_announcement_are_announced_together_at_its_end() {
    let interval = 200;
    let h = Harness::with_config(ServerConfig {
        list_changed_interval_ms: interval,
        ..ServerConfig::default()
    });
    h.initialize("2025-06-18");
    h.take();
    // The first change after a quiet spell: announced in its turn.
    h.server.register_tool(tool("a")).unwrap();
    assert_eq!(methods(&h.take()), ["notifications/tools/list_changed"]);
    // Changes in later turns within the interval: nothing yet...
    h.server.register_tool(tool("b")).unwrap();
    assert_eq!(h.take(), Vec::<Value>::new());
    h.server.register_prompt(prompt("p")).unwrap();
    h.server.unregister_tool("a");
    assert_eq!(h.take(), Vec::<Value>::new());
    // ...then one per kind at the interval's end.
    wait(&h, interval + 50);
    assert_eq!(
        methods(&h.take()),
        [
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed"
        ]
    );
    // That announcement opened another interval: a change now waits for its end too.
    h.server.register_tool(tool("c")).unwrap();
    assert_eq!(h.take(), Vec::<Value>::new());
    wait(&h, interval + 50);
    assert_eq!(methods(&h.take()), ["notifications/tools/list_changed"]);
    // A quiet interval later, a change is announced in its turn again.
    wait(&h, interval + 50);
    h.server.register_tool(tool("d")).unwrap();
    assert_eq!(methods(&h.take()), ["notifications/tools/list_changed"]);
    // Requests are answered meanwhile, and the list has every change.
    h.server.register_tool(tool("e")).unwrap();
    let r = h.request("tools/list", json!({}));
    let names: Vec<&str> = r["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["b", "c", "d", "e"]);
}

#[test]
fn no_list_changed_before_initialize_nor_for_changes_made_before_it() {
    let h = Harness::new();
    h.server.register_tool(tool("early")).unwrap();
    h.run();
    assert_eq!(
        h.take(),
        Vec::<Value>::new(),
        "no session is initialized yet"
    );
    // Changes in the same turn as initialize, but before it, are already in its answer.
    h.server.register_tool(tool("late")).unwrap();
    h.send(
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}),
    );
    let out = h.take();
    assert_eq!(methods(&out), ["<response>"], "{out:?}");
    let list = h.request("tools/list", json!({}));
    assert_eq!(list["result"]["tools"].as_array().unwrap().len(), 2);
    // A session that is not yet initialized hears nothing while another one does.
    let other = h.another_session();
    h.server.register_tool(tool("third")).unwrap();
    assert_eq!(methods(&h.take()), ["notifications/tools/list_changed"]);
    assert_eq!(other.take(), Vec::<Value>::new());
}

#[test]
fn every_initialized_session_gets_its_own_notification() {
    let a = Harness::new();
    let b = a.another_session();
    a.initialize("2024-11-05");
    b.initialize("2025-11-25");
    a.take();
    b.take();
    a.server.register_prompt(prompt("x")).unwrap();
    a.server.register_prompt(prompt("y")).unwrap();
    assert_eq!(methods(&a.take()), ["notifications/prompts/list_changed"]);
    assert_eq!(methods(&b.take()), ["notifications/prompts/list_changed"]);
}

/// Opens a listen stream with request id `id`; returns what the server emitted.
fn listen(h: &Harness, id: i64, notifications: Value) -> Vec<Value> {
    h.send(
        json!({"jsonrpc":"2.0","id":id,"method":"subscriptions/listen","params":{
            "_meta": Harness::stateless_meta(json!({})),
            "notifications": notifications,
        }}),
    );
    h.take()
}

#[test]
fn subscriptions_listen_acknowledges_then_streams_what_was_asked() {
    let h = Harness::new();
    h.server
        .register_resource(resource("app://watched"))
        .unwrap();
    h.run();
    let out = listen(
        &h,
        7,
        json!({"toolsListChanged": true, "resourceSubscriptions": ["app://watched"]}),
    );
    assert_eq!(
        out,
        vec![
            json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{
                "notifications": {"toolsListChanged": true, "resourceSubscriptions": ["app://watched"]},
                "_meta": {"io.modelcontextprotocol/subscriptionId": 7},
            }})
        ]
    );
    let sub = json!({"io.modelcontextprotocol/subscriptionId": 7});
    h.server.register_tool(tool("a")).unwrap();
    h.server.register_tool(tool("b")).unwrap();
    h.server.register_prompt(prompt("not-asked")).unwrap();
    h.server
        .register_resource(resource("app://not-asked"))
        .unwrap();
    assert_eq!(
        h.take(),
        vec![
            json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta": sub}})
        ]
    );
    h.server.resource_updated("app://watched");
    h.server.resource_updated("app://other");
    assert_eq!(
        h.take(),
        vec![
            json!({"jsonrpc":"2.0","method":"notifications/resources/updated",
                    "params":{"uri":"app://watched","_meta": sub}})
        ]
    );
    // The stream holds its id: reusing it is refused.
    let r = h.send_request(
        json!(7),
        "tools/list",
        json!({"_meta": Harness::stateless_meta(json!({}))}),
    );
    assert_eq!(code(&r[0]), -32600);
    // Cancelling the stream ends it, without a response.
    h.notify("notifications/cancelled", json!({"requestId": 7}));
    h.server.register_tool(tool("c")).unwrap();
    h.server.resource_updated("app://watched");
    assert_eq!(h.take(), Vec::<Value>::new());
}

#[test]
fn two_listen_streams_each_get_their_own_id() {
    let h = Harness::new();
    listen(&h, 1, json!({"promptsListChanged": true}));
    listen(
        &h,
        2,
        json!({"promptsListChanged": true, "resourcesListChanged": true}),
    );
    h.server.register_prompt(prompt("p")).unwrap();
    h.server.register_resource(resource("app://r")).unwrap();
    let out = h.take();
    let ids: Vec<(String, Value)> = out
        .iter()
        .map(|m| {
            (
                m["method"].as_str().unwrap().to_string(),
                m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].clone(),
            )
        })
        .collect();
    assert_eq!(
        ids,
        [
            ("notifications/resources/list_changed".to_string(), json!(2)),
            ("notifications/prompts/list_changed".to_string(), json!(1)),
            ("notifications/prompts/list_changed".to_string(), json!(2)),
        ]
    );
}

#[test]
fn a_listen_stream_hears_nothing_of_changes_made_before_it_opened() {
    let h = Harness::new();
    h.server.register_tool(tool("a")).unwrap();
    let out = listen(&h, 3, json!({"toolsListChanged": true}));
    assert_eq!(methods(&out), ["notifications/subscriptions/acknowledged"]);
}

#[test]
fn listen_checks_its_params_and_era() {
    let h = Harness::new();
    for bad in [
        json!(null),
        json!([]),
        json!({"resourceSubscriptions": "app://x"}),
        json!({"resourceSubscriptions": [1]}),
    ] {
        let out = listen(&h, 9, bad.clone());
        assert_eq!(out.len(), 1, "{bad}");
        assert_eq!(code(&out[0]), -32602, "{bad}");
    }
    let r = h.stateless("subscriptions/listen", json!({}));
    assert_eq!(code(&r), -32602);
    let h = Harness::new();
    h.initialize("2025-11-25");
    let r = h.request(
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    assert_eq!(
        code(&r),
        -32601,
        "handshake sessions subscribe with resources/subscribe"
    );
}

/// A tool that logs one message at every level.
fn chatty() -> ToolDef {
    ToolDef::new(
        "chatty",
        "Logs",
        |_a: Value, ctx: RequestContext| async move {
            let sent: Vec<bool> = LogLevel::ALL
                .iter()
                .map(|l| ctx.log(*l, Some("chatty"), json!({"at": l.as_str()})))
                .collect();
            Ok::<_, HandlerError>(json!({ "sent": sent }))
        },
    )
}

fn levels(msgs: &[Value]) -> Vec<String> {
    with_method(msgs, "notifications/message")
        .iter()
        .map(|m| m["params"]["level"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn log_messages_are_filtered_by_the_level_set() {
    for v in HANDSHAKE_VERSIONS {
        let h = Harness::new();
        h.server.register_tool(chatty()).unwrap();
        h.initialize(v);
        h.take();
        // Before any logging/setLevel everything goes out.
        let (r, others) = h.request_all("tools/call", json!({"name":"chatty"}));
        assert_eq!(levels(&others).len(), 8, "{v}");
        assert_eq!(
            r["result"]["structuredContent"].get("sent").is_some(),
            v >= "2025-06-18"
        );
        let m = with_method(&others, "notifications/message")[0];
        assert_eq!(
            m["params"],
            json!({"level":"debug","logger":"chatty","data":{"at":"debug"}})
        );
        assert_eq!(
            h.request("logging/setLevel", json!({"level":"warning"}))["result"],
            json!({})
        );
        let (_, others) = h.request_all("tools/call", json!({"name":"chatty"}));
        assert_eq!(
            levels(&others),
            ["warning", "error", "critical", "alert", "emergency"],
            "{v}"
        );
        h.request("logging/setLevel", json!({"level":"emergency"}));
        let (_, others) = h.request_all("tools/call", json!({"name":"chatty"}));
        assert_eq!(levels(&others), ["emergency"]);
        // The server's own log goes through the same filter.
        h.server.log(LogLevel::Alert, None, json!("dropped"));
        h.server
            .log(LogLevel::Emergency, Some("srv"), json!("kept"));
        let out = h.take();
        assert_eq!(
            out,
            vec![json!({"jsonrpc":"2.0","method":"notifications/message",
            "params":{"level":"emergency","logger":"srv","data":"kept"}})]
        );
        let r = h.request("logging/setLevel", json!({"level":"WARNING"}));
        assert_eq!(code(&r), -32602);
        assert!(
            message(&r).contains("debug, info, notice, warning, error, critical, alert, emergency"),
            "{r}"
        );
    }
}

#[test]
fn stateless_logging_is_opted_into_per_request() {
    let h = Harness::new();
    h.server.register_tool(chatty()).unwrap();
    let (_, others) = h.request_all(
        "tools/call",
        json!({"name":"chatty","_meta": Harness::stateless_meta(json!({}))}),
    );
    assert_eq!(levels(&others), Vec::<String>::new());
    let mut meta = Harness::stateless_meta(json!({}));
    meta["io.modelcontextprotocol/logLevel"] = json!("critical");
    let (_, others) = h.request_all("tools/call", json!({"name":"chatty","_meta": meta}));
    assert_eq!(levels(&others), ["critical", "alert", "emergency"]);
    // The server's own log reaches no stateless session (there is no session level).
    h.server.log(LogLevel::Emergency, None, json!("x"));
    assert_eq!(h.take(), Vec::<Value>::new());
}

/// A tool that reports the progress steps in its arguments and returns which were sent.
fn progressing() -> ToolDef {
    ToolDef::new(
        "progress",
        "Reports progress",
        |args: Value, ctx: RequestContext| async move {
            let sent: Vec<bool> = args["steps"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| ctx.report_progress(s[0].as_f64().unwrap(), s[1].as_f64(), s[2].as_str()))
                .collect();
            Ok::<_, HandlerError>(json!({"sent": sent, "wants": ctx.wants_progress()}))
        },
    )
}

#[test]
fn progress_is_sent_for_a_token_only_and_only_forward() {
    let steps = json!([
        [1, 10, "one"],
        [1, 10, "again"],
        [0.5, null, null],
        [2.5, 10, null],
        [10, 10, "done"]
    ]);
    for v in HANDSHAKE_VERSIONS {
        for token in [json!("tok-1"), json!(99)] {
            let h = Harness::new();
            h.server.register_tool(progressing()).unwrap();
            h.initialize(v);
            h.take();
            let (r, others) = h.request_all(
                "tools/call",
                json!({"name":"progress","arguments":{"steps": steps},"_meta":{"progressToken": token}}),
            );
            let progress = with_method(&others, "notifications/progress");
            let values: Vec<f64> = progress
                .iter()
                .map(|p| p["params"]["progress"].as_f64().unwrap())
                .collect();
            assert_eq!(values, [1.0, 2.5, 10.0], "{v}");
            assert!(progress
                .iter()
                .all(|p| p["params"]["progressToken"] == token));
            assert_eq!(progress[0]["params"]["total"], json!(10.0));
            assert_eq!(
                progress[0]["params"].get("message").is_some(),
                v >= "2025-03-26",
                "{v}"
            );
            if v >= "2025-06-18" {
                assert_eq!(
                    r["result"]["structuredContent"],
                    json!({"sent":[true,false,false,true,true],"wants":true})
                );
            }
        }
        // Without a token: no progress at all.
        let h = Harness::new();
        h.server.register_tool(progressing()).unwrap();
        h.initialize(v);
        h.take();
        let (r, others) = h.request_all(
            "tools/call",
            json!({"name":"progress","arguments":{"steps": steps}}),
        );
        assert_eq!(with_method(&others, "notifications/progress").len(), 0);
        assert!(first_text(&r).contains("\"wants\":false"), "{r}");
    }
    // Stateless requests carry the token in the same `_meta`.
    let h = Harness::new();
    h.server.register_tool(progressing()).unwrap();
    let mut meta = Harness::stateless_meta(json!({}));
    meta["progressToken"] = json!("s");
    let (_, others) = h.request_all(
        "tools/call",
        json!({"name":"progress","arguments":{"steps":[[1,null,"m"]]},"_meta": meta}),
    );
    let p = with_method(&others, "notifications/progress");
    assert_eq!(
        p[0]["params"],
        json!({"progressToken":"s","progress":1.0,"message":"m"})
    );
}

type Fired = Rc<RefCell<Vec<String>>>;

/// A tool that never settles and records its cancellation reason.
fn never(fired: &Fired) -> ToolDef {
    let fired = fired.clone();
    ToolDef::new(
        "never",
        "Never settles",
        move |_a: Value, ctx: RequestContext| {
            let fired = fired.clone();
            ctx.cancel
                .on_cancel(move |why| fired.borrow_mut().push(why.to_string()));
            std::future::pending::<Result<Value, HandlerError>>()
        },
    )
}

/// A tool that waits for its cancellation signal, then returns.
fn waits_for_cancel() -> ToolDef {
    ToolDef::new(
        "waiter",
        "Waits",
        |_a: Value, ctx: RequestContext| async move {
            let why = ctx.cancel.cancelled().await;
            Ok::<_, HandlerError>(json!(format!("stopped: {why}")))
        },
    )
}

#[test]
fn cancellation_aborts_the_handler_and_suppresses_the_response() {
    for v in HANDSHAKE_VERSIONS {
        let h = Harness::new();
        let fired = Fired::default();
        h.server.register_tool(never(&fired)).unwrap();
        h.server.register_tool(waits_for_cancel()).unwrap();
        h.initialize(v);
        h.take();
        assert_eq!(
            h.send_request(json!("n"), "tools/call", json!({"name":"never"})),
            Vec::<Value>::new()
        );
        assert_eq!(
            h.send_request(json!(5), "tools/call", json!({"name":"waiter"})),
            Vec::<Value>::new()
        );
        assert_eq!(h.session.in_flight(), 2);
        h.notify(
            "notifications/cancelled",
            json!({"requestId":"n","reason":"user gave up"}),
        );
        h.notify("notifications/cancelled", json!({"requestId":5}));
        assert_eq!(
            h.take(),
            Vec::<Value>::new(),
            "{v}: cancelled requests get no response"
        );
        assert_eq!(*fired.borrow(), ["user gave up"]);
        assert_eq!(h.session.in_flight(), 0);
        // The id is free again, and a cancel for something finished or unknown is ignored.
        let out = h.send_request(json!("n"), "ping", json!({}));
        assert_eq!(out[0]["result"], json!({}));
        h.notify("notifications/cancelled", json!({"requestId":"n"}));
        h.notify("notifications/cancelled", json!({"requestId":"unknown"}));
        h.notify("notifications/cancelled", json!({}));
        assert_eq!(h.take(), Vec::<Value>::new());
    }
    // Stateless requests are cancelled the same way.
    let h = Harness::new();
    let fired = Fired::default();
    h.server.register_tool(never(&fired)).unwrap();
    h.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"never","_meta": Harness::stateless_meta(json!({}))}}));
    h.run();
    h.notify(
        "notifications/cancelled",
        json!({"requestId":1,"reason":"r"}),
    );
    assert_eq!(h.take(), Vec::<Value>::new());
    assert_eq!(*fired.borrow(), ["r"]);
}

#[test]
fn progress_stops_when_the_request_completes() {
    let kept: Rc<RefCell<Option<RequestContext>>> = Rc::default();
    let k = kept.clone();
    let h = Harness::new();
    h.server
        .register_tool(ToolDef::new(
            "keeps",
            "Keeps its context",
            move |_a: Value, ctx: RequestContext| {
                *k.borrow_mut() = Some(ctx.clone());
                async move {
                    assert!(ctx.report_progress(1.0, None, None));
                    Ok::<_, HandlerError>(json!("done"))
                }
            },
        ))
        .unwrap();
    h.initialize("2025-06-18");
    h.take();
    let (_, others) = h.request_all(
        "tools/call",
        json!({"name":"keeps","_meta":{"progressToken":"t"}}),
    );
    assert_eq!(with_method(&others, "notifications/progress").len(), 1);
    let ctx = kept.borrow().clone().unwrap();
    assert!(!ctx.report_progress(2.0, None, None), "the request is over");
    assert_eq!(h.take(), Vec::<Value>::new());
}

#[test]
fn a_cancelled_id_can_be_reused_at_once() {
    let h = Harness::new();
    let fired = Fired::default();
    h.server.register_tool(never(&fired)).unwrap();
    h.initialize("2025-11-25");
    h.take();
    h.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"never"}}));
    h.notify("notifications/cancelled", json!({"requestId":1}));
    h.send(json!({"jsonrpc":"2.0","id":1,"method":"ping"}));
    let out = h.take();
    assert_eq!(out, vec![json!({"jsonrpc":"2.0","id":1,"result":{}})]);
    assert_eq!(fired.borrow().len(), 1);
}

/// What a session's streams hold is bounded (`MAX_SUBSCRIPTIONS` streams, URIs and task ids in
/// all; `MAX_SUBSCRIPTION_BYTES` of their text): a stream past either is refused naming the
/// limit, the streams open keep streaming, and a stream torn down makes room.
#[test]
fn listen_streams_past_the_limits_are_refused_and_the_session_goes_on() {
    use modelcontext_polyfill::server::limits::{MAX_SUBSCRIPTIONS, MAX_SUBSCRIPTION_BYTES};
    let h = Harness::new();
    h.server.register_resource(resource("app://kept")).unwrap();
    h.run();
    h.take();
    // As many URIs as a message holds (of values: `Limits::max_values`), written in descending order (each inserted one by one
    // moved all the others: 100,000 took 2.9 s natively, a 4 MiB message's 380,000 most of a
    // minute): refused at once.
    let many: Vec<String> = (0..90_000)
        .rev()
        .map(|i| format!("app://r/{i:06}"))
        .collect();
    // (Stream ids from 1,000,000: the harness numbers its own requests from 1.)
    const ID: i64 = 1_000_000;
    let out = listen(&h, ID + 1, json!({ "resourceSubscriptions": many }));
    assert_eq!(out.len(), 1, "only the refusal: {:?}", methods(&out));
    assert_eq!(code(&out[0]), -32600, "{}", out[0]);
    assert_eq!(out[0]["error"]["data"]["limit"], json!(MAX_SUBSCRIPTIONS));
    assert_eq!(out[0]["error"]["data"]["actual"], json!(90_001));
    // A stream naming one URI, then streams up to the bound (each counts one, and its URI).
    let out = listen(
        &h,
        ID + 2,
        json!({ "resourceSubscriptions": ["app://kept"] }),
    );
    assert_eq!(methods(&out), ["notifications/subscriptions/acknowledged"]);
    for id in 3..=(MAX_SUBSCRIPTIONS as i64) {
        let out = listen(&h, ID + id, json!({ "toolsListChanged": id % 2 == 0 }));
        assert_eq!(
            methods(&out),
            ["notifications/subscriptions/acknowledged"],
            "{id}"
        );
    }
    let out = listen(&h, ID, json!({ "promptsListChanged": true }));
    assert_eq!(code(&out[0]), -32600, "{}", out[0]);
    assert!(message(&out[0]).contains("4096"), "{}", out[0]);
    // The open streams still hear what they asked for; other requests are served.
    h.server.resource_updated("app://kept");
    let heard = h.take();
    assert_eq!(methods(&heard), ["notifications/resources/updated"]);
    assert_eq!(
        heard[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        json!(ID + 2)
    );
    let r = h.stateless("tools/list", json!({}));
    assert!(r["result"]["tools"].is_array(), "{r}");
    // Tearing one down makes room for another.
    h.notify("notifications/cancelled", json!({"requestId": ID + 3}));
    let out = listen(&h, ID, json!({ "promptsListChanged": true }));
    assert_eq!(methods(&out), ["notifications/subscriptions/acknowledged"]);

    // Bytes: URIs a few megabytes long fill the session's text budget before its count.
    let h = Harness::new();
    let long = |c: char, n: usize| format!("app://{}", c.to_string().repeat(n));
    let out = listen(
        &h,
        1,
        json!({ "resourceSubscriptions": [long('a', 3 << 20)] }),
    );
    assert_eq!(methods(&out), ["notifications/subscriptions/acknowledged"]);
    let out = listen(
        &h,
        2,
        json!({ "resourceSubscriptions": [long('b', 3 << 20)] }),
    );
    assert_eq!(code(&out[0]), -32600, "{}", out[0]);
    assert_eq!(
        out[0]["error"]["data"]["limit"],
        json!(MAX_SUBSCRIPTION_BYTES)
    );
    h.notify("notifications/cancelled", json!({"requestId": 1}));
    let out = listen(
        &h,
        2,
        json!({ "resourceSubscriptions": [long('b', 3 << 20)] }),
    );
    assert_eq!(methods(&out), ["notifications/subscriptions/acknowledged"]);
}

/// A progress token longer than `MAX_REPEATED_ID_BYTES` is not repeated: the call runs and is
/// answered, without progress notifications (each would carry the token); one at the bound
/// gets them. A `subscriptions/listen` request whose id is longer is refused, and the next
/// stream opens.
#[test]
fn tokens_and_stream_ids_past_the_bound_are_not_repeated() {
    use modelcontext_polyfill::server::limits::MAX_REPEATED_ID_BYTES;
    let steps = json!([[1, 3, null], [2, 3, null], [3, 3, null]]);
    for (len, notified) in [(MAX_REPEATED_ID_BYTES, 3), (MAX_REPEATED_ID_BYTES + 1, 0)] {
        let h = Harness::new();
        h.server.register_tool(progressing()).unwrap();
        h.initialize("2025-11-25");
        h.take();
        let token = "t".repeat(len);
        let (r, others) = h.request_all(
            "tools/call",
            json!({"name":"progress","arguments":{"steps": steps},"_meta":{"progressToken": token}}),
        );
        let progress = with_method(&others, "notifications/progress");
        assert_eq!(progress.len(), notified, "{len}");
        assert!(progress
            .iter()
            .all(|p| p["params"]["progressToken"] == json!(token)));
        assert_eq!(
            r["result"]["structuredContent"]["wants"],
            json!(notified > 0),
            "{len}: {r}"
        );
    }
    let h = Harness::new();
    let long = "i".repeat(MAX_REPEATED_ID_BYTES + 1);
    h.send(
        json!({"jsonrpc":"2.0","id": long,"method":"subscriptions/listen","params":{
        "_meta": Harness::stateless_meta(json!({})),
        "notifications": {"toolsListChanged": true}}}),
    );
    let out = h.take();
    assert_eq!(out.len(), 1);
    assert_eq!(code(&out[0]), -32600, "{}", out[0]);
    assert_eq!(out[0]["id"], json!(long));
    assert_eq!(
        out[0]["error"]["data"]["limit"],
        json!(MAX_REPEATED_ID_BYTES)
    );
    let out = listen(&h, 7, json!({"toolsListChanged": true}));
    assert_eq!(methods(&out), ["notifications/subscriptions/acknowledged"]);
}

/// A session's subscriptions and streams against a model of the bounds: random subscribes,
/// unsubscribes, streams opened (with random lists of URIs and task ids, repeats included)
/// and torn down, with URIs from a few bytes to 512 KB. Each is taken or refused exactly
/// when the model says the count or the bytes would pass their bound; what is held always
/// hears its updates.
#[test]
fn subscriptions_and_streams_follow_a_model_of_their_bounds() {
    use modelcontext_polyfill::server::limits::{MAX_SUBSCRIPTIONS, MAX_SUBSCRIPTION_BYTES};
    use std::collections::{BTreeMap, BTreeSet};
    let mut rng = Rng(0xb0b0_5eed);
    // Long URIs (to 512 KB) only where few are sent at once, so that no message passes the
    // 4 MiB a message may have; many short ones fill the count instead.
    let uri = |rng: &mut Rng, long: bool| -> String {
        let len = match rng.below(10) {
            0 if long => 1 + rng.below(512 << 10),
            1..=3 if long => 1 + rng.below(4_000),
            _ => 1 + rng.below(40),
        };
        format!("app://{}/{}", rng.below(60), "u".repeat(len))
    };
    let (mut taken, mut refused) = (0, 0);
    // Which bound refused (plus one in the stateless era): each is met.
    let mut refused_by = BTreeSet::new();
    for era in ["2025-11-25", STATELESS] {
        let h = Harness::new();
        let stateless = era == STATELESS;
        if !stateless {
            h.initialize(era);
            h.take();
        }
        // The model: URIs subscribed; streams by id, each with its URIs and task ids.
        let mut subscribed: BTreeSet<String> = BTreeSet::new();
        let mut streams: BTreeMap<i64, (BTreeSet<String>, BTreeSet<String>)> = BTreeMap::new();
        let held =
            |subscribed: &BTreeSet<String>,
             streams: &BTreeMap<i64, (BTreeSet<String>, BTreeSet<String>)>| {
                let mut count = subscribed.len();
                let mut bytes: usize = subscribed.iter().map(String::len).sum();
                for (uris, tasks) in streams.values() {
                    count += 1 + uris.len() + tasks.len();
                    bytes += uris.iter().chain(tasks).map(String::len).sum::<usize>();
                }
                (count, bytes)
            };
        let mut next_id = 1_000_000i64;
        for _ in 0..400 {
            let (count, bytes) = held(&subscribed, &streams);
            if !stateless {
                let u = if rng.chance(30) && !subscribed.is_empty() {
                    subscribed
                        .iter()
                        .nth(rng.below(subscribed.len()))
                        .unwrap()
                        .clone()
                } else {
                    uri(&mut rng, true)
                };
                if rng.chance(25) {
                    let r = h.request("resources/unsubscribe", json!({ "uri": u }));
                    assert_eq!(r["result"], json!({}));
                    subscribed.remove(&u);
                    continue;
                }
                let fits = subscribed.contains(&u)
                    || (count < MAX_SUBSCRIPTIONS && bytes + u.len() <= MAX_SUBSCRIPTION_BYTES);
                let r = h.request("resources/subscribe", json!({ "uri": u }));
                if fits {
                    assert_eq!(r["result"], json!({}), "count {count}, bytes {bytes}");
                    subscribed.insert(u);
                    taken += 1;
                } else {
                    assert_eq!(code(&r), -32600, "count {count}, bytes {bytes}");
                    let limit = if count >= MAX_SUBSCRIPTIONS {
                        MAX_SUBSCRIPTIONS
                    } else {
                        MAX_SUBSCRIPTION_BYTES
                    };
                    assert_eq!(r["error"]["data"]["limit"], json!(limit));
                    refused_by.insert(limit);
                    refused += 1;
                }
                continue;
            }
            if rng.chance(20) && !streams.is_empty() {
                let id = *streams.keys().nth(rng.below(streams.len())).unwrap();
                h.notify("notifications/cancelled", json!({ "requestId": id }));
                streams.remove(&id);
                continue;
            }
            let n = match rng.below(4) {
                0 => rng.below(2_000),
                _ => rng.below(20),
            };
            let uris: Vec<String> = (0..n).map(|_| uri(&mut rng, n < 20)).collect();
            let tasks: Vec<String> = (0..rng.below(3)).map(|i| format!("t{i}")).collect();
            let (uset, tset): (BTreeSet<String>, BTreeSet<String>) = (
                uris.iter().cloned().collect(),
                tasks.iter().cloned().collect(),
            );
            let add = 1 + uset.len() + tset.len();
            let add_bytes: usize = uset.iter().chain(&tset).map(String::len).sum();
            let fits =
                count + add <= MAX_SUBSCRIPTIONS && bytes + add_bytes <= MAX_SUBSCRIPTION_BYTES;
            next_id += 1;
            h.send(json!({"jsonrpc": "2.0", "id": next_id, "method": "subscriptions/listen",
                "params": {
                    "_meta": Harness::stateless_meta(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})),
                    "notifications": {"resourceSubscriptions": uris, "taskIds": tasks},
                }}));
            let out = h.take();
            if fits {
                assert_eq!(
                    methods(&out),
                    ["notifications/subscriptions/acknowledged"],
                    "count {count} + {add}, bytes {bytes} + {add_bytes}"
                );
                streams.insert(next_id, (uset, tset));
                taken += 1;
            } else {
                assert_eq!(
                    code(&out[0]),
                    -32600,
                    "count {count} + {add}, bytes {bytes} + {add_bytes}"
                );
                // The count is checked first.
                let limit = if count + add > MAX_SUBSCRIPTIONS {
                    MAX_SUBSCRIPTIONS
                } else {
                    MAX_SUBSCRIPTION_BYTES
                };
                assert_eq!(out[0]["error"]["data"]["limit"], json!(limit));
                refused_by.insert(limit + usize::from(stateless));
                refused += 1;
            }
        }
        // Each URI held hears its update (on the session, or on each stream naming it).
        let named: Vec<String> = subscribed
            .iter()
            .chain(streams.values().flat_map(|(u, _)| u))
            .take(20)
            .cloned()
            .collect();
        for u in named {
            h.server.resource_updated(&u);
            let heard = h.take();
            let expected = if stateless {
                streams
                    .values()
                    .filter(|(uris, _)| uris.contains(&u))
                    .count()
            } else {
                1
            };
            assert_eq!(heard.len(), expected, "{}", &u[..u.len().min(40)]);
            assert!(heard.iter().all(|m| m["params"]["uri"] == json!(u)));
        }
    }
    assert_eq!(
        refused_by.into_iter().collect::<Vec<_>>(),
        [
            MAX_SUBSCRIPTIONS + 1,
            MAX_SUBSCRIPTION_BYTES,
            MAX_SUBSCRIPTION_BYTES + 1
        ]
    );
    assert!(
        taken > 200 && refused > 20,
        "{taken} taken, {refused} refused"
    );
}

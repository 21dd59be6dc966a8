//! Limits and failure modes: message size, nesting depth, requests in flight, tool
//! timeouts, never-settling and failing handlers, duplicate ids, and closing a session.
mod support;

use modelcontext_polyfill::server::limits::params_bytes;
use modelcontext_polyfill::server::{
    HandlerError, Limits, RequestContext, Sent, ServerConfig, ToolDef,
};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use support::*;

type Fired = Rc<RefCell<Vec<String>>>;

fn never(name: &str, fired: &Fired) -> ToolDef {
    let fired = fired.clone();
    ToolDef::new(
        name,
        "Never settles",
        move |_a: Value, ctx: RequestContext| {
            let fired = fired.clone();
            ctx.cancel
                .on_cancel(move |why| fired.borrow_mut().push(why.to_string()));
            std::future::pending::<Result<Value, HandlerError>>()
        },
    )
}

fn echo() -> ToolDef {
    ToolDef::new("echo", "Echoes", |a: Value, _c| async move {
        Ok::<_, HandlerError>(a)
    })
}

fn limited(limits: Limits) -> Harness {
    let h = Harness::with_config(ServerConfig {
        limits,
        ..ServerConfig::default()
    });
    h.server.register_tool(echo()).unwrap();
    h.initialize("2025-11-25");
    h.take();
    h
}

#[test]
fn oversized_messages_are_refused_before_parsing() {
    let h = limited(Limits {
        max_message_bytes: 200,
        ..Limits::default()
    });
    let fits = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"s":"x"}}});
    let base = fits.to_string().len();
    let pad = "y".repeat(200 - base);
    let exact = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"s": format!("x{pad}")}}});
    assert_eq!(exact.to_string().len(), 200);
    let out = h.exchange(exact);
    assert_eq!(out[0]["id"], json!(1));
    assert!(out[0].get("result").is_some(), "{out:?}");
    let over = format!("{}   ", json!({"jsonrpc":"2.0","id":2,"method":"ping"})).repeat(10);
    let out = h.exchange_text(&over);
    assert_eq!(out.len(), 1);
    assert_eq!(code(&out[0]), -32600);
    // Not parsed, but the id is read from the text: the client is answered, not left waiting.
    assert_eq!(out[0]["id"], json!(2));
    assert_eq!(
        out[0]["error"]["data"],
        json!({"limit": 200, "actual": over.len()})
    );
    assert_eq!(
        message(&out[0]),
        format!("Message size in bytes is {}; the limit is 200", over.len())
    );
    // Garbage over the limit is refused for its size, not parsed; no id to read.
    let out = h.exchange_text(&"{".repeat(201));
    assert_eq!(code(&out[0]), -32600);
    assert!(
        out[0].get("id").is_none(),
        "2025-11-25 leaves an unreadable id out"
    );
    // The next valid request is answered.
    assert_eq!(h.request("ping", json!({}))["result"], json!({}));
}

#[test]
fn an_unreadable_id_is_left_out_in_every_version() {
    // Only 2025-11-25 and later can express an error without an id (`id` optional); the
    // earlier schemas require a string or integer id, and JSON-RPC's `null` is no valid MCP
    // RequestId either, so the id is left out (the harness checks every reply's schema).
    for v in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let h = Harness::new();
        h.initialize(v);
        h.take();
        for bad in [
            "{\"jsonrpc\":",
            "[",
            "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
        ] {
            let out = h.exchange_text(bad);
            assert_eq!(out.len(), 1, "{v} {bad}");
            assert_eq!(out[0].get("id"), None, "{v} {bad}: {}", out[0]);
            assert_eq!(h.request("ping", json!({}))["result"], json!({}), "{v}");
        }
    }
}

#[test]
fn deep_nesting_is_refused_before_parsing() {
    let h = limited(Limits {
        max_depth: 6,
        ..Limits::default()
    });
    // Depth 6: message object, params, arguments, a, b, c.
    let ok = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":{"b":{"c":{}}}}}});
    assert!(h.exchange(ok)[0].get("result").is_some());
    let deep = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"a":{"b":{"c":{"d":[]}}}}}});
    let out = h.exchange(deep);
    assert_eq!(code(&out[0]), -32600);
    assert_eq!(
        out[0]["id"],
        json!(2),
        "the id is read without parsing the rest"
    );
    assert_eq!(
        message(&out[0]),
        "Message nesting depth exceeds the limit of 6"
    );
    // Brackets inside strings do not count.
    let strings = json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"s":"[[[[[[[[{{{{{{{{"}}});
    assert_eq!(
        h.exchange(strings)[0]["result"]["structuredContent"]["s"],
        json!("[[[[[[[[{{{{{{{{")
    );
    // Hostile depth far beyond any parser's recursion limit is just refused.
    let out = h.exchange_text(&"[".repeat(1_000_000));
    assert_eq!(code(&out[0]), -32600);
    assert_eq!(h.request("ping", json!({}))["result"], json!({}));
    // A million levels before the id, and after it: the id is still read.
    let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    for text in [
        format!(
            r#"{{"jsonrpc":"2.0","params":{{"a":{}}},"id":"deep-first","method":"tools/call"}}"#,
            nest(1_000_000)
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":"deep-last","method":"tools/call","params":{{"a":{}}}}}"#,
            nest(1_000_000)
        ),
    ] {
        let out = h.exchange_text(&text);
        assert_eq!(code(&out[0]), -32600);
        assert!(
            out[0]["id"].as_str().unwrap().starts_with("deep-"),
            "{}",
            out[0]
        );
        assert_eq!(h.request("ping", json!({}))["result"], json!({}));
    }
}

#[test]
fn a_lone_surrogate_is_refused_with_the_requests_id_and_the_next_request_is_served() {
    let h = limited(Limits::default());
    // JSON.stringify('a\ud800b') in a browser: valid JSON text, not a valid Unicode string.
    let text = r#"{"jsonrpc":"2.0","id":"lone","method":"tools/call","params":{"name":"echo","arguments":{"s":"a\ud800b"}}}"#;
    let out = h.exchange_text(text);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["id"], json!("lone"));
    assert_eq!(code(&out[0]), -32700);
    assert!(message(&out[0]).starts_with("Parse error"), "{}", out[0]);
    let ok = h.request(
        "tools/call",
        json!({"name":"echo","arguments":{"s":"a\u{fffd}b"}}),
    );
    assert_eq!(ok["result"]["structuredContent"]["s"], json!("a\u{fffd}b"));
}

/// A message is read into at most `max_values` values, its call's arguments (read apart as
/// text) aside: 4 MiB of `[],` anywhere else in a message made 1.3 million of them, some 200 MB
/// of wasm memory that a page keeps. Past the limit the reading stops and the message is
/// refused, with its id where it has one; at the limit it is served; the next request is
/// served either way.
#[test]
fn a_message_of_too_many_values_is_refused_with_its_id_and_the_session_goes_on() {
    let h = limited(Limits {
        max_values: 1_000,
        ..Limits::default()
    });
    let junk = |n: usize| format!("[{}]", vec!["[]"; n].join(","));
    // jsonrpc, id, method, params, name, arguments' `null`, _meta, junk: 8 and the junk's.
    let call = |id: &str, n: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"echo","_meta":{{"junk":{}}},"arguments":{{"a":{}}}}}}}"#,
            junk(n),
            junk(5_000)
        )
    };
    // At the limit: served, with arguments of 5,001 values, which are not counted.
    let out = h.exchange_text(&call("fits", 1_000 - 8));
    assert_eq!(out[0]["id"], json!("fits"));
    assert_eq!(
        out[0]["result"]["structuredContent"]["a"]
            .as_array()
            .map(Vec::len),
        Some(5_000),
        "{}",
        out[0]
    );
    let too_many = "The number of JSON values in a message (a tool call's arguments aside) \
                    exceeds the limit of 1000";
    for (id, text) in [
        ("meta", call("meta", 1_000 - 7)),
        (
            "unknown",
            format!(
                r#"{{"jsonrpc":"2.0","id":"unknown","method":"ping","x":{}}}"#,
                junk(2_000)
            ),
        ),
        (
            "array-params",
            format!(
                r#"{{"jsonrpc":"2.0","id":"array-params","method":"ping","params":{}}}"#,
                junk(2_000)
            ),
        ),
        // A member twice: read whole, arguments and all.
        (
            "twice",
            format!(
                r#"{{"jsonrpc":"2.0","id":"twice","method":"tools/call","params":{{"name":"echo","arguments":{{}},"arguments":{}}}}}"#,
                junk(2_000)
            ),
        ),
    ] {
        let out = h.exchange_text(&text);
        assert_eq!(out.len(), 1, "{id}: {out:?}");
        assert_eq!(out[0]["id"], json!(id));
        assert_eq!(code(&out[0]), -32600, "{id}");
        assert_eq!(message(&out[0]), too_many, "{id}");
        assert_eq!(out[0]["error"]["data"], json!({"limit": 1_000}), "{id}");
        assert_eq!(h.request("ping", json!({}))["result"], json!({}), "{id}");
    }
    // A response, read whole (not a request it reads into parts), the same: not answered (its
    // id is one of the server's requests'), and the session goes on.
    let out = h.exchange_text(&format!(
        r#"{{"jsonrpc":"2.0","id":"response","result":{}}}"#,
        junk(2_000)
    ));
    assert_eq!(out, Vec::<Value>::new());
    assert_eq!(h.request("ping", json!({}))["result"], json!({}));
    // A notification has no id to answer; it is refused all the same, and nothing runs.
    let out = h.exchange_text(&format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":"x","junk":{}}}}}"#,
        junk(2_000)
    ));
    assert_eq!(code(&out[0]), -32600);
    assert!(out[0].get("id").is_none(), "{}", out[0]);
    // The default lets a message hold 100,000.
    let h = limited(Limits::default());
    let out = h.exchange_text(&call("default", 100_000 - 8));
    assert!(out[0].get("result").is_some(), "{}", out[0]);
    let out = h.exchange_text(&call("default-over", 100_000 - 7));
    assert_eq!(code(&out[0]), -32600);
    assert_eq!(h.request("ping", json!({}))["result"], json!({}));
}

/// A tool that finishes when the test opens its gate.
fn gated(name: &str, gate: &Gate) -> ToolDef {
    let gate = gate.clone();
    ToolDef::new(name, "Waits for the test", move |a: Value, _c| {
        let gate = gate.clone();
        std::future::poll_fn(move |cx| {
            if gate.0.get() {
                std::task::Poll::Ready(Ok::<_, HandlerError>(a.clone()))
            } else {
                gate.1.borrow_mut().push(cx.waker().clone());
                std::task::Poll::Pending
            }
        })
    })
}

#[derive(Clone, Default)]
struct Gate(
    Rc<std::cell::Cell<bool>>,
    Rc<RefCell<Vec<std::task::Waker>>>,
);

impl Gate {
    fn open(&self) {
        self.0.set(true);
        for w in self.1.borrow_mut().drain(..) {
            w.wake();
        }
    }
}

#[test]
fn requests_past_the_in_flight_cap_wait_in_a_queue_and_are_all_answered() {
    let h = limited(Limits {
        max_in_flight: 2,
        max_queued: 3,
        ..Limits::default()
    });
    let gate = Gate::default();
    h.server.register_tool(gated("gated", &gate)).unwrap();
    let started = Rc::new(std::cell::Cell::new(0));
    let s = started.clone();
    h.server
        .register_tool(ToolDef::new(
            "count",
            "Counts starts",
            move |a: Value, _c| {
                s.set(s.get() + 1);
                async move { Ok::<_, HandlerError>(a) }
            },
        ))
        .unwrap();
    h.take();
    // Two run; past the cap, three are queued, not refused, and not started.
    for id in 1..=5 {
        let tool = if id <= 2 { "gated" } else { "count" };
        assert!(h
            .send_request(
                json!(format!("c{id}")),
                "tools/call",
                json!({"name": tool, "arguments": {"n": id}})
            )
            .is_empty());
    }
    assert_eq!(started.get(), 0);
    assert_eq!(h.session.queued(), 3);
    assert_eq!(h.session.in_flight(), 5);
    // Past the queue too: refused with the request's id, naming both limits.
    let out = h.send_request(json!("c6"), "tools/call", json!({"name":"count"}));
    assert_eq!(out[0]["id"], json!("c6"));
    assert_eq!(code(&out[0]), -32600);
    assert_eq!(
        message(&out[0]),
        "Requests in flight and queued exceeds the limit of 5"
    );
    // Requests that run no page code never wait: ping, lists.
    assert_eq!(h.request("ping", json!({}))["result"], json!({}));
    assert_eq!(
        h.request("tools/list", json!({}))["result"]["tools"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    // A queued request can be cancelled: it never starts and gets no answer.
    h.notify("notifications/cancelled", json!({"requestId": "c4"}));
    assert_eq!(h.take(), Vec::<Value>::new());
    assert_eq!(h.session.queued(), 2);
    // Finishing the running ones lets the queue through, in order.
    gate.open();
    let out = h.take();
    let ids: Vec<Value> = out.iter().map(|m| m["id"].clone()).collect();
    assert_eq!(
        ids,
        [json!("c1"), json!("c2"), json!("c3"), json!("c5")],
        "{out:?}"
    );
    assert!(out.iter().all(|m| m.get("result").is_some()));
    assert_eq!(started.get(), 2);
    assert_eq!(h.session.in_flight(), 0);
    assert_eq!(h.session.queued(), 0);
}

#[test]
fn the_queue_is_bounded_by_bytes_too_and_frees_them_as_requests_leave_it() {
    // A queued call is charged its arguments' text (read apart) and the values of its other
    // params: here its `name`.
    let rest = params_bytes(json!({"name": "gated"}).as_object().unwrap());
    let text = |pad: usize| format!("{{\"pad\":\"{}\"}}", "x".repeat(pad)).len();
    let h = limited(Limits {
        max_in_flight: 1,
        max_queued: 100,
        max_queued_bytes: 2 * rest + text(150) + text(10) + 40,
        ..Limits::default()
    });
    let gate = Gate::default();
    h.server.register_tool(gated("gated", &gate)).unwrap();
    h.take();
    let call = |id: &str, pad: usize| {
        h.send_request(
            json!(id),
            "tools/call",
            json!({"name": "gated", "arguments": {"pad": "x".repeat(pad)}}),
        )
    };
    assert!(call("run", 10).is_empty(), "the one slot");
    assert!(call("q1", 150).is_empty(), "one large call waits");
    // A second would pass the limit: refused with its id, naming the byte limit.
    let out = call("q2", 150);
    assert_eq!(out[0]["id"], json!("q2"));
    assert_eq!(code(&out[0]), -32600);
    assert!(
        message(&out[0]).starts_with("Bytes of queued requests"),
        "{}",
        message(&out[0])
    );
    // A small one still fits; count-wise the queue had room all along.
    assert!(call("q3", 10).is_empty());
    assert_eq!(h.session.queued(), 2);
    // Cancelling a waiting request gives its bytes back: the large one now fits.
    h.notify("notifications/cancelled", json!({"requestId": "q1"}));
    h.run();
    assert!(call("q4", 150).is_empty());
    gate.open();
    let ids: Vec<Value> = h.take().iter().map(|m| m["id"].clone()).collect();
    assert_eq!(ids, [json!("run"), json!("q3"), json!("q4")]);
    // Everything left the queue: its full size is free again.
    gate.0.set(false);
    assert!(call("run2", 10).is_empty());
    assert!(call("q5", 2 * rest / 3 + 150).is_empty());
    assert_eq!(h.session.queued(), 1);
}

#[test]
fn a_queued_request_is_charged_the_values_its_params_keep_not_their_text() {
    // 100,000 empty arrays: 300 KB of text, several MB once read into values.
    let arrays = format!("[{}[]]", "[],".repeat(99_999));
    let many: Value = serde_json::from_str(&arrays).unwrap();
    let tree = params_bytes(json!({"_meta": {"junk": many}}).as_object().unwrap());
    assert!(
        tree >= 100_000 * std::mem::size_of::<Value>(),
        "each array is a value's slot at least: {tree}"
    );
    let h = limited(Limits {
        max_in_flight: 1,
        max_queued_bytes: 2 * 1024 * 1024,
        // (Read whole: the bytes they keep are this test's, not the count of values.)
        max_values: 1_000_000,
        ..Limits::default()
    });
    let gate = Gate::default();
    h.server.register_tool(gated("gated", &gate)).unwrap();
    h.take();
    let call = |id: &str, meta: &str| {
        h.exchange_text(&format!(
            r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"gated","arguments":{{}},"_meta":{{"junk":{meta}}}}}}}"#
        ))
    };
    assert!(call("run", "1").is_empty(), "the one slot");
    assert!(call("small", "[[],[]]").is_empty(), "a small one waits");
    // Its text is far under 2 MiB, what it would keep is not: refused, with its id.
    let out = call("junk", &arrays);
    assert_eq!(out[0]["id"], json!("junk"));
    assert_eq!(code(&out[0]), -32600);
    assert!(
        message(&out[0]).starts_with("Bytes of queued requests is "),
        "{}",
        message(&out[0])
    );
    assert_eq!(h.session.queued(), 1);
    // The same text as a call's arguments waits: kept as text, it costs its 300 KB.
    let out = h.exchange_text(&format!(
        r#"{{"jsonrpc":"2.0","id":"text","method":"tools/call","params":{{"name":"gated","arguments":{{"junk":{arrays}}}}}}}"#
    ));
    assert!(out.is_empty(), "{out:?}");
    assert_eq!(h.session.queued(), 2);
    // The session goes on: ping is answered now, the queued calls once the gate opens.
    assert!(
        h.exchange(json!({"jsonrpc":"2.0","id":"p","method":"ping"}))[0]
            .get("result")
            .is_some()
    );
    gate.open();
    let ids: Vec<Value> = h.take().iter().map(|m| m["id"].clone()).collect();
    assert_eq!(ids, [json!("run"), json!("small"), json!("text")]);
    assert_eq!(h.session.queued(), 0);
}

/// A batch's items are read one by one as single messages are: a call's arguments stay the
/// agent's text (charged as text while it waits, not counted as values), the rest of each item
/// is read into values (charged their memory while it waits, and counted against
/// `max_values` over the whole batch: past it the batch is refused whole and nothing runs).
#[test]
fn a_batch_call_keeps_its_arguments_as_text_and_the_rest_of_the_batch_is_counted() {
    let h = Harness::with_config(ServerConfig {
        limits: Limits {
            max_in_flight: 1,
            max_queued_bytes: 2 * 1024 * 1024,
            ..Limits::default()
        },
        ..ServerConfig::default()
    });
    let gate = Gate::default();
    h.server.register_tool(gated("gated", &gate)).unwrap();
    h.initialize("2025-03-26");
    h.take();
    let arrays = |n: usize| format!("[{}]", vec!["[]"; n].join(","));
    let call = |id: &str, args: &str, meta: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"gated","_meta":{{"j":{meta}}},"arguments":{args}}}}}"#
        )
    };
    // 150,000 arrays as a call's arguments: 450 KB of text, waiting as text.
    let batch = format!(
        "[{},{},{},{}]",
        call("run", "{}", "1"),
        call("small", "{}", "1"),
        call("args", &format!(r#"{{"a":{}}}"#, arrays(150_000)), "1"),
        // 60,000 arrays in `_meta`: within the values a message may hold, but some 3 MB of
        // them while the call would wait.
        call("meta", "{}", &arrays(60_000)),
    );
    let out = h.exchange_text(&batch);
    // The refusal waits for the batch's answer: the batch is answered as one array.
    assert!(out.is_empty(), "{out:?}");
    assert_eq!(
        h.session.queued(),
        2,
        "the small call and the long arguments wait"
    );
    gate.open();
    let out = h.take();
    let answers = out[0].as_array().expect("one array");
    let by_id = |id: &str| answers.iter().find(|m| m["id"] == json!(id)).unwrap();
    assert!(by_id("run").get("result").is_some());
    assert!(by_id("small").get("result").is_some());
    assert!(by_id("args").get("result").is_some(), "{}", by_id("args"));
    assert_eq!(code(by_id("meta")), -32600);
    assert!(message(by_id("meta")).starts_with("Bytes of queued requests"));
    // Items whose `_meta` hold 40,000 arrays each: 120,000 values in the batch, refused whole
    // with one error before any of it runs.
    gate.0.set(false);
    let batch = format!(
        "[{},{},{}]",
        call("m1", "{}", &arrays(40_000)),
        call("m2", "{}", &arrays(40_000)),
        call("m3", "{}", &arrays(40_000)),
    );
    let out = h.exchange_text(&batch);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(code(&out[0]), -32600);
    assert!(out[0].get("id").is_none(), "{}", out[0]);
    assert!(
        message(&out[0]).starts_with("The number of JSON values in a message"),
        "{}",
        out[0]
    );
    assert_eq!((h.session.in_flight(), h.session.queued()), (0, 0));
    assert!(
        h.exchange(json!({"jsonrpc":"2.0","id":"p","method":"ping"}))[0]
            .get("result")
            .is_some()
    );
}

#[test]
fn a_session_keeps_the_limits_it_was_opened_with() {
    let h = limited(Limits::default());
    let gate = Gate::default();
    h.server.register_tool(gated("gated", &gate)).unwrap();
    h.take();
    let out = Rc::new(RefCell::new(Vec::<Value>::new()));
    let o = out.clone();
    let own = h.server.connect_with(
        Limits {
            max_in_flight: 1,
            max_queued: 0,
            ..Limits::default()
        },
        move |m: Sent| {
            o.borrow_mut()
                .push(serde_json::from_str(&m.into_text()).unwrap())
        },
    );
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
    own.receive(&init.to_string());
    let call = |id: i64| {
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"gated","arguments":{}}})
            .to_string()
    };
    own.receive(&call(1));
    own.receive(&call(2));
    h.run();
    let refused = out.borrow().iter().find(|m| m["id"] == 2).cloned().unwrap();
    assert_eq!(code(&refused), -32600, "its own cap of one, no queue");
    // The server's other sessions keep the server's limits.
    assert!(h
        .send_request(json!("a"), "tools/call", json!({"name":"gated"}))
        .is_empty());
    assert!(h
        .send_request(json!("b"), "tools/call", json!({"name":"gated"}))
        .is_empty());
    gate.open();
    h.run();
    assert!(out
        .borrow()
        .iter()
        .any(|m| m["id"] == 1 && m.get("result").is_some()));
    assert_eq!(h.take().len(), 2);
}

#[test]
fn hung_handlers_cannot_lock_a_session_out() {
    // Every slot held by a handler that never settles: ping is answered, calls queue, and
    // the client's cancellation (or the tool timeout) frees the slots.
    let h = limited(Limits {
        max_in_flight: 2,
        ..Limits::default()
    });
    let fired = Fired::default();
    h.server.register_tool(never("never", &fired)).unwrap();
    h.take();
    for id in 1..=2 {
        assert!(h
            .send_request(
                json!(format!("c{id}")),
                "tools/call",
                json!({"name":"never"})
            )
            .is_empty());
    }
    assert!(h
        .send_request(
            json!("c3"),
            "tools/call",
            json!({"name":"echo","arguments":{"q":3}})
        )
        .is_empty());
    assert_eq!(h.request("ping", json!({}))["result"], json!({}));
    h.notify("notifications/cancelled", json!({"requestId": "c1"}));
    assert_eq!(*fired.borrow(), ["Cancelled by the client"]);
    let out = h.take();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], json!("c3"));
    assert_eq!(out[0]["result"]["structuredContent"], json!({"q":3}));

    let t = Harness::with_config(ServerConfig {
        tool_timeout_ms: Some(20),
        limits: Limits {
            max_in_flight: 1,
            ..Limits::default()
        },
        ..ServerConfig::default()
    });
    t.server.register_tool(never("never", &fired)).unwrap();
    t.server.register_tool(echo()).unwrap();
    t.initialize("2025-11-25");
    t.take();
    assert!(t
        .send_request(json!("hung"), "tools/call", json!({"name":"never"}))
        .is_empty());
    assert!(t
        .send_request(
            json!("next"),
            "tools/call",
            json!({"name":"echo","arguments":{}})
        )
        .is_empty());
    t.wait_ms(50);
    let out = t.take();
    let ids: Vec<Value> = out.iter().map(|m| m["id"].clone()).collect();
    assert_eq!(ids, [json!("hung"), json!("next")], "{out:?}");
    assert_eq!(out[0]["result"]["isError"], json!(true));
    assert_eq!(out[1]["result"]["structuredContent"], json!({}));
}

#[test]
fn a_duplicate_id_in_flight_is_refused_and_the_first_request_still_completes() {
    let h = limited(Limits::default());
    let gate: Rc<RefCell<Option<std::task::Waker>>> = Rc::default();
    let open = Rc::new(std::cell::Cell::new(false));
    let (g, o) = (gate.clone(), open.clone());
    h.server
        .register_tool(ToolDef::new(
            "gated",
            "Waits for the test",
            move |_a: Value, _c| {
                let (g, o) = (g.clone(), o.clone());
                std::future::poll_fn(move |cx| {
                    if o.get() {
                        std::task::Poll::Ready(Ok::<_, HandlerError>(json!("through")))
                    } else {
                        *g.borrow_mut() = Some(cx.waker().clone());
                        std::task::Poll::Pending
                    }
                })
            },
        ))
        .unwrap();
    h.take();
    assert!(h
        .send_request(json!("dup"), "tools/call", json!({"name":"gated"}))
        .is_empty());
    let out = h.send_request(json!("dup"), "ping", json!({}));
    assert_eq!(code(&out[0]), -32600);
    assert_eq!(out[0]["id"], json!("dup"));
    assert!(message(&out[0]).contains("\"dup\""), "{}", out[0]);
    open.set(true);
    gate.borrow_mut().take().unwrap().wake();
    let out = h.take();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["id"], json!("dup"));
    assert_eq!(out[0]["result"]["content"][0]["text"], json!("through"));
}

#[test]
fn a_tool_timeout_ends_the_call_with_an_error_result_and_fires_the_signal() {
    for v in ["2024-11-05", "2025-11-25", STATELESS] {
        let h = Harness::with_config(ServerConfig {
            tool_timeout_ms: Some(30),
            ..ServerConfig::default()
        });
        let fired = Fired::default();
        h.server.register_tool(never("slow", &fired)).unwrap();
        h.server.register_tool(echo()).unwrap();
        let params = |name: &str| {
            let mut p = json!({"name": name, "arguments": {"k": 1}});
            if v == STATELESS {
                p["_meta"] = Harness::stateless_meta(json!({}));
            }
            p
        };
        if v != STATELESS {
            h.initialize(v);
        }
        h.take();
        // A fast tool is unaffected.
        let out = h.send_request(json!(1), "tools/call", params("echo"));
        assert_eq!(
            out[0]["result"]["content"][0]["text"],
            json!("{\"k\":1}"),
            "{v}"
        );
        assert!(h
            .send_request(json!(2), "tools/call", params("slow"))
            .is_empty());
        h.wait_ms(60);
        let out = h.take();
        assert_eq!(out.len(), 1, "{v}: {out:?}");
        assert_eq!(out[0]["id"], json!(2));
        assert_eq!(out[0]["result"]["isError"], json!(true), "{v}");
        assert_eq!(
            out[0]["result"]["content"][0]["text"],
            json!("Tool slow did not finish within 30 ms")
        );
        assert_eq!(*fired.borrow(), ["Tool slow timed out after 30 ms"]);
        assert_eq!(h.session.in_flight(), 0);
    }
}

#[test]
fn closing_a_session_cancels_handlers_and_silences_it() {
    let h = Harness::new();
    let fired = Fired::default();
    h.server.register_tool(never("never", &fired)).unwrap();
    h.server
        .register_resource(modelcontext_polyfill::server::ResourceDef::new(
            "app://r",
            "r",
            |_u: String, _v: modelcontext_polyfill::collections::VecMap<String, String>, _c| async {
                Ok::<_, HandlerError>(json!("x"))
            },
        ))
        .unwrap();
    let other = h.another_session();
    h.initialize("2025-06-18");
    other.initialize("2025-06-18");
    h.request("resources/subscribe", json!({"uri":"app://r"}));
    h.take();
    other.take();
    assert!(h
        .send_request(json!(1), "tools/call", json!({"name":"never"}))
        .is_empty());
    assert!(h
        .send_request(json!(2), "tools/call", json!({"name":"never"}))
        .is_empty());
    assert_eq!(h.server.session_count(), 2);
    h.session.close();
    assert!(h.session.is_closed());
    assert_eq!(
        *fired.borrow(),
        ["The session was closed", "The session was closed"]
    );
    assert_eq!(h.session.in_flight(), 0);
    assert_eq!(h.server.session_count(), 1);
    // Nothing more from the closed session: no responses, notifications or log messages.
    h.send(json!({"jsonrpc":"2.0","id":3,"method":"ping"}));
    h.server.register_tool(echo()).unwrap();
    h.server.resource_updated("app://r");
    h.server.log(
        modelcontext_polyfill::server::LogLevel::Emergency,
        None,
        json!("x"),
    );
    h.session.notify(
        "notifications/message",
        Some(json!({"level":"info","data":"x"})),
    );
    assert_eq!(h.take(), Vec::<Value>::new());
    // The other session carries on.
    assert_eq!(other.take().len(), 2, "list_changed and the log message");
    assert_eq!(other.request("ping", json!({}))["result"], json!({}));
    h.session.close();
}

#[test]
fn handler_errors_never_take_the_server_down() {
    let h = limited(Limits::default());
    h.server
        .register_tool(ToolDef::new(
            "throws",
            "Fails with data",
            |_a: Value, _c| async {
                Err::<Value, _>(HandlerError {
                    message: "TypeError: x is undefined".into(),
                    data: Some(json!({"stack": "..."})),
                    code: None,
                })
            },
        ))
        .unwrap();
    for _ in 0..3 {
        let r = h.request("tools/call", json!({"name":"throws"}));
        assert_eq!(
            r["result"],
            json!({"content":[{"type":"text","text":"TypeError: x is undefined"}],"isError":true})
        );
    }
    assert_eq!(
        h.request("tools/call", json!({"name":"echo","arguments":{}}))["result"]["content"][0]
            ["text"],
        json!("{}")
    );
}

/// A request's context is cloned for every request, and a call in flight holds it several
/// times (its future's state, its handler's options) for as long as it runs: its rare parts
/// (progress, `_meta`, a retry's inputs) are behind pointers and the client's capabilities
/// are shared with the session. It was 53 words (424 bytes on a 64-bit target) before.
#[test]
fn a_request_context_stays_small() {
    let words = std::mem::size_of::<RequestContext>() / std::mem::size_of::<usize>();
    assert!(words <= 16, "RequestContext is {words} words");
}

/// A parameter of the wrong type is quoted in its error, but at most `MAX_ECHO_CHARS`
/// characters of it: a 1 MB value of the wrong type was quoted whole (the answer larger than
/// the request, its quotes escaped). Each time the next request is served.
#[test]
fn wrong_values_are_quoted_shortened_and_the_session_goes_on() {
    use modelcontext_polyfill::server::limits::MAX_ECHO_CHARS;
    let big = json!((0..90_000).map(|i| format!("k{i:06}")).collect::<Vec<_>>());
    let (handshake, stateless) = (Harness::new(), Harness::new());
    for h in [&handshake, &stateless] {
        h.server.register_tool(echo()).unwrap();
        h.server
            .register_prompt(modelcontext_polyfill::server::PromptDef::new(
                "p",
                |_a: modelcontext_polyfill::collections::VecMap<String, String>, _c| async {
                    Ok::<_, HandlerError>(json!("hi"))
                },
            ))
            .unwrap();
    }
    handshake.initialize("2025-11-25");
    handshake.take();
    for (h, method, params) in [
        (&handshake, "tools/list", json!({ "cursor": big })),
        (
            &handshake,
            "prompts/get",
            json!({ "name": "p", "arguments": big }),
        ),
        (&handshake, "logging/setLevel", json!({ "level": big })),
        (
            &stateless,
            "subscriptions/listen",
            json!({ "notifications": big }),
        ),
        (
            &stateless,
            "subscriptions/listen",
            json!({ "notifications": { "resourceSubscriptions": [big] } }),
        ),
        (
            &stateless,
            "tools/call",
            json!({ "name": "echo", "requestState": big }),
        ),
    ] {
        let r = if std::ptr::eq(h, &stateless) {
            h.stateless(method, params)
        } else {
            h.request(method, params)
        };
        let said = message(&r);
        assert_eq!(code(&r), -32602, "{method}: {said}");
        assert!(
            said.contains("[\"k000000\",\"k000001\""),
            "{method}: {said}"
        );
        assert!(said.contains("characters left out"), "{method}: {said}");
        assert!(
            said.chars().count() < MAX_ECHO_CHARS + 200,
            "{method}: {said}"
        );
        let next = if std::ptr::eq(h, &stateless) {
            h.stateless("tools/list", json!({}))
        } else {
            h.request("ping", json!({}))
        };
        assert!(next.get("result").is_some(), "{method}: {next}");
    }
}

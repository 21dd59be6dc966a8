//! Tools: registration rules, `tools/list` per version and with pagination, `tools/call`
//! with argument validation, handler failures, output schemas and per-version shaping.
mod support;

use modelcontext_polyfill::schema::JsonSchemaCompiler;
use modelcontext_polyfill::server::{
    CallError, HandlerError, RegistryError, RequestContext, ServerConfig, ToolDef,
};
use modelcontext_polyfill::server::{CancellationToken, SchemaCompiler};
use serde_json::{json, Value};
use support::*;

const ALL: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

fn returning(name: &str, value: Value) -> ToolDef {
    ToolDef::new(
        name,
        format!("Returns a fixed {name}"),
        move |_args: Value, _ctx| {
            let v = value.clone();
            async move { Ok::<_, HandlerError>(v) }
        },
    )
}

fn failing(name: &str, message: &str) -> ToolDef {
    let message = message.to_string();
    ToolDef::new(name, "Always fails", move |_args: Value, _ctx| {
        let m = message.clone();
        async move { Err::<Value, _>(HandlerError::new(m)) }
    })
}

fn echo() -> ToolDef {
    ToolDef::new(
        "echo",
        "Echoes its arguments",
        |args: Value, _ctx| async move { Ok::<_, HandlerError>(args) },
    )
}

/// A harness speaking `version`: initialized for handshake versions; stateless otherwise.
struct Client {
    h: Harness,
    stateless: bool,
}

impl Client {
    fn new(version: &str) -> Client {
        Client::with_harness(Harness::new(), version)
    }

    fn with_harness(h: Harness, version: &str) -> Client {
        let stateless = version == STATELESS;
        if !stateless {
            h.initialize(version);
        }
        h.take();
        Client { h, stateless }
    }

    fn call(&self, method: &str, params: Value) -> Value {
        if self.stateless {
            self.h.stateless(method, params)
        } else {
            self.h.request(method, params)
        }
    }
}

#[test]
fn tool_names_follow_the_webmcp_rule() {
    let h = Harness::new();
    for good in ["a", "a.b-c_9", "UPPER.lower-09_", &"x".repeat(128)] {
        assert_eq!(h.server.register_tool(echo_named(good)), Ok(()), "{good}");
    }
    for bad in [
        "",
        &"y".repeat(129),
        "has space",
        "é",
        "a/b",
        "a:b",
        "tab\t",
        "emoji🙂",
    ] {
        match h.server.register_tool(echo_named(bad)) {
            Err(RegistryError::InvalidName { name, reason }) => {
                assert_eq!(name, bad);
                assert!(!reason.is_empty());
            }
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    assert_eq!(h.server.tools().len(), 4);
}

fn echo_named(name: &str) -> ToolDef {
    let mut t = echo();
    t.name = name.to_string();
    t
}

#[test]
fn duplicates_and_invalid_schemas_are_refused_and_change_nothing() {
    let h = Harness::new();
    h.initialize("2025-11-25");
    h.server.register_tool(echo()).unwrap();
    h.take();
    assert_eq!(
        h.server.register_tool(echo()),
        Err(RegistryError::Duplicate {
            kind: "tool",
            key: "echo".into()
        })
    );
    let e = h
        .server
        .register_tool(echo_named("bad").input_schema(json!({"type": 5})))
        .unwrap_err();
    // The validator's own message, unchanged.
    let expected = JsonSchemaCompiler::new()
        .compile(&json!({"type": 5}))
        .err()
        .expect("the validator refuses it");
    assert_eq!(
        e,
        RegistryError::InvalidSchema {
            which: "inputSchema",
            message: expected
        }
    );
    assert!(e.to_string().starts_with("Invalid inputSchema: "), "{e}");
    let e = h
        .server
        .register_tool(echo_named("bad").input_schema(json!("object")))
        .unwrap_err();
    assert!(
        matches!(
            e,
            RegistryError::InvalidSchema {
                which: "inputSchema",
                ..
            }
        ),
        "{e:?}"
    );
    let e = h
        .server
        .register_tool(echo_named("bad").output_schema(json!({"minimum": "zero"})))
        .unwrap_err();
    assert!(
        matches!(
            e,
            RegistryError::InvalidSchema {
                which: "outputSchema",
                ..
            }
        ),
        "{e:?}"
    );
    // Tool arguments are always objects: a schema that admits none is refused.
    let e = h
        .server
        .register_tool(echo_named("bad").input_schema(json!({"type": "string"})))
        .unwrap_err();
    assert!(
        matches!(
            e,
            RegistryError::InvalidSchema {
                which: "inputSchema",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("object"), "{e}");
    // Nothing was added and no list_changed goes out for refused registrations.
    assert_eq!(h.server.tools().len(), 1);
    assert_eq!(h.take(), Vec::<Value>::new());
}

fn rich_tool() -> ToolDef {
    let mut t = returning("rich", json!({"ok": true}))
        .title("Rich Tool")
        .input_schema(json!({"type":"object","properties":{"q":{"type":"string"}}}))
        .output_schema(
            json!({"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}),
        );
    for (k, v) in [
        ("readOnlyHint", true),
        ("untrustedContentHint", true),
        ("consequentialHint", false),
        ("debugging", true),
        ("destructiveHint", false),
        ("idempotentHint", true),
        ("openWorldHint", false),
    ] {
        t = t.annotation(k, json!(v));
    }
    t.icons = vec![json!({"src": "https://example.com/i.png", "mimeType": "image/png"})];
    t.execution = Some(Box::new(json!({"taskSupport": "forbidden"})));
    t.meta = Some(Box::new(json!({"example.com/k": 1})));
    t
}

#[test]
fn tools_list_is_shaped_for_each_version() {
    for v in ALL {
        let c = Client::new(v);
        c.h.server.register_tool(rich_tool()).unwrap();
        let r = c.call("tools/list", json!({}));
        let t = &r["result"]["tools"][0];
        assert_eq!(t["name"], json!("rich"), "{v}");
        assert_eq!(t["description"], json!("Returns a fixed rich"));
        assert_eq!(
            t["inputSchema"]["properties"]["q"],
            json!({"type":"string"})
        );
        let has = |k: &str| t.get(k).is_some();
        assert_eq!(has("title"), v >= "2025-06-18", "{v} title: {t}");
        assert_eq!(
            has("outputSchema"),
            v >= "2025-06-18",
            "{v} outputSchema: {t}"
        );
        assert_eq!(has("icons"), v >= "2025-11-25", "{v} icons: {t}");
        assert_eq!(has("execution"), v == "2025-11-25", "{v} execution: {t}");
        assert_eq!(has("_meta"), v >= "2025-06-18", "{v} _meta: {t}");
        assert_eq!(
            has("annotations"),
            v >= "2025-03-26",
            "{v} annotations: {t}"
        );
        if v >= "2025-03-26" {
            let a = &t["annotations"];
            for k in [
                "readOnlyHint",
                "untrustedContentHint",
                "debugging",
                "idempotentHint",
            ] {
                assert_eq!(a[k], json!(true), "{v} {k}");
            }
            for k in ["consequentialHint", "destructiveHint", "openWorldHint"] {
                assert_eq!(a[k], json!(false), "{v} {k}");
            }
            // Before titles existed, the title rides in the annotations.
            assert_eq!(a.get("title").is_some(), v == "2025-03-26", "{v}: {a}");
        }
    }
}

#[test]
fn advertised_schemas_are_valid_tool_schemas_in_every_version() {
    for v in ALL {
        let c = Client::new(v);
        let s = &c.h.server;
        // No type: `"type":"object"` is added (arguments are always objects).
        s.register_tool(
            echo_named("a").input_schema(json!({"properties":{"x":{"type":"integer"}}})),
        )
        .unwrap();
        // Boolean subschemas are valid JSON Schema, but older MCP schemas want objects.
        s.register_tool(
            echo_named("b")
                .input_schema(json!({"type":"object","properties":{"x":true,"y":false}})),
        )
        .unwrap();
        // A type list that admits objects.
        s.register_tool(echo_named("c").input_schema(json!({"type":["object","null"]})))
            .unwrap();
        // No input schema at all.
        s.register_tool(echo_named("d")).unwrap();
        // Output schemas without a type, and with a non-object one.
        s.register_tool(
            returning("e", json!({"n":1}))
                .output_schema(json!({"properties":{"n":{"type":"integer"}}})),
        )
        .unwrap();
        s.register_tool(returning("f", json!([1])).output_schema(json!({"type":"array"})))
            .unwrap();
        let r = c.call("tools/list", json!({}));
        let tools = r["result"]["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 6, "{v}");
        for t in tools {
            assert_eq!(t["inputSchema"]["type"], json!("object"), "{v}: {t}");
        }
        assert_eq!(
            tools[0]["inputSchema"]["properties"]["x"],
            json!({"type":"integer"})
        );
        assert_eq!(
            tools[3]["inputSchema"],
            json!({"type":"object","properties":{}})
        );
        if ("2025-06-18"..STATELESS).contains(&v) {
            assert_eq!(tools[4]["outputSchema"]["type"], json!("object"), "{v}");
        }
        if v == STATELESS {
            // 2026-07-28 takes any output schema: advertised as registered.
            assert_eq!(
                tools[4]["outputSchema"],
                json!({"properties":{"n":{"type":"integer"}}})
            );
            assert_eq!(tools[5]["outputSchema"], json!({"type":"array"}));
        }
        // The validator still uses the schema as registered.
        let bad = c.call("tools/call", json!({"name":"b","arguments":{"y":1}}));
        if v >= "2025-11-25" {
            assert_eq!(bad["result"]["isError"], json!(true), "{v}: {bad}");
        } else {
            assert_eq!(code(&bad), -32602, "{v}: {bad}");
        }
        let ok = c.call("tools/call", json!({"name":"b","arguments":{"x":[1]}}));
        assert!(ok["result"].get("isError").is_none(), "{v}: {ok}");
    }
}

#[test]
fn tools_list_paginates_with_cursors() {
    for v in ["2024-11-05", "2025-11-25", STATELESS] {
        let config = ServerConfig {
            page_size: 2,
            ..ServerConfig::default()
        };
        let c = Client::with_harness(Harness::with_config(config), v);
        for n in ["e", "c", "a", "d", "b"] {
            c.h.server.register_tool(echo_named(n)).unwrap();
        }
        let mut names = Vec::new();
        let mut cursor: Option<Value> = None;
        let mut pages = 0;
        loop {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let r = c.call("tools/list", params);
            pages += 1;
            let tools = r["result"]["tools"].as_array().unwrap();
            assert!(tools.len() <= 2);
            names.extend(
                tools
                    .iter()
                    .map(|t| t["name"].as_str().unwrap().to_string()),
            );
            match r["result"].get("nextCursor") {
                Some(next) => cursor = Some(next.clone()),
                None => break,
            }
        }
        assert_eq!(names, ["a", "b", "c", "d", "e"], "{v}");
        assert_eq!(pages, 3);
        for bad in [json!("zz"), json!(""), json!("abc"), json!(7), json!({})] {
            let r = c.call("tools/list", json!({"cursor": bad}));
            assert_eq!(code(&r), -32602, "{v} {bad}");
            assert!(message(&r).to_lowercase().contains("cursor"), "{r}");
        }
    }
}

/// Walks through the pages of `tools/list` with registrations and removals made at random
/// between the pages, page sizes of 1 to 4, every version: each walk returns names in strictly
/// increasing order, never one that was not registered when its page was made, every tool
/// registered for the whole walk exactly once, and the page sizes asked for.
#[test]
fn paging_through_random_changes_misses_and_repeats_nothing() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let alphabet = ["a", "b", "A", "Z", "0", "9", "_", "-", "."];
    for v in ["2024-11-05", "2025-11-25", STATELESS] {
        for walk in 0..60 {
            let page_size = 1 + (walk % 4) as usize;
            let config = ServerConfig {
                page_size,
                ..ServerConfig::default()
            };
            let c = Client::with_harness(Harness::with_config(config), v);
            let mut registered: std::collections::BTreeSet<String> = Default::default();
            let name = |rng: &mut Rng| {
                (0..1 + rng.below(3))
                    .map(|_| *rng.pick(&alphabet))
                    .collect::<String>()
            };
            for _ in 0..rng.below(12) {
                let n = name(&mut rng);
                if registered.insert(n.clone()) {
                    c.h.server.register_tool(echo_named(&n)).unwrap();
                }
            }
            // The names registered from the walk's start to its end.
            let mut throughout = registered.clone();
            let mut seen: Vec<String> = Vec::new();
            let mut cursor: Option<Value> = None;
            loop {
                let params = match &cursor {
                    Some(c) => json!({ "cursor": c }),
                    None => json!({}),
                };
                let r = c.call("tools/list", params);
                let page: Vec<String> = r["result"]["tools"]
                    .as_array()
                    .unwrap_or_else(|| panic!("{v}: {r}"))
                    .iter()
                    .map(|t| t["name"].as_str().unwrap().to_owned())
                    .collect();
                assert!(page.len() <= page_size, "{v}: {page:?}");
                for n in &page {
                    assert!(registered.contains(n), "{v}: {n} is not registered");
                    if let Some(last) = seen.last() {
                        assert!(last < n, "{v}: {n} after {last} ({seen:?})");
                    }
                    seen.push(n.clone());
                }
                match r["result"].get("nextCursor") {
                    Some(next) => {
                        assert_eq!(page.len(), page_size, "{v}: a short page with a next one");
                        cursor = Some(next.clone());
                    }
                    None => break,
                }
                // Between two pages: a removal, a registration, both or neither.
                if rng.chance(50) && !registered.is_empty() {
                    let gone = registered
                        .iter()
                        .nth(rng.below(registered.len()))
                        .unwrap()
                        .clone();
                    assert!(c.h.server.unregister_tool(&gone));
                    registered.remove(&gone);
                    throughout.remove(&gone);
                }
                if rng.chance(50) {
                    let n = name(&mut rng);
                    if registered.insert(n.clone()) {
                        c.h.server.register_tool(echo_named(&n)).unwrap();
                    }
                }
            }
            for n in &throughout {
                assert!(
                    seen.contains(n),
                    "{v}: {n} was registered throughout and missed"
                );
            }
        }
    }
}

/// `tools/list` is served from tools shaped once per version: two sessions on different
/// versions each see their own shape, and every registration change shows in the next list
/// (also mid-pagination, where the cursor still finds its place).
#[test]
fn tools_list_follows_changes_and_versions() {
    let config = ServerConfig {
        page_size: 2,
        ..ServerConfig::default()
    };
    let new = Client::with_harness(Harness::with_config(config), "2025-11-25");
    let old = Client::with_harness(new.h.another_session(), "2025-03-26");
    new.h
        .server
        .register_tool(echo_named("b").title("Bee"))
        .unwrap();
    let names = |c: &Client, params: Value| -> (Vec<String>, Option<Value>) {
        let r = c.call("tools/list", params);
        let tools = r["result"]["tools"].as_array().expect("tools").clone();
        (
            tools
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_string())
                .collect(),
            r["result"].get("nextCursor").cloned(),
        )
    };
    for _ in 0..2 {
        let r = new.call("tools/list", json!({}));
        assert_eq!(r["result"]["tools"][0]["title"], "Bee", "{r}");
        let r = old.call("tools/list", json!({}));
        let t = &r["result"]["tools"][0];
        assert!(t.get("title").is_none(), "2025-03-26 has no title: {r}");
        assert_eq!(t["annotations"]["title"], "Bee", "{r}");
    }
    new.h.server.register_tool(echo_named("a")).unwrap();
    new.h.server.register_tool(echo_named("d")).unwrap();
    let (first, cursor) = names(&new, json!({}));
    assert_eq!(first, ["a", "b"]);
    assert_eq!(names(&old, json!({})).0, ["a", "b"]);
    // Between pages: "b" goes, "c" comes; the cursor (after "b") still finds its place.
    assert!(new.h.server.unregister_tool("b"));
    new.h.server.register_tool(echo_named("c")).unwrap();
    let (second, _) = names(&new, json!({ "cursor": cursor.expect("a next page") }));
    assert_eq!(second, ["c", "d"]);
    assert_eq!(names(&old, json!({})).0, ["a", "c"]);
    assert_eq!(new.h.server.clear_tools(), 3);
    assert_eq!(names(&new, json!({})), (vec![], None));
}

/// The whole list in one page is answered from text serialized once per version; it must say
/// exactly what the list built page by page says, for every version, across changes.
#[test]
fn the_whole_list_answer_equals_the_list_built_page_by_page() {
    let whole = Harness::new();
    let paged = Harness::with_config(ServerConfig {
        page_size: 1,
        ..ServerConfig::default()
    });
    let all_pages = |c: &Client| -> Vec<Value> {
        let mut tools = Vec::new();
        let mut params = json!({});
        loop {
            let r = c.call("tools/list", params);
            tools.extend(
                r["result"]["tools"]
                    .as_array()
                    .expect("tools")
                    .iter()
                    .cloned(),
            );
            match r["result"].get("nextCursor") {
                Some(next) => params = json!({ "cursor": next }),
                None => return tools,
            }
        }
    };
    for v in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let w = Client::with_harness(whole.another_session(), v);
        let p = Client::with_harness(paged.another_session(), v);
        for step in 0..3 {
            for h in [&whole, &paged] {
                match step {
                    0 => h
                        .server
                        .register_tool(echo_named("b").title("Bee"))
                        .unwrap(),
                    1 => h.server.register_tool(echo_named("a")).unwrap(),
                    _ => assert!(h.server.unregister_tool("b")),
                }
            }
            // Twice: the second answer comes from the cached text.
            for _ in 0..2 {
                let r = w.call("tools/list", json!({}));
                assert!(r["result"].get("nextCursor").is_none(), "{v}: {r}");
                assert_eq!(
                    r["result"]["tools"],
                    Value::Array(all_pages(&p)),
                    "{v} step {step}"
                );
            }
        }
        for h in [&whole, &paged] {
            h.server.clear_tools();
        }
    }
}

#[test]
fn tool_values_become_call_tool_results() {
    let h = Harness::new();
    h.initialize("2025-11-25");
    let cases = [
        (
            json!("plain"),
            json!({"content":[{"type":"text","text":"plain"}]}),
        ),
        (
            json!({"a": 1}),
            json!({"content":[{"type":"text","text":"{\"a\":1}"}],"structuredContent":{"a":1}}),
        ),
        (json!(42), json!({"content":[{"type":"text","text":"42"}]})),
        (json!(null), json!({"content":[]})),
        (
            json!([1, "x"]),
            json!({"content":[{"type":"text","text":"[1,\"x\"]"}]}),
        ),
        (
            json!({"content":[{"type":"text","text":"t"}],"isError":true}),
            json!({"content":[{"type":"text","text":"t"}],"isError":true}),
        ),
        (
            json!({"content":[{"type":"bogus"}, {"type":"text"}]}),
            json!({"content":[{"type":"text","text":"{\"type\":\"bogus\"}"},{"type":"text","text":"{\"type\":\"text\"}"}]}),
        ),
    ];
    for (i, (value, expected)) in cases.into_iter().enumerate() {
        let name = format!("t{i}");
        h.server
            .register_tool(returning(&name, value.clone()))
            .unwrap();
        let r = h.request("tools/call", json!({"name": name}));
        assert_eq!(r["result"], expected, "{value}");
    }
}

/// Pending when first polled (asking to be polled again), ready when polled again.
struct YieldOnce(bool);

impl std::future::Future for YieldOnce {
    type Output = ();
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

/// A call whose handler is done when first polled is answered while its request is received,
/// with no turn of the host's executor; one whose handler waits is answered once it has run,
/// and both answers are what they would be.
#[test]
fn a_call_done_at_once_is_answered_as_it_is_received() {
    let h = Harness::new();
    h.initialize("2025-11-25");
    h.take();
    h.server.register_tool(echo()).unwrap();
    h.server
        .register_tool(ToolDef::new(
            "later",
            "Answers after a turn",
            |_: Value, _ctx| async move {
                YieldOnce(false).await;
                Ok::<_, HandlerError>(json!("later"))
            },
        ))
        .unwrap();
    h.take(); // (the list_changed notification)
    h.send(json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}));
    assert_eq!(h.emitted(), 1, "answered before the executor ran");
    h.send(json!({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"later"}}));
    assert_eq!(h.emitted(), 1, "a handler that waits is not answered yet");
    let msgs = h.take();
    assert_eq!(msgs.len(), 2);
    assert_eq!(msgs[0]["id"], 7);
    assert_eq!(msgs[0]["result"]["structuredContent"], json!({"a": 1}));
    assert_eq!(msgs[1]["id"], 8);
    assert_eq!(first_text(&msgs[1]), "later");
    // The session still answers the next request.
    assert_eq!(h.request("ping", json!({}))["result"], json!({}));
}

#[test]
fn invalid_arguments_name_path_and_keyword_in_each_version() {
    for v in ALL {
        let c = Client::new(v);
        c.h.server
            .register_tool(echo().input_schema(json!({
                "type": "object",
                "properties": {"n": {"type": "integer", "minimum": 1}, "s": {"type": "string"}},
                "required": ["s"],
                "additionalProperties": false
            })))
            .unwrap();
        let r = c.call(
            "tools/call",
            json!({"name":"echo","arguments":{"n":0,"s":"x"}}),
        );
        if v >= "2025-11-25" {
            assert_eq!(r["result"]["isError"], json!(true), "{v}: {r}");
            let text = first_text(&r);
            assert!(
                text.contains("/n") && text.contains("minimum"),
                "{v}: {text}"
            );
            assert!(text.contains("echo"), "{text}");
        } else {
            assert_eq!(code(&r), -32602, "{v}: {r}");
            let vs = r["error"]["data"]["violations"].as_array().unwrap();
            assert_eq!(vs.len(), 1, "{r}");
            assert_eq!(vs[0]["instancePath"], json!("/n"));
            assert_eq!(vs[0]["keyword"], json!("minimum"));
            assert!(vs[0]["message"].as_str().unwrap().contains('0'));
        }
        let r = c.call("tools/call", json!({"name":"echo","arguments":{"extra":1}}));
        if v >= "2025-11-25" {
            let text = first_text(&r);
            assert!(
                text.contains("required") && text.contains("additionalProperties"),
                "{text}"
            );
        } else {
            let kws: Vec<&str> = r["error"]["data"]["violations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["keyword"].as_str().unwrap())
                .collect();
            assert!(
                kws.contains(&"required") && kws.contains(&"additionalProperties"),
                "{kws:?}"
            );
        }
        // Arguments that are not an object are a protocol error in every version.
        let r = c.call("tools/call", json!({"name":"echo","arguments":[1]}));
        assert_eq!(code(&r), -32602, "{v}");
        // Omitted and null arguments are `{}`.
        let r = c.call("tools/call", json!({"name":"echo"}));
        let said = if v >= "2025-11-25" {
            first_text(&r)
        } else {
            message(&r)
        };
        assert!(said.contains("\"s\" is a required property"), "{v}: {r}");
        let r = c.call("tools/call", json!({"name":"echo","arguments":{"s":"ok"}}));
        assert!(r["result"].get("isError").is_none(), "{v}: {r}");
    }
}

#[test]
fn unknown_tools_and_failing_handlers() {
    for v in ALL {
        let c = Client::new(v);
        c.h.server
            .register_tool(failing("boom", "it broke: disk full"))
            .unwrap();
        let r = c.call("tools/call", json!({"name":"nope"}));
        assert_eq!(code(&r), -32602, "{v}");
        assert_eq!(r["error"]["data"], json!({"name":"nope"}));
        assert!(message(&r).contains("nope"));
        let r = c.call("tools/call", json!({"name":"boom"}));
        assert_eq!(r["result"]["isError"], json!(true), "{v}");
        assert_eq!(first_text(&r), "it broke: disk full");
        // Unregistered tools are unknown at once.
        assert!(c.h.server.unregister_tool("boom"));
        assert!(!c.h.server.unregister_tool("boom"));
        assert_eq!(code(&c.call("tools/call", json!({"name":"boom"}))), -32602);
    }
}

#[test]
fn structured_content_is_checked_against_the_output_schema() {
    let schema = json!({"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]});
    for v in ALL {
        let c = Client::new(v);
        let s = &c.h.server;
        s.register_tool(returning("good", json!({"n": 3})).output_schema(schema.clone()))
            .unwrap();
        s.register_tool(returning("bad", json!({"n": "three"})).output_schema(schema.clone()))
            .unwrap();
        s.register_tool(returning("none", json!("just text")).output_schema(schema.clone()))
            .unwrap();
        s.register_tool(
            returning(
                "full",
                json!({"content":[{"type":"text","text":"hi"}],"structuredContent":{"n":1}}),
            )
            .output_schema(schema.clone()),
        )
        .unwrap();
        s.register_tool(
            returning(
                "err",
                json!({"content":[{"type":"text","text":"failed"}],"isError":true}),
            )
            .output_schema(schema.clone()),
        )
        .unwrap();
        let good = c.call("tools/call", json!({"name":"good"}));
        assert!(good["result"].get("isError").is_none(), "{v}: {good}");
        assert_eq!(
            good["result"].get("structuredContent").is_some(),
            v >= "2025-06-18",
            "{v}: {good}"
        );
        assert_eq!(first_text(&good), "{\"n\":3}", "{v}");
        let bad = c.call("tools/call", json!({"name":"bad"}));
        assert_eq!(bad["result"]["isError"], json!(true), "{v}");
        let text = first_text(&bad);
        assert!(
            text.contains("outputSchema") && text.contains("/n") && text.contains("type"),
            "{text}"
        );
        let none = c.call("tools/call", json!({"name":"none"}));
        assert_eq!(none["result"]["isError"], json!(true), "{v}");
        assert!(first_text(&none).contains("no structuredContent"), "{none}");
        let full = c.call("tools/call", json!({"name":"full"}));
        assert_eq!(first_text(&full), "hi");
        assert!(full["result"].get("isError").is_none());
        // An error result is not held to the output schema.
        let err = c.call("tools/call", json!({"name":"err"}));
        assert_eq!(err["result"]["isError"], json!(true));
        assert_eq!(first_text(&err), "failed");
    }
}

#[test]
fn content_is_shaped_for_each_version() {
    let blocks = json!([
        {"type":"text","text":"t","_meta":{"k":1}},
        {"type":"image","data":"aGk=","mimeType":"image/png"},
        {"type":"audio","data":"aGk=","mimeType":"audio/wav"},
        {"type":"resource_link","uri":"app://doc/1","name":"doc one"},
        {"type":"resource","resource":{"uri":"app://r","text":"inline"}},
    ]);
    for v in ALL {
        let c = Client::new(v);
        c.h.server
            .register_tool(returning(
                "mixed",
                json!({"content": blocks, "structuredContent": {"a": 1}}),
            ))
            .unwrap();
        let r = c.call("tools/call", json!({"name":"mixed"}));
        let content = r["result"]["content"].as_array().unwrap();
        assert_eq!(content.len(), 5);
        let types: Vec<&str> = content
            .iter()
            .map(|b| b["type"].as_str().unwrap())
            .collect();
        let audio = if v >= "2025-03-26" { "audio" } else { "text" };
        let link = if v >= "2025-06-18" {
            "resource_link"
        } else {
            "text"
        };
        assert_eq!(types, ["text", "image", audio, link, "resource"], "{v}");
        if v < "2025-06-18" {
            assert_eq!(content[3]["text"], json!("Resource: doc one (app://doc/1)"));
            assert!(content[0].get("_meta").is_none(), "{v}");
        } else {
            assert_eq!(content[0]["_meta"], json!({"k": 1}), "{v}");
            assert_eq!(content[3]["uri"], json!("app://doc/1"), "{v}");
        }
        if v < "2025-03-26" {
            assert!(content[2]["text"].as_str().unwrap().contains("audio/wav"));
        }
        assert_eq!(
            r["result"].get("structuredContent").is_some(),
            v >= "2025-06-18",
            "{v}"
        );
    }
}

#[test]
fn structured_content_that_is_not_an_object_is_dropped_where_versions_require_objects() {
    for v in ALL {
        let c = Client::new(v);
        c.h.server
            .register_tool(returning(
                "arr",
                json!({"content":[{"type":"text","text":"[1,2]"}],"structuredContent":[1,2]}),
            ))
            .unwrap();
        c.h.server
            .register_tool(returning("typed", json!([1, 2])).output_schema(json!({"type":"array"})))
            .unwrap();
        let r = c.call("tools/call", json!({"name":"arr"}));
        assert_eq!(first_text(&r), "[1,2]");
        let kept = r["result"].get("structuredContent").is_some();
        assert_eq!(kept, v == STATELESS, "{v}: {r}");
        let r = c.call("tools/list", json!({}));
        let typed = &r["result"]["tools"][1];
        assert_eq!(typed["name"], json!("typed"));
        // A non-object output schema cannot be expressed before 2026-07-28.
        assert_eq!(
            typed.get("outputSchema").is_some(),
            v == STATELESS,
            "{v}: {typed}"
        );
    }
}

#[test]
fn direct_calls_validate_like_tools_call() {
    let h = Harness::new();
    h.server
        .register_tool(echo().input_schema(json!({"type":"object","required":["a"]})))
        .unwrap();
    let ctx = || RequestContext::detached(CancellationToken::new());
    assert_eq!(
        h.server.call_tool("nope", json!({}), ctx()).err(),
        Some(CallError::UnknownTool("nope".into()))
    );
    assert_eq!(
        h.server.call_tool("echo", json!(3), ctx()).err(),
        Some(CallError::NotAnObject("3".into()))
    );
    match h.server.call_tool("echo", json!({}), ctx()).err() {
        Some(CallError::InvalidArguments { tool, violations }) => {
            assert_eq!(tool, "echo");
            assert_eq!(violations[0].keyword, "required");
        }
        other => panic!("{other:?}"),
    }
    let fut = h.server.call_tool("echo", json!({"a": 1}), ctx()).unwrap();
    let r = h.ex.block_on(fut);
    assert_eq!(Value::Object(r)["structuredContent"], json!({"a": 1}));
}

/// The answer to invalid arguments is bounded whatever an agent sends: at most
/// `MAX_VIOLATIONS` violations, each quoting at most `MAX_ECHO_CHARS` characters of the
/// instance, in the text and in the data; then a good call is served.
#[test]
fn invalid_argument_reports_are_bounded_whatever_the_arguments() {
    use modelcontext_polyfill::server::limits::MAX_ECHO_CHARS;
    use modelcontext_polyfill::server::validator::MAX_VIOLATIONS;
    let schema = json!({
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"type": "integer"}},
            "name": {"type": "string", "maxLength": 8},
            "tags": {"type": "object", "additionalProperties": {"type": "integer"}}
        }
    });
    let more = format!("the first {MAX_VIOLATIONS} violations found; there may be more");
    for v in ALL {
        let c = Client::new(v);
        c.h.server
            .register_tool(echo().input_schema(schema.clone()))
            .unwrap();
        // What the model reads and what the data lists, whichever the version carries.
        let said = |r: &Value| -> (String, Vec<Value>) {
            if v >= "2025-11-25" {
                assert_eq!(r["result"]["isError"], json!(true), "{v}");
                (first_text(r), Vec::new())
            } else {
                assert_eq!(code(r), -32602, "{v}");
                let list = r["error"]["data"]["violations"].as_array().unwrap().clone();
                (message(r), list)
            }
        };
        // 90,000 wrong items (540 KB; refused arguments are read into at most 100,000 values
        // for their report): the first MAX_VIOLATIONS, in order.
        let wrong = vec![json!("x"); 90_000];
        let r = c.call(
            "tools/call",
            json!({"name": "echo", "arguments": {"items": wrong}}),
        );
        let size = r.to_string().len();
        assert!(size < 16 * 1024, "{v}: {size} bytes");
        let (text, list) = said(&r);
        assert!(text.contains(&more), "{v}: {text}");
        assert_eq!(text.matches("[keyword: type]").count(), MAX_VIOLATIONS);
        assert!(
            text.contains("/items/0: ")
                && text.contains(&format!("/items/{}: ", MAX_VIOLATIONS - 1))
        );
        assert!(
            !text.contains(&format!("/items/{}: ", MAX_VIOLATIONS)),
            "{text}"
        );
        if v < "2025-11-25" {
            assert_eq!(list.len(), MAX_VIOLATIONS, "{v}");
            assert_eq!(list[1]["instancePath"], json!("/items/1"));
        }
        // One short of the bound: every violation, no word of more.
        let r = c.call(
            "tools/call",
            json!({"name": "echo", "arguments": {"items": vec![json!("x"); MAX_VIOLATIONS - 1]}}),
        );
        let (text, _) = said(&r);
        assert_eq!(text.matches("[keyword: type]").count(), MAX_VIOLATIONS - 1);
        assert!(!text.contains("there may be more"), "{v}: {text}");
        // A 1,000,000-character string and a 500,000-character key: the message and the
        // path keep their ends and say how much they left out.
        let long = "é".repeat(1_000_000);
        let key = "k".repeat(500_000);
        let r = c.call(
            "tools/call",
            json!({"name": "echo", "arguments": {"name": long, "tags": {key.clone(): "x"}}}),
        );
        let size = r.to_string().len();
        assert!(size < 4 * 1024, "{v}: {size} bytes");
        let (text, list) = said(&r);
        assert!(text.contains("is longer than 8 characters"), "{v}: {text}");
        assert!(text.contains("999830 characters left out"), "{v}: {text}");
        assert!(text.contains("/tags/kkk") && text.contains("499806 characters left out"));
        for x in &list {
            for field in ["instancePath", "message"] {
                let n = x[field].as_str().unwrap().chars().count();
                assert!(n <= MAX_ECHO_CHARS, "{v}: {field} of {n} characters");
            }
        }
        // The session still serves a good call.
        let r = c.call(
            "tools/call",
            json!({"name": "echo", "arguments": {"items": [1], "name": "ok"}}),
        );
        assert!(r["result"].get("isError").is_none(), "{v}: {r}");
        assert_eq!(
            r["result"]["content"][0]["text"],
            json!("{\"items\":[1],\"name\":\"ok\"}")
        );
    }
}

/// A tool's structured result that fails its outputSchema many times over is reported in
/// bounded text too.
#[test]
fn output_schema_reports_are_bounded() {
    use modelcontext_polyfill::server::validator::MAX_VIOLATIONS;
    let c = Client::new("2025-11-25");
    let schema =
        json!({"type":"object","properties":{"n":{"type":"array","items":{"type":"integer"}}}});
    c.h.server
        .register_tool(
            returning("bad", json!({"n": vec![json!("three"); 100_000]})).output_schema(schema),
        )
        .unwrap();
    let r = c.call("tools/call", json!({"name":"bad"}));
    assert_eq!(r["result"]["isError"], json!(true));
    let text = first_text(&r);
    assert!(text.len() < 8 * 1024, "{} bytes", text.len());
    assert_eq!(text.matches("[keyword: type]").count(), MAX_VIOLATIONS);
    assert!(text.contains("there may be more"), "{text}");
    assert!(c.call("ping", json!({}))["result"].is_object());
}

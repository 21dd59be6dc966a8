//! Strings a handler holds outside the engine (`server::held`): a `tools/call` answered
//! directly, a `resources/read` and a `prompts/get` carry the string itself where the handler's
//! result had its marker, in every version; anywhere else holding is refused; what no answer
//! carries is freed.
mod support;

use modelcontext_polyfill::collections::VecMap;
use modelcontext_polyfill::schema::JsonSchemaCompiler;
use modelcontext_polyfill::server::plain_schema::PlainSchema;
use modelcontext_polyfill::server::{
    CancellationToken, CompiledSchema, HandlerError, HeldText, PromptDef, RequestContext,
    ResourceDef, SchemaCompiler, SchemaViolation, ServerConfig, TaskSupport, ToolDef,
};
use serde_json::{json, Value};
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use support::{Harness, STATELESS};

const ALL: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    STATELESS,
];

/// A held text that counts when it is dropped.
struct Text {
    text: String,
    dropped: Rc<Cell<usize>>,
}

impl HeldText for Text {
    fn text(&self) -> String {
        self.text.clone()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for Text {
    fn drop(&mut self) {
        self.dropped.set(self.dropped.get() + 1);
    }
}

/// What the tool saw and what it let go.
#[derive(Clone, Default)]
struct Seen {
    held: Rc<Cell<usize>>,
    refused: Rc<Cell<usize>>,
    dropped: Rc<Cell<usize>>,
}

/// A tool whose result is `text`, held when the context allows it (the marker returned), or
/// else returned as it is. When `gate` is given, it waits for it after holding.
fn holding(name: &str, text: &str, seen: &Seen, gate: Option<CancellationToken>) -> ToolDef {
    let (text, seen) = (text.to_string(), seen.clone());
    ToolDef::new(
        name,
        "Holds its result",
        move |_a: Value, ctx: RequestContext| {
            let value = hold(&ctx, &text, &seen);
            let gate = gate.clone();
            async move {
                if let Some(g) = gate {
                    g.cancelled().await;
                }
                Ok::<_, HandlerError>(value)
            }
        },
    )
}

/// Holds `text` from `ctx` when it may (counted in `seen`): the handler's value, the marker
/// or the text itself.
fn hold(ctx: &RequestContext, text: &str, seen: &Seen) -> Value {
    let text: Box<dyn HeldText> = Box::new(Text {
        text: text.to_string(),
        dropped: seen.dropped.clone(),
    });
    let held = match ctx.holder() {
        Some(h) => h.hold(text),
        None => Err(text),
    };
    match held {
        Ok(marker) => {
            seen.held.set(seen.held.get() + 1);
            Value::String(marker)
        }
        Err(t) => {
            seen.refused.set(seen.refused.get() + 1);
            Value::String(t.text())
        }
    }
}

fn call(h: &Harness, version: &str, name: &str) -> Value {
    let params = json!({ "name": name, "arguments": {} });
    if version == STATELESS {
        h.stateless("tools/call", params)
    } else {
        h.request("tools/call", params)
    }
}

/// A session's first request in `version` (after the handshake, which 2026-07-28 has none of).
fn first(h: &Harness, version: &str, method: &str, params: Value) -> Value {
    if version == STATELESS {
        h.stateless(method, params)
    } else {
        h.initialize(version);
        h.request(method, params)
    }
}

/// The marker's text never reaches a client.
fn assert_no_marker(v: &Value) {
    assert!(
        !v.to_string().contains('\u{FDD0}'),
        "a marker went out: {v}"
    );
}

#[test]
fn a_held_string_is_answered_in_place_of_its_marker_in_every_version() {
    let text = "a page's text \"quoted\", \u{e9}, \u{1F600} ".repeat(100);
    for v in ALL {
        let h = Harness::new();
        let seen = Seen::default();
        h.server
            .register_tool(holding("page", &text, &seen, None))
            .unwrap();
        if v != STATELESS {
            h.initialize(v);
        }
        let r = call(&h, v, "page");
        assert_eq!(r["result"]["content"][0]["text"], json!(text), "{v}: {r}");
        assert_eq!(r["result"]["content"].as_array().map(Vec::len), Some(1));
        assert_no_marker(&r);
        assert_eq!((seen.held.get(), seen.refused.get()), (1, 0), "{v}");
        assert_eq!(
            seen.dropped.get(),
            1,
            "{v}: freed once the answer is written"
        );
        // The next call holds again, from the first marker on.
        let r = call(&h, v, "page");
        assert_eq!(r["result"]["content"][0]["text"], json!(text), "{v}");
        assert_eq!(seen.held.get(), 2);
    }
}

#[test]
fn a_resource_read_answers_with_the_held_text_in_every_version() {
    let text = "the page's text, \u{e9} ".repeat(100);
    for v in ALL {
        let h = Harness::new();
        let seen = Seen::default();
        let (t, s) = (text.clone(), seen.clone());
        let read = move |_u: String, _v: VecMap<String, String>, ctx: RequestContext| {
            let value = hold(&ctx, &t, &s);
            async move { Ok::<_, HandlerError>(value) }
        };
        h.server
            .register_resource(ResourceDef::new("app://page", "page", read).mime_type("text/plain"))
            .unwrap();
        let r = first(&h, v, "resources/read", json!({ "uri": "app://page" }));
        assert_eq!(
            r["result"]["contents"],
            json!([{ "uri": "app://page", "mimeType": "text/plain", "text": text }]),
            "{v}: {r}"
        );
        assert_no_marker(&r);
        assert_eq!((seen.held.get(), seen.dropped.get()), (1, 1), "{v}");
    }
}

#[test]
fn a_prompt_answers_with_the_held_texts_in_every_version() {
    let text = "the page's article, \u{e9} ".repeat(100);
    // What the prompt returns, each long text held: a string (one user message), a message
    // whose content is a string, and messages with a text block and an embedded resource.
    let shapes: [fn(&[Value]) -> Value; 3] = [
        |m| m[0].clone(),
        |m| json!([{ "role": "user", "content": m[0] }]),
        |m| {
            json!({ "description": "d", "messages": [
                { "role": "user", "content": { "type": "text", "text": m[0] } },
                { "role": "assistant", "content": { "type": "resource", "resource": { "uri": "app://a", "text": m[1] } } },
            ] })
        },
    ];
    let expected = [
        json!([{ "role": "user", "content": { "type": "text", "text": text } }]),
        json!([{ "role": "user", "content": { "type": "text", "text": text } }]),
        json!([
            { "role": "user", "content": { "type": "text", "text": text } },
            { "role": "assistant", "content": { "type": "resource", "resource": { "uri": "app://a", "text": text } } },
        ]),
    ];
    for v in ALL {
        for (shape, expected) in shapes.iter().zip(&expected) {
            let h = Harness::new();
            let seen = Seen::default();
            let (t, s, shape) = (text.clone(), seen.clone(), *shape);
            let get = move |_a: VecMap<String, String>, ctx: RequestContext| {
                let held = [hold(&ctx, &t, &s), hold(&ctx, &t, &s)];
                let value = shape(&held);
                async move { Ok::<_, HandlerError>(value) }
            };
            h.server
                .register_prompt(PromptDef::new("page", get))
                .unwrap();
            let r = first(&h, v, "prompts/get", json!({ "name": "page" }));
            assert_eq!(r["result"]["messages"], *expected, "{v}: {r}");
            assert_no_marker(&r);
            // Two held each time; what the answer does not carry is freed with the rest.
            assert_eq!((seen.held.get(), seen.refused.get()), (2, 0), "{v}");
            assert_eq!(seen.dropped.get(), 2, "{v}");
            // The server still answers.
            let p = if v == STATELESS {
                h.stateless("tools/list", json!({}))
            } else {
                h.request("ping", json!({}))
            };
            assert!(p.get("result").is_some(), "{v}: {p}");
        }
    }
}

#[test]
fn a_client_id_equal_to_a_marker_stays_itself() {
    let h = Harness::new();
    let seen = Seen::default();
    h.server
        .register_tool(holding("page", "the text", &seen, None))
        .unwrap();
    h.initialize("2025-11-25");
    let id = "\u{FDD0}held 0";
    let out = h.send_request(json!(id), "tools/call", json!({ "name": "page" }));
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], json!(id));
    assert_eq!(out[0]["result"]["content"][0]["text"], json!("the text"));
    assert_eq!(seen.held.get(), 1);
}

#[test]
fn holding_is_refused_outside_a_tools_call_answered_directly() {
    let h = Harness::new();
    let seen = Seen::default();
    h.server
        .register_tool(holding("page", "the text", &seen, None).task_support(TaskSupport::Optional))
        .unwrap();
    // The page's own call (executeTool): no session, no answer to carry it.
    let ran = h
        .server
        .call_tool(
            "page",
            json!({}),
            RequestContext::detached(CancellationToken::new()),
        )
        .unwrap();
    let result = h.ex.block_on(ran);
    assert_eq!(result["content"][0]["text"], json!("the text"));
    assert_eq!((seen.held.get(), seen.refused.get()), (0, 1));
    // A call that may become a task: its result may be kept and answered later.
    let caps = json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } });
    let r = h.request(
        "tools/call",
        json!({ "name": "page", "arguments": {}, "_meta": Harness::stateless_meta(caps) }),
    );
    assert_no_marker(&r);
    assert_eq!((seen.held.get(), seen.refused.get()), (0, 2), "{r}");
    // Then a direct call holds.
    assert_eq!(
        call(&h, STATELESS, "page")["result"]["content"][0]["text"],
        json!("the text")
    );
    assert_eq!(seen.held.get(), 1);
}

#[test]
fn what_no_answer_carries_is_freed_and_the_next_call_is_served() {
    let h = Harness::new();
    let seen = Seen::default();
    // A string never satisfies an output schema: the answer is the error, not the text.
    h.server
        .register_tool(
            holding("typed", "the text", &seen, None).output_schema(json!({ "type": "object" })),
        )
        .unwrap();
    let gate = CancellationToken::new();
    h.server
        .register_tool(holding("slow", "the text", &seen, Some(gate.clone())))
        .unwrap();
    h.server
        .register_tool(holding("page", "the text", &seen, None))
        .unwrap();
    h.initialize("2025-11-25");
    let r = call(&h, "2025-11-25", "typed");
    assert_eq!(r["result"]["isError"], json!(true), "{r}");
    assert_no_marker(&r);
    assert_eq!((seen.held.get(), seen.dropped.get()), (1, 1));
    // Cancelled after holding: no answer, and what it held goes with it.
    let out = h.send_request(json!(77), "tools/call", json!({ "name": "slow" }));
    assert!(out.is_empty(), "{out:?}");
    assert_eq!((seen.held.get(), seen.dropped.get()), (2, 1));
    h.notify("notifications/cancelled", json!({ "requestId": 77 }));
    h.run();
    assert_eq!(seen.dropped.get(), 2, "freed on cancellation");
    gate.cancel("done");
    assert!(h.take().is_empty(), "a cancelled request gets no answer");
    // The next call is served, and holds.
    let r = call(&h, "2025-11-25", "page");
    assert_eq!(r["result"]["content"][0]["text"], json!("the text"));
    assert_eq!((seen.held.get(), seen.dropped.get()), (3, 3));
}

#[test]
fn a_tool_timeout_frees_what_was_held() {
    let h = Harness::with_config(ServerConfig {
        tool_timeout_ms: Some(20),
        ..ServerConfig::default()
    });
    let seen = Seen::default();
    let gate = CancellationToken::new();
    h.server
        .register_tool(holding("slow", "the text", &seen, Some(gate)))
        .unwrap();
    h.initialize("2025-11-25");
    let id = 5;
    h.send(
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": "slow" }}),
    );
    h.wait_ms(60);
    let out = h.take();
    let r = out.iter().find(|m| m["id"] == json!(id)).expect("answered");
    assert_eq!(r["result"]["isError"], json!(true), "{r}");
    assert_no_marker(r);
    assert_eq!((seen.held.get(), seen.dropped.get()), (1, 1));
}

/// A tool whose result is the object `data`, held whole when the context allows it (its JSON
/// text and the object), or else returned as it is.
fn holding_object(name: &str, data: Value, seen: &Seen) -> ToolDef {
    let seen = seen.clone();
    ToolDef::new(
        name,
        "Holds its object result",
        move |_a: Value, ctx: RequestContext| {
            let text = Box::new(Text {
                text: data.to_string(),
                dropped: seen.dropped.clone(),
            });
            let object = Box::new(Text {
                text: data.to_string(),
                dropped: seen.dropped.clone(),
            });
            let value = ctx.holder().and_then(|h| h.hold_object(text, object));
            let counter = if value.is_some() {
                &seen.held
            } else {
                &seen.refused
            };
            counter.set(counter.get() + 1);
            let value = value.unwrap_or_else(|| data.clone());
            async move { Ok::<_, HandlerError>(value) }
        },
    )
}

/// A schema compiled as a browser compiles it: by the engine where it is plain, counting how
/// it is asked (`accepts_text`, `validate`); by the full validator otherwise.
#[derive(Default)]
struct PlainFirst {
    compiled: RefCell<Vec<(Value, Rc<Asked>)>>,
}

#[derive(Default)]
struct Asked {
    texts: Cell<usize>,
    values: Cell<usize>,
}

struct Counted(PlainSchema, Rc<Asked>);

impl CompiledSchema for Counted {
    fn validate(&self, instance: &Value) -> Vec<SchemaViolation> {
        self.1.values.set(self.1.values.get() + 1);
        self.0.validate(instance)
    }
    fn accepts_text(&self, text: &str) -> bool {
        self.1.texts.set(self.1.texts.get() + 1);
        self.0.accepts_text(text)
    }
}

impl SchemaCompiler for PlainFirst {
    fn compile(&self, schema: &Value) -> Result<Rc<dyn CompiledSchema>, String> {
        let Some(plain) = PlainSchema::compile(schema) else {
            return JsonSchemaCompiler::new().compile(schema);
        };
        let asked = Rc::new(Asked::default());
        self.compiled
            .borrow_mut()
            .push((schema.clone(), asked.clone()));
        Ok(Rc::new(Counted(plain, asked)))
    }
}

impl PlainFirst {
    /// How often the schema compiled from `schema` was asked about a text and about a value.
    fn asked(&self, schema: &Value) -> (usize, usize) {
        let compiled = self.compiled.borrow();
        let (_, a) = compiled
            .iter()
            .find(|(s, _)| s == schema)
            .expect("compiled");
        (a.texts.get(), a.values.get())
    }
}

#[test]
fn an_object_result_held_whole_is_answered_as_its_text_and_structured_content_in_every_version() {
    let data =
        json!({ "records": [{ "id": 1, "name": "a \"quoted\" \u{e9}" }, { "id": 2 }], "total": 2 });
    let checked_schema = json!({ "type": "object", "required": ["total"] });
    let refused_schema = json!({ "type": "object", "required": ["missing"] });
    for (v, plain) in ALL.into_iter().flat_map(|v| [(v, false), (v, true)]) {
        let compiler = Rc::new(PlainFirst::default());
        let h = match plain {
            true => Harness::with_compiler(compiler.clone()),
            false => Harness::new(),
        };
        let seen = Seen::default();
        h.server
            .register_tool(holding_object("records", data.clone(), &seen))
            .unwrap();
        // With an output schema, the schema checks the held structuredContent's text: a plain
        // one as it reads it, the full validator from its value.
        let schema = checked_schema.clone();
        h.server
            .register_tool(holding_object("checked", data.clone(), &seen).output_schema(schema))
            .unwrap();
        let schema = refused_schema.clone();
        h.server
            .register_tool(holding_object("refused", data.clone(), &seen).output_schema(schema))
            .unwrap();
        // Text nested past what the engine reads (128 levels) cannot be checked.
        let deep = (0..200).fold(json!(1), |v, _| json!({ "a": v }));
        let schema = json!({ "type": "object" });
        h.server
            .register_tool(holding_object("unreadable", deep, &seen).output_schema(schema))
            .unwrap();
        if v != STATELESS {
            h.initialize(v);
        }
        // The answer's one text block is the object's JSON.
        let text_is_data = |r: &Value| {
            let text = r["result"]["content"][0]["text"].as_str();
            text.and_then(|t| serde_json::from_str::<Value>(t).ok()) == Some(data.clone())
        };
        let r = call(&h, v, "records");
        assert_no_marker(&r);
        assert!(text_is_data(&r), "{v}: {r}");
        assert_eq!(
            r["result"]["content"].as_array().map(Vec::len),
            Some(1),
            "{v}"
        );
        // A version without structured content answers the text alone.
        let structured = r["result"].get("structuredContent");
        match v {
            "2024-11-05" | "2025-03-26" => assert_eq!(structured, None, "{v}: {r}"),
            _ => assert_eq!(structured, Some(&data), "{v}: {r}"),
        }
        assert_eq!((seen.held.get(), seen.refused.get()), (1, 0), "{v}");
        assert_eq!(
            seen.dropped.get(),
            2,
            "{v}: both freed once the answer is written"
        );
        let r = call(&h, v, "checked");
        assert_no_marker(&r);
        assert_eq!((seen.held.get(), seen.refused.get()), (2, 0), "{v}");
        assert!(text_is_data(&r), "{v}: {r}");
        assert_eq!(r["result"]["isError"], Value::Null, "{v}: {r}");
        let structured = r["result"].get("structuredContent");
        match v {
            "2024-11-05" | "2025-03-26" => assert_eq!(structured, None, "{v}: {r}"),
            _ => assert_eq!(structured, Some(&data), "{v}: {r}"),
        }
        assert_eq!(seen.dropped.get(), 4, "{v}: both freed once written");
        if plain {
            // Accepted as the text was read: no value of it was read to be checked.
            assert_eq!(compiler.asked(&checked_schema), (1, 0), "{v}");
        }
        // A result the schema refuses is a tool error that names it; what was held is freed.
        let r = call(&h, v, "refused");
        assert_no_marker(&r);
        assert_eq!(r["result"]["isError"], json!(true), "{v}: {r}");
        let text = r["result"]["content"][0]["text"].as_str().unwrap_or("");
        assert!(text.contains("outputSchema"), "{v}: {r}");
        // Which says why: the value read from the text is validated.
        assert!(
            text.contains("\"missing\" is a required property"),
            "{v}: {r}"
        );
        if plain {
            assert_eq!(compiler.asked(&refused_schema), (1, 1), "{v}");
        }
        assert_eq!(r["result"].get("structuredContent"), None, "{v}: {r}");
        assert_eq!((seen.held.get(), seen.dropped.get()), (3, 6), "{v}");
        let r = call(&h, v, "unreadable");
        assert_eq!(r["result"]["isError"], json!(true), "{v}: {r}");
        let text = r["result"]["content"][0]["text"].as_str().unwrap_or("");
        assert!(
            text.contains("returned structuredContent that cannot be read: recursion limit"),
            "{v}: {r}"
        );
        assert_eq!(r["result"].get("structuredContent"), None, "{v}: {r}");
        assert_eq!((seen.held.get(), seen.dropped.get()), (4, 8), "{v}");
        // And the next call is served.
        let r = call(&h, v, "records");
        assert!(text_is_data(&r), "{v}: {r}");
    }
}

//! Long argument strings a transport holds out of a `tools/call`'s text
//! (`server::held::HeldArguments`): the arguments carry markers, and a handler that takes held
//! strings gets them as they are, unless something reads their text first (a schema that reads
//! strings' texts, a violation's message, a handler that does not take them, a call that may
//! become a task), which then sees the texts. A queued call keeps its strings until it runs;
//! every round of an input-required call gets them; the server answers the next request.
mod support;

use modelcontext_polyfill::schema::JsonSchemaCompiler;
use modelcontext_polyfill::server::held::{hold_received, ARGUMENT_MARKER_START};
use modelcontext_polyfill::server::plain_schema::PlainSchema;
use modelcontext_polyfill::server::{
    CompiledSchema, HandlerResult, HeldArguments, HeldText, Limits, LocalBoxFuture, RequestContext,
    SchemaCompiler, ServerConfig, TaskSupport, ToolDef, ToolHandler,
};
use serde_json::{json, Value};
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use support::{first_text, message, Harness};

struct Text(String, Rc<Cell<usize>>);

impl HeldText for Text {
    fn text(&self) -> String {
        self.1.set(self.1.get() + 1);
        self.0.clone()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// `texts` held as a transport holds them for message `MESSAGE`, each counting its reads in
/// `reads`.
fn held(texts: &[&str], reads: &Rc<Cell<usize>>) -> HeldArguments {
    held_for(MESSAGE, texts, reads)
}

/// `texts` held for message `message` (markers name their message: a message's strings are
/// never another's).
fn held_for(message: &str, texts: &[&str], reads: &Rc<Cell<usize>>) -> HeldArguments {
    HeldArguments::new(
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let text: Box<dyn HeldText> = Box::new(Text(t.to_string(), reads.clone()));
                (marker_for(message, i), text)
            })
            .collect(),
    )
}

const MESSAGE: &str = "k3x9q.7";

fn marker(i: usize) -> String {
    marker_for(MESSAGE, i)
}

fn marker_for(message: &str, i: usize) -> String {
    format!("{ARGUMENT_MARKER_START}{message} {i}")
}

/// What a handler got: the arguments, and for each held marker the text it stands for.
#[derive(Default)]
struct Got {
    args: Vec<Value>,
    held: Vec<Vec<(String, String)>>,
}

/// A handler that takes held strings (as the page's functions do): records what it got.
struct Taking(Rc<RefCell<Got>>);

impl ToolHandler for Taking {
    fn call(&self, args: Value, _ctx: RequestContext) -> LocalBoxFuture<'static, HandlerResult> {
        let mut got = self.0.borrow_mut();
        got.args.push(args);
        got.held.push(Vec::new());
        Box::pin(async { Ok(json!("ok")) })
    }
    fn call_holding(
        &self,
        args: Rc<Value>,
        held: Rc<HeldArguments>,
        _ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        let mut got = self.0.borrow_mut();
        got.args.push((*args).clone());
        let texts = held
            .markers()
            .map(|m| (m.to_string(), held.get(m).unwrap().text()))
            .collect();
        got.held.push(texts);
        Box::pin(async { Ok(json!("ok")) })
    }
}

/// Plain schemas compiled by the engine (as a page's are), the rest by the validator.
struct PlainFirst;

impl SchemaCompiler for PlainFirst {
    fn compile(&self, schema: &Value) -> Result<Rc<dyn CompiledSchema>, String> {
        match PlainSchema::compile(schema) {
            Some(plain) => Ok(Rc::new(plain)),
            None => JsonSchemaCompiler::new().compile(schema),
        }
    }
}

fn plain_harness() -> Harness {
    Harness::with_compiler(Rc::new(PlainFirst))
}

/// Sends a `tools/call` of `name` with `args`, `texts` held for its markers; its answer.
fn call_holding(h: &Harness, id: i64, name: &str, args: Value, texts: HeldArguments) -> Value {
    let msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}});
    hold_received(Rc::new(texts));
    h.send(msg);
    h.take()
        .into_iter()
        .find(|m| m.get("id") == Some(&json!(id)))
        .expect("an answer")
}

fn taking(h: &Harness, name: &str, schema: Value) -> Rc<RefCell<Got>> {
    let got = Rc::new(RefCell::new(Got::default()));
    let def = ToolDef::new(name, "Takes text", Taking(got.clone())).input_schema(schema);
    h.server.register_tool(def).unwrap();
    got
}

fn assert_serves(h: &Harness) {
    assert_eq!(h.request("ping", json!({}))["result"], json!({}));
}

#[test]
fn a_plain_schema_of_types_leaves_the_strings_held_and_the_handler_gets_them() {
    let h = plain_harness();
    let schema = json!({"type": "object", "properties": {"doc": {"type": "string"}, "parts": {"type": "array", "items": {"type": "string"}}}, "required": ["doc"], "maxProperties": 2});
    let got = taking(&h, "take", schema);
    h.initialize("2025-06-18");
    let reads = Rc::new(Cell::new(0));
    let args = json!({"doc": marker(0), "parts": [marker(1), "short"]});
    let r = call_holding(&h, 7, "take", args.clone(), held(&["DOC", "PART"], &reads));
    assert_eq!(first_text(&r), "ok", "{r}");
    let got = got.borrow();
    assert_eq!(got.args, vec![args]);
    assert_eq!(
        got.held[0],
        vec![
            (marker(0), "DOC".to_string()),
            (marker(1), "PART".to_string())
        ]
    );
    // Only the handler read them.
    assert_eq!(reads.get(), 2);
    assert_serves(&h);
}

#[test]
fn a_schema_that_reads_texts_checks_the_texts_and_the_handler_gets_them_read_in() {
    let h = plain_harness();
    // Each keyword accepts the marker (`"\u{FDD0}arg 0"`: six characters, an `r`, no two
    // alike) and refuses the bad text, so only a check of the text refuses it.
    let cases = [
        ("max", json!({"maxLength": 8}), ["DOC"], ["lower case text"]),
        ("pattern", json!({"pattern": "r"}), ["rust"], ["DOC"]),
        ("min", json!({"minLength": 2}), ["DOC"], ["D"]),
    ];
    for (i, (name, keyword, ok_text, bad_text)) in cases.into_iter().enumerate() {
        let mut doc = json!({"type": "string"});
        doc.as_object_mut()
            .unwrap()
            .extend(keyword.as_object().unwrap().clone());
        // Deep inside: under an anyOf's branch of a $ref's target.
        let schema = json!({"type": "object", "properties": {"doc": {"anyOf": [{"$ref": "#/$defs/doc"}, {"type": "null"}]}}, "$defs": {"doc": doc}});
        let got = taking(&h, name, schema);
        if i == 0 {
            h.initialize("2025-06-18");
        }
        let reads = Rc::new(Cell::new(0));
        let ok = call_holding(
            &h,
            1,
            name,
            json!({"doc": marker(0)}),
            held(&ok_text, &reads),
        );
        assert_eq!(first_text(&ok), "ok", "{name}: {ok}");
        assert_eq!(
            got.borrow().args,
            vec![json!({"doc": ok_text[0]})],
            "{name}"
        );
        assert!(got.borrow().held[0].is_empty(), "{name}");
        let bad = call_holding(
            &h,
            2,
            name,
            json!({"doc": marker(0)}),
            held(&bad_text, &reads),
        );
        assert_eq!(bad["error"]["code"], -32602, "{name}: {bad}");
        assert!(!bad.to_string().contains('\u{FDD0}'), "{name}: {bad}");
        assert_eq!(got.borrow().args.len(), 1, "{name}");
    }
    // uniqueItems: two markers differ where their texts may not.
    let got = taking(
        &h,
        "unique",
        json!({"type": "object", "properties": {"docs": {"type": "array", "uniqueItems": true}}}),
    );
    let reads = Rc::new(Cell::new(0));
    let args = json!({"docs": [marker(0), marker(1)]});
    let same = call_holding(&h, 3, "unique", args.clone(), held(&["A", "A"], &reads));
    assert_eq!(same["error"]["code"], -32602, "{same}");
    assert!(
        message(&same).contains(r#"["A","A"] has non-unique elements"#),
        "{same}"
    );
    let other = call_holding(&h, 4, "unique", args, held(&["A", "B"], &reads));
    assert_eq!(first_text(&other), "ok", "{other}");
    assert_eq!(got.borrow().args, vec![json!({"docs": ["A", "B"]})]);
    assert_serves(&h);
}

#[test]
fn a_violation_elsewhere_is_reported_with_the_texts() {
    let h = plain_harness();
    let got = taking(
        &h,
        "take",
        json!({"type": "object", "properties": {"doc": {"type": "string"}}, "maxProperties": 1}),
    );
    h.initialize("2025-11-25");
    let reads = Rc::new(Cell::new(0));
    let r = call_holding(
        &h,
        3,
        "take",
        json!({"doc": marker(0), "n": 1}),
        held(&["THE DOCUMENT"], &reads),
    );
    // 2025-11-25: an isError result the model can read, quoting the arguments as sent.
    assert_eq!(r["result"]["isError"], true, "{r}");
    let text = first_text(&r);
    assert!(
        text.contains(r#"{"doc":"THE DOCUMENT","n":1} has more than 1 property"#),
        "{text}"
    );
    assert!(got.borrow().args.is_empty());
    assert_serves(&h);
}

#[test]
fn a_handler_that_does_not_take_held_strings_and_a_validator_schema_get_the_texts() {
    let h = Harness::new();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = seen.clone();
    h.server
        .register_tool(ToolDef::new(
            "plain",
            "A closure",
            move |args: Value, _ctx: RequestContext| {
                s.borrow_mut().push(args);
                async { Ok(json!("ok")) }
            },
        ))
        .unwrap();
    // The validator's schema (JsonSchemaCompiler) reads texts as far as the engine knows.
    let got = taking(
        &h,
        "checked",
        json!({"type": "object", "properties": {"doc": {"type": "string"}}}),
    );
    h.initialize("2025-06-18");
    let reads = Rc::new(Cell::new(0));
    let r = call_holding(
        &h,
        1,
        "plain",
        json!({"doc": [marker(0)]}),
        held(&["DOC"], &reads),
    );
    assert_eq!(first_text(&r), "ok", "{r}");
    assert_eq!(*seen.borrow(), vec![json!({"doc": ["DOC"]})]);
    let r = call_holding(
        &h,
        2,
        "checked",
        json!({"doc": marker(0)}),
        held(&["DOC"], &reads),
    );
    assert_eq!(first_text(&r), "ok", "{r}");
    assert_eq!(got.borrow().args, vec![json!({"doc": "DOC"})]);
    assert!(got.borrow().held[0].is_empty());
    assert_serves(&h);
}

#[test]
fn a_call_that_may_become_a_task_gets_the_texts() {
    let h = plain_harness();
    let got = Rc::new(RefCell::new(Got::default()));
    let def = ToolDef::new("take", "Takes text", Taking(got.clone()))
        .input_schema(json!({"type": "object"}))
        .task_support(TaskSupport::Optional);
    h.server.register_tool(def).unwrap();
    // 2026-07-28, where a call may be a task (whether this client asked for one or not).
    let reads = Rc::new(Cell::new(0));
    let params = json!({"name": "take", "arguments": {"doc": marker(0)}});
    hold_received(Rc::new(held(&["DOC"], &reads)));
    let r = h.stateless("tools/call", params);
    assert_eq!(first_text(&r), "ok", "{r}");
    assert_eq!(got.borrow().args, vec![json!({"doc": "DOC"})]);
    assert!(got.borrow().held[0].is_empty());
    assert_serves(&h);
}

#[test]
fn a_queued_call_keeps_its_strings_until_it_runs() {
    let h = Harness::with_config(ServerConfig {
        limits: Limits {
            max_in_flight: 1,
            ..Limits::default()
        },
        ..ServerConfig::default()
    });
    let gate = modelcontext_polyfill::server::CancellationToken::new();
    let g = gate.clone();
    h.server
        .register_tool(ToolDef::new(
            "wait",
            "Waits",
            move |_a: Value, _ctx: RequestContext| {
                let g = g.clone();
                async move {
                    g.cancelled().await;
                    Ok(json!("done"))
                }
            },
        ))
        .unwrap();
    // (The validator's schema: the texts are read in when the call runs.)
    let got = taking(&h, "take", json!({"type": "object"}));
    h.initialize("2025-06-18");
    h.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "wait", "arguments": {}}}));
    let reads = Rc::new(Cell::new(0));
    let msg = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "take", "arguments": {"doc": marker(0)}}});
    hold_received(Rc::new(held(&["QUEUED"], &reads)));
    h.send(msg);
    assert!(h.take().is_empty(), "the second call waits its turn");
    // Another message received meanwhile holds nothing, and takes nothing from it.
    assert_serves(&h);
    gate.cancel("go");
    let out = h.take();
    let answer = out.iter().find(|m| m["id"] == json!(2)).expect("answered");
    assert_eq!(first_text(answer), "ok", "{answer}");
    assert_eq!(got.borrow().args, vec![json!({"doc": "QUEUED"})]);
    assert_serves(&h);
}

#[test]
fn strings_a_refused_message_left_are_never_another_calls() {
    let h = plain_harness();
    let got = taking(&h, "take", json!({"type": "object"}));
    h.initialize("2025-06-18");
    let reads = Rc::new(Cell::new(0));
    // A message that holds strings but is refused before its request runs (a ping here: no
    // transport holds a ping's, but a tools/call refused for its id or its era leaves them the
    // same way).
    hold_received(Rc::new(held_for("first.0", &["STRAY"], &reads)));
    h.send(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
    h.take();
    // The next call, not holding any, with the marker of another message (an agent cannot know
    // a message's name, but even one that guessed an index): its strings stay themselves.
    let args = json!({"doc": marker_for("second.1", 0), "again": marker_for("first.0", 1)});
    h.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "take", "arguments": args}}));
    let r = h.take();
    assert_eq!(first_text(&r[0]), "ok", "{}", message(&r[0]));
    assert_eq!(got.borrow().args, vec![args]);
    assert!(got.borrow().held[0].is_empty());
    assert_eq!(reads.get(), 0);
    // Strings held for arguments that do not have their markers each once are not used.
    let twice = json!({"a": marker(0), "b": marker(0)});
    let r = call_holding(&h, 3, "take", twice.clone(), held(&["ONE"], &reads));
    assert_eq!(first_text(&r), "ok", "{r}");
    assert_eq!(got.borrow().args[1], twice);
    assert!(got.borrow().held[1].is_empty());
    assert_serves(&h);
}

/// A plain schema that counts how often it is asked whether it reads strings' texts.
struct Asked(PlainSchema, Rc<Cell<usize>>);

impl CompiledSchema for Asked {
    fn validate(&self, instance: &Value) -> Vec<modelcontext_polyfill::server::SchemaViolation> {
        self.0.validate(instance)
    }
    fn reads_string_texts(&self) -> bool {
        self.1.set(self.1.get() + 1);
        self.0.reads_string_texts()
    }
}

struct Counting(Rc<Cell<usize>>);

impl SchemaCompiler for Counting {
    fn compile(&self, schema: &Value) -> Result<Rc<dyn CompiledSchema>, String> {
        let plain = PlainSchema::compile(schema).ok_or("not plain")?;
        Ok(Rc::new(Asked(plain, self.0.clone())))
    }
}

#[test]
fn a_schema_is_asked_whether_it_reads_texts_only_when_a_call_holds_strings() {
    // The answer is a walk of the schema's subschemas (up to 10,000 of them): most calls hold
    // nothing, and walking for them would cost each call the schema's size.
    let asked = Rc::new(Cell::new(0));
    let h = Harness::with_compiler(Rc::new(Counting(asked.clone())));
    let got = taking(
        &h,
        "take",
        json!({"type": "object", "properties": {"doc": {"type": "string"}}}),
    );
    h.initialize("2025-06-18");
    for id in 1..=3 {
        let r = h.request(
            "tools/call",
            json!({"name": "take", "arguments": {"doc": "short"}}),
        );
        assert_eq!(first_text(&r), "ok", "call {id}: {r}");
    }
    assert_eq!(asked.get(), 0);
    let reads = Rc::new(Cell::new(0));
    let args = json!({"doc": marker(0)});
    let r = call_holding(&h, 9, "take", args, held(&["DOC"], &reads));
    assert_eq!(first_text(&r), "ok", "{r}");
    assert_eq!(asked.get(), 1);
    // A schema of types only: the string stayed held, and the handler got it.
    assert_eq!(got.borrow().held[3], vec![(marker(0), "DOC".to_string())]);
    assert_serves(&h);
}

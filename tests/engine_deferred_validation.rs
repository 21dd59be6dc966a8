//! A validator that is not ready at first (the browser loads its validator module when a tool
//! first needs it, src/browser/validator.rs): the engine's side of that contract, with a fake
//! lazy compiler.
//!
//! - calls of a tool with a schema wait for [`SchemaCompiler::ready`], then are checked;
//! - calls of tools without schemas never wait;
//! - a validator that cannot be loaded fails those calls with its reason (an `isError`
//!   result, in every protocol version), and the tool does not run;
//! - schemas compiled before the validator was ready compile on first use; one it refuses
//!   then validates nothing, and says why through [`CompiledSchema::deferred_error`];
//! - once ready, compilation is immediate again, so invalid schemas are refused at
//!   registration.

use modelcontext_polyfill::executor::LocalExecutor;
use modelcontext_polyfill::schema::JsonSchemaCompiler;
use modelcontext_polyfill::server::CancellationToken;
use modelcontext_polyfill::server::{
    CallError, CompiledSchema, HandlerError, LocalBoxFuture, RegistryError, RequestContext,
    SchemaCompiler, SchemaViolation, Server, ServerConfig, ServerInfo, Session, ToolDef,
};
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

const URL: &str = "https://cdn.example/modelcontext_validator.wasm";

// ---- the fake lazy compiler ------------------------------------------------------------

#[derive(Default)]
struct Load {
    /// `None` while loading.
    outcome: Option<Result<(), String>>,
    wakers: Vec<Waker>,
}

/// A validator "module" that loads when the test says so.
#[derive(Clone, Default)]
struct LazyCompiler {
    load: Rc<RefCell<Load>>,
    /// How many times the engine asked whether it is ready.
    asked: Rc<Cell<usize>>,
}

impl LazyCompiler {
    fn finish(&self, outcome: Result<(), String>) {
        let wakers = {
            let mut load = self.load.borrow_mut();
            load.outcome = Some(outcome);
            std::mem::take(&mut load.wakers)
        };
        wakers.into_iter().for_each(Waker::wake);
    }

    fn loaded(&self) -> bool {
        matches!(self.load.borrow().outcome, Some(Ok(())))
    }
}

struct Wait(Rc<RefCell<Load>>);

impl Future for Wait {
    type Output = Result<(), String>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut load = self.0.borrow_mut();
        match &load.outcome {
            Some(outcome) => Poll::Ready(outcome.clone()),
            None => {
                load.wakers.push(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// A schema compiled before the validator was ready.
struct Deferred {
    compiler: LazyCompiler,
    schema: Value,
    compiled: RefCell<Option<Result<Rc<dyn CompiledSchema>, String>>>,
}

impl Deferred {
    fn resolve(&self) -> Option<Result<Rc<dyn CompiledSchema>, String>> {
        if let Some(done) = &*self.compiled.borrow() {
            return Some(done.clone());
        }
        if !self.compiler.loaded() {
            return None;
        }
        let done = JsonSchemaCompiler::new().compile(&self.schema);
        *self.compiled.borrow_mut() = Some(done.clone());
        Some(done)
    }
}

impl CompiledSchema for Deferred {
    fn validate(&self, instance: &Value) -> Vec<SchemaViolation> {
        match self.resolve() {
            Some(Ok(schema)) => schema.validate(instance),
            Some(Err(_)) => Vec::new(),
            None => vec![SchemaViolation {
                instance_path: String::new(),
                keyword: "$validator".into(),
                schema_path: String::new(),
                message: "the validator has not loaded yet".into(),
            }],
        }
    }

    fn deferred_error(&self) -> Option<String> {
        self.resolve()?.err()
    }

    fn is_deferred(&self) -> bool {
        true
    }
}

impl SchemaCompiler for LazyCompiler {
    fn compile(&self, schema: &Value) -> Result<Rc<dyn CompiledSchema>, String> {
        if self.loaded() {
            return JsonSchemaCompiler::new().compile(schema);
        }
        Ok(Rc::new(Deferred {
            compiler: self.clone(),
            schema: schema.clone(),
            compiled: RefCell::new(None),
        }))
    }

    fn ready(&self) -> Option<LocalBoxFuture<'static, Result<(), String>>> {
        self.asked.set(self.asked.get() + 1);
        if self.loaded() {
            return None;
        }
        Some(Box::pin(Wait(self.load.clone())))
    }
}

// ---- a server on it, and one client ----------------------------------------------------

struct Page {
    ex: LocalExecutor,
    server: Server,
    session: Session,
    out: Rc<RefCell<Vec<Value>>>,
    compiler: LazyCompiler,
    /// How many times each tool's handler ran.
    ran: Rc<RefCell<Vec<String>>>,
    next_id: Cell<i64>,
}

impl Page {
    fn new(version: &str) -> Page {
        let ex = LocalExecutor::new();
        let compiler = LazyCompiler::default();
        let server = Server::new(
            ServerInfo::new("lazy", "1.0.0"),
            ServerConfig::default(),
            Rc::new(ex.clone()),
            Rc::new(compiler.clone()),
        );
        let out = Rc::new(RefCell::new(Vec::new()));
        let sink = out.clone();
        let session = server.connect(move |text| {
            sink.borrow_mut()
                .push(serde_json::from_str(&text).expect("the server emits JSON"))
        });
        let page = Page {
            ex,
            server,
            session,
            out,
            compiler,
            ran: Rc::new(RefCell::new(Vec::new())),
            next_id: Cell::new(0),
        };
        let init = page.request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        );
        page.take();
        assert_eq!(init, 1);
        page.session
            .receive(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        page.ex.run_until_stalled();
        page
    }

    fn tool(&self, name: &str) -> ToolDef {
        let ran = self.ran.clone();
        let label = name.to_string();
        ToolDef::new(name, "Echoes", move |args: Value, _ctx: RequestContext| {
            ran.borrow_mut().push(label.clone());
            async move { Ok::<_, HandlerError>(json!({ "structuredContent": args, "content": [] })) }
        })
    }

    /// Sends a request; returns its id.
    fn request(&self, method: &str, params: Value) -> i64 {
        let id = self.next_id.get() + 1;
        self.next_id.set(id);
        self.session.receive(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        self.ex.run_until_stalled();
        id
    }

    fn call(&self, name: &str, args: Value) -> i64 {
        self.request("tools/call", json!({"name": name, "arguments": args}))
    }

    /// Responses so far, by id (notifications dropped).
    fn take(&self) -> Vec<(i64, Value)> {
        self.ex.run_until_stalled();
        std::mem::take(&mut *self.out.borrow_mut())
            .into_iter()
            .filter(|m| m.get("method").is_none())
            .map(|m| (m["id"].as_i64().expect("an id"), m))
            .collect()
    }

    fn load(&self, outcome: Result<(), String>) {
        self.compiler.finish(outcome);
        self.ex.run_until_stalled();
    }

    fn ran(&self) -> Vec<String> {
        self.ran.borrow().clone()
    }
}

fn text(response: &Value) -> String {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {response}"))
        .to_string()
}

fn by_id(responses: &[(i64, Value)], id: i64) -> &Value {
    &responses
        .iter()
        .find(|(i, _)| *i == id)
        .unwrap_or_else(|| panic!("no response {id} in {responses:?}"))
        .1
}

fn typed() -> Value {
    json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"]})
}

// ---- the tests -------------------------------------------------------------------------

#[test]
fn calls_of_tools_with_a_schema_wait_for_the_validator_then_are_checked() {
    let page = Page::new("2025-11-25");
    page.server
        .register_tool(page.tool("typed").input_schema(typed()))
        .unwrap();
    let valid = page.call("typed", json!({"n": 2}));
    let invalid = page.call("typed", json!({"n": 0}));
    // Nothing answered, nothing ran: the calls wait for the validator.
    assert_eq!(page.take(), vec![]);
    assert_eq!(page.ran(), Vec::<String>::new());

    page.load(Ok(()));
    let responses = page.take();
    assert_eq!(responses.len(), 2, "{responses:?}");
    let ok = by_id(&responses, valid);
    assert_eq!(ok["result"]["isError"], Value::Null, "{ok}");
    assert_eq!(ok["result"]["structuredContent"], json!({"n": 2}));
    let refused = by_id(&responses, invalid);
    assert_eq!(refused["result"]["isError"], json!(true), "{refused}");
    let message = text(refused);
    assert!(
        message.contains("/n") && message.contains("minimum"),
        "{message}"
    );
    assert_eq!(page.ran(), vec!["typed".to_string()]);

    // Ready now: later calls are answered at once, without asking again for a future.
    let again = page.call("typed", json!({}));
    let r = page.take();
    assert!(text(by_id(&r, again)).contains("required"), "{r:?}");
}

#[test]
fn calls_of_tools_without_a_schema_do_not_wait() {
    let page = Page::new("2025-06-18");
    page.server.register_tool(page.tool("plain")).unwrap();
    page.server
        .register_tool(page.tool("typed").input_schema(typed()))
        .unwrap();
    let id = page.call("plain", json!({"anything": true}));
    let r = page.take();
    assert_eq!(
        by_id(&r, id)["result"]["structuredContent"],
        json!({"anything": true})
    );
    assert_eq!(page.ran(), vec!["plain".to_string()]);
    // Unknown tools are refused at once too.
    let unknown = page.call("nope", json!({}));
    let r = page.take();
    assert_eq!(by_id(&r, unknown)["error"]["code"], json!(-32602));
    assert!(page.server.validator_ready("plain").is_none());
    assert!(page.server.validator_ready("nope").is_none());
    assert!(page.server.validator_ready("typed").is_some());
}

#[test]
fn an_output_schema_alone_also_waits() {
    let page = Page::new("2025-11-25");
    page.server
        .register_tool(
            page.tool("out")
                .output_schema(json!({"type": "object", "required": ["n"]})),
        )
        .unwrap();
    let id = page.call("out", json!({"m": 1}));
    assert_eq!(page.take(), vec![]);
    page.load(Ok(()));
    let r = page.take();
    let response = by_id(&r, id);
    assert_eq!(response["result"]["isError"], json!(true), "{response}");
    assert!(text(response).contains("outputSchema"), "{response}");
}

#[test]
fn a_validator_that_cannot_load_fails_the_calls_with_its_reason_in_every_version() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let page = Page::new(version);
        page.server
            .register_tool(page.tool("typed").input_schema(typed()))
            .unwrap();
        page.server.register_tool(page.tool("plain")).unwrap();
        let waiting = page.call("typed", json!({"n": 2}));
        page.load(Err(format!(
            "the validator module {URL} could not be loaded: HTTP 404"
        )));
        let later = page.call("typed", json!({"n": 0}));
        let plain = page.call("plain", json!({}));
        let r = page.take();
        for id in [waiting, later] {
            let response = by_id(&r, id);
            assert_eq!(
                response["result"]["isError"],
                json!(true),
                "{version}: {response}"
            );
            let message = text(response);
            assert!(
                message.contains(URL) && message.contains("HTTP 404"),
                "{message}"
            );
            assert!(message.contains("typed"), "{message}");
        }
        // The tool never ran; tools without a schema still do.
        assert_eq!(page.ran(), vec!["plain".to_string()], "{version}");
        assert!(by_id(&r, plain)["result"].is_object());
        match page.server.validator_ready("typed") {
            Some(wait) => match page.ex.block_on(wait) {
                Err(CallError::ValidatorUnavailable { tool, reason }) => {
                    assert_eq!(tool, "typed");
                    assert!(reason.contains(URL));
                }
                other => panic!("{other:?}"),
            },
            None => panic!("a failed validator is never ready"),
        }
    }
}

#[test]
fn a_cancelled_call_that_was_waiting_gets_no_response_and_does_not_run() {
    let page = Page::new("2025-11-25");
    page.server
        .register_tool(page.tool("typed").input_schema(typed()))
        .unwrap();
    let id = page.call("typed", json!({"n": 2}));
    page.session.receive(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}})
            .to_string(),
    );
    page.load(Ok(()));
    assert_eq!(page.take(), vec![]);
    assert_eq!(page.ran(), Vec::<String>::new());
}

#[test]
fn schemas_registered_before_the_load_compile_on_first_use_and_a_refused_one_validates_nothing() {
    let page = Page::new("2025-11-25");
    // Before the load, an invalid schema cannot be told apart: it is registered (deferred).
    page.server
        .register_tool(
            page.tool("bad")
                .input_schema(json!({"properties": {"a": {"type": 5}}})),
        )
        .unwrap();
    page.server
        .register_tool(page.tool("typed").input_schema(typed()))
        .unwrap();
    let bad = page.server.tool("bad").unwrap();
    assert_eq!(
        bad.input.as_ref().unwrap().deferred_error(),
        None,
        "not loaded yet"
    );
    // Checked directly before the load, an instance is never accepted unchecked.
    match page.server.check_call("typed", &json!({"n": 2})).err() {
        Some(CallError::InvalidArguments { violations, .. }) => {
            assert_eq!(violations[0].keyword, "$validator")
        }
        other => panic!("{other:?}"),
    }

    page.load(Ok(()));
    let message = bad
        .input
        .as_ref()
        .unwrap()
        .deferred_error()
        .expect("refused once loaded");
    let expected = JsonSchemaCompiler::new()
        .compile(&json!({"properties": {"a": {"type": 5}}}))
        .err()
        .unwrap();
    assert_eq!(message, expected);
    assert_eq!(
        page.server
            .tool("typed")
            .unwrap()
            .input
            .as_ref()
            .unwrap()
            .deferred_error(),
        None
    );
    // The refused schema validates nothing: the tool runs, as one refused at registration
    // and registered without its schema would.
    let id = page.call("bad", json!({"whatever": 1}));
    let r = page.take();
    assert_eq!(
        by_id(&r, id)["result"]["structuredContent"],
        json!({"whatever": 1})
    );

    // From now on compilation is immediate: an invalid schema is refused at registration.
    match page.server.register_tool(
        page.tool("bad2")
            .input_schema(json!({"properties": {"a": {"type": 5}}})),
    ) {
        Err(RegistryError::InvalidSchema { which, message }) => {
            assert_eq!(which, "inputSchema");
            assert_eq!(message, expected);
        }
        other => panic!("{other:?}"),
    }
    assert!(page.server.tool("bad2").is_none());
}

#[test]
fn direct_calls_can_await_readiness_too() {
    let page = Page::new("2025-11-25");
    page.server
        .register_tool(page.tool("typed").input_schema(typed()))
        .unwrap();
    let wait = page.server.validator_ready("typed").expect("not ready yet");
    let server = page.server.clone();
    let outcome = Rc::new(RefCell::new(None));
    let o = outcome.clone();
    page.ex.spawn_local(async move {
        let checked = match wait.await {
            Ok(()) => server
                .call_tool(
                    "typed",
                    json!({"n": "x"}),
                    RequestContext::detached(CancellationToken::new()),
                )
                .map(|_| ()),
            Err(e) => Err(e),
        };
        *o.borrow_mut() = Some(checked);
    });
    page.ex.run_until_stalled();
    assert!(outcome.borrow().is_none());
    page.load(Ok(()));
    match outcome.borrow_mut().take() {
        Some(Err(CallError::InvalidArguments { violations, .. })) => {
            assert_eq!(violations[0].instance_path, "/n");
            assert_eq!(violations[0].keyword, "type");
        }
        other => panic!("{other:?}"),
    }
    assert!(page.compiler.asked.get() >= 1);
}

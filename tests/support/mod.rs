//! Test harness for the engine: a server on a [`LocalExecutor`] (on its virtual clock), a
//! session whose output is captured, and a checker that validates every message the server
//! emits against the official MCP schema of the version in force.
#![allow(dead_code)]

use modelcontext_polyfill::executor::LocalExecutor;
use modelcontext_polyfill::schema::{JsonSchema, JsonSchemaCompiler};
use modelcontext_polyfill::server::plain_schema::PlainSchema;
use modelcontext_polyfill::server::{
    CompiledSchema, HandlerError, HandlerResult, LocalBoxFuture, RequestContext, SchemaCompiler,
    Server, ServerConfig, ServerInfo, Session, ToolHandler,
};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;

/// The random tests' source, the unit tests' own (xorshift64*; each test seeds its own).
#[path = "../../src/test_rng.rs"]
mod test_rng;
// (Not every test file draws random input.)
#[allow(unused_imports)]
pub(crate) use test_rng::Rng;

/// Compiles schemas as a page's engine does: a plain one with the engine's own checker
/// (`PlainSchema`), any other with the `jsonschema` crate (the page's validator module).
pub struct PlainOrCrate;

impl SchemaCompiler for PlainOrCrate {
    fn compile(&self, schema: &Value) -> Result<Rc<dyn CompiledSchema>, String> {
        match PlainSchema::compile(schema) {
            Some(plain) => Ok(Rc::new(plain)),
            None => JsonSchemaCompiler::new().compile(schema),
        }
    }
}

pub const HANDSHAKE_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
pub const STATELESS: &str = "2026-07-28";

fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/spec/mcp-schema")
}

/// Validates messages against `mcp-schema/<version>/schema.json` definitions.
#[derive(Default)]
pub struct McpSchemas {
    docs: RefCell<HashMap<String, Value>>,
    compiled: RefCell<HashMap<(String, String), Rc<JsonSchema>>>,
}

impl McpSchemas {
    fn doc(&self, version: &str) -> Value {
        self.docs
            .borrow_mut()
            .entry(version.to_string())
            .or_insert_with(|| {
                let path = schema_dir().join(version).join("schema.json");
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
                let mut doc: Value = serde_json::from_str(&text).expect("schema parses");
                if version == STATELESS {
                    merge_extension_defs(&mut doc);
                }
                doc
            })
            .clone()
    }

    pub fn has_def(&self, version: &str, def: &str) -> bool {
        let doc = self.doc(version);
        doc.get("definitions")
            .or_else(|| doc.get("$defs"))
            .and_then(|d| d.get(def))
            .is_some()
    }

    fn validator(&self, version: &str, def: &str) -> Rc<JsonSchema> {
        let key = (version.to_string(), def.to_string());
        if let Some(v) = self.compiled.borrow().get(&key) {
            return v.clone();
        }
        let mut doc = self.doc(version);
        let defs_key = if doc.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        assert!(
            self.has_def(version, def),
            "{version} has no definition {def}"
        );
        doc.as_object_mut()
            .unwrap()
            .insert("$ref".into(), json!(format!("#/{defs_key}/{def}")));
        let compiled = Rc::new(
            JsonSchemaCompiler::new()
                .compile_schema(&doc)
                .unwrap_or_else(|e| panic!("compiling {version} {def}: {e}")),
        );
        self.compiled.borrow_mut().insert(key, compiled.clone());
        compiled
    }

    /// Panics with the violations when `instance` is not a valid `def` of `version`.
    pub fn check(&self, version: &str, def: &str, instance: &Value) {
        let violations = self.validator(version, def).validate(instance);
        assert!(
            violations.is_empty(),
            "not a valid {def} for MCP {version}:\n{}\n{:#?}",
            serde_json::to_string_pretty(instance).unwrap(),
            violations.iter().map(|v| v.describe()).collect::<Vec<_>>()
        );
    }
}

/// Adds the extensions' definitions (tests/support/extensions.schema.json: Tasks, SEP-2663;
/// Skills, SEP-2640) to the 2026-07-28 schema, which does not carry them.
fn merge_extension_defs(doc: &mut Value) {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/extensions.schema.json");
    let text = std::fs::read_to_string(&path).expect("extension schema");
    let ext: Value = serde_json::from_str(&text).expect("extension schema parses");
    let defs = doc["$defs"].as_object_mut().expect("2026-07-28 uses $defs");
    for (k, v) in ext["$defs"].as_object().unwrap() {
        defs.insert(k.clone(), v.clone());
    }
}

/// The result definition for a method, given the result (a `tools/call` may answer with a
/// task, Tasks extension).
pub fn result_def_of(method: &str, result: &Value) -> &'static str {
    match method {
        "tools/call" if result["resultType"] == json!("task") => "CreateTaskResult",
        "tasks/get" => "GetTaskResult",
        "tasks/update" | "tasks/cancel" => "TaskAck",
        "skills/list" => "ListSkillsResult",
        "skills/get" => "GetSkillResult",
        "resources/directory/read" => "ReadResourceDirectoryResult",
        "tools/call" if result["resultType"] == json!("input_required") => "InputRequiredResult",
        _ => result_def(method),
    }
}

/// The result definition for a method.
pub fn result_def(method: &str) -> &'static str {
    match method {
        "initialize" => "InitializeResult",
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        "completion/complete" => "CompleteResult",
        "server/discover" => "DiscoverResult",
        "subscriptions/listen" => "SubscriptionsListenResult",
        _ => "EmptyResult",
    }
}

/// A server, one session, its captured output, and schema checking of all of it.
pub struct Harness {
    pub ex: LocalExecutor,
    pub server: Server,
    pub session: Session,
    out: Rc<RefCell<Vec<String>>>,
    schemas: Rc<McpSchemas>,
    /// Request id (as JSON text) → (method, version in force).
    sent: RefCell<HashMap<String, (String, Option<String>)>>,
    /// The version notifications are checked against.
    pub version: RefCell<Option<String>>,
    next_id: RefCell<i64>,
}

impl Harness {
    pub fn new() -> Harness {
        Harness::with_config(ServerConfig::default())
    }

    pub fn with_config(config: ServerConfig) -> Harness {
        Harness::with(config, Rc::new(JsonSchemaCompiler::new()))
    }

    /// A server whose tool schemas `compiler` compiles.
    pub fn with_compiler(compiler: Rc<dyn SchemaCompiler>) -> Harness {
        Harness::with(ServerConfig::default(), compiler)
    }

    /// A server configured with `config`, whose tool schemas `compiler` compiles.
    pub fn with(config: ServerConfig, compiler: Rc<dyn SchemaCompiler>) -> Harness {
        // (On a virtual clock: a wait runs every timer due before its end, in order, each at
        // its time, however long the machine takes to run them.)
        let ex = LocalExecutor::with_virtual_clock();
        let mut info = ServerInfo::new("test-server", "1.2.3");
        info.title = Some("Test Server".into());
        info.instructions = Some("Use the tools.".into());
        let server = Server::new(info, config, Rc::new(ex.clone()), compiler);
        Harness::attach(ex, server, Rc::new(McpSchemas::default()))
    }

    fn attach(ex: LocalExecutor, server: Server, schemas: Rc<McpSchemas>) -> Harness {
        let out = Rc::new(RefCell::new(Vec::new()));
        let sink = out.clone();
        let session = server.connect(move |text| sink.borrow_mut().push(text));
        Harness {
            ex,
            server,
            session,
            out,
            schemas,
            sent: RefCell::new(HashMap::new()),
            version: RefCell::new(None),
            next_id: RefCell::new(1),
        }
    }

    /// A second client of the same server (same executor), with its own session and checks.
    pub fn another_session(&self) -> Harness {
        Harness::attach(self.ex.clone(), self.server.clone(), self.schemas.clone())
    }

    /// Feeds raw text, remembering request ids for schema checks.
    pub fn send_text(&self, text: &str) {
        if let Ok(v) = serde_json::from_str::<Value>(text) {
            let items = match &v {
                Value::Array(a) => a.clone(),
                other => vec![other.clone()],
            };
            for m in items {
                if let (Some(id), Some(method)) =
                    (m.get("id"), m.get("method").and_then(Value::as_str))
                {
                    // A version this suite has no schema for is answered (with -32022) in the
                    // stateless era, so its messages are checked against that schema.
                    let meta_version = m
                        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
                        .and_then(Value::as_str)
                        .map(|v| {
                            if HANDSHAKE_VERSIONS.contains(&v) {
                                v.to_string()
                            } else {
                                STATELESS.to_string()
                            }
                        });
                    let version = if self.session.protocol_version().is_some() {
                        self.session
                            .protocol_version()
                            .map(|v| v.as_str().to_string())
                    } else {
                        meta_version.clone()
                    };
                    if meta_version.is_some() && self.session.protocol_version().is_none() {
                        *self.version.borrow_mut() = meta_version;
                    }
                    self.sent
                        .borrow_mut()
                        .insert(id.to_string(), (method.to_string(), version));
                }
            }
        }
        self.session.receive(text);
    }

    pub fn send(&self, v: Value) {
        self.send_text(&v.to_string());
    }

    /// Runs spawned work until nothing can progress.
    pub fn run(&self) {
        self.ex.run_until_stalled();
    }

    /// How many messages have been emitted and not yet taken, without running spawned work.
    pub fn emitted(&self) -> usize {
        self.out.borrow().len()
    }

    /// Every message emitted since the last call, each schema-checked.
    pub fn take(&self) -> Vec<Value> {
        self.run();
        let texts: Vec<String> = std::mem::take(&mut *self.out.borrow_mut());
        texts
            .iter()
            .map(|t| {
                let v: Value = serde_json::from_str(t).expect("server emits JSON");
                match &v {
                    Value::Array(items) => items.iter().for_each(|m| self.check_message(m)),
                    m => self.check_message(m),
                }
                v
            })
            .collect()
    }

    fn check_message(&self, m: &Value) {
        let id_key = m.get("id").map(|i| i.to_string());
        let sent = id_key
            .as_ref()
            .and_then(|k| self.sent.borrow().get(k).cloned());
        if m.get("result").is_some() {
            let (method, version) = sent.expect("a result answers a request we sent");
            let version = match method.as_str() {
                "initialize" => m["result"]["protocolVersion"].as_str().unwrap().to_string(),
                "server/discover" => STATELESS.to_string(),
                // `ping` is answered before `initialize` too; `{}` is valid in every version.
                "ping" if version.is_none() => "2025-11-25".to_string(),
                _ => version.expect("a version is in force for a result"),
            };
            if method == "initialize" {
                *self.version.borrow_mut() = Some(version.clone());
            }
            let envelope = if self.schemas.has_def(&version, "JSONRPCResultResponse") {
                "JSONRPCResultResponse"
            } else {
                "JSONRPCResponse"
            };
            self.schemas.check(&version, envelope, m);
            self.schemas
                .check(&version, result_def_of(&method, &m["result"]), &m["result"]);
        } else if m.get("error").is_some() {
            // Errors for messages whose id could not be read carry no id; only 2025-11-25 and
            // later schemas can express that, so those are checked against 2025-11-25.
            let version = sent
                .and_then(|(_, v)| v)
                .filter(|_| m.get("id").is_some())
                .unwrap_or_else(|| "2025-11-25".to_string());
            let envelope = if self.schemas.has_def(&version, "JSONRPCErrorResponse") {
                "JSONRPCErrorResponse"
            } else {
                "JSONRPCError"
            };
            self.schemas.check(&version, envelope, m);
        } else if m.get("method").is_some() {
            let version = self
                .version
                .borrow()
                .clone()
                .expect("notifications only after a version is in force");
            if m.get("id").is_some() {
                self.schemas.check(&version, "JSONRPCRequest", m);
                self.schemas.check(&version, "ServerRequest", m);
            } else if m["method"] == json!("notifications/tasks") {
                self.schemas.check(&version, "TaskStatusNotification", m);
            } else {
                self.schemas.check(&version, "JSONRPCNotification", m);
                self.schemas.check(&version, "ServerNotification", m);
            }
        } else {
            panic!("unclassifiable message from server: {m}");
        }
    }

    fn next_id(&self) -> i64 {
        let mut n = self.next_id.borrow_mut();
        *n += 1;
        *n
    }

    /// Sends a request and returns the one response to it (other messages are dropped).
    pub fn request(&self, method: &str, params: Value) -> Value {
        let id = self.next_id();
        self.send(json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}));
        let msgs = self.take();
        msgs.into_iter()
            .find(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
            .unwrap_or_else(|| panic!("no response to {method}"))
    }

    /// A stateless (2026-07-28) request with the required `_meta`.
    pub fn stateless(&self, method: &str, mut params: Value) -> Value {
        let meta = params
            .as_object_mut()
            .unwrap()
            .entry("_meta")
            .or_insert_with(|| json!({}));
        meta["io.modelcontextprotocol/protocolVersion"] = json!(STATELESS);
        meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
        self.request(method, params)
    }

    /// Sends a request and returns its response and every other message emitted meanwhile.
    pub fn request_all(&self, method: &str, params: Value) -> (Value, Vec<Value>) {
        let id = self.next_id();
        self.send(json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}));
        let (mut resp, mut others) = (Vec::new(), Vec::new());
        for m in self.take() {
            if m.get("id") == Some(&json!(id)) && m.get("method").is_none() {
                resp.push(m);
            } else {
                others.push(m);
            }
        }
        assert_eq!(resp.len(), 1, "exactly one response to {method}: {resp:?}");
        (resp.remove(0), others)
    }

    /// Sends a request with an explicit id; returns what the server emitted.
    pub fn send_request(&self, id: Value, method: &str, params: Value) -> Vec<Value> {
        self.send(json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}));
        self.take()
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Value) {
        self.send(json!({"jsonrpc":"2.0","method":method,"params":params}));
    }

    /// Sends raw text and returns what the server emitted.
    pub fn exchange_text(&self, text: &str) -> Vec<Value> {
        self.send_text(text);
        self.take()
    }

    /// Sends a value and returns what the server emitted.
    pub fn exchange(&self, v: Value) -> Vec<Value> {
        self.send(v);
        self.take()
    }

    /// Lets `ms` milliseconds of the executor's virtual time pass while running tasks: the
    /// timers due meanwhile fire, in order, and what they start runs before the next.
    pub fn wait_ms(&self, ms: u64) {
        use modelcontext_polyfill::server::Runtime;
        let sleep = self.ex.sleep(ms);
        self.ex.block_on(sleep);
    }

    /// The stateless `_meta` for 2026-07-28, with `caps` as the client capabilities.
    pub fn stateless_meta(caps: Value) -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": STATELESS,
            "io.modelcontextprotocol/clientCapabilities": caps,
        })
    }

    /// `initialize` with `version` and `notifications/initialized`.
    pub fn initialize(&self, version: &str) -> Value {
        self.initialize_with(version, json!({}))
    }

    /// `initialize` declaring client capabilities `caps`, and `notifications/initialized`.
    pub fn initialize_with(&self, version: &str, caps: Value) -> Value {
        let r = self.request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": caps, "clientInfo": {"name":"t","version":"0"}}),
        );
        self.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        self.run();
        r
    }
}

/// The error message of a response.
pub fn message(resp: &Value) -> String {
    resp["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("not an error: {resp}"))
        .to_string()
}

/// The messages among `msgs` whose method is `method`.
pub fn with_method<'a>(msgs: &'a [Value], method: &str) -> Vec<&'a Value> {
    msgs.iter()
        .filter(|m| m["method"] == json!(method))
        .collect()
}

/// The text of a tool result's first content block.
pub fn first_text(resp: &Value) -> String {
    resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content: {resp}"))
        .to_string()
}

/// The error code of a response.
pub fn code(resp: &Value) -> i64 {
    resp["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {resp}"))
}

/// How a handler got its arguments.
#[derive(Clone, Debug, PartialEq)]
pub enum Got {
    Text(String),
    Value(Value),
}

/// A handler that takes text, recording each call's arguments; it answers with the
/// arguments' text, or `"value"` when it got a value.
#[derive(Clone, Default)]
pub struct Recorder(Rc<RefCell<Vec<Got>>>);

impl Recorder {
    pub fn take(&self) -> Vec<Got> {
        std::mem::take(&mut self.0.borrow_mut())
    }
}

impl ToolHandler for Recorder {
    fn call(&self, args: Value, _: RequestContext) -> LocalBoxFuture<'static, HandlerResult> {
        self.0.borrow_mut().push(Got::Value(args));
        Box::pin(async { Ok::<_, HandlerError>(json!("value")) })
    }
    fn takes_text(&self) -> bool {
        true
    }
    fn call_text(
        &self,
        args: Rc<str>,
        _: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        self.0.borrow_mut().push(Got::Text(args.to_string()));
        Box::pin(async move { Ok::<_, HandlerError>(json!(args.to_string())) })
    }
}

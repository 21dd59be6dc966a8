//! The stdio example (`examples/stdio_server.rs`) as a real process: newline-delimited
//! JSON-RPC on its stdin/stdout, every fixture of the conformance set, error paths, and
//! exit at end of input.
//!
//! The binary is built once per test run (`cargo build --example stdio_server`) and found
//! next to this test's own executable (`target/<profile>/examples/`). Every result the
//! server sends is checked against the official MCP schema of the version in force
//! (`../shared/spec/mcp-schema/<version>/schema.json`).

mod support;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use support::{result_def, McpSchemas};

const TIMEOUT: Duration = Duration::from_secs(15);
const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
const TOOLS: [&str; 9] = [
    "echo",
    "test_audio_content",
    "test_embedded_resource",
    "test_error_handling",
    "test_image_content",
    "test_multiple_content_types",
    "test_simple_text",
    "test_tool_with_logging",
    "test_tool_with_progress",
];

// ---- the binary ------------------------------------------------------------------------

/// Builds the example once and returns its path.
fn binary() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(["build", "--example", "stdio_server", "-q"])
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        if !cfg!(debug_assertions) {
            cmd.arg("--release");
        }
        let status = cmd.status().expect("running cargo build");
        assert!(
            status.success(),
            "cargo build --example stdio_server failed"
        );
        // target/<profile>/deps/stdio_server-<hash> → target/<profile>/examples/stdio_server
        let exe = std::env::current_exe().expect("test executable path");
        let profile_dir = exe
            .parent()
            .and_then(|deps| deps.parent())
            .expect("target/<profile>");
        let bin = profile_dir
            .join("examples")
            .join(format!("stdio_server{}", std::env::consts::EXE_SUFFIX));
        assert!(bin.exists(), "{} was not built", bin.display());
        bin
    })
    .clone()
}

// ---- schema checks ---------------------------------------------------------------------

thread_local! {
    static SCHEMAS: McpSchemas = McpSchemas::default();
}

/// Panics unless `instance` is a valid `def` of MCP `version`.
fn check_schema(version: &str, def: &str, instance: &Value) {
    SCHEMAS.with(|s| s.check(version, def, instance));
}

// ---- a running server ------------------------------------------------------------------

struct StdioServer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: i64,
    /// The negotiated version, for schema checks.
    version: Option<String>,
}

impl StdioServer {
    fn start() -> StdioServer {
        StdioServer::start_with(&[])
    }

    fn start_with(env: &[(&str, &str)]) -> StdioServer {
        let mut cmd = Command::new(binary());
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("STDIO_SERVER_WATCH_MS", "0");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawning stdio_server");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        // stderr is diagnostics only; drain it so the child never blocks on it.
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if std::env::var_os("STDIO_TEST_VERBOSE").is_some() {
                    eprintln!("[server stderr] {line}");
                }
            }
        });
        let stdin = child.stdin.take();
        StdioServer {
            child,
            stdin,
            lines,
            next_id: 1,
            version: None,
        }
    }

    fn send_raw(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, v: &Value) {
        self.send_raw(&v.to_string());
    }

    /// The next message (each is one line of JSON).
    fn recv(&self) -> Value {
        self.try_recv(TIMEOUT)
            .expect("the server sent nothing in time")
    }

    fn try_recv(&self, timeout: Duration) -> Option<Value> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                assert!(!line.is_empty(), "an empty line on stdout");
                Some(serde_json::from_str(&line).unwrap_or_else(|e| {
                    panic!("stdout carried a line that is not JSON ({e}): {line:?}")
                }))
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    fn start_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        id
    }

    /// Reads until the response to `id`; returns it and the messages before it. Results are
    /// schema-checked.
    fn wait_for(&mut self, id: i64, method: &str) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let m = self
                .try_recv(left)
                .unwrap_or_else(|| panic!("no response to {method} (id {id}); saw {before:?}"));
            if m.get("id") == Some(&json!(id)) && m.get("method").is_none() {
                assert_eq!(m["jsonrpc"], json!("2.0"), "{m}");
                if let (Some(result), Some(v)) = (m.get("result"), self.version.clone()) {
                    check_schema(&v, result_def(method), result);
                }
                if method == "initialize" {
                    if let Some(v) = m["result"]["protocolVersion"].as_str() {
                        check_schema(v, "InitializeResult", &m["result"]);
                        self.version = Some(v.to_string());
                    }
                }
                return (m, before);
            }
            if let (Some(v), true) = (self.version.clone(), m.get("method").is_some()) {
                check_schema(&v, "ServerNotification", &m);
            }
            before.push(m);
        }
    }

    fn request_full(&mut self, method: &str, params: Value) -> (Value, Vec<Value>) {
        let id = self.start_request(method, params);
        self.wait_for(id, method)
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.request_full(method, params).0
    }

    /// `result` of a request that must succeed.
    fn ok(&mut self, method: &str, params: Value) -> Value {
        let r = self.request(method, params.clone());
        assert!(r.get("result").is_some(), "{method} {params} failed: {r}");
        r["result"].clone()
    }

    fn initialize(&mut self, version: &str) -> Value {
        let r = self.ok(
            "initialize",
            json!({
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": { "name": "stdio-test", "version": "0" }
            }),
        );
        self.notify("notifications/initialized", json!({}));
        r
    }

    fn call(&mut self, name: &str, args: Value) -> Value {
        self.ok("tools/call", json!({ "name": name, "arguments": args }))
    }

    /// Closes stdin and waits for the process to exit.
    fn finish(mut self) -> (ExitStatus, Vec<Value>) {
        drop(self.stdin.take());
        let deadline = Instant::now() + TIMEOUT;
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            assert!(Instant::now() < deadline, "the server did not exit at EOF");
            std::thread::sleep(Duration::from_millis(10));
        };
        let rest = std::iter::from_fn(|| self.try_recv(Duration::from_millis(200))).collect();
        (status, rest)
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("expected an error, got {response}"))
}

fn only_text(result: &Value) -> &str {
    let content = result["content"].as_array().expect("content array");
    assert_eq!(content.len(), 1, "{result}");
    assert_eq!(content[0]["type"], json!("text"), "{result}");
    content[0]["text"].as_str().unwrap()
}

// ---- lifecycle -------------------------------------------------------------------------

#[test]
fn initialize_negotiates_and_lists_all_nine_tools() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut s = StdioServer::start();
        let init = s.initialize(version);
        assert_eq!(init["protocolVersion"], json!(version));
        assert_eq!(
            init["serverInfo"]["name"],
            json!("modelcontext-polyfill-stdio")
        );
        let caps = &init["capabilities"];
        for cap in ["tools", "resources", "prompts", "logging"] {
            assert!(caps.get(cap).is_some(), "{version}: no {cap} capability");
        }
        assert_eq!(caps["resources"]["subscribe"], json!(true));
        let tools = s.ok("tools/list", json!({}));
        let names: Vec<&str> = tools["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, TOOLS, "{version}");
        for t in tools["tools"].as_array().unwrap() {
            assert!(t["description"].as_str().is_some_and(|d| !d.is_empty()));
            assert_eq!(t["inputSchema"]["type"], json!("object"), "{t}");
        }
        let (status, _) = s.finish();
        assert!(status.success(), "{version}: {status}");
    }
}

#[test]
fn an_unknown_version_gets_the_newest_handshake_version() {
    let mut s = StdioServer::start();
    let init = s.initialize("1999-01-01");
    assert_eq!(init["protocolVersion"], json!("2025-11-25"));
}

#[test]
fn ping_answers_empty() {
    let mut s = StdioServer::start();
    s.initialize("2025-11-25");
    assert_eq!(s.ok("ping", json!({})), json!({}));
}

// ---- tools -----------------------------------------------------------------------------

#[test]
fn every_content_fixture_returns_the_suite_payload() {
    let mut s = StdioServer::start();
    s.initialize("2025-11-25");

    let r = s.call("test_simple_text", json!({}));
    assert_eq!(
        r,
        json!({"content":[{"type":"text","text":"This is a simple text response for testing."}]})
    );

    let r = s.call("test_image_content", json!({}));
    assert_eq!(
        r,
        json!({"content":[{"type":"image","data":PNG,"mimeType":"image/png"}]})
    );

    let r = s.call("test_audio_content", json!({}));
    assert_eq!(
        r,
        json!({"content":[{"type":"audio","data":WAV,"mimeType":"audio/wav"}]})
    );

    let r = s.call("test_embedded_resource", json!({}));
    assert_eq!(
        r,
        json!({"content":[{"type":"resource","resource":{
            "uri":"test://embedded-resource","mimeType":"text/plain",
            "text":"This is an embedded resource content."}}]})
    );

    let r = s.call("test_multiple_content_types", json!({}));
    assert_eq!(
        r,
        json!({"content":[
            {"type":"text","text":"Multiple content types test:"},
            {"type":"image","data":PNG,"mimeType":"image/png"},
            {"type":"resource","resource":{"uri":"test://mixed-content-resource",
                "mimeType":"application/json","text":"{\"test\":\"data\",\"value\":123}"}}
        ]})
    );

    // Without arguments at all, as the suite's simple-text scenario calls it.
    let r = s.ok("tools/call", json!({"name": "test_simple_text"}));
    assert_eq!(only_text(&r), "This is a simple text response for testing.");
}

#[test]
fn audio_becomes_text_for_2024_11_05() {
    let mut s = StdioServer::start();
    s.initialize("2024-11-05");
    let r = s.call("test_audio_content", json!({}));
    assert!(only_text(&r).contains("audio/wav"), "{r}");
}

#[test]
fn the_error_tool_returns_an_is_error_result() {
    let mut s = StdioServer::start();
    s.initialize("2025-06-18");
    let r = s.call("test_error_handling", json!({}));
    assert_eq!(r["isError"], json!(true));
    assert_eq!(
        only_text(&r),
        "This tool intentionally returns an error for testing"
    );
}

#[test]
fn progress_goes_0_50_100_of_100_before_the_result() {
    let mut s = StdioServer::start();
    s.initialize("2025-11-25");
    let start = Instant::now();
    let (r, before) = s.request_full(
        "tools/call",
        json!({"name":"test_tool_with_progress","arguments":{},
               "_meta":{"progressToken":"progress-test-1"}}),
    );
    assert!(
        start.elapsed() >= Duration::from_millis(100),
        "two 50 ms steps"
    );
    let progress: Vec<&Value> = before
        .iter()
        .filter(|m| m["method"] == json!("notifications/progress"))
        .collect();
    assert_eq!(progress.len(), 3, "{before:?}");
    for (p, step) in progress.iter().zip([0.0, 50.0, 100.0]) {
        let params = &p["params"];
        assert_eq!(params["progressToken"], json!("progress-test-1"));
        assert_eq!(params["progress"].as_f64(), Some(step));
        assert_eq!(params["total"].as_f64(), Some(100.0));
        assert_eq!(
            params["message"],
            json!(format!("Completed step {step} of 100"))
        );
    }
    assert_eq!(only_text(&r["result"]), "progress-test-1");

    // A numeric token works too; without one, no progress is sent.
    let (r, before) = s.request_full(
        "tools/call",
        json!({"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":7}}),
    );
    assert_eq!(before.len(), 3);
    assert_eq!(before[0]["params"]["progressToken"], json!(7));
    assert_eq!(only_text(&r["result"]), "7");
    let (r, before) = s.request_full(
        "tools/call",
        json!({"name":"test_tool_with_progress","arguments":{}}),
    );
    assert!(before.is_empty(), "{before:?}");
    assert_eq!(only_text(&r["result"]), "0");
}

#[test]
fn logging_sends_three_info_messages_and_honours_set_level() {
    let mut s = StdioServer::start();
    s.initialize("2025-06-18");
    assert_eq!(
        s.ok("logging/setLevel", json!({"level":"debug"})),
        json!({})
    );
    let (r, before) = s.request_full(
        "tools/call",
        json!({"name":"test_tool_with_logging","arguments":{}}),
    );
    let logs: Vec<Value> = before
        .iter()
        .filter(|m| m["method"] == json!("notifications/message"))
        .map(|m| m["params"].clone())
        .collect();
    assert_eq!(
        logs,
        vec![
            json!({"level":"info","data":"Tool execution started"}),
            json!({"level":"info","data":"Tool processing data"}),
            json!({"level":"info","data":"Tool execution completed"}),
        ]
    );
    assert_eq!(
        only_text(&r["result"]),
        "Tool with logging executed successfully"
    );

    assert_eq!(
        s.ok("logging/setLevel", json!({"level":"warning"})),
        json!({})
    );
    let (_, before) = s.request_full(
        "tools/call",
        json!({"name":"test_tool_with_logging","arguments":{}}),
    );
    assert!(before.is_empty(), "info is below warning: {before:?}");

    let bad = s.request("logging/setLevel", json!({"level":"loud"}));
    assert_eq!(code(&bad), -32602);
}

#[test]
fn echo_repeats_and_validates() {
    let mut s = StdioServer::start();
    s.initialize("2025-11-25");
    assert_eq!(only_text(&s.call("echo", json!({"text":"ab"}))), "ab");
    assert_eq!(
        only_text(&s.call("echo", json!({"text":"ab","n":3}))),
        "ababab"
    );
    assert_eq!(only_text(&s.call("echo", json!({"text":"x","n":0}))), "");
    let unicode = "héllo \u{1F600} \"quoted\"\nnewline";
    assert_eq!(only_text(&s.call("echo", json!({"text":unicode}))), unicode);

    // 2025-11-25: invalid arguments are a tool result the model can read.
    let r = s.call("echo", json!({"n":"x"}));
    assert_eq!(r["isError"], json!(true));
    let text = only_text(&r);
    assert!(text.contains("required") && text.contains("/n"), "{text}");
    let r = s.call("echo", json!({"text":"a","n":1001}));
    assert_eq!(r["isError"], json!(true), "{r}");

    // Earlier versions: JSON-RPC -32602.
    let mut old = StdioServer::start();
    old.initialize("2025-06-18");
    let r = old.request("tools/call", json!({"name":"echo","arguments":{}}));
    assert_eq!(code(&r), -32602);
    assert!(
        r["error"]["message"].as_str().unwrap().contains("text"),
        "{r}"
    );

    let r = s.request("tools/call", json!({"name":"no_such_tool","arguments":{}}));
    assert_eq!(code(&r), -32602);
}

// ---- resources -------------------------------------------------------------------------

#[test]
fn resources_list_read_and_templates() {
    let mut s = StdioServer::start();
    s.initialize("2025-11-25");
    let list = s.ok("resources/list", json!({}));
    let uris: Vec<&str> = list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "test://static-binary",
            "test://static-text",
            "test://watched-resource"
        ]
    );
    for r in list["resources"].as_array().unwrap() {
        assert!(r["name"].is_string() && r["description"].is_string() && r["mimeType"].is_string());
    }

    let templates = s.ok("resources/templates/list", json!({}));
    assert_eq!(
        templates["resourceTemplates"],
        json!([{
            "uriTemplate": "test://template/{id}/data",
            "name": "template",
            "title": "Resource Template",
            "description": "A resource template with parameter substitution",
            "mimeType": "application/json"
        }])
    );

    let r = s.ok("resources/read", json!({"uri":"test://static-text"}));
    assert_eq!(
        r,
        json!({"contents":[{"uri":"test://static-text","mimeType":"text/plain",
            "text":"This is the content of the static text resource."}]})
    );
    let r = s.ok("resources/read", json!({"uri":"test://static-binary"}));
    assert_eq!(
        r,
        json!({"contents":[{"uri":"test://static-binary","mimeType":"image/png","blob":PNG}]})
    );
    let r = s.ok("resources/read", json!({"uri":"test://template/123/data"}));
    assert_eq!(
        r,
        json!({"contents":[{"uri":"test://template/123/data","mimeType":"application/json",
            "text":"{\"id\":\"123\",\"templateTest\":true,\"data\":\"Data for ID: 123\"}"}]})
    );
    let r = s.ok("resources/read", json!({"uri":"test://watched-resource"}));
    assert_eq!(r["contents"][0]["text"], json!("Watched resource content"));

    let missing = "test://nonexistent-resource-for-conformance-testing";
    let r = s.request("resources/read", json!({ "uri": missing }));
    assert_eq!(code(&r), -32002, "handshake era: -32002");
    assert_eq!(r["error"]["data"]["uri"], json!(missing));
}

#[test]
fn the_watched_resource_notifies_subscribers_until_they_unsubscribe() {
    let mut s = StdioServer::start_with(&[("STDIO_SERVER_WATCH_MS", "100")]);
    s.initialize("2025-11-25");
    assert_eq!(
        s.ok(
            "resources/subscribe",
            json!({"uri":"test://watched-resource"})
        ),
        json!({})
    );
    let update = s.recv();
    assert_eq!(
        update,
        json!({"jsonrpc":"2.0","method":"notifications/resources/updated",
               "params":{"uri":"test://watched-resource"}})
    );
    let r = s.ok("resources/read", json!({"uri":"test://watched-resource"}));
    let text = r["contents"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Watched resource content (update "),
        "{text}"
    );
    assert_eq!(
        s.ok(
            "resources/unsubscribe",
            json!({"uri":"test://watched-resource"})
        ),
        json!({})
    );
    // Nothing more once the unsubscribe is answered.
    let after: Vec<Value> = std::iter::from_fn(|| s.try_recv(Duration::from_millis(350))).collect();
    assert!(after.is_empty(), "{after:?}");
}

#[test]
fn nothing_is_sent_unasked() {
    // A client that never subscribes gets no updates, however often the resource changes.
    let mut s = StdioServer::start_with(&[("STDIO_SERVER_WATCH_MS", "20")]);
    s.initialize("2025-11-25");
    assert!(s.try_recv(Duration::from_millis(300)).is_none());
}

// ---- prompts and completion ------------------------------------------------------------

#[test]
fn prompts_list_and_get() {
    let mut s = StdioServer::start();
    s.initialize("2025-11-25");
    let list = s.ok("prompts/list", json!({}));
    let names: Vec<&str> = list["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "test_prompt_with_arguments",
            "test_prompt_with_embedded_resource",
            "test_prompt_with_image",
            "test_simple_prompt"
        ]
    );
    assert_eq!(
        list["prompts"][0]["arguments"],
        json!([
            {"name":"arg1","description":"First test argument","required":true},
            {"name":"arg2","description":"Second test argument","required":true}
        ])
    );

    let r = s.ok("prompts/get", json!({"name":"test_simple_prompt"}));
    assert_eq!(
        r["messages"],
        json!([{"role":"user","content":{"type":"text","text":"This is a simple prompt for testing."}}])
    );
    let r = s.ok(
        "prompts/get",
        json!({"name":"test_prompt_with_arguments","arguments":{"arg1":"hello","arg2":"world"}}),
    );
    assert_eq!(
        r["messages"],
        json!([{"role":"user","content":{"type":"text",
            "text":"Prompt with arguments: arg1='hello', arg2='world'"}}])
    );
    let r = s.ok(
        "prompts/get",
        json!({"name":"test_prompt_with_embedded_resource",
               "arguments":{"resourceUri":"test://example-resource"}}),
    );
    assert_eq!(
        r["messages"],
        json!([
            {"role":"user","content":{"type":"resource","resource":{
                "uri":"test://example-resource","mimeType":"text/plain",
                "text":"Embedded resource content for testing."}}},
            {"role":"user","content":{"type":"text","text":"Please process the embedded resource above."}}
        ])
    );
    let r = s.ok("prompts/get", json!({"name":"test_prompt_with_image"}));
    assert_eq!(
        r["messages"],
        json!([
            {"role":"user","content":{"type":"image","data":PNG,"mimeType":"image/png"}},
            {"role":"user","content":{"type":"text","text":"Please analyze the image above."}}
        ])
    );

    let r = s.request(
        "prompts/get",
        json!({"name":"test_prompt_with_arguments","arguments":{"arg1":"x"}}),
    );
    assert_eq!(code(&r), -32602);
    assert!(r["error"]["message"].as_str().unwrap().contains("arg2"));
}

#[test]
fn completion_for_prompt_arguments_and_template_variables() {
    let mut s = StdioServer::start();
    s.initialize("2025-11-25");
    let r = s.ok(
        "completion/complete",
        json!({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},
               "argument":{"name":"arg1","value":"par"}}),
    );
    assert_eq!(r["completion"]["values"], json!(["paris", "park", "party"]));
    // The suite's own probe value matches nothing: an empty list, still a valid result.
    let r = s.ok(
        "completion/complete",
        json!({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},
               "argument":{"name":"arg1","value":"test"}}),
    );
    assert_eq!(r["completion"]["values"], json!([]));
    let r = s.ok(
        "completion/complete",
        json!({"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},
               "argument":{"name":"id","value":"1"}}),
    );
    assert_eq!(r["completion"]["values"], json!(["1", "123"]));
}

// ---- stateless era ---------------------------------------------------------------------

#[test]
fn stateless_requests_need_no_handshake() {
    let mut s = StdioServer::start();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let d = s.request("server/discover", json!({ "_meta": meta }));
    assert!(d["result"]["supportedVersions"]
        .as_array()
        .unwrap()
        .contains(&json!("2026-07-28")));
    s.version = Some("2026-07-28".into());
    let r = s.ok(
        "tools/call",
        json!({"name":"echo","arguments":{"text":"hi"},"_meta": meta}),
    );
    assert_eq!(r["resultType"], json!("complete"));
    assert_eq!(only_text(&r), "hi");
    let r = s.ok(
        "resources/read",
        json!({"uri":"test://static-text","_meta": meta}),
    );
    assert!(r["ttlMs"].is_u64() && r["cacheScope"].is_string(), "{r}");
    let r = s.request("resources/read", json!({"uri":"test://nope","_meta": meta}));
    assert_eq!(code(&r), -32602, "2026-07-28: resource not found is -32602");
}

// ---- bad input -------------------------------------------------------------------------

#[test]
fn malformed_lines_are_answered_and_the_server_keeps_serving() {
    let mut s = StdioServer::start();
    s.initialize("2025-11-25");

    s.send_raw("this is not json");
    let e = s.recv();
    assert_eq!(code(&e), -32700, "{e}");
    check_schema("2025-11-25", "JSONRPCErrorResponse", &e);

    s.send_raw("{\"jsonrpc\":\"2.0\",\"id\":");
    assert_eq!(code(&s.recv()), -32700);

    s.send_raw("{\"jsonrpc\":\"1.0\",\"id\":77,\"method\":\"ping\"}");
    let e = s.recv();
    assert_eq!(code(&e), -32600, "{e}");
    assert_eq!(e["id"], json!(77));

    s.send_raw("{\"jsonrpc\":\"2.0\",\"id\":78,\"method\":\"no/such/method\"}");
    let e = s.recv();
    assert_eq!(code(&e), -32601);
    assert_eq!(e["id"], json!(78));

    // Blank lines are not messages; CRLF line ends are accepted.
    s.send_raw("");
    s.send_raw("   ");
    s.send_raw("{\"jsonrpc\":\"2.0\",\"id\":79,\"method\":\"ping\"}\r");
    let e = s.recv();
    assert_eq!(e, json!({"jsonrpc":"2.0","id":79,"result":{}}));

    // Invalid UTF-8 inside a string: replaced, not fatal.
    s.stdin
        .as_mut()
        .unwrap()
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":80,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"a\xffb\"}}}\n")
        .unwrap();
    s.stdin.as_mut().unwrap().flush().unwrap();
    let r = s.recv();
    assert_eq!(r["id"], json!(80));
    assert_eq!(only_text(&r["result"]), "a\u{FFFD}b");

    assert_eq!(
        only_text(&s.call("echo", json!({"text":"still here"}))),
        "still here"
    );
    let (status, _) = s.finish();
    assert!(status.success());
}

#[test]
fn requests_before_initialize_are_refused() {
    let mut s = StdioServer::start();
    let r = s.request("tools/list", json!({}));
    assert_eq!(code(&r), -32600, "{r}");
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("initialize"));
}

#[test]
fn cancelled_requests_get_no_answer() {
    let mut s = StdioServer::start();
    s.initialize("2025-11-25");
    let id = s.start_request(
        "tools/call",
        json!({"name":"test_tool_with_logging","arguments":{}}),
    );
    s.notify(
        "notifications/cancelled",
        json!({"requestId": id, "reason": "test"}),
    );
    let r = s.request("ping", json!({}));
    assert_eq!(r["result"], json!({}));
    let later: Vec<Value> = std::iter::from_fn(|| s.try_recv(Duration::from_millis(300))).collect();
    assert!(
        later.iter().all(|m| m.get("id") != Some(&json!(id))),
        "{later:?}"
    );
}

// ---- end of input ----------------------------------------------------------------------

#[test]
fn eof_finishes_in_flight_work_then_exits_zero() {
    let mut s = StdioServer::start();
    s.initialize("2025-11-25");
    let id = s.start_request(
        "tools/call",
        json!({"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":"t"}}),
    );
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    let progress = rest
        .iter()
        .filter(|m| m["method"] == json!("notifications/progress"))
        .count();
    assert_eq!(progress, 3, "{rest:?}");
    let answer = rest
        .iter()
        .find(|m| m["id"] == json!(id))
        .expect("the in-flight call is answered before exit");
    assert_eq!(only_text(&answer["result"]), "t");
}

#[test]
fn a_closed_stdout_stops_the_server_with_status_1() {
    let mut child = Command::new(binary())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .env("STDIO_SERVER_WATCH_MS", "0")
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the client stops reading
    let mut stdin = child.stdin.take().unwrap();
    let line = json!({"jsonrpc":"2.0","id":1,"method":"ping"}).to_string() + "\n";
    // The server may already be gone by the second write; that is fine.
    let _ = stdin.write_all(line.as_bytes());
    let _ = stdin.flush();
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "the server kept running");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.code(), Some(1));
}

#[test]
fn eof_right_away_exits_zero_silently() {
    let s = StdioServer::start();
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert!(rest.is_empty(), "{rest:?}");
}

// ---- hostile input: every kind answered with the request's id, then the next request ------

/// The server's peak resident memory so far, in KiB (Linux `VmHWM`).
fn peak_rss_kib(s: &StdioServer) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", s.child.id())).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

#[test]
fn oversized_lines_are_refused_while_read_and_answered_with_their_id() {
    let mut s = StdioServer::start_with(&[("STDIO_SERVER_MAX_LINE_BYTES", "1000")]);
    s.initialize("2025-11-25");
    let line = |id: &str, pad: usize| {
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x".repeat(pad)}}}).to_string()
    };
    let fits = line("fits", 900);
    assert!(fits.len() <= 1000);
    s.send_raw(&fits);
    assert_eq!(s.recv()["id"], json!("fits"));
    for pad in [1000, 5 << 20] {
        let big = line("big", pad);
        s.send_raw(&big);
        let e = s.recv();
        assert_eq!(e["id"], json!("big"), "{e}");
        assert_eq!(code(&e), -32600);
        assert_eq!(
            e["error"]["data"],
            json!({"limit": 1000, "actual": big.len()})
        );
        check_schema("2025-11-25", "JSONRPCErrorResponse", &e);
        assert_eq!(s.request("ping", json!({}))["result"], json!({}));
    }
    // An oversized notification is dropped; the next request is answered.
    s.send_raw(&json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"pad":"y".repeat(4000)}}).to_string());
    assert_eq!(only_text(&s.call("echo", json!({"text":"after"}))), "after");
    let (status, _) = s.finish();
    assert!(status.success());
}

#[test]
fn a_64_mib_line_never_reaches_memory_whole() {
    // Default limit (4 MiB): the line is read in chunks and dropped past the limit, so the
    // server's peak memory stays far below the line's size.
    let mut s = StdioServer::start();
    s.initialize("2025-11-25");
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}}}}}}"#,
        "z".repeat(64 << 20)
    );
    s.send_raw(&big);
    let e = s.recv();
    assert_eq!(e["id"], json!("huge"));
    assert_eq!(e["error"]["data"]["actual"], json!(big.len()));
    drop(big);
    assert_eq!(s.request("ping", json!({}))["result"], json!({}));
    if let Some(kib) = peak_rss_kib(&s) {
        assert!(kib < 32 * 1024, "peak RSS {kib} KiB for a 64 MiB line");
    }
    let (status, _) = s.finish();
    assert!(status.success());
}

#[test]
fn deep_nesting_and_lone_surrogates_are_answered_with_their_id() {
    let mut s = StdioServer::start();
    s.initialize("2025-06-18");
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{{"name":"echo","arguments":{{"a":{}{}}}}}}}"#,
        "[".repeat(1_000_000),
        "]".repeat(1_000_000)
    );
    s.send_raw(&deep);
    let e = s.recv();
    assert_eq!(e["id"], json!("deep"), "{e}");
    assert_eq!(code(&e), -32600);
    check_schema("2025-06-18", "JSONRPCError", &e);
    assert_eq!(s.request("ping", json!({}))["result"], json!({}));
    s.send_raw(r#"{"jsonrpc":"2.0","id":"lone","method":"tools/call","params":{"name":"echo","arguments":{"text":"a\ud800b"}}}"#);
    let e = s.recv();
    assert_eq!(e["id"], json!("lone"), "{e}");
    assert_eq!(code(&e), -32700);
    check_schema("2025-06-18", "JSONRPCError", &e);
    assert_eq!(only_text(&s.call("echo", json!({"text":"next"}))), "next");
    let (status, _) = s.finish();
    assert!(status.success());
}

#[test]
fn a_client_writing_faster_than_it_reads_is_slowed_not_buffered() {
    // 40,000 requests (10 MB) written while nothing reads the replies: the server's output
    // pipe fills, the engine waits on it, the bounded inbox fills, the reader stops reading,
    // and the writer blocks (backpressure) instead of the server buffering the backlog.
    // Once the replies are read, every request is answered.
    let mut child = Command::new(binary())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .env("STDIO_SERVER_WATCH_MS", "0")
        .env("STDIO_SERVER_QUEUE_BYTES", "65536")
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    const N: usize = 40_000;
    let writer = std::thread::spawn(move || {
        let init = json!({"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
        stdin.write_all(format!("{init}\n").as_bytes()).unwrap();
        let mut buf = Vec::new();
        for i in 0..N {
            let m = json!({"jsonrpc":"2.0","id":format!("p{i}"),"method":"tools/call","params":{"name":"echo","arguments":{"text":"w".repeat(200)}}});
            buf.extend_from_slice(format!("{m}\n").as_bytes());
            if buf.len() > 1 << 16 {
                stdin.write_all(&buf).unwrap();
                buf.clear();
            }
        }
        stdin.write_all(&buf).unwrap();
        drop(stdin); // end of input once all is written
    });
    let pid = child.id();
    let status_kib = |key: &str| -> Option<u64> {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()?
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    };
    std::thread::sleep(Duration::from_millis(1000));
    assert!(
        !writer.is_finished(),
        "nothing reads the replies, so the writer must be held back"
    );
    let held = status_kib("VmHWM:");
    let mut answered = std::collections::HashSet::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let m: Value = serde_json::from_str(&line.unwrap()).unwrap();
        assert!(m.get("result").is_some(), "{m}");
        answered.insert(m["id"].as_str().unwrap().to_string());
    }
    writer.join().unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(answered.len(), N + 1, "every request answered");
    if let Some(kib) = held {
        assert!(
            kib < 32 * 1024,
            "peak RSS {kib} KiB while the backlog waited"
        );
    }
}

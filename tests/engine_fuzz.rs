//! A deterministic property test over the message handler: thousands of random and mutated
//! messages (valid requests with fields deleted or retyped, random bytes, truncated JSON,
//! deep nesting, huge strings, random methods, batches) fed to a session of every version.
//!
//! Properties: the engine never panics; every request with a readable id gets exactly one
//! response carrying that id; unreadable messages get exactly one id-less error; every
//! message emitted is valid for the version in force (the harness checks each one); no
//! request is left in flight; and the session still answers a good `tools/call` afterwards.
mod support;

use modelcontext_polyfill::collections::VecMap;
use modelcontext_polyfill::protocol::jsonrpc;
use modelcontext_polyfill::server::{
    HandlerError, Limits, LogLevel, PromptDef, RequestContext, ResourceDef, ServerConfig, ToolDef,
};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use support::*;

const MAX_BYTES: usize = 48 * 1024;
const MAX_DEPTH: usize = 24;
const MAX_BATCH: usize = 6;
const ITERATIONS: usize = 1000;

const TOOLS: [&str; 6] = ["echo", "fails", "typed", "progress", "chatty", "nope"];
const URIS: [&str; 5] = [
    "app://static",
    "app://items/7",
    "app://items/x/y",
    "app://missing",
    "",
];
const METHODS: [&str; 20] = [
    "ping",
    "initialize",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "logging/setLevel",
    "completion/complete",
    "server/discover",
    "subscriptions/listen",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "foo/bar",
    "",
];

fn server_setup(h: &Harness) {
    let s = &h.server;
    s.register_tool(
        ToolDef::new("echo", "Echoes", |a: Value, _c| async move { Ok::<_, HandlerError>(a) })
            .input_schema(json!({"type":"object","properties":{"s":{"type":"string"},"n":{"type":"integer","minimum":0}}})),
    )
    .unwrap();
    s.register_tool(ToolDef::new("fails", "Fails", |_a: Value, _c| async {
        Err::<Value, _>(HandlerError::new("nope"))
    }))
    .unwrap();
    s.register_tool(
        ToolDef::new("typed", "Structured", |a: Value, _c| async move {
            Ok::<_, HandlerError>(if a.get("bad").is_some() {
                json!({"n":"x"})
            } else {
                json!({"n": 1})
            })
        })
        .output_schema(
            json!({"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}),
        ),
    )
    .unwrap();
    s.register_tool(ToolDef::new(
        "progress",
        "Progress",
        |_a: Value, ctx: RequestContext| async move {
            for i in 1..4 {
                ctx.report_progress(i as f64, Some(3.0), Some("step"));
            }
            Ok::<_, HandlerError>(
                json!({"content":[{"type":"audio","data":"aGk=","mimeType":"audio/wav"},
            {"type":"resource_link","uri":"app://static","name":"s"}]}),
            )
        },
    ))
    .unwrap();
    s.register_tool(ToolDef::new(
        "chatty",
        "Logs",
        |_a: Value, ctx: RequestContext| async move {
            ctx.log(LogLevel::Info, Some("fuzz"), json!({"k": 1}));
            ctx.log(LogLevel::Error, None, json!("bad"));
            Ok::<_, HandlerError>(json!(null))
        },
    ))
    .unwrap();
    s.register_resource(ResourceDef::new(
        "app://static",
        "static",
        |_u: String, _v: VecMap<String, String>, _c| async { Ok::<_, HandlerError>(json!("text")) },
    ))
    .unwrap();
    s.register_resource(
        ResourceDef::new(
            "app://items/{id}",
            "item",
            |_u: String, v: VecMap<String, String>, _c| async move {
                if v.get("id").map(String::as_str) == Some("7") {
                    Ok::<_, HandlerError>(json!({"contents":[{"blob":"aGk="}]}))
                } else {
                    Err(HandlerError::new("no such item"))
                }
            },
        )
        .completer(
            "id",
            |_a: String, v: String, _c: VecMap<String, String>| async move {
                Ok::<_, HandlerError>(json!((0..150)
                    .map(|i| format!("{v}{i}"))
                    .collect::<Vec<_>>()))
            },
        ),
    )
    .unwrap();
    s.register_prompt(
        PromptDef::new(
            "p",
            |a: VecMap<String, String>, _c: RequestContext| async move {
                Ok::<_, HandlerError>(json!(format!("{a:?}")))
            },
        )
        .argument("x", "an x", true)
        .argument("y", "", false)
        .completer(
            "x",
            |_a: String, _v: String, _c: VecMap<String, String>| async {
                Ok::<_, HandlerError>(json!(["a", "b"]))
            },
        ),
    )
    .unwrap();
    h.run();
}

fn random_string(rng: &mut Rng) -> String {
    let pool = [
        "",
        "a",
        "echo",
        "ÿ",
        "🙂",
        "\u{0}",
        "\"",
        "\\",
        "{",
        "]",
        "2025-06-18",
        "x y",
        "app://",
    ];
    let mut s = String::new();
    for _ in 0..rng.below(4) {
        s.push_str(pool[rng.below(pool.len())]);
    }
    s
}

fn random_value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth == 0 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => json!(rng.chance(50)),
        2 => json!(rng.below(1000) as i64 - 500),
        3 => json!((rng.below(10_000) as f64) / 7.0),
        4 => json!(random_string(rng)),
        5 => json!(u64::MAX),
        6 => Value::Array(
            (0..rng.below(4))
                .map(|_| random_value(rng, depth - 1))
                .collect(),
        ),
        _ => {
            let mut m = Map::new();
            for _ in 0..rng.below(4) {
                let k = random_string(rng);
                m.insert(k, random_value(rng, depth - 1));
            }
            Value::Object(m)
        }
    }
}

/// Plausible params for `method`.
fn params_for(rng: &mut Rng, method: &str) -> Value {
    match method {
        "initialize" => {
            json!({"protocolVersion": rng.pick(&["2024-11-05","2025-03-26","2025-06-18","2025-11-25","2026-07-28","2099-01-01"]),
                               "capabilities": {}, "clientInfo": {"name":"fuzz","version":"1"}})
        }
        "tools/call" => {
            let args = match rng.below(5) {
                0 => json!({"s": random_string(rng), "n": rng.below(5)}),
                1 => json!({"n": -1}),
                2 => json!({"bad": true}),
                3 => random_value(rng, 2),
                _ => json!({}),
            };
            json!({"name": rng.pick(&TOOLS), "arguments": args})
        }
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            json!({"uri": rng.pick(&URIS)})
        }
        "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list" => {
            match rng.below(3) {
                0 => json!({"cursor": rng.pick(&["617070", "zz", "", "6563686f"])}),
                _ => json!({}),
            }
        }
        "prompts/get" => json!({"name": rng.pick(&["p", "q"]), "arguments": match rng.below(3) {
            0 => json!({"x": "1"}),
            1 => json!({"x": 1, "z": "2"}),
            _ => json!({}),
        }}),
        "logging/setLevel" => {
            json!({"level": rng.pick(&["debug","info","warning","emergency","loud"])})
        }
        "completion/complete" => match rng.below(3) {
            0 => {
                json!({"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"x","value":"a"}})
            }
            1 => {
                json!({"ref":{"type":"ref/resource","uri":"app://items/{id}"},"argument":{"name":"id","value":"7"}})
            }
            _ => {
                json!({"ref":{"type":"ref/tool","name":"echo"},"argument":{"name":"x","value":""}})
            }
        },
        "subscriptions/listen" => json!({"notifications": {"toolsListChanged": rng.chance(50),
            "resourceSubscriptions": ["app://static"]}}),
        "notifications/cancelled" => json!({"requestId": rng.below(50), "reason": "fuzz"}),
        "notifications/progress" => json!({"progressToken": 1, "progress": 1}),
        _ => json!({}),
    }
}

struct Gen {
    rng: Rng,
    next_id: i64,
    stateless: bool,
}

impl Gen {
    fn id(&mut self) -> Value {
        self.next_id += 1;
        if self.rng.chance(30) {
            json!(format!("s{}", self.next_id))
        } else if self.rng.chance(10) {
            json!(-self.next_id)
        } else {
            json!(self.next_id)
        }
    }

    /// A well-formed request or notification.
    fn valid(&mut self) -> Value {
        let method = self.rng.pick(&METHODS).to_string();
        let mut params = params_for(&mut self.rng, &method);
        if self.stateless || self.rng.chance(5) {
            let mut meta = Harness::stateless_meta(json!({}));
            if self.rng.chance(20) {
                meta["progressToken"] = json!("pt");
            }
            if self.rng.chance(20) {
                meta["io.modelcontextprotocol/logLevel"] = json!("info");
            }
            if self.rng.chance(5) {
                meta["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
            }
            params["_meta"] = meta;
        } else if self.rng.chance(15) {
            params["_meta"] = json!({"progressToken": self.next_id});
        }
        let mut m = json!({"jsonrpc":"2.0","method": method, "params": params});
        if !method.starts_with("notifications/") || self.rng.chance(5) {
            m["id"] = self.id();
        }
        m
    }

    fn mutate(&mut self, mut m: Value) -> Value {
        for _ in 0..=self.rng.below(3) {
            let Some(obj) = m.as_object_mut() else { break };
            match self.rng.below(10) {
                0 => {
                    let keys: Vec<String> = obj.keys().cloned().collect();
                    if !keys.is_empty() {
                        obj.remove(&keys[self.rng.below(keys.len())]);
                    }
                }
                1 => {
                    if let Some(Value::Object(p)) = obj.get_mut("params") {
                        let keys: Vec<String> = p.keys().cloned().collect();
                        if !keys.is_empty() {
                            let k = &keys[self.rng.below(keys.len())];
                            if self.rng.chance(50) {
                                p.remove(k);
                            } else {
                                let v = random_value(&mut self.rng, 3);
                                p.insert(k.clone(), v);
                            }
                        }
                    }
                }
                2 => {
                    let weird = [
                        json!(null),
                        json!(1.5),
                        json!(true),
                        json!({}),
                        json!([1]),
                        json!(1e300),
                    ];
                    obj.insert("id".into(), self.rng.pick(&weird).clone());
                }
                3 => {
                    let v = self
                        .rng
                        .pick(&[json!("1.0"), json!(2), json!(null)])
                        .clone();
                    obj.insert("jsonrpc".into(), v);
                }
                4 => {
                    let v = if self.rng.chance(50) {
                        random_value(&mut self.rng, 2)
                    } else {
                        json!(random_string(&mut self.rng))
                    };
                    obj.insert("method".into(), v);
                }
                5 => {
                    let v = random_value(&mut self.rng, 2);
                    obj.insert("params".into(), v);
                }
                6 => {
                    let mut deep = json!("bottom");
                    for _ in 0..self.rng.below(40) {
                        deep = if self.rng.chance(50) {
                            json!([deep])
                        } else {
                            json!({"d": deep})
                        };
                    }
                    if let Some(Value::Object(p)) = obj.get_mut("params") {
                        p.insert("arguments".into(), json!({"deep": deep}));
                    }
                }
                7 => {
                    let size = *self.rng.pick(&[10, 1000, 40_000, 60_000]);
                    if let Some(Value::Object(p)) = obj.get_mut("params") {
                        p.insert("arguments".into(), json!({"s": "x".repeat(size)}));
                    }
                }
                8 => {
                    obj.insert("result".into(), json!({}));
                }
                _ => {
                    let k = random_string(&mut self.rng);
                    let v = random_value(&mut self.rng, 2);
                    obj.insert(k, v);
                }
            }
        }
        m
    }

    fn element(&mut self) -> Value {
        let v = self.valid();
        if self.rng.chance(40) {
            self.mutate(v)
        } else {
            v
        }
    }

    /// The next message as text.
    fn message(&mut self) -> String {
        let value = match self.rng.below(10) {
            0 => Value::Array(
                (0..self.rng.below(MAX_BATCH + 3))
                    .map(|_| self.element())
                    .collect(),
            ),
            1 => random_value(&mut self.rng, 3),
            _ => self.element(),
        };
        let mut text = value.to_string();
        if self.rng.chance(15) {
            let mut chars: Vec<char> = text.chars().collect();
            match self.rng.below(4) {
                0 => chars.truncate(self.rng.below(chars.len() + 1)),
                1 => {
                    let c = *self
                        .rng
                        .pick(&['{', '}', '[', ']', '"', ',', ':', '\\', 'x', '\u{7f}', 'é']);
                    let at = self.rng.below(chars.len() + 1);
                    chars.insert(at, c);
                }
                2 => {
                    let at = self.rng.below(chars.len().max(1));
                    if at < chars.len() {
                        chars.remove(at);
                    }
                }
                _ => chars.extend(" garbage".chars()),
            }
            text = chars.into_iter().collect();
        }
        text
    }
}

/// What the server must answer to one message: ids with how many responses each, whether
/// some id may get none (a `subscriptions/listen` stream), and how many id-less errors.
#[derive(Default, Debug)]
struct Expect {
    ids: HashMap<String, usize>,
    optional: Vec<String>,
    anonymous: usize,
    /// Refused before parsing (size, syntax, depth): one error, addressed to the request's
    /// id when the server could read it from the text, else anonymous; none for what reads
    /// as a response (`anonymous` 0).
    unparsed: bool,
}

fn readable_id(v: &Value) -> Option<Value> {
    match v {
        Value::String(_) => Some(v.clone()),
        Value::Number(n) if n.as_i64().is_some() => Some(v.clone()),
        _ => None,
    }
}

fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// JSON-RPC 2.0 read independently of the engine: `Some(id)` when the message calls for a
/// reply (`Some(None)`: an error without id), `None` when it calls for none.
fn reply_for(m: &Value) -> Option<Option<Value>> {
    let Some(o) = m.as_object() else {
        return Some(None);
    };
    let id = o.get("id").and_then(readable_id);
    if o.get("jsonrpc") != Some(&json!("2.0")) {
        return Some(id);
    }
    if o.contains_key("id") && id.is_none() {
        return Some(None);
    }
    if let Some(method) = o.get("method") {
        let params_ok = o
            .get("params")
            .is_none_or(|p| p.is_object() || p.is_array());
        if !method.is_string() || o.contains_key("result") || o.contains_key("error") || !params_ok
        {
            return Some(id);
        }
        return id.map(Some);
    }
    match (o.get("result"), o.get("error")) {
        (Some(_), None) if id.is_some() => None,
        (None, Some(e))
            if e.get("code").is_some_and(|c| c.as_i64().is_some())
                && e.get("message").is_some_and(Value::is_string) =>
        {
            None
        }
        _ => Some(id),
    }
}

fn expect(text: &str, batches_allowed: bool) -> Expect {
    let mut e = Expect::default();
    // (A client's answer is not answered, even refused: its id is the server's.)
    let answers = if jsonrpc::peeks_as_response(text) {
        0
    } else {
        1
    };
    let unparsed = |mut e: Expect| {
        e.anonymous = answers;
        e.unparsed = true;
        e
    };
    if text.len() > MAX_BYTES {
        return unparsed(e);
    }
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return unparsed(e);
    };
    if depth(&value) > MAX_DEPTH {
        return unparsed(e);
    }
    let items = match value {
        Value::Array(items) => {
            if !batches_allowed || items.is_empty() || items.len() > MAX_BATCH {
                e.anonymous = 1;
                return e;
            }
            items
        }
        single => vec![single],
    };
    for m in &items {
        match reply_for(m) {
            None => {}
            Some(None) => e.anonymous += 1,
            Some(Some(id)) => {
                let key = id.to_string();
                if m["method"] == json!("subscriptions/listen") {
                    e.optional.push(key.clone());
                }
                *e.ids.entry(key).or_default() += 1;
            }
        }
    }
    e
}

fn run_fuzz(state: Option<&str>, seed: u64) {
    let h = Harness::with_config(ServerConfig {
        limits: Limits {
            max_message_bytes: MAX_BYTES,
            max_depth: MAX_DEPTH,
            max_batch_len: MAX_BATCH,
            max_in_flight: 16,
            max_queued: 64,
            ..Limits::default()
        },
        page_size: 2,
        ..ServerConfig::default()
    });
    server_setup(&h);
    let stateless = state == Some(STATELESS);
    if let Some(v) = state.filter(|_| !stateless) {
        h.initialize(v);
    }
    h.take();
    let mut g = Gen {
        rng: Rng(seed),
        next_id: 1000,
        stateless,
    };
    for i in 0..ITERATIONS {
        let text = g.message();
        let batches = h
            .session
            .protocol_version()
            .is_some_and(|v| v.as_str() == "2025-03-26");
        let want = expect(&text, batches);
        let out = h.exchange_text(&text);
        let mut got: HashMap<String, usize> = HashMap::new();
        let mut anonymous = 0;
        for m in out.iter().flat_map(|m| match m {
            Value::Array(a) => a.clone(),
            other => vec![other.clone()],
        }) {
            if m.get("method").is_some() {
                assert!(m.get("id").is_none(), "no server requests expected: {m}");
                continue;
            }
            match m.get("id") {
                Some(id) => *got.entry(id.to_string()).or_default() += 1,
                None => {
                    assert!(m.get("error").is_some(), "{m}");
                    anonymous += 1;
                }
            }
        }
        let ctx = || {
            format!(
                "{state:?} #{i}: {}\nexpected {want:?}\ngot {out:?}",
                text.chars().take(300).collect::<String>()
            )
        };
        if want.unparsed {
            // One error; an id it carries must be one the text holds as an `"id"` member.
            let addressed: Vec<&String> = got.keys().collect();
            assert_eq!(
                anonymous + got.values().sum::<usize>(),
                want.anonymous,
                "{}",
                ctx()
            );
            for id in addressed {
                assert!(
                    text.contains(&format!("\"id\":{id}")),
                    "id {id} not in the text: {}",
                    ctx()
                );
            }
            assert_eq!(h.session.in_flight(), 0, "{}", ctx());
            continue;
        }
        for (id, n) in &want.ids {
            let g = got.get(id).copied().unwrap_or(0);
            if want.optional.contains(id) {
                assert!(g <= *n, "{}", ctx());
            } else {
                assert_eq!(g, *n, "id {id}: {}", ctx());
            }
        }
        for id in got.keys() {
            assert!(
                want.ids.contains_key(id),
                "unexpected response id {id}: {}",
                ctx()
            );
        }
        assert_eq!(anonymous, want.anonymous, "id-less errors: {}", ctx());
        assert_eq!(h.session.in_flight(), 0, "{}", ctx());
    }
    // Still serving.
    let mut params = json!({"name":"echo","arguments":{"s":"still here"}});
    if stateless || h.session.protocol_version().is_none() {
        params["_meta"] = Harness::stateless_meta(json!({}));
    }
    let out = h.send_request(json!("final"), "tools/call", params);
    let r = out
        .iter()
        .find(|m| m["id"] == json!("final"))
        .expect("a final response");
    assert_eq!(
        r["result"]["content"][0]["text"],
        json!("{\"s\":\"still here\"}"),
        "{state:?}: {r}"
    );
}

#[test]
fn fuzz_an_uninitialized_session() {
    run_fuzz(None, 0x9E37_79B9_7F4A_7C15);
}

#[test]
fn fuzz_2024_11_05() {
    run_fuzz(Some("2024-11-05"), 1);
}

#[test]
fn fuzz_2025_03_26_with_batches() {
    run_fuzz(Some("2025-03-26"), 2);
}

#[test]
fn fuzz_2025_06_18() {
    run_fuzz(Some("2025-06-18"), 3);
}

#[test]
fn fuzz_2025_11_25() {
    run_fuzz(Some("2025-11-25"), 4);
}

#[test]
fn fuzz_2026_07_28_stateless() {
    run_fuzz(Some(STATELESS), 5);
}

#[test]
fn fuzz_more_seeds() {
    for seed in 10..14 {
        for state in [Some("2025-03-26"), Some("2025-11-25"), Some(STATELESS)] {
            run_fuzz(state, seed * 7919);
        }
    }
}

/// Every method, in both eras, given a large value in place of each of its parameters (and of
/// the fields of its object parameters): a string of 200,000 characters, 20,000 strings and an
/// object of 20,000 members, both in descending order. Each request is answered (a listen
/// stream by its acknowledgement or refusal), no answer is larger than the request that caused
/// it by more than 4 KB (errors quote a peer's value shortened, reports are bounded), and the
/// session serves the next request.
#[test]
fn large_values_in_any_parameter_get_answers_no_larger_than_the_request() {
    let mut object = Map::new();
    for i in (0..20_000).rev() {
        object.insert(format!("k{i:05}"), json!("v"));
    }
    let bigs = [
        json!("x".repeat(200_000)),
        json!((0..20_000)
            .rev()
            .map(|i| format!("k{i:05}"))
            .collect::<Vec<_>>()),
        Value::Object(object),
    ];
    let bases = [
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({"name": "checked", "arguments": {"s": "x"}}),
        ),
        ("resources/list", json!({})),
        ("resources/read", json!({"uri": "app://items/7"})),
        ("resources/subscribe", json!({"uri": "app://static"})),
        ("prompts/get", json!({"name": "p", "arguments": {"x": "1"}})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "p"},
                   "argument": {"name": "x", "value": "a"}, "context": {"arguments": {}}}),
        ),
        ("logging/setLevel", json!({"level": "info"})),
        ("server/discover", json!({})),
        (
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true, "resourceSubscriptions": [], "taskIds": []}}),
        ),
        ("tasks/get", json!({"taskId": "t1"})),
        (
            "tasks/update",
            json!({"taskId": "t1", "inputResponses": {}}),
        ),
    ];
    let extras = ["cursor", "_meta", "requestState", "inputResponses"];
    let mut sent = 0;
    for stateless in [false, true] {
        for (method, base) in &bases {
            let fields = base.as_object().unwrap();
            // Each parameter, each extra one, and each field of an object parameter.
            let mut places: Vec<(String, Option<String>)> = fields
                .keys()
                .chain(
                    extras
                        .iter()
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                        .iter(),
                )
                .map(|k| (k.clone(), None))
                .collect();
            places.dedup();
            for (k, v) in fields {
                if let Value::Object(o) = v {
                    places.extend(o.keys().map(|f| (k.clone(), Some(f.clone()))));
                }
            }
            places.push(("_meta".into(), Some("progressToken".into())));
            for big in &bigs {
                for (k, field) in &places {
                    let mut params = base.clone();
                    match field {
                        None => params[k.as_str()] = big.clone(),
                        Some(f) => {
                            if !params[k.as_str()].is_object() {
                                params[k.as_str()] = json!({});
                            }
                            params[k.as_str()][f.as_str()] = big.clone();
                        }
                    }
                    let h = Harness::new();
                    server_setup(&h);
                    h.server
                        .register_tool(
                            ToolDef::new("checked", "Small answer", |_a: Value, _c| async {
                                Ok::<_, HandlerError>(json!("ok"))
                            })
                            .input_schema(
                                json!({"type": "object", "properties": {
                                "s": {"type": "string", "maxLength": 8},
                                "t": {"type": "array", "items": {"type": "integer"}}},
                                "additionalProperties": {"type": "integer"}}),
                            ),
                        )
                        .unwrap();
                    if stateless {
                        match params.get_mut("_meta") {
                            Some(meta @ Value::Object(_)) => {
                                let era = Harness::stateless_meta(json!({}));
                                for (k, v) in era.as_object().unwrap() {
                                    meta[k.as_str()] = v.clone();
                                }
                            }
                            // A large `_meta` of another type: refused for it.
                            Some(_) => {}
                            None => params["_meta"] = Harness::stateless_meta(json!({})),
                        }
                    } else {
                        h.initialize("2025-11-25");
                        h.take();
                    }
                    let text =
                        json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
                            .to_string();
                    h.send_text(&text);
                    let what = format!(
                        "{method} {k}{}",
                        field
                            .as_deref()
                            .map(|f| format!(".{f}"))
                            .unwrap_or_default()
                    );
                    let out = h.take();
                    assert!(!out.is_empty(), "{what}: no answer");
                    for m in &out {
                        let size = m.to_string().len();
                        assert!(
                            size <= text.len() + 4096,
                            "{what}: {size} B for {} B",
                            text.len()
                        );
                    }
                    let next = if stateless {
                        h.stateless("tools/list", json!({}))
                    } else {
                        h.request("ping", json!({}))
                    };
                    assert!(next.get("result").is_some(), "{what}: then {next}");
                    sent += 1;
                }
            }
        }
    }
    assert!(sent > 300, "{sent} requests");
}

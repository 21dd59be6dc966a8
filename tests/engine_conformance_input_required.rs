//! Input-required results (SEP-2322, 2026-07-28), as the official conformance suite's
//! `input-required-result-*` and `server-stateless` scenarios exercise them: a handler returns
//! `{resultType: "input_required", inputRequests, requestState}`, the client retries with
//! `inputResponses` and the signed `requestState`; tampering, malformed inputs and undeclared
//! capabilities are refused; in the handshake era the engine asks the client itself.
mod support;

use modelcontext_polyfill::collections::VecMap;
use modelcontext_polyfill::executor::LocalExecutor;
use modelcontext_polyfill::schema::JsonSchemaCompiler;
use modelcontext_polyfill::server::{
    HandlerResult, LocalBoxFuture, PromptDef, RequestContext, ResourceDef, Server, ServerConfig,
    ServerInfo, Session, ToolDef, ToolHandler,
};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use support::McpSchemas;

const V: &str = "2026-07-28";

/// A server, one session, its captured output.
struct H {
    ex: LocalExecutor,
    server: Server,
    session: Session,
    out: Rc<RefCell<Vec<Value>>>,
    next: RefCell<i64>,
}

impl H {
    fn new() -> H {
        let ex = LocalExecutor::new();
        let server = Server::new(
            ServerInfo::new("t", "1"),
            ServerConfig::default(),
            Rc::new(ex.clone()),
            Rc::new(JsonSchemaCompiler::new()),
        );
        H::on(ex, server)
    }

    fn on(ex: LocalExecutor, server: Server) -> H {
        let out = Rc::new(RefCell::new(Vec::new()));
        let sink = out.clone();
        let session =
            server.connect(move |t| sink.borrow_mut().push(serde_json::from_str(&t).unwrap()));
        H {
            ex,
            server,
            session,
            out,
            next: RefCell::new(0),
        }
    }

    fn take(&self) -> Vec<Value> {
        self.ex.run_until_stalled();
        std::mem::take(&mut *self.out.borrow_mut())
    }

    fn send(&self, v: Value) -> Vec<Value> {
        self.session.receive(&v.to_string());
        self.take()
    }

    /// A stateless request; `extra` is merged into params; returns the response.
    fn call(&self, method: &str, params: Value, caps: Value) -> Value {
        let id = {
            let mut n = self.next.borrow_mut();
            *n += 1;
            *n
        };
        let mut p = params;
        p["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientCapabilities": caps,
        });
        let out = self.send(json!({"jsonrpc":"2.0","id":id,"method":method,"params":p}));
        out.into_iter()
            .find(|m| m["id"] == json!(id) && m.get("method").is_none())
            .unwrap_or_else(|| panic!("no answer to {method}"))
    }
}

/// What the handler saw on each call: its input responses and its request state.
type Seen = Rc<RefCell<Vec<(Option<Value>, Option<String>)>>>;

fn all_caps() -> Value {
    json!({"sampling":{},"elicitation":{},"roots":{}})
}

fn ask_name() -> Value {
    json!({"method":"elicitation/create","params":{"message":"What is your name?",
        "requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}})
}

/// The conformance suite's `test_input_required_result_elicitation`, plus a state check: asks
/// for `user_name` with requestState "s1" until it has the answer and its state back.
fn greeter(seen: Seen) -> ToolDef {
    ToolDef::new(
        "greet",
        "Greets whoever answers",
        move |_: Value, ctx: RequestContext| {
            let seen = seen.clone();
            async move {
                let responses = ctx.input_responses().map(|r| Value::Object(r.clone()));
                let state = ctx.request_state().map(String::from);
                seen.borrow_mut().push((responses.clone(), state.clone()));
                let answer = responses.as_ref().and_then(|r| r.get("user_name")).cloned();
                match (answer, state.as_deref()) {
                    (Some(a), Some("s1")) => Ok(json!(format!(
                        "Hello, {}!",
                        a["content"]["name"].as_str().unwrap_or("?")
                    ))),
                    _ => Ok(json!({
                        "resultType": "input_required",
                        "inputRequests": { "user_name": ask_name() },
                        "requestState": "s1",
                    })),
                }
            }
        },
    )
}

fn accept(content: Value) -> Value {
    json!({"action":"accept","content":content})
}

#[test]
fn a_handler_asks_and_the_retry_completes_with_its_state_back() {
    let h = H::new();
    let seen = Rc::new(RefCell::new(Vec::new()));
    h.server.register_tool(greeter(seen.clone())).unwrap();
    let schemas = McpSchemas::default();

    let r1 = h.call(
        "tools/call",
        json!({"name":"greet","arguments":{}}),
        all_caps(),
    );
    let result = &r1["result"];
    schemas.check(V, "InputRequiredResult", result);
    assert_eq!(result["resultType"], json!("input_required"));
    assert_eq!(result["inputRequests"]["user_name"], ask_name());
    let state = result["requestState"].as_str().unwrap().to_string();
    assert_ne!(state, "s1", "the state leaves signed");
    assert!(result.get("ttlMs").is_none());

    let r2 = h.call(
        "tools/call",
        json!({"name":"greet","arguments":{},
               "inputResponses":{"user_name": accept(json!({"name":"Alice"})), "extra": {"action":"accept"}},
               "requestState": state}),
        all_caps(),
    );
    schemas.check(V, "CallToolResult", &r2["result"]);
    assert_eq!(r2["result"]["resultType"], json!("complete"));
    assert_eq!(
        r2["result"]["content"],
        json!([{"type":"text","text":"Hello, Alice!"}])
    );
    let seen = seen.borrow();
    assert_eq!(seen[0], (None, None));
    assert_eq!(
        seen[1].1.as_deref(),
        Some("s1"),
        "the handler sees its state as written"
    );
}

#[test]
fn wrong_keys_are_asked_again_and_bad_inputs_are_refused() {
    let h = H::new();
    h.server
        .register_tool(greeter(Rc::new(RefCell::new(Vec::new()))))
        .unwrap();
    let first = h.call(
        "tools/call",
        json!({"name":"greet","arguments":{}}),
        all_caps(),
    );
    let state = first["result"]["requestState"].clone();

    // A wrong key: the handler asks again (no error).
    let again = h.call(
        "tools/call",
        json!({"name":"greet","arguments":{},"inputResponses":{"wrong_key": accept(json!({}))}}),
        all_caps(),
    );
    assert_eq!(again["result"]["resultType"], json!("input_required"));

    for (params, what) in [
        (json!({"inputResponses": null}), "inputResponses null"),
        (
            json!({"inputResponses": {"user_name": 12345}}),
            "a response that is not an object",
        ),
        (json!({"inputResponses": []}), "inputResponses an array"),
        (json!({"requestState": 5}), "requestState a number"),
        (
            json!({"requestState": format!("{}-TAMPERED", state.as_str().unwrap())}),
            "a tampered requestState",
        ),
        (json!({"requestState": "s1"}), "an unsigned requestState"),
    ] {
        let mut p = json!({"name":"greet","arguments":{}});
        for (k, v) in params.as_object().unwrap() {
            p[k] = v.clone();
        }
        let r = h.call("tools/call", p, all_caps());
        assert_eq!(r["error"]["code"], json!(-32602), "{what}: {r}");
    }
}

#[test]
fn another_servers_state_is_refused() {
    let a = H::new();
    let b = H::new();
    for h in [&a, &b] {
        h.server
            .register_tool(greeter(Rc::new(RefCell::new(Vec::new()))))
            .unwrap();
    }
    b.server.set_state_key(b"a different key");
    let r = a.call(
        "tools/call",
        json!({"name":"greet","arguments":{}}),
        all_caps(),
    );
    let state = r["result"]["requestState"].clone();
    let on_b = b.call(
        "tools/call",
        json!({"name":"greet","arguments":{},"inputResponses":{"user_name":accept(json!({"name":"x"}))},"requestState":state}),
        all_caps(),
    );
    assert_eq!(on_b["error"]["code"], json!(-32602), "{on_b}");
}

#[test]
fn asking_for_an_undeclared_capability_is_32021() {
    let h = H::new();
    h.server
        .register_tool(ToolDef::new(
            "needs_sampling",
            "Asks the client's model",
            |_: Value, _: RequestContext| async {
                Ok(json!({"resultType":"input_required","inputRequests":{
                    "q":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}},
                    "r":{"method":"roots/list"}}}))
            },
        ))
        .unwrap();
    let r = h.call(
        "tools/call",
        json!({"name":"needs_sampling","arguments":{}}),
        json!({"roots":{}}),
    );
    assert_eq!(r["error"]["code"], json!(-32021), "{r}");
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({"sampling":{}})
    );
    McpSchemas::default().check(V, "MissingRequiredClientCapabilityError", &r);
    let ok = h.call(
        "tools/call",
        json!({"name":"needs_sampling","arguments":{}}),
        json!({"roots":{},"sampling":{}}),
    );
    assert_eq!(ok["result"]["resultType"], json!("input_required"));
}

#[test]
fn prompts_and_resources_may_ask_too_and_lists_never_do() {
    let h = H::new();
    let ask = |ctx: &RequestContext| -> Option<HandlerResult> {
        match ctx.input_responses().and_then(|r| r.get("ctx")) {
            Some(_) => None,
            None => Some(Ok(
                json!({"resultType":"input_required","inputRequests":{"ctx":{
                "method":"elicitation/create","params":{"message":"Context?","requestedSchema":{"type":"object","properties":{}}}}}}),
            )),
        }
    };
    h.server
        .register_prompt(PromptDef::new(
            "p",
            move |_: VecMap<String, String>, ctx: RequestContext| {
                let r = ask(&ctx);
                async move { r.unwrap_or_else(|| Ok(json!("with context"))) }
            },
        ))
        .unwrap();
    h.server
        .register_resource(ResourceDef::new(
            "test://r",
            "r",
            move |_: String, _: VecMap<String, String>, ctx: RequestContext| {
                let r = ask(&ctx);
                async move { r.unwrap_or_else(|| Ok(json!("text"))) }
            },
        ))
        .unwrap();
    let schemas = McpSchemas::default();
    let p1 = h.call("prompts/get", json!({"name":"p"}), all_caps());
    schemas.check(V, "InputRequiredResult", &p1["result"]);
    let p2 = h.call(
        "prompts/get",
        json!({"name":"p","inputResponses":{"ctx":accept(json!({}))}}),
        all_caps(),
    );
    schemas.check(V, "GetPromptResult", &p2["result"]);
    let r1 = h.call("resources/read", json!({"uri":"test://r"}), all_caps());
    assert_eq!(r1["result"]["resultType"], json!("input_required"), "{r1}");
    schemas.check(V, "InputRequiredResult", &r1["result"]);
    assert!(
        r1["result"].get("ttlMs").is_none(),
        "an input-required result is not cached"
    );
    let r2 = h.call(
        "resources/read",
        json!({"uri":"test://r","inputResponses":{"ctx":accept(json!({}))}}),
        all_caps(),
    );
    schemas.check(V, "ReadResourceResult", &r2["result"]);
    for m in ["tools/list", "prompts/list"] {
        let l = h.call(m, json!({}), all_caps());
        assert_eq!(l["result"]["resultType"], json!("complete"));
    }
}

#[test]
fn a_malformed_input_required_result_is_the_handlers_error() {
    let h = H::new();
    h.server
        .register_tool(ToolDef::new(
            "bad",
            "Asks for a tool call",
            |_: Value, _: RequestContext| async {
                Ok(json!({"resultType":"input_required","inputRequests":{"x":{"method":"tools/call"}}}))
            },
        ))
        .unwrap();
    let r = h.call(
        "tools/call",
        json!({"name":"bad","arguments":{}}),
        all_caps(),
    );
    assert_eq!(r["result"]["isError"], json!(true), "{r}");
    assert!(r["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("tools/call"));
}

/// The handshake era has no input-required results: the engine sends the input requests to
/// the client and runs the handler again with the answers, round after round.
#[test]
fn in_the_handshake_era_the_engine_asks_the_client_itself() {
    let h = H::new();
    h.server
        .register_tool(ToolDef::new(
            "two_rounds",
            "Asks a name, then a color",
            // As on the wire, each retry brings the answers to the latest round only; what
            // earlier rounds learned travels in requestState. Every round gets the call's
            // arguments.
            |args: Value, ctx: RequestContext| async move {
                if args != json!({"greeting": "hi"}) {
                    return Err(format!("this round got the arguments {args}").into());
                }
                let state = ctx.request_state().map(String::from);
                let r = ctx.input_responses().cloned().unwrap_or_default();
                let answer = |k: &str, f: &str| r.get(k).and_then(|a| a["content"][f].as_str()).map(String::from);
                Ok(match state.as_deref() {
                    Some(s) if s.starts_with("name=") && answer("color", "color").is_some() => json!(format!(
                        "{} likes {}",
                        &s[5..],
                        answer("color", "color").unwrap()
                    )),
                    Some("round-1") if answer("name", "name").is_some() => json!({"resultType":"input_required",
                        "requestState": format!("name={}", answer("name", "name").unwrap()),
                        "inputRequests":{"color":{"method":"elicitation/create","params":{"message":"Color?","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}}}}}}}),
                    _ => json!({"resultType":"input_required","requestState":"round-1",
                        "inputRequests":{"name":{"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}}),
                })
            },
        ))
        .unwrap();
    h.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}));
    h.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    let out = h.send(
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"two_rounds","arguments":{"greeting":"hi"}}}),
    );
    let schemas = McpSchemas::default();
    assert_eq!(out.len(), 1, "{out:?}");
    schemas.check("2025-11-25", "ServerRequest", &out[0]);
    assert_eq!(out[0]["params"]["message"], json!("Name?"));
    let out =
        h.send(json!({"jsonrpc":"2.0","id":out[0]["id"],"result":accept(json!({"name":"Ada"}))}));
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["params"]["message"], json!("Color?"));
    let out =
        h.send(json!({"jsonrpc":"2.0","id":out[0]["id"],"result":accept(json!({"color":"teal"}))}));
    assert_eq!(out.len(), 1, "{out:?}");
    schemas.check("2025-11-25", "CallToolResult", &out[0]["result"]);
    assert_eq!(
        out[0]["result"]["content"],
        json!([{"type":"text","text":"Ada likes teal"}])
    );
}

#[test]
fn in_the_handshake_era_a_missing_capability_is_an_error_result() {
    let h = H::new();
    h.server
        .register_tool(ToolDef::new(
            "roots",
            "Needs the roots",
            |_: Value, _: RequestContext| async {
                Ok(json!({"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}}}))
            },
        ))
        .unwrap();
    h.send(
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}),
    );
    h.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    let out = h.send(
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"roots","arguments":{}}}),
    );
    assert_eq!(out.len(), 1, "nothing is sent to the client: {out:?}");
    assert_eq!(out[0]["result"]["isError"], json!(true));
    assert!(out[0]["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("roots"));
}

/// A handler that reads its arguments where the engine keeps them (`call_shared`), keeping
/// what it got on each round: asks for a name, then answers.
struct Shared {
    rounds: Rc<RefCell<Vec<Rc<Value>>>>,
}

impl ToolHandler for Shared {
    fn call(&self, _: Value, _: RequestContext) -> LocalBoxFuture<'static, HandlerResult> {
        panic!("the engine copied the arguments for a handler that reads them in place")
    }

    fn call_shared(
        &self,
        args: Rc<Value>,
        ctx: RequestContext,
    ) -> LocalBoxFuture<'static, HandlerResult> {
        self.rounds.borrow_mut().push(args.clone());
        let name = ctx
            .input_responses()
            .and_then(|r| r.get("name"))
            .and_then(|a| a["content"]["name"].as_str())
            .map(String::from);
        Box::pin(async move {
            Ok(match name {
                Some(n) => json!(format!("{} {n}", args["greeting"].as_str().unwrap_or("?"))),
                None => {
                    json!({"resultType":"input_required","inputRequests":{"name":{"method":"elicitation/create",
                    "params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}})
                }
            })
        })
    }
}

#[test]
fn every_round_of_a_call_shares_one_copy_of_its_arguments() {
    let h = H::new();
    let rounds = Rc::new(RefCell::new(Vec::new()));
    h.server
        .register_tool(ToolDef::new(
            "shared",
            "Asks a name",
            Shared {
                rounds: rounds.clone(),
            },
        ))
        .unwrap();
    h.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}));
    h.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    let out = h.send(
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shared","arguments":{"greeting":"hi"}}}),
    );
    assert_eq!(out[0]["params"]["message"], json!("Name?"), "{out:?}");
    let out =
        h.send(json!({"jsonrpc":"2.0","id":out[0]["id"],"result":accept(json!({"name":"Ada"}))}));
    assert_eq!(
        out[0]["result"]["content"],
        json!([{"type":"text","text":"hi Ada"}]),
        "{out:?}"
    );
    let rounds = rounds.borrow();
    assert_eq!(rounds.len(), 2);
    assert!(
        Rc::ptr_eq(&rounds[0], &rounds[1]),
        "the second round got a copy of the arguments"
    );
    // And the server goes on answering.
    let out = h.send(json!({"jsonrpc":"2.0","id":3,"method":"ping"}));
    assert_eq!(out[0]["result"], json!({}));
}

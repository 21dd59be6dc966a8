//! The Tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`) in the engine: negotiation,
//! server-directed task creation, every status and transition, `tasks/get|update|cancel`,
//! input requests inside a task, the composition with 2026-07-28 multi-round requests,
//! status notifications, time to live, and the limits. Every message is checked against the
//! 2026-07-28 schema plus the extension's definitions (tests/support/extensions.schema.json).
mod support;

use modelcontext_polyfill::server::{
    CancellationToken, HandlerError, RequestContext, ServerConfig, TaskLimits, TaskSupport, ToolDef,
};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use support::{code, message, with_method, Harness, STATELESS};

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// Client capabilities declaring the extension (and elicitation).
fn with_ext() -> Value {
    json!({ "elicitation": {}, "extensions": { TASKS: {} } })
}

/// A 2026-07-28 request's params with `caps` as its client capabilities.
fn p(mut params: Value, caps: Value) -> Value {
    params["_meta"] = Harness::stateless_meta(caps);
    params
}

fn call(h: &Harness, name: &str, args: Value, caps: Value) -> Value {
    h.request(
        "tools/call",
        p(json!({ "name": name, "arguments": args }), caps),
    )
}

fn tasks(h: &Harness, method: &str, params: Value) -> Value {
    h.request(method, p(params, with_ext()))
}

fn get(h: &Harness, id: &str) -> Value {
    let r = tasks(h, "tasks/get", json!({ "taskId": id }));
    assert!(r.get("result").is_some(), "tasks/get failed: {r}");
    r["result"].clone()
}

/// A gate a test opens; handlers wait on it.
fn gate() -> CancellationToken {
    CancellationToken::new()
}

/// A tool that waits for `gate`, then answers `text` (or fails as `fail` says).
fn gated(name: &str, gate: &CancellationToken, support: TaskSupport) -> ToolDef {
    let gate = gate.clone();
    ToolDef::new(name, "Waits for the test", move |args: Value, _ctx| {
        let gate = gate.clone();
        async move {
            gate.cancelled().await;
            match args.get("fail").and_then(Value::as_str) {
                Some("tool") => Err(HandlerError::new("the job could not be done")),
                Some("protocol") => Err(HandlerError::protocol(-32603, "the worker crashed")),
                _ => Ok(json!(format!(
                    "done: {}",
                    args.get("label").and_then(Value::as_str).unwrap_or("-")
                ))),
            }
        }
    })
    .task_support(support)
}

/// Registers a [`gated`] tool on `h`; returns its gate.
fn gated_tool(h: &Harness, name: &str, support: TaskSupport) -> CancellationToken {
    let g = gate();
    h.server.register_tool(gated(name, &g, support)).unwrap();
    g
}

/// A tool that answers at once.
fn instant(name: &str, support: TaskSupport) -> ToolDef {
    ToolDef::new(name, "Answers at once", |_a: Value, _c| async {
        Ok::<_, HandlerError>(json!("instant"))
    })
    .task_support(support)
}

fn created(r: &Value) -> String {
    assert_eq!(r["result"]["resultType"], json!("task"), "not a task: {r}");
    r["result"]["taskId"].as_str().unwrap().to_string()
}

fn settle(h: &Harness) {
    h.run();
}

#[test]
fn the_extension_is_advertised_from_2026_07_28_only() {
    let h = Harness::new();
    let d = h.request(
        "server/discover",
        json!({ "_meta": Harness::stateless_meta(json!({})) }),
    );
    let caps = &d["result"]["capabilities"];
    assert_eq!(caps["extensions"][TASKS], json!({}));
    assert!(caps.get("tasks").is_none(), "no v1 capabilities.tasks slot");
    let old = Harness::new();
    let init = old.initialize("2025-11-25");
    assert!(init["result"]["capabilities"].get("extensions").is_none());
}

#[test]
fn a_slow_call_becomes_a_task_that_completes_with_its_result_inlined() {
    let h = Harness::new();
    let g = gated_tool(&h, "slow", TaskSupport::Optional);
    let r = call(&h, "slow", json!({"label":"a"}), with_ext());
    let id = created(&r);
    let c = &r["result"];
    for absent in [
        "result",
        "error",
        "inputRequests",
        "requestState",
        "ttl",
        "task",
    ] {
        assert!(c.get(absent).is_none(), "CreateTaskResult carries {absent}");
    }
    assert_eq!(c["status"], json!("working"));
    assert_eq!(c["ttlMs"], json!(3_600_000));
    assert_eq!(c["pollIntervalMs"], json!(1000));
    assert!(id.len() >= 32 && id.chars().all(|ch| ch.is_ascii_hexdigit()));
    // Durable at once: tasks/get right after the CreateTaskResult resolves.
    let w = get(&h, &id);
    assert_eq!(w["status"], json!("working"));
    assert_eq!(w["resultType"], json!("complete"));
    assert!(w.get("result").is_none());
    g.cancel("go");
    settle(&h);
    let done = get(&h, &id);
    assert_eq!(done["status"], json!("completed"));
    assert_eq!(done["result"]["content"][0]["text"], json!("done: a"));
    assert!(
        done["result"].get("_meta").is_none(),
        "no related-task _meta"
    );
    assert!(done.get("requestState").is_none());
    assert!(done["lastUpdatedAt"].as_str() >= done["createdAt"].as_str());
    // Still there for a later poll.
    assert_eq!(get(&h, &id)["status"], json!("completed"));
}

#[test]
fn an_immediate_answer_and_a_sync_tool_stay_synchronous() {
    let h = Harness::new();
    h.server
        .register_tool(instant("fast", TaskSupport::Optional))
        .unwrap();
    h.server
        .register_tool(instant("plain", TaskSupport::Forbidden))
        .unwrap();
    for name in ["fast", "plain"] {
        let r = call(&h, name, json!({}), with_ext());
        assert_eq!(r["result"]["resultType"], json!("complete"), "{r}");
        assert_eq!(r["result"]["content"][0]["text"], json!("instant"));
        assert!(r["result"].get("taskId").is_none());
    }
    // A legacy v1 `task` param neither errors nor promotes a sync tool.
    let r = h.request(
        "tools/call",
        p(
            json!({"name":"plain","arguments":{},"task":{"ttl":60000}}),
            with_ext(),
        ),
    );
    assert_eq!(r["result"]["resultType"], json!("complete"));
    assert_eq!(h.server.task_count(), 0);
}

#[test]
fn without_the_extension_optional_tools_run_in_the_request_and_required_ones_are_refused() {
    let h = Harness::new();
    let g = gated_tool(&h, "slow", TaskSupport::Optional);
    h.server
        .register_tool(gated("must", &g, TaskSupport::Required))
        .unwrap();
    let id = 7;
    h.send(json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
        "params": p(json!({"name":"slow","arguments":{"label":"sync"}}), json!({}))}));
    assert_eq!(h.take(), Vec::<Value>::new(), "waits for the handler");
    g.cancel("go");
    let out = h.take();
    assert_eq!(out[0]["result"]["content"][0]["text"], json!("done: sync"));
    assert!(out[0]["result"].get("taskId").is_none());
    let r = call(&h, "must", json!({}), json!({}));
    assert_eq!(code(&r), -32021);
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({"extensions": {TASKS: {}}})
    );
    // Per-request opt-in: the same client naming the extension on this call gets a task.
    let _gate = gated_tool(&h, "slow2", TaskSupport::Optional);
    let r = call(&h, "slow2", json!({}), json!({"extensions": {TASKS: {}}}));
    created(&r);
    assert_eq!(h.server.task_count(), 1);
}

#[test]
fn the_handshake_era_has_no_tasks_a_required_tool_runs_in_the_request() {
    let h = Harness::new();
    let g = gated_tool(&h, "must", TaskSupport::Required);
    h.initialize("2025-11-25");
    h.send(json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"must","arguments":{"label":"old"}}}));
    assert!(h.take().is_empty());
    g.cancel("go");
    let out = h.take();
    assert_eq!(out[0]["result"]["content"][0]["text"], json!("done: old"));
    let r = h.request("tasks/get", json!({"taskId":"x"}));
    assert_eq!(code(&r), -32601);
}

#[test]
fn task_methods_need_the_extension_and_a_known_id_and_v1_methods_are_gone() {
    let h = Harness::new();
    for (method, params) in [
        ("tasks/get", json!({"taskId":"gate-test"})),
        (
            "tasks/update",
            json!({"taskId":"gate-test","inputResponses":{}}),
        ),
        ("tasks/cancel", json!({"taskId":"gate-test"})),
    ] {
        let r = h.request(method, p(params.clone(), json!({})));
        assert_eq!(code(&r), -32021, "{method}: {r}");
        assert_eq!(
            r["error"]["data"]["requiredCapabilities"]["extensions"][TASKS],
            json!({})
        );
        let r = tasks(&h, method, params);
        assert_eq!(code(&r), -32602, "{method}: {r}");
        assert!(message(&r).contains("gate-test"));
    }
    for method in ["tasks/result", "tasks/list"] {
        let r = tasks(&h, method, json!({"taskId":"x"}));
        assert_eq!(code(&r), -32601, "{method}");
    }
    // Malformed params: clear errors, and the server keeps serving.
    let r = tasks(&h, "tasks/get", json!({"taskId": 5}));
    assert_eq!(code(&r), -32602);
    assert!(message(&r).contains("\"taskId\" must be a string"));
    let r = tasks(&h, "tasks/get", json!({}));
    assert!(message(&r).contains("missing required parameter \"taskId\""));
    let _gate = gated_tool(&h, "slow", TaskSupport::Optional);
    let id = created(&call(&h, "slow", json!({}), with_ext()));
    let r = tasks(&h, "tasks/update", json!({"taskId": id}));
    assert!(message(&r).contains("missing required parameter \"inputResponses\""));
    let r = tasks(
        &h,
        "tasks/update",
        json!({"taskId": id, "inputResponses": [1]}),
    );
    assert_eq!(code(&r), -32602);
    assert_eq!(get(&h, &id)["status"], json!("working"));
}

#[test]
fn tool_errors_complete_and_protocol_errors_fail() {
    let h = Harness::new();
    let g = gated_tool(&h, "job", TaskSupport::Optional);
    let tool_err = created(&call(&h, "job", json!({"fail":"tool"}), with_ext()));
    let proto_err = created(&call(&h, "job", json!({"fail":"protocol"}), with_ext()));
    g.cancel("go");
    settle(&h);
    let t = get(&h, &tool_err);
    assert_eq!(t["status"], json!("completed"));
    assert_eq!(t["result"]["isError"], json!(true));
    assert_eq!(
        t["result"]["content"][0]["text"],
        json!("the job could not be done")
    );
    let f = get(&h, &proto_err);
    assert_eq!(f["status"], json!("failed"));
    assert_eq!(
        f["error"],
        json!({"code": -32603, "message": "the worker crashed"})
    );
    assert!(f.get("result").is_none());
    assert_eq!(f["statusMessage"], json!("the worker crashed"));
}

#[test]
fn cancelling_a_running_task_fires_its_signal_and_settles_it_cancelled() {
    let h = Harness::new();
    let fired: Rc<RefCell<Vec<String>>> = Rc::default();
    let f = fired.clone();
    let g = gate();
    let g2 = g.clone();
    h.server
        .register_tool(
            ToolDef::new(
                "long",
                "Runs until cancelled",
                move |_a: Value, ctx: RequestContext| {
                    let f = f.clone();
                    let g = g2.clone();
                    async move {
                        let why = ctx.cancel.cancelled().await;
                        f.borrow_mut().push(why);
                        g.cancelled().await;
                        Ok::<_, HandlerError>(json!("finished anyway"))
                    }
                },
            )
            .task_support(TaskSupport::Optional),
        )
        .unwrap();
    let id = created(&call(&h, "long", json!({}), with_ext()));
    let ack = tasks(&h, "tasks/cancel", json!({"taskId": id}));
    assert_eq!(ack["result"]["resultType"], json!("complete"));
    for k in ["taskId", "status", "result", "error", "inputRequests"] {
        assert!(ack["result"].get(k).is_none(), "ack carries {k}");
    }
    settle(&h);
    assert_eq!(
        *fired.borrow(),
        vec!["The task was cancelled by the client (tasks/cancel)".to_string()]
    );
    assert_eq!(get(&h, &id)["status"], json!("cancelled"));
    // What the handler returns later is dropped.
    g.cancel("go");
    settle(&h);
    let t = get(&h, &id);
    assert_eq!(t["status"], json!("cancelled"));
    assert!(t.get("result").is_none());
    // Cancelling a finished task: the same ack, nothing changes.
    let again = tasks(&h, "tasks/cancel", json!({"taskId": id}));
    assert_eq!(again["result"]["resultType"], json!("complete"));
    assert_eq!(get(&h, &id)["status"], json!("cancelled"));
}

/// A tool that asks the client through `ctx.request`: one elicitation, or two in parallel.
fn asking(name: &str, parallel: usize) -> ToolDef {
    ToolDef::new(name, "Asks the client", move |_a: Value, ctx: RequestContext| async move {
        let asks: Vec<_> = (0..parallel)
            .map(|i| {
                ctx.request(
                    "elicitation/create",
                    Some(json!({"message": format!("Question {i}?"),
                        "requestedSchema": {"type":"object","properties":{"name":{"type":"string"}}}})),
                )
            })
            .collect();
        let mut names = Vec::new();
        for a in asks {
            match a.await {
                Ok(r) => names.push(r["content"]["name"].as_str().unwrap_or("?").to_string()),
                Err(e) => return Err(HandlerError::new(format!("no answer: {}", e.message))),
            }
        }
        Ok(json!(format!("answers: {}", names.join(","))))
    })
    .task_support(TaskSupport::Optional)
}

fn answer(name: &str) -> Value {
    json!({"action":"accept","content":{"name":name}})
}

#[test]
fn asking_for_input_parks_the_task_until_tasks_update_answers() {
    let h = Harness::new();
    h.server.register_tool(asking("confirm", 1)).unwrap();
    let r = call(&h, "confirm", json!({}), with_ext());
    let id = created(&r);
    let t = get(&h, &id);
    assert_eq!(t["status"], json!("input_required"));
    let keys: Vec<String> = t["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys.len(), 1);
    assert_eq!(
        t["inputRequests"][&keys[0]]["method"],
        json!("elicitation/create")
    );
    // Unknown keys and non-object answers are ignored (acked, nothing changes).
    let ack = tasks(
        &h,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"unknown-key": {"ignored": true}, (keys[0].clone()): 5}}),
    );
    assert_eq!(ack["result"]["resultType"], json!("complete"));
    assert_eq!(get(&h, &id)["status"], json!("input_required"));
    let ack = tasks(
        &h,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {(keys[0].clone()): answer("Ada")}}),
    );
    for k in ["taskId", "status", "result", "error", "inputRequests"] {
        assert!(ack["result"].get(k).is_none(), "ack carries {k}");
    }
    settle(&h);
    let done = get(&h, &id);
    assert_eq!(done["status"], json!("completed"));
    assert_eq!(done["result"]["content"][0]["text"], json!("answers: Ada"));
}

#[test]
fn partial_answers_keep_the_task_waiting_for_the_rest() {
    let h = Harness::new();
    h.server.register_tool(asking("multi", 2)).unwrap();
    let id = created(&call(&h, "multi", json!({}), with_ext()));
    let t = get(&h, &id);
    let keys: Vec<String> = t["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys.len(), 2, "{t}");
    tasks(
        &h,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {(keys[0].clone()): answer("one")}}),
    );
    let t = get(&h, &id);
    assert_eq!(t["status"], json!("input_required"));
    let left: Vec<&String> = t["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(left, vec![&keys[1]]);
    tasks(
        &h,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {(keys[1].clone()): answer("two")}}),
    );
    settle(&h);
    let done = get(&h, &id);
    assert_eq!(
        done["result"]["content"][0]["text"],
        json!("answers: one,two")
    );
}

#[test]
fn a_task_cannot_ask_for_what_the_client_did_not_declare() {
    let h = Harness::new();
    h.server.register_tool(asking("confirm", 1)).unwrap();
    // Tasks declared, elicitation not: the request fails inside the handler, which reports it.
    let r = call(&h, "confirm", json!({}), json!({"extensions": {TASKS: {}}}));
    assert_eq!(r["result"]["resultType"], json!("complete"), "{r}");
    assert_eq!(r["result"]["isError"], json!(true));
    assert!(r["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Missing required client capability"));
}

/// A tool gathering a name by multi-round (2026-07-28) first, then working as a task.
fn gather_then_work(g: &CancellationToken) -> ToolDef {
    let g = g.clone();
    ToolDef::new(
        "test_tool_with_task",
        "MRTR, then a task",
        move |_a: Value, ctx: RequestContext| {
            let g = g.clone();
            async move {
                let Some(name) = ctx
                    .input_responses()
                    .and_then(|r| r.get("user_name"))
                    .and_then(|r| r["content"]["name"].as_str())
                    .map(String::from)
                else {
                    return Ok::<_, HandlerError>(json!({
                        "resultType": "input_required",
                        "inputRequests": {"user_name": {"method":"elicitation/create",
                            "params": {"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}},
                        "requestState": "round-1"
                    }));
                };
                assert_eq!(ctx.request_state(), Some("round-1"));
                g.cancelled().await;
                Ok(json!(format!("Hello, {name}!")))
            }
        },
    )
    .task_support(TaskSupport::Required)
}

#[test]
fn multi_round_input_stays_synchronous_and_only_the_final_round_becomes_a_task() {
    let h = Harness::new();
    let g = gate();
    h.server.register_tool(gather_then_work(&g)).unwrap();
    let r1 = call(&h, "test_tool_with_task", json!({}), with_ext());
    let res = &r1["result"];
    assert_eq!(res["resultType"], json!("input_required"));
    assert!(res.get("taskId").is_none());
    let state = res["requestState"].as_str().unwrap().to_string();
    let r2 = h.request(
        "tools/call",
        p(
            json!({"name":"test_tool_with_task","arguments":{},
                "inputResponses":{"user_name": answer("Alice")},"requestState": state}),
            with_ext(),
        ),
    );
    let id = created(&r2);
    assert!(r2["result"].get("requestState").is_none());
    assert!(r2["result"].get("inputRequests").is_none());
    g.cancel("go");
    settle(&h);
    let done = get(&h, &id);
    assert_eq!(done["status"], json!("completed"));
    assert_eq!(done["result"]["content"][0]["text"], json!("Hello, Alice!"));
}

#[test]
fn an_input_required_result_inside_a_task_becomes_its_input_requests() {
    let h = Harness::new();
    let g = gate();
    let g2 = g.clone();
    let runs = Rc::new(RefCell::new(0));
    let r2 = runs.clone();
    h.server
        .register_tool(
            ToolDef::new("later", "Works, then asks", move |_a: Value, ctx: RequestContext| {
                let g = g2.clone();
                *r2.borrow_mut() += 1;
                async move {
                    g.cancelled().await;
                    match ctx.input_responses().and_then(|r| r.get("color")) {
                        None => Ok::<_, HandlerError>(json!({
                            "resultType": "input_required",
                            "inputRequests": {"color": {"method":"elicitation/create",
                                "params": {"message":"Color?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}},
                            "requestState": "s"
                        })),
                        Some(c) => Ok(json!(format!("{} ({:?})", c["content"]["name"], ctx.request_state()))),
                    }
                }
            })
            .task_support(TaskSupport::Optional),
        )
        .unwrap();
    let id = created(&call(&h, "later", json!({}), with_ext()));
    g.cancel("go");
    settle(&h);
    let t = get(&h, &id);
    assert_eq!(t["status"], json!("input_required"));
    assert!(t["inputRequests"].get("color").is_some(), "{t}");
    tasks(
        &h,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"color": answer("teal")}}),
    );
    settle(&h);
    let done = get(&h, &id);
    assert_eq!(done["status"], json!("completed"), "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        json!("\"teal\" (Some(\"s\"))")
    );
    assert_eq!(*runs.borrow(), 2, "the handler ran again with the answers");
}

#[test]
fn status_reports_become_the_status_message() {
    let h = Harness::new();
    let g = gate();
    let g2 = g.clone();
    h.server
        .register_tool(
            ToolDef::new(
                "report",
                "Reports",
                move |_a: Value, ctx: RequestContext| {
                    let g = g2.clone();
                    async move {
                        assert!(ctx.in_task());
                        ctx.report_progress(1.0, Some(4.0), None);
                        g.cancelled().await;
                        assert!(ctx.task_id().is_some());
                        ctx.set_task_status("almost there");
                        Ok::<_, HandlerError>(json!("ok"))
                    }
                },
            )
            .task_support(TaskSupport::Optional),
        )
        .unwrap();
    let id = created(&call(&h, "report", json!({}), with_ext()));
    assert_eq!(get(&h, &id)["statusMessage"], json!("1/4"));
    g.cancel("go");
    settle(&h);
    let t = get(&h, &id);
    assert_eq!(t["status"], json!("completed"));
    assert_eq!(t["statusMessage"], json!("almost there"));
}

#[test]
fn status_changes_are_pushed_to_listen_streams_that_asked_for_the_task() {
    let h = Harness::new();
    let g = gated_tool(&h, "slow", TaskSupport::Optional);
    let id = created(&call(&h, "slow", json!({}), with_ext()));
    // Without the extension, asking for task notifications is -32021.
    let refused = h.send_request(
        json!("l0"),
        "subscriptions/listen",
        p(json!({"notifications": {"taskIds": [id]}}), json!({})),
    );
    assert_eq!(refused[0]["error"]["code"], json!(-32021));
    let ack = h.send_request(
        json!("l1"),
        "subscriptions/listen",
        p(json!({"notifications": {"taskIds": [id]}}), with_ext()),
    );
    assert_eq!(
        ack[0]["params"]["notifications"]["taskIds"],
        json!([id.clone()])
    );
    g.cancel("go");
    let out = h.take();
    let n = with_method(&out, "notifications/tasks");
    assert_eq!(n.len(), 1, "{out:?}");
    assert_eq!(n[0]["params"]["taskId"], json!(id));
    assert_eq!(n[0]["params"]["status"], json!("completed"));
    assert_eq!(
        n[0]["params"]["result"]["content"][0]["text"],
        json!("done: -")
    );
    assert_eq!(
        n[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        json!("l1")
    );
    // A stream that did not ask hears nothing.
    let other = gated_tool(&h, "other", TaskSupport::Optional);
    created(&call(&h, "other", json!({}), with_ext()));
    other.cancel("go");
    assert!(with_method(&h.take(), "notifications/tasks").is_empty());
}

fn limited(tasks: TaskLimits) -> Harness {
    Harness::with_config(ServerConfig {
        tasks,
        ..ServerConfig::default()
    })
}

#[test]
fn a_task_expires_when_its_ttl_elapses_and_its_handler_is_cancelled() {
    let h = limited(TaskLimits {
        ttl_ms: Some(500),
        ..TaskLimits::default()
    });
    let fired: Rc<RefCell<Vec<String>>> = Rc::default();
    let f = fired.clone();
    h.server
        .register_tool(
            ToolDef::new(
                "forever",
                "Never ends",
                move |_a: Value, ctx: RequestContext| {
                    let f = f.clone();
                    async move {
                        let why = ctx.cancel.cancelled().await;
                        f.borrow_mut().push(why);
                        Ok::<_, HandlerError>(json!("stopped"))
                    }
                },
            )
            .task_support(TaskSupport::Optional),
        )
        .unwrap();
    let r = call(&h, "forever", json!({}), with_ext());
    assert_eq!(r["result"]["ttlMs"], json!(500));
    let id = created(&r);
    // Not before its time.
    assert_eq!(get(&h, &id)["status"], json!("working"));
    h.wait_ms(700);
    settle(&h);
    let gone = tasks(&h, "tasks/get", json!({"taskId": id}));
    assert_eq!(code(&gone), -32602);
    assert!(message(&gone).contains("has expired"), "{gone}");
    assert_eq!(
        *fired.borrow(),
        vec!["The task expired (its ttlMs elapsed)".to_string()]
    );
    assert_eq!(h.server.task_count(), 0);
    // An unlimited TTL is null on the wire.
    let forever = limited(TaskLimits {
        ttl_ms: None,
        ..TaskLimits::default()
    });
    let _gate = gated_tool(&forever, "slow", TaskSupport::Optional);
    let r = call(&forever, "slow", json!({}), with_ext());
    assert_eq!(r["result"]["ttlMs"], Value::Null);
}

#[test]
fn too_many_working_tasks_is_a_clear_error_and_the_server_keeps_serving() {
    let h = limited(TaskLimits {
        max_working: 1,
        ..TaskLimits::default()
    });
    let g = gated_tool(&h, "slow", TaskSupport::Optional);
    h.server
        .register_tool(instant("plain", TaskSupport::Forbidden))
        .unwrap();
    let first = created(&call(&h, "slow", json!({}), with_ext()));
    let r = call(&h, "slow", json!({}), with_ext());
    assert_eq!(code(&r), -32600);
    assert_eq!(message(&r), "Tasks working at once exceeds the limit of 1");
    assert_eq!(r["error"]["data"], json!({"limit": 1}));
    // The next good requests are served.
    assert_eq!(
        call(&h, "plain", json!({}), with_ext())["result"]["content"][0]["text"],
        json!("instant")
    );
    assert_eq!(get(&h, &first)["status"], json!("working"));
    // Once the first finishes there is room again.
    g.cancel("go");
    settle(&h);
    let _gate = gated_tool(&h, "slow2", TaskSupport::Optional);
    created(&call(&h, "slow2", json!({}), with_ext()));
}

#[test]
fn finished_tasks_beyond_the_retention_limit_are_discarded_oldest_first() {
    let h = limited(TaskLimits {
        max_retained: 1,
        ..TaskLimits::default()
    });
    let g = gated_tool(&h, "slow", TaskSupport::Optional);
    let a = created(&call(&h, "slow", json!({"label":"a"}), with_ext()));
    g.cancel("go");
    settle(&h);
    assert_eq!(get(&h, &a)["status"], json!("completed"));
    let g2 = gated_tool(&h, "slow2", TaskSupport::Optional);
    let b = created(&call(&h, "slow2", json!({"label":"b"}), with_ext()));
    assert_eq!(
        get(&h, &a)["status"],
        json!("completed"),
        "kept while b works"
    );
    g2.cancel("go");
    settle(&h);
    let gone = tasks(&h, "tasks/get", json!({"taskId": a}));
    assert_eq!(code(&gone), -32602);
    assert_eq!(
        message(&gone),
        format!("Task {a} was discarded: the server keeps at most 1 finished tasks")
    );
    assert_eq!(
        get(&h, &b)["result"]["content"][0]["text"],
        json!("done: b")
    );
}

#[test]
fn tasks_outlive_the_session_that_created_them() {
    // The stateless era gives each request its own session (e.g. one HTTP POST each).
    let h = Harness::new();
    let g = gated_tool(&h, "slow", TaskSupport::Optional);
    let creator = h.another_session();
    let id = created(&call(&creator, "slow", json!({"label":"kept"}), with_ext()));
    creator.session.close();
    drop(creator);
    g.cancel("go");
    settle(&h);
    let done = get(&h, &id);
    assert_eq!(done["result"]["content"][0]["text"], json!("done: kept"));
    assert_eq!(STATELESS, "2026-07-28");
}

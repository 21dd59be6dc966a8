//! `tools/list` and `tools/call`: the list as each version shapes it, and a call validated,
//! run (directly, through input-required rounds, or as a task) and shaped.

use serde_json::{json, Map, Value};
use std::rc::Rc;

use crate::protocol::ProtocolVersion;
use crate::server::context::RequestContext;
use crate::server::engine::CallError;
use crate::server::error::ServerError;
use crate::server::held::{self, HeldArguments, Holder};
use crate::server::input_required::{self, Round};
use crate::server::limits::shorten;
use crate::server::pagination;
use crate::server::registry::Tool;
use crate::server::results;
use crate::server::runtime::LocalBoxFuture;
use crate::server::shape;
use crate::server::tasks;

use super::{list_result, now, param_str, with_inputs, Call, Reply};

/// `tools/list`: a page of the tools as shaped for `v`, served from the server's cache of
/// shaped tools (built once per version, dropped when the tools change).
///
/// Spec: <https://modelcontextprotocol.io/specification/2025-11-25/server/tools#listing-tools>.
pub(super) fn tools_list(call: &Call, v: ProtocolVersion) -> Reply {
    let server = &call.session.server();
    let after = match pagination::read_cursor(&call.params) {
        Ok(after) => after,
        Err(e) => return now(Err(e)),
    };
    // The first (or only) page: the cached text.
    if after.is_none() {
        if let Some(text) = server.tools_list_text(v) {
            return Reply::Text(text);
        }
    }
    let tools = server.shaped_tools(v);
    let (page, next) = pagination::page_sorted(&tools, after.as_deref(), server.config().page_size);
    now(Ok(list_result("tools", page, next)))
}

pub(super) fn unknown_tool(name: &str) -> ServerError {
    ServerError::InvalidParams {
        message: format!("Unknown tool: {}", shorten(name.to_owned())),
        data: Some(json!({ "name": name })),
    }
}

/// `tools/call`. The tool is looked up once, here. A tool with a schema whose validator is
/// not ready yet (the browser loads it on first need) is checked once it is; if it never will
/// be, the call is an `isError` result naming why, and the tool does not run.
///
/// Spec: <https://modelcontextprotocol.io/specification/2025-11-25/server/tools#calling-tools>; the task path SEP-2663; input-required rounds SEP-2322.
///
/// Apart from [`super::dispatch`], which routes it (`#[inline(never)]`, and `CORE_APART` in
/// `scripts/lib/core-split.mjs`): discovery's code stays in the part of the core a page loads
/// first, and this in the part it loads when an agent calls.
#[inline(never)]
pub(super) fn tools_call(call: &mut Call, v: ProtocolVersion) -> Reply {
    // The long argument strings the transport held, if any: now, while the message that
    // brought them is being read (or its turn has come: `held::take_received`).
    let held = held::take_received();
    let name = match param_str(&call.params, "name", "tools/call") {
        Ok(name) => name,
        Err(e) => return now(Err(e)),
    };
    let server = &call.session.server();
    let Some(tool) = server.tool(name) else {
        return now(Err(unknown_tool(name)));
    };
    // Shared by every clone of the context from here on (the one the session answers with
    // included); allowed below once the call is known to be answered directly.
    call.ctx.holder = Some(Rc::new(Holder::default()));
    let Some(wait) = server.validator_ready_for(&tool) else {
        return tools_call_checked(call, tool, v, held);
    };
    let mut call = Call {
        session: call.session.clone(),
        id: call.id.clone(),
        method: call.method.clone(),
        params: call.params.clone(),
        version: call.version,
        stateless: call.stateless,
        ctx: call.ctx.clone(),
    };
    Reply::Later(Box::pin(async move {
        if let Err(e) = wait.await {
            return Ok(shape::call_tool_result(
                results::tool_error(e.to_string()),
                v,
            ));
        }
        // Cancelled while waiting: the tool does not start (no response goes out).
        if let Some(why) = call.ctx.cancel.reason() {
            return Err(ServerError::Internal(why));
        }
        // The tool may have been removed or replaced while the validator loaded.
        let Some(tool) = call.session.server().tool(&tool.def.name) else {
            return Err(unknown_tool(&tool.def.name));
        };
        match tools_call_checked(&mut call, tool, v, held) {
            Reply::Now(r) => r,
            Reply::Later(f) => f.await,
            Reply::Listen(_) | Reply::Text(_) => Err(ServerError::Internal(
                "tools/call answered with no call result".into(),
            )),
        }
    }))
}

/// Takes the arguments out of `call`'s params (nothing reads them there afterwards); `held`:
/// the long strings the transport held out of them.
pub(super) fn tools_call_checked(
    call: &mut Call,
    tool: Rc<Tool>,
    v: ProtocolVersion,
    held: Option<Rc<HeldArguments>>,
) -> Reply {
    let mut args = match call.params.get_mut("arguments").map(Value::take) {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(a) => a,
    };
    let server = call.session.server().clone();
    // (Strings a message refused before its request ran left behind are not these.)
    let mut held = held.filter(|h| h.all_in(&args));
    // Long strings held out of the text (`server::held::HeldArguments`) are read in where
    // something reads them: a schema that reads strings' texts, a task (which keeps its
    // arguments until it runs), a violation's message. Only asked when something is held (a
    // schema's answer is a walk of its subschemas, and most calls hold nothing).
    if held.is_some()
        && (tasks::may_run_as_task(&tool, v)
            || tool.input.as_ref().is_some_and(|s| s.reads_string_texts()))
    {
        read_in(&mut held, &mut args);
    }
    let mut checked = server.check_args(&tool, &args);
    if checked.is_err() && held.is_some() {
        read_in(&mut held, &mut args);
        checked = server.check_args(&tool, &args);
    }
    if let Err(e) = checked {
        let text = e.to_string();
        return match e {
            CallError::UnknownTool(n) => now(Err(unknown_tool(&n))),
            CallError::NotAnObject(_) => now(Err(ServerError::invalid_params(format!(
                "tools/call: {text}"
            )))),
            CallError::ValidatorUnavailable { .. } => {
                now(Ok(shape::call_tool_result(results::tool_error(text), v)))
            }
            CallError::InvalidArguments { violations, .. } => {
                // 2025-11-25 and later: a tool result the model can read and correct.
                // Earlier versions: the JSON-RPC -32602 their specs call for.
                now(if v.tool_input_errors_are_results() {
                    Ok(shape::call_tool_result(results::tool_error(text), v))
                } else {
                    let list: Vec<Value> = violations
                        .iter()
                        .map(|x| json!({ "instancePath": x.instance_path, "keyword": x.keyword, "message": x.message }))
                        .collect();
                    Err(ServerError::InvalidParams {
                        message: text,
                        data: Some(json!({ "violations": list })),
                    })
                })
            }
        };
    }
    let ctx = match with_inputs(call) {
        Ok(c) => c,
        Err(e) => return now(Err(e)),
    };
    // (Shared by every round of the call: a handler that only reads them copies nothing.)
    let args = Rc::new(args);
    if let Some(reply) = tasks::tools_call(call, v, &tool, &args, &ctx) {
        return reply;
    }
    // Not a task: the result goes straight into the answer, so the handler may hold a long
    // string of it out of the engine (`server::held`).
    if let Some(h) = &ctx.holder {
        h.allow();
        // Nothing reads an object result's structuredContent but an output schema.
        if tool.output.is_none() {
            h.allow_objects();
        }
    }
    let key = server.state_key().clone();
    let stateless = call.stateless;
    let run = move |ctx: RequestContext| -> LocalBoxFuture<'static, Result<Round<Map<String, Value>>, ServerError>> {
        let fut = server.run_tool(tool.clone(), args.clone(), held.clone(), ctx);
        let name = tool.def.name.clone();
        Box::pin(async move {
            let m = fut.await;
            if m.get("resultType").and_then(Value::as_str) != Some(input_required::INPUT_REQUIRED) {
                return Ok(Round::Done(m));
            }
            Ok(match input_required::parse_result(&Value::Object(m)) {
                Ok(ir) => Round::Input(ir),
                Err(e) => Round::Done(results::tool_error(format!(
                    "Tool {name} returned a malformed input_required result: {e}"
                ))),
            })
        })
    };
    let failed = |message: String| Ok(results::tool_error(message));
    let done = move |m| Ok(shape::call_tool_result(m, v));
    Reply::Later(Box::pin(input_required::drive(
        ctx, stateless, key, run, failed, done,
    )))
}

/// `args` with the texts of the strings `held` stands for in place of their markers; nothing
/// is held any more.
fn read_in(held: &mut Option<Rc<HeldArguments>>, args: &mut Value) {
    if let Some(h) = held.take() {
        h.read_into(args);
    }
}

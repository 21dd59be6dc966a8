//! `tools/list` and `tools/call`: the list as each version shapes it, and a call validated,
//! run (directly, through input-required rounds, or as a task) and shaped.

use serde_json::{json, Map, Value};
use std::rc::Rc;

use crate::protocol::values::{self, ValueBudget};
use crate::protocol::ProtocolVersion;
use crate::protocol::{json_text, jsonrpc, scan};
use crate::server::context::RequestContext;
use crate::server::engine::{CallError, Server, ToolArgs};
use crate::server::error::ServerError;
use crate::server::held::{self, HeldArguments, Holder};
use crate::server::input_required::{self, Round};
use crate::server::limits::shorten;
use crate::server::pagination;
use crate::server::plain_schema;
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
        // (Nothing reads them in `call` once it is answered later.)
        params: std::mem::take(&mut call.params),
        arguments: call.arguments.take(),
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

/// Arguments kept as text ([`Call::arguments`]) of at least this many bytes are checked from
/// the text; shorter ones are read into a value, whose tree (at most some 50 times the text)
/// is dropped once checked. The text walk is then run by long arguments only, which the trace
/// that writes the call module's list (`make split-list`) does not send, and reached through
/// the table only, so the module an agent's first call loads does not carry it (about 4 KB
/// gzip).
const CHECKED_AS_TEXT_FROM: usize = 16 * 1024;

/// Takes the arguments out of `call` (nothing reads them there afterwards); `held`: the long
/// strings the transport held out of them.
///
/// A handler that takes text (a page's function) gets text, so that a call in flight keeps
/// the arguments' text, not a tree of values 30 to 100 times its size in memory that never
/// shrinks: the agent's own text ([`Call::arguments`]), when it is long, holds no strings and
/// the call cannot become a task, checked from the text
/// ([`CompiledSchema::accepts_text`](crate::server::CompiledSchema::accepts_text); text that
/// the schema does not show valid is read into a value to be checked, and dropped); else the
/// value the arguments were read into, written as text once checked (with `null` for each
/// string still held: [`HeldArguments::apart`]). Either reading for a check makes at most
/// `limits.max_values` values, or the whole value where the schema accepts the text; past
/// them a refusal is made from the text ([`CompiledSchema::text_violations`]): a refused
/// call's tree of an agent's millions of values would stay in memory.
///
/// [`CompiledSchema::text_violations`]: crate::server::CompiledSchema::text_violations
pub(super) fn tools_call_checked(
    call: &mut Call,
    tool: Rc<Tool>,
    v: ProtocolVersion,
    held: Option<Rc<HeldArguments>>,
) -> Reply {
    let server = call.session.server().clone();
    let checked = match call.arguments.take() {
        Some(text)
            if text.len() >= CHECKED_AS_TEXT_FROM
                && held.is_none()
                && !tasks::may_run_as_task(&tool, v)
                && tool.def.handler.takes_text() =>
        {
            checked_text(&server, &tool, text, v).map(ToolArgs::Text)
        }
        // (With strings held out of it, the text's markers stand for them: only its value,
        // the strings read in, says whether the schema refuses it.)
        Some(text) if held.is_some() => match read_counted(&server, &text) {
            Ok(Some(args)) => checked_value(&server, &tool, args, held, v),
            // (Through a pointer, as `too_many_to_read`.)
            Ok(None) => std::hint::black_box(held_past_limit as HeldPastLimit)(
                &server, &tool, &text, held, v,
            ),
            Err(reply) => Err(reply),
        },
        Some(text) => read_arguments(&server, &tool, &text, v)
            .and_then(|args| checked_value(&server, &tool, args, held, v)),
        None => {
            let args = call.params.get_mut("arguments").map(Value::take);
            checked_value(&server, &tool, args.unwrap_or_default(), held, v)
        }
    };
    let args = match checked {
        // A handler that takes text gets text however the arguments came (with strings a
        // transport held, read with the rest of the params): no call keeps a tree of values
        // while it runs.
        Ok(ToolArgs::Value(args, held))
            if tool.def.handler.takes_text() && !tasks::may_run_as_task(&tool, v) =>
        {
            match held {
                None => ToolArgs::Text(json_text::to_string(&args).into()),
                Some(held) => {
                    let (text, places) = held.apart(&args);
                    ToolArgs::TextHolding(text.into(), places.into(), held)
                }
            }
        }
        Ok(args) => args,
        Err(reply) => return reply,
    };
    let ctx = match with_inputs(call) {
        Ok(c) => c,
        Err(e) => return now(Err(e)),
    };
    if let ToolArgs::Value(args, _) = &args {
        if let Some(reply) = tasks::tools_call(call, v, &tool, args, &ctx) {
            return reply;
        }
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
        let fut = server.run_tool(tool.clone(), args.clone(), ctx);
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

/// Arguments kept as JSON text (at least [`CHECKED_AS_TEXT_FROM`] bytes: never `null`),
/// checked: the text when the tool's input schema accepts it, else the answer refusing it.
/// Text the schema cannot show valid is read into a value of at most `limits.max_values`
/// values, which is checked and dropped; past them, the answer is made from the text.
fn checked_text(
    server: &Server,
    tool: &Tool,
    text: Rc<str>,
    v: ProtocolVersion,
) -> Result<Rc<str>, Reply> {
    if shown_valid(tool, &text, server.config().limits.max_values) {
        return Ok(text);
    }
    // Read for its report, at most `max_values` values: the text is refused (or not JSON a
    // value holds), and a tree of an agent's millions of values would stay in memory.
    let Some(args) = read_counted(server, &text)? else {
        return too_many_to_read(server, tool, &text, v).map(|()| text);
    };
    match server.check_args(tool, &args) {
        Ok(()) => Ok(text),
        Err(e) => Err(refused(e, v)),
    }
}

/// Whether arguments' JSON text is shown valid without reading it into a value: an object's
/// text that the tool's input schema accepts, or that is readable where there is none. A
/// schema that reads the text whole (the validator module's) is given none of more than
/// `max_values` values ([`CompiledSchema::reads_text_whole`]): 1.3 million empty arrays grew
/// its memory by 200 MB.
/// (Inlined into both callers: apart, it was one more function in the call module.)
///
/// [`CompiledSchema::reads_text_whole`]: crate::server::CompiledSchema::reads_text_whole
#[inline(always)]
fn shown_valid(tool: &Tool, text: &str, max_values: usize) -> bool {
    text.starts_with('{')
        && match &tool.input {
            Some(schema) => {
                (!schema.reads_text_whole()
                    || !scan::holds_more_values(text.as_bytes(), max_values))
                    && schema.accepts_text(text)
            }
            // (Called through a pointer the optimizer cannot see through, as a schema's
            // `accepts_text` is through its vtable: the text walk is in the table, not
            // reached by a direct call, so the core's call module, cut to what its traced
            // calls reach, does not carry it: `scripts/lib/calls-cut.mjs`.)
            None => std::hint::black_box(plain_schema::is_readable as fn(&str) -> bool)(text),
        }
}

/// The answer to arguments whose text is not JSON a value holds: `serde_json`'s error `e`.
fn unreadable(e: serde_json::Error) -> Reply {
    now(Err(ServerError::Parse(e.to_string())))
}

/// Arguments kept as JSON text, read into a value for a handler that takes one (or a task):
/// whole where the tool's input schema accepts them (or they hold at most `max_values`
/// values, which [`checked_value`] checks); else answered as [`checked_text`] answers
/// them, with no tree of an agent's millions of values left in memory for a refused call.
fn read_arguments(
    server: &Server,
    tool: &Tool,
    text: &str,
    v: ProtocolVersion,
) -> Result<Value, Reply> {
    match read_counted(server, text)? {
        Some(args) => Ok(args),
        // (Through a pointer, as `too_many_to_read`.)
        None => std::hint::black_box(read_past_limit as ReadPastLimit)(server, tool, text, v),
    }
}

type ReadPastLimit = fn(&Server, &Tool, &str, ProtocolVersion) -> Result<Value, Reply>;

/// [`read_arguments`] past `max_values` values: the value, where the tool's schema accepts the
/// text, else the refusal.
fn read_past_limit(
    server: &Server,
    tool: &Tool,
    text: &str,
    v: ProtocolVersion,
) -> Result<Value, Reply> {
    checked_past_limit(server, tool, text, v)?;
    values::parse(text).map_err(unreadable)
}

/// Arguments' text past `max_values` values, checked from the text: where the tool's schema
/// does not show it valid, the refusal [`too_many`] makes of it (none from a schema that
/// refuses nothing).
fn checked_past_limit(
    server: &Server,
    tool: &Tool,
    text: &str,
    v: ProtocolVersion,
) -> Result<(), Reply> {
    let max_values = server.config().limits.max_values;
    match shown_valid(tool, text, max_values) {
        true => Ok(()),
        false => too_many(tool, text, max_values, v),
    }
}

type HeldPastLimit =
    fn(&Server, &Tool, &str, Option<Rc<HeldArguments>>, ProtocolVersion) -> Result<ToolArgs, Reply>;

/// Arguments with long strings a transport held out of their text, past `limits.max_values`
/// values: their text with the strings written back in ([`HeldArguments::written_into`]),
/// then taken as arguments that came as text are, so that no tree of an agent's millions of
/// values is made unless the schema accepts them and the handler takes a value. The strings
/// are copied into the core's memory then (calls this large only); a handler that takes text
/// gets it with them.
fn held_past_limit(
    server: &Server,
    tool: &Tool,
    text: &str,
    held: Option<Rc<HeldArguments>>,
    v: ProtocolVersion,
) -> Result<ToolArgs, Reply> {
    // (Markers not where the strings were held from stay as they are: `checked_value`.)
    let text: Rc<str> = match held.and_then(|h| h.written_into(text)) {
        Some(whole) => whole.into(),
        None => text.into(),
    };
    // (Past the limit with the strings in too: they replace the markers' strings, one value
    // for one.)
    checked_past_limit(server, tool, &text, v)?;
    if tool.def.handler.takes_text() && !tasks::may_run_as_task(tool, v) {
        return Ok(ToolArgs::Text(text));
    }
    let args = values::parse(&text).map_err(unreadable)?;
    checked_value(server, tool, args, None, v)
}

/// Arguments' text read into a value of at most `limits.max_values` values; `None` past them
/// (text holding more is not read at all: [`values::from_str`]); the parse error of text that
/// is not JSON a value holds.
fn read_counted(server: &Server, text: &str) -> Result<Option<Value>, Reply> {
    let budget = ValueBudget::new(server.config().limits.max_values);
    match values::from_str(text, &budget) {
        Ok(args) => Ok(Some(args)),
        // (What the message's parse refused before arguments were kept as text.)
        Err(e) if !budget.ran_out() => Err(unreadable(e)),
        Err(_) => Ok(None),
    }
}

/// [`too_many`], called through a pointer, as the text walk in [`checked_text`] is: what it
/// reaches, the text walk among it, is not in the call module.
fn too_many_to_read(
    server: &Server,
    tool: &Tool,
    text: &str,
    v: ProtocolVersion,
) -> Result<(), Reply> {
    let max_values = server.config().limits.max_values;
    std::hint::black_box(too_many as TooMany)(tool, text, max_values, v)
}

type TooMany = fn(&Tool, &str, usize, ProtocolVersion) -> Result<(), Reply>;

/// The answer to arguments whose reading ran out of values, which the tool's schema (the text
/// walk) did not show valid: a refusal made from the text (`Ok` only where nothing refuses
/// them after all: a deferred schema the validator module refused validates nothing).
fn too_many(tool: &Tool, text: &str, max_values: usize, v: ProtocolVersion) -> Result<(), Reply> {
    if let Some(e) = plain_schema::read_error(text) {
        return Err(unreadable(e));
    }
    if !text.starts_with('{') {
        return Err(refused(
            CallError::NotAnObject(jsonrpc::compact_text(text)),
            v,
        ));
    }
    let violations = match &tool.input {
        Some(schema) => schema.text_violations(text, max_values),
        None => Vec::new(),
    };
    match violations.is_empty() {
        true => Ok(()),
        false => Err(refused(
            CallError::InvalidArguments {
                tool: tool.def.name.clone(),
                violations,
            },
            v,
        )),
    }
}

/// Arguments read as a value, checked: shared for the handler with the strings `held` has,
/// or the answer refusing them.
fn checked_value(
    server: &Server,
    tool: &Tool,
    args: Value,
    held: Option<Rc<HeldArguments>>,
    v: ProtocolVersion,
) -> Result<ToolArgs, Reply> {
    let mut args = match args {
        Value::Null => Value::Object(Map::new()),
        a => a,
    };
    // (Strings a message refused before its request ran left behind are not these.)
    let mut held = held.filter(|h| h.all_in(&args));
    // Long strings held out of the text (`server::held::HeldArguments`) are read in where
    // something reads them: a schema that reads strings' texts, a task (which keeps its
    // arguments until it runs), a violation's message. Only asked when something is held (a
    // schema's answer is a walk of its subschemas, and most calls hold nothing).
    if held.is_some()
        && (tasks::may_run_as_task(tool, v)
            || tool.input.as_ref().is_some_and(|s| s.reads_string_texts()))
    {
        read_in(&mut held, &mut args);
    }
    let mut checked = server.check_args(tool, &args);
    if checked.is_err() && held.is_some() {
        read_in(&mut held, &mut args);
        checked = server.check_args(tool, &args);
    }
    match checked {
        Ok(()) => Ok(ToolArgs::Value(Rc::new(args), held)),
        Err(e) => Err(refused(e, v)),
    }
}

/// The answer to a call whose arguments `e` refuses.
fn refused(e: CallError, v: ProtocolVersion) -> Reply {
    let text = e.to_string();
    match e {
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
    }
}

/// `args` with the texts of the strings `held` stands for in place of their markers; nothing
/// is held any more.
fn read_in(held: &mut Option<Rc<HeldArguments>>, args: &mut Value) {
    if let Some(h) = held.take() {
        h.read_into(args);
    }
}

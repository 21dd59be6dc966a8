//! The MCP methods: one function each, reading their params strictly.

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::rc::Rc;

use super::context::RequestContext;
use super::engine::CallError;
use super::error::ServerError;
use super::input_required::{self, Outcome, Round};
use super::logging::LogLevel;
use super::pagination;
use super::registry::Tool;
use super::results;
use super::runtime::LocalBoxFuture;
use super::session::{ListenFilter, SessionInner};
use super::shape;
use super::skills;
use super::tasks;
use crate::protocol::{version, ProtocolVersion, RequestId};

/// One request being served.
pub(crate) struct Call {
    pub session: Rc<SessionInner>,
    pub id: RequestId,
    pub method: String,
    pub params: Map<String, Value>,
    /// `None` only before `initialize`.
    pub version: Option<ProtocolVersion>,
    pub stateless: bool,
    pub ctx: RequestContext,
}

/// How a method answers.
pub(crate) enum Reply {
    Now(Result<Value, ServerError>),
    Later(LocalBoxFuture<'static, Result<Value, ServerError>>),
    /// A `subscriptions/listen` stream was opened; it is answered only when torn down.
    Listen(ListenFilter),
}

type R = Result<Value, ServerError>;

fn now(r: R) -> Reply {
    Reply::Now(r)
}

/// The call's context with what a 2026-07-28 retry brought (`inputResponses`, a verified
/// `requestState`); see [`input_required`].
fn with_inputs(call: &Call) -> Result<RequestContext, ServerError> {
    let mut ctx = call.ctx.clone();
    if call.stateless {
        ctx.inputs = input_required::read_inputs(&call.params, call.session.server.state_key())?;
    }
    Ok(ctx)
}

/// A handler value as a round: an input-required result (checked), or the value itself.
fn round(value: Value, what: &str) -> Result<Round<Value>, ServerError> {
    if !input_required::is_input_required(&value) {
        return Ok(Round::Done(value));
    }
    input_required::parse_result(&value)
        .map(Round::Input)
        .map_err(|e| {
            ServerError::Internal(format!(
                "{what} returned a malformed input_required result: {e}"
            ))
        })
}

fn param_str<'a>(
    p: &'a Map<String, Value>,
    key: &str,
    method: &str,
) -> Result<&'a str, ServerError> {
    match p.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(ServerError::invalid_params(format!(
            "{method}: \"{key}\" must be a string, got {other}"
        ))),
        None => Err(ServerError::invalid_params(format!(
            "{method}: missing required parameter \"{key}\""
        ))),
    }
}

/// Whether `method` runs page code (a tool, resource or prompt handler, a completion): the
/// requests `limits.max_in_flight` counts and queues past it. Everything else is answered at
/// once and never waits behind them, `ping` included.
pub(crate) fn runs_handler(method: &str) -> bool {
    matches!(
        method,
        "tools/call" | "resources/read" | "prompts/get" | "completion/complete"
    )
}

/// Routes a request to its method.
pub(crate) fn dispatch(call: &Call) -> Reply {
    let m = call.method.as_str();
    // `initialize` and `ping` are the only methods reachable without a version.
    let Some(v) = call.version else {
        return match m {
            "initialize" => now(initialize(call)),
            _ => now(Ok(json!({}))),
        };
    };
    match (m, call.stateless) {
        ("ping", false) => now(Ok(json!({}))),
        ("server/discover", _) => now(Ok(discover(call))),
        ("tools/list", _) => now(tools_list(call, v)),
        ("tools/call", _) => tools_call(call, v),
        ("resources/list", _) => now(resources_list(call, v, false)),
        ("resources/templates/list", _) => now(resources_list(call, v, true)),
        ("resources/read", _) => resources_read(call),
        ("resources/subscribe", false) => now(subscribe(call, true)),
        ("resources/unsubscribe", false) => now(subscribe(call, false)),
        ("subscriptions/listen", true) => listen(call),
        ("prompts/list", _) => now(prompts_list(call, v)),
        ("prompts/get", _) => prompts_get(call),
        ("logging/setLevel", false) => now(set_level(call)),
        ("completion/complete", _) => complete(call),
        ("tasks/get" | "tasks/update" | "tasks/cancel", true) => tasks::method(call),
        ("skills/list" | "skills/get" | "resources/directory/read", _) if v.has_extensions() => {
            skills::method(call, v)
        }
        _ => now(Err(ServerError::MethodNotFound(m.to_string()))),
    }
}

/// The server's capabilities as advertised for `version`.
pub fn capabilities(version: ProtocolVersion) -> Value {
    let mut c = json!({
        "tools": { "listChanged": true },
        "resources": { "subscribe": true, "listChanged": true },
        "prompts": { "listChanged": true },
        "logging": {},
    });
    if version >= ProtocolVersion::V2025_03_26 {
        c["completions"] = json!({});
    }
    if version.has_extensions() {
        c["extensions"] = json!({
            tasks::TASKS_EXTENSION: {},
            skills::SKILLS_EXTENSION: skills::capability(),
        });
    }
    c
}

fn initialize(call: &Call) -> R {
    let p = &call.params;
    let requested = param_str(p, "protocolVersion", "initialize")?;
    let caps = match p.get("capabilities") {
        None => Value::Object(Map::new()),
        Some(c @ Value::Object(_)) => c.clone(),
        Some(other) => {
            return Err(ServerError::invalid_params(format!(
                "initialize: \"capabilities\" must be an object, got {other}"
            )))
        }
    };
    let client_info = match p.get("clientInfo") {
        None => None,
        Some(ci @ Value::Object(o)) if o.get("name").is_some_and(Value::is_string) => {
            Some(ci.clone())
        }
        Some(other) => {
            return Err(ServerError::invalid_params(format!(
                "initialize: \"clientInfo\" must be an object with a string \"name\", got {other}"
            )))
        }
    };
    let version = version::negotiate(requested);
    call.session.initialized(version, client_info, caps);
    let info = call.session.server.info();
    let mut r = Map::new();
    r.insert("protocolVersion".into(), json!(version.as_str()));
    r.insert("capabilities".into(), capabilities(version));
    r.insert("serverInfo".into(), info.implementation(version));
    if let Some(i) = &info.instructions {
        r.insert("instructions".into(), json!(i));
    }
    Ok(Value::Object(r))
}

fn discover(call: &Call) -> Value {
    let info = call.session.server.info();
    let mut r = Map::new();
    r.insert(
        "supportedVersions".into(),
        json!(ProtocolVersion::supported_strings()),
    );
    r.insert(
        "capabilities".into(),
        capabilities(ProtocolVersion::V2026_07_28),
    );
    if let Some(i) = &info.instructions {
        r.insert("instructions".into(), json!(i));
    }
    Value::Object(r)
}

/// `tools/list`: a page of the tools as shaped for `v`, served from the server's cache of
/// shaped tools (built once per version, dropped when the tools change).
fn tools_list(call: &Call, v: ProtocolVersion) -> R {
    let server = &call.session.server;
    let after = pagination::read_cursor(&call.params)?;
    let tools = server.shaped_tools(v);
    let (page, next) = pagination::page_sorted(&tools, after.as_deref(), server.config().page_size);
    Ok(list_result("tools", page, next))
}

fn list_result(key: &str, items: Vec<Value>, next: Option<String>) -> Value {
    let mut r = Map::new();
    r.insert(key.into(), Value::Array(items));
    if let Some(n) = next {
        r.insert("nextCursor".into(), json!(n));
    }
    Value::Object(r)
}

fn invalid_arguments_text(tool: &str, violations: &[super::validator::SchemaViolation]) -> String {
    let parts: Vec<String> = violations.iter().map(|v| v.describe()).collect();
    format!("Invalid arguments for tool {tool}: {}", parts.join("; "))
}

fn unknown_tool(name: &str) -> ServerError {
    ServerError::InvalidParams {
        message: format!("Unknown tool: {name}"),
        data: Some(json!({ "name": name })),
    }
}

/// `tools/call`. The tool is looked up once, here. A tool with a schema whose validator is
/// not ready yet (the browser loads it on first need) is checked once it is; if it never will
/// be, the call is an `isError` result naming why, and the tool does not run.
fn tools_call(call: &Call, v: ProtocolVersion) -> Reply {
    let name = match param_str(&call.params, "name", "tools/call") {
        Ok(name) => name,
        Err(e) => return now(Err(e)),
    };
    let server = &call.session.server;
    let Some(tool) = server.tool(name) else {
        return now(Err(unknown_tool(name)));
    };
    let Some(wait) = server.validator_ready_for(&tool) else {
        return tools_call_checked(call, tool, v);
    };
    let call = Call {
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
        let Some(tool) = call.session.server.tool(&tool.def.name) else {
            return Err(unknown_tool(&tool.def.name));
        };
        match tools_call_checked(&call, tool, v) {
            Reply::Now(r) => r,
            Reply::Later(f) => f.await,
            Reply::Listen(_) => Err(ServerError::Internal("tools/call opened a stream".into())),
        }
    }))
}

fn tools_call_checked(call: &Call, tool: Rc<Tool>, v: ProtocolVersion) -> Reply {
    let args = match call.params.get("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(a) => a.clone(),
    };
    let server = call.session.server.clone();
    if let Err(e) = server.check_args(&tool, &args) {
        return match e {
            CallError::UnknownTool(n) => now(Err(unknown_tool(&n))),
            e @ CallError::NotAnObject(_) => {
                now(Err(ServerError::invalid_params(format!("tools/call: {e}"))))
            }
            e @ CallError::ValidatorUnavailable { .. } => now(Ok(shape::call_tool_result(
                results::tool_error(e.to_string()),
                v,
            ))),
            CallError::InvalidArguments { tool, violations } => {
                let text = invalid_arguments_text(&tool, &violations);
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
    if let Some(reply) = tasks::tools_call(call, v, &tool, &args, &ctx) {
        return reply;
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
    Reply::Later(Box::pin(async move {
        let failed = |message: String| Ok(results::tool_error(message));
        match input_required::drive(ctx, stateless, key, run, failed).await? {
            Outcome::Done(m) => Ok(shape::call_tool_result(m, v)),
            Outcome::Input(r) => Ok(r),
        }
    }))
}

fn resources_list(call: &Call, v: ProtocolVersion, templates: bool) -> R {
    let server = &call.session.server;
    let after = pagination::read_cursor(&call.params)?;
    let all = server.resources();
    let size = server.config().page_size;
    if templates {
        let (page, next) = pagination::page(
            all.iter()
                .filter(|r| r.template.is_some())
                .map(|r| (r.def.uri.clone(), shape::template(r, v))),
            after.as_deref(),
            size,
        );
        Ok(list_result("resourceTemplates", page, next))
    } else {
        let (page, next) = pagination::page(
            all.iter()
                .filter(|r| r.template.is_none())
                .map(|r| (r.def.uri.clone(), shape::resource(r, v))),
            after.as_deref(),
            size,
        );
        Ok(list_result("resources", page, next))
    }
}

fn resources_read(call: &Call) -> Reply {
    let uri = match param_str(&call.params, "uri", "resources/read") {
        Ok(u) => u.to_string(),
        Err(e) => return now(Err(e)),
    };
    let found = call.session.server.registry().resolve(&uri);
    let Some((resource, vars)) = found else {
        return now(Err(ServerError::ResourceNotFound { uri }));
    };
    let ctx = match with_inputs(call) {
        Ok(c) => c,
        Err(e) => return now(Err(e)),
    };
    let key = call.session.server.state_key().clone();
    let stateless = call.stateless;
    let mime = resource.def.mime_type.clone();
    let u = uri.clone();
    let run =
        move |ctx: RequestContext| -> LocalBoxFuture<'static, Result<Round<Value>, ServerError>> {
            let fut = resource.def.handler.read(u.clone(), vars.clone(), ctx);
            let u = u.clone();
            Box::pin(async move {
                let value = fut.await.map_err(|e| {
                    ServerError::Internal(format!("Reading resource {u} failed: {}", e.message))
                })?;
                round(value, &format!("Resource {u}"))
            })
        };
    Reply::Later(Box::pin(async move {
        let failed = |message: String| Err(ServerError::Internal(message));
        let value = match input_required::drive(ctx, stateless, key, run, failed).await? {
            Outcome::Done(v) => v,
            Outcome::Input(r) => return Ok(r),
        };
        let contents = results::resource_contents(value, &uri, mime.as_deref()).map_err(|e| {
            ServerError::Internal(format!("Resource {uri} returned malformed contents: {e}"))
        })?;
        Ok(json!({ "contents": contents }))
    }))
}

fn subscribe(call: &Call, on: bool) -> R {
    let method = if on {
        "resources/subscribe"
    } else {
        "resources/unsubscribe"
    };
    let uri = param_str(&call.params, "uri", method)?;
    call.session.subscribe(uri, on);
    Ok(json!({}))
}

fn listen(call: &Call) -> Reply {
    let f = match call.params.get("notifications") {
        Some(Value::Object(f)) => f,
        Some(other) => {
            return now(Err(ServerError::invalid_params(format!(
                "subscriptions/listen: \"notifications\" must be an object, got {other}"
            ))))
        }
        None => {
            return now(Err(ServerError::invalid_params(
                "subscriptions/listen: missing required parameter \"notifications\"",
            )))
        }
    };
    let flag = |k: &str| f.get(k) == Some(&Value::Bool(true));
    let uris = match f.get("resourceSubscriptions") {
        None => Default::default(),
        Some(Value::Array(a)) if a.iter().all(Value::is_string) => a
            .iter()
            .filter_map(|u| u.as_str().map(String::from))
            .collect(),
        Some(other) => {
            return now(Err(ServerError::invalid_params(format!(
                "subscriptions/listen: \"resourceSubscriptions\" must be an array of strings, got {other}"
            ))))
        }
    };
    let task_ids = match tasks::listen_task_ids(f, &call.params) {
        Ok(ids) => ids.into_iter().collect(),
        Err(e) => return now(Err(e)),
    };
    Reply::Listen(ListenFilter {
        tools: flag("toolsListChanged"),
        resources: flag("resourcesListChanged"),
        prompts: flag("promptsListChanged"),
        resource_uris: uris,
        task_ids,
    })
}

fn prompts_list(call: &Call, v: ProtocolVersion) -> R {
    let server = &call.session.server;
    let after = pagination::read_cursor(&call.params)?;
    let prompts = server.prompts();
    let (page, next) = pagination::page(
        prompts
            .iter()
            .map(|p| (p.name.clone(), shape::prompt(p, v))),
        after.as_deref(),
        server.config().page_size,
    );
    Ok(list_result("prompts", page, next))
}

fn string_map(v: Option<&Value>, what: &str) -> Result<BTreeMap<String, String>, ServerError> {
    match v {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(o)) => o
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                other => Err(ServerError::invalid_params(format!(
                    "{what}: argument \"{k}\" must be a string, got {other}"
                ))),
            })
            .collect(),
        Some(other) => Err(ServerError::invalid_params(format!(
            "{what}: \"arguments\" must be an object of strings, got {other}"
        ))),
    }
}

fn prompts_get(call: &Call) -> Reply {
    let r = (|| {
        let name = param_str(&call.params, "name", "prompts/get")?;
        let prompt = call.session.server.registry().prompt(name).ok_or_else(|| {
            ServerError::InvalidParams {
                message: format!("Unknown prompt: {name}"),
                data: Some(json!({ "name": name })),
            }
        })?;
        let args = string_map(call.params.get("arguments"), "prompts/get")?;
        let unknown: Vec<&str> = args
            .keys()
            .filter(|k| !prompt.arguments.iter().any(|a| &a.name == *k))
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            return Err(ServerError::invalid_params(format!(
                "Prompt {name} has no argument(s): {}",
                unknown.join(", ")
            )));
        }
        let missing: Vec<&str> = prompt
            .arguments
            .iter()
            .filter(|a| a.required && !args.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(ServerError::invalid_params(format!(
                "Prompt {name} is missing required argument(s): {}",
                missing.join(", ")
            )));
        }
        Ok((prompt, args))
    })();
    let (prompt, args) = match r {
        Ok(x) => x,
        Err(e) => return now(Err(e)),
    };
    let ctx = match with_inputs(call) {
        Ok(c) => c,
        Err(e) => return now(Err(e)),
    };
    let key = call.session.server.state_key().clone();
    let stateless = call.stateless;
    let version = call.version;
    let p = prompt.clone();
    let run =
        move |ctx: RequestContext| -> LocalBoxFuture<'static, Result<Round<Value>, ServerError>> {
            let fut = p.handler.get(args.clone(), ctx);
            let name = p.name.clone();
            Box::pin(async move {
                let value = fut.await.map_err(|e| {
                    ServerError::Internal(format!("Prompt {name} failed: {}", e.message))
                })?;
                round(value, &format!("Prompt {name}"))
            })
        };
    Reply::Later(Box::pin(async move {
        let failed = |message: String| Err(ServerError::Internal(message));
        let value = match input_required::drive(ctx, stateless, key, run, failed).await? {
            Outcome::Done(v) => v,
            Outcome::Input(r) => return Ok(r),
        };
        let r = results::prompt_result(value, prompt.description.as_deref()).map_err(|e| {
            ServerError::Internal(format!(
                "Prompt {} returned a malformed result: {e}",
                prompt.name
            ))
        })?;
        Ok(match version {
            Some(v) => shape::prompt_result(r, v),
            None => Value::Object(r),
        })
    }))
}

fn set_level(call: &Call) -> R {
    let level = param_str(&call.params, "level", "logging/setLevel")?;
    let parsed = LogLevel::parse(level).ok_or_else(|| {
        let all: Vec<&str> = LogLevel::ALL.iter().map(|l| l.as_str()).collect();
        ServerError::invalid_params(format!(
            "logging/setLevel: unknown level {level:?}; use one of {}",
            all.join(", ")
        ))
    })?;
    call.session.set_log_level(parsed);
    Ok(json!({}))
}

/// The most values a completion result may carry.
const MAX_COMPLETIONS: usize = 100;

fn complete(call: &Call) -> Reply {
    let r = (|| {
        let p = &call.params;
        let reference = p.get("ref").and_then(Value::as_object).ok_or_else(|| {
            ServerError::invalid_params("completion/complete: \"ref\" must be an object")
        })?;
        let argument = p
            .get("argument")
            .and_then(Value::as_object)
            .ok_or_else(|| {
                ServerError::invalid_params("completion/complete: \"argument\" must be an object")
            })?;
        let arg_name = param_str(argument, "name", "completion/complete argument")?.to_string();
        let arg_value = param_str(argument, "value", "completion/complete argument")?.to_string();
        let context = string_map(
            p.get("context").and_then(|c| c.get("arguments")),
            "completion/complete context",
        )?;
        let registry = call.session.server.registry();
        let completer = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => {
                let name = param_str(reference, "name", "completion/complete ref")?;
                let prompt = registry.prompt(name).ok_or_else(|| {
                    ServerError::invalid_params(format!("Unknown prompt: {name}"))
                })?;
                if !prompt.arguments.iter().any(|a| a.name == arg_name) {
                    return Err(ServerError::invalid_params(format!(
                        "Prompt {name} has no argument {arg_name:?}"
                    )));
                }
                prompt.completers.get(&arg_name).cloned()
            }
            Some("ref/resource") => {
                let uri = param_str(reference, "uri", "completion/complete ref")?;
                let template = registry.template(uri).ok_or_else(|| {
                    ServerError::invalid_params(format!("Unknown resource template: {uri}"))
                })?;
                let vars = template
                    .template
                    .as_ref()
                    .map(|t| t.variable_names())
                    .unwrap_or_default();
                if !vars.contains(&arg_name) {
                    return Err(ServerError::invalid_params(format!(
                        "Resource template {uri} has no variable {arg_name:?}"
                    )));
                }
                template.def.completers.get(&arg_name).cloned()
            }
            other => {
                return Err(ServerError::invalid_params(format!(
                "completion/complete: ref.type must be \"ref/prompt\" or \"ref/resource\", got {}",
                other
                    .map(|s| format!("{s:?}"))
                    .unwrap_or_else(|| "nothing".into())
            )))
            }
        };
        Ok((completer, arg_name, arg_value, context))
    })();
    let (completer, name, value, context) = match r {
        Ok(x) => x,
        Err(e) => return now(Err(e)),
    };
    let Some(completer) = completer else {
        return now(Ok(
            json!({ "completion": { "values": [], "hasMore": false } }),
        ));
    };
    let fut = completer.complete(name, value, context);
    Reply::Later(Box::pin(async move {
        let v = fut
            .await
            .map_err(|e| ServerError::Internal(format!("Completion failed: {}", e.message)))?;
        let (values, total, has_more) = match v {
            Value::Array(a) => (a, None, None),
            Value::Object(mut o) => {
                let vals = match o.remove("values") {
                    Some(Value::Array(a)) => a,
                    _ => {
                        return Err(ServerError::Internal(
                            "Completion returned an object without a \"values\" array".into(),
                        ))
                    }
                };
                (
                    vals,
                    o.get("total").and_then(Value::as_u64),
                    o.get("hasMore").and_then(Value::as_bool),
                )
            }
            other => {
                return Err(ServerError::Internal(format!(
                    "Completion must return an array of strings, got {other}"
                )))
            }
        };
        let mut strings: Vec<String> = values
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                other => Err(ServerError::Internal(format!(
                    "Completion values must be strings, got {other}"
                ))),
            })
            .collect::<Result<_, _>>()?;
        let count = strings.len();
        let truncated = count > MAX_COMPLETIONS;
        strings.truncate(MAX_COMPLETIONS);
        let mut c = Map::new();
        c.insert("values".into(), json!(strings));
        c.insert("total".into(), json!(total.unwrap_or(count as u64)));
        c.insert(
            "hasMore".into(),
            json!(has_more.unwrap_or(false) || truncated),
        );
        Ok(json!({ "completion": c }))
    }))
}

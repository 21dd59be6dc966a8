//! The MCP methods: one function each, reading their params strictly.

use crate::server::limits::quote;
use serde_json::{json, Map, Value};

use super::call::{Call, Reply};
use super::context::RequestContext;
use super::error::ServerError;
use super::input_required::{self, Round};
use super::logging::LogLevel;
use super::skills;
use super::tasks;
use crate::protocol::{version, ProtocolVersion};

mod prompts;
mod resources;
mod tools;

use prompts::{complete, prompts_get, prompts_list};
use resources::{listen, resources_list, resources_read, subscribe};
use tools::{tools_call, tools_list};

type R = Result<Value, ServerError>;

fn now(r: R) -> Reply {
    Reply::Now(r)
}

/// The call's context with what a 2026-07-28 retry brought (`inputResponses`, a verified
/// `requestState`); see [`input_required`].
fn with_inputs(call: &Call) -> Result<RequestContext, ServerError> {
    let mut ctx = call.ctx.clone();
    if call.stateless {
        ctx.set_inputs(input_required::read_inputs(
            &call.params,
            call.session.server().state_key(),
        )?);
    }
    Ok(ctx)
}

/// [`with_inputs`] for a request answered directly, never as a task (`resources/read`,
/// `prompts/get`): its handler may hold a long text out of the engine (`server::held`), for
/// every clone of the context, the session's included.
fn with_inputs_holding(call: &mut Call) -> Result<RequestContext, ServerError> {
    call.ctx.holder = Some(std::rc::Rc::new(crate::server::held::Holder::allowing()));
    with_inputs(call)
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
            "{method}: \"{key}\" must be a string, got {other}",
            other = quote(other)
        ))),
        None => Err(ServerError::invalid_params(format!(
            "{method}: missing required parameter \"{key}\""
        ))),
    }
}

fn list_result(key: &str, items: Vec<Value>, next: Option<String>) -> Value {
    let mut r = Map::new();
    r.insert(key.into(), Value::Array(items));
    if let Some(n) = next {
        r.insert("nextCursor".into(), json!(n));
    }
    Value::Object(r)
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
pub(crate) fn dispatch(call: &mut Call) -> Reply {
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
        ("tools/list", _) => tools_list(call, v),
        // (Not with the other methods: a call's path does not go through their code, which
        // the first call would otherwise compile.)
        ("tools/call", _) => tools_call(call, v),
        _ => dispatch_other(call, v),
    }
}

/// The methods other than discovery and `tools/call`. Never inlined into [`dispatch`], so that
/// the code of discovery stays small and apart: a page's build keeps it in the part of the core
/// it loads first and loads this with the rest (`scripts/lib/core-split.mjs`).
#[inline(never)]
fn dispatch_other(call: &mut Call, v: ProtocolVersion) -> Reply {
    let m = call.method.as_str();
    match (m, call.stateless) {
        ("server/discover", _) => now(Ok(discover(call))),
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

/// `initialize`: negotiates the version, records the client's capabilities and info, and answers with the server's.
///
/// Spec: <https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization>.
fn initialize(call: &Call) -> R {
    let p = &call.params;
    let requested = param_str(p, "protocolVersion", "initialize")?;
    let caps = match p.get("capabilities") {
        None => Value::Object(Map::new()),
        Some(c @ Value::Object(_)) => c.clone(),
        Some(other) => {
            return Err(ServerError::invalid_params(format!(
                "initialize: \"capabilities\" must be an object, got {other}",
                other = quote(other)
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
                "initialize: \"clientInfo\" must be an object with a string \"name\", got {other}",
                other = quote(other)
            )))
        }
    };
    let version = version::negotiate(requested);
    call.session.initialized(version, client_info, caps);
    let info = call.session.server().info();
    let mut r = Map::new();
    r.insert("protocolVersion".into(), json!(version.as_str()));
    r.insert("capabilities".into(), capabilities(version));
    r.insert("serverInfo".into(), info.implementation(version));
    if let Some(i) = &info.instructions {
        r.insert("instructions".into(), json!(i));
    }
    Ok(Value::Object(r))
}

/// `server/discover` (2026-07-28): the versions, capabilities, info and instructions a stateless client needs.
///
/// Spec: <https://modelcontextprotocol.io/specification/2026-07-28> (`server/discover`).
fn discover(call: &Call) -> Value {
    let info = call.session.server().info();
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

/// `logging/setLevel`: the least severe level the session's log notifications carry.
///
/// Spec: <https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging>.
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

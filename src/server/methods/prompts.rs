//! `prompts/list`, `prompts/get` and `completion/complete`.

use crate::collections::VecMap;
use crate::server::limits::quote;
use crate::server::limits::{list_names, shorten};
use serde_json::{json, Map, Value};

use crate::protocol::ProtocolVersion;
use crate::server::context::RequestContext;
use crate::server::error::ServerError;
use crate::server::input_required::{self, Round};
use crate::server::pagination;
use crate::server::results;
use crate::server::runtime::LocalBoxFuture;
use crate::server::shape;

use super::{list_result, now, param_str, round, with_inputs_holding, Call, Reply, R};

/// `prompts/list`: a page of the prompts as shaped for `v`.
///
/// Spec: <https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#listing-prompts>.
pub(super) fn prompts_list(call: &Call, v: ProtocolVersion) -> R {
    let server = &call.session.server();
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

pub(super) fn string_map(
    v: Option<&Value>,
    what: &str,
) -> Result<VecMap<String, String>, ServerError> {
    match v {
        None | Some(Value::Null) => Ok(VecMap::new()),
        Some(Value::Object(o)) => o
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                other => Err(ServerError::invalid_params(format!(
                    "{what}: argument \"{k}\" must be a string, got {other}",
                    other = quote(other)
                ))),
            })
            .collect(),
        Some(other) => Err(ServerError::invalid_params(format!(
            "{what}: \"arguments\" must be an object of strings, got {other}",
            other = quote(other)
        ))),
    }
}

/// `prompts/get`: the prompt rendered from its (string) arguments, required ones checked.
///
/// Spec: <https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#getting-a-prompt>; input-required rounds SEP-2322.
pub(super) fn prompts_get(call: &mut Call) -> Reply {
    let r = (|| {
        let name = param_str(&call.params, "name", "prompts/get")?;
        let prompt = call
            .session
            .server()
            .registry()
            .prompt(name)
            .ok_or_else(|| ServerError::InvalidParams {
                message: format!("Unknown prompt: {}", shorten(name.to_owned())),
                data: Some(json!({ "name": name })),
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
                list_names(&unknown)
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
    let ctx = match with_inputs_holding(call) {
        Ok(c) => c,
        Err(e) => return now(Err(e)),
    };
    let key = call.session.server().state_key().clone();
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
    let failed = |message: String| Err(ServerError::Internal(message));
    let done = move |value| {
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
    };
    Reply::Later(Box::pin(input_required::drive(
        ctx, stateless, key, run, failed, done,
    )))
}

/// The most values a completion result may carry.
const MAX_COMPLETIONS: usize = 100;

/// `completion/complete`: suggestions for a prompt argument or a template variable, at most [`MAX_COMPLETIONS`].
///
/// Spec: <https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion>.
pub(super) fn complete(call: &Call) -> Reply {
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
        let registry = call.session.server().registry();
        let completer = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => {
                let name = param_str(reference, "name", "completion/complete ref")?;
                let prompt = registry.prompt(name).ok_or_else(|| {
                    ServerError::invalid_params(format!(
                        "Unknown prompt: {}",
                        shorten(name.to_owned())
                    ))
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
                    ServerError::invalid_params(format!(
                        "Unknown resource template: {}",
                        shorten(uri.to_owned())
                    ))
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
                    "Completion must return an array of strings, got {other}",
                    other = quote(&other)
                )))
            }
        };
        let mut strings: Vec<String> = values
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                other => Err(ServerError::Internal(format!(
                    "Completion values must be strings, got {other}",
                    other = quote(&other)
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

//! `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe`
//! and `subscriptions/listen`.

use crate::server::limits::quote;
use serde_json::{json, Map, Value};

use crate::protocol::ProtocolVersion;
use crate::server::call::ListenFilter;
use crate::server::context::RequestContext;
use crate::server::error::ServerError;
use crate::server::input_required::{self, Round};
use crate::server::pagination;
use crate::server::results;
use crate::server::runtime::LocalBoxFuture;
use crate::server::shape;
use crate::server::tasks;

use super::{list_result, now, param_str, round, with_inputs_holding, Call, Reply, R};

/// `resources/list` (or, with `templates`, `resources/templates/list`): a page as shaped for `v`.
///
/// Spec: <https://modelcontextprotocol.io/specification/2025-11-25/server/resources#listing-resources>.
pub(super) fn resources_list(call: &Call, v: ProtocolVersion, templates: bool) -> R {
    let server = &call.session.server();
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

/// `resources/read`: the static resource or the first matching template, read by its handler.
///
/// Spec: <https://modelcontextprotocol.io/specification/2025-11-25/server/resources#reading-resources>; input-required rounds SEP-2322.
pub(super) fn resources_read(call: &mut Call) -> Reply {
    let uri = match param_str(&call.params, "uri", "resources/read") {
        Ok(u) => u.to_string(),
        Err(e) => return now(Err(e)),
    };
    let found = call.session.server().registry().resolve(&uri);
    let Some((resource, vars)) = found else {
        return now(Err(ServerError::ResourceNotFound { uri }));
    };
    let ctx = match with_inputs_holding(call) {
        Ok(c) => c,
        Err(e) => return now(Err(e)),
    };
    let key = call.session.server().state_key().clone();
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
    let failed = |message: String| Err(ServerError::Internal(message));
    let done = move |value| {
        let contents = results::resource_contents(value, &uri, mime.as_deref()).map_err(|e| {
            ServerError::Internal(format!("Resource {uri} returned malformed contents: {e}"))
        })?;
        // By hand: `json!` would copy the contents through its serializer.
        let mut r = Map::new();
        r.insert("contents".into(), Value::Array(contents));
        Ok(Value::Object(r))
    };
    Reply::Later(Box::pin(input_required::drive(
        ctx, stateless, key, run, failed, done,
    )))
}

/// `resources/subscribe` (`on`) and `resources/unsubscribe` (handshake era).
///
/// Spec: <https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions>.
pub(super) fn subscribe(call: &Call, on: bool) -> R {
    let method = if on {
        "resources/subscribe"
    } else {
        "resources/unsubscribe"
    };
    let uri = param_str(&call.params, "uri", method)?;
    call.session.subscribe(uri, on)?;
    Ok(json!({}))
}

/// `subscriptions/listen` (2026-07-28): opens a stream of the notifications the filter asks for; answered when torn down.
///
/// Spec: <https://modelcontextprotocol.io/specification/2026-07-28> (`subscriptions/listen`); task ids SEP-2663.
pub(super) fn listen(call: &Call) -> Reply {
    let f = match call.params.get("notifications") {
        Some(Value::Object(f)) => f,
        Some(other) => {
            return now(Err(ServerError::invalid_params(format!(
                "subscriptions/listen: \"notifications\" must be an object, got {other}",
                other = quote(other)
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
                "subscriptions/listen: \"resourceSubscriptions\" must be an array of strings, got {other}",
                other = quote(other)
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

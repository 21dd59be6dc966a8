//! The extension's requests (`tasks/get`, `tasks/update`, `tasks/cancel`) and the task ids
//! a `subscriptions/listen` stream asks for.

use crate::server::limits::quote;
use serde_json::{json, Map, Value};

use crate::server::call::{Call, Reply};
use crate::server::engine::Server;
use crate::server::error::ServerError;
use crate::server::session::META_CLIENT_CAPABILITIES;

use super::store::drop_inputs;
use super::{declares_tasks, missing_extension, TaskStatus};

// ---- tasks/get, tasks/update, tasks/cancel ---------------------------------------------------

/// The extension's methods (stateless era only; `tasks/result` and `tasks/list` no longer
/// exist and stay `-32601`). Checks the client declared the extension first, as SEP-2663
/// "Error Handling" requires (`-32021`), then the task id (`-32602` when unknown).
pub(crate) fn method(call: &Call) -> Reply {
    Reply::Now(answer(call))
}

pub(super) fn answer(call: &Call) -> Result<Value, ServerError> {
    let m = call.method.as_str();
    if !declares_tasks(call.ctx.client_capabilities()) {
        return Err(missing_extension());
    }
    let id = match call.params.get("taskId") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(ServerError::invalid_params(format!(
                "{m}: \"taskId\" must be a string, got {other}",
                other = quote(other)
            )))
        }
        None => {
            return Err(ServerError::invalid_params(format!(
                "{m}: missing required parameter \"taskId\""
            )))
        }
    };
    let server = &call.session.server();
    server.expire_due();
    if !server.task_store().tasks.borrow().contains_key(&id) {
        return Err(server.task_store().not_found(&id));
    }
    match m {
        "tasks/get" => Ok(server.task(&id).unwrap_or_else(|| json!({}))),
        "tasks/update" => {
            let responses = match call.params.get("inputResponses") {
                Some(Value::Object(o)) => o.clone(),
                Some(other) => {
                    return Err(ServerError::invalid_params(format!(
                        "tasks/update: \"inputResponses\" must be an object mapping input \
                         request keys to results, got {other}",
                        other = quote(other)
                    )))
                }
                None => {
                    return Err(ServerError::invalid_params(
                        "tasks/update: missing required parameter \"inputResponses\"",
                    ))
                }
            };
            update(server, &id, responses);
            Ok(json!({}))
        }
        "tasks/cancel" => {
            cancel(server, &id);
            Ok(json!({}))
        }
        _ => Err(ServerError::MethodNotFound(m.to_string())),
    }
}

/// `tasks/update` (SEP-2663 "Task Update Requests"): answers the outstanding requests the
/// responses name; keys not outstanding (never issued, answered, or superseded) and answers
/// that are not result objects are ignored. The task is `working` again once none is left.
pub(super) fn update(server: &Server, id: &str, responses: Map<String, Value>) {
    let mut answered = Vec::new();
    server.update_task(id, |t| {
        if t.status.is_terminal() {
            return false;
        }
        for (k, v) in responses {
            if !v.is_object() || !t.pending.contains_key(&k) {
                continue;
            }
            t.pending.remove(&k);
            if let Some(slot) = t.answers.remove(&k) {
                answered.push((slot, v));
            }
        }
        if answered.is_empty() {
            return false;
        }
        if t.pending.is_empty() {
            t.status = TaskStatus::Working;
        }
        true
    });
    for (slot, v) in answered {
        slot.fill(Ok(v));
    }
}

/// `tasks/cancel` (SEP-2663 "Task Cancellation"): a task still running becomes `cancelled`
/// at once and its handler's signal fires; a finished one is left as it is.
pub(super) fn cancel(server: &Server, id: &str) {
    let mut token = None;
    server.update_task(id, |t| {
        if t.status.is_terminal() {
            return false;
        }
        drop_inputs(t, "The task was cancelled");
        t.status = TaskStatus::Cancelled;
        t.message = Some("Cancelled by the client".into());
        token = Some(t.cancel.clone());
        true
    });
    if let Some(t) = token {
        t.cancel("The task was cancelled by the client (tasks/cancel)");
    }
}

/// `subscriptions/listen`'s `taskIds` (SEP-2663 "Task Status Notifications"): the ids the
/// server agrees to report on; `-32021` when the client did not declare the extension.
pub(crate) fn listen_task_ids(
    notifications: &Map<String, Value>,
    params: &Map<String, Value>,
) -> Result<Vec<String>, ServerError> {
    let ids = match notifications.get("taskIds") {
        None => return Ok(Vec::new()),
        Some(Value::Array(a)) if a.iter().all(Value::is_string) => a
            .iter()
            .filter_map(|s| s.as_str().map(String::from))
            .collect::<Vec<_>>(),
        Some(other) => {
            return Err(ServerError::invalid_params(format!(
                "subscriptions/listen: \"taskIds\" must be an array of strings, got {other}",
                other = quote(other)
            )))
        }
    };
    let caps = params
        .get("_meta")
        .and_then(|m| m.get(META_CLIENT_CAPABILITIES))
        .cloned()
        .unwrap_or(Value::Null);
    if !ids.is_empty() && !declares_tasks(&caps) {
        return Err(missing_extension());
    }
    Ok(ids)
}

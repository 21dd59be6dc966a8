//! The link between a running handler and its task: created on demand, status messages
//! and input requests routed to the task once it exists.

use serde_json::{json, Map, Value};
use std::cell::RefCell;

use crate::protocol::{ErrorObject, ProtocolVersion};
use crate::server::cancel::CancellationToken;
use crate::server::context::TaskHook;
use crate::server::engine::{Server, WeakServer};
use crate::server::error::ServerError;
use crate::server::input_required::INPUT_METHODS;
use crate::server::runtime::LocalBoxFuture;

// ---- the link between a running handler and its (future) task ------------------------------

/// What a handler's context carries while its call may become, or is, a task.
pub(crate) struct TaskLink {
    pub(super) server: WeakServer,
    pub(super) id: RefCell<Option<String>>,
    /// Fires when the task has been created.
    pub(super) created: CancellationToken,
    /// The handler's signal (the task's, once it exists).
    pub(super) cancel: CancellationToken,
    pub(super) client_capabilities: Value,
    /// A status message reported before the task existed.
    pub(super) early_message: RefCell<Option<String>>,
}

impl TaskLink {
    pub(super) fn server(&self) -> Option<Server> {
        self.server.upgrade()
    }

    /// Creates the task now if it does not exist yet; its id.
    pub(super) fn ensure(&self) -> Result<String, ServerError> {
        if let Some(id) = self.id() {
            return Ok(id);
        }
        let server = self
            .server()
            .ok_or_else(|| ServerError::Internal("The server is gone".into()))?;
        let id = server.create_task(self.cancel.clone(), self.early_message.take())?;
        *self.id.borrow_mut() = Some(id.clone());
        self.created.cancel("created");
        Ok(id)
    }
}

impl TaskHook for TaskLink {
    /// The task's id, once created.
    fn id(&self) -> Option<String> {
        self.id.borrow().clone()
    }

    /// Sets the task's `statusMessage` (kept for creation when the task does not exist yet).
    fn status(&self, message: String) {
        match (self.id(), self.server()) {
            (Some(id), Some(server)) => server.update_task(&id, |t| {
                if t.status.is_terminal() {
                    return false;
                }
                t.message = Some(message);
                true
            }),
            _ => *self.early_message.borrow_mut() = Some(message),
        }
    }

    /// Asks the client for input through the task: the call becomes a task (if it is not one
    /// yet), the request is surfaced in `inputRequests` under a fresh key, and the future
    /// resolves with the client's `tasks/update` answer.
    fn ask(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> LocalBoxFuture<'static, Result<Value, ErrorObject>> {
        let fail = |e: ServerError| -> LocalBoxFuture<'static, Result<Value, ErrorObject>> {
            let e = e.to_error_object(Some(ProtocolVersion::V2026_07_28));
            Box::pin(async move { Err(e) })
        };
        let Some((_, cap)) = INPUT_METHODS.iter().find(|(m, _)| *m == method) else {
            return fail(ServerError::InvalidRequest(format!(
                "Cannot send {method}: a task can ask the client only for {}",
                INPUT_METHODS.map(|(m, _)| m).join(", ")
            )));
        };
        if self.client_capabilities.get(*cap).is_none() {
            return fail(ServerError::MissingClientCapability {
                required: json!({ *cap: {} }),
            });
        }
        let id = match self.ensure() {
            Ok(id) => id,
            Err(e) => return fail(e),
        };
        let Some(server) = self.server() else {
            return fail(ServerError::Internal("The server is gone".into()));
        };
        let mut request = Map::new();
        request.insert("method".into(), json!(method));
        if let Some(p) = params.filter(|p| !p.is_null()) {
            request.insert("params".into(), p);
        }
        match server.ask_in_task(&id, None, Value::Object(request)) {
            Ok(slot) => Box::pin(slot),
            Err(e) => fail(e),
        }
    }
}

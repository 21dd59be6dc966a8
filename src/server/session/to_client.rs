//! Requests the server sends the client (sampling, roots, elicitation), each answered
//! through the session's [`crate::peer::Outgoing`] table.

use serde_json::{json, Value};
use std::rc::Rc;

use super::SessionInner;
use crate::peer::{self, Answer};
use crate::protocol::jsonrpc;
use crate::protocol::{Era, ErrorObject, ProtocolVersion, RequestId};
use crate::server::error::ServerError;
use crate::server::runtime::LocalBoxFuture;

/// What a request sent to the client waits for.
pub(super) type ClientAnswer = Result<Value, ErrorObject>;

impl SessionInner {
    /// Sends a request to the client and resolves with its answer. Refused at once (nothing
    /// is sent) in the stateless era, on a closed session, for a method the version has no
    /// server-to-client request for, and when the client did not declare the capability the
    /// method needs (`sampling`, `roots`, `elicitation`).
    pub(crate) fn request(
        self: &Rc<Self>,
        method: &str,
        params: Option<Value>,
        version: Option<ProtocolVersion>,
    ) -> LocalBoxFuture<'static, Result<Value, ErrorObject>> {
        let refuse = |e: ServerError| -> LocalBoxFuture<'static, Result<Value, ErrorObject>> {
            let e = e.to_error_object(version);
            Box::pin(async move { Err(e) })
        };
        let Some(v) = version.or_else(|| self.st.borrow().negotiated) else {
            return refuse(ServerError::InvalidRequest(format!(
                "Cannot send {method}: the client has not initialized the session"
            )));
        };
        if v.era() == Era::Stateless {
            return refuse(ServerError::InvalidRequest(format!(
                "Cannot send {method}: protocol {v} has no server-to-client requests"
            )));
        }
        if !v.server_request_methods().contains(&method) {
            return refuse(ServerError::InvalidRequest(format!(
                "Cannot send {method}: protocol {v} has no such server-to-client request \
                 (it has {})",
                v.server_request_methods().join(", ")
            )));
        }
        if params
            .as_ref()
            .is_some_and(|p| !p.is_object() && !p.is_null())
        {
            return refuse(ServerError::invalid_params(format!(
                "Cannot send {method}: params must be an object"
            )));
        }
        let needs = match method {
            "sampling/createMessage" => Some("sampling"),
            "roots/list" => Some("roots"),
            "elicitation/create" => Some("elicitation"),
            _ => None,
        };
        if let Some(cap) = needs {
            let declared = self.st.borrow().client_capabilities.get(cap).is_some();
            if !declared {
                return refuse(ServerError::MissingClientCapability {
                    required: json!({ cap: {} }),
                });
            }
        }
        let (id, waiter) = {
            let mut st = self.st.borrow_mut();
            if st.closed {
                drop(st);
                return refuse(ServerError::Internal(format!(
                    "Cannot send {method}: the session is closed"
                )));
            }
            st.outgoing.begin(method.to_string())
        };
        let id = RequestId::Number(id);
        self.send(&jsonrpc::request(&id, method, params));
        // Dropped unanswered (the handler that sent it was cancelled or timed out): the
        // client is told the server no longer needs the answer.
        let session = Rc::downgrade(self);
        Box::pin(Answer::new(waiter, move || {
            let Some(session) = session.upgrade() else {
                return;
            };
            let RequestId::Number(n) = id else { return };
            let method = match session.st.try_borrow_mut() {
                Ok(mut st) => st.outgoing.forget(n),
                Err(_) => None,
            };
            if let Some(method) = method {
                session.send(&peer::cancelled(
                    &id,
                    &format!("The server no longer needs the answer to {method}"),
                ));
            }
        }))
    }

    pub(super) fn settle_outgoing(&self, id: &RequestId, r: ClientAnswer) {
        let sent = self.st.borrow_mut().outgoing.take_answered(id, |_| true);
        if let Some(sent) = sent {
            sent.answer(r);
        }
    }
}

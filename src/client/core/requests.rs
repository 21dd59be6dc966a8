//! Requests both ways: sending one (queued until connected, with timeout, cancellation and
//! progress), matching answers, serving the server's requests and notifications.

use serde_json::{json, Value};
use std::rc::Rc;

use super::{
    timer, IncomingRequest, Inner, NotificationHandler, Outcome, Pending, Phase, RequestOptions,
};
use crate::client::error::ClientError;
use crate::client::wait::{never, select3, First};
use crate::peer::slot::Slot;
use crate::peer::{self, Abandon};
use crate::protocol::error_codes::METHOD_NOT_FOUND;
use crate::protocol::jsonrpc::{self, classify, Message};
use crate::protocol::{ErrorObject, RequestId};
use crate::server::{CancellationToken, LocalBoxFuture};

impl Inner {
    /// Registers a request and sends it now (connected, or `internal`) or queues it.
    fn enqueue(
        &self,
        method: &str,
        params: Option<Value>,
        options: &RequestOptions,
        internal: bool,
    ) -> Result<(i64, Slot<Outcome>), ClientError> {
        let message_and_slot = {
            let mut st = self.st.borrow_mut();
            match st.phase {
                Phase::Idle => {
                    return Err(ClientError::NotConnected {
                        method: method.into(),
                        phase: Phase::Idle,
                    })
                }
                Phase::Closed => return Err(ClientError::transport_closed("The client is closed")),
                _ => {}
            }
            if let Some(reason) = options.cancel.as_ref().and_then(|t| t.reason()) {
                return Err(ClientError::Aborted { reason });
            }
            let send = internal || st.phase == Phase::Connected;
            let sent_on = send.then_some(st.epoch);
            let mut message = Value::Null;
            let (id, slot) = st.pending.begin_with(|id| {
                let mut params = params;
                let progress = options.on_progress.clone().map(|cb| {
                    let token = Value::from(id);
                    let p = params.get_or_insert_with(|| json!({}));
                    if let Some(o) = p.as_object_mut() {
                        let meta = o.entry("_meta").or_insert_with(|| json!({}));
                        if let Some(m) = meta.as_object_mut() {
                            m.insert("progressToken".into(), token.clone());
                        }
                    }
                    (token, cb)
                });
                message = jsonrpc::request(&RequestId::Number(id), method, params);
                Pending {
                    method: method.into(),
                    message: message.clone(),
                    sent_on,
                    progress,
                }
            });
            (id, slot, message, send)
        };
        let (id, slot, message, send) = message_and_slot;
        if send {
            if let Err(e) = self.transport.send(&message) {
                self.st.borrow_mut().pending.forget(id);
                return Err(ClientError::transport(e));
            }
        }
        Ok((id, slot))
    }

    pub(super) fn request(
        me: &Rc<Inner>,
        method: &str,
        params: Option<Value>,
        options: RequestOptions,
        internal: bool,
    ) -> LocalBoxFuture<'static, Outcome> {
        let timeout_ms = options.timeout_ms.unwrap_or(me.options.timeout_ms);
        let enqueued = me.enqueue(method, params, &options, internal);
        // Dropped before it settles (its caller stopped waiting, polled or not), the request
        // is abandoned like a timed-out one; after a timeout or an abort below it is already
        // gone and the guard finds nothing.
        let guard = enqueued.as_ref().ok().map(|&(id, _)| {
            let weak = Rc::downgrade(me);
            Abandon::new(move || {
                if let Some(me) = weak.upgrade() {
                    me.abandon(id, "The caller no longer waits for the answer");
                }
            })
        });
        let me = me.clone();
        let method = method.to_string();
        Box::pin(async move {
            let mut guard = guard;
            let (id, slot) = enqueued?;
            let cancelled: LocalBoxFuture<'static, String> = match &options.cancel {
                Some(t) => Box::pin(t.cancelled()),
                None => never(),
            };
            match select3(Box::pin(slot), timer(&me.runtime, timeout_ms), cancelled).await {
                First::A(outcome) => {
                    if let Some(g) = guard.as_mut() {
                        g.disarm();
                    }
                    outcome
                }
                First::B(()) => {
                    me.abandon(id, &format!("Request timed out after {timeout_ms} ms"));
                    Err(ClientError::RequestTimeout {
                        id: RequestId::Number(id),
                        method,
                        timeout_ms,
                    })
                }
                First::C(reason) => {
                    me.abandon(id, &reason);
                    Err(ClientError::Aborted { reason })
                }
            }
        })
    }

    /// Forgets a request the caller stopped waiting for and, if the server has it, tells
    /// the server (`notifications/cancelled`; never for `initialize`, as MCP requires).
    fn abandon(&self, id: i64, reason: &str) {
        let tell = {
            let mut st = self.st.borrow_mut();
            let current = st.epoch;
            let live = st.phase != Phase::Closed;
            st.pending
                .forget(id)
                .is_some_and(|p| live && p.sent_on == Some(current) && p.method != "initialize")
        };
        if tell {
            self.send_now(&peer::cancelled(&RequestId::Number(id), reason));
        }
    }

    /// Sends `notifications/cancelled` for every request in flight on the current
    /// connection (they stay pending).
    pub(super) fn cancel_sent(&self, reason: &str) {
        let ids: Vec<i64> = {
            let st = self.st.borrow();
            st.pending
                .iter()
                .filter(|(_, p)| p.sent_on == Some(st.epoch) && p.method != "initialize")
                .map(|(id, _)| id)
                .collect()
        };
        for id in ids {
            self.send_now(&peer::cancelled(&RequestId::Number(id), reason));
        }
    }

    pub(super) fn receive(self: &Rc<Self>, epoch: u64, message: Value) {
        if !self.is_current(epoch) {
            return;
        }
        match message {
            Value::Array(items) => {
                for m in items {
                    self.receive_one(epoch, m);
                }
            }
            single => self.receive_one(epoch, single),
        }
    }

    fn receive_one(self: &Rc<Self>, epoch: u64, message: Value) {
        match classify(&message) {
            Err(invalid) => {
                if message.get("method").is_some() {
                    if let Some(id) = &invalid.id {
                        self.send_now(&jsonrpc::failure(Some(id), invalid.to_error()));
                    }
                }
                self.emit_error(&ClientError::protocol(format!(
                    "invalid message from the server: {}",
                    invalid.reason
                )));
            }
            Ok(Message::Response { id, result }) => self.settle(&id, Ok(result)),
            Ok(Message::ErrorResponse {
                id: Some(id),
                error,
            }) => self.settle(&id, Err(ClientError::Rpc(error))),
            Ok(Message::ErrorResponse { id: None, error }) => {
                self.emit_error(&ClientError::Rpc(error))
            }
            Ok(Message::Notification { method, params }) => {
                self.handle_notification(&method, params)
            }
            Ok(Message::Request { id, method, params }) => {
                self.handle_request(epoch, id, method, params)
            }
        }
    }

    /// A request the transport failed to send after its `send()` returned (a rejected
    /// promise): it fails now with that error, as the MCP SDK's `request()` rejects, instead
    /// of waiting for its timeout. Any other message's failed send is reported (`onerror`).
    pub(super) fn send_failed(&self, epoch: u64, id: Option<&RequestId>, message: String) {
        if !self.is_current(epoch) {
            return;
        }
        let sent = id.and_then(|id| {
            self.st
                .borrow_mut()
                .pending
                .take_answered(id, |p| p.sent_on == Some(epoch))
        });
        match sent {
            Some(sent) => sent.answer(Err(ClientError::transport(message))),
            None => self.emit_error(&ClientError::transport(message)),
        }
    }

    fn settle(&self, id: &RequestId, outcome: Outcome) {
        // Only a request already sent can be answered (a queued one has no id out there).
        let sent = self
            .st
            .borrow_mut()
            .pending
            .take_answered(id, |p| p.sent_on.is_some());
        match sent {
            Some(sent) => sent.answer(outcome),
            None => self.emit_error(&ClientError::protocol(format!(
                "a response to unknown request id {id}"
            ))),
        }
    }

    fn handle_notification(&self, method: &str, params: Option<Value>) {
        match method {
            "notifications/cancelled" => {
                if let Some((id, reason)) = peer::read_cancelled(params.as_ref()) {
                    let token = self.st.borrow_mut().incoming.cancel(&id);
                    if let Some(t) = token {
                        t.cancel(reason.unwrap_or_else(|| "Cancelled by the server".into()));
                    }
                }
            }
            "notifications/progress" => {
                let token = params.as_ref().and_then(|p| p.get("progressToken"));
                let cb = token.and_then(|t| {
                    self.st
                        .borrow()
                        .pending
                        .iter()
                        .find_map(|(_, p)| p.progress.as_ref().filter(|(tok, _)| tok == t))
                        .map(|(_, cb)| cb.clone())
                });
                if let Some(cb) = cb {
                    cb(params.unwrap_or_else(|| json!({})));
                    return;
                }
            }
            _ => {}
        }
        let handlers: Vec<NotificationHandler> = self
            .notification_handlers
            .borrow()
            .iter()
            .filter(|(_, m, _)| m == method || m == "*")
            .map(|(_, _, h)| h.clone())
            .collect();
        for h in handlers {
            h(method, params.as_ref());
        }
    }

    fn handle_request(
        self: &Rc<Self>,
        epoch: u64,
        id: RequestId,
        method: String,
        params: Option<Value>,
    ) {
        if method == "ping" {
            return self.send_now(&jsonrpc::success(&id, json!({})));
        }
        let handler = self.request_handlers.borrow().get(&method).cloned();
        let Some(handler) = handler else {
            return self.send_now(&jsonrpc::failure(
                Some(&id),
                ErrorObject::new(METHOD_NOT_FOUND, format!("Method not found: {method}")),
            ));
        };
        let token = CancellationToken::new();
        self.st
            .borrow_mut()
            .incoming
            .start(id.clone(), token.clone());
        let fut = handler(IncomingRequest {
            id: id.clone(),
            method,
            params,
            cancel: token.clone(),
        });
        let weak = Rc::downgrade(self);
        self.runtime.spawn(Box::pin(async move {
            let outcome = fut.await;
            let Some(me) = weak.upgrade() else { return };
            let mine = me.st.borrow_mut().incoming.finish(&id, &token);
            if !mine || token.is_cancelled() || !me.is_current(epoch) {
                return;
            }
            let reply = match outcome {
                Ok(v) => jsonrpc::success(&id, v),
                Err(e) => jsonrpc::failure(Some(&id), e),
            };
            me.send_now(&reply);
        }));
    }
}

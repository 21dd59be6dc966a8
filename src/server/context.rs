//! The context a handler runs in: cancellation, progress, logging, and requests back to
//! the client.

use serde_json::{json, Map, Value};
use std::cell::Cell;
use std::rc::{Rc, Weak};

use super::cancel::CancellationToken;
use super::held::Holder;
use super::logging::LogLevel;
use super::runtime::LocalBoxFuture;
use crate::protocol::{ErrorObject, ProtocolVersion, RequestId};

/// Where a call on the task path (SEP-2663) sends what its handler reports and asks
/// (implemented by the Tasks extension, [`super::tasks`]).
pub(crate) trait TaskHook {
    /// The task's id, once the call has become one.
    fn id(&self) -> Option<String>;
    /// The task's `statusMessage`.
    fn status(&self, message: String);
    /// An input request, surfaced as one of the task's `inputRequests`; resolves with the
    /// client's answer.
    fn ask(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> LocalBoxFuture<'static, Result<Value, ErrorObject>>;
}

/// What a retry brought (a 2026-07-28 request repeated with `inputResponses` and a
/// verified `requestState`; see [`super::input_required`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inputs {
    /// The client's answers, keyed as the input requests were.
    pub responses: Option<Map<String, Value>>,
    /// The state the handler wrote in its previous round, verified.
    pub request_state: Option<String>,
}

/// What a handler's context needs of the session its request came on: the one way a
/// context reaches its session (which implements it), held weakly so a handler that outlives
/// its session finds it gone.
/// The threshold a log message is held to: `Some(level)` is the request's own, sent in its
/// `_meta` (stateless era; `None` inside: log nothing); `None` is the session's, set with
/// `logging/setLevel` (everything before one is set).
pub(crate) type Threshold = Option<Option<LogLevel>>;

pub(crate) trait SessionLink {
    /// Sends a notification to the client (nothing once the session is closed).
    fn notify(&self, method: &str, params: Option<Value>);

    /// Sends `notifications/message` when `level` passes the threshold. Whether it went.
    fn log(&self, level: LogLevel, logger: Option<&str>, data: Value, t: Threshold) -> bool;

    /// Sends a request to the client and resolves with its answer.
    fn request(
        self: Rc<Self>,
        method: &str,
        params: Option<Value>,
        version: Option<ProtocolVersion>,
    ) -> LocalBoxFuture<'static, Result<Value, ErrorObject>>;
}

/// Sends `notifications/progress` for one request, keeping progress strictly increasing.
#[derive(Clone)]
pub struct ProgressReporter {
    token: Value,
    last: Rc<Cell<Option<f64>>>,
    /// Set once the request has been answered or cancelled: progress must stop then.
    finished: Rc<Cell<bool>>,
    session: Weak<dyn SessionLink>,
    version: ProtocolVersion,
}

impl ProgressReporter {
    /// Reports progress. Returns `false` (and sends nothing) when `progress` does not
    /// increase, as MCP requires, when the request is already over, or when the session
    /// is gone.
    pub fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        if self.finished.get()
            || !progress.is_finite()
            || self.last.get().is_some_and(|last| progress <= last)
        {
            return false;
        }
        let Some(session) = self.session.upgrade() else {
            return false;
        };
        self.last.set(Some(progress));
        let mut params = Map::new();
        params.insert("progressToken".into(), self.token.clone());
        params.insert("progress".into(), json!(progress));
        if let Some(t) = total.filter(|t| t.is_finite()) {
            params.insert("total".into(), json!(t));
        }
        if let (Some(m), true) = (message, self.version.has_progress_message()) {
            params.insert("message".into(), Value::from(m));
        }
        session.notify("notifications/progress", Some(Value::Object(params)));
        true
    }

    /// Ends reporting: the request was answered or cancelled.
    pub(crate) fn finish(&self) {
        self.finished.set(true);
    }
}

/// Everything a handler may use while it runs.
#[derive(Clone)]
pub struct RequestContext {
    /// Fires when the client cancels the request or the session closes.
    pub cancel: CancellationToken,
    /// The negotiated (or per-request, in 2026-07-28) protocol version; `None` off MCP.
    pub version: Option<ProtocolVersion>,
    /// The JSON-RPC id of the request being served; `None` off MCP.
    pub request_id: Option<RequestId>,
    pub(crate) progress: Option<Rc<ProgressReporter>>,
    pub(crate) session: Option<Weak<dyn SessionLink>>,
    /// Minimum level for log messages sent while serving this request.
    pub(crate) log_level: Option<LogLevel>,
    /// Served in the stateless era (logging is then opted into per request).
    pub(crate) stateless: bool,
    /// Shared with the session (a context is cloned for every request, and a call in
    /// flight holds a few clones: the rarely used parts are behind pointers).
    pub(crate) client_capabilities: Rc<Value>,
    /// `_meta`, when the request has one.
    pub(crate) meta: Option<Rc<Value>>,
    /// 2026-07-28: what a retry after an input-required result brought (`None`: nothing).
    pub(crate) inputs: Option<Rc<Inputs>>,
    /// A call that may become, or is, a task (SEP-2663): input requests and status go there.
    pub(crate) task: Option<Rc<dyn TaskHook>>,
    /// A `tools/call`'s or a `resources/read`'s: the strings its handler holds out of the
    /// engine ([`Holder`]).
    pub(crate) holder: Option<Rc<Holder>>,
}

impl RequestContext {
    /// A context outside any MCP session (e.g. the page calling `executeTool`).
    pub fn detached(cancel: CancellationToken) -> Self {
        RequestContext {
            cancel,
            version: None,
            request_id: None,
            progress: None,
            session: None,
            log_level: None,
            stateless: false,
            client_capabilities: Rc::new(Value::Object(Map::new())),
            meta: None,
            inputs: None,
            task: None,
            holder: None,
        }
    }

    /// Whether the request has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Whether the client asked for progress (sent a `progressToken`).
    pub fn wants_progress(&self) -> bool {
        self.progress.is_some()
    }

    /// Sends a progress notification if the client asked for them; see
    /// [`ProgressReporter::report`]. In a task (which has no progress notifications,
    /// SEP-2663) it sets the task's `statusMessage` instead: `message`, else
    /// `"<progress>/<total>"`.
    pub fn report_progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> bool {
        if let Some(link) = &self.task {
            let text = match (message, total) {
                (Some(m), _) => m.to_string(),
                (None, Some(t)) => format!("{progress}/{t}"),
                (None, None) => format!("{progress}"),
            };
            link.status(text);
            return true;
        }
        self.progress
            .as_ref()
            .is_some_and(|p| p.report(progress, total, message))
    }

    /// What this request's handler may hold out of the engine until its answer is sent (see
    /// [`super::held`]): `None` when it may hold nothing (anything but a `tools/call` answered
    /// directly or a `resources/read`).
    pub fn holder(&self) -> Option<&Holder> {
        self.holder.as_deref().filter(|h| h.allows())
    }

    /// Whether the call may run as a task (its tool has task support and the client
    /// accepts tasks): status reports and input requests then go to the task.
    pub fn in_task(&self) -> bool {
        self.task.is_some()
    }

    /// The task's id, once the call has become one.
    pub fn task_id(&self) -> Option<String> {
        self.task.as_ref().and_then(|l| l.id())
    }

    /// Sets the task's `statusMessage` (SEP-2663 `Task.statusMessage`); `false` when the
    /// call is not on the task path.
    pub fn set_task_status(&self, message: &str) -> bool {
        match &self.task {
            Some(link) => {
                link.status(message.to_string());
                true
            }
            None => false,
        }
    }

    /// Sends `notifications/message` to the client when `level` passes the client's
    /// threshold. Returns whether it was sent.
    pub fn log(&self, level: LogLevel, logger: Option<&str>, data: Value) -> bool {
        let Some(session) = self.session.as_ref().and_then(Weak::upgrade) else {
            return false;
        };
        session.log(
            level,
            logger,
            data,
            self.stateless.then_some(self.log_level),
        )
    }

    /// The client's declared capabilities (`{}` when none).
    pub fn client_capabilities(&self) -> &Value {
        &self.client_capabilities
    }

    /// The client's answers to this handler's input requests (`inputResponses` of a retry
    /// after an input-required result; see [`super::input_required`]), keyed as the handler
    /// keyed its requests. `None` on a first call.
    pub fn input_responses(&self) -> Option<&Map<String, Value>> {
        self.inputs.as_ref()?.responses.as_ref()
    }

    /// The `requestState` this handler put in its input-required result, verified, as it
    /// wrote it. `None` on a first call.
    pub fn request_state(&self) -> Option<&str> {
        self.inputs.as_ref()?.request_state.as_deref()
    }

    /// The request's `_meta` object (`null` when absent).
    pub fn meta(&self) -> &Value {
        static NULL: Value = Value::Null;
        self.meta.as_deref().unwrap_or(&NULL)
    }

    /// Sets what a retry brought (kept only when it brought something).
    pub(crate) fn set_inputs(&mut self, inputs: Inputs) {
        self.inputs = (inputs != Inputs::default()).then(|| Rc::new(inputs));
    }

    /// Sends a request to the client (sampling, elicitation, roots) and waits for its answer.
    /// Fails at once off MCP, on a closed session, or in the stateless era, which has no
    /// server-to-client requests.
    pub fn request(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> LocalBoxFuture<'static, Result<Value, ErrorObject>> {
        // On the task path the request becomes one of the task's inputRequests.
        if let Some(link) = &self.task {
            return link.ask(method, params);
        }
        match self.session.as_ref().and_then(Weak::upgrade) {
            Some(session) => session.request(method, params, self.version),
            None => {
                let err = ErrorObject::new(
                    crate::protocol::error_codes::INTERNAL_ERROR,
                    format!("Cannot send {method}: the call did not come from an MCP session"),
                );
                Box::pin(async move { Err(err) })
            }
        }
    }

    /// Ends progress reporting for this request (it was answered or cancelled).
    pub(crate) fn finish(&self) {
        if let Some(p) = &self.progress {
            p.finish();
        }
    }

    pub(crate) fn progress_reporter(
        token: Value,
        session: Weak<dyn SessionLink>,
        version: ProtocolVersion,
    ) -> ProgressReporter {
        ProgressReporter {
            token,
            last: Rc::new(Cell::new(None)),
            finished: Rc::new(Cell::new(false)),
            session,
            version,
        }
    }
}

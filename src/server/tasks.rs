//! The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663,
//! <https://modelcontextprotocol.io/seps/2663-tasks-extension>): a `tools/call` answered with
//! a task handle the client polls (`tasks/get`), feeds input (`tasks/update`) and cancels
//! (`tasks/cancel`).
//!
//! What the engine does:
//!
//! - **Negotiation.** The extension exists from 2026-07-28 on ([`ProtocolVersion::has_extensions`]).
//!   A request opts in by naming it in its client capabilities
//!   (`_meta["io.modelcontextprotocol/clientCapabilities"].extensions`); nothing else does.
//!   `tasks/*` from a client that did not is `-32021` naming the extension; so is a call of a
//!   tool whose task support is [`TaskSupport::Required`].
//! - **Server-directed creation.** A tool registered with task support runs as usual, and its
//!   call becomes a task when it does not answer at once: when the handler is still running
//!   after the host's event loop turned (promises that settle straight away do not count), or
//!   as soon as it asks the client for input (`ctx.request`, which a task surfaces as
//!   `inputRequests`). A handler answering at once — a result, or an input-required result of
//!   a 2026-07-28 multi-round request — answers the `tools/call` itself, so the multi-round
//!   exchange stays synchronous and only its final round becomes a task. The task exists
//!   (`tasks/get` resolves) before `CreateTaskResult` goes out.
//! - **Statuses.** `working` → `input_required` (outstanding `inputRequests`) → `working` …
//!   → `completed` (the `CallToolResult`, `isError` ones too), `failed` (a protocol error: an
//!   error with a JSON-RPC code, or an engine error, inlined as `error`), or `cancelled`
//!   (`tasks/cancel`: the handler's signal fires and whatever it returns later is dropped).
//!   Every change is pushed as `notifications/tasks` to `subscriptions/listen` streams that
//!   asked for the task's id.
//! - **Limits** ([`TaskLimits`]): how many tasks may work at once (creation beyond it is a
//!   `-32600` error naming the limit), how many finished tasks are kept (the oldest beyond it
//!   is discarded), and each task's time to live (`ttlMs`; when it elapses the task is
//!   discarded, cancelled first if still running). A discarded task's id answers `-32602`
//!   saying why.

use serde_json::{json, Map, Value};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::rc::Rc;
use std::task::Poll;

use super::cancel::CancellationToken;
use super::context::RequestContext;
use super::engine::{Server, WeakServer};
use super::error::ServerError;
use super::futures::{join_all, slot, Filler, Slot};
use super::handler::HandlerError;
use super::input_required::{self, InputRequired, Inputs, INPUT_METHODS, MAX_ROUNDS};
use super::methods::{Call, Reply};
use super::registry::Tool;
use super::runtime::LocalBoxFuture;
use super::session::META_CLIENT_CAPABILITIES;
use super::shape;
use crate::protocol::error_codes::INTERNAL_ERROR;
use crate::protocol::{ErrorObject, ProtocolVersion};

/// The extension's identifier.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The `resultType` of a `CreateTaskResult`.
pub const RESULT_TYPE_TASK: &str = "task";

/// Whether a tool's calls may run as tasks.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum TaskSupport {
    /// Always answered in the `tools/call` itself.
    #[default]
    Forbidden,
    /// A task when the client accepts tasks and the call does not answer at once.
    Optional,
    /// As `Optional`, and a client that does not accept tasks gets `-32021` (in the
    /// handshake era, which has no extensions, the call is answered in the request).
    Required,
}

impl TaskSupport {
    /// `"forbidden"`, `"optional"` or `"required"` (the words MCP uses for `taskSupport`).
    pub fn parse(s: &str) -> Option<TaskSupport> {
        match s {
            "forbidden" => Some(TaskSupport::Forbidden),
            "optional" => Some(TaskSupport::Optional),
            "required" => Some(TaskSupport::Required),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// Limits on the tasks a server holds (part of [`super::ServerConfig`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TaskLimits {
    /// Each task's time to live from creation (`ttlMs`); `None`: unlimited (`null`).
    pub ttl_ms: Option<u64>,
    /// The polling interval suggested to clients (`pollIntervalMs`).
    pub poll_interval_ms: u64,
    /// Tasks not yet finished (working or waiting for input) at once.
    pub max_working: usize,
    /// Finished tasks kept for clients to read; beyond it the oldest is discarded.
    pub max_retained: usize,
}

impl Default for TaskLimits {
    fn default() -> Self {
        TaskLimits {
            ttl_ms: Some(60 * 60 * 1000),
            poll_interval_ms: 1000,
            max_working: 64,
            max_retained: 256,
        }
    }
}

/// A task's status.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// Whether `caps` (a `ClientCapabilities` object) names the tasks extension.
pub fn declares_tasks(caps: &Value) -> bool {
    caps.get("extensions")
        .and_then(|e| e.get(TASKS_EXTENSION))
        .is_some_and(Value::is_object)
}

/// The `-32021` error naming the extension (SEP-2663 "Capability Negotiation").
pub fn missing_extension() -> ServerError {
    ServerError::MissingClientCapability {
        required: json!({ "extensions": { TASKS_EXTENSION: {} } }),
    }
}

type Answer = Result<Value, ErrorObject>;

// ---- the store ------------------------------------------------------------------------------

struct TaskState {
    status: TaskStatus,
    message: Option<String>,
    created_ms: f64,
    updated_ms: f64,
    ttl_ms: Option<u64>,
    poll_ms: u64,
    result: Option<Value>,
    error: Option<Value>,
    /// Outstanding input requests, wire key → `{method, params}`, in the order asked.
    pending: Map<String, Value>,
    /// Where the answer to each outstanding request goes.
    answers: HashMap<String, Filler<Answer>>,
    /// Every key ever issued (keys are unique over a task's lifetime).
    issued: Vec<String>,
    /// The handler's signal.
    cancel: CancellationToken,
}

/// Why a task id no longer resolves.
#[derive(Clone, Debug)]
enum Gone {
    Expired,
    Discarded(usize),
}

/// The server's tasks: one store per server, shared by all its sessions (the stateless era
/// has no session to keep them in).
#[derive(Default)]
pub(crate) struct TaskStore {
    tasks: RefCell<HashMap<String, TaskState>>,
    /// Finished tasks, oldest first (for the retention limit).
    finished: RefCell<VecDeque<String>>,
    /// Recently discarded ids and why, so their `tasks/get` can say so.
    gone: RefCell<VecDeque<(String, Gone)>>,
    counter: Cell<u64>,
}

/// How many discarded ids the store remembers.
const GONE_MEMORY: usize = 1024;

impl TaskStore {
    fn working(&self) -> usize {
        self.tasks
            .borrow()
            .values()
            .filter(|t| !t.status.is_terminal())
            .count()
    }

    fn forget(&self, id: &str, why: Gone) -> Option<TaskState> {
        let removed = self.tasks.borrow_mut().remove(id);
        if removed.is_some() {
            self.finished.borrow_mut().retain(|f| f != id);
            let mut gone = self.gone.borrow_mut();
            gone.push_back((id.to_string(), why));
            while gone.len() > GONE_MEMORY {
                gone.pop_front();
            }
        }
        removed
    }

    fn not_found(&self, id: &str) -> ServerError {
        let why = self
            .gone
            .borrow()
            .iter()
            .rev()
            .find(|(g, _)| g == id)
            .map(|(_, w)| w.clone());
        let message = match why {
            Some(Gone::Expired) => format!("Task {id} has expired (its ttlMs elapsed)"),
            Some(Gone::Discarded(n)) => {
                format!("Task {id} was discarded: the server keeps at most {n} finished tasks")
            }
            None => format!("Task not found: {id}"),
        };
        ServerError::InvalidParams {
            message,
            data: Some(json!({ "taskId": id })),
        }
    }
}

/// ISO 8601 (UTC, milliseconds) for `ms` since the Unix epoch.
pub fn iso8601(ms: f64) -> String {
    let ms = if ms.is_finite() && ms > 0.0 {
        ms as i64
    } else {
        0
    };
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

/// The `Task` fields of `id` (SEP-2663 `Task`), and for `detailed` the status payload
/// (`inputRequests`, `result`, `error`: `DetailedTask`).
fn task_value(id: &str, t: &TaskState, detailed: bool) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("taskId".into(), json!(id));
    m.insert("status".into(), json!(t.status.as_str()));
    if let Some(msg) = &t.message {
        m.insert("statusMessage".into(), json!(msg));
    }
    m.insert("createdAt".into(), json!(iso8601(t.created_ms)));
    m.insert("lastUpdatedAt".into(), json!(iso8601(t.updated_ms)));
    m.insert("ttlMs".into(), json!(t.ttl_ms));
    m.insert("pollIntervalMs".into(), json!(t.poll_ms));
    if detailed {
        match t.status {
            TaskStatus::InputRequired => {
                m.insert("inputRequests".into(), Value::Object(t.pending.clone()));
            }
            TaskStatus::Completed => {
                m.insert(
                    "result".into(),
                    t.result.clone().unwrap_or_else(|| json!({})),
                );
            }
            TaskStatus::Failed => {
                let e = t.error.clone().unwrap_or_else(
                    || json!({ "code": INTERNAL_ERROR, "message": "The task failed" }),
                );
                m.insert("error".into(), e);
            }
            TaskStatus::Working | TaskStatus::Cancelled => {}
        }
    }
    m
}

// ---- the link between a running handler and its (future) task ------------------------------

/// What a handler's context carries while its call may become, or is, a task.
pub(crate) struct TaskLink {
    server: WeakServer,
    id: RefCell<Option<String>>,
    /// Fires when the task has been created.
    created: CancellationToken,
    /// The handler's signal (the task's, once it exists).
    cancel: CancellationToken,
    client_capabilities: Value,
    /// A status message reported before the task existed.
    early_message: RefCell<Option<String>>,
}

impl TaskLink {
    /// The task's id, once created.
    pub(crate) fn id(&self) -> Option<String> {
        self.id.borrow().clone()
    }

    fn server(&self) -> Option<Server> {
        self.server.upgrade()
    }

    /// Creates the task now if it does not exist yet; its id.
    fn ensure(&self) -> Result<String, ServerError> {
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

    /// Sets the task's `statusMessage` (kept for creation when the task does not exist yet).
    pub(crate) fn status(&self, message: String) {
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
    pub(crate) fn ask(
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

// ---- tools/call ------------------------------------------------------------------------------

/// How a handler run on the task path ended.
enum JobEnd {
    Result(Map<String, Value>),
    Error(ServerError),
    /// An input-required result before any task existed: the multi-round answer.
    Input(InputRequired),
}

/// `tools/call` on the task path, or `None` when the call is not task-eligible: a tool
/// without task support, a version without extensions, or (for an optional tool) a client
/// that did not opt in. Called with the tool found and its arguments validated.
pub(crate) fn tools_call(
    call: &Call,
    v: ProtocolVersion,
    tool: &Rc<Tool>,
    args: &Value,
    ctx: &RequestContext,
) -> Option<Reply> {
    let support = tool.def.task_support;
    if support == TaskSupport::Forbidden || !v.has_extensions() {
        return None;
    }
    if !declares_tasks(ctx.client_capabilities()) {
        return match support {
            TaskSupport::Required => Some(Reply::Now(Err(missing_extension()))),
            _ => None,
        };
    }
    let server = call.session.server.clone();
    let limits = server.config().tasks.clone();
    let working = server.task_store().working();
    if working >= limits.max_working {
        return Some(Reply::Now(Err(ServerError::LimitExceeded {
            what: "Tasks working at once",
            limit: limits.max_working,
            actual: None,
        })));
    }
    let link = Rc::new(TaskLink {
        server: server.downgrade(),
        id: RefCell::new(None),
        created: CancellationToken::new(),
        cancel: CancellationToken::new(),
        client_capabilities: ctx.client_capabilities().clone(),
        early_message: RefCell::new(None),
    });
    // Until the task exists, the request's cancellation is the handler's.
    {
        let link = link.clone();
        ctx.cancel.on_cancel(move |why| {
            if link.id().is_none() {
                link.cancel.cancel(why);
            }
        });
    }
    let mut task_ctx = ctx.clone();
    task_ctx.cancel = link.cancel.clone();
    task_ctx.progress = None;
    task_ctx.task = Some(link.clone());
    let job = run_job(
        server.clone(),
        tool.clone(),
        args.clone(),
        task_ctx,
        link.clone(),
    );
    let key = server.state_key().clone();
    let caps = ctx.client_capabilities().clone();
    Some(Reply::Later(Box::pin(async move {
        let mut job = Some(job);
        let mut turn = server.runtime().sleep(0);
        let mut created = link.created.cancelled();
        // The handler answers at once, or the call becomes a task (SEP-2663 "Task Creation").
        let first = poll_fn(|cx| {
            if let Some(j) = job.as_mut() {
                if let Poll::Ready(end) = j.as_mut().poll(cx) {
                    job = None;
                    return Poll::Ready(Some(end));
                }
            }
            if link.id().is_some() || Pin::new(&mut created).poll(cx).is_ready() {
                return Poll::Ready(None);
            }
            if turn.as_mut().poll(cx).is_ready() {
                return Poll::Ready(None);
            }
            Poll::Pending
        })
        .await;
        let Some(mut job) = job.take().filter(|_| first.is_none()) else {
            return answer_now(first.expect("finished"), v, &caps, &key);
        };
        let id = match link.ensure() {
            Ok(id) => id,
            // No room for a task after all: the request waits for the handler instead.
            Err(_) => return answer_now(job.as_mut().await, v, &caps, &key),
        };
        let weak = server.downgrade();
        let finish_id = id.clone();
        server.runtime().spawn(Box::pin(async move {
            let end = job.await;
            if let Some(server) = weak.upgrade() {
                server.finish_task(&finish_id, end, v);
            }
        }));
        server.create_result(&id)
    })))
}

/// The synchronous answer of a call that did not become a task.
fn answer_now(
    end: JobEnd,
    v: ProtocolVersion,
    caps: &Value,
    key: &input_required::StateKey,
) -> Result<Value, ServerError> {
    match end {
        JobEnd::Result(m) => Ok(shape::call_tool_result(m, v)),
        JobEnd::Error(e) => Err(e),
        JobEnd::Input(ir) => {
            if let Some(required) = input_required::missing_capabilities(&ir, caps) {
                return Err(ServerError::MissingClientCapability { required });
            }
            Ok(input_required::wire_result(&ir, key))
        }
    }
}

/// Runs the handler: once, and again after each round of input a task gathered.
fn run_job(
    server: Server,
    tool: Rc<Tool>,
    args: Value,
    ctx: RequestContext,
    link: Rc<TaskLink>,
) -> LocalBoxFuture<'static, JobEnd> {
    Box::pin(async move {
        let mut ctx = ctx;
        for _ in 0..MAX_ROUNDS {
            let outcome = tool.def.handler.call(args.clone(), ctx.clone()).await;
            let value = match outcome {
                Err(HandlerError {
                    code: Some(code),
                    message,
                    data,
                }) => {
                    let mut e = ErrorObject::new(code, message);
                    if let Some(d) = data {
                        e = e.with_data(d);
                    }
                    return JobEnd::Error(ServerError::Rpc(e));
                }
                other => server.tool_outcome(&tool, other),
            };
            if !input_required::is_input_required(&Value::Object(value.clone())) {
                return JobEnd::Result(value);
            }
            let ir = match input_required::parse_result(&Value::Object(value)) {
                Ok(ir) => ir,
                Err(e) => {
                    return JobEnd::Error(ServerError::Internal(format!(
                        "Tool {} returned a malformed input_required result: {e}",
                        tool.def.name
                    )))
                }
            };
            let Some(id) = link.id() else {
                return JobEnd::Input(ir);
            };
            // Inside a task, the requests become the task's inputRequests; the handler runs
            // again with the answers once every one has come.
            if let Some(required) =
                input_required::missing_capabilities(&ir, &link.client_capabilities)
            {
                return JobEnd::Error(ServerError::MissingClientCapability { required });
            }
            let mut asks = Vec::new();
            for (k, r) in &ir.requests {
                match server.ask_in_task(&id, Some(k), r.clone()) {
                    Ok(slot) => asks.push(Box::pin(slot) as LocalBoxFuture<'static, Answer>),
                    Err(e) => return JobEnd::Error(e),
                }
            }
            let mut responses = Map::new();
            for ((k, _), answer) in ir.requests.iter().zip(join_all(asks).await) {
                match answer {
                    Ok(v) => {
                        responses.insert(k.clone(), v);
                    }
                    Err(e) => return JobEnd::Error(ServerError::Rpc(e)),
                }
            }
            ctx.inputs = Inputs {
                responses: Some(responses),
                request_state: ir.request_state,
            };
        }
        JobEnd::Error(ServerError::Internal(format!(
            "Tool {} still asked for input after {MAX_ROUNDS} rounds",
            tool.def.name
        )))
    })
}

// ---- the server's side -----------------------------------------------------------------------

impl Server {
    fn task_id(&self) -> String {
        let n = self.task_store().counter.get() + 1;
        self.task_store().counter.set(n);
        let mut seed = n.to_le_bytes().to_vec();
        seed.extend_from_slice(&self.runtime().now_ms().to_le_bytes());
        let mac = self.state_key().mac(&seed);
        super::crypto::hex(&mac[..16])
    }

    /// Creates a task in `working` status (SEP-2663 "Task Creation"), refusing when
    /// [`TaskLimits::max_working`] tasks already work.
    fn create_task(
        &self,
        cancel: CancellationToken,
        message: Option<String>,
    ) -> Result<String, ServerError> {
        self.expire_due();
        let limits = self.config().tasks.clone();
        if self.task_store().working() >= limits.max_working {
            return Err(ServerError::LimitExceeded {
                what: "Tasks working at once",
                limit: limits.max_working,
                actual: None,
            });
        }
        let id = self.task_id();
        let now = self.runtime().now_ms();
        self.task_store().tasks.borrow_mut().insert(
            id.clone(),
            TaskState {
                status: TaskStatus::Working,
                message,
                created_ms: now,
                updated_ms: now,
                ttl_ms: limits.ttl_ms,
                poll_ms: limits.poll_interval_ms,
                result: None,
                error: None,
                pending: Map::new(),
                answers: HashMap::new(),
                issued: Vec::new(),
                cancel,
            },
        );
        if let Some(ttl) = limits.ttl_ms {
            let weak = self.downgrade();
            let sleep = self.runtime().sleep(ttl);
            let expiring = id.clone();
            self.runtime().spawn(Box::pin(async move {
                sleep.await;
                if let Some(server) = weak.upgrade() {
                    server.expire(&expiring);
                }
            }));
        }
        Ok(id)
    }

    /// Discards a task whose time to live elapsed, cancelling it first if it still runs.
    fn expire(&self, id: &str) {
        if let Some(mut t) = self.task_store().forget(id, Gone::Expired) {
            drop_inputs(&mut t, "The task expired");
            t.cancel.cancel("The task expired (its ttlMs elapsed)");
        }
    }

    /// Expires every task past its time to live (timers may fire late).
    fn expire_due(&self) {
        let now = self.runtime().now_ms();
        let due: Vec<String> = self
            .task_store()
            .tasks
            .borrow()
            .iter()
            .filter(|(_, t)| t.ttl_ms.is_some_and(|ttl| now >= t.created_ms + ttl as f64))
            .map(|(id, _)| id.clone())
            .collect();
        for id in due {
            self.expire(&id);
        }
    }

    /// Applies `change` to task `id`; when it reports a change, stamps `lastUpdatedAt` and
    /// tells listening streams.
    fn update_task(&self, id: &str, change: impl FnOnce(&mut TaskState) -> bool) {
        let changed = {
            let mut tasks = self.task_store().tasks.borrow_mut();
            match tasks.get_mut(id) {
                Some(t) => {
                    if change(t) {
                        t.updated_ms = self.runtime().now_ms().max(t.updated_ms);
                        Some((t.status.is_terminal(), task_value(id, t, true)))
                    } else {
                        None
                    }
                }
                None => None,
            }
        };
        let Some((terminal, detailed)) = changed else {
            return;
        };
        if terminal {
            self.retire(id);
        }
        self.notify_task(id, detailed);
    }

    /// Records that `id` finished, discarding the oldest finished tasks beyond the limit.
    fn retire(&self, id: &str) {
        let max = self.config().tasks.max_retained;
        let excess: Vec<String> = {
            let mut finished = self.task_store().finished.borrow_mut();
            if !finished.iter().any(|f| f == id) {
                finished.push_back(id.to_string());
            }
            let n = finished.len().saturating_sub(max);
            finished.drain(..n).collect()
        };
        for old in excess {
            self.task_store().forget(&old, Gone::Discarded(max));
        }
    }

    /// `notifications/tasks` (SEP-2663 "Task Status Notifications") to each stream that
    /// asked for this task.
    fn notify_task(&self, id: &str, detailed: Map<String, Value>) {
        let params = Value::Object(detailed);
        for s in self.live_sessions() {
            s.task_status(id, &params);
        }
    }

    /// The `CreateTaskResult` for a task just created.
    fn create_result(&self, id: &str) -> Result<Value, ServerError> {
        let tasks = self.task_store().tasks.borrow();
        let t = tasks
            .get(id)
            .ok_or_else(|| self.task_store().not_found(id))?;
        let mut m = task_value(id, t, false);
        m.insert("resultType".into(), json!(RESULT_TYPE_TASK));
        Ok(Value::Object(m))
    }

    /// Records how the handler of task `id` ended (ignored once the task is terminal or gone).
    fn finish_task(&self, id: &str, end: JobEnd, v: ProtocolVersion) {
        self.update_task(id, |t| {
            if t.status.is_terminal() {
                return false;
            }
            drop_inputs(t, "The task finished");
            match end {
                JobEnd::Result(m) => {
                    // The request's own result, as `tools/call` would have answered it.
                    let mut result = shape::call_tool_result(m, v);
                    if let Some(o) = result.as_object_mut() {
                        o.insert("resultType".into(), json!("complete"));
                    }
                    t.status = TaskStatus::Completed;
                    t.result = Some(result);
                }
                JobEnd::Error(e) => {
                    let e = e.to_error_object(Some(v));
                    t.status = TaskStatus::Failed;
                    t.message = Some(e.message.clone());
                    t.error = Some(serde_json::to_value(&e).unwrap_or(Value::Null));
                }
                JobEnd::Input(_) => {
                    t.status = TaskStatus::Failed;
                    t.error = Some(json!({
                        "code": INTERNAL_ERROR,
                        "message": "The handler asked for input outside its task",
                    }));
                }
            }
            true
        });
    }

    /// Surfaces an input request in task `id` under a key unique over the task's lifetime
    /// (`key` when given and unused, else a fresh one); the slot receives the answer.
    fn ask_in_task(
        &self,
        id: &str,
        key: Option<&str>,
        request: Value,
    ) -> Result<Slot<Answer>, ServerError> {
        let (filler, answer) = slot();
        let mut found = false;
        self.update_task(id, |t| {
            if t.status.is_terminal() {
                return false;
            }
            found = true;
            let wire = match key {
                Some(k) if !t.issued.iter().any(|i| i == k) => k.to_string(),
                Some(k) => format!("{k}-{}", t.issued.len() + 1),
                None => format!("input-{}", t.issued.len() + 1),
            };
            t.issued.push(wire.clone());
            t.pending.insert(wire.clone(), request);
            t.answers.insert(wire, filler.clone());
            t.status = TaskStatus::InputRequired;
            true
        });
        if found {
            Ok(answer)
        } else {
            Err(ServerError::Internal(format!(
                "Task {id} can no longer ask for input (it finished or is gone)"
            )))
        }
    }

    /// The tasks currently held (finished ones included), for hosts and tests.
    pub fn task_count(&self) -> usize {
        self.expire_due();
        self.task_store().tasks.borrow().len()
    }

    /// The `DetailedTask` of `id` as `tasks/get` would answer it, if the task exists.
    pub fn task(&self, id: &str) -> Option<Value> {
        self.expire_due();
        let tasks = self.task_store().tasks.borrow();
        tasks
            .get(id)
            .map(|t| Value::Object(task_value(id, t, true)))
    }
}

/// Fails every outstanding input request of `t` (its handler stops waiting).
fn drop_inputs(t: &mut TaskState, why: &str) {
    t.pending.clear();
    for (_, slot) in t.answers.drain() {
        slot.fill(Err(ErrorObject::new(INTERNAL_ERROR, why)));
    }
}

// ---- tasks/get, tasks/update, tasks/cancel ---------------------------------------------------

/// The extension's methods (stateless era only; `tasks/result` and `tasks/list` no longer
/// exist and stay `-32601`). Checks the client declared the extension first, as SEP-2663
/// "Error Handling" requires (`-32021`), then the task id (`-32602` when unknown).
pub(crate) fn method(call: &Call) -> Reply {
    Reply::Now(answer(call))
}

fn answer(call: &Call) -> Result<Value, ServerError> {
    let m = call.method.as_str();
    if !declares_tasks(call.ctx.client_capabilities()) {
        return Err(missing_extension());
    }
    let id = match call.params.get("taskId") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(ServerError::invalid_params(format!(
                "{m}: \"taskId\" must be a string, got {other}"
            )))
        }
        None => {
            return Err(ServerError::invalid_params(format!(
                "{m}: missing required parameter \"taskId\""
            )))
        }
    };
    let server = &call.session.server;
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
                         request keys to results, got {other}"
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
fn update(server: &Server, id: &str, responses: Map<String, Value>) {
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
fn cancel(server: &Server, id: &str) {
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
                "subscriptions/listen: \"taskIds\" must be an array of strings, got {other}"
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_iso_8601_utc() {
        assert_eq!(iso8601(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(951_782_400_000.0), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso8601(1_795_466_096_789.0), "2026-11-23T20:34:56.789Z");
    }

    #[test]
    fn task_support_words_round_trip() {
        for s in [
            TaskSupport::Forbidden,
            TaskSupport::Optional,
            TaskSupport::Required,
        ] {
            assert_eq!(TaskSupport::parse(s.as_str()), Some(s));
        }
        assert_eq!(TaskSupport::parse("always"), None);
    }
}

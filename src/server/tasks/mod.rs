//! The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663,
//! <https://modelcontextprotocol.io/seps/2663-tasks-extension>): a `tools/call` answered with
//! a task handle the client polls (`tasks/get`), feeds input (`tasks/update`) and cancels
//! (`tasks/cancel`).
//!
//! What the engine does:
//!
//! - **Negotiation.** The extension exists from 2026-07-28 on ([`crate::protocol::ProtocolVersion::has_extensions`]).
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

use serde_json::{json, Value};

use super::error::ServerError;
use crate::protocol::ErrorObject;

mod call;
mod link;
mod requests;
mod server;
mod store;
#[cfg(test)]
mod tests;

pub(crate) use call::{may_run_as_task, tools_call};
pub(crate) use requests::{listen_task_ids, method};
pub use store::iso8601;
pub(crate) use store::TaskStore;

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

    /// The word the wire uses (`forbidden`, `optional`, `required`).
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
    /// Running.
    Working,
    /// Waiting for the client's answers to its `inputRequests`.
    InputRequired,
    /// Finished with a `CallToolResult` (an `isError` one too).
    Completed,
    /// Ended with a protocol error.
    Failed,
    /// Cancelled by `tasks/cancel`.
    Cancelled,
}

impl TaskStatus {
    /// The word the wire uses.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// Whether the task has ended (completed, failed or cancelled).
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

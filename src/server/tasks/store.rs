//! The server's tasks: the store every session shares, each task's state and how it
//! changes (created, updated, finished, expired, discarded), and the `Task` objects clients see.

use serde_json::{json, Map, Value};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

use crate::collections::VecMap;
use crate::protocol::error_codes::INTERNAL_ERROR;
use crate::protocol::ErrorObject;
use crate::server::cancel::CancellationToken;
use crate::server::error::ServerError;
use crate::server::futures::Filler;
use crate::server::input_required::InputRequired;
use crate::server::limits::shorten;

use super::{Answer, TaskStatus};

// ---- the store ------------------------------------------------------------------------------

pub(super) struct TaskState {
    pub(super) status: TaskStatus,
    pub(super) message: Option<String>,
    pub(super) created_ms: f64,
    pub(super) updated_ms: f64,
    pub(super) ttl_ms: Option<u64>,
    pub(super) poll_ms: u64,
    pub(super) result: Option<Value>,
    pub(super) error: Option<Value>,
    /// Outstanding input requests, wire key → `{method, params}`, in the order asked.
    pub(super) pending: Map<String, Value>,
    /// Where the answer to each outstanding request goes.
    pub(super) answers: VecMap<String, Filler<Answer>>,
    /// Every key ever issued (keys are unique over a task's lifetime).
    pub(super) issued: Vec<String>,
    /// The handler's signal.
    pub(super) cancel: CancellationToken,
}

/// Why a task id no longer resolves.
#[derive(Clone, Debug)]
pub(super) enum Gone {
    Expired,
    Discarded(usize),
}

/// The server's tasks: one store per server, shared by all its sessions (the stateless era
/// has no session to keep them in).
#[derive(Default)]
pub(crate) struct TaskStore {
    pub(super) tasks: RefCell<VecMap<String, TaskState>>,
    /// Finished tasks, oldest first (for the retention limit).
    pub(super) finished: RefCell<VecDeque<String>>,
    /// Recently discarded ids and why, so their `tasks/get` can say so.
    pub(super) gone: RefCell<VecDeque<(String, Gone)>>,
    pub(super) counter: Cell<u64>,
}

/// How many discarded ids the store remembers.
pub(super) const GONE_MEMORY: usize = 1024;

impl TaskStore {
    pub(super) fn working(&self) -> usize {
        self.tasks
            .borrow()
            .values()
            .filter(|t| !t.status.is_terminal())
            .count()
    }

    pub(super) fn forget(&self, id: &str, why: Gone) -> Option<TaskState> {
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

    pub(super) fn not_found(&self, id: &str) -> ServerError {
        let why = self
            .gone
            .borrow()
            .iter()
            .rev()
            .find(|(g, _)| g == id)
            .map(|(_, w)| w.clone());
        let message = match why {
            Some(Gone::Expired) => format!(
                "Task {} has expired (its ttlMs elapsed)",
                shorten(id.to_owned())
            ),
            Some(Gone::Discarded(n)) => {
                format!(
                    "Task {} was discarded: the server keeps at most {n} finished tasks",
                    shorten(id.to_owned())
                )
            }
            None => format!("Task not found: {}", shorten(id.to_owned())),
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
pub(super) fn task_value(id: &str, t: &TaskState, detailed: bool) -> Map<String, Value> {
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

/// How a handler run on the task path ended.
pub(super) enum JobEnd {
    Result(Map<String, Value>),
    Error(ServerError),
    /// An input-required result before any task existed: the multi-round answer.
    Input(InputRequired),
}

/// Fails every outstanding input request of `t` (its handler stops waiting).
pub(super) fn drop_inputs(t: &mut TaskState, why: &str) {
    t.pending.clear();
    for (_, slot) in std::mem::take(&mut t.answers) {
        slot.fill(Err(ErrorObject::new(INTERNAL_ERROR, why)));
    }
}

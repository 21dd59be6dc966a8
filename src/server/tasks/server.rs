//! A [`Server`]'s task operations: creating a task, changing it (and telling the streams
//! that asked), finishing, expiring and discarding it, and asking its client for input.

use serde_json::{json, Map, Value};

use crate::collections::VecMap;
use crate::protocol::error_codes::INTERNAL_ERROR;
use crate::protocol::ProtocolVersion;
use crate::server::cancel::CancellationToken;
use crate::server::engine::Server;
use crate::server::error::ServerError;
use crate::server::futures::{slot, Slot};
use crate::server::shape;

use super::store::{drop_inputs, task_value, Gone, JobEnd, TaskState};
use super::{Answer, TaskStatus, RESULT_TYPE_TASK};

impl Server {
    pub(super) fn task_id(&self) -> String {
        let n = self.task_store().counter.get() + 1;
        self.task_store().counter.set(n);
        let mut seed = n.to_le_bytes().to_vec();
        seed.extend_from_slice(&self.runtime().now_ms().to_le_bytes());
        let mac = self.state_key().mac(&seed);
        crate::server::crypto::hex(&mac[..16])
    }

    /// Creates a task in `working` status (SEP-2663 "Task Creation"), refusing when
    /// [`TaskLimits::max_working`] tasks already work.
    pub(super) fn create_task(
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
                answers: VecMap::new(),
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
    pub(super) fn expire(&self, id: &str) {
        if let Some(mut t) = self.task_store().forget(id, Gone::Expired) {
            drop_inputs(&mut t, "The task expired");
            t.cancel.cancel("The task expired (its ttlMs elapsed)");
        }
    }

    /// Expires every task past its time to live (timers may fire late).
    pub(super) fn expire_due(&self) {
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
    pub(super) fn update_task(&self, id: &str, change: impl FnOnce(&mut TaskState) -> bool) {
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
    pub(super) fn retire(&self, id: &str) {
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
    pub(super) fn notify_task(&self, id: &str, detailed: Map<String, Value>) {
        let params = Value::Object(detailed);
        for s in self.live_sessions() {
            s.task_status(id, &params);
        }
    }

    /// The `CreateTaskResult` for a task just created.
    pub(super) fn create_result(&self, id: &str) -> Result<Value, ServerError> {
        let tasks = self.task_store().tasks.borrow();
        let t = tasks
            .get(id)
            .ok_or_else(|| self.task_store().not_found(id))?;
        let mut m = task_value(id, t, false);
        m.insert("resultType".into(), json!(RESULT_TYPE_TASK));
        Ok(Value::Object(m))
    }

    /// Records how the handler of task `id` ended (ignored once the task is terminal or gone).
    pub(super) fn finish_task(&self, id: &str, end: JobEnd, v: ProtocolVersion) {
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
    pub(super) fn ask_in_task(
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

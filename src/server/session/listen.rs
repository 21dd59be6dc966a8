//! What the client hears without asking: list changes, resource updates, task status and
//! log messages, to the session itself or to its `subscriptions/listen` streams.

use serde_json::{json, Map, Value};

use super::{SessionInner, State, META_SUBSCRIPTION_ID};
use crate::collections::VecSet;
use crate::protocol::RequestId;
use crate::server::call::ListenFilter;
use crate::server::error::ServerError;
use crate::server::limits::{MAX_REPEATED_ID_BYTES, MAX_SUBSCRIPTIONS, MAX_SUBSCRIPTION_BYTES};
use crate::server::logging::LogLevel;
use crate::server::registry::ListKind;

impl State {
    /// Whether the session's subscriptions and streams have room for `count` more of what
    /// [`MAX_SUBSCRIPTIONS`] counts holding `bytes` more of text; the error naming the limit
    /// past which they would go.
    fn subscription_room(&self, count: usize, bytes: usize) -> Result<(), ServerError> {
        let (mut held, mut held_bytes) =
            (self.subscriptions.len(), text_bytes(&self.subscriptions));
        for l in &self.listens {
            let (count, bytes) = held_by(&l.filter);
            held += count;
            held_bytes += bytes;
        }
        if held + count > MAX_SUBSCRIPTIONS {
            return Err(ServerError::LimitExceeded {
                what: "The number of the session's subscriptions (URIs subscribed, streams open, \
                       and the URIs and task ids they name)",
                limit: MAX_SUBSCRIPTIONS,
                actual: Some(held + count),
            });
        }
        if held_bytes + bytes > MAX_SUBSCRIPTION_BYTES {
            return Err(ServerError::LimitExceeded {
                what: "The bytes of the URIs and task ids the session's subscriptions name",
                limit: MAX_SUBSCRIPTION_BYTES,
                actual: Some(held_bytes + bytes),
            });
        }
        Ok(())
    }
}

/// The bytes of text the strings of `set` hold.
fn text_bytes(set: &VecSet<String>) -> usize {
    set.iter().map(String::len).sum()
}

/// What a stream with `filter` counts against the session's bounds: itself and each URI and
/// task id it names, and the bytes of their text.
fn held_by(filter: &ListenFilter) -> (usize, usize) {
    (
        1 + filter.resource_uris.len() + filter.task_ids.len(),
        text_bytes(&filter.resource_uris) + text_bytes(&filter.task_ids),
    )
}

pub(super) struct Listen {
    pub(super) id: RequestId,
    pub(super) filter: ListenFilter,
    /// The server's change generation when the stream opened.
    pub(super) since: u64,
}

impl SessionInner {
    pub(crate) fn set_log_level(&self, level: LogLevel) {
        self.st.borrow_mut().log_level = Some(level);
    }

    pub(crate) fn subscribe(&self, uri: &str, on: bool) -> Result<(), ServerError> {
        let mut st = self.st.borrow_mut();
        if !on {
            st.subscriptions.remove(uri);
        } else if !st.subscriptions.contains(uri) {
            st.subscription_room(1, uri.len())?;
            st.subscriptions.insert(uri.to_string());
        }
        Ok(())
    }

    /// Opens a `subscriptions/listen` stream: acknowledged now, answered when torn down. Apart
    /// from `SessionInner::start`, which an agent's discovery runs (`#[inline(never)]`, and
    /// `CORE_APART` in `scripts/lib/core-split.mjs`).
    #[inline(never)]
    pub(super) fn open_listen(
        &self,
        id: RequestId,
        filter: ListenFilter,
    ) -> Result<(), ServerError> {
        // Every notification on the stream repeats its id.
        if let RequestId::String(s) = &id {
            if s.len() > MAX_REPEATED_ID_BYTES {
                return Err(ServerError::LimitExceeded {
                    what: "The bytes of a subscriptions/listen request's id",
                    limit: MAX_REPEATED_ID_BYTES,
                    actual: Some(s.len()),
                });
            }
        }
        let (count, bytes) = held_by(&filter);
        self.st.borrow().subscription_room(count, bytes)?;
        let mut agreed = Map::new();
        if filter.tools {
            agreed.insert("toolsListChanged".into(), json!(true));
        }
        if filter.resources {
            agreed.insert("resourcesListChanged".into(), json!(true));
        }
        if filter.prompts {
            agreed.insert("promptsListChanged".into(), json!(true));
        }
        if !filter.resource_uris.is_empty() {
            agreed.insert(
                "resourceSubscriptions".into(),
                json!(filter.resource_uris.iter().collect::<Vec<_>>()),
            );
        }
        if !filter.task_ids.is_empty() {
            agreed.insert(
                "taskIds".into(),
                json!(filter.task_ids.iter().collect::<Vec<_>>()),
            );
        }
        self.send_notification(
            "notifications/subscriptions/acknowledged",
            Some(json!({
                "notifications": agreed,
                "_meta": { META_SUBSCRIPTION_ID: id.to_value() },
            })),
        );
        let since = self.server.generation();
        self.st
            .borrow_mut()
            .listens
            .push(Listen { id, filter, since });
        Ok(())
    }

    /// Announces a change of `kind` made at `generation`, if this session (or a stream of
    /// it) started before it.
    /// Whether it was sent anywhere.
    pub(crate) fn list_changed(&self, kind: ListKind, generation: u64) -> bool {
        self.fan_out(
            kind.list_changed_method(),
            None,
            |st| st.negotiated.is_some() && st.since < generation,
            |l| l.filter.wants(kind) && l.since < generation,
        )
    }

    /// A server-wide notification: sent once a version is negotiated (handshake era) or on
    /// each open `subscriptions/listen` stream (stateless era).
    pub(crate) fn broadcast(&self, method: &str, params: Option<Value>) {
        self.fan_out(method, params, |st| st.negotiated.is_some(), |_| true);
    }

    /// `notifications/tasks` with `detailed` on each stream that asked for task `id`.
    pub(crate) fn task_status(&self, id: &str, detailed: &Value) {
        self.fan_out(
            "notifications/tasks",
            Some(detailed.clone()),
            |_| false,
            |l| l.filter.task_ids.contains(id),
        );
    }

    pub(crate) fn resource_updated(&self, uri: &str) {
        self.fan_out(
            "notifications/resources/updated",
            Some(json!({ "uri": uri })),
            |st| st.subscriptions.contains(uri),
            |l| l.filter.resource_uris.contains(uri),
        );
    }

    /// Sends `method` to the client directly when `direct` says so (the handshake era), and
    /// on each `subscriptions/listen` stream `stream` picks, its params then carrying the
    /// stream's subscription id in `_meta`.
    fn fan_out(
        &self,
        method: &str,
        params: Option<Value>,
        direct: impl FnOnce(&State) -> bool,
        stream: impl Fn(&Listen) -> bool,
    ) -> bool {
        let (direct, streams) = {
            let st = self.st.borrow();
            if st.retiring {
                return false;
            }
            let ids: Vec<RequestId> = st
                .listens
                .iter()
                .filter(|l| stream(l))
                .map(|l| l.id.clone())
                .collect();
            (direct(&st), ids)
        };
        if direct {
            self.send_notification(method, params.clone());
        }
        let sent = direct || !streams.is_empty();
        for id in streams {
            let mut p = params.clone().unwrap_or_else(|| json!({}));
            if let Some(o) = p.as_object_mut() {
                let meta = o.entry("_meta").or_insert_with(|| json!({}));
                if let Some(m) = meta.as_object_mut() {
                    m.insert(META_SUBSCRIPTION_ID.into(), id.to_value());
                }
            }
            self.send_notification(method, Some(p));
        }
        sent
    }
}

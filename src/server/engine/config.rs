//! Who the server says it is ([`ServerInfo`]) and its settings ([`ServerConfig`]).

use serde_json::{Map, Value};

use crate::protocol::ProtocolVersion;
use crate::server::limits::Limits;
use crate::server::tasks::TaskLimits;

/// Who the server says it is.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerInfo {
    /// The `name` clients see.
    pub name: String,
    /// The `version`.
    pub version: String,
    /// A human-readable `title` (2025-06-18 on).
    pub title: Option<String>,
    /// A `description` (2025-11-25 on).
    pub description: Option<String>,
    /// `websiteUrl` (2025-11-25 on).
    pub website_url: Option<String>,
    /// `icons` (2025-11-25 on).
    pub icons: Vec<Value>,
    /// Sent as `instructions` in the `initialize` / `server/discover` result.
    pub instructions: Option<String>,
}

impl ServerInfo {
    /// A server called `name` at `version`, nothing else said.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ServerInfo {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            website_url: None,
            icons: Vec::new(),
            instructions: None,
        }
    }

    /// The `Implementation` object for `version`.
    pub fn implementation(&self, version: ProtocolVersion) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), Value::from(self.name.clone()));
        m.insert("version".into(), Value::from(self.version.clone()));
        if version.has_titles() {
            if let Some(t) = &self.title {
                m.insert("title".into(), Value::from(t.clone()));
            }
        }
        if version.has_icons() {
            if let Some(d) = &self.description {
                m.insert("description".into(), Value::from(d.clone()));
            }
            if let Some(u) = &self.website_url {
                m.insert("websiteUrl".into(), Value::from(u.clone()));
            }
            if !self.icons.is_empty() {
                m.insert("icons".into(), Value::Array(self.icons.clone()));
            }
        }
        Value::Object(m)
    }
}

/// Server settings.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// What every session may send and hold (each transport may set its own).
    pub limits: Limits,
    /// Items per page in list results. Default: all of them in one page. Paging is the
    /// server's choice (the client follows `nextCursor`), but many clients call
    /// `tools/list` once and never follow the cursor: a smaller page would hide tools
    /// from them. Set a size to paginate long lists.
    pub page_size: usize,
    /// A tool call still running after this long ends with an `isError` result and its
    /// handler's signal fires. `None`: no limit (the client may cancel).
    pub tool_timeout_ms: Option<u64>,
    /// `ttlMs` on 2026-07-28 list/read/discover results.
    pub ttl_ms: u64,
    /// `cacheScope` on 2026-07-28 list/read/discover results.
    pub cache_scope: &'static str,
    /// Limits on tasks (the Tasks extension, [`crate::server::tasks`]).
    pub tasks: TaskLimits,
    /// The shortest time between two `notifications/*/list_changed` of this server. The
    /// first change after a quiet spell is announced at once (after the current turn); the
    /// changes made within this interval of an announcement are announced together at its
    /// end. 0: every turn's changes at once. Default: 50 ms.
    pub list_changed_interval_ms: u64,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            limits: Limits::default(),
            page_size: usize::MAX,
            tool_timeout_ms: None,
            ttl_ms: 0,
            cache_scope: "private",
            tasks: TaskLimits::default(),
            list_changed_interval_ms: DEFAULT_LIST_CHANGED_INTERVAL_MS,
        }
    }
}

/// [`ServerConfig::list_changed_interval_ms`]'s default.
pub const DEFAULT_LIST_CHANGED_INTERVAL_MS: u64 = 50;

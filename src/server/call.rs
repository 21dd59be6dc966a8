//! One request as the methods see it ([`Call`]), how a method answers ([`Reply`]), and the
//! little of its session a method may touch ([`CallSession`]): the session dispatches to the
//! methods (`super::methods`), which never reach into the session's state.

use crate::collections::VecSet;
use serde_json::{Map, Value};
use std::rc::Rc;

use super::context::RequestContext;
use super::engine::Server;
use super::error::ServerError;
use super::logging::LogLevel;
use super::registry::ListKind;
use super::runtime::LocalBoxFuture;
use super::session::SharedText;
use crate::protocol::{ProtocolVersion, RequestId};

/// What a method may ask of the session it serves.
pub(crate) trait CallSession {
    /// The server the session belongs to.
    fn server(&self) -> &Server;
    /// `initialize` succeeded: the session now speaks `version`.
    fn initialized(&self, version: ProtocolVersion, client_info: Option<Value>, caps: Value);
    /// `logging/setLevel`.
    fn set_log_level(&self, level: LogLevel);
    /// `resources/subscribe` (`on`) and `resources/unsubscribe`; a subscription past
    /// [`MAX_SUBSCRIPTIONS`](super::limits::MAX_SUBSCRIPTIONS) or
    /// [`MAX_SUBSCRIPTION_BYTES`](super::limits::MAX_SUBSCRIPTION_BYTES) is refused.
    fn subscribe(&self, uri: &str, on: bool) -> Result<(), ServerError>;
}

/// One request being served.
pub(crate) struct Call {
    pub session: Rc<dyn CallSession>,
    pub id: RequestId,
    pub method: String,
    pub params: Map<String, Value>,
    /// A `tools/call`'s `arguments` as the JSON text the message had, when the session read
    /// it so (`params` then has no `arguments`): checked as text and handed over as text
    /// where the tool's schema and handler allow, never made a tree of values. `None` for a
    /// message read as a value (a batch's, or one the session classified to explain it).
    pub arguments: Option<Rc<str>>,
    /// `None` only before `initialize`.
    pub version: Option<ProtocolVersion>,
    pub stateless: bool,
    pub ctx: RequestContext,
}

/// How a method answers.
pub(crate) enum Reply {
    Now(Result<Value, ServerError>),
    /// A result already serialized (JSON text of the `result` member, with what its list
    /// repeats), answered as it is: a whole-list `tools/list` (see
    /// [`crate::server::Server::tools_list_text`]).
    Text(SharedText),
    Later(LocalBoxFuture<'static, Result<Value, ServerError>>),
    /// A `subscriptions/listen` stream was opened; it is answered only when torn down.
    Listen(ListenFilter),
}

/// Which notifications a `subscriptions/listen` stream asked for.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ListenFilter {
    pub tools: bool,
    pub resources: bool,
    pub prompts: bool,
    pub resource_uris: VecSet<String>,
    /// `notifications/tasks` for these tasks (SEP-2663).
    pub task_ids: VecSet<String>,
}

impl ListenFilter {
    pub(crate) fn wants(&self, kind: ListKind) -> bool {
        match kind {
            ListKind::Tools => self.tools,
            ListKind::Resources => self.resources,
            ListKind::Prompts => self.prompts,
        }
    }
}

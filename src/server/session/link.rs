//! The session as a handler's [`RequestContext`](crate::server::RequestContext) reaches it:
//! through [`SessionLink`], so the context knows a trait, not the session's insides.

use serde_json::{json, Map, Value};
use std::rc::{Rc, Weak};

use super::SessionInner;
use crate::protocol::{ErrorObject, ProtocolVersion};
use crate::server::context::{SessionLink, Threshold};
use crate::server::logging::LogLevel;
use crate::server::runtime::LocalBoxFuture;

impl SessionInner {
    /// This session as its handlers' contexts see it.
    pub(super) fn link(self: &Rc<Self>) -> Weak<dyn SessionLink> {
        let weak: Weak<SessionInner> = Rc::downgrade(self);
        weak
    }
}

impl SessionLink for SessionInner {
    fn notify(&self, method: &str, params: Option<Value>) {
        self.send_notification(method, params)
    }

    fn log(&self, level: LogLevel, logger: Option<&str>, data: Value, per: Threshold) -> bool {
        let threshold = match per {
            Some(t) => t,
            None => {
                let st = self.st.borrow();
                if st.negotiated.is_none() {
                    return false;
                }
                Some(st.log_level.unwrap_or(LogLevel::Debug))
            }
        };
        match threshold {
            Some(t) if level >= t && !self.is_closed() => {
                let mut p = Map::new();
                p.insert("level".into(), json!(level.as_str()));
                if let Some(l) = logger {
                    p.insert("logger".into(), json!(l));
                }
                p.insert("data".into(), data);
                self.send_notification("notifications/message", Some(Value::Object(p)));
                true
            }
            _ => false,
        }
    }

    fn request(
        self: Rc<Self>,
        method: &str,
        params: Option<Value>,
        version: Option<ProtocolVersion>,
    ) -> LocalBoxFuture<'static, Result<Value, ErrorObject>> {
        SessionInner::request(&self, method, params, version)
    }
}

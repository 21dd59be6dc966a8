//! A session kept across a page load: its lifecycle state as JSON, and restoring it.

use crate::protocol::json_text;
use serde_json::{json, Map, Value};
use std::rc::Rc;

use super::{Session, SessionInner};
use crate::collections::VecSet;
use crate::protocol::jsonrpc;
use crate::protocol::{Era, ProtocolVersion, RequestId};
use crate::server::error::ServerError;
use crate::server::logging::LogLevel;

// ---- snapshot and restore (a transport keeping a session across a page load) ---------------

/// The format of [`Session::snapshot`]; [`crate::server::Server::connect_restored`] refuses other formats.
pub const SNAPSHOT_FORMAT: u64 = 1;

impl Session {
    /// The session's lifecycle state as JSON, for a transport to keep across a page load
    /// (the tab transport's `persist` option): the negotiated version, the initialized flag,
    /// the client's info and capabilities, the log level, resource subscriptions, and the ids
    /// of requests still running (the restored session answers them with an error).
    /// Stateless-era and uninitialized sessions have nothing to keep: `protocolVersion` is
    /// `null`.
    pub fn snapshot(&self) -> Value {
        let st = self.0.st.borrow();
        let in_flight: Vec<Value> = st.in_flight.ids().map(RequestId::to_value).collect();
        json!({
            "format": SNAPSHOT_FORMAT,
            "protocolVersion": st.negotiated.map(|v| v.as_str()),
            "initialized": st.ready,
            "clientInfo": st.client_info,
            "clientCapabilities": *st.client_capabilities,
            "logLevel": st.log_level.map(|l| l.as_str()),
            "subscriptions": st.subscriptions.iter().collect::<Vec<_>>(),
            "inFlight": in_flight,
        })
    }
}

impl SessionInner {
    /// Loads a [`Session::snapshot`] into this fresh session. Checks everything first and
    /// changes nothing on error.
    pub(crate) fn restore(&self, snap: &Value) -> Result<Vec<RequestId>, String> {
        let obj = snap.as_object().ok_or_else(|| {
            format!(
                "a session snapshot must be an object, got {snap}",
                snap = json_text::to_string(snap)
            )
        })?;
        if obj.get("format") != Some(&json!(SNAPSHOT_FORMAT)) {
            return Err(format!(
                "unsupported session snapshot format {} (expected {SNAPSHOT_FORMAT})",
                json_text::to_string(obj.get("format").unwrap_or(&Value::Null))
            ));
        }
        let negotiated = match obj.get("protocolVersion") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => match ProtocolVersion::parse(s) {
                Some(v) if v.era() == Era::Handshake => Some(v),
                _ => return Err(format!("snapshot protocolVersion {s:?} is not a handshake-era version this server speaks")),
            },
            Some(other) => {
                return Err(format!(
                    "snapshot protocolVersion must be a string, got {other}",
                    other = json_text::to_string(other)
                ))
            }
        };
        let ready = match obj.get("initialized") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(format!(
                    "snapshot initialized must be a boolean, got {other}",
                    other = json_text::to_string(other)
                ))
            }
        };
        let client_info = obj.get("clientInfo").filter(|v| !v.is_null()).cloned();
        let client_capabilities = match obj.get("clientCapabilities") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(v @ Value::Object(_)) => v.clone(),
            Some(other) => {
                return Err(format!(
                    "snapshot clientCapabilities must be an object, got {other}",
                    other = json_text::to_string(other)
                ))
            }
        };
        let log_level = match obj.get("logLevel") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(
                LogLevel::parse(s)
                    .ok_or_else(|| format!("snapshot logLevel {s:?} is not a log level"))?,
            ),
            Some(other) => {
                return Err(format!(
                    "snapshot logLevel must be a string, got {other}",
                    other = json_text::to_string(other)
                ))
            }
        };
        let list = |key: &str| -> Result<Vec<Value>, String> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(a)) => Ok(a.clone()),
                Some(other) => Err(format!(
                    "snapshot {key} must be an array, got {other}",
                    other = json_text::to_string(other)
                )),
            }
        };
        let subscriptions = list("subscriptions")?
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                other => Err(format!(
                    "snapshot subscriptions must be strings, got {other}",
                    other = json_text::to_string(&other)
                )),
            })
            .collect::<Result<VecSet<String>, String>>()?;
        let interrupted = list("inFlight")?
            .iter()
            .map(|v| {
                RequestId::from_value(v).ok_or_else(|| {
                    format!(
                        "snapshot inFlight holds a bad id {v}",
                        v = json_text::to_string(v)
                    )
                })
            })
            .collect::<Result<Vec<RequestId>, String>>()?;
        let since = self.server.generation();
        let mut st = self.st.borrow_mut();
        if st.negotiated.is_some() || st.closed {
            return Err("only a fresh session can be restored".into());
        }
        st.negotiated = negotiated;
        st.ready = ready && negotiated.is_some();
        st.since = since;
        st.client_info = if negotiated.is_some() {
            client_info
        } else {
            None
        };
        st.client_capabilities = Rc::new(client_capabilities);
        st.log_level = log_level;
        st.subscriptions = if negotiated.is_some() {
            subscriptions
        } else {
            VecSet::new()
        };
        Ok(interrupted)
    }

    /// Answers requests a snapshot says were running when the page went away.
    pub(crate) fn fail_interrupted(&self, ids: &[RequestId]) {
        let version = self.st.borrow().negotiated;
        for id in ids {
            let e = ServerError::Internal(
                "The request was interrupted: the page navigated or reloaded before it finished"
                    .into(),
            );
            self.send(&jsonrpc::failure(Some(id), e.to_error_object(version)));
        }
    }
}

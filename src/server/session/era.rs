//! What differs by era: which era serves a request (handshake or stateless) and the context a
//! handler sees (the 2026-07-28 decoration of results is `server::shape::decorate`).

use crate::server::limits::quote;
use crate::server::limits::MAX_REPEATED_ID_BYTES;
use serde_json::{Map, Value};
use std::rc::Rc;

use super::SessionInner;
use crate::peer::CancellationToken;
use crate::protocol::{Era, ProtocolVersion, RequestId};
use crate::server::context::RequestContext;
use crate::server::error::ServerError;
use crate::server::logging::LogLevel;

/// `_meta` key of the stateless era: the protocol version a request speaks.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client's capabilities, sent with each request.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the log level a request's notifications use.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key: the server's `Implementation`, on results.
pub use crate::server::shape::META_SERVER_INFO;
/// `_meta` key: the `subscriptions/listen` stream a notification belongs to.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// How a request is to be served.
pub(super) enum Mode {
    /// Before `initialize` (only `initialize` and `ping` get here).
    PreInit,
    Handshake(ProtocolVersion),
    Stateless(ProtocolVersion),
}

impl SessionInner {
    pub(super) fn mode(
        &self,
        method: &str,
        params: &Map<String, Value>,
    ) -> Result<Mode, ServerError> {
        let negotiated = self.st.borrow().negotiated;
        if let Some(v) = negotiated {
            if method == "initialize" {
                return Err(ServerError::InvalidRequest(format!(
                    "Invalid request: the session is already initialized (protocol {v})"
                )));
            }
            return Ok(Mode::Handshake(v));
        }
        let meta = params.get("_meta").and_then(Value::as_object);
        // `initialize` and `ping` are answered before the handshake, but a request naming
        // its version in `_meta` is a stateless one, and 2026-07-28 has neither method.
        let names_version = meta.is_some_and(|m| m.contains_key(META_PROTOCOL_VERSION));
        if (method == "initialize" || method == "ping") && !names_version {
            return Ok(Mode::PreInit);
        }
        match meta.and_then(|m| m.get(META_PROTOCOL_VERSION)) {
            Some(Value::String(requested)) => match ProtocolVersion::parse(requested) {
                Some(v) if v.era() == Era::Stateless => {
                    if !meta.is_some_and(|m| {
                        m.get(META_CLIENT_CAPABILITIES)
                            .is_some_and(Value::is_object)
                    }) {
                        return Err(ServerError::invalid_params(format!(
                            "_meta[\"{META_CLIENT_CAPABILITIES}\"] must be an object \
                             (required in protocol {v})"
                        )));
                    }
                    Ok(Mode::Stateless(v))
                }
                _ => Err(ServerError::UnsupportedVersion {
                    requested: requested.clone(),
                    supported: ProtocolVersion::ALL
                        .iter()
                        .filter(|v| v.era() == Era::Stateless)
                        .map(|v| v.as_str())
                        .collect(),
                }),
            },
            Some(other) => Err(ServerError::invalid_params(format!(
                "_meta[\"{META_PROTOCOL_VERSION}\"] must be a string, got {other}",
                other = quote(other)
            ))),
            None if method == "server/discover" => Err(ServerError::invalid_params(format!(
                "server/discover: _meta[\"{META_PROTOCOL_VERSION}\"] is required"
            ))),
            None => Err(ServerError::NotInitialized {
                method: method.to_string(),
            }),
        }
    }

    pub(super) fn context(
        self: &Rc<Self>,
        id: &RequestId,
        params: &Map<String, Value>,
        version: Option<ProtocolVersion>,
        stateless: bool,
    ) -> RequestContext {
        let meta = params.get("_meta");
        // A token longer than MAX_REPEATED_ID_BYTES is not repeated in notifications.
        let progress = match (meta.and_then(|m| m.get("progressToken")), version) {
            (Some(Value::String(s)), _) if s.len() > MAX_REPEATED_ID_BYTES => None,
            (Some(t @ (Value::String(_) | Value::Number(_))), Some(v)) => Some(Rc::new(
                RequestContext::progress_reporter(t.clone(), self.link(), v),
            )),
            _ => None,
        };
        let (log_level, caps) = if stateless {
            (
                meta.and_then(|m| m.get(META_LOG_LEVEL))
                    .and_then(Value::as_str)
                    .and_then(LogLevel::parse),
                Rc::new(
                    meta.and_then(|m| m.get(META_CLIENT_CAPABILITIES))
                        .cloned()
                        .unwrap_or_else(|| Value::Object(Map::new())),
                ),
            )
        } else {
            (None, self.st.borrow().client_capabilities.clone())
        };
        RequestContext {
            cancel: CancellationToken::new(),
            version,
            request_id: Some(id.clone()),
            progress,
            session: Some(self.link()),
            log_level,
            stateless,
            client_capabilities: caps,
            meta: meta.cloned().map(Rc::new),
            inputs: None,
            task: None,
            holder: None,
        }
    }
}

//! The engine's errors, and their one mapping to JSON-RPC error objects.

use crate::protocol::json_text;
use crate::server::limits::shorten;
use serde_json::{json, Value};
use std::fmt;

use crate::protocol::error_codes::*;
use crate::protocol::{ErrorObject, ProtocolVersion};

/// Everything a request can fail with at the protocol level.
#[derive(Clone, Debug, PartialEq)]
pub enum ServerError {
    /// `-32700`: the text is not JSON.
    Parse(String),
    /// `-32600`: not a valid request.
    InvalidRequest(String),
    /// `-32601`: no such method (in this version or era).
    MethodNotFound(String),
    /// `-32602`: the params are wrong.
    InvalidParams {
        /// What is wrong with them.
        message: String,
        /// Details (`data`), e.g. the key that is missing.
        data: Option<Value>,
    },
    /// `-32603`: the server failed.
    Internal(String),
    /// A request other than `initialize`/`ping` before the handshake.
    NotInitialized {
        /// The method that came too early.
        method: String,
    },
    /// No resource at that URI: `-32002`, or `-32602` in versions with result types.
    ResourceNotFound {
        /// The URI asked for.
        uri: String,
    },
    /// `-32022`: a protocol version this server does not speak (the error names those it does).
    UnsupportedVersion {
        /// The version the client asked for.
        requested: String,
        /// The versions this server speaks.
        supported: Vec<&'static str>,
    },
    /// `-32021`: an input request needs a client capability the client did not declare.
    MissingClientCapability {
        /// The missing capabilities, as a `ClientCapabilities` object.
        required: Value,
    },
    /// A limit from [`super::limits::Limits`] was exceeded.
    LimitExceeded {
        /// What exceeded it (e.g. "Message size").
        what: &'static str,
        /// The limit.
        limit: usize,
        /// The actual amount, when known.
        actual: Option<usize>,
    },
    /// A JSON-RPC error passed on as it is (a handler's protocol error, a client's answer).
    Rpc(ErrorObject),
}

impl ServerError {
    /// An `InvalidParams` without `data`.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        ServerError::InvalidParams {
            message: message.into(),
            data: None,
        }
    }

    /// The one mapping from engine errors to JSON-RPC error objects. `version` is the
    /// protocol version in force for the request, when known.
    pub fn to_error_object(&self, version: Option<ProtocolVersion>) -> ErrorObject {
        match self {
            ServerError::Parse(m) => ErrorObject::new(PARSE_ERROR, format!("Parse error: {m}")),
            ServerError::InvalidRequest(m) => ErrorObject::new(INVALID_REQUEST, m.clone()),
            ServerError::MethodNotFound(method) => ErrorObject::new(
                METHOD_NOT_FOUND,
                format!("Method not found: {}", shorten(method.to_owned())),
            ),
            ServerError::InvalidParams { message, data } => {
                let e = ErrorObject::new(INVALID_PARAMS, message.clone());
                match data {
                    Some(d) => e.with_data(d.clone()),
                    None => e,
                }
            }
            ServerError::Internal(m) => ErrorObject::new(INTERNAL_ERROR, m.clone()),
            ServerError::NotInitialized { method } => ErrorObject::new(
                INVALID_REQUEST,
                format!(
                    "Server not initialized: send \"initialize\" before \"{method}\" \
                     (or, for protocol 2026-07-28, name the version in \
                     _meta[\"io.modelcontextprotocol/protocolVersion\"])"
                ),
            ),
            ServerError::ResourceNotFound { uri } => {
                let code = if version.is_some_and(|v| v.has_result_type()) {
                    INVALID_PARAMS
                } else {
                    RESOURCE_NOT_FOUND
                };
                ErrorObject::new(
                    code,
                    format!("Resource not found: {}", shorten(uri.to_owned())),
                )
                .with_data(json!({ "uri": uri }))
            }
            ServerError::UnsupportedVersion {
                requested,
                supported,
            } => ErrorObject::new(
                UNSUPPORTED_PROTOCOL_VERSION,
                format!(
                    "Unsupported protocol version {requested:?}; this server supports {}",
                    supported.join(", ")
                ),
            )
            .with_data(json!({ "requested": requested, "supported": supported })),
            ServerError::MissingClientCapability { required } => ErrorObject::new(
                MISSING_CLIENT_CAPABILITY,
                format!(
                    "Missing required client capability: {required}",
                    required = json_text::to_string(required)
                ),
            )
            .with_data(json!({ "requiredCapabilities": required })),
            ServerError::LimitExceeded {
                what,
                limit,
                actual,
            } => {
                let message = match actual {
                    Some(a) => format!("{what} is {a}; the limit is {limit}"),
                    None => format!("{what} exceeds the limit of {limit}"),
                };
                let data = match actual {
                    Some(a) => json!({ "limit": limit, "actual": a }),
                    None => json!({ "limit": limit }),
                };
                ErrorObject::new(INVALID_REQUEST, message).with_data(data)
            }
            ServerError::Rpc(e) => e.clone(),
        }
    }
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_error_object(None).message)
    }
}

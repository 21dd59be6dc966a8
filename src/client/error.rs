//! [`ClientError`]: everything a client request or connection can fail with.

use std::fmt;

use super::phase::{Phase, HANDSHAKE_VERSIONS};
use crate::protocol::{ErrorObject, RequestId};

/// Why a request (or the connection) failed. The browser layer maps each variant to one JS
/// error class in one function (`RequestTimeoutError`, `TransportClosedError`, `McpError`, …).
#[derive(Clone, Debug, PartialEq)]
pub enum ClientError {
    /// No response within the request's timeout; `notifications/cancelled` was sent.
    RequestTimeout {
        /// The request's id.
        id: RequestId,
        /// Its method.
        method: String,
        /// The timeout it had.
        timeout_ms: u64,
    },
    /// The connection closed (or was lost) before the response arrived.
    TransportClosed {
        /// Why the connection ended.
        reason: String,
    },
    /// The caller cancelled the request; `notifications/cancelled` was sent.
    Aborted {
        /// The reason the caller gave.
        reason: String,
    },
    /// The server answered with a JSON-RPC error.
    Rpc(ErrorObject),
    /// Not connected: `connect()` has not been called (`Idle`), or a notification was
    /// sent while (re)connecting.
    NotConnected {
        /// The method that was not sent.
        method: String,
        /// The client's phase then.
        phase: Phase,
    },
    /// The client is already connecting or connected.
    AlreadyConnected,
    /// The server answered `initialize` with a protocol version this client does not speak.
    UnsupportedVersion {
        /// The version the server answered with.
        offered: String,
    },
    /// The transport failed to start or to send.
    Transport {
        /// What failed.
        message: String,
    },
    /// The server sent something that is not valid MCP.
    Protocol {
        /// What was wrong with it.
        message: String,
    },
}

impl ClientError {
    /// [`ClientError::TransportClosed`] with `reason`.
    pub fn transport_closed(reason: impl Into<String>) -> Self {
        ClientError::TransportClosed {
            reason: reason.into(),
        }
    }

    /// [`ClientError::Transport`] with `message`.
    pub fn transport(message: impl Into<String>) -> Self {
        ClientError::Transport {
            message: message.into(),
        }
    }

    /// [`ClientError::Protocol`] with `message`.
    pub fn protocol(message: impl Into<String>) -> Self {
        ClientError::Protocol {
            message: message.into(),
        }
    }

    /// A short machine-readable code, as the seed's `TransportError.code`.
    pub fn code(&self) -> &'static str {
        match self {
            ClientError::RequestTimeout { .. } => "REQUEST_TIMEOUT",
            ClientError::TransportClosed { .. } => "TRANSPORT_CLOSED",
            ClientError::Aborted { .. } => "ABORTED",
            ClientError::Rpc(_) => "RPC_ERROR",
            ClientError::NotConnected { .. } => "NOT_CONNECTED",
            ClientError::AlreadyConnected => "ALREADY_CONNECTED",
            ClientError::UnsupportedVersion { .. } => "UNSUPPORTED_VERSION",
            ClientError::Transport { .. } => "TRANSPORT_ERROR",
            ClientError::Protocol { .. } => "PROTOCOL_ERROR",
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::RequestTimeout {
                id,
                method,
                timeout_ms,
            } => write!(f, "Request {id} ({method}) timed out after {timeout_ms} ms"),
            ClientError::TransportClosed { reason } => write!(f, "Transport is closed: {reason}"),
            ClientError::Aborted { reason } => write!(f, "Request aborted: {reason}"),
            ClientError::Rpc(e) => write!(f, "MCP error {}: {}", e.code, e.message),
            ClientError::NotConnected { method, phase } => match phase {
                Phase::Idle => write!(
                    f,
                    "Cannot send {method}: the client is not connected (call connect() first)"
                ),
                other => write!(
                    f,
                    "Cannot send {method}: the client is {} (wait for it to connect)",
                    other.as_str()
                ),
            },
            ClientError::AlreadyConnected => {
                f.write_str("The client is already connecting or connected")
            }
            ClientError::UnsupportedVersion { offered } => write!(
                f,
                "The server chose protocol version {offered:?}, which this client does not \
                 support (it speaks {})",
                HANDSHAKE_VERSIONS.join(", ")
            ),
            ClientError::Transport { message } => write!(f, "Transport error: {message}"),
            ClientError::Protocol { message } => write!(f, "Protocol error: {message}"),
        }
    }
}

impl std::error::Error for ClientError {}

//! The half of JSON-RPC 2.0 both ends of an MCP connection share: the server's
//! [`Session`](crate::server::Session) and the [`Client`](crate::client::Client) are each a
//! peer that sends requests and serves the other end's. Pure Rust, imports only
//! [`crate::protocol`].
//!
//! | piece | what it does |
//! |---|---|
//! | [`Outgoing`] | ids for requests this end sends, and the slot each answer goes into |
//! | [`Answer`] | the future of one answer; dropped unanswered, it abandons the request |
//! | [`Abandon`] | the same drop-guard on its own, for a waiter racing a timeout |
//! | [`InFlight`] | incoming requests being served, each with its [`CancellationToken`] |
//! | [`cancelled`] / [`read_cancelled`] | `notifications/cancelled`, written and read |
//! | [`slot`] | the one-shot slot underneath |
//!
//! Cancellation follows MCP's rules
//! (<https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation>):
//! a request that is cancelled gets no response, and its id is free again at once.

pub mod cancel;
mod incoming;
mod outgoing;
pub mod slot;

use serde_json::{json, Value};

pub use cancel::CancellationToken;
pub use incoming::InFlight;
pub use outgoing::{Abandon, Answer, Outgoing, Sent};

use crate::protocol::jsonrpc;
use crate::protocol::RequestId;

/// The `notifications/cancelled` message telling the other end this one no longer waits for
/// request `id`.
pub fn cancelled(id: &RequestId, reason: &str) -> Value {
    jsonrpc::notification(
        "notifications/cancelled",
        Some(json!({ "requestId": id.to_value(), "reason": reason })),
    )
}

/// Reads the params of a `notifications/cancelled`: the request's id and the reason, if
/// given. `None` when the id is missing or not a JSON-RPC id.
pub fn read_cancelled(params: Option<&Value>) -> Option<(RequestId, Option<String>)> {
    let p = params?;
    let id = p.get("requestId").and_then(RequestId::from_value)?;
    let reason = p.get("reason").and_then(Value::as_str).map(String::from);
    Some((id, reason))
}

#[cfg(test)]
mod tests;

//! The iframe wire: MCP-B's envelope ([`super::mcpb`]) between a page and a frame it embeds,
//! each posting to the other's window at the other's origin. The side that waits for the
//! other repeats its part of the handshake until answered or timed out.

/// The channel when none is given.
pub const DEFAULT_CHANNEL: &str = "mcp-iframe";
/// How often the waiting side repeats its handshake message, in milliseconds.
pub const CHECK_INTERVAL_MS: u64 = 250;
/// How long the waiting side waits for an answer, in milliseconds.
pub const CONNECTION_TIMEOUT_MS: u64 = 10_000;

//! The tab wire: MCP-B's envelope ([`super::mcpb`]) posted to the window the server and its
//! clients share, on a channel.

/// The channel when none is given.
pub const DEFAULT_CHANNEL: &str = "mcp-default";

//! The iframe wire: MCP-B's envelope ([`super::mcpb`]) between a page and a frame it embeds,
//! each posting to the other's window at the other's origin. The side that waits for the
//! other repeats its part of the handshake until answered or timed out.

/// The channel when none is given.
pub const DEFAULT_CHANNEL: &str = "mcp-iframe";
/// How often the waiting side repeats its handshake message, in milliseconds.
pub const CHECK_INTERVAL_MS: u64 = 250;
/// How long the waiting side waits for an answer, in milliseconds.
pub const CONNECTION_TIMEOUT_MS: u64 = 10_000;

/// Whether the window `w` may hold a document of `target_origin`, so that a message posted to
/// it at that origin may arrive: `'*'` reaches any; a window whose `origin` this document can
/// read (one of its own origin, such as a frame's initial `about:blank` before the navigation
/// to the embedded app commits) only if that is `target_origin`; a window of another origin,
/// whose `origin` cannot be read, may. The handshake skips a check where this is false: the
/// browser would drop the message and log an error in the page's console for each one.
pub fn may_be_at(w: &wasm_bindgen::JsValue, target_origin: &str) -> bool {
    target_origin == "*"
        || crate::js::get(w, "origin")
            .ok()
            .and_then(|o| o.as_string())
            .is_none_or(|o| o == target_origin)
}

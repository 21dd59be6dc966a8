//! MCP protocol versions and what differs between them.
//!
//! Every per-version difference the engine acts on is a method here, so the
//! rest of the code asks "does this version have X?" instead of comparing
//! version strings.

use std::fmt;

/// A protocol revision this server speaks.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// 2024-11-05: the first published revision.
    V2024_11_05,
    /// 2025-03-26: tool annotations, audio content, JSON-RPC batches, `completions`.
    V2025_03_26,
    /// 2025-06-18: titles, structured tool output, elicitation, resource links; no batches.
    V2025_06_18,
    /// 2025-11-25: icons, tool `execution`, sampling with tools, URL elicitation.
    V2025_11_25,
    /// 2026-07-28: stateless (no handshake; `server/discover`), extensions, input-required results.
    V2026_07_28,
}

/// The two lifecycles MCP has had.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Era {
    /// `initialize` → `notifications/initialized`, then requests (≤ 2025-11-25).
    Handshake,
    /// Every request carries its version and client capabilities in `_meta` (2026-07-28).
    Stateless,
}

impl ProtocolVersion {
    /// All supported versions, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The newest version negotiated through `initialize`.
    pub const LATEST_HANDSHAKE: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The wire string, e.g. `"2025-06-18"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses a wire string; `None` for versions this server does not speak.
    pub fn parse(s: &str) -> Option<ProtocolVersion> {
        ProtocolVersion::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// Wire strings of every supported version, newest first (as advertised).
    pub fn supported_strings() -> Vec<&'static str> {
        ProtocolVersion::ALL
            .iter()
            .rev()
            .map(|v| v.as_str())
            .collect()
    }

    /// Which lifecycle this version uses.
    pub fn era(self) -> Era {
        if self >= ProtocolVersion::V2026_07_28 {
            Era::Stateless
        } else {
            Era::Handshake
        }
    }

    /// JSON-RPC batches (arrays of messages): only 2025-03-26 allowed them.
    pub fn allows_batches(self) -> bool {
        self == ProtocolVersion::V2025_03_26
    }

    /// Tool `annotations` (MCP hints) and audio content appeared in 2025-03-26.
    pub fn has_tool_annotations(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }

    /// `audio` content blocks.
    pub fn has_audio(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }

    /// `message` on progress notifications.
    pub fn has_progress_message(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }

    /// `structuredContent`, `outputSchema`, `resource_link`, `title` on
    /// tools/resources/prompts, and elicitation: 2025-06-18.
    pub fn has_structured_content(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// `title` fields on tools, resources, prompts and implementations.
    pub fn has_titles(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// `resource_link` content blocks.
    pub fn has_resource_link(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// `icons` on tools, resources, prompts and the server implementation.
    pub fn has_icons(self) -> bool {
        self >= ProtocolVersion::V2025_11_25
    }

    /// Tasks (experimental in 2025-11-25, gone in 2026-07-28): a tool's `execution`.
    pub fn has_tasks(self) -> bool {
        self == ProtocolVersion::V2025_11_25
    }

    /// `structuredContent` and `outputSchema` must be JSON objects (2025-06-18 through
    /// 2025-11-25; 2026-07-28 allows any JSON value and any output schema).
    pub fn requires_object_structured_content(self) -> bool {
        self.has_structured_content() && self < ProtocolVersion::V2026_07_28
    }

    /// Invalid tool arguments are a tool result with `isError: true` (2025-11-25 and later);
    /// earlier versions get a JSON-RPC `-32602` error.
    pub fn tool_input_errors_are_results(self) -> bool {
        self >= ProtocolVersion::V2025_11_25
    }

    /// The requests a server may send to the client in this version (none in 2026-07-28).
    pub fn server_request_methods(self) -> &'static [&'static str] {
        match self {
            ProtocolVersion::V2024_11_05 | ProtocolVersion::V2025_03_26 => {
                &["ping", "sampling/createMessage", "roots/list"]
            }
            ProtocolVersion::V2025_06_18 => &[
                "ping",
                "sampling/createMessage",
                "roots/list",
                "elicitation/create",
            ],
            ProtocolVersion::V2025_11_25 => &[
                "ping",
                "sampling/createMessage",
                "roots/list",
                "elicitation/create",
                "tasks/get",
                "tasks/result",
                "tasks/cancel",
                "tasks/list",
            ],
            ProtocolVersion::V2026_07_28 => &[],
        }
    }

    /// Every result carries `resultType`; list/read results carry `ttlMs` and `cacheScope`.
    pub fn has_result_type(self) -> bool {
        self >= ProtocolVersion::V2026_07_28
    }

    /// `capabilities.extensions` (SEP-2133): the Tasks (SEP-2663) and Skills (SEP-2640)
    /// extensions are negotiated there, per request, from 2026-07-28 on.
    pub fn has_extensions(self) -> bool {
        self >= ProtocolVersion::V2026_07_28
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Handshake-era negotiation: the client's version when supported (and of the handshake era),
/// otherwise the newest handshake version.
pub fn negotiate(requested: &str) -> ProtocolVersion {
    match ProtocolVersion::parse(requested) {
        Some(v) if v.era() == Era::Handshake => v,
        _ => ProtocolVersion::LATEST_HANDSHAKE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_version() {
        for v in ProtocolVersion::ALL {
            assert_eq!(ProtocolVersion::parse(v.as_str()), Some(v));
        }
        assert_eq!(ProtocolVersion::parse("2024-10-07"), None);
    }

    #[test]
    fn negotiation_prefers_the_clients_version() {
        assert_eq!(negotiate("2024-11-05"), ProtocolVersion::V2024_11_05);
        assert_eq!(negotiate("2025-06-18"), ProtocolVersion::V2025_06_18);
        assert_eq!(negotiate("1999-01-01"), ProtocolVersion::V2025_11_25);
        // The stateless version is not negotiated through `initialize`.
        assert_eq!(negotiate("2026-07-28"), ProtocolVersion::V2025_11_25);
    }

    #[test]
    fn only_2025_03_26_allows_batches() {
        let allowed: Vec<_> = ProtocolVersion::ALL
            .into_iter()
            .filter(|v| v.allows_batches())
            .collect();
        assert_eq!(allowed, vec![ProtocolVersion::V2025_03_26]);
    }
}

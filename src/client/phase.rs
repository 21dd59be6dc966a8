//! Where a client is in its lifecycle, and the protocol versions its handshake speaks: what
//! both the client and its errors name.

/// The handshake-era versions this client accepts from a server, newest first.
pub const HANDSHAKE_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Where the client is in its lifecycle.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    Idle,
    Connecting,
    Connected,
    Reconnecting,
    Closed,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Idle => "idle",
            Phase::Connecting => "connecting",
            Phase::Connected => "connected",
            Phase::Reconnecting => "reconnecting",
            Phase::Closed => "closed",
        }
    }
}

//! Where a client is in its lifecycle, and the protocol versions its handshake speaks: what
//! both the client and its errors name.

/// The handshake-era versions this client accepts from a server, newest first.
pub const HANDSHAKE_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Where the client is in its lifecycle.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Made, `connect()` not called yet.
    Idle,
    /// Starting its transport and its `initialize` handshake.
    Connecting,
    /// Initialized: requests go to the server.
    Connected,
    /// Its connection was lost; a reconnection is scheduled or under way.
    Reconnecting,
    /// Closed, by its caller or after a lost connection it did not reconnect.
    Closed,
}

impl Phase {
    /// Its name in lower case, as the JS classes' `state` reads it (`"idle"`, …).
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

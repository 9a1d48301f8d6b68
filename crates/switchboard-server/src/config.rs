//! The HTTP server's settings.

/// A provider from the process environment, for users who have stored none (its type is the
/// run resolution's, in `switchboard-agent`).
pub use switchboard_agent::EnvProvider;

/// Settings of the HTTP API.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The launch templates a member's stdio server must fit, at save and at every spawn
    /// (admins are not held to them); none means members may run no stdio server.
    pub launch: switchboard_core::LaunchRules,
    /// Request bodies larger than this are refused with 413.
    pub max_body_bytes: usize,
    /// The provider for users without a stored one.
    pub env_provider: Option<EnvProvider>,
    /// Which hosts and origins are served, request size limits, where metrics are served.
    pub guard: crate::guard::GuardConfig,
    /// What members may reach besides public addresses when the destination guard is on
    /// (`--allow-destination`); empty by default.
    pub destinations: switchboard_core::DestinationRules,
    /// Quotas and limits (issue 12 section 4).
    pub limits: crate::limits::Limits,
    /// How open event streams re-check the token that opened them.
    pub stream_auth: crate::stream_auth::StreamAuthConfig,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            launch: switchboard_core::LaunchRules::default(),
            max_body_bytes: 4 * 1024 * 1024,
            env_provider: None,
            guard: crate::guard::GuardConfig::default(),
            destinations: switchboard_core::DestinationRules::default(),
            limits: crate::limits::Limits::default(),
            stream_auth: crate::stream_auth::StreamAuthConfig::default(),
        }
    }
}

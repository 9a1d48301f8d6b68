//! The HTTP server's own settings; what the application is built with (rules, limits, the
//! environment's provider) is [`switchboard_app::AppConfig`].

/// Settings of the HTTP API.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Request bodies larger than this are refused with 413.
    pub max_body_bytes: usize,
    /// Which hosts and origins are served, request size limits, where metrics are served.
    pub guard: crate::guard::GuardConfig,
    /// How open event streams re-check the token that opened them.
    pub stream_auth: crate::stream_auth::StreamAuthConfig,
    /// How a client on this machine launches the MCP gateway over stdio (`switchboard mcp`
    /// on the same store), when the store is one a command can open by its data directory;
    /// `None` where it cannot (a database named by URL, whose password a snippet would carry).
    pub stdio_launch: Option<StdioLaunch>,
}

/// The command that serves the gateway over stdio on this machine's store.
#[derive(Debug, Clone)]
pub struct StdioLaunch {
    /// The `switchboard` binary, absolute (a client launches it from anywhere).
    pub command: std::path::PathBuf,
    /// The data directory, absolute.
    pub data_dir: std::path::PathBuf,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            max_body_bytes: 4 * 1024 * 1024,
            guard: crate::guard::GuardConfig::default(),
            stream_auth: crate::stream_auth::StreamAuthConfig::default(),
            stdio_launch: None,
        }
    }
}

//! The HTTP server's settings.

/// A provider from the process environment (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, ...), used by
/// conversations of users who have stored none.
#[derive(Debug, Clone)]
pub struct EnvProvider {
    pub provider: std::sync::Arc<dyn switchboard_llm::Provider>,
    /// `OPENAI_MODEL` / `ANTHROPIC_MODEL`, when set.
    pub model: Option<String>,
    /// The variable that names the model, for the error when it is missing.
    pub model_variable: &'static str,
}

/// Settings of the HTTP API.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Commands a member may configure as stdio servers, matched exactly: `npx` allows `npx`
    /// (found on the host's PATH), not `/tmp/x/npx`. Anything else needs the admin role.
    pub stdio_allowlist: Vec<String>,
    /// Request bodies larger than this are refused with 413.
    pub max_body_bytes: usize,
    /// The provider for users without a stored one.
    pub env_provider: Option<EnvProvider>,
    /// How open event streams re-check the token that opened them.
    pub stream_auth: crate::stream_auth::StreamAuthConfig,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            stdio_allowlist: Vec::new(),
            max_body_bytes: 4 * 1024 * 1024,
            env_provider: None,
            stream_auth: crate::stream_auth::StreamAuthConfig::default(),
        }
    }
}

impl ServerConfig {
    /// Whether `command` is on the stdio allowlist. Only the exact text counts: matching a
    /// file name would let anyone allow `npx` by naming their own script `npx`.
    pub fn allows_command(&self, command: Option<&str>) -> bool {
        command.is_some_and(|command| self.stdio_allowlist.iter().any(|a| a == command))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allowlist_matches_whole_commands_only() {
        let config = ServerConfig {
            stdio_allowlist: vec!["npx".into(), "/opt/tools/uvx".into()],
            ..ServerConfig::default()
        };
        assert!(config.allows_command(Some("npx")));
        assert!(!config.allows_command(Some("/tmp/x/npx")));
        assert!(config.allows_command(Some("/opt/tools/uvx")));
        assert!(!config.allows_command(Some("uvx")));
        assert!(!config.allows_command(Some("/usr/bin/uvx")));
        assert!(!config.allows_command(Some("npx-evil")));
        assert!(!config.allows_command(Some("sh")));
        assert!(!config.allows_command(None));
        assert!(!ServerConfig::default().allows_command(Some("npx")));
    }
}

//! The settings as the application is built from them ([`AppConfig`]): one mapping, used by
//! `serve` and by every other command, so both run with the same `[manager]`, `[agent]`,
//! `[gateway]`, `[nodes]`, `[search]` and quotas.

use switchboard_agent::EnvProvider;
use switchboard_app::{AppConfig, Rules};
use switchboard_mcp::oauth::OAuthClientIdentity;

use super::Settings;

impl Settings {
    /// The application's configuration; `env_provider` is the environment's provider for
    /// people who have stored none, `oauth` how Switchboard presents itself to
    /// authorization servers.
    pub fn app_config(
        &self,
        env_provider: Option<EnvProvider>,
        oauth: OAuthClientIdentity,
    ) -> Result<AppConfig, switchboard_core::TemplateError> {
        let mut limits = self.quotas.limits();
        limits.mcp_session_idle = self.gateway.session_idle_timeout;
        Ok(AppConfig {
            manager: self.manager.manager_config(),
            nodes: self.nodes.clone(),
            agent: self.agent.agent_config(),
            gateway: self.gateway.gateway_config(),
            rules: Rules {
                launch: self.quotas.launch_rules()?,
                destinations: self.quotas.destination_rules(),
                single_user: self.server.single_user,
            },
            limits,
            env_provider,
            oauth,
            local_ports: self.providers.local_ports(),
            embedding: self.search.embedding(),
            // The process's own, set where the process is (`serve`, a command).
            program_path: None,
        })
    }
}

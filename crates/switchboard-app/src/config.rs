//! What [`App::build`](crate::App::build) is built from: every front end fills it from the
//! layered settings, so a command runs with the same settings and policies as `serve`.

use switchboard_agent::{AgentConfig, EnvProvider};
use switchboard_gateway::GatewayConfig;
use switchboard_grpc::NodeConfig;
use switchboard_mcp::ManagerConfig;
use switchboard_mcp::oauth::OAuthClientIdentity;

use crate::embedding::EmbeddingChoice;
use crate::limits::Limits;
use crate::policy::Rules;

/// The application's settings.
#[derive(Debug, Clone, Default)]
pub struct AppConfig {
    /// `[manager]`: timeouts, caches and the retry policy of the connection manager.
    pub manager: ManagerConfig,
    /// `[nodes.NAME]`: the MCP nodes servers may run on.
    pub nodes: Vec<NodeConfig>,
    /// `[agent]`.
    pub agent: AgentConfig,
    /// `[gateway]`.
    pub gateway: GatewayConfig,
    /// What members may run and reach.
    pub rules: Rules,
    /// Quotas and limits.
    pub limits: Limits,
    /// The provider for people who have stored none.
    pub env_provider: Option<EnvProvider>,
    /// How Switchboard presents itself to OAuth authorization servers.
    pub oauth: OAuthClientIdentity,
    /// The `PATH` stdio servers inherit, where [`crate::Launchers`] looks for the programs
    /// they start with (`None`: execvp's default, `/bin:/usr/bin`).
    pub program_path: Option<std::ffi::OsString>,
    /// `[providers] local_ports`: where model servers on this machine are looked for.
    pub local_ports: LocalPorts,
    /// `[search]`: the embedding model of semantic tool search, if any.
    pub embedding: EmbeddingChoice,
}

/// The ports of 127.0.0.1 asked for a model server when a person looks for one: by default
/// Ollama's, LM Studio's, llama.cpp's server's and vLLM's
/// ([`switchboard_llm::LOCAL_PORTS`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalPorts(pub Vec<u16>);

impl Default for LocalPorts {
    fn default() -> Self {
        Self(switchboard_llm::LOCAL_PORTS.to_vec())
    }
}

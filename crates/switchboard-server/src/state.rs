//! What every handler can reach: a few shared services, nothing mutable of its own.

use std::sync::Arc;

use switchboard_agent::Agent;
use switchboard_core::OwnerId;
use switchboard_mcp::ConnectionManager;
use switchboard_store::Store;

use crate::config::ServerConfig;

/// How callers are identified.
#[derive(Debug, Clone)]
pub enum AuthMode {
    /// Every request carries `Authorization: Bearer <token>` of a user.
    Tokens,
    /// No tokens: every request acts as this user (a person on their own machine).
    SingleUser(OwnerId),
}

#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub manager: Arc<ConnectionManager>,
    pub agent: Agent,
    pub auth: AuthMode,
    pub config: Arc<ServerConfig>,
}

impl AppState {
    /// The state with the default [`ServerConfig`].
    pub fn new(
        store: Arc<dyn Store>,
        manager: Arc<ConnectionManager>,
        agent: Agent,
        auth: AuthMode,
    ) -> Self {
        Self {
            store,
            manager,
            agent,
            auth,
            config: Arc::new(ServerConfig::default()),
        }
    }

    pub fn with_config(mut self, config: ServerConfig) -> Self {
        self.config = Arc::new(config);
        self
    }
}

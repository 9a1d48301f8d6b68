//! What every handler can reach: a few shared services, nothing mutable of its own.

use std::sync::Arc;

use switchboard_agent::Agent;
use switchboard_core::OwnerId;
use switchboard_mcp::ConnectionManager;
use switchboard_store::Store;

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
}

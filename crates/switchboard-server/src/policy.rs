//! The server's [`ConnectPolicy`]: what a user may connect to, decided from their role and
//! the admin's settings before every new connection (every spawn and reconnect included).
//!
//! Admins keep full control. A member's stdio server must fit the admin's rules at every
//! start, not only when it was saved; with more than one user, a member's remote servers are
//! opened behind the destination guard.

use std::sync::Arc;

use switchboard_core::{ErrorCode, LaunchRefusal, OwnerId, ServerSpec};
use switchboard_mcp::{Admission, ConnectPolicy, McpError};
use switchboard_store::{Role, Store};

use crate::config::ServerConfig;

/// Admits connections by the owner's role and the [`ServerConfig`]'s rules.
pub struct ServerPolicy {
    store: Arc<dyn Store>,
    config: Arc<ServerConfig>,
    /// `--single-user`: one person on their own machine, no destination guard.
    single_user: bool,
}

impl ServerPolicy {
    pub fn new(store: Arc<dyn Store>, config: Arc<ServerConfig>, single_user: bool) -> Self {
        Self {
            store,
            config,
            single_user,
        }
    }
}

/// Whether a user of `role` may start `spec`: admins anything, members a stdio server only as
/// one of the admin's launch templates. The one rule behind saving, importing and every spawn.
pub fn may_launch(
    config: &ServerConfig,
    role: Role,
    spec: &ServerSpec,
) -> Result<(), LaunchRefusal> {
    if role == Role::Admin {
        return Ok(());
    }
    config.launch.check(spec)
}

#[async_trait::async_trait]
impl ConnectPolicy for ServerPolicy {
    async fn admit(&self, owner: &OwnerId, spec: &ServerSpec) -> Result<Admission, McpError> {
        let refused = |code, reason: String| McpError::Refused {
            server: spec.name.clone(),
            code,
            reason,
        };
        let user = self.store.user(owner).await.map_err(|e| {
            refused(
                ErrorCode::Forbidden,
                format!("its owner could not be found: {e}"),
            )
        })?;
        if user.role == Role::Admin {
            return Ok(Admission {
                any_command: true,
                guard_destinations: false,
            });
        }
        if let Err(refusal) = may_launch(&self.config, user.role, spec) {
            return Err(refused(ErrorCode::LaunchNotAllowed, refusal.to_string()));
        }
        Ok(Admission {
            any_command: false,
            guard_destinations: !self.single_user,
        })
    }

    fn destination_rules(&self) -> switchboard_core::DestinationRules {
        self.config.destinations.clone()
    }
}

//! The [`ConnectPolicy`] of every front end: what a user may connect to, decided from their role and
//! the admin's settings before every new connection (every spawn and reconnect included).
//!
//! Admins keep full control. A member's stdio server must fit the admin's rules at every
//! start, not only when it was saved; with more than one user, a member's remote servers are
//! opened behind the destination guard.

use std::sync::Arc;

use switchboard_core::{
    DestinationRules, LaunchRefusal, LaunchRules, OwnerId, Refusal, ServerSpec,
};
use switchboard_mcp::{Admission, ConnectPolicy, McpError};
use switchboard_store::{Role, Store};

/// The admin's rules for what members may run and reach.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    /// The launch templates a member's stdio server must fit, at save and at every spawn
    /// (admins are not held to them); none means members may run no stdio server.
    pub launch: LaunchRules,
    /// What members may reach besides public addresses when the destination guard is on
    /// (`--allow-destination`); empty by default.
    pub destinations: DestinationRules,
    /// One person on their own machine (`--single-user`): nobody is guarded.
    pub single_user: bool,
}

impl Rules {
    /// Whether members' URLs are held to the destination guard: whenever more than one
    /// person may use the process.
    pub fn guarded(&self) -> bool {
        !self.single_user
    }

    /// Whether a user of `role` may start `spec`: admins anything, members a stdio server
    /// only as one of the admin's launch templates. The one rule behind saving, importing
    /// and every spawn.
    pub fn may_launch(&self, role: Role, spec: &ServerSpec) -> Result<(), LaunchRefusal> {
        if role == Role::Admin {
            return Ok(());
        }
        self.launch.check(spec)
    }
}

/// Admits connections by the owner's role and the admin's [`Rules`].
pub struct ServerPolicy {
    store: Arc<dyn Store>,
    rules: Arc<Rules>,
}

impl ServerPolicy {
    pub fn new(store: Arc<dyn Store>, rules: Arc<Rules>) -> Self {
        Self { store, rules }
    }
}

#[async_trait::async_trait]
impl ConnectPolicy for ServerPolicy {
    async fn admit(&self, owner: &OwnerId, spec: &ServerSpec) -> Result<Admission, McpError> {
        let refused = |refusal| McpError::Refused {
            server: spec.name.clone(),
            refusal,
        };
        let user = self.store.user(owner).await.map_err(|e| {
            refused(Refusal::UnknownOwner {
                detail: e.to_string(),
            })
        })?;
        if user.role == Role::Admin {
            return Ok(Admission {
                any_command: true,
                guard_destinations: false,
            });
        }
        if let Err(refusal) = self.rules.may_launch(user.role, spec) {
            return Err(refused(Refusal::Launch(refusal)));
        }
        Ok(Admission {
            any_command: false,
            guard_destinations: self.rules.guarded(),
        })
    }

    fn destination_rules(&self) -> DestinationRules {
        self.rules.destinations.clone()
    }
}

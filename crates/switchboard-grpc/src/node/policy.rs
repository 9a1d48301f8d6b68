//! The node's [`ConnectPolicy`]: the host's decision about each owner, under the node's own
//! launch rules.
//!
//! Every request carries what the host's policy decided ([`Admission`]); the service
//! remembers the latest one for each (owner, server) before it calls the manager, which asks
//! this policy before every spawn and connect. An admin's (or the CLI's) server may run any
//! command; a member's stdio server must also fit one of the NODE's launch templates, whatever
//! the host allowed: a node does not run programs its own operator did not allow.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use switchboard_core::{DestinationRules, ErrorCode, LaunchRules, OwnerId, ServerId, ServerSpec};
use switchboard_mcp::{Admission, ConnectPolicy, McpError};

pub(crate) struct NodePolicy {
    launch: LaunchRules,
    destinations: DestinationRules,
    admissions: Mutex<HashMap<(OwnerId, ServerId), Admission>>,
}

impl NodePolicy {
    pub(crate) fn new(launch: LaunchRules, destinations: DestinationRules) -> Self {
        Self {
            launch,
            destinations,
            admissions: Mutex::new(HashMap::new()),
        }
    }

    /// Remembers what the host decided about `owner` for `server` (its latest request).
    pub(crate) fn remember(&self, owner: &OwnerId, server: &ServerId, admission: Admission) {
        self.admissions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((owner.clone(), server.clone()), admission);
    }

    /// The host's latest decision; the strictest when none came (it always does).
    fn admission(&self, owner: &OwnerId, server: &ServerId) -> Admission {
        self.admissions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&(owner.clone(), server.clone()))
            .copied()
            .unwrap_or(Admission {
                any_command: false,
                guard_destinations: true,
            })
    }
}

#[tonic::async_trait]
impl ConnectPolicy for NodePolicy {
    async fn admit(&self, owner: &OwnerId, spec: &ServerSpec) -> Result<Admission, McpError> {
        let admission = self.admission(owner, &spec.id);
        if admission.any_command {
            return Ok(admission);
        }
        match self.launch.check(spec) {
            Ok(()) => Ok(admission),
            Err(refusal) => Err(McpError::Refused {
                server: spec.name.clone(),
                code: ErrorCode::LaunchNotAllowed,
                reason: format!("on this node, {refusal}"),
            }),
        }
    }

    fn destination_rules(&self) -> DestinationRules {
        self.destinations.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member() -> Admission {
        Admission {
            any_command: false,
            guard_destinations: true,
        }
    }

    #[tokio::test]
    async fn a_member_must_fit_the_nodes_templates() {
        let rules: LaunchRules = "npx -y @modelcontextprotocol/server-*"
            .parse()
            .expect("template");
        let policy = NodePolicy::new(rules, DestinationRules::default());
        let owner = OwnerId("alice".into());
        let fits = ServerSpec::stdio("ok", "npx", ["-y", "@modelcontextprotocol/server-memory"]);
        let other = ServerSpec::stdio("bad", "bash", ["-c", "id"]);
        policy.remember(&owner, &fits.id, member());
        policy.remember(&owner, &other.id, member());
        assert_eq!(policy.admit(&owner, &fits).await.ok(), Some(member()));
        let refused = policy.admit(&owner, &other).await;
        assert!(
            matches!(
                refused,
                Err(McpError::Refused {
                    code: ErrorCode::LaunchNotAllowed,
                    ..
                })
            ),
            "{refused:?}"
        );
    }

    #[tokio::test]
    async fn an_admin_runs_anything_and_unknown_requests_are_members() {
        let policy = NodePolicy::new(LaunchRules::default(), DestinationRules::default());
        let owner = OwnerId("root".into());
        let spec = ServerSpec::stdio("any", "bash", ["-c", "id"]);
        assert!(policy.admit(&owner, &spec).await.is_err());
        let admin = Admission {
            any_command: true,
            guard_destinations: false,
        };
        policy.remember(&owner, &spec.id, admin);
        assert_eq!(policy.admit(&owner, &spec).await.ok(), Some(admin));
    }
}

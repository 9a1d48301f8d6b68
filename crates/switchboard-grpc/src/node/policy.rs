//! The node's [`ConnectPolicy`]: the host's decision about each owner, under the node's own
//! launch rules.
//!
//! Every request carries what the host's policy decided ([`Admission`]). The service runs the
//! manager call for that request inside [`with_admission`], a task-local scope, and the
//! manager asks this policy in the caller's own task before every spawn and connect
//! (`Entry::connection` awaits `admit` in the task that needs the connection). So each request
//! is judged by the admission it carried, never by another request's: no state shared per
//! (owner, server) that two concurrent requests could race on. Without a scope (it always has
//! one) the strictest applies: a member's, destinations guarded.
//!
//! An admin's (or the CLI's) server may run any command; a member's stdio server must also fit
//! one of the NODE's launch templates, whatever the host allowed: a node does not run programs
//! its own operator did not allow.
//!
//! A connection opened by one request is shared by the others for the same (owner, server)
//! while its way of connecting is unchanged: one opened under an admin's admission is reused by
//! a member's request with the same spec. That is acceptable because the spec is the same (same
//! command, same destination), so the member gets nothing the node would not run for an admin
//! sending that exact spec; a different spec restarts the connection under the new request's
//! own admission.

use std::future::Future;

use switchboard_core::{DestinationRules, LaunchRules, OwnerId, Refusal, ServerSpec};
use switchboard_mcp::{Admission, ConnectPolicy, McpError};

tokio::task_local! {
    static ADMISSION: Admission;
}

/// The strictest admission: a member's, destinations guarded.
const STRICTEST: Admission = Admission {
    any_command: false,
    guard_destinations: true,
};

/// Runs `future` (a manager call for one request) under that request's `admission`.
pub(crate) fn with_admission<F: Future>(
    admission: Admission,
    future: F,
) -> tokio::task::futures::TaskLocalFuture<Admission, F> {
    ADMISSION.scope(admission, future)
}

/// The admission of the request being served; the strictest outside any request.
fn current_admission() -> Admission {
    ADMISSION
        .try_with(|admission| *admission)
        .unwrap_or(STRICTEST)
}

pub(crate) struct NodePolicy {
    launch: LaunchRules,
    destinations: DestinationRules,
}

impl NodePolicy {
    pub(crate) fn new(launch: LaunchRules, destinations: DestinationRules) -> Self {
        Self {
            launch,
            destinations,
        }
    }
}

#[tonic::async_trait]
impl ConnectPolicy for NodePolicy {
    async fn admit(&self, _owner: &OwnerId, spec: &ServerSpec) -> Result<Admission, McpError> {
        let admission = current_admission();
        if admission.any_command {
            return Ok(admission);
        }
        match self.launch.check(spec) {
            Ok(()) => Ok(admission),
            Err(refusal) => Err(McpError::Refused {
                server: spec.name.clone(),
                refusal: Refusal::LaunchOnNode(refusal),
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
        STRICTEST
    }

    fn admin() -> Admission {
        Admission {
            any_command: true,
            guard_destinations: false,
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
        let admitted = with_admission(member(), policy.admit(&owner, &fits)).await;
        assert_eq!(admitted.ok(), Some(member()));
        let refused = with_admission(member(), policy.admit(&owner, &other)).await;
        assert!(
            matches!(
                refused,
                Err(McpError::Refused {
                    refusal: Refusal::LaunchOnNode(_),
                    ..
                })
            ),
            "{refused:?}"
        );
    }

    #[tokio::test]
    async fn an_admin_runs_anything_and_a_request_without_admission_is_a_member() {
        let policy = NodePolicy::new(LaunchRules::default(), DestinationRules::default());
        let owner = OwnerId("root".into());
        let spec = ServerSpec::stdio("any", "bash", ["-c", "id"]);
        assert!(
            policy.admit(&owner, &spec).await.is_err(),
            "no scope: strictest"
        );
        let admitted = with_admission(admin(), policy.admit(&owner, &spec)).await;
        assert_eq!(admitted.ok(), Some(admin()));
    }

    /// Two requests for the same (owner, server) in flight at once, one an admin's and one a
    /// member's: each is judged by its own admission, whatever order they interleave in.
    #[tokio::test]
    async fn concurrent_requests_for_one_server_keep_their_own_admission() {
        let policy = std::sync::Arc::new(NodePolicy::new(
            LaunchRules::default(),
            DestinationRules::default(),
        ));
        let owner = OwnerId("alice".into());
        let spec_v1 = ServerSpec::stdio("same", "bash", ["-c", "id"]);
        let mut spec_v2 = spec_v1.clone();
        spec_v2.args = vec!["-c".into(), "whoami".into()];
        let (gate_tx, gate_rx) = tokio::sync::watch::channel(false);
        // The admin's request is in flight (it waits on the gate inside its scope) while the
        // member's is judged.
        let admin_call = {
            let (policy, owner, spec, mut gate) = (
                policy.clone(),
                owner.clone(),
                spec_v1.clone(),
                gate_rx.clone(),
            );
            tokio::spawn(with_admission(admin(), async move {
                let before = policy.admit(&owner, &spec).await;
                let _ = gate.wait_for(|open| *open).await;
                let after = policy.admit(&owner, &spec).await;
                (before, after)
            }))
        };
        for _ in 0..16 {
            let refused = with_admission(member(), policy.admit(&owner, &spec_v2)).await;
            assert!(
                matches!(
                    refused,
                    Err(McpError::Refused {
                        refusal: Refusal::LaunchOnNode(_),
                        ..
                    })
                ),
                "{refused:?}"
            );
            tokio::task::yield_now().await;
        }
        let _ = gate_tx.send(true);
        let (before, after) = admin_call.await.expect("admin task");
        assert_eq!(before.ok(), Some(admin()));
        assert_eq!(after.ok(), Some(admin()));
    }
}

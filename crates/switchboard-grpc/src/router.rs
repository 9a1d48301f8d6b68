//! [`Router`]: a [`ServerPool`](switchboard_mcp::ServerPool) that sends each server with a
//! `node` to that node and every other server to the local manager.
//!
//! Callers (the agent, the proxy, tool nodes, the REST routes) hold one pool and never ask
//! where a server runs. A server on a node is sent with its spec and the admission the host's
//! policy gave its owner (see [`admission`]); its errors come back as the errors it would have
//! had locally, and a node that cannot be reached fails its calls with
//! [`McpError::NodeUnreachable`] (`MCP_UNREACHABLE`) while its servers show `error`.
//!
//! The router follows every node with a task (see `client/watch.rs`) and forwards the local
//! manager's status changes, list changes and resource updates, so `status_changes`,
//! `list_changes` and `resource_updates` carry both. The tasks end when the router is shut
//! down or dropped.

mod admission;
mod pool;
mod prompt;
mod sign_in;

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::Arc;

use switchboard_core::ServerSpec;
use switchboard_mcp::{ConnectPolicy, ConnectionManager, McpError, StatusChange};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::client::{Heard, NodeClient, NodeConfig};
use admission::Admissions;

/// Why the nodes of the settings cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RouterError {
    #[error("node `{node}`: {reason}")]
    Node { node: String, reason: String },
}

/// How many status changes a slow subscriber may fall behind before it misses some.
const CHANGES_CAPACITY: usize = 1024;

pub struct Router {
    local: Arc<ConnectionManager>,
    /// In the order of the settings (for [`nodes`](switchboard_mcp::ServerPool::nodes)).
    nodes: Vec<Arc<NodeClient>>,
    by_name: HashMap<String, Arc<NodeClient>>,
    admissions: Admissions,
    changes: broadcast::Sender<StatusChange>,
    /// The list changes and resource updates of local servers and of every node's.
    heard: Heard,
    stop: CancellationToken,
}

impl Drop for Router {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Where one server runs.
enum Route<'a> {
    Local,
    Node(&'a Arc<NodeClient>),
}

impl Router {
    /// Routes to `nodes` and to `local`; `policy` is the host's, asked (and its answer cached
    /// briefly) for the admission sent with each spec. Starts following every node, so it must
    /// be called inside a Tokio runtime.
    pub fn new(
        local: Arc<ConnectionManager>,
        nodes: Vec<NodeConfig>,
        policy: Arc<dyn ConnectPolicy>,
    ) -> Result<Self, RouterError> {
        let mut by_name = HashMap::new();
        let mut clients = Vec::with_capacity(nodes.len());
        for config in &nodes {
            let client = Arc::new(NodeClient::new(config)?.with_timeouts(local.config()));
            if by_name
                .insert(config.name.clone(), Arc::clone(&client))
                .is_some()
            {
                return Err(RouterError::Node {
                    node: config.name.clone(),
                    reason: "it is configured twice".into(),
                });
            }
            clients.push(client);
        }
        let changes = broadcast::channel(CHANGES_CAPACITY).0;
        let heard = Heard {
            lists: broadcast::channel(CHANGES_CAPACITY).0,
            updates: broadcast::channel(CHANGES_CAPACITY).0,
            logs: Arc::default(),
        };
        let stop = CancellationToken::new();
        for client in &clients {
            let client = Arc::clone(client);
            let (changes, heard, stop) = (changes.clone(), heard.clone(), stop.clone());
            tokio::spawn(async move { client.follow(changes, heard, stop).await });
        }
        tokio::spawn(forward(
            local.list_changes(),
            heard.lists.clone(),
            stop.clone(),
            missed_notice,
        ));
        tokio::spawn(forward(
            local.resource_updates(),
            heard.updates.clone(),
            stop.clone(),
            missed_notice,
        ));
        tokio::spawn(forward(
            local.status_changes(),
            changes.clone(),
            stop.clone(),
            resend_statuses(Arc::downgrade(&local)),
        ));
        Ok(Self {
            local,
            nodes: clients,
            by_name,
            admissions: Admissions::new(policy),
            changes,
            heard,
            stop,
        })
    }

    /// The local manager (stdio process groups of local servers, for tests).
    pub fn local(&self) -> &Arc<ConnectionManager> {
        &self.local
    }

    /// The client of the node called `name`.
    pub fn node(&self, name: &str) -> Option<&Arc<NodeClient>> {
        self.by_name.get(name)
    }

    fn route(&self, spec: &ServerSpec) -> Result<Route<'_>, McpError> {
        let Some(name) = spec.node.as_deref() else {
            return Ok(Route::Local);
        };
        let node = self
            .by_name
            .get(name)
            .ok_or_else(|| McpError::UnknownNode {
                node: name.to_owned(),
            })?;
        if self.stop.is_cancelled() {
            return Err(McpError::ShutDown);
        }
        Ok(Route::Node(node))
    }
}

/// Copies what `local` hears onto `out` until `stop`. When it fell behind, `lagged` says what
/// to do about the missed ones (`Break` when there is nothing left to forward for).
async fn forward<T: Clone>(
    mut local: broadcast::Receiver<T>,
    out: broadcast::Sender<T>,
    stop: CancellationToken,
    mut lagged: impl FnMut(u64, &broadcast::Sender<T>) -> ControlFlow<()>,
) {
    loop {
        let heard = tokio::select! {
            biased;
            () = stop.cancelled() => return,
            heard = local.recv() => heard,
        };
        match heard {
            Ok(heard) => {
                // Nobody listening is not an error.
                let _ = out.send(heard);
            }
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                if lagged(missed, &out).is_break() {
                    return;
                }
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// A list change or resource update missed is as if it had not been said (as a node's watch
/// does): lists are fetched again later, and an update is advisory.
fn missed_notice<T>(missed: u64, _: &broadcast::Sender<T>) -> ControlFlow<()> {
    tracing::debug!(missed, "the router missed local list changes or updates");
    ControlFlow::Continue(())
}

/// Status changes missed: the state of every local connection is published instead, so a
/// follower of the router's changes is not left with a stale status.
fn resend_statuses(
    manager: std::sync::Weak<ConnectionManager>,
) -> impl FnMut(u64, &broadcast::Sender<StatusChange>) -> ControlFlow<()> {
    move |missed, changes| {
        let Some(manager) = manager.upgrade() else {
            return ControlFlow::Break(());
        };
        tracing::debug!(
            missed,
            "the router missed local status changes: resending all"
        );
        for (owner, server, snapshot) in manager.snapshots() {
            let _ = changes.send(StatusChange {
                owner,
                server,
                status: snapshot.status,
                last_error: snapshot.last_error,
            });
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use switchboard_core::{OwnerId, ServerId};
    use switchboard_mcp::{ConnectionStatus, ManagerConfig};

    use super::*;

    #[tokio::test]
    async fn a_lagging_forwarder_republishes_the_local_state() {
        let manager = Arc::new(ConnectionManager::new(ManagerConfig::default()));
        let owner = OwnerId("o".into());
        let (quiet, busy) = (ServerId("quiet".into()), ServerId("busy".into()));
        // A slot whose last change is long gone from the broadcast by the time it is read.
        let _quiet = manager.subscribe(&owner, &quiet);
        let _busy = manager.subscribe(&owner, &busy);
        let local = manager.status_changes();
        for _ in 0..(2 * CHANGES_CAPACITY) {
            manager.disconnect(&owner, &busy).await;
        }
        let (changes, mut followed) = broadcast::channel(4 * CHANGES_CAPACITY);
        let stop = CancellationToken::new();
        tokio::spawn(forward(
            local,
            changes,
            stop.clone(),
            resend_statuses(Arc::downgrade(&manager)),
        ));
        let republished = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                match followed.recv().await {
                    Ok(change) if change.server == quiet => return change,
                    Ok(_) => {}
                    Err(error) => panic!("the router's channel: {error}"),
                }
            }
        })
        .await
        .expect("the quiet slot's state is published again");
        assert_eq!(republished.status, ConnectionStatus::Disconnected);
        stop.cancel();
        manager.shutdown().await;
    }
}

//! Following a node: its `Watch` stream keeps the host's copy of the node's servers' status,
//! and says whether the node is up.
//!
//! The node is `connecting` until its stream first opens, then `up`. When the stream fails the
//! node is `down`: each of its servers the host knew of is reported in `error` ("node `x`
//! cannot be reached: …"), and the host opens the stream again after 100 ms, doubling to 5 s.
//! A request that reaches a node thought down cuts the wait short. When the stream opens again
//! the node's full state, which it sends first, replaces the host's copy: a restarted node has
//! no connections, and its servers are `disconnected` until used.
//!
//! The copy is behind a plain mutex that is never held across an await: requests read it
//! (`snapshot`) while the task writes it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use switchboard_core::{OwnerId, ServerId};
use switchboard_mcp::{
    ConnectionSnapshot, ConnectionStatus, McpError, NodeHealth, NodeState, StatusChange,
};
use tokio::sync::{Notify, broadcast, watch};
use tokio_util::sync::CancellationToken;

use super::{NodeClient, failure};
use crate::pb::{self, watch_event};
use crate::wire;

const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

type Key = (OwnerId, ServerId);

/// What the host knows of one node.
pub(super) struct Watched {
    known: Mutex<Known>,
    /// The node's state, for whoever waits for it to change.
    state: watch::Sender<NodeState>,
    /// Whether the node is down, read without the lock by every request that reached it.
    down: AtomicBool,
    /// A request reached a node thought down: try its status stream now, not after the
    /// backoff.
    reached: Notify,
}

impl Default for Watched {
    fn default() -> Self {
        Self {
            known: Mutex::new(Known::default()),
            state: watch::channel(NodeState::Connecting).0,
            down: AtomicBool::new(false),
            reached: Notify::new(),
        }
    }
}

struct Known {
    state: NodeState,
    /// Why it is down.
    detail: Option<String>,
    version: Option<String>,
    servers: HashMap<Key, ConnectionSnapshot>,
}

impl Default for Known {
    fn default() -> Self {
        Self {
            state: NodeState::Connecting,
            detail: None,
            version: None,
            servers: HashMap::new(),
        }
    }
}

impl Watched {
    fn read<T>(&self, f: impl FnOnce(&Known) -> T) -> T {
        f(&self.known.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Changes what is known; the state's followers hear of a change of state.
    fn change<T>(&self, f: impl FnOnce(&mut Known) -> T) -> T {
        let (answer, state) = {
            let mut known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
            (f(&mut known), known.state)
        };
        self.down.store(state == NodeState::Down, Ordering::Relaxed);
        self.state.send_if_modified(|current| {
            let changed = *current != state;
            *current = state;
            changed
        });
        answer
    }
}

impl NodeClient {
    /// A request reached the node: if it was thought down, its status stream is opened again
    /// at once.
    pub(super) fn reached(&self) {
        if self.watched.down.load(Ordering::Relaxed) {
            self.watched.reached.notify_one();
        }
    }

    /// The node's health as last seen.
    pub fn health(&self) -> NodeHealth {
        self.watched.read(|known| NodeHealth {
            name: self.name.clone(),
            url: self.url.clone(),
            state: known.state,
            last_error: known.detail.clone(),
            version: known.version.clone(),
        })
    }

    /// Follows the node's state (`connecting`, `up`, `down`) as it changes.
    pub fn state_changes(&self) -> watch::Receiver<NodeState> {
        self.watched.state.subscribe()
    }

    /// The state of `owner`'s connection to `server` on the node: `error` while the node
    /// cannot be reached, `disconnected` when the node never mentioned it.
    pub fn snapshot(&self, owner: &OwnerId, server: &ServerId) -> ConnectionSnapshot {
        self.watched.read(|known| {
            if known.state == NodeState::Down {
                return down_snapshot(&self.name, known.detail.as_deref().unwrap_or_default());
            }
            known
                .servers
                .get(&(owner.clone(), server.clone()))
                .cloned()
                .unwrap_or_else(ConnectionSnapshot::disconnected)
        })
    }

    /// Follows the node until `stop`: publishes every change of its servers' status (and
    /// theirs turning `error` when the node goes down) on `changes`.
    pub async fn follow(&self, changes: broadcast::Sender<StatusChange>, stop: CancellationToken) {
        let mut backoff = FIRST_BACKOFF;
        loop {
            let detail = tokio::select! {
                biased;
                () = stop.cancelled() => return,
                detail = self.watch_once(&changes, &mut backoff) => detail,
            };
            tracing::debug!(node = %self.name, %detail, "the node's status stream failed");
            self.went_down(detail, &changes);
            tokio::select! {
                biased;
                () = stop.cancelled() => return,
                () = self.watched.reached.notified() => {}
                () = tokio::time::sleep(backoff) => {}
            }
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }

    /// Opens the status stream and follows it until it fails; answers why.
    async fn watch_once(
        &self,
        changes: &broadcast::Sender<StatusChange>,
        backoff: &mut Duration,
    ) -> String {
        let mut stream = match self.rpc().watch(pb::WatchRequest {}).await {
            Ok(response) => response.into_inner(),
            Err(status) => return failure::detail(&status),
        };
        *backoff = FIRST_BACKOFF;
        self.came_up(changes);
        let version = match self.check_health().await {
            Ok(reply) => Some(reply.version),
            Err(error) => {
                tracing::debug!(node = %self.name, %error, "the node did not say its version");
                None
            }
        };
        self.watched.change(|known| known.version = version);
        loop {
            match stream.message().await {
                Ok(Some(pb::WatchEvent {
                    event: Some(watch_event::Event::Status(status)),
                })) => self.changed(status, changes),
                // After `lagged` the node sends its full state again, which overwrites ours.
                Ok(Some(_)) => {}
                Ok(None) => return "the node closed its status stream".to_owned(),
                Err(status) => return failure::detail(&status),
            }
        }
    }

    /// The stream opened: forget what the node said before (it sends its full state next).
    fn came_up(&self, changes: &broadcast::Sender<StatusChange>) {
        let forgotten = self.watched.change(|known| {
            known.state = NodeState::Up;
            known.detail = None;
            std::mem::take(&mut known.servers)
        });
        for (owner, server) in forgotten.into_keys() {
            let _ = changes.send(StatusChange {
                owner,
                server,
                status: ConnectionStatus::Disconnected,
                last_error: None,
            });
        }
    }

    fn changed(&self, status: pb::ServerStatus, changes: &broadcast::Sender<StatusChange>) {
        let (owner, server, snapshot) = wire::status_from_pb(status);
        let change = StatusChange {
            owner: owner.clone(),
            server: server.clone(),
            status: snapshot.status,
            last_error: snapshot.last_error.clone(),
        };
        self.watched.change(|known| {
            known.servers.insert((owner, server), snapshot);
        });
        let _ = changes.send(change);
    }

    /// The node cannot be reached: the first time, each server known on it turns `error`.
    fn went_down(&self, detail: String, changes: &broadcast::Sender<StatusChange>) {
        let message = McpError::NodeUnreachable {
            node: self.name.clone(),
            detail: detail.clone(),
        }
        .to_string();
        let newly_down: Vec<Key> = self.watched.change(|known| {
            let was = known.state;
            known.state = NodeState::Down;
            known.detail = Some(detail);
            if was == NodeState::Down {
                Vec::new()
            } else {
                known.servers.keys().cloned().collect()
            }
        });
        for (owner, server) in newly_down {
            let _ = changes.send(StatusChange {
                owner,
                server,
                status: ConnectionStatus::Error,
                last_error: Some(message.clone()),
            });
        }
    }
}

fn down_snapshot(node: &str, detail: &str) -> ConnectionSnapshot {
    ConnectionSnapshot {
        status: ConnectionStatus::Error,
        last_error: Some(
            McpError::NodeUnreachable {
                node: node.to_owned(),
                detail: detail.to_owned(),
            }
            .to_string(),
        ),
        last_active_at: None,
        server: None,
    }
}

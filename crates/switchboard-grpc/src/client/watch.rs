//! Following a node: its `Watch` stream keeps the host's copy of the node's servers' status,
//! and says whether the node is up.
//!
//! The node is `connecting` until its stream first opens, then `up`. When the stream fails the
//! node is `down`: each of its servers the host knew of is reported in `error` ("node `x`
//! cannot be reached: …"), and the host opens the stream again after 100 ms, doubling to 5 s.
//! A request that reaches a node thought down cuts the wait short. When the stream opens again
//! the node's full state, which it sends first and ends with `synced`, replaces the host's
//! copy: each slot it mentions is updated as it arrives, and at `synced` a slot it did not
//! mention is dropped (`disconnected`: a restarted node has no connections). Nothing known is
//! forgotten before the new state is complete, so servers do not flap to `disconnected` on a
//! reconnect. The node's version is asked alongside, not before reading the stream.
//!
//! While the node is down a request fails at once with [`McpError::NodeUnreachable`] rather
//! than waiting out a connect timeout each time (a blackholed node would stall every agent
//! turn): one request at a time goes through as a probe, and after a probe that took long to
//! fail (a timeout, not a quick refusal) none goes through for one backoff period. A quick
//! refusal costs nothing, so the next request probes again: a node that is back is reached by
//! the first request after it is.
//!
//! The copy is behind a plain mutex that is never held across an await: requests read it
//! (`snapshot`) while the task writes it.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use switchboard_core::{OwnerId, ServerId};
use switchboard_mcp::{
    ConnectionSnapshot, ConnectionStatus, ListChange, LogBook, McpError, NodeHealth, NodeState,
    ResourceUpdate, StatusChange,
};
use tokio::sync::{Notify, broadcast, watch};
use tokio_util::sync::CancellationToken;

use super::{NodeClient, failure};
use crate::pb::{self, watch_event};
use crate::wire;

const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// A probe that took this long to fail was not refused but left waiting (a blackholed node).
const SLOW_PROBE: Duration = Duration::from_millis(500);

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
    /// The current backoff, in milliseconds: how long requests wait after a slow probe.
    backoff_ms: AtomicU64,
    probe: Mutex<Probe>,
}

/// Requests to a node that is down.
#[derive(Default)]
struct Probe {
    /// A request is trying the node: the others fail at once.
    in_flight: bool,
    /// No request tries the node before this (the last probe failed slowly).
    quiet_until: Option<Instant>,
}

/// A request let through to a node thought down; when it ends, a slow failure quiets the
/// others for a backoff period.
pub(super) struct ProbeGuard<'a> {
    watched: &'a Watched,
    started: Instant,
}

impl Drop for ProbeGuard<'_> {
    fn drop(&mut self) {
        let slow = self.started.elapsed() >= SLOW_PROBE;
        let still_down = self.watched.down.load(Ordering::Relaxed);
        let backoff = Duration::from_millis(self.watched.backoff_ms.load(Ordering::Relaxed));
        let mut probe = self
            .watched
            .probe
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        probe.in_flight = false;
        if slow && still_down {
            probe.quiet_until = Some(Instant::now() + backoff);
        }
    }
}

impl Default for Watched {
    fn default() -> Self {
        Self {
            known: Mutex::new(Known::default()),
            state: watch::channel(NodeState::Connecting).0,
            down: AtomicBool::new(false),
            reached: Notify::new(),
            backoff_ms: AtomicU64::new(millis(FIRST_BACKOFF)),
            probe: Mutex::new(Probe::default()),
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

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

impl Watched {
    /// Whether a request may go to the node now: always while it is not down; while it is, one
    /// probe at a time, none during the quiet period after a slow one. `Err` holds why the
    /// node is down.
    fn gate(&self) -> Result<Option<ProbeGuard<'_>>, String> {
        if !self.down.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let now = Instant::now();
        let mut probe = self.probe.lock().unwrap_or_else(PoisonError::into_inner);
        let quiet = probe.quiet_until.is_some_and(|until| now < until);
        if probe.in_flight || quiet {
            drop(probe);
            return Err(self.read(|known| known.detail.clone().unwrap_or_default()));
        }
        probe.in_flight = true;
        probe.quiet_until = None;
        Ok(Some(ProbeGuard {
            watched: self,
            started: now,
        }))
    }

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

/// Where a node's servers' announcements go on the host.
#[derive(Debug, Clone)]
pub(crate) struct Heard {
    pub(crate) lists: broadcast::Sender<ListChange>,
    pub(crate) updates: broadcast::Sender<ResourceUpdate>,
    /// The log lines of the nodes' servers, kept for their server's log.
    pub(crate) logs: Arc<LogBook>,
}

impl NodeClient {
    /// A request reached the node: if it was thought down, its status stream is opened again
    /// at once.
    pub(super) fn reached(&self) {
        if self.watched.down.load(Ordering::Relaxed) {
            self.watched.reached.notify_one();
        }
    }

    /// Lets a request through to the node, or fails it at once while the node is down and
    /// another request is probing it or a slow probe just failed (see the module's doc).
    pub(super) fn gate(&self, server: &str) -> Result<Option<ProbeGuard<'_>>, McpError> {
        self.watched.gate().map_err(|detail| {
            tracing::debug!(node = %self.name, server, "the node is down: failing fast");
            McpError::NodeUnreachable {
                node: self.name.clone(),
                detail,
            }
        })
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
    /// theirs turning `error` when the node goes down) on `changes`, and what its servers
    /// announce (list changes, resource updates) on `heard`.
    pub(crate) async fn follow(
        &self,
        changes: broadcast::Sender<StatusChange>,
        heard: Heard,
        stop: CancellationToken,
    ) {
        let mut backoff = FIRST_BACKOFF;
        loop {
            let detail = tokio::select! {
                biased;
                () = stop.cancelled() => return,
                detail = self.watch_once(&changes, &heard, &mut backoff) => detail,
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
            self.watched
                .backoff_ms
                .store(millis(backoff), Ordering::Relaxed);
        }
    }

    /// Opens the status stream and follows it until it fails; answers why.
    async fn watch_once(
        &self,
        changes: &broadcast::Sender<StatusChange>,
        heard: &Heard,
        backoff: &mut Duration,
    ) -> String {
        let mut stream = match self.rpc().watch(pb::WatchRequest {}).await {
            Ok(response) => response.into_inner(),
            Err(status) => return failure::detail(&status),
        };
        *backoff = FIRST_BACKOFF;
        self.watched
            .backoff_ms
            .store(millis(FIRST_BACKOFF), Ordering::Relaxed);
        self.came_up();
        // The slots the full state being received mentioned; `None` once it is complete.
        let mut syncing: Option<HashSet<Key>> = Some(HashSet::new());
        let health = self.check_health();
        tokio::pin!(health);
        let mut asked = false;
        loop {
            let message = tokio::select! {
                reply = &mut health, if !asked => {
                    asked = true;
                    let version = match reply {
                        Ok(reply) => Some(reply.version),
                        Err(error) => {
                            tracing::debug!(node = %self.name, %error, "the node did not say its version");
                            None
                        }
                    };
                    self.watched.change(|known| known.version = version);
                    continue;
                }
                message = stream.message() => message,
            };
            match message {
                Ok(Some(pb::WatchEvent {
                    event: Some(watch_event::Event::Status(status)),
                })) => {
                    let key = self.changed(status, changes);
                    if let Some(seen) = syncing.as_mut() {
                        seen.insert(key);
                    }
                }
                // The full state follows, then `synced`.
                Ok(Some(pb::WatchEvent {
                    event: Some(watch_event::Event::Lagged(_)),
                })) => syncing = Some(HashSet::new()),
                Ok(Some(pb::WatchEvent {
                    event: Some(watch_event::Event::Synced(_)),
                })) => {
                    if let Some(seen) = syncing.take() {
                        self.synced(&seen, changes);
                    }
                }
                Ok(Some(pb::WatchEvent {
                    event: Some(watch_event::Event::ListChanged(change)),
                })) => {
                    if let Some(change) = wire::list_change_from_pb(change) {
                        // Nobody listening is not an error.
                        let _ = heard.lists.send(change);
                    }
                }
                Ok(Some(pb::WatchEvent {
                    event: Some(watch_event::Event::ResourceUpdated(update)),
                })) => {
                    let _ = heard.updates.send(wire::update_from_pb(update));
                }
                Ok(Some(pb::WatchEvent {
                    event: Some(watch_event::Event::Logged(logged)),
                })) => {
                    let logged = wire::logged_from_pb(logged);
                    heard.logs.keep(&logged.owner, &logged.server, logged.line);
                }
                Ok(Some(_)) => {}
                Ok(None) => return "the node closed its status stream".to_owned(),
                Err(status) => return failure::detail(&status),
            }
        }
    }

    /// The stream opened: the node is up (its full state follows).
    fn came_up(&self) {
        self.watched.change(|known| {
            known.state = NodeState::Up;
            known.detail = None;
        });
    }

    /// The full state is complete: a slot it did not mention is gone.
    fn synced(&self, seen: &HashSet<Key>, changes: &broadcast::Sender<StatusChange>) {
        let gone: Vec<Key> = self.watched.change(|known| {
            let gone = known
                .servers
                .keys()
                .filter(|key| !seen.contains(*key))
                .cloned()
                .collect::<Vec<_>>();
            for key in &gone {
                known.servers.remove(key);
            }
            gone
        });
        for (owner, server) in gone {
            let _ = changes.send(StatusChange {
                owner,
                server,
                status: ConnectionStatus::Disconnected,
                last_error: None,
            });
        }
    }

    fn changed(&self, status: pb::ServerStatus, changes: &broadcast::Sender<StatusChange>) -> Key {
        let (owner, server, snapshot) = wire::status_from_pb(status);
        let change = StatusChange {
            owner: owner.clone(),
            server: server.clone(),
            status: snapshot.status,
            last_error: snapshot.last_error.clone(),
        };
        self.watched.change(|known| {
            known
                .servers
                .insert((owner.clone(), server.clone()), snapshot);
        });
        let _ = changes.send(change);
        (owner, server)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::NodeConfig;

    fn client() -> NodeClient {
        NodeClient::new(&NodeConfig {
            name: "box".into(),
            url: "http://127.0.0.1:9".into(),
            token: "t".into(),
            ca_pem: None,
            client_identity: None,
            allow_plaintext: false,
        })
        .expect("a client")
    }

    fn status(server: &str, status: ConnectionStatus) -> pb::ServerStatus {
        let snapshot = ConnectionSnapshot {
            status,
            ..ConnectionSnapshot::disconnected()
        };
        wire::status_to_pb(&OwnerId("o".into()), &ServerId(server.into()), &snapshot)
    }

    /// A reconnect keeps what was known until the full state is complete: no server flaps to
    /// `disconnected`; only a slot the new full state did not mention is dropped.
    #[tokio::test]
    async fn a_reconnect_replaces_the_state_at_synced_without_flapping() {
        let node = client();
        let (changes, mut heard) = broadcast::channel(64);
        node.came_up();
        node.changed(status("a", ConnectionStatus::Connected), &changes);
        node.changed(status("b", ConnectionStatus::Connected), &changes);
        while heard.try_recv().is_ok() {}

        node.went_down("refused".into(), &changes);
        while heard.try_recv().is_ok() {}
        node.came_up();
        assert!(
            heard.try_recv().is_err(),
            "nothing is forgotten on reconnect"
        );
        let (owner, a, b) = (
            OwnerId("o".into()),
            ServerId("a".into()),
            ServerId("b".into()),
        );
        assert_eq!(
            node.snapshot(&owner, &a).status,
            ConnectionStatus::Connected
        );

        let mut seen = HashSet::new();
        seen.insert(node.changed(status("a", ConnectionStatus::Connected), &changes));
        let change = heard.try_recv().expect("a's state");
        assert_eq!(
            (change.server.0.as_str(), change.status),
            ("a", ConnectionStatus::Connected)
        );
        assert_eq!(
            node.snapshot(&owner, &b).status,
            ConnectionStatus::Connected
        );
        node.synced(&seen, &changes);
        let change = heard.try_recv().expect("b is gone");
        assert_eq!(change.server, b);
        assert_eq!(change.status, ConnectionStatus::Disconnected);
        assert!(heard.try_recv().is_err(), "a did not flap");
        assert_eq!(
            node.snapshot(&owner, &b).status,
            ConnectionStatus::Disconnected
        );
    }

    fn down(watched: &Watched) {
        watched.change(|known| {
            known.state = NodeState::Down;
            known.detail = Some("connection refused".into());
        });
    }

    #[tokio::test(start_paused = true)]
    async fn while_down_one_probe_goes_through_and_a_slow_one_quiets_the_rest() {
        let watched = Watched::default();
        assert!(matches!(watched.gate(), Ok(None)), "up: no probe needed");
        down(&watched);
        watched
            .backoff_ms
            .store(millis(Duration::from_secs(2)), Ordering::Relaxed);

        // One probe at a time; the others fail at once, saying why.
        let probe = watched.gate().expect("the first request probes");
        assert!(probe.is_some());
        assert_eq!(watched.gate().err().as_deref(), Some("connection refused"));
        // A quick refusal: the next request probes again at once.
        drop(probe);
        let probe = watched.gate().expect("a quick failure does not quiet");
        // A slow failure (a blackholed node): quiet for the backoff period.
        tokio::time::advance(Duration::from_secs(1)).await;
        drop(probe);
        assert!(watched.gate().is_err());
        tokio::time::advance(Duration::from_millis(1900)).await;
        assert!(watched.gate().is_err(), "still within the backoff period");
        tokio::time::advance(Duration::from_millis(200)).await;
        assert!(
            matches!(watched.gate(), Ok(Some(_))),
            "one probe per period"
        );
    }
}

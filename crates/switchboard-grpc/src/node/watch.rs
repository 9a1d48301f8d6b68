//! `Watch`: the status of every connection slot, then every change as it happens.
//!
//! The stream subscribes to the manager's changes before it reads the full state, so nothing
//! that happens in between is missed. A host that reads too slowly misses changes rather than
//! slow the node: the manager's broadcast reports `Lagged`, and the host gets `lagged` and the
//! full state again. The full state ends with `synced`, so the host can replace its copy
//! without first forgetting it. Each change is sent as the connection's current snapshot (with its
//! server details and last activity), not only the bare status of the event. The stream ends
//! when the node stops. The servers' list changes, resource updates and log lines go on the
//! same stream.

use std::collections::VecDeque;

use futures::StreamExt;
use futures::stream::BoxStream;
use switchboard_mcp::ConnectionManager;
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;
use tonic::Status;

use crate::{pb, wire};

type Event = pb::watch_event::Event;

pub(crate) type WatchStream = BoxStream<'static, Result<pb::WatchEvent, Status>>;

struct Watching {
    manager: ConnectionManager,
    changes: tokio::sync::broadcast::Receiver<switchboard_mcp::StatusChange>,
    lists: tokio::sync::broadcast::Receiver<switchboard_mcp::ListChange>,
    updates: tokio::sync::broadcast::Receiver<switchboard_mcp::ResourceUpdate>,
    logs: tokio::sync::broadcast::Receiver<switchboard_mcp::LoggedLine>,
    pending: VecDeque<Event>,
    stop: CancellationToken,
}

pub(crate) fn watch(manager: ConnectionManager, stop: CancellationToken) -> WatchStream {
    let changes = manager.status_changes();
    let lists = manager.list_changes();
    let updates = manager.resource_updates();
    let logs = manager.follow_logs();
    let mut state = Watching {
        manager,
        changes,
        lists,
        updates,
        logs,
        pending: VecDeque::new(),
        stop,
    };
    state.push_full_state();
    futures::stream::unfold(state, |mut state| async move {
        loop {
            if let Some(event) = state.pending.pop_front() {
                let event = pb::WatchEvent { event: Some(event) };
                return Some((Ok(event), state));
            }
            let received = tokio::select! {
                biased;
                () = state.stop.cancelled() => return None,
                received = state.changes.recv() => received,
                listed = state.lists.recv() => {
                    let event = |c: &switchboard_mcp::ListChange| {
                        Event::ListChanged(wire::list_change_to_pb(c))
                    };
                    state.pending.extend(heard(listed, "list changes", event)?);
                    continue;
                }
                updated = state.updates.recv() => {
                    let event = |u: &switchboard_mcp::ResourceUpdate| {
                        Event::ResourceUpdated(wire::update_to_pb(u))
                    };
                    state.pending.extend(heard(updated, "resource updates", event)?);
                    continue;
                }
                logged = state.logs.recv() => {
                    let event = |l: &switchboard_mcp::LoggedLine| Event::Logged(wire::logged_to_pb(l));
                    state.pending.extend(heard(logged, "servers' log lines", event)?);
                    continue;
                }
            };
            match received {
                Ok(change) => {
                    let snapshot = state.manager.snapshot(&change.owner, &change.server);
                    state.pending.push_back(Event::Status(wire::status_to_pb(
                        &change.owner,
                        &change.server,
                        &snapshot,
                    )));
                }
                Err(RecvError::Lagged(_)) => {
                    state.pending.push_back(Event::Lagged(pb::Lagged {}));
                    state.push_full_state();
                }
                Err(RecvError::Closed) => return None,
            }
        }
    })
    .boxed()
}

/// What a server announced (a list change, a resource update, a log line) as its event; one
/// missed is as if it had not been said (lists are fetched again later, updates and lines are
/// advisory). `None` when the manager is gone, which ends the stream.
fn heard<T>(
    received: Result<T, RecvError>,
    what: &str,
    event: impl FnOnce(&T) -> Event,
) -> Option<Option<Event>> {
    match received {
        Ok(heard) => Some(Some(event(&heard))),
        Err(RecvError::Lagged(missed)) => {
            tracing::debug!(missed, "the watch missed {what}");
            Some(None)
        }
        Err(RecvError::Closed) => None,
    }
}

impl Watching {
    fn push_full_state(&mut self) {
        let all = self.manager.snapshots();
        self.pending
            .extend(all.iter().map(|(owner, server, snapshot)| {
                Event::Status(wire::status_to_pb(owner, server, snapshot))
            }));
        self.pending.push_back(Event::Synced(pb::Synced {}));
    }
}

#[cfg(test)]
mod tests {
    use switchboard_core::{OwnerId, ServerId};
    use switchboard_mcp::ManagerConfig;

    use super::*;

    async fn next(stream: &mut WatchStream) -> Event {
        let event = tokio::time::timeout(std::time::Duration::from_secs(10), stream.next())
            .await
            .expect("an event in time")
            .expect("the stream goes on")
            .expect("not an error");
        event.event.expect("an event")
    }

    #[tokio::test]
    async fn a_lagging_watcher_gets_lagged_then_the_full_state_again() {
        let manager = ConnectionManager::new(ManagerConfig::default());
        let (owner, server) = (OwnerId("o".into()), ServerId("s".into()));
        // A slot with no connection yet.
        let _slot = manager.subscribe(&owner, &server);
        let stop = CancellationToken::new();
        let mut stream = watch(manager.clone(), stop.clone());
        // More changes than the broadcast holds, unread.
        for _ in 0..1100 {
            manager.disconnect(&owner, &server).await;
        }
        let Event::Status(first) = next(&mut stream).await else {
            panic!("the full state comes first");
        };
        assert_eq!((first.owner.as_str(), first.server_id.as_str()), ("o", "s"));
        assert!(matches!(next(&mut stream).await, Event::Synced(_)));
        assert!(matches!(next(&mut stream).await, Event::Lagged(_)));
        let Event::Status(again) = next(&mut stream).await else {
            panic!("the full state follows `lagged`");
        };
        assert_eq!(again.status, "disconnected");
        assert!(matches!(next(&mut stream).await, Event::Synced(_)));
        stop.cancel();
        // Whatever was queued is sent, then the stream ends with the node.
        let ended = tokio::time::timeout(std::time::Duration::from_secs(10), async {
            while stream.next().await.is_some() {}
        })
        .await;
        assert!(ended.is_ok());
        manager.shutdown().await;
    }
}

//! Where the list changes and resource updates servers send end up: two broadcast
//! channels for the whole pool, each message tagged with the (owner, server) of the connection
//! that received it. The gateway tells its clients; nothing here waits on a slow listener.

use std::sync::Arc;

use switchboard_core::{OwnerId, ServerId};
use tokio::sync::broadcast;

use crate::logbook::LogBook;

use crate::pool::{ListChange, ListKind, ResourceUpdate};

/// How many notices a slow listener may fall behind before it misses some (and, told so by
/// `Lagged`, treats everything as changed).
const CAPACITY: usize = 1024;

/// The pool's channels, and for a connection the (owner, server) its notices are tagged with.
#[derive(Debug, Clone)]
pub(crate) struct Notices {
    source: Option<(OwnerId, ServerId)>,
    lists: broadcast::Sender<ListChange>,
    updates: broadcast::Sender<ResourceUpdate>,
    /// What the servers log, kept per server.
    pub(crate) logs: Arc<LogBook>,
}

impl Notices {
    pub(crate) fn new() -> Self {
        Self {
            source: None,
            lists: broadcast::channel(CAPACITY).0,
            updates: broadcast::channel(CAPACITY).0,
            logs: Arc::default(),
        }
    }

    /// The same channels, for the connection of `owner`'s `server`.
    pub(crate) fn for_server(&self, owner: &OwnerId, server: &ServerId) -> Self {
        Self {
            source: Some((owner.clone(), server.clone())),
            ..self.clone()
        }
    }

    pub(crate) fn list_changes(&self) -> broadcast::Receiver<ListChange> {
        self.lists.subscribe()
    }

    pub(crate) fn resource_updates(&self) -> broadcast::Receiver<ResourceUpdate> {
        self.updates.subscribe()
    }

    pub(crate) fn list_changed(&self, kind: ListKind) {
        if let Some((owner, server)) = &self.source {
            // Nobody listening is not an error.
            let _ = self.lists.send(ListChange {
                owner: owner.clone(),
                server: server.clone(),
                kind,
            });
        }
    }

    /// Keeps a line the connection's server logged.
    pub(crate) fn logged(&self, level: String, logger: Option<String>, text: &str) {
        if let Some((owner, server)) = &self.source {
            self.logs.record(owner, server, level, logger, text);
        }
    }

    pub(crate) fn resource_updated(&self, uri: String) {
        if let Some((owner, server)) = &self.source {
            let _ = self.updates.send(ResourceUpdate {
                owner: owner.clone(),
                server: server.clone(),
                uri,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_carry_the_connection_they_came_from() {
        let pool = Notices::new();
        let mut lists = pool.list_changes();
        let mut updates = pool.resource_updates();
        let owner = OwnerId("alice".into());
        let server = ServerId("s1".into());
        // The pool's own handle has no source and publishes nothing.
        pool.list_changed(ListKind::Tools);
        let conn = pool.for_server(&owner, &server);
        conn.list_changed(ListKind::Prompts);
        conn.resource_updated("test://a".into());
        let change = lists.try_recv().expect("one change");
        assert_eq!(change.kind, ListKind::Prompts);
        assert_eq!(
            (change.owner, change.server),
            (owner.clone(), server.clone())
        );
        assert!(lists.try_recv().is_err());
        assert_eq!(updates.try_recv().expect("one update").uri, "test://a");
    }
}

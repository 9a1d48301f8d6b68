//! Who opened each MCP session, so that a session id is never a credential: a request naming a
//! session must come from the same person, for the same view, as the `initialize` that opened
//! it (the gateway's handler checks the same for the requests it sees; this also covers the
//! `GET` stream and `DELETE`, which never reach it). And how many sessions one person holds.
//!
//! rmcp's [`LocalSessionManager`] removes a session when it ends (closed, idle, shut down), but
//! does not tell anyone; sessions ended that way are forgotten here lazily, when their person
//! is at the limit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{SessionId, SessionManager as _};
use switchboard_core::OwnerId;

/// The person and view a session belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Owner {
    pub user: OwnerId,
    pub view: Option<String>,
}

/// The sessions of the endpoint and their owners.
#[derive(Debug)]
pub struct Sessions {
    manager: Arc<LocalSessionManager>,
    owners: Mutex<HashMap<String, Owner>>,
}

/// What [`Sessions::check`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Checked {
    /// The session is the caller's, or unknown here (rmcp answers for unknown ones).
    Mine,
    /// Another person's or another view's.
    Foreign,
}

impl Sessions {
    pub(crate) fn new(manager: Arc<LocalSessionManager>) -> Self {
        Self {
            manager,
            owners: Mutex::default(),
        }
    }

    /// Whether `owner` may use session `id`.
    pub(crate) fn check(&self, id: &str, owner: &Owner) -> Checked {
        match self.lock().get(id) {
            Some(bound) if bound != owner => Checked::Foreign,
            _ => Checked::Mine,
        }
    }

    /// Records that `owner` opened session `id`, unless they already hold `max` live sessions:
    /// then the new session is closed and `false` returned.
    pub(crate) async fn bind(&self, id: &str, owner: Owner, max: usize) -> bool {
        if self.held_by(&owner.user).len() >= max {
            self.forget_ended(&owner.user).await;
        }
        let admitted = {
            let mut owners = self.lock();
            let held = owners.values().filter(|o| o.user == owner.user).count();
            let admitted = held < max;
            if admitted {
                owners.insert(id.to_owned(), owner);
            }
            admitted
        };
        if !admitted {
            self.close(id).await;
        }
        admitted
    }

    /// Session `id` was closed by its client.
    pub(crate) fn forget(&self, id: &str) {
        self.lock().remove(id);
    }

    async fn close(&self, id: &str) {
        let id: SessionId = Arc::from(id);
        if let Err(error) = self.manager.close_session(&id).await {
            tracing::warn!(%error, "cannot close an MCP session over its person's limit");
        }
    }

    fn held_by(&self, user: &OwnerId) -> Vec<String> {
        self.lock()
            .iter()
            .filter(|(_, owner)| &owner.user == user)
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// Forgets `user`'s sessions that rmcp no longer has.
    async fn forget_ended(&self, user: &OwnerId) {
        for id in self.held_by(user) {
            let session: SessionId = Arc::from(id.as_str());
            if !self.manager.has_session(&session).await.unwrap_or(false) {
                self.forget(&id);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Owner>> {
        self.owners.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(user: &str, view: Option<&str>) -> Owner {
        Owner {
            user: OwnerId(user.into()),
            view: view.map(str::to_owned),
        }
    }

    #[tokio::test]
    async fn a_session_answers_only_to_its_person_and_view() {
        let sessions = Sessions::new(Arc::default());
        assert!(sessions.bind("s1", owner("alice", None), 4).await);
        assert_eq!(sessions.check("s1", &owner("alice", None)), Checked::Mine);
        assert_eq!(sessions.check("s1", &owner("bob", None)), Checked::Foreign);
        assert_eq!(
            sessions.check("s1", &owner("alice", Some("work"))),
            Checked::Foreign
        );
        assert_eq!(
            sessions.check("unknown", &owner("bob", None)),
            Checked::Mine
        );
        sessions.forget("s1");
        assert_eq!(sessions.check("s1", &owner("bob", None)), Checked::Mine);
    }

    #[tokio::test]
    async fn sessions_that_ended_do_not_count_against_the_limit() {
        // The manager has none of these sessions: they all ended, so each bind frees room.
        let sessions = Sessions::new(Arc::default());
        for n in 0..5 {
            assert!(
                sessions
                    .bind(&format!("s{n}"), owner("alice", None), 1)
                    .await
            );
        }
        assert_eq!(sessions.held_by(&OwnerId("alice".into())).len(), 1);
    }
}

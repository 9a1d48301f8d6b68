//! The admission sent with each spec to a node: the host policy's answer, kept briefly.
//!
//! The policy may read the store (the owner's role, the launch templates), so it is not asked
//! on every call: an answer is kept [`TTL`] per (owner, spec version) — the version is a digest
//! of the spec's JSON, which holds the server's id, so a changed spec is asked about again at
//! once. A refusal is never kept: the next request asks again, and an admin's change shows at
//! once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use switchboard_core::{OwnerId, ServerSpec};
use switchboard_mcp::{Admission, ConnectPolicy, McpError};

use crate::{pb, wire};

/// How long an answer of the policy is used.
pub(crate) const TTL: Duration = Duration::from_secs(10);
/// Past this many answers kept, the stale ones are dropped.
const PRUNE_AT: usize = 4096;

type Key = (OwnerId, String);

pub(crate) struct Admissions {
    policy: Arc<dyn ConnectPolicy>,
    kept: Mutex<HashMap<Key, (Admission, Instant)>>,
}

impl Admissions {
    pub(crate) fn new(policy: Arc<dyn ConnectPolicy>) -> Self {
        Self {
            policy,
            kept: Mutex::new(HashMap::new()),
        }
    }

    /// What the node is sent for `owner`'s `spec`, or the policy's refusal.
    pub(crate) async fn server_ref(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
    ) -> Result<pb::ServerRef, McpError> {
        let mut server = wire::server_ref(owner, spec, Admission::default())?;
        let key = (owner.clone(), server.spec_version.clone());
        let admission = match self.kept(&key) {
            Some(admission) => admission,
            None => {
                let admission = self.policy.admit(owner, spec).await?;
                self.keep(key, admission);
                admission
            }
        };
        server.admission = Some(pb::Admission {
            any_command: admission.any_command,
            guard_destinations: admission.guard_destinations,
        });
        Ok(server)
    }

    fn kept(&self, key: &Key) -> Option<Admission> {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.get(key)
            .filter(|(_, at)| at.elapsed() < TTL)
            .map(|(admission, _)| *admission)
    }

    fn keep(&self, key: Key, admission: Admission) {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() >= PRUNE_AT {
            kept.retain(|_, (_, at)| at.elapsed() < TTL);
        }
        kept.insert(key, (admission, Instant::now()));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Admits members, and counts how often it was asked.
    #[derive(Default)]
    struct Counting(AtomicUsize);

    #[async_trait::async_trait]
    impl ConnectPolicy for Counting {
        async fn admit(&self, _: &OwnerId, _: &ServerSpec) -> Result<Admission, McpError> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Ok(Admission {
                any_command: false,
                guard_destinations: true,
            })
        }
    }

    fn spec(name: &str, url: &str) -> ServerSpec {
        ServerSpec::http(name, url, None)
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_is_kept_ten_seconds_per_owner_and_spec_version() {
        let policy = Arc::new(Counting::default());
        let admissions = Admissions::new(policy.clone());
        let alice = OwnerId("alice".into());
        let one = spec("one", "https://a.example/mcp");
        let asked = || policy.0.load(Ordering::SeqCst);

        let sent = admissions.server_ref(&alice, &one).await.expect("admitted");
        let admission = sent.admission.expect("an admission is sent");
        assert!(!admission.any_command && admission.guard_destinations);
        assert_eq!(sent.owner, "alice");
        admissions.server_ref(&alice, &one).await.expect("admitted");
        assert_eq!(asked(), 1, "the second request uses the kept answer");

        admissions
            .server_ref(&OwnerId("bob".into()), &one)
            .await
            .expect("admitted");
        assert_eq!(asked(), 2, "another owner is asked about");
        let changed = spec("one", "https://b.example/mcp");
        admissions
            .server_ref(&alice, &changed)
            .await
            .expect("admitted");
        assert_eq!(asked(), 3, "a changed spec is asked about");
        assert_eq!(changed.id, one.id, "the same server");

        tokio::time::advance(TTL).await;
        admissions.server_ref(&alice, &one).await.expect("admitted");
        assert_eq!(asked(), 4, "an answer older than the TTL is asked again");
    }
}

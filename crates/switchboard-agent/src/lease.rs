//! The store lease behind a run's claim: one process at a time runs a conversation's turn,
//! whichever replica (or terminal chat) it is. The lease is renewed while the run lasts and
//! given up when it ends; a process that dies leaves it to expire after [`TTL`], after which
//! another process may resume the turn.

use std::sync::Arc;
use std::time::Duration;

use switchboard_store::Store;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::error::AgentError;

/// How long a lease lasts without renewal.
pub const TTL: Duration = Duration::from_secs(15);
/// How often a running process renews it.
const RENEW_EVERY: Duration = Duration::from_secs(5);

/// This process's name in leases: `host:pid`.
pub fn replica_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_owned());
    format!("{host}:{}", std::process::id())
}

/// A held lease. Dropping it stops the renewal and gives it up in the background;
/// [`Lease::release`] gives it up before returning.
#[derive(Debug)]
pub struct Lease {
    store: Arc<dyn Store>,
    conversation_id: String,
    holder: String,
    renewal: Option<DropGuard>,
}

impl Lease {
    /// The lease, or `None` when another holder's is current.
    pub async fn take(
        store: Arc<dyn Store>,
        conversation_id: &str,
        holder: &str,
    ) -> Result<Option<Lease>, AgentError> {
        if !store.lease_run(conversation_id, holder, TTL).await? {
            return Ok(None);
        }
        let stop = CancellationToken::new();
        tokio::spawn(renew(
            Arc::clone(&store),
            conversation_id.to_owned(),
            holder.to_owned(),
            stop.clone(),
        ));
        Ok(Some(Lease {
            store,
            conversation_id: conversation_id.to_owned(),
            holder: holder.to_owned(),
            renewal: Some(stop.drop_guard()),
        }))
    }

    /// Stops renewing and gives the lease up.
    pub async fn release(mut self) {
        self.renewal.take();
        if let Err(error) = self
            .store
            .release_run(&self.conversation_id, &self.holder)
            .await
        {
            tracing::warn!(%error, conversation = %self.conversation_id, "cannot give up the run's lease; it expires by itself");
        }
        // Released: nothing left for `drop` to do.
        self.holder.clear();
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if self.holder.is_empty() {
            return;
        }
        // The run's future was dropped (aborted task, stopping runtime): give the lease up in
        // the background if there still is a runtime; otherwise it expires.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let store = Arc::clone(&self.store);
            let conversation_id = std::mem::take(&mut self.conversation_id);
            let holder = std::mem::take(&mut self.holder);
            runtime.spawn(async move {
                let _ = store.release_run(&conversation_id, &holder).await;
            });
        }
    }
}

async fn renew(
    store: Arc<dyn Store>,
    conversation_id: String,
    holder: String,
    stop: CancellationToken,
) {
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(RENEW_EVERY) => {}
        }
        match store.lease_run(&conversation_id, &holder, TTL).await {
            Ok(true) => {}
            Ok(false) => {
                tracing::error!(conversation = %conversation_id, "another process took this run's lease");
                return;
            }
            Err(error) => {
                tracing::warn!(%error, conversation = %conversation_id, "cannot renew the run's lease")
            }
        }
    }
}

//! The breaker's tries in the background: while a server is held back, one task per slot
//! connects again each time the wait is up, until a connect works (the server is used again
//! without anyone editing it), the breaker closes for another reason, or nobody has used the
//! server for the idle timeout (then the next use starts the tries again, rather than a
//! forgotten server being started every few minutes for nobody).

use std::sync::{Arc, Weak};

use super::entry::Entry;
use super::{ConnectionManager, Inner};

impl ConnectionManager {
    /// Starts the background tries of `entry`'s open breaker, unless they are under way.
    pub(super) fn try_in_background(&self, entry: &Arc<Entry>) {
        if let Some(opening) = entry.breaker.start_probe() {
            tokio::spawn(tries(
                Arc::downgrade(&self.inner),
                Arc::downgrade(entry),
                opening,
            ));
        }
    }
}

/// Tries `entry`'s server each time `opening`'s wait is up, for as long as it lasts.
async fn tries(inner: Weak<Inner>, entry: Weak<Entry>, opening: u64) {
    loop {
        let Some(stop) = inner.upgrade().map(|inner| inner.stop.clone()) else {
            return;
        };
        let Some(due) = entry.upgrade().and_then(|entry| entry.breaker.due(opening)) else {
            return;
        };
        tokio::select! {
            () = tokio::time::sleep_until(due.at) => {}
            () = stop.cancelled() => return,
        }
        let (Some(inner), Some(entry)) = (inner.upgrade(), entry.upgrade()) else {
            return;
        };
        // Closed or opened anew while this task waited.
        let Some(due) = entry.breaker.due(opening) else {
            return;
        };
        let config = &inner.config;
        if entry.unused_for() >= config.idle_timeout {
            entry.breaker.stop_probe(opening);
            return;
        }
        let tried = entry
            .try_in_background(&due.spec, config, &inner.http, inner.policy.as_ref())
            .await;
        match tried {
            // Shut down while connecting: the manager has let go of its connections.
            Ok(_) if inner.stop.is_cancelled() => {
                entry.disconnect(config.shutdown_grace).await;
                return;
            }
            Ok(_) => {
                tracing::info!(server = %due.spec.name, "reached again after it could not be");
            }
            Err(error) => {
                tracing::debug!(server = %due.spec.name, error = ?error.to_string(), "still cannot be reached");
            }
        }
    }
}

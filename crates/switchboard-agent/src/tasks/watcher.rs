//! The watcher: claims the live tasks due for a poll and polls them, a bounded number at
//! once, until the service stops.

use std::sync::{Arc, PoisonError};

use switchboard_store::Timestamp;
use tokio::sync::Semaphore;

use super::Tasks;

impl Tasks {
    /// Claims and polls due tasks every tick, or sooner when woken, until stopped.
    pub(super) async fn watch(self) {
        let permits = Arc::new(Semaphore::new(self.config().concurrency.max(1)));
        let mut next_sweep = tokio::time::Instant::now();
        let mut next_renewal = tokio::time::Instant::now();
        loop {
            let config = self.config();
            if tokio::time::Instant::now() >= next_sweep {
                next_sweep += SWEEP_EVERY;
                self.sweep(config.retention).await;
            }
            if tokio::time::Instant::now() >= next_renewal {
                next_renewal = tokio::time::Instant::now() + config.renew;
                self.renew_holds(config.lease).await;
            }
            match self
                .inner
                .store
                .claim_due_tasks(&self.inner.holder, config.lease, config.batch)
                .await
            {
                Ok(due) => {
                    for task in due {
                        if !self.begin_poll(&task.id) {
                            continue;
                        }
                        let Ok(permit) = Arc::clone(&permits).acquire_owned().await else {
                            return;
                        };
                        let tasks = self.clone();
                        let stop = self.inner.stop.clone();
                        self.inner.tracker.spawn(async move {
                            let id = task.id.clone();
                            tokio::select! {
                                () = tasks.poll(task) => {}
                                // A poll cut short is taken up again by the next holder.
                                () = stop.cancelled() => {}
                            }
                            tasks.end_poll(&id);
                            drop(permit);
                        });
                    }
                }
                Err(error) => tracing::warn!(%error, "due tasks could not be claimed"),
            }
            tokio::select! {
                () = self.inner.stop.cancelled() => return,
                () = self.inner.wake.notified() => {}
                () = tokio::time::sleep(config.tick) => {}
            }
        }
    }
}

/// How often ended tasks past their retention are deleted.
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(60 * 60);

impl Tasks {
    /// Keeps the tasks this process holds from being taken over while it lives, however
    /// long until their next poll: only a process that went away loses them.
    async fn renew_holds(&self, lease: std::time::Duration) {
        if let Err(error) = self
            .inner
            .store
            .renew_task_holds(&self.inner.holder, lease)
            .await
        {
            tracing::warn!(%error, "the tasks held here could not be kept");
        }
    }

    /// Deletes the tasks that ended more than `retention` ago.
    async fn sweep(&self, retention: std::time::Duration) {
        let before = Timestamp(
            Timestamp::now()
                .0
                .saturating_sub(i64::try_from(retention.as_millis()).unwrap_or(i64::MAX)),
        );
        match self.inner.store.forget_ended_tasks(before).await {
            Ok(0) => {}
            Ok(forgotten) => tracing::debug!(forgotten, "ended tasks forgotten"),
            Err(error) => tracing::warn!(%error, "ended tasks could not be forgotten"),
        }
    }

    /// Marks task `id` as polled here; `false` when it already is.
    fn begin_poll(&self, id: &str) -> bool {
        self.inner
            .polling
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_owned())
    }

    fn end_poll(&self, id: &str) {
        self.inner
            .polling
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
    }
}

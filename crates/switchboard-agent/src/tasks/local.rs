//! Local tasks: calls run in this process for a caller that does not wait for them.

use std::sync::PoisonError;

use switchboard_mcp::{McpError, Started};
use switchboard_store::{StoredTask, TaskEnd, TaskUpstream, Timestamp};
use tokio_util::sync::CancellationToken;

use super::Tasks;
use super::outcome::TaskOutcome;
use super::poll::{live_status, next_poll};
use super::service::millis;
use crate::tool_call::{ToolCallError, ToolCallRequest};

impl Tasks {
    /// Runs the call of kept task `task` in the background, holding the task while it runs.
    pub(super) fn spawn_local(&self, mut req: ToolCallRequest, task: StoredTask) {
        let cancel = CancellationToken::new();
        // The call stops when the task is cancelled or this process stops.
        req.cancel = cancel.clone();
        let stop = self.inner.stop.clone();
        self.inner
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(task.id.clone(), cancel.clone());
        let tasks = self.clone();
        self.inner.tracker.spawn(async move {
            let started = tokio::select! {
                started = tasks.inner.calls.start(req) => Some(started),
                () = stop.cancelled() => None,
            };
            tasks
                .inner
                .running
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&task.id);
            // A process that stops leaves the task held: it ends as interrupted wherever it
            // is claimed next.
            let Some(started) = started else { return };
            tasks.settle_local(&task, started, &cancel).await;
        });
    }

    /// Records what the call of local task `task` gave.
    async fn settle_local(
        &self,
        task: &StoredTask,
        started: Result<crate::tool_call::StartedCall, ToolCallError>,
        cancel: &CancellationToken,
    ) {
        let holder = &self.inner.holder;
        let store = &self.inner.store;
        let (end, outcome) = match started {
            Ok(call) => match call.started {
                Started::Done(result) => (TaskEnd::Completed, TaskOutcome::Result(result)),
                Started::Task(state) => {
                    let upstream = TaskUpstream {
                        kind: super::service::kind_of(state.dialect),
                        upstream_id: state.upstream_id.clone(),
                        status: live_status(state.status),
                        status_message: state.status_message.clone(),
                        poll_interval_ms: state.poll_interval.map(millis),
                        ttl_ms: state.ttl.map(millis),
                        // Polled at once: a cancel may have come while it started.
                        next_poll_at: if cancel.is_cancelled() {
                            Timestamp::now()
                        } else {
                            next_poll(state.poll_interval, 0)
                        },
                    };
                    match store
                        .attach_task_upstream(&task.id, holder, &upstream)
                        .await
                    {
                        Ok(true) => {
                            if let Ok(now) = store.task(&task.owner, &task.id).await {
                                self.announce(&now);
                            }
                            self.inner.wake.notify_one();
                        }
                        Ok(false) => {}
                        Err(error) => {
                            tracing::warn!(task = %task.id, %error, "a task's server task could not be kept");
                        }
                    }
                    return;
                }
            },
            Err(ToolCallError::Mcp {
                error: McpError::Cancelled,
                ..
            }) if cancel.is_cancelled() => (
                TaskEnd::Cancelled,
                TaskOutcome::error(switchboard_core::ErrorCode::Cancelled, "cancelled"),
            ),
            Err(error) => (
                TaskEnd::Failed,
                TaskOutcome::error(error.code(), error.to_string()),
            ),
        };
        self.finish(task, end, &outcome).await;
    }
}

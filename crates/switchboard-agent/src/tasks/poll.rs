//! One poll of a live task: what its server (or this process) says of it now, recorded.

use std::time::Duration;

use switchboard_core::ErrorCode;
use switchboard_mcp::{CallOptions, McpError, TaskStatus, TaskStep};
use switchboard_store::{
    AuditOutcome, CallerKind, LiveStatus, StoreError, StoredTask, TaskEnd, TaskKind, TaskOrigin,
    TaskPoll, Timestamp,
};

use super::Tasks;
use super::outcome::TaskOutcome;
use super::service::millis;
use crate::tool_call::TaskCallEnd;

/// The shortest and longest wait between two polls, whatever the server suggests.
const MIN_POLL: Duration = Duration::from_secs(1);
const MAX_POLL: Duration = Duration::from_secs(60);
/// The first wait when the server suggests none; each further one is half as long again.
const FIRST_POLL: Duration = Duration::from_secs(2);

/// When to poll next: after the server's `pollInterval` when it gives one, else after a
/// wait growing by half with each poll so far; within [`MIN_POLL`] and [`MAX_POLL`].
pub(super) fn next_poll(suggested: Option<Duration>, polls: u32) -> Timestamp {
    Timestamp::now().plus(poll_wait(suggested, polls))
}

fn poll_wait(suggested: Option<Duration>, polls: u32) -> Duration {
    let wait = match suggested {
        Some(wait) => wait,
        None => FIRST_POLL.mul_f64(1.5_f64.powi(i32::try_from(polls.min(20)).unwrap_or(20))),
    };
    wait.clamp(MIN_POLL, MAX_POLL)
}

/// The wait after `failures` failed polls in a row: doubling from a second, at most 256 s.
fn backoff(failures: u32) -> Duration {
    Duration::from_secs(1u64 << failures.min(8)).min(Duration::from_secs(300))
}

/// The stored status of a live server status (an ended one never gets here).
pub(super) fn live_status(status: TaskStatus) -> LiveStatus {
    match status {
        TaskStatus::InputRequired => LiveStatus::InputRequired,
        _ => LiveStatus::Working,
    }
}

/// How many polls a task has had, roughly: its age over its interval (a task without one
/// backs off by age).
fn polls_so_far(task: &StoredTask) -> u32 {
    let age =
        Duration::from_millis(u64::try_from(Timestamp::now().0 - task.created_at.0).unwrap_or(0));
    let mut polls = 0;
    let mut waited = Duration::ZERO;
    while waited < age && polls < 20 {
        waited += poll_wait(None, polls);
        polls += 1;
    }
    polls
}

impl Tasks {
    /// Polls `task`, which this process has just claimed.
    pub(super) async fn poll(&self, task: StoredTask) {
        let outcome = match task.kind {
            TaskKind::Local => self.poll_local(&task).await,
            TaskKind::Legacy | TaskKind::Extension => self.poll_upstream(&task).await,
        };
        if let Err(error) = outcome {
            tracing::warn!(task = %task.id, %error, "a task could not be polled");
        }
    }

    /// A local task: still running here, it is held a while longer; else the process that
    /// ran it went away, and it ends as interrupted.
    async fn poll_local(&self, task: &StoredTask) -> Result<(), StoreError> {
        let running = self
            .inner
            .running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&task.id)
            .cloned();
        match running {
            Some(cancel) => {
                if task.cancel_requested {
                    cancel.cancel();
                }
                let poll = TaskPoll {
                    status: LiveStatus::Working,
                    status_message: task.status_message.clone(),
                    poll_interval_ms: None,
                    next_poll_at: Timestamp::now().plus(self.config().renew),
                    failures: 0,
                };
                self.inner
                    .store
                    .record_task_poll(&task.id, &self.inner.holder, &poll)
                    .await?;
            }
            None => {
                let outcome = TaskOutcome::error(
                    ErrorCode::TaskInterrupted,
                    "Switchboard stopped while the tool ran; it may or may not have taken effect",
                );
                self.finish(task, TaskEnd::Failed, &outcome).await;
            }
        }
        Ok(())
    }

    /// A task of its server: cancelled if asked, else asked how it is, and ended when it
    /// has.
    async fn poll_upstream(&self, task: &StoredTask) -> Result<(), StoreError> {
        let spec = match self
            .inner
            .store
            .connection_spec(&task.owner, &task.server_id)
            .await
        {
            Ok(spec) => spec,
            Err(StoreError::NotFound { .. }) => {
                let outcome = TaskOutcome::error(
                    ErrorCode::TaskLost,
                    "the server was removed while its task ran",
                );
                self.finish(task, TaskEnd::Failed, &outcome).await;
                return Ok(());
            }
            Err(error) => return Err(error),
        };
        let Some(upstream_id) = task.upstream_id.as_deref() else {
            let outcome =
                TaskOutcome::error(ErrorCode::TaskLost, "the server's task id was not kept");
            self.finish(task, TaskEnd::Failed, &outcome).await;
            return Ok(());
        };
        let step = TaskStep {
            tool: &task.tool,
            upstream_id,
        };
        let backend = self.inner.calls.backend();
        if task.cancel_requested {
            self.cancel_upstream(task, &spec, step).await;
            return Ok(());
        }
        match backend.task_state(&task.owner, &spec, step).await {
            // The server asks its question on `tasks/result` only: held open until the
            // task ends with the answer.
            Ok(state)
                if state.status == TaskStatus::InputRequired && task.kind == TaskKind::Legacy =>
            {
                self.legacy_input(task, &spec, step, state).await?;
            }
            // The server lists its questions with the task: those not asked yet are.
            Ok(state)
                if state.status == TaskStatus::InputRequired
                    && task.kind == TaskKind::Extension
                    && !self.unasked(task, &state).is_empty() =>
            {
                self.extension_input(task, &spec, step, state).await?;
            }
            Ok(state) if !state.status.is_terminal() => {
                let poll = TaskPoll {
                    status: live_status(state.status),
                    status_message: state.status_message,
                    poll_interval_ms: state.poll_interval.map(millis),
                    next_poll_at: next_poll(state.poll_interval, polls_so_far(task)),
                    failures: 0,
                };
                let changed =
                    poll.status != live_of(task) || poll.status_message != task.status_message;
                let recorded = self
                    .inner
                    .store
                    .record_task_poll(&task.id, &self.inner.holder, &poll)
                    .await?;
                if recorded && changed {
                    self.changed(&self.inner.store.task(&task.owner, &task.id).await?)
                        .await;
                }
            }
            Ok(state) => {
                let (end, outcome) = match state.status {
                    TaskStatus::Cancelled => (
                        TaskEnd::Cancelled,
                        TaskOutcome::error(ErrorCode::Cancelled, "cancelled by the server"),
                    ),
                    _ => {
                        let wait = self.config().outcome_wait;
                        let fetched = backend
                            .task_outcome(&task.owner, &spec, step, CallOptions::default(), wait)
                            .await;
                        match fetched {
                            Ok(result) => (TaskEnd::Completed, TaskOutcome::Result(result)),
                            Err(error) => (TaskEnd::Failed, failure(&error)),
                        }
                    }
                };
                self.finish(task, end, &outcome).await;
            }
            Err(error) if forgotten(&error) => self.lost(task).await,
            Err(error) => self.failed_poll(task, &error).await?,
        }
        Ok(())
    }

    /// Ends `task`, which its server no longer knows.
    pub(super) async fn lost(&self, task: &StoredTask) {
        let outcome = TaskOutcome::error(
            ErrorCode::TaskLost,
            "the server no longer knows this task (it expired or the server restarted)",
        );
        self.finish(task, TaskEnd::Failed, &outcome).await;
    }

    /// Records a poll of `task` that failed with `error`: tried again later, backing off,
    /// until too many failed in a row, which ends it with the last failure.
    pub(super) async fn failed_poll(
        &self,
        task: &StoredTask,
        error: &McpError,
    ) -> Result<(), StoreError> {
        let failures = task.failures + 1;
        if failures >= self.config().max_failures {
            self.finish(task, TaskEnd::Failed, &failure(error)).await;
            return Ok(());
        }
        let poll = TaskPoll {
            status: live_of(task),
            status_message: task.status_message.clone(),
            poll_interval_ms: task.poll_interval_ms,
            next_poll_at: Timestamp::now().plus(backoff(failures)),
            failures,
        };
        self.inner
            .store
            .record_task_poll(&task.id, &self.inner.holder, &poll)
            .await?;
        Ok(())
    }

    /// Ends held task `task` with `outcome`, audits it, announces it and tells everyone
    /// waiting on it; nothing when another process ended or took it meanwhile.
    pub(super) async fn finish(&self, task: &StoredTask, end: TaskEnd, outcome: &TaskOutcome) {
        let store = &self.inner.store;
        match store
            .finish_task(&task.id, &self.inner.holder, end, Some(&outcome.to_value()))
            .await
        {
            Ok(true) => {}
            Ok(false) => return,
            Err(error) => {
                tracing::warn!(task = %task.id, %error, "a task's end could not be kept");
                return;
            }
        }
        self.inner
            .asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&task.id);
        self.inner.calls.record_end(TaskCallEnd {
            owner: task.owner.clone(),
            caller: caller_of(task.origin),
            server_id: task.server_id.clone(),
            tool: task.tool.clone(),
            at: task.created_at,
            outcome: match outcome {
                TaskOutcome::Result(result) if result.is_error == Some(true) => {
                    AuditOutcome::ToolError
                }
                TaskOutcome::Result(_) => AuditOutcome::Ok,
                TaskOutcome::Error { code, .. } => AuditOutcome::Error(*code),
            },
            duration: Duration::from_millis(
                u64::try_from(Timestamp::now().0 - task.created_at.0).unwrap_or(0),
            ),
        });
        match store.task(&task.owner, &task.id).await {
            Ok(ended) => self.ended(&ended).await,
            Err(error) => {
                tracing::warn!(task = %task.id, %error, "an ended task could not be read")
            }
        }
        self.inner.wake.notify_one();
    }
}

/// The stored live status of `task`.
fn live_of(task: &StoredTask) -> LiveStatus {
    match task.status {
        switchboard_store::TaskStatus::InputRequired => LiveStatus::InputRequired,
        _ => LiveStatus::Working,
    }
}

/// Whether `error` says the server does not know the task (an unknown or expired id is
/// -32602 in both dialects).
pub(super) fn forgotten(error: &McpError) -> bool {
    match error {
        McpError::TaskLost { .. } => true,
        McpError::Server { error, .. } => error.code == rmcp::model::ErrorCode::INVALID_PARAMS,
        _ => false,
    }
}

/// An error as a task's outcome.
fn failure(error: &McpError) -> TaskOutcome {
    TaskOutcome::error(error.code(), error.to_string())
}

/// Who the audit says made a task's call.
fn caller_of(origin: TaskOrigin) -> CallerKind {
    match origin {
        TaskOrigin::Chat => CallerKind::Agent,
        TaskOrigin::Api => CallerKind::Api,
        TaskOrigin::Proxy => CallerKind::Proxy,
        TaskOrigin::Node => CallerKind::Node,
        TaskOrigin::Gateway => CallerKind::Gateway,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polls_follow_the_servers_interval_within_bounds() {
        let ms = |ms| Some(Duration::from_millis(ms));
        assert_eq!(poll_wait(ms(1500), 0), Duration::from_millis(1500));
        assert_eq!(poll_wait(ms(0), 3), MIN_POLL);
        assert_eq!(poll_wait(ms(3_600_000), 0), MAX_POLL);
        assert_eq!(poll_wait(None, 0), FIRST_POLL);
        assert_eq!(poll_wait(None, 1), Duration::from_secs(3));
        assert_eq!(poll_wait(None, 1000), MAX_POLL);
    }

    #[test]
    fn failed_polls_back_off_to_a_few_minutes() {
        assert_eq!(backoff(1), Duration::from_secs(2));
        assert_eq!(backoff(4), Duration::from_secs(16));
        assert_eq!(backoff(30), Duration::from_secs(256));
    }
}

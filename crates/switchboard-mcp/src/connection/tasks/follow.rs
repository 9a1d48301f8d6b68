//! A task followed to its end in process, for a caller that waits for the tool's result as
//! from any other call (a tool its server runs only as a task, called plainly).
//!
//! The task is polled (`tasks/get`) as often as the server's poll interval says (bounded, see
//! [`poll_wait`]) until it ends. A 2025-11-25 task that stops working has its outcome fetched
//! with `tasks/result`, on which the server asks its questions of the call's requester. An
//! extension task inlines its outcome, and its questions are answered by the call's requester
//! (each key once: the extension keeps keys unique for a task's life) and sent back with
//! `tasks/update`. The whole follow is bounded by the call's deadline; a caller that cancels,
//! times out or stops waiting cancels the task on the server (`tasks/cancel`).

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use rmcp::RoleClient;
use rmcp::model::{CallToolResult, ClientRequest, InputRequests};
use rmcp::service::PeerRequestOptions;

use super::{extension, legacy};
use crate::connection::{CallLimits, CallOptions, Connection};
use crate::error::McpError;
use crate::tasks::{TaskDialect, TaskOutcome, TaskState, TaskStatus};

/// The shortest and longest wait between two polls, whatever the server suggests.
const MIN_POLL: Duration = Duration::from_secs(1);
const MAX_POLL: Duration = Duration::from_secs(60);
/// The first wait when the server suggests none; each further one is half as long again.
const FIRST_POLL: Duration = Duration::from_secs(2);
/// The least time `tasks/result` is given, however little of the ceiling is left.
const MIN_RESULT_WAIT: Duration = Duration::from_secs(1);
/// How long a `tasks/cancel` sent for an abandoned task may take.
const CANCEL_WAIT: Duration = Duration::from_secs(10);

impl Connection {
    /// Follows `task` (of a call of `tool`) to its end within `deadline`, cancelling it on the
    /// server if the caller stops waiting first.
    pub(crate) async fn follow_to_end(
        &self,
        tool: &str,
        task: TaskState,
        options: &CallOptions,
        limits: CallLimits,
        deadline: Instant,
    ) -> Result<CallToolResult, McpError> {
        let mut abandoned = CancelOnDrop::new(self, &task);
        let outcome = self
            .follow(tool, task, options, limits, deadline, true)
            .await;
        // An answer, the tool's result or its own JSON-RPC error, means the task has ended;
        // so does a task the server no longer knows.
        if matches!(
            outcome,
            Ok(_) | Err(McpError::Server { .. } | McpError::TaskLost { .. })
        ) {
            abandoned.disarm();
        }
        outcome
    }

    /// Follows `task` until it ends or `deadline` passes. With `answering`, an extension
    /// task's questions are answered by `options.requests`; without, they are left to whoever
    /// answers them through `tasks/update`.
    pub(super) async fn follow(
        &self,
        tool: &str,
        mut task: TaskState,
        options: &CallOptions,
        limits: CallLimits,
        deadline: Instant,
        answering: bool,
    ) -> Result<CallToolResult, McpError> {
        let mut answered = BTreeSet::new();
        let mut polls = 0;
        loop {
            if task.status == TaskStatus::Cancelled {
                return Err(McpError::Cancelled);
            }
            match task.dialect {
                TaskDialect::Legacy if task.status != TaskStatus::Working => {
                    let wait = deadline
                        .saturating_duration_since(Instant::now())
                        .max(MIN_RESULT_WAIT);
                    return self
                        .legacy_task_result(tool, &task.upstream_id, options, wait)
                        .await;
                }
                TaskDialect::Extension if task.status.is_terminal() => {
                    return self.outcome_of(task);
                }
                TaskDialect::Extension if answering && task.status == TaskStatus::InputRequired => {
                    self.answer(tool, &task, &mut answered, options, limits, deadline)
                        .await?;
                }
                _ => {}
            }
            let wait = poll_wait(task.poll_interval, polls);
            polls += 1;
            if Instant::now() + wait >= deadline {
                return Err(McpError::Timeout {
                    server: self.server.clone(),
                    method: "tools/call".to_owned(),
                    timeout: limits.ceiling,
                });
            }
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = options.cancel.cancelled() => return Err(McpError::Cancelled),
            }
            task = self
                .get_task(tool, &task.upstream_id, options, limits)
                .await?;
        }
    }

    /// Answers the questions of `task` not answered before (keys in `answered`), by the
    /// call's requester, and sends the answers (`tasks/update`).
    async fn answer(
        &self,
        tool: &str,
        task: &TaskState,
        answered: &mut BTreeSet<String>,
        options: &CallOptions,
        limits: CallLimits,
        deadline: Instant,
    ) -> Result<(), McpError> {
        let mut asked = task.input_requests.clone().unwrap_or_default();
        asked.retain(|key, _| !answered.contains(key));
        if asked.is_empty() {
            return Ok(());
        }
        let asked: InputRequests = serde_json::from_value(serde_json::Value::Object(asked))
            .map_err(|error| McpError::Protocol {
                server: self.server.clone(),
                detail: format!("tasks/get asked for input that cannot be read: {error}"),
            })?;
        answered.extend(asked.keys().cloned());
        let roots = self.events.roots();
        let answering = crate::input_required::answer(&self.server, Some(asked), options, &roots);
        let answers = tokio::select! {
            answers = answering => answers?,
            () = tokio::time::sleep_until(deadline.into()) => {
                return Err(McpError::Timeout {
                    server: self.server.clone(),
                    method: "tools/call".to_owned(),
                    timeout: limits.ceiling,
                });
            }
            () = options.cancel.cancelled() => return Err(McpError::Cancelled),
        };
        self.update_task(tool, &task.upstream_id, answers, limits)
            .await
    }

    /// The outcome an ended extension task inlined.
    fn outcome_of(&self, task: TaskState) -> Result<CallToolResult, McpError> {
        match task.outcome {
            Some(TaskOutcome::Completed(result)) => Ok(result),
            Some(TaskOutcome::Failed(error)) => Err(McpError::Server {
                server: self.server.clone(),
                error,
            }),
            None => Err(McpError::Protocol {
                server: self.server.clone(),
                detail: "tasks/get reported an ended task without its outcome".to_owned(),
            }),
        }
    }
}

/// How long to wait before polling again: the server's poll interval when it gives one,
/// else a wait growing by half after each poll; never less than [`MIN_POLL`] (a server
/// suggesting 0 is not polled in a loop) nor more than [`MAX_POLL`].
fn poll_wait(suggested: Option<Duration>, polls: u32) -> Duration {
    let wait = match suggested {
        Some(wait) => wait,
        None => FIRST_POLL.mul_f64(1.5_f64.powi(i32::try_from(polls.min(20)).unwrap_or(20))),
    };
    wait.clamp(MIN_POLL, MAX_POLL)
}

/// Cancels the task on the server when the call stops following it before its end
/// (cancelled, timed out, dropped), from a task of its own so nothing waits on the write.
struct CancelOnDrop {
    peer: Option<rmcp::Peer<RoleClient>>,
    request: Option<(ClientRequest, PeerRequestOptions)>,
}

impl CancelOnDrop {
    fn new(connection: &Connection, task: &TaskState) -> Self {
        let mut options = PeerRequestOptions::with_timeout(CANCEL_WAIT);
        let request = match task.dialect {
            TaskDialect::Legacy => legacy::cancel_request(&task.upstream_id),
            TaskDialect::Extension => {
                options.meta = Some(extension::task_meta(connection.task_capabilities(None)));
                extension::cancel_request(&task.upstream_id)
            }
        };
        Self {
            peer: Some(connection.session.peer().clone()),
            request: Some((request, options)),
        }
    }

    fn disarm(&mut self) {
        self.peer = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let (Some(peer), Some((request, options))) = (self.peer.take(), self.request.take()) else {
            return;
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let sent = peer.send_request_with_option(request, options).await;
                if let Ok(handle) = sent
                    && let Err(error) = handle.await_response().await
                {
                    tracing::debug!(%error, "the server did not cancel an abandoned task");
                }
            });
        }
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
}

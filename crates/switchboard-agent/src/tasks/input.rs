//! A server's task waiting on input (`input_required`, the 2025-11-25 dialect): the server
//! asks its question only on a `tasks/result` request, so one is held open, with the
//! question going to whoever can answer for the task ([`TaskAsker`]: a chat's call asks in
//! the chat) or, with no one, declined as during a plain call. The task stays held while
//! the question waits.

use std::sync::{Arc, PoisonError};
use std::time::Duration;

use switchboard_core::ServerSpec;
use switchboard_mcp::{CallOptions, McpError, Requester, TaskStep};
use switchboard_store::{LiveStatus, StoredTask, TaskPoll, Timestamp};

use super::Tasks;

/// How long a question is waited for at a time (a person's answer may take that long; the
/// call ceiling of a plain call).
const QUESTION_WAIT: Duration = Duration::from_secs(10 * 60);

/// Who answers the questions of a task's server.
pub trait TaskAsker: Send + Sync {
    /// Who answers for `task`; `None` when this asker does not answer for it.
    fn requester(&self, task: &StoredTask) -> Option<Requester>;
}

impl Tasks {
    /// Makes `asker` answer the questions of the tasks it answers for.
    pub fn add_asker(&self, asker: Arc<dyn TaskAsker>) {
        self.inner
            .askers
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .push(asker);
    }

    fn requester_for(&self, task: &StoredTask) -> Option<Requester> {
        self.inner
            .askers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find_map(|asker| asker.requester(task))
    }

    /// Holds `tasks/result` open for `task`, which waits on input, keeping the task held
    /// meanwhile: the tool's outcome once the server has its answer and the task ends.
    pub(super) async fn answered(
        &self,
        task: &StoredTask,
        spec: &ServerSpec,
        step: TaskStep<'_>,
    ) -> Result<rmcp::model::CallToolResult, McpError> {
        let options = CallOptions {
            requests: self.requester_for(task),
            ..CallOptions::default()
        };
        let backend = self.inner.calls.backend();
        let outcome = backend.task_outcome(&task.owner, spec, step, options, QUESTION_WAIT);
        tokio::select! {
            outcome = outcome => outcome,
            () = self.keep_held(task) => unreachable_end(),
        }
    }

    /// Keeps `task` from being due (so no other process takes it) while this one waits on
    /// it; never ends.
    async fn keep_held(&self, task: &StoredTask) {
        let config = self.config();
        loop {
            let poll = TaskPoll {
                status: LiveStatus::InputRequired,
                status_message: task.status_message.clone(),
                poll_interval_ms: task.poll_interval_ms,
                next_poll_at: Timestamp::now().plus(config.lease),
                failures: 0,
            };
            if let Err(error) = self
                .inner
                .store
                .record_task_poll(&task.id, &self.inner.holder, &poll)
                .await
            {
                tracing::warn!(task = %task.id, %error, "a task waiting on input could not be held");
            }
            tokio::time::sleep(config.renew).await;
        }
    }
}

/// What `keep_held` (which never ends) would give.
fn unreachable_end() -> Result<rmcp::model::CallToolResult, McpError> {
    Err(McpError::Cancelled)
}

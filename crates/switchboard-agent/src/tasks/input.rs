//! A server's task waiting on input (`input_required`), its questions going to whoever can
//! answer for the task ([`TaskAsker`]: a chat's call asks in the chat) or, with no one,
//! declined as during a plain call. The task stays held while a question waits, and a
//! question ends unanswered when the task is cancelled.
//!
//! The two dialects ask differently:
//! - 2025-11-25: the server asks only on a `tasks/result` request, which is held open until
//!   the task ends with the answer;
//! - 2026-07-28 extension: `tasks/get` lists the questions (`inputRequests`, each key unique
//!   for the task's life); each is asked once, and the answers go back with `tasks/update`.
//!   The server takes them in eventually, so the keys answered here are remembered until the
//!   task ends, and a poll that still lists them asks nothing.

use std::collections::HashSet;
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::model::InputRequests;
use serde_json::{Map, Value};
use switchboard_core::{ErrorCode, ServerSpec};
use switchboard_mcp::{CallOptions, McpError, Requester, TaskState, TaskStep};
use switchboard_store::{LiveStatus, StoreError, StoredTask, TaskEnd, TaskPoll, Timestamp};
use tokio_util::sync::CancellationToken;

use super::Tasks;
use super::outcome::TaskOutcome;
use super::poll::{forgotten, next_poll};
use super::service::millis;

/// How long a question is waited for at a time (a person's answer may take that long; the
/// call ceiling of a plain call).
const QUESTION_WAIT: Duration = Duration::from_secs(10 * 60);

/// Who answers the questions of a task's server.
pub trait TaskAsker: Send + Sync {
    /// Who answers for `task` of `server` until `cancel` (the task was cancelled); `None`
    /// when this asker does not answer for it. Asked each time the server asks something,
    /// so what answering needs (a chat's model, for sampling) is set up only then.
    fn requester<'a>(
        &'a self,
        task: &'a StoredTask,
        server: &'a ServerSpec,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Option<Requester>>;
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

    async fn requester_for(
        &self,
        task: &StoredTask,
        server: &ServerSpec,
        cancel: &CancellationToken,
    ) -> Option<Requester> {
        let askers = self
            .inner
            .askers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for asker in askers {
            if let Some(requester) = asker.requester(task, server, cancel.clone()).await {
                return Some(requester);
            }
        }
        None
    }

    /// A 2025-11-25 task waiting on input: `tasks/result` held open until the task ends with
    /// the answer, or asked again at a later poll when no answer came in time.
    pub(super) async fn legacy_input(
        &self,
        task: &StoredTask,
        spec: &ServerSpec,
        step: TaskStep<'_>,
        state: TaskState,
    ) -> Result<(), StoreError> {
        self.waits_on_input(task, &state).await?;
        let asking = self.asking(task);
        let requester = self.requester_for(task, spec, &asking.cancel).await;
        let options = CallOptions {
            requests: requester,
            ..CallOptions::default()
        };
        let backend = self.inner.calls.backend();
        let outcome = backend.task_outcome(&task.owner, spec, step, options, QUESTION_WAIT);
        let outcome = tokio::select! {
            outcome = outcome => outcome,
            () = self.keep_held(task, &state, &asking.cancel) => return Ok(()),
            () = asking.cancel.cancelled() => {
                self.cancel_upstream(task, spec, step).await;
                return Ok(());
            }
        };
        if self.cancel_asked(task, &asking.cancel).await {
            // Cancelled while the server heard the question was ended unanswered.
            self.cancel_upstream(task, spec, step).await;
            return Ok(());
        }
        match outcome {
            Ok(result) => {
                self.finish(task, TaskEnd::Completed, &TaskOutcome::Result(result))
                    .await;
            }
            Err(error) if forgotten(&error) => self.lost(task).await,
            Err(McpError::Timeout { .. }) => {
                // No answer yet: asked again at the next poll.
                self.input_poll(task, &state).await?;
            }
            Err(McpError::Server { error, .. }) => {
                // The error a plain call would have given: the tool failed.
                let outcome =
                    TaskOutcome::error(ErrorCode::McpExecutionError, error.message.to_string());
                self.finish(task, TaskEnd::Failed, &outcome).await;
            }
            Err(error) => self.failed_poll(task, &error).await?,
        }
        Ok(())
    }

    /// The questions of an extension task's `state` not asked here before (empty when none).
    pub(super) fn unasked(&self, task: &StoredTask, state: &TaskState) -> Map<String, Value> {
        let mut requests = state.input_requests.clone().unwrap_or_default();
        if let Some(asked) = self
            .inner
            .asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&task.id)
        {
            requests.retain(|key, _| !asked.contains(key));
        }
        requests
    }

    /// An extension task waiting on input: its questions not asked before are asked, and the
    /// answers sent with `tasks/update`; the task is polled again soon after.
    pub(super) async fn extension_input(
        &self,
        task: &StoredTask,
        spec: &ServerSpec,
        step: TaskStep<'_>,
        state: TaskState,
    ) -> Result<(), StoreError> {
        let unasked = self.unasked(task, &state);
        let keys: Vec<String> = unasked.keys().cloned().collect();
        let requests: InputRequests = match serde_json::from_value(Value::Object(unasked)) {
            Ok(requests) => requests,
            Err(error) => {
                let error = McpError::Protocol {
                    server: spec.name.clone(),
                    detail: format!("tasks/get asked for input that cannot be read: {error}"),
                };
                return self.failed_poll(task, &error).await;
            }
        };
        self.waits_on_input(task, &state).await?;
        let asking = self.asking(task);
        let requester = self.requester_for(task, spec, &asking.cancel).await;
        let roots = spec.root_uris();
        let answering =
            switchboard_mcp::answer_input(&spec.name, Some(requests), requester, &roots);
        let answers = tokio::select! {
            answers = answering => answers,
            () = self.keep_held(task, &state, &asking.cancel) => return Ok(()),
            () = asking.cancel.cancelled() => {
                self.cancel_upstream(task, spec, step).await;
                return Ok(());
            }
        };
        if self.cancel_asked(task, &asking.cancel).await {
            self.cancel_upstream(task, spec, step).await;
            return Ok(());
        }
        let answers = match answers {
            Ok(answers) => answers,
            Err(error) => return self.failed_poll(task, &error).await,
        };
        let backend = self.inner.calls.backend();
        match backend.update_task(&task.owner, spec, step, answers).await {
            Ok(()) => {
                self.inner
                    .asked
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .entry(task.id.clone())
                    .or_default()
                    .extend(keys);
                self.input_poll(task, &state).await
            }
            Err(error) if forgotten(&error) => {
                self.lost(task).await;
                Ok(())
            }
            Err(error) => self.failed_poll(task, &error).await,
        }
    }

    /// Records that `task` waits on input, as `state` says, holding it while its questions
    /// are asked; announced (and shown with a chat's call) when that is news.
    async fn waits_on_input(&self, task: &StoredTask, state: &TaskState) -> Result<(), StoreError> {
        let news = task.status != switchboard_store::TaskStatus::InputRequired
            || task.status_message != state.status_message;
        let poll = TaskPoll {
            status: LiveStatus::InputRequired,
            status_message: state.status_message.clone(),
            poll_interval_ms: state.poll_interval.map(millis),
            next_poll_at: Timestamp::now().plus(self.config().lease),
            failures: 0,
        };
        let recorded = self
            .inner
            .store
            .record_task_poll(&task.id, &self.inner.holder, &poll)
            .await?;
        if recorded && news {
            self.changed(&self.inner.store.task(&task.owner, &task.id).await?)
                .await;
        }
        Ok(())
    }

    /// Records `task`, still waiting on input, to be polled again as its server asks.
    async fn input_poll(&self, task: &StoredTask, state: &TaskState) -> Result<(), StoreError> {
        let poll = TaskPoll {
            status: LiveStatus::InputRequired,
            status_message: state.status_message.clone(),
            poll_interval_ms: state.poll_interval.map(millis),
            next_poll_at: next_poll(state.poll_interval, 0),
            failures: 0,
        };
        self.inner
            .store
            .record_task_poll(&task.id, &self.inner.holder, &poll)
            .await?;
        Ok(())
    }

    /// What ends the questions asked for `task` when it is cancelled here
    /// ([`Tasks::cancel`]); cancellations asked elsewhere are seen by [`Self::keep_held`].
    fn asking(&self, task: &StoredTask) -> Asking {
        let cancel = CancellationToken::new();
        if task.cancel_requested {
            cancel.cancel();
        }
        self.inner
            .asking
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(task.id.clone(), cancel.clone());
        Asking {
            tasks: self.clone(),
            id: task.id.clone(),
            cancel,
        }
    }

    /// Keeps `task` from being due (so no other process takes it) while this one waits on
    /// it, cancelling `cancel` once its cancellation is asked (by any process). Ends only if
    /// the task is no longer this process's to hold.
    async fn keep_held(&self, task: &StoredTask, state: &TaskState, cancel: &CancellationToken) {
        let config = self.config();
        loop {
            let poll = TaskPoll {
                status: LiveStatus::InputRequired,
                status_message: state.status_message.clone(),
                poll_interval_ms: state.poll_interval.map(millis),
                next_poll_at: Timestamp::now().plus(config.lease),
                failures: 0,
            };
            match self
                .inner
                .store
                .record_task_poll(&task.id, &self.inner.holder, &poll)
                .await
            {
                Ok(true) => {}
                // Ended or taken meanwhile: nothing left to wait for here.
                Ok(false) => return,
                Err(error) => {
                    tracing::warn!(task = %task.id, %error, "a task waiting on input could not be held");
                }
            }
            match self.inner.store.task(&task.owner, &task.id).await {
                Ok(now) if now.cancel_requested => cancel.cancel(),
                Ok(_) => {}
                Err(error) => {
                    tracing::debug!(task = %task.id, %error, "a task waiting on input could not be read");
                }
            }
            tokio::time::sleep(config.renew).await;
        }
    }

    /// Whether `task`'s cancellation was asked while its questions waited: here (`cancel`)
    /// or, as the store says, anywhere.
    async fn cancel_asked(&self, task: &StoredTask, cancel: &CancellationToken) -> bool {
        if cancel.is_cancelled() {
            return true;
        }
        match self.inner.store.task(&task.owner, &task.id).await {
            Ok(now) => now.cancel_requested,
            Err(error) => {
                tracing::debug!(task = %task.id, %error, "a task waiting on input could not be read");
                false
            }
        }
    }

    /// Cancels `task` on its server and ends it cancelled.
    pub(super) async fn cancel_upstream(
        &self,
        task: &StoredTask,
        spec: &ServerSpec,
        step: TaskStep<'_>,
    ) {
        let backend = self.inner.calls.backend();
        if let Err(error) = backend.cancel_task(&task.owner, spec, step).await {
            tracing::debug!(task = %task.id, %error, "the server did not cancel its task");
        }
        let outcome = TaskOutcome::error(ErrorCode::Cancelled, "cancelled");
        self.finish(task, TaskEnd::Cancelled, &outcome).await;
    }
}

/// The questions being asked for one task; no longer cancellable once dropped.
struct Asking {
    tasks: Tasks,
    id: String,
    cancel: CancellationToken,
}

impl Drop for Asking {
    fn drop(&mut self) {
        self.tasks
            .inner
            .asking
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
    }
}

/// The keys of an extension task's questions answered here, by task id.
pub(super) type AskedKeys = std::collections::HashMap<String, HashSet<String>>;

//! Turns that wait on tasks (a chat's calls that their servers run as tasks). Such a turn
//! parks: its run ends, freeing the conversation and the person's run slot. When a task ends
//! (in whichever process follows it, after a restart too), its end is written to its call
//! and the turn goes on in a new run, as after a late approval. The person can cancel one
//! task, or the whole turn; a new message on a parked turn is refused unless it says what to
//! do with the tasks.

use std::sync::{Arc, Weak};

use futures::future::BoxFuture;
use switchboard_agent::tasks::{TaskAsker, TaskEnded};
use switchboard_agent::{AgentError, Claim, PendingTask, RunSpec, Sampler};
use switchboard_core::{OwnerId, ServerSpec, ToolCallRecord};
use switchboard_mcp::Requester;
use switchboard_store::{StoredTask, TaskOrigin};
use tokio_util::sync::CancellationToken;

use super::Runs;
use crate::error::AppError;

/// What to do with the tasks a conversation's last turn waits on when a new message comes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OnPendingTask {
    /// Refuse the message ([`AppError::TasksPending`], listing them).
    #[default]
    Refuse,
    /// Cancel them (the turn ends cancelled), then send the message.
    Cancel,
}

impl Runs {
    /// Goes on with the turn whose chat task `task` ended: the task's end is written to its
    /// call, then the turn runs again unless a run has it already (that run finds the end by
    /// itself) or it waits on other tasks still. Failures are logged: the task's end is kept.
    pub(crate) async fn task_ended(&self, task: &StoredTask) {
        let turn = match self.agent.deliver_task_end(task).await {
            Ok(Some(turn)) => turn,
            Ok(None) => return,
            Err(error) => {
                tracing::warn!(task = %task.id, %error, "a task's end could not be written to its call");
                return;
            }
        };
        let spec = match self.spec_for(&task.owner, &turn.conversation_id).await {
            Ok(spec) => spec,
            Err(error) => {
                tracing::warn!(task = %task.id, %error, "the turn of an ended task cannot go on");
                return;
            }
        };
        self.go_on(&task.owner, &turn.conversation_id, &turn.id, spec)
            .await;
    }

    /// Runs turn `message_id` of `conversation_id` on, if it owes a step and no run has it.
    pub(crate) async fn go_on(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
        message_id: &str,
        spec: RunSpec,
    ) {
        if let Some(claim) =
            claim_if_it_goes_on(&self.agent, owner, conversation_id, message_id).await
        {
            // Counted, but not refused: the turn was admitted when its message was sent.
            let slot = self.slots.take_anyway(owner);
            self.spawn(claim, owner.clone(), spec, slot);
        }
    }

    /// Cancels `owner`'s call `call_id` of message `message_id`, which runs as a task: the
    /// call ends cancelled, the server is told, and the turn goes on with the model told so.
    pub async fn cancel_task_call(
        &self,
        owner: &OwnerId,
        message_id: &str,
        call_id: &str,
    ) -> Result<ToolCallRecord, AppError> {
        let message = self.store.message(owner, message_id).await?;
        let call = self
            .agent
            .cancel_task_call(owner, message_id, call_id)
            .await?;
        match self.spec_for(owner, &message.conversation_id).await {
            Ok(spec) => {
                self.go_on(owner, &message.conversation_id, message_id, spec)
                    .await;
            }
            Err(error) => {
                tracing::warn!(%error, conversation = %message.conversation_id, "the turn of a cancelled task cannot go on");
            }
        }
        Ok(call)
    }

    /// Cancels the conversation's run here, or its last turn if that waits on tasks (the
    /// tasks cancelled on their servers); `false` when there is neither.
    pub async fn cancel(&self, owner: &OwnerId, conversation_id: &str) -> Result<bool, AppError> {
        if self.cancel_running(conversation_id) {
            return Ok(true);
        }
        let claim = match self.agent.claim(conversation_id).await {
            Ok(claim) => claim,
            // A run began meanwhile (a task ended).
            Err(AgentError::Busy { .. }) => return Ok(self.cancel_running(conversation_id)),
            Err(error) => return Err(error.into()),
        };
        let ended = self.agent.cancel_waiting_turn(&claim, owner).await;
        claim.release().await;
        match ended? {
            Some(outcome) => {
                self.agent
                    .announce_end(owner, conversation_id, &Ok(outcome));
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The tasks the conversation's last turn waits on, checked before a new message is
    /// stored: refused by `policy`, or left for [`Runs::settle_pending`] to cancel.
    pub(super) async fn check_pending(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
        policy: OnPendingTask,
    ) -> Result<(), AppError> {
        if policy == OnPendingTask::Cancel {
            return Ok(());
        }
        let tasks: Vec<PendingTask> = self.agent.pending_tasks(owner, conversation_id).await?;
        if tasks.is_empty() {
            Ok(())
        } else {
            Err(AppError::TasksPending { tasks })
        }
    }

    /// Under the conversation's claim, before a new message is stored with `policy`
    /// `Cancel`: the last turn's tasks cancelled, and the turn ended (announced at once:
    /// the new message follows it).
    pub(super) async fn settle_pending(
        &self,
        claim: &Claim,
        owner: &OwnerId,
        policy: OnPendingTask,
    ) -> Result<(), AppError> {
        if policy != OnPendingTask::Cancel {
            return Ok(());
        }
        if let Some(outcome) = self.agent.cancel_waiting_turn(claim, owner).await? {
            self.agent
                .announce_end(owner, claim.conversation_id(), &Ok(outcome));
        }
        Ok(())
    }
}

/// The conversation claimed, if its turn `message_id` owes a step: looked at first without
/// a claim (a turn still waiting on its tasks is not claimed, so the conversation never
/// shows as running for nothing), then checked again under the claim, so that a turn
/// another run finished meanwhile is not run twice.
pub(super) async fn claim_if_it_goes_on(
    agent: &switchboard_agent::Agent,
    owner: &OwnerId,
    conversation_id: &str,
    message_id: &str,
) -> Option<Claim> {
    if let Ok(false) = agent.turn_goes_on(owner, conversation_id, message_id).await {
        return None;
    }
    let claim = match agent.claim(conversation_id).await {
        Ok(claim) => claim,
        Err(AgentError::Busy { .. }) => return None,
        Err(error) => {
            tracing::warn!(%error, conversation = %conversation_id, "cannot go on with a turn");
            return None;
        }
    };
    match agent.turn_goes_on(owner, conversation_id, message_id).await {
        Ok(true) => Some(claim),
        Ok(false) => {
            claim.release().await;
            None
        }
        Err(error) => {
            tracing::warn!(%error, conversation = %conversation_id, "cannot go on with a turn");
            claim.release().await;
            None
        }
    }
}

/// Tells the run service of chat tasks' ends (the turn goes on) and progress (shown with
/// the call), and asks their servers' questions in the chat.
pub(crate) struct ChatTasks(pub Weak<Runs>);

impl ChatTasks {
    pub(crate) fn of(runs: &Arc<Runs>) -> Arc<ChatTasks> {
        Arc::new(ChatTasks(Arc::downgrade(runs)))
    }
}

impl TaskAsker for ChatTasks {
    /// The conversation's call asks. Its model answers the server's sampling requests; it
    /// is set up here, when the server asks something, since no run holds the parked turn.
    /// When it cannot be (its provider was removed), sampling is refused with that reason
    /// while the server's other questions are still asked: a form needs no model.
    fn requester<'a>(
        &'a self,
        task: &'a StoredTask,
        server: &'a ServerSpec,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Option<Requester>> {
        Box::pin(async move {
            if task.origin != TaskOrigin::Chat {
                return None;
            }
            let runs = self.0.upgrade()?;
            let conversation_id = task.conversation_id.as_deref()?;
            let sampler = match runs.spec_for(&task.owner, conversation_id).await {
                Ok(spec) => Some(Sampler {
                    provider: spec.provider,
                    model: spec.model,
                    policy: server.sampling.unwrap_or_default(),
                }),
                Err(error) => {
                    tracing::info!(task = %task.id, %error, "a task's sampling requests are refused: the conversation's model cannot be had");
                    None
                }
            };
            runs.agent.task_requester(task, sampler, cancel)
        })
    }
}

impl TaskEnded for ChatTasks {
    fn ended<'a>(&'a self, task: &'a StoredTask) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if task.origin != TaskOrigin::Chat {
                return;
            }
            if let Some(runs) = self.0.upgrade() {
                runs.task_ended(task).await;
            }
        })
    }

    fn changed<'a>(&'a self, task: &'a StoredTask) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if task.origin != TaskOrigin::Chat {
                return;
            }
            if let Some(runs) = self.0.upgrade()
                && let Err(error) = runs.agent.show_task_status(task).await
            {
                tracing::debug!(task = %task.id, %error, "a task's status could not be shown with its call");
            }
        })
    }
}

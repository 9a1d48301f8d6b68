//! The questions of a server whose task a chat's call is parked on: asked in the chat as a
//! question during a run's call is ([`crate::run::questions`]), though no run holds the turn.
//! The call stays `invoking` with its task while parked, so the question is kept with it,
//! announced, and answered through [`Agent::answer`] as any other. A question ends unanswered
//! when the task is cancelled (its `cancel`) or the call ends otherwise.

use std::sync::Arc;

use switchboard_mcp::Requester;
use switchboard_store::{StoredTask, TaskOrigin};
use tokio_util::sync::CancellationToken;

use crate::agent::Agent;
use crate::run::Sampler;
use crate::run::questions::{Asker, Durable};

impl Agent {
    /// Who answers the questions of chat task `task` by asking in its conversation, until
    /// `cancel`; `None` for a task that is no chat call's. Without a `sampler` (the
    /// conversation's model could not be had) the server's sampling requests are refused,
    /// its other questions still asked.
    pub fn task_requester(
        &self,
        task: &StoredTask,
        sampler: Option<Sampler>,
        cancel: CancellationToken,
    ) -> Option<Requester> {
        if task.origin != TaskOrigin::Chat {
            return None;
        }
        let (Some(conversation_id), Some(message_id), Some(call_id)) =
            (&task.conversation_id, &task.message_id, &task.call_id)
        else {
            return None;
        };
        Some(Arc::new(Asker {
            agent: self.clone(),
            owner: task.owner.clone(),
            conversation_id: conversation_id.clone(),
            message_id: message_id.clone(),
            call_id: call_id.clone(),
            cancel,
            sampler,
            // The server asks again until answered: a question still waiting when the
            // process stops is asked again after the restart, not cancelled.
            durable: Durable::kept_by_the_server(),
        }))
    }
}

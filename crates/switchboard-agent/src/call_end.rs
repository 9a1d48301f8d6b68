//! How a call ends, and a turn with it: the one place a call becomes `done`, `error` or
//! `cancelled` (stored, then announced), used by a run and by whatever ends a call outside
//! one (a task's end, a person cancelling a task, a new message cancelling a parked turn).

use serde_json::{Map, Value};
use switchboard_core::{CallTaskStatus, ErrorCode, OwnerId, ToolCallRecord, ToolCallStatus};
use switchboard_store::{Message, StoreError, Transition};

use crate::agent::{Agent, RunOutcome};
use crate::error::AgentError;
use crate::events::{AgentEvent, StopReason};
use crate::results::error_response;
use crate::turn::{STOP_KEY, tool_rounds};

/// A call's end, as stored with it.
#[derive(Debug, Clone)]
pub(crate) struct CallEnd {
    pub status: ToolCallStatus,
    pub response: Value,
    pub is_error: bool,
    /// For a call made through a tool node: the arguments it ran with (masked).
    pub ran: Option<Map<String, Value>>,
    /// For a call that ran as a task: how its task ended.
    pub task: Option<CallTaskStatus>,
}

impl CallEnd {
    pub fn new(status: ToolCallStatus, response: Value, is_error: bool) -> Self {
        Self {
            status,
            response,
            is_error,
            ran: None,
            task: None,
        }
    }

    /// Cancelled, the model told why.
    pub fn cancelled(why: &str) -> Self {
        Self::new(
            ToolCallStatus::Cancelled,
            error_response(ErrorCode::Cancelled, why),
            true,
        )
    }
}

impl Agent {
    /// Stores `end` as the end of call `call_id` of message `message_id` (unless it ended
    /// already) and announces it. Returns the turn as that write left it (`None` when the
    /// call had ended already: someone else was first).
    pub(crate) async fn end_call(
        &self,
        owner: &OwnerId,
        message_id: &str,
        call_id: &str,
        end: &CallEnd,
    ) -> Result<Option<Message>, AgentError> {
        let result = self
            .store
            .edit_tool_call(owner, message_id, call_id, &|call: &mut ToolCallRecord| {
                if !call.status.can_become(end.status) {
                    return Err(Transition::Finished.into());
                }
                call.status = end.status;
                call.response = Some(end.response.clone());
                call.is_error = Some(end.is_error);
                call.pending_input = None;
                if let Some(ran) = &end.ran {
                    call.resolved_arguments = Some(ran.clone());
                }
                if let (Some(task), Some(status)) = (call.task.as_mut(), end.task) {
                    task.status = status;
                }
                Ok(())
            })
            .await;
        match result {
            Ok((call, turn)) => {
                self.announce_call(owner, &turn.conversation_id, message_id, call);
                Ok(Some(turn))
            }
            Err(StoreError::Transition(_)) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Ends `turn` as cancelled: each of its unfinished calls cancelled (the tasks they run
    /// as cancelled on their servers), the turn marked so that resuming does not reopen it.
    /// The caller holds the conversation's claim, and announces the end once it let go.
    pub(crate) async fn end_turn_cancelled(
        &self,
        owner: &OwnerId,
        turn: Message,
    ) -> Result<RunOutcome, AgentError> {
        for call in turn.tool_calls.iter().filter(|c| !c.status.is_terminal()) {
            let end = CallEnd {
                task: call.task.as_ref().map(|_| CallTaskStatus::Cancelled),
                ..CallEnd::cancelled("the run was cancelled")
            };
            self.end_call(owner, &turn.id, &call.id, &end).await?;
            if let Some(task) = &call.task {
                self.cancel_task(owner, &task.id).await;
            }
        }
        let turn = self.store.message(owner, &turn.id).await?;
        let mut metadata = turn.metadata.clone();
        metadata.insert(STOP_KEY.into(), Value::from("cancelled"));
        metadata.remove(crate::failure::FAILURE_KEY);
        let turn = self
            .store
            .set_message_content(owner, &turn.id, &turn.content, Some(&metadata))
            .await?;
        Ok(outcome_of(&turn, StopReason::Cancelled))
    }

    /// Asks for `owner`'s task `id` to be cancelled on its server; a failure is logged (the
    /// call it ran for has ended already).
    pub(crate) async fn cancel_task(&self, owner: &OwnerId, id: &str) {
        let Some(tasks) = &self.tasks else { return };
        if let Err(error) = tasks.cancel(owner, id).await {
            tracing::warn!(task = %id, %error, "a task could not be cancelled");
        }
    }

    /// Announces how the run of `conversation_id` ended: its answer (`message.completed`),
    /// its parking on tasks (`run.parked`), or its failure (`run.failed`; a cancellation
    /// the caller asked for is not one). Called once the conversation is let go.
    pub fn announce_end(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
        outcome: &Result<RunOutcome, AgentError>,
    ) {
        let conversation_id = conversation_id.to_owned();
        let event = match outcome {
            Ok(done) if done.stop == StopReason::WaitingOnTasks => AgentEvent::RunParked {
                conversation_id,
                message_id: done.message_id.clone(),
            },
            Ok(done) => AgentEvent::MessageCompleted {
                conversation_id,
                message_id: done.message_id.clone(),
                content: done.content.clone(),
                stop: done.stop,
            },
            Err(e) if e.code() != ErrorCode::Cancelled => AgentEvent::RunFailed {
                conversation_id,
                code: e.code(),
                message: e.to_string(),
            },
            Err(_) => return,
        };
        self.events.publish(owner, event);
    }
}

/// The outcome of a run that left `turn` as it is, for `stop`.
pub(crate) fn outcome_of(turn: &Message, stop: StopReason) -> RunOutcome {
    RunOutcome {
        message_id: turn.id.clone(),
        content: turn.content.clone(),
        stop,
        tool_rounds: tool_rounds(turn),
    }
}

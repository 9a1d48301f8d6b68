//! A chat's calls that run as tasks, seen from outside a run: a task's end written to its
//! call (by whichever process ended the task), its progress shown with the call, the tasks a
//! conversation's turn waits on, one such call cancelled by the person, and whether a turn
//! whose task ended owes a step.
//!
//! A turn whose only unfinished calls are tasks *parks*: its run ends without finishing it,
//! freeing the conversation and the person's run slot. The task's end is written to its call
//! here, then the turn goes on in a new run (the application starts it), as after a late
//! approval, and the model gets the result in the same assistant message.

use switchboard_core::{
    CallTaskStatus, ErrorCode, OwnerId, TaskRef, ToolCallRecord, ToolCallStatus,
};
use switchboard_store::{Message, StoreError, StoredTask, Transition};

use crate::agent::{Agent, Claim, RunOutcome};
use crate::call_end::CallEnd;
use crate::error::AgentError;
use crate::results::error_response;
use crate::run::current_turn;
use crate::tasks::TaskOutcome;
use crate::turn::{round_texts, was_cancelled};

/// A task a conversation's turn waits on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingTask {
    pub task: TaskRef,
    /// The assistant message whose call runs as the task.
    pub message_id: String,
    pub call_id: String,
    pub server_name: String,
    pub tool_name: String,
}

impl Agent {
    /// Writes the end of chat task `task` to the call it runs for, announces it and wakes a
    /// run waiting on the call's turn here. Returns the turn as that write left it; `None`
    /// when the task is no chat call's, or its call ended already (cancelled meanwhile).
    pub async fn deliver_task_end(&self, task: &StoredTask) -> Result<Option<Message>, AgentError> {
        let (Some(message_id), Some(call_id)) = (&task.message_id, &task.call_id) else {
            return Ok(None);
        };
        let Some(end) = end_of(task) else {
            return Ok(None);
        };
        let result = self
            .store
            .edit_tool_call(
                &task.owner,
                message_id,
                call_id,
                &|call: &mut ToolCallRecord| {
                    if !call.waits_on_task() || !runs_as(call, &task.id) {
                        return Err(Transition::NotRunning.into());
                    }
                    call.status = end.status;
                    call.response = Some(end.response.clone());
                    call.is_error = Some(end.is_error);
                    if let (Some(kept), Some(status)) = (call.task.as_mut(), end.task) {
                        kept.status = status;
                        kept.status_message =
                            TaskRef::status_message_of(task.status_message.as_deref());
                    }
                    Ok(())
                },
            )
            .await;
        match result {
            Ok((call, turn)) => {
                self.announce_call(&task.owner, &turn.conversation_id, message_id, call);
                self.hub.decided(message_id);
                Ok(Some(turn))
            }
            // The call ended otherwise (cancelled), or its conversation went.
            Err(StoreError::Transition(_) | StoreError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Shows live chat task `task`'s status and status message with the call it runs for.
    pub async fn show_task_status(&self, task: &StoredTask) -> Result<(), AgentError> {
        let (Some(message_id), Some(call_id)) = (&task.message_id, &task.call_id) else {
            return Ok(());
        };
        let status = CallTaskStatus::parse(task.status.as_str()).unwrap_or(CallTaskStatus::Working);
        let message = TaskRef::status_message_of(task.status_message.as_deref());
        let result = self
            .store
            .update_tool_call(
                &task.owner,
                message_id,
                call_id,
                &|call: &mut ToolCallRecord| {
                    if !call.waits_on_task() || !runs_as(call, &task.id) {
                        return Err(Transition::NotRunning.into());
                    }
                    if let Some(kept) = call.task.as_mut() {
                        kept.status = status;
                        kept.status_message = message.clone();
                    }
                    Ok(())
                },
            )
            .await;
        match result {
            Ok(call) => {
                if let Some(conversation_id) = &task.conversation_id {
                    self.announce_call(&task.owner, conversation_id, message_id, call);
                }
                Ok(())
            }
            Err(StoreError::Transition(_) | StoreError::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// The tasks `owner`'s conversation's last turn waits on (none when it waits on none).
    pub async fn pending_tasks(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
    ) -> Result<Vec<PendingTask>, AgentError> {
        let messages = self.store.messages(owner, conversation_id).await?;
        Ok(current_turn(&messages).map(pending_in).unwrap_or_default())
    }

    /// Ends the claimed conversation's last turn, which waits on tasks, as cancelled: its
    /// calls and their tasks cancelled. `None` when it waits on none. The caller announces
    /// the end once it lets the conversation go ([`Agent::announce_end`]).
    pub async fn cancel_waiting_turn(
        &self,
        claim: &Claim,
        owner: &OwnerId,
    ) -> Result<Option<RunOutcome>, AgentError> {
        let messages = self.store.messages(owner, claim.conversation_id()).await?;
        let Some(turn) = current_turn(&messages) else {
            return Ok(None);
        };
        if pending_in(turn).is_empty() {
            return Ok(None);
        }
        Ok(Some(self.end_turn_cancelled(owner, turn.clone()).await?))
    }

    /// Cancels `owner`'s call `call_id` of message `message_id`, which runs as a task: the
    /// call ends cancelled at once (the model hears so when its turn goes on) and the task
    /// is cancelled on its server. A call that runs as no task is refused
    /// ([`AgentError::NoTask`]).
    pub async fn cancel_task_call(
        &self,
        owner: &OwnerId,
        message_id: &str,
        call_id: &str,
    ) -> Result<ToolCallRecord, AgentError> {
        let no_task = || AgentError::NoTask {
            call_id: call_id.to_owned(),
        };
        let why = "the person cancelled the task";
        let updated = self
            .store
            .edit_tool_call(owner, message_id, call_id, &|call: &mut ToolCallRecord| {
                if !call.waits_on_task() {
                    return Err(Transition::NotRunning.into());
                }
                call.status = ToolCallStatus::Cancelled;
                call.response = Some(error_response(ErrorCode::Cancelled, why));
                call.is_error = Some(true);
                if let Some(task) = call.task.as_mut() {
                    task.status = CallTaskStatus::Cancelled;
                }
                Ok(())
            })
            .await
            .map_err(|e| match e {
                StoreError::Transition(_) => no_task(),
                other => AgentError::Store(other),
            })?;
        let (call, turn) = updated;
        self.announce_call(owner, &turn.conversation_id, message_id, call.clone());
        if let Some(task) = &call.task {
            self.cancel_task(owner, &task.id).await;
        }
        self.hub.decided(message_id);
        Ok(call)
    }

    /// Whether `owner`'s turn `message_id` of `conversation_id` needs a run to go on now: it
    /// is the conversation's last turn, not cancelled, and its last round made calls of which
    /// none still runs as a task (they ended: the model has not heard their results yet).
    pub async fn turn_goes_on(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
        message_id: &str,
    ) -> Result<bool, AgentError> {
        let messages = self.store.messages(owner, conversation_id).await?;
        Ok(current_turn(&messages).is_some_and(|turn| owes_a_step(turn, message_id)))
    }
}

/// Whether `turn` is `message_id`, not cancelled, and its last round made calls of which
/// none still runs as a task.
fn owes_a_step(turn: &Message, message_id: &str) -> bool {
    if turn.id != message_id || was_cancelled(turn) {
        return false;
    }
    let Some(last) = round_texts(turn).len().checked_sub(1) else {
        return false;
    };
    let last = u32::try_from(last).unwrap_or(u32::MAX);
    let calls: Vec<_> = turn.tool_calls.iter().filter(|c| c.round == last).collect();
    !calls.is_empty() && !calls.iter().any(|c| c.waits_on_task())
}

/// The tasks `turn`'s calls run as, while they do.
fn pending_in(turn: &Message) -> Vec<PendingTask> {
    turn.tool_calls
        .iter()
        .filter(|c| c.waits_on_task())
        .filter_map(|c| {
            Some(PendingTask {
                task: c.task.clone()?,
                message_id: turn.id.clone(),
                call_id: c.id.clone(),
                server_name: c.server_name.clone(),
                tool_name: c.tool_name.clone(),
            })
        })
        .collect()
}

/// Whether `call` runs as task `id`.
fn runs_as(call: &ToolCallRecord, id: &str) -> bool {
    call.task.as_ref().is_some_and(|task| task.id == id)
}

/// The end of ended task `task` as its call keeps it; `None` while it is live.
fn end_of(task: &StoredTask) -> Option<CallEnd> {
    if task.is_live() {
        return None;
    }
    let status = CallTaskStatus::parse(task.status.as_str()).unwrap_or(CallTaskStatus::Failed);
    let outcome = task.outcome.as_ref().and_then(TaskOutcome::from_value);
    let mut end = match outcome {
        Some(TaskOutcome::Result(result)) => {
            let is_error = result.is_error == Some(true);
            match serde_json::to_value(&result) {
                Ok(response) if is_error => CallEnd::new(ToolCallStatus::Error, response, true),
                Ok(response) => CallEnd::new(ToolCallStatus::Done, response, false),
                Err(e) => CallEnd::new(
                    ToolCallStatus::Error,
                    error_response(ErrorCode::McpParseError, &format!("unreadable result: {e}")),
                    true,
                ),
            }
        }
        Some(TaskOutcome::Error {
            code: ErrorCode::Cancelled,
            message,
        }) => CallEnd::cancelled(&message),
        Some(TaskOutcome::Error { code, message }) => {
            CallEnd::new(ToolCallStatus::Error, error_response(code, &message), true)
        }
        None if status == CallTaskStatus::Cancelled => CallEnd::cancelled("cancelled"),
        None => CallEnd::new(
            ToolCallStatus::Error,
            error_response(
                ErrorCode::InternalError,
                "the task ended, but how it ended cannot be read",
            ),
            true,
        ),
    };
    end.task = Some(status);
    Some(end)
}

#[cfg(test)]
mod tests {
    use rmcp::model::{CallToolResult, ContentBlock};
    use switchboard_core::ServerId;
    use switchboard_store::{TaskKind, TaskOrigin, TaskStatus, Timestamp};

    use super::*;

    fn task(status: TaskStatus, outcome: Option<TaskOutcome>) -> StoredTask {
        StoredTask {
            id: "tsk_1".into(),
            owner: OwnerId("u".into()),
            server_id: ServerId("s".into()),
            tool: "t".into(),
            origin: TaskOrigin::Chat,
            kind: TaskKind::Legacy,
            conversation_id: Some("c".into()),
            message_id: Some("m".into()),
            call_id: Some("call".into()),
            view_id: None,
            upstream_id: Some("up".into()),
            status,
            status_message: Some("almost".into()),
            poll_interval_ms: None,
            ttl_ms: None,
            outcome: outcome.map(|o| o.to_value()),
            cancel_requested: false,
            holder: None,
            lease_until: None,
            next_poll_at: Timestamp(0),
            failures: 0,
            created_at: Timestamp(0),
            updated_at: Timestamp(0),
            finished_at: None,
        }
    }

    #[test]
    fn a_tasks_end_is_its_calls_end() {
        assert!(end_of(&task(TaskStatus::Working, None)).is_none());
        let done = end_of(&task(
            TaskStatus::Completed,
            Some(TaskOutcome::Result(CallToolResult::success(vec![
                ContentBlock::text("report"),
            ]))),
        ))
        .unwrap();
        assert_eq!(done.status, ToolCallStatus::Done);
        assert_eq!(done.response["content"][0]["text"], "report");
        assert_eq!(done.task, Some(CallTaskStatus::Completed));
        let tool_error = end_of(&task(
            TaskStatus::Completed,
            Some(TaskOutcome::Result(CallToolResult::error(vec![
                ContentBlock::text("broke"),
            ]))),
        ))
        .unwrap();
        assert_eq!(tool_error.status, ToolCallStatus::Error);
        assert!(tool_error.is_error);
        let lost = end_of(&task(
            TaskStatus::Failed,
            Some(TaskOutcome::error(ErrorCode::TaskLost, "forgotten")),
        ))
        .unwrap();
        assert_eq!(lost.status, ToolCallStatus::Error);
        assert_eq!(lost.response["error"]["code"], "TASK_LOST");
        assert_eq!(lost.task, Some(CallTaskStatus::Failed));
        let cancelled = end_of(&task(
            TaskStatus::Cancelled,
            Some(TaskOutcome::error(ErrorCode::Cancelled, "cancelled")),
        ))
        .unwrap();
        assert_eq!(cancelled.status, ToolCallStatus::Cancelled);
        assert_eq!(cancelled.task, Some(CallTaskStatus::Cancelled));
    }
}

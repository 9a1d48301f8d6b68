//! A run's calls that its servers run as tasks: the task kept and left to run (the call stays
//! `invoking` with it, and the turn parks on it), and, when the run finds such a call again,
//! whether its task still runs.

use serde_json::{Map, Value};
use switchboard_core::{
    CallTaskStatus, ErrorCode, ServerSpec, TaskRef, ToolCallRecord, ToolCallStatus,
};
use switchboard_mcp::{TaskState, TaskStep};
use switchboard_store::{Message, StoreError, TaskOrigin, Transition};

use super::Run;
use crate::error::AgentError;
use crate::results::error_response;
use crate::tasks::TaskLink;

/// Where a call running as a task stands.
pub(super) enum TaskCall {
    /// Its task still runs: the turn waits for it.
    Live,
    /// Its task ended and the end is now the call's (with the turn as that write left it,
    /// `None` when someone else wrote it first).
    Ended(Option<Message>),
}

impl Run<'_> {
    /// Keeps the task `state` that the server answered `call` with, to be followed from now
    /// on, and leaves the call `invoking` with it. Past the person's task quota, or when the
    /// task cannot be kept, the server's task is cancelled and the call fails.
    pub(super) async fn keep_task(
        &self,
        message_id: &str,
        call: &ToolCallRecord,
        spec: &ServerSpec,
        state: &TaskState,
        ran: Option<Map<String, Value>>,
    ) -> Result<Option<Message>, AgentError> {
        let fail = |code: ErrorCode, message: String| {
            self.set_outcome_ran(
                message_id,
                &call.id,
                ToolCallStatus::Error,
                error_response(code, &message),
                true,
                ran.clone(),
            )
        };
        let Some(tasks) = &self.agent.tasks else {
            return fail(
                ErrorCode::InternalError,
                "the call became a task, but tasks are not followed here".into(),
            )
            .await;
        };
        let link = TaskLink {
            conversation_id: Some(self.conversation_id.to_owned()),
            message_id: Some(message_id.to_owned()),
            call_id: Some(call.id.clone()),
            view_id: None,
        };
        let adopted = tasks
            .adopt(
                self.owner,
                spec,
                &call.tool_name,
                state,
                TaskOrigin::Chat,
                link,
            )
            .await;
        let kept = match adopted {
            Ok(kept) => kept,
            Err(error) => {
                // Nobody would follow the server's task: it is cancelled rather than left
                // running unseen.
                let step = TaskStep {
                    tool: &call.tool_name,
                    upstream_id: &state.upstream_id,
                };
                let backend = self.agent.tool_calls.backend();
                if let Err(cancel) = backend.cancel_task(self.owner, spec, step).await {
                    tracing::debug!(%cancel, "the server did not cancel a task that was not kept");
                }
                return fail(error.code(), error.to_string()).await;
            }
        };
        let task = TaskRef {
            id: kept.id.clone(),
            status: CallTaskStatus::parse(kept.status.as_str()).unwrap_or(CallTaskStatus::Working),
            status_message: TaskRef::status_message_of(kept.status_message.as_deref()),
            created_at: kept.created_at.0,
        };
        let result = self
            .agent
            .store
            .edit_tool_call(
                self.owner,
                message_id,
                &call.id,
                &|c: &mut ToolCallRecord| {
                    if c.status != ToolCallStatus::Invoking {
                        return Err(Transition::NotRunning.into());
                    }
                    c.task = Some(task.clone());
                    if let Some(ran) = &ran {
                        c.resolved_arguments = Some(ran.clone());
                    }
                    Ok(())
                },
            )
            .await;
        match result {
            Ok((call, turn)) => {
                self.announce_call(message_id, call);
                Ok(Some(turn))
            }
            // The call ended meanwhile (its run was cancelled): its task goes too.
            Err(StoreError::Transition(_)) => {
                self.agent.cancel_task(self.owner, &kept.id).await;
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Whether `call`'s task still runs. One that ended without its end reaching the call
    /// (the process that ended it stopped first) has its end written now; one that is no
    /// longer kept at all fails the call.
    pub(super) async fn task_of(
        &self,
        message_id: &str,
        call: &ToolCallRecord,
    ) -> Result<TaskCall, AgentError> {
        let Some(kept) = &call.task else {
            return Ok(TaskCall::Live);
        };
        match self.agent.store.task(self.owner, &kept.id).await {
            Ok(task) if task.is_live() => Ok(TaskCall::Live),
            Ok(task) => Ok(TaskCall::Ended(self.agent.deliver_task_end(&task).await?)),
            Err(StoreError::NotFound { .. }) => {
                let turn = self
                    .set_outcome(
                        message_id,
                        &call.id,
                        ToolCallStatus::Error,
                        error_response(
                            ErrorCode::TaskLost,
                            "the task the call ran as is no longer kept",
                        ),
                        true,
                    )
                    .await?;
                Ok(TaskCall::Ended(turn))
            }
            Err(e) => Err(e.into()),
        }
    }
}

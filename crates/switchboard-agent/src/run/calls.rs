//! Settling one round's calls: rejections answered, approved calls run (concurrently), and a
//! wait for the decisions still missing.

use std::borrow::Cow;
use std::sync::Arc;

use switchboard_core::{ErrorCode, ToolCallRecord, ToolCallStatus};
use switchboard_mcp::Started;
use switchboard_store::{Message, StoreError, Transition};

use super::Run;

const DECISION_POLL: std::time::Duration = std::time::Duration::from_secs(2);
use crate::error::AgentError;
use crate::results::error_response;
use crate::tool_call::{CallerKind, ToolCallRequest};
use crate::turn::calls_of;

/// How settling a round ended.
pub(super) enum Settled {
    /// The run was cancelled while waiting.
    Cancelled,
    /// Every call still going runs as a task, and no decision waits: the turn goes on when a
    /// task ends, without this run.
    Parked,
    /// Every call of the round finished; with the turn as the run's last write left it, when
    /// that write is known to hold every change (one write, made without waiting).
    Done(Option<Message>),
}

impl Run<'_> {
    pub(super) async fn settle_calls(
        &self,
        turn: &Message,
        round: u32,
    ) -> Result<Settled, AgentError> {
        let notifier = self.agent.hub.notifier(&turn.id);
        // A round whose calls were all decided when recorded (by the approval rules) or
        // since is settled from the turn in hand: a decision, once made, does not change, and
        // each call is claimed from the store before it runs. A round that waits on a person
        // is read again, and again after each wake.
        let mut in_hand = calls_of(turn, round)
            .iter()
            .all(|c| c.pending_input.is_none() && !undecided(c))
            .then_some(turn);
        // The writes made (a rejection, or a call run: its own writes come one after the
        // other), the turn the last one returned, and whether the loop went round again.
        let mut writes = 0_usize;
        let mut last = None;
        let mut again = false;
        let done = |writes: usize, last: Option<Message>, again: bool| {
            Settled::Done(last.filter(|_| writes == 1 && !again))
        };
        loop {
            // Registered before reading, so a decision stored after the read still wakes us.
            let notified = notifier.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();

            let current = match in_hand.take() {
                Some(turn) => Cow::Borrowed(turn),
                None => Cow::Owned(self.agent.store.message(self.owner, &turn.id).await?),
            };
            let mut runnable = Vec::new();
            let mut resumable = Vec::new();
            let mut waiting = false;
            let mut parked = false;
            for call in calls_of(&current, round) {
                // A call running as a task: its end is written by whoever follows the task
                // (or here, for one that ended unseen).
                if call.waits_on_task() {
                    match self.task_of(&turn.id, call).await? {
                        super::tasks::TaskCall::Live => parked = true,
                        super::tasks::TaskCall::Ended(turn) => {
                            writes += 1;
                            last = turn;
                        }
                    }
                    continue;
                }
                // A call a server answered input-required before a restart: sent again once
                // the person answered what it asks (the answer route starts this run).
                if call.status == ToolCallStatus::Invoking && call.pending_input.is_some() {
                    if super::resume::waits_for_the_person(call) {
                        waiting = true;
                    } else {
                        resumable.push(call.clone());
                    }
                    continue;
                }
                if call.status != ToolCallStatus::Pending {
                    continue;
                }
                match call.approved {
                    Some(true) => runnable.push(call.clone()),
                    Some(false) => {
                        writes += 1;
                        last = self
                            .set_outcome(
                                &turn.id,
                                &call.id,
                                ToolCallStatus::Cancelled,
                                error_response(
                                    ErrorCode::Rejected,
                                    "the user rejected this tool call",
                                ),
                                true,
                            )
                            .await?;
                    }
                    None => waiting = true,
                }
            }
            if !runnable.is_empty() || !resumable.is_empty() {
                let runs = runnable
                    .iter()
                    .map(|call| self.execute(&turn.id, call, None))
                    .chain(resumable.iter().map(|call| {
                        self.execute(&turn.id, call, Some(super::resume::answers(call)))
                    }));
                for result in futures::future::join_all(runs).await {
                    writes += 1;
                    last = result?;
                }
                if !waiting {
                    return Ok(done(writes, last, again));
                }
                again = true;
                continue;
            }
            if !waiting && parked {
                return Ok(Settled::Parked);
            }
            if !waiting {
                return Ok(done(writes, last, again));
            }
            again = true;
            tokio::select! {
                () = &mut notified => {}
                // A decision stored by another process wakes nobody here; look again now and
                // then. (Replicas get LISTEN/NOTIFY with the HTTP server.)
                () = tokio::time::sleep(DECISION_POLL) => {}
                () = self.cancel.cancelled() => return Ok(Settled::Cancelled),
                // The process is stopping: the decisions still missing stay in the store and
                // the run goes on when one is given after the restart.
                () = self.agent.stopping.cancelled() => return Err(AgentError::Stopping),
            }
        }
    }

    /// Runs one approved call: `invoking`, then `done` or `error` with its result. With
    /// `resume`, a call already `invoking` that a server answered input-required before a
    /// restart is sent again with the person's answers. Returns the turn as its last write
    /// left it (`None` when the call was not this run's to make).
    async fn execute(
        &self,
        message_id: &str,
        call: &ToolCallRecord,
        resume: Option<switchboard_mcp::InputResume>,
    ) -> Result<Option<Message>, AgentError> {
        let resuming = resume.is_some();
        let claimed = self
            .agent
            .store
            .update_tool_call(
                self.owner,
                message_id,
                &call.id,
                &|c: &mut ToolCallRecord| {
                    if resuming {
                        return if c.status == ToolCallStatus::Invoking && c.pending_input.is_some()
                        {
                            Ok(())
                        } else {
                            Err(Transition::NotResumable.into())
                        };
                    }
                    if c.status != ToolCallStatus::Pending || c.approved != Some(true) {
                        return Err(Transition::NotRunnable.into());
                    }
                    c.status = ToolCallStatus::Invoking;
                    Ok(())
                },
            )
            .await;
        let claimed = match claimed {
            Ok(claimed) => claimed,
            Err(StoreError::Transition(_)) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        self.announce_call(message_id, claimed);

        let Some(tool) = self.offered(call) else {
            return self
                .set_outcome(
                    message_id,
                    &call.id,
                    ToolCallStatus::Error,
                    error_response(
                        ErrorCode::McpToolNotFound,
                        "the tool is no longer available",
                    ),
                    true,
                )
                .await;
        };
        // A tool offered through a node runs under it: its selection, mappings (filled from
        // the run's variables, read now), retry policy and timeout. Variables that cannot be
        // read fail this one call, as any other failure of it would, not the whole run.
        let variables = match &tool.node {
            Some(node) => match self.variables(node).await {
                Ok(variables) => Some(variables),
                Err(e) => {
                    return self
                        .set_outcome(
                            message_id,
                            &call.id,
                            ToolCallStatus::Error,
                            error_response(e.code(), &e.to_string()),
                            true,
                        )
                        .await;
                }
            },
            None => None,
        };
        // What the call runs with under its node, for the record: what was sent, once the
        // server answered; else the mappings as they resolve from the same variables.
        let resolved = match (&tool.node, &variables) {
            (Some(node), Some(variables)) => {
                node.node.selected(&call.tool_name).and_then(|selected| {
                    super::resolved::resolved(tool, selected, &call.arguments, variables)
                })
            }
            _ => None,
        };
        let cancel = self.cancel.child_token();
        // The server's questions during the call are asked in the chat.
        let asker = super::questions::Asker {
            agent: self.agent.clone(),
            owner: self.owner.clone(),
            conversation_id: self.conversation_id.to_owned(),
            message_id: message_id.to_owned(),
            call_id: call.id.clone(),
            cancel: cancel.clone(),
            sampler: Some(super::sampling::Sampler {
                provider: Arc::clone(&self.spec.provider),
                model: self.spec.model.clone(),
                policy: tool.server.sampling.unwrap_or_default(),
            }),
            durable: Default::default(),
        };
        let asker = Arc::new(asker);
        let request = ToolCallRequest {
            cancel,
            node: tool.node.clone(),
            variables,
            requests: Some(Arc::clone(&asker) as switchboard_mcp::Requester),
            resume,
            ..ToolCallRequest::new(
                self.owner.clone(),
                CallerKind::Agent,
                Arc::clone(&tool.server),
                call.tool_name.clone(),
                call.arguments.clone(),
            )
        };
        let through_node = tool.node.is_some();
        let sent =
            |arguments| through_node.then(|| super::resolved::masked(&tool.server, arguments));
        // Where tasks are followed, a call its server runs as a task is left to run: the
        // turn waits for it without this run. Elsewhere the call is followed to its end here.
        let started = match self.agent.following_tasks() {
            Some(_) => self
                .agent
                .tool_calls
                .start(request)
                .await
                .map(|started| (started.started, started.arguments)),
            None => self
                .agent
                .tool_calls
                .call(request)
                .await
                .map(|outcome| (Started::Done(outcome.result), outcome.arguments)),
        };
        if asker.left_for_restart() {
            // The process is stopping while the server's question waits: the call stays
            // `invoking` with what the server asked, and goes on when the person answers
            // after the restart.
            return Err(AgentError::Stopping);
        }
        let (result, ran) = match started {
            Ok((Started::Task(state), arguments)) => {
                let ran = sent(arguments).or(resolved);
                return self
                    .keep_task(message_id, call, &tool.server, &state, ran)
                    .await;
            }
            Ok((Started::Done(result), arguments)) => (Ok(result), sent(arguments).or(resolved)),
            Err(error) => (Err(error), resolved),
        };
        let (status, response, is_error) = match result {
            Ok(result) => {
                let is_error = result.is_error == Some(true);
                let response = serde_json::to_value(&result).unwrap_or_else(|e| {
                    error_response(ErrorCode::McpParseError, &format!("unreadable result: {e}"))
                });
                let status = if is_error {
                    ToolCallStatus::Error
                } else {
                    ToolCallStatus::Done
                };
                (status, response, is_error)
            }
            Err(_) if self.cancel.is_cancelled() => (
                ToolCallStatus::Cancelled,
                error_response(ErrorCode::Cancelled, "the run was cancelled"),
                true,
            ),
            Err(e) => (
                ToolCallStatus::Error,
                error_response(e.code(), &e.to_string()),
                true,
            ),
        };
        self.set_outcome_ran(message_id, &call.id, status, response, is_error, ran)
            .await
    }
}

/// Whether the call waits for a person's approval.
fn undecided(call: &ToolCallRecord) -> bool {
    call.status == ToolCallStatus::Pending && call.approved.is_none()
}

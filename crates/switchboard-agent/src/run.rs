//! One run: the loop of model rounds and tool calls for the conversation's last turn.
//!
//! The loop reads its state from the store on every step (the turn's rounds and the status of
//! each call), so the same code starts a fresh turn, continues after an approval and resumes
//! after a restart.

mod calls;
mod model;
pub(crate) mod questions;
mod resolved;
mod resume;
mod sampling;
mod tasks;
mod variables;

pub use sampling::Sampler;

use switchboard_core::{ErrorCode, OwnerId, ToolCallRecord, ToolCallStatus};
use switchboard_llm::ToolDefinition;
use switchboard_store::{Message, MessageRole, StoreError};
use tokio_util::sync::CancellationToken;

use crate::agent::{Agent, RunOutcome, RunSpec};
use crate::call_end::{CallEnd, outcome_of};
use crate::error::AgentError;
use crate::events::StopReason;
use crate::mode::{Mode, OwnTools};
use crate::offer::Offer;
use crate::results::error_response;
use crate::turn::{calls_of, finished_rounds, round_texts, tool_rounds, was_cancelled};
use calls::Settled;

pub(crate) struct Run<'a> {
    agent: &'a Agent,
    owner: &'a OwnerId,
    conversation_id: &'a str,
    spec: &'a RunSpec,
    cancel: CancellationToken,
    offer: Offer,
    mode: Mode,
    tools: Vec<ToolDefinition>,
    system: Option<String>,
    /// Whether the model is shown only its pinned and found tools and `search_tools`
    /// ([`crate::exposure`]); `tools` and `system` are then made per round.
    deferred: bool,
}

enum Step {
    /// Ask the model (again) with this history; the turn is `None` when it has no assistant
    /// message yet.
    CallModel(Vec<Message>, Option<Box<Message>>, u32),
    /// Settle the calls of this round (approvals, running); the conversation is carried for
    /// the step after.
    SettleCalls(Vec<Message>, Box<Message>, u32),
    Finished(Box<Message>, StopReason),
}

impl<'a> Run<'a> {
    pub(crate) async fn prepare(
        agent: &'a Agent,
        owner: &'a OwnerId,
        conversation_id: &'a str,
        spec: &'a RunSpec,
        cancel: CancellationToken,
    ) -> Run<'a> {
        let offer = Offer::gather(agent.backend.as_ref(), owner, &spec.servers, &spec.nodes).await;
        for server in &offer.unavailable {
            tracing::warn!(server = %server.server, reason = %server.reason, "tools unavailable for this run");
        }
        let mode = Mode {
            kind: spec.tool_mode,
            wire: spec.provider.wire_format(),
        };
        let (tools, left_out) = mode.definitions(&offer);
        if let Some(observer) = &agent.observer
            && mode.converts_schemas()
        {
            observer.schemas_converted(tools.len() + left_out.len());
        }
        for left in left_out {
            tracing::warn!(server = %left.server, tool = %left.tool, reason = %left.reason, "tool left out: its schema cannot be offered to the model");
            if let Some(observer) = &agent.observer {
                observer.tool_left_out(&left.server, &left.tool);
            }
        }
        let system = mode.system_prompt(&spec.system_prompt, &offer);
        let deferred = crate::exposure::defers(
            &spec.exposure,
            agent.config.defer,
            &offer,
            &tools,
            system.as_deref().unwrap_or_default(),
        );
        Run {
            agent,
            owner,
            conversation_id,
            spec,
            cancel,
            offer,
            mode,
            tools,
            system,
            deferred,
        }
    }

    /// The function definitions and system prompt of a model request over `history`: the
    /// run's own, or with deferred tools those the conversation has loaded so far, and
    /// `read_result` once a result was too large to be given whole.
    fn offered_now(&self, history: &[Message]) -> (Vec<ToolDefinition>, Option<String>) {
        let own = OwnTools {
            search: self.deferred,
            read_result: crate::history::any_over(history, self.agent.config.result_budget_chars()),
        };
        if own == OwnTools::default() {
            return (self.tools.clone(), self.system.clone());
        }
        let shown = if self.deferred {
            let loaded = crate::mode::search::loaded(history, &self.offer);
            crate::exposure::shown(&self.offer, &self.spec.exposure, &loaded)
        } else {
            self.offer.clone()
        };
        let (tools, system, _left_out) = self.mode.offered(&shown, &self.spec.system_prompt, own);
        (tools, system)
    }

    pub(crate) async fn drive(self) -> Result<RunOutcome, AgentError> {
        let outcome = self.steps().await;
        if let Ok(outcome) = &outcome {
            self.agent.hub.done(&outcome.message_id);
        }
        outcome
    }

    async fn steps(&self) -> Result<RunOutcome, AgentError> {
        let mut first = true;
        // The conversation as the run's own last write left it, when that write returned the
        // whole turn: the next step starts from it instead of reading the store again.
        // Nothing else changes a conversation while its run holds the claim except decisions
        // and answers on its calls, and `settle_calls` reads those from the store.
        let mut known: Option<Vec<Message>> = None;
        loop {
            if self.cancel.is_cancelled() {
                let messages = self.messages().await?;
                return match current_turn(&messages) {
                    Some(turn) => self.cancel_turn(turn.clone()).await,
                    None => Err(AgentError::Llm(switchboard_llm::LlmError::Cancelled)),
                };
            }
            match self
                .next_step(std::mem::take(&mut first), known.take())
                .await?
            {
                Step::CallModel(history, turn, round) => {
                    let turn = self.model_round(&history, turn.map(|m| *m), round).await?;
                    known = turn.map(|turn| with_turn(history, turn));
                }
                Step::SettleCalls(history, turn, round) => {
                    match self.settle_calls(&turn, round).await? {
                        Settled::Cancelled => return self.cancel_turn(*turn).await,
                        Settled::Parked => {
                            return Ok(self.finish(&turn, StopReason::WaitingOnTasks));
                        }
                        Settled::Done(turn) => known = turn.map(|turn| with_turn(history, turn)),
                    }
                }
                Step::Finished(turn, stop) => {
                    let turn = self.show_results(*turn).await?;
                    return Ok(self.finish(&turn, stop));
                }
            }
        }
    }

    async fn messages(&self) -> Result<Vec<Message>, StoreError> {
        self.agent
            .store
            .messages(self.owner, self.conversation_id)
            .await
    }

    /// What to do next, from the stored turn (or the `known` conversation the run's last write
    /// returned). On the `first` step of a run, calls left `invoking` by a stopped process are
    /// failed first.
    async fn next_step(
        &self,
        first: bool,
        known: Option<Vec<Message>>,
    ) -> Result<Step, AgentError> {
        let mut messages = match known {
            Some(messages) => messages,
            None => self.messages().await?,
        };
        if first && self.fail_interrupted_calls(&messages).await? {
            messages = self.messages().await?;
        }
        let Some(turn) = current_turn(&messages) else {
            if messages.iter().any(|m| m.role == MessageRole::User) {
                return Ok(Step::CallModel(messages, None, 0));
            }
            return Err(AgentError::NoUserMessage);
        };
        if was_cancelled(turn) {
            return Ok(Step::Finished(
                Box::new(turn.clone()),
                StopReason::Cancelled,
            ));
        }
        let finished = finished_rounds(turn);
        if finished < round_texts(turn).len() {
            // The last round was cut off: ask it again.
            let round = u32::try_from(finished).unwrap_or(u32::MAX);
            return Ok(Step::CallModel(
                messages.clone(),
                Some(Box::new(turn.clone())),
                round,
            ));
        }
        let rounds = round_texts(turn);
        let Some(last) = rounds.len().checked_sub(1) else {
            let turn = Box::new(turn.clone());
            return Ok(Step::CallModel(messages, Some(turn), 0));
        };
        let last = u32::try_from(last).unwrap_or(u32::MAX);
        let calls = calls_of(turn, last);
        if calls.is_empty() {
            return Ok(Step::Finished(Box::new(turn.clone()), StopReason::Answered));
        }
        if calls.iter().any(|c| !c.status.is_terminal()) {
            let turn = Box::new(turn.clone());
            return Ok(Step::SettleCalls(messages, turn, last));
        }
        if tool_rounds(turn) >= self.spec.max_rounds.min(self.agent.config.max_rounds) {
            return Ok(Step::Finished(
                Box::new(turn.clone()),
                StopReason::MaxRounds,
            ));
        }
        let turn = Box::new(turn.clone());
        Ok(Step::CallModel(messages, Some(turn), last + 1))
    }

    /// A call that was running when the process stopped cannot be known to have finished: it
    /// is an error now (DESIGN.md), and the model hears so. Returns whether any was.
    async fn fail_interrupted_calls(&self, messages: &[Message]) -> Result<bool, AgentError> {
        let Some(turn) = current_turn(messages) else {
            return Ok(false);
        };
        let mut any = false;
        // A call waiting on a 2026-07-28 server's input-required answer is not lost: it is
        // sent again with the person's answers (`calls.rs`).
        // A call running as a task is not lost either: its task is followed by whichever
        // process holds it, and its end reaches the call.
        for call in turn.tool_calls.iter().filter(|c| {
            c.status == ToolCallStatus::Invoking && c.pending_input.is_none() && c.task.is_none()
        }) {
            self.set_outcome(
                &turn.id,
                &call.id,
                ToolCallStatus::Error,
                error_response(
                    ErrorCode::McpExecutionError,
                    "the call was interrupted (Switchboard stopped while it ran); it may or may \
                     not have taken effect",
                ),
                true,
            )
            .await?;
            any = true;
        }
        Ok(any)
    }

    /// Marks every unfinished call of the turn cancelled (and the tasks they run as) and ends
    /// the turn.
    async fn cancel_turn(&self, turn: Message) -> Result<RunOutcome, AgentError> {
        self.agent.end_turn_cancelled(self.owner, turn).await
    }

    /// Stores a finished call's outcome (unless it already finished) and announces it.
    /// Returns the turn as that write left it (`None` when the call had finished already).
    async fn set_outcome(
        &self,
        message_id: &str,
        call_id: &str,
        status: ToolCallStatus,
        response: serde_json::Value,
        is_error: bool,
    ) -> Result<Option<Message>, AgentError> {
        self.set_outcome_ran(message_id, call_id, status, response, is_error, None)
            .await
    }

    /// [`Run::set_outcome`] of a call made through a tool node, with the arguments it `ran`
    /// with (its mappings filled in, masked).
    async fn set_outcome_ran(
        &self,
        message_id: &str,
        call_id: &str,
        status: ToolCallStatus,
        response: serde_json::Value,
        is_error: bool,
        ran: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> Result<Option<Message>, AgentError> {
        let end = CallEnd {
            ran,
            ..CallEnd::new(status, response, is_error)
        };
        self.agent
            .end_call(self.owner, message_id, call_id, &end)
            .await
    }

    fn announce_call(&self, message_id: &str, call: ToolCallRecord) {
        self.agent
            .announce_call(self.owner, self.conversation_id, message_id, call);
    }

    /// The turn with its content showing the last round's results in place of their
    /// prompt-mode blocks (a turn stopped by its round limit has no later text that would).
    async fn show_results(&self, turn: Message) -> Result<Message, AgentError> {
        let content = crate::turn::display_content(&turn);
        if content == turn.content {
            return Ok(turn);
        }
        Ok(self
            .agent
            .store
            .set_message_content(self.owner, &turn.id, &content, None)
            .await?)
    }

    /// The run's outcome. Its end is announced by [`crate::Agent::run`] once the
    /// conversation is released, not here: a client that sends its next message on that event
    /// must find the conversation free.
    fn finish(&self, turn: &Message, stop: StopReason) -> RunOutcome {
        outcome_of(turn, stop)
    }
}

/// `history` with `turn` in place of its stored version, or after it when it is new.
fn with_turn(mut history: Vec<Message>, turn: Message) -> Vec<Message> {
    match history.iter_mut().find(|m| m.id == turn.id) {
        Some(stored) => *stored = turn,
        None => history.push(turn),
    }
    history
}

/// The assistant message answering the last user message, if the model has begun it.
pub(crate) fn current_turn(messages: &[Message]) -> Option<&Message> {
    let last_user = messages.iter().rposition(|m| m.role == MessageRole::User)?;
    messages[last_user + 1..]
        .iter()
        .find(|m| m.role == MessageRole::Assistant)
}

//! The [`Agent`]: what the HTTP layer and the terminal chat call.

use std::sync::Arc;

use serde_json::Value;
use switchboard_core::{
    OwnerId, QuestionAction, QuestionAnswer, QuestionMode, SamplingStage, SamplingText,
    ServerQuestion, ServerSpec, ToolCallRecord, ToolCallStatus, VariableDecl,
};
use switchboard_llm::Provider;
use switchboard_mcp::ToolBackend;
use switchboard_store::{
    Message, MessageRole, NewMessage, Store, StoreError, StoredToolNode, ToolMode, Transition,
};
use tokio_util::sync::CancellationToken;

use crate::decisions::DecisionHub;
use crate::error::AgentError;
use crate::events::{AgentEvent, EventBus, StopReason};
use crate::run::Run;
use crate::tool_call::ToolCalls;

/// What to do with calls of tools that are not on their server's auto-approve list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ApprovalPolicy {
    /// Wait for a person's decision ([`Agent::decide`]).
    #[default]
    Ask,
    /// Approve every call.
    ApproveAll,
    /// Reject every call that is not auto-approved.
    RejectUnapproved,
}

/// Everything one run needs besides the conversation: the model, the tools and the rules.
#[derive(Debug, Clone)]
pub struct RunSpec {
    pub provider: Arc<dyn Provider>,
    pub model: String,
    pub system_prompt: String,
    pub tool_mode: ToolMode,
    pub max_rounds: u32,
    /// The servers the assistant may use, secrets in clear.
    pub servers: Vec<ServerSpec>,
    /// The assistant's tool nodes on those servers: a server with a node offers only the
    /// tools its nodes select, their mapped parameters filled from the run's variables.
    pub nodes: Vec<Arc<StoredToolNode>>,
    /// The variables the assistant declares, whose defaults a node's mappings may use (under
    /// the built-ins and the conversation's variables).
    pub variables: Vec<VariableDecl>,
    pub approval: ApprovalPolicy,
    pub max_tokens: Option<u32>,
    /// The sampling temperature asked for; `None` leaves it to the provider.
    pub temperature: Option<f32>,
    /// Which tools the model is shown in full ([`crate::exposure`]).
    pub exposure: crate::exposure::Exposure,
}

/// Tunables of the agent.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// No run makes more rounds of tool calls than this, whatever its spec says (an
    /// assistant's own `max_rounds` applies under it).
    pub max_rounds: u32,
    /// Text of one tool result the model sees, at most (characters).
    pub max_result_chars: usize,
    /// Streamed text is stored and announced in pieces of at least this many characters (or
    /// when `flush_interval` has passed), not per token.
    pub flush_chars: usize,
    pub flush_interval: std::time::Duration,
    /// Who this process is when it leases a conversation's run from the store, so that one
    /// process at a time runs a turn (`host:pid` by default).
    pub replica: String,
    /// Where an assistant whose exposure is `auto` starts deferring its tools.
    pub defer: crate::exposure::DeferBudget,
    /// A tool result whose text is over this many tokens (estimated, four characters each)
    /// reaches the model as a preview it reads on with `read_result`.
    pub result_budget_tokens: usize,
}

impl AgentConfig {
    /// [`AgentConfig::result_budget_tokens`] in characters.
    pub(crate) fn result_budget_chars(&self) -> usize {
        self.result_budget_tokens.saturating_mul(4)
    }
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            max_rounds: 1000,
            max_result_chars: 100_000,
            flush_chars: 200,
            flush_interval: std::time::Duration::from_millis(100),
            replica: crate::lease::replica_name(),
            defer: crate::exposure::DeferBudget::default(),
            result_budget_tokens: 8_000,
        }
    }
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub message_id: String,
    pub content: String,
    pub stop: StopReason,
    /// Rounds that asked for tools.
    pub tool_rounds: u32,
}

/// A conversation claimed for one run in this process; the claim ends when this is dropped.
#[derive(Debug)]
pub struct Claim {
    conversation_id: String,
    lease: crate::lease::Lease,
    _guard: crate::running::RunGuard,
}

impl Claim {
    pub fn conversation_id(&self) -> &str {
        &self.conversation_id
    }

    /// Ends the claim without a run, giving its lease up before returning.
    pub async fn release(self) {
        self.lease.release().await;
    }
}

/// Runs conversations. Cheap to share (`Arc`).
#[derive(Clone)]
pub struct Agent {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) backend: Arc<dyn ToolBackend>,
    /// Every approved call goes through the tool-call service (checks, retries, audit).
    pub(crate) tool_calls: Arc<ToolCalls>,
    pub(crate) events: EventBus,
    pub(crate) hub: Arc<DecisionHub>,
    pub(crate) running: Arc<crate::running::Running>,
    pub(crate) config: AgentConfig,
    /// Set when the process stops: runs waiting for decisions return at once.
    pub(crate) stopping: CancellationToken,
    pub(crate) observer: Option<Arc<dyn AgentObserver>>,
    /// Where a call its server runs as a task is kept and followed, so that the turn waits
    /// for it without holding a run ([`Agent::with_tasks`]); without, the run waits.
    pub(crate) tasks: Option<crate::tasks::Tasks>,
    /// The tool search a deferred run's `search_tools` asks (shared with the API's search
    /// through [`Agent::with_search`]).
    pub(crate) search: Arc<crate::search::ToolSearch>,
}

/// Told of what is worth counting (the HTTP server's metrics).
pub trait AgentObserver: Send + Sync {
    /// `count` tool schemas are being converted for a run's model request (the attempts that
    /// `tool_left_out` counts the failures of, for a failure rate).
    fn schemas_converted(&self, count: usize) {
        let _ = count;
    }

    /// A tool of `server` was not offered to the model: its schema does not convert.
    fn tool_left_out(&self, server: &str, tool: &str);
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("config", &self.config)
            .finish()
    }
}

impl Agent {
    /// An agent listing and calling tools through `backend`, with a tool-call service of its
    /// own (seed 002's default retry policy); a process with other callers shares one
    /// through [`Agent::with_tool_calls`]. Must be called inside a Tokio runtime, where the
    /// service's audit writer runs.
    pub fn new(store: Arc<dyn Store>, backend: Arc<dyn ToolBackend>, config: AgentConfig) -> Self {
        let tool_calls = Arc::new(ToolCalls::new(
            Arc::clone(&backend),
            Arc::clone(&store),
            switchboard_mcp::RetryPolicy::default(),
        ));
        Self::with_tool_calls(store, backend, tool_calls, config)
    }

    /// An agent whose approved calls go through `tool_calls` (the application's one service,
    /// shared with every other way in), listing tools through `backend`.
    pub fn with_tool_calls(
        store: Arc<dyn Store>,
        backend: Arc<dyn ToolBackend>,
        tool_calls: Arc<ToolCalls>,
        config: AgentConfig,
    ) -> Self {
        Self {
            store,
            backend,
            tool_calls,
            events: EventBus::default(),
            hub: Arc::default(),
            running: Arc::default(),
            config,
            stopping: CancellationToken::new(),
            observer: None,
            tasks: None,
            search: Arc::new(crate::search::ToolSearch::new(None)),
        }
    }

    /// Searches with `search` (the application's one, with its embedding model) from now on.
    pub fn with_search(mut self, search: Arc<crate::search::ToolSearch>) -> Self {
        self.search = search;
        self
    }

    /// The tool search the agent's runs use.
    pub fn search(&self) -> &Arc<crate::search::ToolSearch> {
        &self.search
    }

    /// The tool-call service approved calls go through.
    pub fn tool_calls(&self) -> &Arc<ToolCalls> {
        &self.tool_calls
    }

    /// Reports to `observer` from now on.
    pub fn with_observer(mut self, observer: Arc<dyn AgentObserver>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// Leaves calls their servers run as tasks to `tasks` from now on, while it follows
    /// them ([`crate::tasks::Tasks::is_following`]): such a call's turn parks rather than
    /// holding its run, and goes on when the task ends.
    pub fn with_tasks(mut self, tasks: crate::tasks::Tasks) -> Self {
        self.tasks = Some(tasks);
        self
    }

    /// The task service calls are left to, while it follows them.
    pub(crate) fn following_tasks(&self) -> Option<&crate::tasks::Tasks> {
        self.tasks.as_ref().filter(|tasks| tasks.is_following())
    }

    pub fn events(&self) -> &EventBus {
        &self.events
    }

    /// Adds the user's message to the conversation and answers it.
    pub async fn send(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
        text: &str,
        spec: &RunSpec,
        cancel: CancellationToken,
    ) -> Result<RunOutcome, AgentError> {
        let message = NewMessage::text(MessageRole::User, text);
        self.send_message(owner, conversation_id, &message, spec, cancel)
            .await
    }

    /// [`Agent::send`] with a message made by [`crate::input::compose`] (attached resources,
    /// a prompt).
    pub async fn send_message(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
        message: &NewMessage,
        spec: &RunSpec,
        cancel: CancellationToken,
    ) -> Result<RunOutcome, AgentError> {
        // Claimed before the message is stored, so a busy conversation gains nothing.
        let claim = self.claim(conversation_id).await?;
        self.post_message(&claim, owner, message).await?;
        self.run(claim, owner, spec, cancel).await
    }

    /// Goes on with the conversation's last turn from what is stored: after a restart, or to
    /// answer a user message already stored.
    pub async fn resume(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
        spec: &RunSpec,
        cancel: CancellationToken,
    ) -> Result<RunOutcome, AgentError> {
        let claim = self.claim(conversation_id).await?;
        self.run(claim, owner, spec, cancel).await
    }

    /// Claims the conversation for one run: in this process, and through a lease in the store
    /// against every other process sharing it ([`AgentError::Busy`] if a run has it).
    /// [`Agent::send`] is [`Agent::claim`], [`Agent::post`] and [`Agent::run`]; the steps are
    /// separate for callers that answer once the message is stored and let the run go on in
    /// the background.
    pub async fn claim(&self, conversation_id: &str) -> Result<Claim, AgentError> {
        let busy = || AgentError::Busy {
            conversation_id: conversation_id.to_owned(),
        };
        let guard = self.running.claim(conversation_id).ok_or_else(busy)?;
        let lease = crate::lease::Lease::take(
            Arc::clone(&self.store),
            conversation_id,
            &self.config.replica,
        )
        .await?
        .ok_or_else(busy)?;
        Ok(Claim {
            conversation_id: conversation_id.to_owned(),
            lease,
            _guard: guard,
        })
    }

    /// Stores and announces the user's message in the claimed conversation.
    pub async fn post(
        &self,
        claim: &Claim,
        owner: &OwnerId,
        text: &str,
    ) -> Result<Message, AgentError> {
        self.post_message(claim, owner, &NewMessage::text(MessageRole::User, text))
            .await
    }

    /// Stores and announces `message` (a user message, [`crate::input::compose`]d) in the
    /// claimed conversation.
    pub async fn post_message(
        &self,
        claim: &Claim,
        owner: &OwnerId,
        message: &NewMessage,
    ) -> Result<Message, AgentError> {
        let message = self
            .store
            .append_message(owner, &claim.conversation_id, message)
            .await?;
        self.events.publish(
            owner,
            AgentEvent::MessageCreated {
                conversation_id: claim.conversation_id.clone(),
                message: Box::new(message.clone()),
            },
        );
        Ok(message)
    }

    /// Answers the claimed conversation's last message, or goes on with its last turn.
    pub async fn run(
        &self,
        claim: Claim,
        owner: &OwnerId,
        spec: &RunSpec,
        cancel: CancellationToken,
    ) -> Result<RunOutcome, AgentError> {
        let Claim {
            conversation_id,
            lease,
            _guard: guard,
        } = claim;
        let outcome = Run::prepare(self, owner, &conversation_id, spec, cancel)
            .await
            .drive()
            .await;
        // Kept with the turn, under the claim, before it is announced. A cancellation the
        // caller asked for is not a failure.
        if let Err(error) = &outcome
            && error.code() != switchboard_core::ErrorCode::Cancelled
        {
            self.keep_failure(owner, &conversation_id, error).await;
        }
        // The conversation is given up (lease and in-process claim) before the end of the run
        // is announced: a client that sends its next message as soon as it hears the answer
        // is complete must not be refused as busy.
        lease.release().await;
        drop(guard);
        self.announce_end(owner, &conversation_id, &outcome);
        outcome
    }

    /// Ends every wait for decisions, now and later, with [`AgentError::Stopping`]; the waiting
    /// calls stay pending in the store. Runs that are answering or calling tools go on.
    pub fn stop_waiting(&self) {
        self.stopping.cancel();
    }

    /// This process's name in run leases and cross-replica signals.
    pub fn replica(&self) -> &str {
        &self.config.replica
    }

    /// Whether the conversation has a run in this process.
    pub fn is_running(&self, conversation_id: &str) -> bool {
        self.running.is_running(conversation_id)
    }

    /// Tells a run waiting on the message's decisions to look at the store again (a decision
    /// stored by another process).
    pub fn wake(&self, message_id: &str) {
        self.hub.decided(message_id);
    }

    /// Approves or rejects a call waiting for a decision. The decision is stored, announced,
    /// and wakes the run that waits for it.
    pub async fn decide(
        &self,
        owner: &OwnerId,
        message_id: &str,
        call_id: &str,
        approved: bool,
    ) -> Result<ToolCallRecord, AgentError> {
        let message = self.store.message(owner, message_id).await?;
        let updated = self
            .store
            .update_tool_call(owner, message_id, call_id, &|call: &mut ToolCallRecord| {
                if call.status != ToolCallStatus::Pending || call.approved.is_some() {
                    return Err(Transition::NotPending(not_pending(call)).into());
                }
                call.approved = Some(approved);
                Ok(())
            })
            .await
            .map_err(|e| match e {
                StoreError::Transition(Transition::NotPending(status)) => AgentError::NotPending {
                    call_id: call_id.to_owned(),
                    status,
                },
                other => AgentError::Store(other),
            })?;
        self.announce_call(owner, &message.conversation_id, message_id, updated.clone());
        self.hub.decided(message_id);
        Ok(updated)
    }
}

impl Agent {
    /// Announces a tool call's new state (`assistant.toolCall.updated`).
    pub(crate) fn announce_call(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
        message_id: &str,
        call: ToolCallRecord,
    ) {
        self.events.publish(
            owner,
            AgentEvent::ToolCallUpdated {
                conversation_id: conversation_id.to_owned(),
                message_id: message_id.to_owned(),
                tool_call: Box::new(call),
            },
        );
    }

    /// Answers the question `question_id` a server asked during a running call: the answer is
    /// stored (an accepted form's fields checked against the question's schema), announced,
    /// and wakes the call that waits for it, in this process or (through the store) another.
    pub async fn answer(
        &self,
        owner: &OwnerId,
        message_id: &str,
        call_id: &str,
        question_id: &str,
        answer: QuestionAnswer,
    ) -> Result<ToolCallRecord, AgentError> {
        let message = self.store.message(owner, message_id).await?;
        // A question of a call that ended (a stateful server's, lost with a restart) has no
        // one to answer it any more.
        let asked = message
            .tool_calls
            .iter()
            .find(|call| call.id == call_id && call.status == ToolCallStatus::Invoking)
            .and_then(|call| call.question.clone());
        let no_question = || AgentError::NoQuestion {
            call_id: call_id.to_owned(),
            question_id: question_id.to_owned(),
        };
        let question = asked
            .filter(|q| q.id == question_id && q.answer.is_none())
            .ok_or_else(no_question)?;
        let answer = fitted(&question, answer)?;
        let updated =
            self.store
                .update_tool_call(owner, message_id, call_id, &|call: &mut ToolCallRecord| {
                    match call.question.as_mut() {
                        Some(q) if q.id == question_id && q.answer.is_none() => {
                            q.answer = Some(answer.clone());
                            Ok(())
                        }
                        _ => Err(Transition::NoQuestion.into()),
                    }
                })
                .await
                .map_err(|e| match e {
                    StoreError::Transition(Transition::NoQuestion) => no_question(),
                    other => AgentError::Store(other),
                })?;
        self.announce_call(owner, &message.conversation_id, message_id, updated.clone());
        self.hub.decided(message_id);
        Ok(updated)
    }
}

/// `answer` as it may be stored for `question`: an accepted form's fields must fit its schema
/// (what the server asked for); other answers carry no fields.
fn fitted(question: &ServerQuestion, answer: QuestionAnswer) -> Result<QuestionAnswer, AgentError> {
    if answer.action == QuestionAction::Accept && question.mode == QuestionMode::Sampling {
        return sampling_fitted(question, answer);
    }
    if answer.action != QuestionAction::Accept || question.mode != QuestionMode::Form {
        return Ok(QuestionAnswer {
            action: answer.action,
            content: None,
        });
    }
    let content = answer.content.unwrap_or_default();
    if let Some(Value::Object(schema)) = &question.requested_schema {
        let validator =
            switchboard_schema::validate::ArgumentsValidator::new(&Value::Object(schema.clone()))
                .map_err(|e| AgentError::AnswerDoesNotFit {
                detail: format!("the server's form cannot be checked: {e}"),
            })?;
        validator
            .validate(&Value::Object(content.clone()))
            .map_err(|e| AgentError::AnswerDoesNotFit {
                detail: e.to_string(),
            })?;
    }
    Ok(QuestionAnswer {
        action: QuestionAction::Accept,
        content: Some(content),
    })
}

/// An accepted sampling review as it may be stored: at the request stage, optionally the
/// edited `messages` (each `{role: user|assistant, text}`) and `systemPrompt`; at the answer
/// stage, optionally the edited `text`. Nothing else.
fn sampling_fitted(
    question: &ServerQuestion,
    answer: QuestionAnswer,
) -> Result<QuestionAnswer, AgentError> {
    let does_not_fit = |detail: &str| AgentError::AnswerDoesNotFit {
        detail: detail.to_owned(),
    };
    let stage = question
        .sampling
        .as_ref()
        .map_or(SamplingStage::Request, |review| review.stage);
    let content = answer.content.unwrap_or_default();
    for (key, value) in &content {
        match (stage, key.as_str()) {
            (SamplingStage::Request, "messages") => {
                let messages: Vec<SamplingText> = serde_json::from_value(value.clone())
                    .map_err(|_| does_not_fit("messages must be a list of {role, text} objects"))?;
                if messages.is_empty() || messages.len() > MAX_SAMPLING_MESSAGES {
                    return Err(does_not_fit(&format!(
                        "messages must hold 1 to {MAX_SAMPLING_MESSAGES} messages"
                    )));
                }
                if messages
                    .iter()
                    .any(|m| m.role != "user" && m.role != "assistant")
                {
                    return Err(does_not_fit("a message's role is user or assistant"));
                }
            }
            (SamplingStage::Request, "systemPrompt") => {
                if !(value.is_string() || value.is_null()) {
                    return Err(does_not_fit("systemPrompt must be text"));
                }
            }
            (SamplingStage::Answer, "text") => {
                if !value.is_string() {
                    return Err(does_not_fit("text must be text"));
                }
            }
            (_, other) => {
                return Err(does_not_fit(&format!(
                    "{other} is not part of a sampling review at this stage"
                )));
            }
        }
    }
    Ok(QuestionAnswer {
        action: QuestionAction::Accept,
        content: (!content.is_empty()).then_some(content),
    })
}

/// Messages an edited sampling request may hold.
const MAX_SAMPLING_MESSAGES: usize = 100;

fn not_pending(call: &ToolCallRecord) -> String {
    match (call.status, call.approved) {
        (ToolCallStatus::Pending, Some(true)) => "already approved".to_owned(),
        (ToolCallStatus::Pending, Some(false)) => "already rejected".to_owned(),
        (status, _) => status.as_str().to_owned(),
    }
}

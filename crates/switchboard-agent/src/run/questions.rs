//! A server's questions during the agent's own calls (MCP elicitation): the question
//! is kept with the tool call in the store and announced like an approval, so the chat shows it
//! inline (a reload too), and the call waits until the person answers through
//! [`Agent::answer`], the run is stopped, or [`QUESTION_WAIT`] passes (then it is cancelled).
//! Answers given on another replica arrive through the store (looked at every
//! [`POLL`] besides the wake-up of an answer given here).
//!
//! A server's `sampling/createMessage` is reviewed the same way (see [`super::sampling`]).

// Sampling is deprecated by SEP-2577 but still asked by deployed servers.
#![allow(deprecated)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, InputRequest, InputRequests, InputResponses, ListRootsResult,
};
use serde_json::{Map, Value};
use switchboard_core::{
    OwnerId, PendingInput, QuestionAction, QuestionAnswer, QuestionMode, ServerQuestion,
    ToolCallRecord, ToolCallStatus,
};
use switchboard_mcp::ServerRequests;
use switchboard_store::{StoreError, ToolCallEdit, Transition};
use tokio_util::sync::CancellationToken;

use crate::agent::Agent;

/// How long a question waits for its answer.
pub const QUESTION_WAIT: Duration = Duration::from_secs(10 * 60);
const POLL: Duration = Duration::from_secs(2);

/// Answers a server's questions during one call by asking the person in the chat: a call of
/// a run, or a call parked on its server's task (built by [`Agent::task_requester`]).
pub(crate) struct Asker {
    pub agent: Agent,
    pub owner: OwnerId,
    pub conversation_id: String,
    pub message_id: String,
    pub call_id: String,
    pub cancel: CancellationToken,
    /// Who answers the server's sampling requests, and how; `None`: they are refused (the
    /// conversation's model could not be had).
    pub sampler: Option<super::sampling::Sampler>,
    /// Whether what a 2026-07-28 server asked is kept with the call, and whether the call
    /// was left for the restart.
    pub durable: Durable,
}

/// See [`Asker::durable`].
#[derive(Debug, Default)]
pub(crate) struct Durable {
    kept: AtomicBool,
    left: AtomicBool,
}

impl Durable {
    /// For questions their server keeps asking until answered (a task's): when the process
    /// stops, a waiting question is left unanswered rather than cancelled, to be asked again
    /// after the restart.
    pub(crate) fn kept_by_the_server() -> Self {
        Self {
            kept: AtomicBool::new(true),
            left: AtomicBool::new(false),
        }
    }
}

impl std::fmt::Debug for Asker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Asker")
            .field("message_id", &self.message_id)
            .field("call_id", &self.call_id)
            .finish_non_exhaustive()
    }
}

/// The question of an `elicitation/create`.
fn question_of(params: &ElicitRequestParams) -> ServerQuestion {
    let id = uuid::Uuid::now_v7().to_string();
    match params {
        ElicitRequestParams::UrlElicitationParams { message, url, .. } => ServerQuestion {
            id,
            mode: QuestionMode::Url,
            message: message.clone(),
            requested_schema: None,
            url: Some(url.clone()),
            sampling: None,
            answer: None,
        },
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => ServerQuestion {
            id,
            mode: QuestionMode::Form,
            message: message.clone(),
            requested_schema: serde_json::to_value(requested_schema).ok(),
            url: None,
            sampling: None,
            answer: None,
        },
        // A mode added later: asked as a form without fields, which can be declined.
        _ => ServerQuestion {
            id,
            mode: QuestionMode::Form,
            message: String::new(),
            requested_schema: None,
            url: None,
            sampling: None,
            answer: None,
        },
    }
}

pub(super) fn result_of(answer: &QuestionAnswer) -> ElicitResult {
    match answer.action {
        QuestionAction::Accept => {
            let result = ElicitResult::new(ElicitationAction::Accept);
            match &answer.content {
                Some(content) => result.with_content(Value::Object(content.clone())),
                None => result,
            }
        }
        QuestionAction::Decline => ElicitResult::new(ElicitationAction::Decline),
        QuestionAction::Cancel => ElicitResult::new(ElicitationAction::Cancel),
    }
}

impl Asker {
    /// Asks the person the server's `elicitation/create` (the input request `key` of the
    /// call's pending input, when it came that way): declined when it cannot be kept,
    /// cancelled when no answer comes.
    async fn ask(
        &self,
        params: &ElicitRequestParams,
        key: Option<&str>,
    ) -> Result<ElicitResult, ErrorData> {
        let question = question_of(params);
        if !self.put_asking(question.clone(), key).await {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        }
        Ok(match self.answer_to(&question.id).await? {
            Some(answer) => result_of(&answer),
            None => ElicitResult::new(ElicitationAction::Cancel),
        })
    }

    /// Applies `edit` to the call's record in the store.
    async fn edit_call(&self, edit: ToolCallEdit<'_>) -> Result<ToolCallRecord, StoreError> {
        self.agent
            .store
            .update_tool_call(&self.owner, &self.message_id, &self.call_id, edit)
            .await
    }

    /// Whether the process stopped while the server's question waited, leaving the call to
    /// be resumed after the restart (its outcome is then not written).
    pub(super) fn left_for_restart(&self) -> bool {
        self.durable.left.load(Ordering::Acquire)
    }

    /// Keeps `question` with the call and announces it; `false` when it could not be kept
    /// (the call ended meanwhile, the store failed): it is then not asked.
    pub(super) async fn put(&self, question: ServerQuestion) -> bool {
        self.put_asking(question, None).await
    }

    /// [`Self::put`], the question asking the input request `key` of the call's pending input.
    async fn put_asking(&self, question: ServerQuestion, key: Option<&str>) -> bool {
        let stored = self
            .edit_call(&|call: &mut ToolCallRecord| {
                if call.status != ToolCallStatus::Invoking {
                    return Err(Transition::NotRunning.into());
                }
                call.question = Some(question.clone());
                if let (Some(key), Some(pending)) = (key, call.pending_input.as_mut()) {
                    pending.asking = Some(key.to_owned());
                }
                Ok(())
            })
            .await;
        match stored {
            Ok(call) => {
                self.agent.announce_call(
                    &self.owner,
                    &self.conversation_id,
                    &self.message_id,
                    call,
                );
                true
            }
            Err(error) => {
                tracing::warn!(%error, "a server's question could not be kept; it is not asked");
                false
            }
        }
    }

    /// The person's answer to question `question_id` of the call; `None` when none came in
    /// [`QUESTION_WAIT`], the run was stopped or the call ended meanwhile (a task's call
    /// cancelled by the person, here or on another replica).
    pub(super) async fn answer_to(
        &self,
        question_id: &str,
    ) -> Result<Option<QuestionAnswer>, ErrorData> {
        let notifier = self.agent.hub.notifier(&self.message_id);
        let deadline = tokio::time::Instant::now() + QUESTION_WAIT;
        loop {
            // Registered before reading, so an answer stored after the read still wakes us.
            let notified = notifier.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let message = self
                .agent
                .store
                .message(&self.owner, &self.message_id)
                .await
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            let Some(call) = message
                .tool_calls
                .iter()
                .find(|call| call.id == self.call_id)
                .filter(|call| call.status == ToolCallStatus::Invoking)
            else {
                return Ok(None);
            };
            let answer = call
                .question
                .as_ref()
                .filter(|q| q.id == question_id)
                .and_then(|q| q.answer.clone());
            if answer.is_some() {
                return Ok(answer);
            }
            tokio::select! {
                () = &mut notified => {}
                () = tokio::time::sleep(POLL) => {}
                () = tokio::time::sleep_until(deadline) => return Ok(None),
                () = self.cancel.cancelled() => return Ok(None),
                () = self.agent.stopping.cancelled() => {
                    if self.durable.kept.load(Ordering::Acquire) {
                        // Kept with the call: it is answered after the restart instead.
                        self.durable.left.store(true, Ordering::Release);
                        return Err(ErrorData::internal_error(
                            "Switchboard is stopping; the question is asked again after the restart",
                            None,
                        ));
                    }
                    return Ok(None);
                }
            }
        }
    }
}

impl Asker {
    /// Keeps a 2026-07-28 server's input-required answer with the call.
    async fn keep(&self, requests: Option<&InputRequests>, state: Option<&str>) {
        let Ok(Value::Object(requests)) =
            serde_json::to_value(requests.cloned().unwrap_or_default())
        else {
            return;
        };
        let pending = PendingInput {
            request_state: state.map(str::to_owned),
            requests,
            responses: Map::new(),
            asking: None,
        };
        let kept = self
            .edit_call(&|call: &mut ToolCallRecord| {
                if call.status != ToolCallStatus::Invoking {
                    return Err(Transition::NotRunning.into());
                }
                call.pending_input = Some(pending.clone());
                Ok(())
            })
            .await;
        match kept {
            Ok(_) => self.durable.kept.store(true, Ordering::Release),
            Err(error) => tracing::debug!(%error, "a server's input request was not kept"),
        }
    }

    /// Answers the requests in turn, each answer kept with the call as it is given; a form
    /// asked is marked as the one the call's question asks, so a restart can resume it.
    async fn answer_input(&self, requests: InputRequests) -> Result<InputResponses, ErrorData> {
        let mut answers = InputResponses::new();
        for (key, request) in requests {
            let answer = match request {
                InputRequest::Elicitation(request) => {
                    serde_json::to_value(self.ask(&request.params, Some(&key)).await?)
                }
                InputRequest::CreateMessage(request) => {
                    serde_json::to_value(self.sample_with_review(request.params).await?)
                }
                InputRequest::ListRoots(_) => serde_json::to_value(ListRootsResult::default()),
                _ => {
                    return Err(ErrorData::invalid_request(
                        format!("input request `{key}` is of a kind we cannot answer"),
                        None,
                    ));
                }
            }
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            self.keep_response(&key, &answer).await;
            answers.insert(key, answer);
        }
        Ok(answers)
    }

    async fn keep_response(&self, key: &str, answer: &Value) {
        let kept = self
            .edit_call(&|call: &mut ToolCallRecord| {
                if let Some(pending) = call.pending_input.as_mut() {
                    pending.responses.insert(key.to_owned(), answer.clone());
                    pending.asking = None;
                }
                Ok(())
            })
            .await;
        if let Err(error) = kept {
            tracing::debug!(%error, "an input response was not kept");
        }
    }
}

impl ServerRequests for Asker {
    fn keep_input<'a>(
        &'a self,
        requests: Option<&'a InputRequests>,
        state: Option<&'a str>,
    ) -> BoxFuture<'a, ()> {
        Box::pin(self.keep(requests, state))
    }

    fn input(&self, requests: InputRequests) -> BoxFuture<'_, Result<InputResponses, ErrorData>> {
        Box::pin(self.answer_input(requests))
    }

    fn waits_for_a_person(&self) -> bool {
        true
    }

    fn elicit(
        &self,
        params: ElicitRequestParams,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorData>> {
        Box::pin(async move { self.ask(&params, None).await })
    }

    fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorData>> {
        Box::pin(self.sample_with_review(params))
    }
}

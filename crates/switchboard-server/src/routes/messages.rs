//! Sending messages (a run starts) and decisions on tool calls
//! (seed 001 `tool-confirm`).

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use switchboard_core::ToolCallRecord;
use switchboard_store::Message;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::live::{Scope, sse_response};
use crate::routes::responses::{Conflict, OwnedRead, OwnedWrite};
use crate::state::AppState;
use switchboard_app::runs::OnPendingTask;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, send))
        .routes(routes!(tool_confirm))
        .routes(routes!(answer))
        .routes(routes!(cancel_task))
}

/// Lists a conversation's messages, oldest first.
#[utoipa::path(
    get,
    path = "/api/conversations/{id}/messages",
    tag = "messages",
    operation_id = "list_messages",
    params(("id" = String, Path, description = "The id")),
    responses(
        (status = 200, description = "The conversation's messages, oldest first; a failed turn's answer carries its failure in `metadata.failure` (a TurnFailure, in the reader's language)", body = Vec<Message>),
        OwnedRead,
    ),
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<axum::Json<Vec<Message>>, ApiError> {
    let mut messages = state.store.messages(&caller.user.id, &id).await?;
    let locale = crate::i18n::reader_locale(&caller.user, &headers);
    crate::i18n::word_failures(&mut messages, &state.locales, locale);
    Ok(axum::Json(messages))
}

/// A user message to send.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Send {
    /// What the person typed (may be empty when a prompt starts the turn).
    #[serde(default)]
    content: String,
    /// Resources of the assistant's servers to give the model as context (at most 8): each
    /// is read now and kept with the message (`metadata.attachments`), and read again before
    /// a later run when its server says it changed.
    #[serde(default)]
    attachments: Vec<AttachmentBody>,
    /// A prompt of one of the assistant's servers (a slash command): its messages start the
    /// turn and are kept with the message (`metadata.prompt`).
    #[serde(default)]
    prompt: Option<PromptUse>,
    /// What to do when the conversation's last turn still waits on tasks (tool calls running
    /// as tasks): `refuse` (409 `TASK_PENDING`, listing them) or `cancel` (they are cancelled
    /// on their servers and the turn ends, then the message is sent).
    #[serde(default)]
    on_pending_task: PendingTaskChoice,
}

/// What a new message does with the tasks its conversation's last turn waits on.
#[derive(Debug, Clone, Copy, Default, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
enum PendingTaskChoice {
    /// Refuse the message (409 `TASK_PENDING`, listing them).
    #[default]
    Refuse,
    /// Cancel them, then send the message.
    Cancel,
}

impl From<PendingTaskChoice> for OnPendingTask {
    fn from(choice: PendingTaskChoice) -> Self {
        match choice {
            PendingTaskChoice::Refuse => OnPendingTask::Refuse,
            PendingTaskChoice::Cancel => OnPendingTask::Cancel,
        }
    }
}

/// A resource to attach.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AttachmentBody {
    server_id: String,
    /// A resource's URI, as listed or a template filled in.
    uri: String,
}

/// A prompt to start the turn with.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PromptUse {
    server_id: String,
    name: String,
    /// The prompt's arguments by name.
    #[serde(default)]
    #[schema(value_type = crate::routes::schemas::PromptArguments)]
    arguments: serde_json::Map<String, serde_json::Value>,
}

impl Send {
    fn into_input(self) -> switchboard_agent::input::UserInput {
        use switchboard_agent::input::{AttachmentRef, PromptRef, UserInput};
        use switchboard_core::ServerId;
        UserInput {
            text: self.content,
            attachments: self
                .attachments
                .into_iter()
                .map(|a| AttachmentRef {
                    server_id: ServerId(a.server_id),
                    uri: a.uri,
                })
                .collect(),
            prompt: self.prompt.map(|p| PromptRef {
                server_id: ServerId(p.server_id),
                name: p.name,
                arguments: p.arguments,
            }),
        }
    }
}

/// What a started run answers without streaming: the stored user message; the run goes on
/// and its events come through `GET /api/events`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct Started {
    pub(super) conversation_id: String,
    pub(super) message: Message,
}

/// Sends a message: stores it and starts the conversation's run.
///
/// Stores the user's message and starts the run. With `Accept: text/event-stream` the
/// response streams the run's events (from `message.created` of this message) and ends with
/// `message.completed` or `run.failed`; approvals asked for on the way are given with
/// `tool-confirm` while it streams, and a turn that waits on tasks (`run.parked`) streams on
/// until they end and the turn does. Otherwise 202 with the stored message. 409
/// `TASK_PENDING` (with the `tasks`) when the last turn still waits on tasks, unless
/// `onPendingTask` is `cancel`.
#[utoipa::path(
    post,
    path = "/api/conversations/{id}/messages",
    tag = "messages",
    operation_id = "send_message",
    params(("id" = String, Path, description = "The id")),
    request_body = Send,
    responses(
        (status = 200, description = "With Accept: text/event-stream: the run's events as SSE", content_type = "text/event-stream"),
        (status = 202, description = "Stored; the run goes on", body = Started),
        OwnedWrite,
    ),
)]
async fn send(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    Json(body): Json<Send>,
) -> Result<Response, ApiError> {
    let streaming = wants_events(&headers);
    // Subscribed before the run starts, so no event of it is missed.
    let subscription = state.events.subscribe(&caller.user.id, None);
    let on_pending = body.on_pending_task.into();
    let message = state
        .runs
        .send(&caller.user.id, &id, body.into_input(), on_pending)
        .await?;
    if streaming {
        let scope = Scope {
            owner: caller.user.id,
            conversation_id: Some(id),
            until_run_ends: true,
        };
        return Ok(sse_response(subscription, scope));
    }
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(Started {
            conversation_id: id,
            message,
        }),
    )
        .into_response())
}

fn wants_events(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("text/event-stream"))
}

/// A decision on a tool call waiting for one.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Confirm {
    tool_call_id: String,
    approved: bool,
}

/// Approves or rejects a tool call waiting for a decision.
///
/// Approves or rejects a call waiting for a decision; the run waiting for it goes on, or, if
/// none waits here (after a restart), one is started from what is stored.
#[utoipa::path(
    post,
    path = "/api/messages/{id}/tool-confirm",
    tag = "messages",
    operation_id = "confirm_tool_call",
    params(("id" = String, Path, description = "The assistant message holding the call")),
    request_body = Confirm,
    responses(
        (status = 200, description = "The decided tool call", body = ToolCallRecord),
        OwnedWrite,
    ),
)]
async fn tool_confirm(
    State(state): State<AppState>,
    caller: Caller,
    Path(message_id): Path<String>,
    Json(body): Json<Confirm>,
) -> Result<axum::Json<ToolCallRecord>, ApiError> {
    let call = state
        .runs
        .decide(
            &caller.user.id,
            &message_id,
            &body.tool_call_id,
            body.approved,
        )
        .await?;
    Ok(axum::Json(call))
}

/// The person's answer to a server's question.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Answer {
    /// The question's `id` (the tool call's `question.id`).
    question_id: String,
    action: switchboard_core::QuestionAction,
    /// The form's fields, with `accept` in form mode; a sampling review's edits.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    content: Option<serde_json::Map<String, serde_json::Value>>,
}

/// Answers a question a server asked during a running tool call.
///
/// MCP elicitation: `accept` with the form's fields in `content` (checked against the
/// question's `requestedSchema`), `decline` or `cancel`; in url mode, `accept` once done at
/// the URL. MCP sampling (`mode: sampling`): at the `request` stage, `accept` sends it to the
/// model, with `content` `{messages: [{role, text}], systemPrompt}` when the person edited
/// them; at the `answer` stage, `accept` returns the model's answer to the server, with
/// `content` `{text}` when edited; `decline` or `cancel` rejects it. The call waiting for it
/// goes on.
#[utoipa::path(
    post,
    path = "/api/messages/{id}/tool-calls/{callId}/answer",
    tag = "messages",
    operation_id = "answer_server_question",
    params(
        ("id" = String, Path, description = "The assistant message holding the call"),
        ("callId" = String, Path, description = "The tool call"),
    ),
    request_body = Answer,
    responses(
        (status = 200, description = "The tool call with its answered question", body = ToolCallRecord),
        OwnedWrite,
    ),
)]
async fn answer(
    State(state): State<AppState>,
    caller: Caller,
    Path((message_id, call_id)): Path<(String, String)>,
    Json(body): Json<Answer>,
) -> Result<axum::Json<ToolCallRecord>, ApiError> {
    let answer = switchboard_core::QuestionAnswer {
        action: body.action,
        content: body.content,
    };
    let call = state
        .runs
        .answer(
            &caller.user.id,
            &message_id,
            &call_id,
            &body.question_id,
            answer,
        )
        .await?;
    Ok(axum::Json(call))
}

/// Cancels a tool call running as a task.
///
/// The call ends `cancelled` at once, its task is cancelled on its server, and the turn goes
/// on with the model told that the call was cancelled. 409 when the call does not run as a
/// task (any more).
#[utoipa::path(
    post,
    path = "/api/messages/{id}/tool-calls/{callId}/cancel",
    tag = "messages",
    operation_id = "cancel_tool_call_task",
    params(
        ("id" = String, Path, description = "The assistant message holding the call"),
        ("callId" = String, Path, description = "The tool call"),
    ),
    responses(
        (status = 200, description = "The cancelled tool call", body = ToolCallRecord),
        OwnedRead,
        Conflict,
    ),
)]
async fn cancel_task(
    State(state): State<AppState>,
    caller: Caller,
    Path((message_id, call_id)): Path<(String, String)>,
) -> Result<axum::Json<ToolCallRecord>, ApiError> {
    let call = state
        .runs
        .cancel_task_call(&caller.user.id, &message_id, &call_id)
        .await?;
    Ok(axum::Json(call))
}

//! Seed 000's `ChatController` (`/api/chat`): its `ChatRequest`, `ConversationResponse`,
//! `MCPToolInfo` and `ConversationHistory` shapes, translated to and from the house chat
//! service ([`crate::chat`]), the tools listing and the stored conversation. Extra fields the
//! house has (status, the stored message, tool calls) follow the seed's.

use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use switchboard_core::{ErrorCode, ServerId, ToolAnnotations, ToolCallRecord};
use switchboard_store::{Message, MessageRole, NewMessage};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::chat::{ChatTurn, Target, TurnStatus, one_turn};
use crate::error::ApiError;
use crate::json::Json;
use crate::routes::responses::Unauthorized;
use crate::routes::seeds::seed_002::config::instant;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(send_message))
        .routes(routes!(available_tools))
        .routes(routes!(conversation_history))
}

/// Who wrote a chat message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChatRole {
    User,
    Assistant,
    System,
}

/// Seed 000's `ChatMessage`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChatMessage {
    role: ChatRole,
    content: String,
    /// When it was written (RFC 3339); kept in the stored message's metadata.
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    metadata: Option<Map<String, Value>>,
}

/// Seed 000's `ChatRequest`, or the house's `{message, conversationId}`.
///
/// The turn is `message`, or the last `user` message of `messages`; the last `system`
/// message sets the conversation's system prompt; the `user` and `assistant` messages before
/// the turn become the history of a conversation that is new (a conversation that exists
/// keeps its stored history, and they are not stored again). `sessionId` names the caller's
/// conversation (created on first use), `conversationId` an existing one; with neither, a
/// new conversation. `serverId` limits the conversation's runs to that server's tools.
/// `context` is merged into the conversation's variables.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChatRequest {
    #[serde(default)]
    server_id: Option<String>,
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    messages: Vec<ChatMessage>,
    #[serde(default)]
    #[schema(value_type = Object)]
    context: Map<String, Value>,
    /// The house form: the user's message.
    #[serde(default)]
    message: Option<String>,
    /// The house form: an existing conversation.
    #[serde(default)]
    conversation_id: Option<String>,
}

/// How the turn was left.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChatStatus {
    /// The model answered (or the turn ended by its round limit or a cancellation).
    Completed,
    /// A tool call waits for a decision (`POST /api/messages/{id}/tool-confirm`).
    AwaitingApproval,
    /// The run failed; `error` says why.
    Failed,
}

/// Seed 000's `ConversationResponse`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConversationResponse {
    /// The assistant's answer as a person reads it (prompt-mode tool calls shown as their
    /// results).
    content: String,
    conversation_id: String,
    status: ChatStatus,
    /// The tool calls of the answer.
    tool_calls: Vec<ToolCallRecord>,
    /// The assistant's message as stored, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Message>,
    /// The `run.failed` event's data, when the run failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    error: Option<Value>,
}

/// Sends a chat message and answers when the turn settles.
///
/// Seed 000's `POST /api/chat/message`: takes its `ChatRequest` (or the house's `{message,
/// conversationId}`) and answers its `ConversationResponse` when the turn is complete, failed,
/// or waiting for an approval.
#[utoipa::path(
    post,
    path = "/api/chat/message",
    tag = "messages",
    operation_id = "one_shot_chat",
    request_body = ChatRequest,
    responses(
        (status = 200, description = "The turn completed, failed, or waits for an approval", body = ConversationResponse),
        (status = 400, description = "Bad input: malformed JSON, wrong types, unknown fields, invalid values", body = crate::error::ErrorBody),
        Unauthorized,
        (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody),
        (status = 409, description = "Conflicts with the current state", body = crate::error::ErrorBody),
        (status = 413, description = "The body is too large", body = crate::error::ErrorBody)
    )
)]
async fn send_message(
    State(state): State<AppState>,
    caller: Caller,
    headers: axum::http::HeaderMap,
    Json(request): Json<ChatRequest>,
) -> Result<axum::Json<ConversationResponse>, ApiError> {
    let turn = chat_turn(request)?;
    let mut result = one_turn(&state, &caller.user.id, turn).await?;
    // A failed turn's stored failure, in the reader's language as the error is.
    let locale = crate::i18n::reader_locale(&caller.user, &headers);
    crate::i18n::word_failures(result.message.as_mut_slice(), &state.locales, locale);
    let status = match result.status {
        TurnStatus::Completed => ChatStatus::Completed,
        TurnStatus::AwaitingApproval => ChatStatus::AwaitingApproval,
        TurnStatus::Failed => ChatStatus::Failed,
    };
    Ok(axum::Json(ConversationResponse {
        content: (result.message.as_ref()).map_or_else(String::new, |m| m.content.clone()),
        tool_calls: (result.message.as_ref()).map_or_else(Vec::new, |m| m.tool_calls.clone()),
        conversation_id: result.conversation_id,
        status,
        message: result.message,
        error: result.error,
    }))
}

fn invalid(key: &'static str, message: &str) -> ApiError {
    ApiError::new(ErrorCode::ValidationError, message).key(key)
}

/// The request as the chat service takes it.
fn chat_turn(request: ChatRequest) -> Result<ChatTurn, ApiError> {
    let target = match (request.conversation_id, request.session_id) {
        (Some(_), Some(_)) => {
            return Err(invalid(
                "error.msg.chat_conversation_or_session",
                "give conversationId or sessionId, not both",
            ));
        }
        (Some(id), None) => Target::Id(id),
        (None, Some(key)) if key.trim().is_empty() => {
            return Err(invalid(
                "error.msg.chat_session_blank",
                "sessionId must not be blank",
            ));
        }
        (None, Some(key)) => Target::Session(key),
        (None, None) => Target::New,
    };
    let server = match request.server_id {
        Some(id) if id.trim().is_empty() => {
            return Err(invalid(
                "error.msg.chat_server_blank",
                "serverId must not be blank",
            ));
        }
        other => other.map(ServerId),
    };
    let mut messages = request.messages;
    let system_prompt = (messages.iter().rev())
        .find(|m| m.role == ChatRole::System)
        .map(|m| m.content.clone());
    messages.retain(|m| m.role != ChatRole::System);
    let last_user = messages.iter().rposition(|m| m.role == ChatRole::User);
    let (text, history) = match (request.message, last_user) {
        (Some(_), Some(_)) => {
            return Err(invalid(
                "error.msg.chat_message_or_messages",
                "give message or messages, not both",
            ));
        }
        (Some(text), None) => (text, Vec::new()),
        (None, Some(index)) => {
            messages.truncate(index + 1);
            let turn = messages.pop().map(|m| m.content).unwrap_or_default();
            (turn, messages.into_iter().map(stored).collect())
        }
        (None, None) => {
            return Err(invalid(
                "error.msg.chat_no_user_message",
                "give message, or messages with at least one message of role user",
            ));
        }
    };
    if text.trim().is_empty() {
        return Err(invalid(
            "error.msg.chat_message_blank",
            "the user's message must not be blank",
        ));
    }
    Ok(ChatTurn {
        target,
        text,
        history,
        system_prompt,
        variables: request.context,
        server,
    })
}

/// A history message as stored; its timestamp is kept in its metadata.
fn stored(message: ChatMessage) -> NewMessage {
    let role = match message.role {
        ChatRole::Assistant => MessageRole::Assistant,
        ChatRole::User | ChatRole::System => MessageRole::User,
    };
    let mut metadata = message.metadata.unwrap_or_default();
    if let Some(timestamp) = message.timestamp {
        metadata.insert("timestamp".into(), Value::String(timestamp));
    }
    NewMessage {
        role,
        content: message.content,
        tool_calls: Vec::new(),
        metadata,
    }
}

/// Seed 000's `MCPToolInfo`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpToolInfo {
    server_name: String,
    name: String,
    description: String,
    #[schema(value_type = crate::routes::schemas::JsonSchema)]
    input_schema: Map<String, Value>,
    server_id: String,
    /// The name the model sees (`mcp__{server}__{tool}`).
    display_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    annotations: ToolAnnotations,
    is_enabled: bool,
    is_auto_approve: bool,
}

/// Lists every enabled tool of the caller's enabled servers.
///
/// Seed 000's `GET /api/chat/tools`; a server that cannot be reached is left out of the list
/// (and logged) rather than failing it.
#[utoipa::path(
    get,
    path = "/api/chat/tools",
    tag = "tools",
    operation_id = "list_chat_tools",
    responses(
        (status = 200, description = "Every enabled tool of the caller's enabled servers", body = Vec<McpToolInfo>),
        Unauthorized
    )
)]
async fn available_tools(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<McpToolInfo>>, ApiError> {
    let listed = crate::routes::tools::listed_tools(&state, &caller.user.id).await?;
    Ok(axum::Json(
        listed
            .into_iter()
            .map(|listed| McpToolInfo {
                server_name: listed.server_name,
                name: listed.tool.name,
                description: listed.tool.description.unwrap_or_default(),
                input_schema: listed.tool.input_schema,
                server_id: listed.tool.server_id.0,
                display_name: listed.display_name,
                title: listed.tool.title,
                annotations: listed.tool.annotations,
                is_enabled: true,
                is_auto_approve: listed.auto_approve,
            })
            .collect(),
    ))
}

/// Seed 000's `ChatMessage` as a stored message reads.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryMessage {
    role: ChatRole,
    /// What a person reads.
    content: String,
    /// When it was stored (RFC 3339, UTC).
    timestamp: String,
    #[schema(value_type = Object)]
    metadata: Map<String, Value>,
    id: String,
    tool_calls: Vec<ToolCallRecord>,
}

/// Seed 000's `ConversationHistory`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConversationHistory {
    conversation_id: String,
    messages: Vec<HistoryMessage>,
    title: String,
    #[schema(value_type = Object)]
    variables: Map<String, Value>,
    /// Whether a run is answering in this process.
    running: bool,
}

/// Reads a conversation's history.
///
/// Seed 000's `GET /api/chat/conversations/{conversationId}`: the conversation's messages,
/// oldest first, each assistant message with its tool calls.
#[utoipa::path(
    get,
    path = "/api/chat/conversations/{id}",
    tag = "conversations",
    operation_id = "read_chat_conversation",
    params(("id" = String, Path, description = "The conversation id")),
    responses(
        (status = 200, description = "The conversation's history", body = ConversationHistory),
        Unauthorized,
        (status = 404, description = "Not found (or another user's)", body = crate::error::ErrorBody)
    )
)]
async fn conversation_history(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<ConversationHistory>, ApiError> {
    let conversation = state.store.conversation(&caller.user.id, &id).await?;
    let messages = state.store.messages(&caller.user.id, &id).await?;
    Ok(axum::Json(ConversationHistory {
        running: state.agent.is_running(&id),
        conversation_id: conversation.id,
        title: conversation.title,
        variables: conversation.variables,
        messages: messages.into_iter().map(history_message).collect(),
    }))
}

fn history_message(message: Message) -> HistoryMessage {
    HistoryMessage {
        role: match message.role {
            MessageRole::Assistant => ChatRole::Assistant,
            MessageRole::System => ChatRole::System,
            _ => ChatRole::User,
        },
        content: message.content,
        timestamp: instant(message.created_at),
        metadata: message.metadata,
        id: message.id,
        tool_calls: message.tool_calls,
    }
}

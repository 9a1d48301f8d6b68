use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use switchboard_core::{ServerId, ToolCallRecord};

use super::Timestamp;

/// A chat thread.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Conversation {
    pub id: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assistant_id: Option<String>,
    /// The conversation's variables (seed 000 `ChatRequest.context`), which workflow steps
    /// read; merged by each chat request that carries a context.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub variables: Map<String, Value>,
    /// The key the client chose for it (seed 000 `ChatRequest.sessionId`), unique per owner.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The one server whose tools its runs may use (seed 000 `ChatRequest.serverId`); none:
    /// the assistant's servers, else every enabled one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_id: Option<ServerId>,
    /// The person's choices for this chat, used by its runs in place of the assistant's and
    /// the provider's.
    #[serde(flatten)]
    pub settings: ChatSettings,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A chat's own model, system prompt and temperature, without making an assistant; each one
/// left out (null) is the assistant's, else the provider's default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChatSettings {
    /// The model its runs ask for (one of the provider's, `GET /api/conversations/{id}/models`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Its system prompt, in place of the assistant's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Its sampling temperature, from 0 to 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
}

/// The longest model name a chat may ask for, in characters.
pub const MAX_MODEL_CHARS: usize = 256;
/// The longest system prompt a chat may have, in characters.
pub const MAX_SYSTEM_PROMPT_CHARS: usize = 100_000;

impl ChatSettings {
    /// The settings as stored: blank text is none, text is kept as written (a model name
    /// trimmed); refused when too long, holding NUL, or with a temperature outside 0..=2.
    pub(crate) fn normalised(&self) -> Result<ChatSettings, crate::StoreError> {
        crate::text::refuse_nul("the chat settings", self)?;
        let model = self
            .model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_owned);
        if let Some(model) = &model {
            crate::text::at_most("model", model, MAX_MODEL_CHARS)?;
        }
        let system_prompt = self
            .system_prompt
            .clone()
            .filter(|prompt| !prompt.trim().is_empty());
        if let Some(prompt) = &system_prompt {
            crate::text::at_most("systemPrompt", prompt, MAX_SYSTEM_PROMPT_CHARS)?;
        }
        if let Some(temperature) = self.temperature
            && !(0.0..=2.0).contains(&temperature)
        {
            return Err(crate::Invalid::OutOfRange {
                field: "temperature",
                min: 0,
                max: 2,
            }
            .into());
        }
        Ok(ChatSettings {
            model,
            system_prompt,
            temperature: self.temperature,
        })
    }
}

/// Where a page of conversations starts: after this one, in the listing's order (most
/// recently active first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationCursor {
    pub updated_at: Timestamp,
    pub id: String,
}

impl ConversationCursor {
    /// The cursor after `conversation`.
    pub fn after(conversation: &Conversation) -> Self {
        Self {
            updated_at: conversation.updated_at,
            id: conversation.id.clone(),
        }
    }
}

/// What a new conversation starts with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NewConversation {
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub assistant_id: Option<String>,
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum MessageRole {
    System,
    User,
    Assistant,
}

impl MessageRole {
    pub fn as_str(self) -> &'static str {
        match self {
            MessageRole::System => "system",
            MessageRole::User => "user",
            MessageRole::Assistant => "assistant",
        }
    }

    pub fn parse(text: &str) -> Option<MessageRole> {
        match text {
            "system" => Some(MessageRole::System),
            "user" => Some(MessageRole::User),
            "assistant" => Some(MessageRole::Assistant),
            _ => None,
        }
    }
}

/// One message. An assistant message carries the tool calls it made (seed 001 "消息存储结构":
/// calls are embedded, not separate messages).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Message {
    pub id: String,
    pub conversation_id: String,
    pub role: MessageRole,
    pub content: String,
    pub tool_calls: Vec<ToolCallRecord>,
    /// What the message carries besides its text. On a person's message: `attachments`
    /// (the resources sent with it) and `prompt` (the server prompt it used). On an
    /// assistant's turn: `rounds` (each model call's text) and `roundsDone`, `stop` when it
    /// was cancelled, and `unavailableServers` when servers were left out of the turn
    /// because their tools could not be listed: a list of `{serverId, name, code, kind}`,
    /// `code` the failure's error code and `kind` one of `unreachable` (it could not be
    /// reached or started, or is held back while it is tried again in the background),
    /// `sign_in` (it wants a sign-in or rejected its credentials) or `failed` (anything
    /// else). Shown with the turn, as "GitHub is unreachable: its tools are left out".
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub metadata: Map<String, Value>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A message to append.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMessage {
    pub role: MessageRole,
    pub content: String,
    pub tool_calls: Vec<ToolCallRecord>,
    pub metadata: Map<String, Value>,
}

impl NewMessage {
    pub fn text(role: MessageRole, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            metadata: Map::new(),
        }
    }
}

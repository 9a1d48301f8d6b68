//! The rows of `conversations` and `messages` and the JSON columns edited in place (tool
//! calls, variables), shared by both backends' [`impl_conversation_store`](super::conversations).

use serde_json::{Map, Value};
use switchboard_core::{ServerId, ToolCallRecord};

use super::common::{from_json, to_json};
use crate::error::{Entity, StoreError};
use crate::model::{ChatSettings, Conversation, Message, MessageRole, Timestamp};
use crate::store::ToolCallEdit;

pub(crate) const CONVERSATION_COLUMNS: &str = "id, title, assistant_id, variables, session_key, \
     server_id, model, system_prompt, temperature, created_at, updated_at";
pub(crate) const MESSAGE_COLUMNS: &str =
    "id, conversation_id, role, content, tool_calls, metadata, created_at, updated_at";

/// Stores a message (`$1` id, `$2` owner, `$3` conversation, `$4` role, `$5` content, `$6`
/// tool calls, `$7` metadata, `$8` now) in one statement: the conversation must be the
/// owner's, and the message is stamped after the conversation's last one, so the order of
/// messages is the order of appends whatever the clocks say. Returns its `created_at`.
pub(crate) const INSERT_MESSAGE: &str = "INSERT INTO messages (id, user_id, conversation_id, \
     role, content, tool_calls, metadata, created_at, updated_at) \
     SELECT $1, c.user_id, c.id, $4, $5, $6, $7, t.at, t.at \
     FROM conversations c, (SELECT CASE \
         WHEN MAX(created_at) IS NULL OR MAX(created_at) < $8 THEN $8 \
         ELSE MAX(created_at) + 1 END AS at \
       FROM messages WHERE conversation_id = $3) t \
     WHERE c.user_id = $2 AND c.id = $3 \
     RETURNING created_at";

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct ConversationRow {
    pub id: String,
    pub title: String,
    pub assistant_id: Option<String>,
    pub variables: String,
    pub session_key: Option<String>,
    pub server_id: Option<String>,
    pub model: Option<String>,
    pub system_prompt: Option<String>,
    pub temperature: Option<f64>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl ConversationRow {
    pub(crate) fn decode(self) -> Result<Conversation, StoreError> {
        let variables: Map<String, Value> =
            from_json(Entity::Conversation, &self.id, "variables", &self.variables)?;
        Ok(Conversation {
            id: self.id,
            title: self.title,
            assistant_id: self.assistant_id,
            variables,
            session_id: self.session_key,
            server_id: self.server_id.map(ServerId),
            settings: ChatSettings {
                model: self.model,
                system_prompt: self.system_prompt,
                temperature: self.temperature,
            },
            created_at: Timestamp(self.created_at),
            updated_at: Timestamp(self.updated_at),
        })
    }
}

/// `stored` with `changes` merged in: each key given replaces the stored one, `null` removes it.
pub(crate) fn merged(
    mut stored: Map<String, Value>,
    changes: &Map<String, Value>,
) -> Map<String, Value> {
    for (key, value) in changes {
        if value.is_null() {
            stored.remove(key);
        } else {
            stored.insert(key.clone(), value.clone());
        }
    }
    stored
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct MessageRow {
    pub id: String,
    pub conversation_id: String,
    pub role: String,
    pub content: String,
    pub tool_calls: String,
    pub metadata: String,
    pub created_at: i64,
    pub updated_at: i64,
}

impl MessageRow {
    pub(crate) fn decode(self) -> Result<Message, StoreError> {
        let role = MessageRole::parse(&self.role).ok_or_else(|| {
            StoreError::corrupt(
                Entity::Message,
                &self.id,
                format!("unknown role {:?}", self.role),
            )
        })?;
        let tool_calls = from_json(Entity::Message, &self.id, "tool_calls", &self.tool_calls)?;
        let metadata: Map<String, Value> =
            from_json(Entity::Message, &self.id, "metadata", &self.metadata)?;
        Ok(Message {
            id: self.id,
            conversation_id: self.conversation_id,
            role,
            content: self.content,
            tool_calls,
            metadata,
            created_at: Timestamp(self.created_at),
            updated_at: Timestamp(self.updated_at),
        })
    }
}

/// The stored `tool_calls` of `message_id` with `calls` appended, refusing ids already there.
pub(crate) fn append_calls(
    message_id: &str,
    stored: &str,
    calls: &[ToolCallRecord],
) -> Result<String, StoreError> {
    let mut all: Vec<ToolCallRecord> =
        from_json(Entity::Message, message_id, "tool_calls", stored)?;
    for call in calls {
        if all.iter().any(|c| c.id == call.id) {
            return Err(StoreError::Conflict {
                entity: Entity::ToolCall,
                name: call.id.clone(),
            });
        }
        all.push(call.clone());
    }
    to_json(&all)
}

/// The stored `tool_calls` of `message_id` with `edit` applied to the call `call_id`, and
/// that call as edited. The edit may not change the call's id.
pub(crate) fn edit_call(
    message_id: &str,
    stored: &str,
    call_id: &str,
    edit: ToolCallEdit<'_>,
) -> Result<(String, ToolCallRecord), StoreError> {
    let mut all: Vec<ToolCallRecord> =
        from_json(Entity::Message, message_id, "tool_calls", stored)?;
    let call = all
        .iter_mut()
        .find(|c| c.id == call_id)
        .ok_or_else(|| StoreError::not_found(Entity::ToolCall, call_id))?;
    edit(call)?;
    if call.id != call_id {
        return Err(crate::Invalid::IdChanged {
            entity: Entity::ToolCall,
        }
        .into());
    }
    let edited = call.clone();
    Ok((to_json(&all)?, edited))
}

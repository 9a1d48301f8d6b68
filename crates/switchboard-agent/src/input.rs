//! What a person sends besides text: resources of the assistant's servers attached
//! to the message, read when it is sent and given to the model as context, and a server's
//! prompt used as a slash command, whose messages start the turn. Both are kept in the user
//! message's metadata (`attachments`, `prompt`), so the page shows them and every later round
//! replays them as they were sent; an attached resource the server says has changed is read
//! again before the next run ([`refresh`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ContentBlock, ReadResourceResult, ResourceContents, Role as McpRole};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use switchboard_core::{OwnerId, ServerId, ServerSpec};
use switchboard_mcp::{McpError, ServerPool};
use switchboard_store::{Message, MessageRole, NewMessage, Store, Timestamp};

use crate::error::AgentError;

/// Resources one message may carry.
pub const MAX_ATTACHMENTS: usize = 8;
/// Characters of one attached resource kept (and given to the model); the rest is cut.
pub const MAX_ATTACHMENT_CHARS: usize = 100_000;

/// The message metadata keys.
pub const ATTACHMENTS_KEY: &str = "attachments";
pub const PROMPT_KEY: &str = "prompt";

/// What the person sends.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserInput {
    pub text: String,
    pub attachments: Vec<AttachmentRef>,
    pub prompt: Option<PromptRef>,
}

impl UserInput {
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }
}

/// A resource to attach: a server the assistant uses, and one of its resource URIs (listed,
/// or a template filled in).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AttachmentRef {
    pub server_id: ServerId,
    pub uri: String,
}

/// A prompt to start the turn with, its arguments by name.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptRef {
    pub server_id: ServerId,
    pub name: String,
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// An attached resource as kept with the message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    pub server_id: ServerId,
    pub server_name: String,
    pub uri: String,
    /// The URI's last segment.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The contents as the model reads them (binary parts described).
    pub text: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    pub read_at: Timestamp,
}

/// A prompt as kept with the message: what was asked for, and the messages it gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsedPrompt {
    pub server_id: ServerId,
    pub server_name: String,
    pub name: String,
    pub arguments: Map<String, Value>,
    pub messages: Vec<PromptText>,
}

/// One message of a prompt, as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptText {
    /// `user` or `assistant`.
    pub role: String,
    pub text: String,
}

/// The user message `input` makes, its resources read and its prompt fetched through `pool`
/// from `servers` (the assistant's; another server is refused).
pub async fn compose(
    pool: &dyn ServerPool,
    owner: &OwnerId,
    servers: &[ServerSpec],
    input: UserInput,
) -> Result<NewMessage, AgentError> {
    if input.attachments.len() > MAX_ATTACHMENTS {
        return Err(AgentError::TooManyAttachments {
            max: MAX_ATTACHMENTS,
        });
    }
    let offered = |id: &ServerId| {
        servers
            .iter()
            .find(|spec| &spec.id == id && spec.enabled)
            .ok_or_else(|| AgentError::NotOffered {
                server: id.0.clone(),
            })
    };
    let mut message = NewMessage::text(MessageRole::User, input.text);
    if let Some(prompt) = input.prompt {
        let spec = offered(&prompt.server_id)?;
        let arguments = (!prompt.arguments.is_empty()).then(|| prompt.arguments.clone());
        let got = pool
            .get_prompt(owner, spec, &prompt.name, arguments)
            .await?;
        let used = UsedPrompt {
            server_id: spec.id.clone(),
            server_name: spec.name.clone(),
            name: prompt.name,
            arguments: prompt.arguments,
            messages: got
                .messages
                .iter()
                .map(|m| PromptText {
                    role: role_name(&m.role).to_owned(),
                    text: block_text(&m.content),
                })
                .collect(),
        };
        message.metadata.insert(PROMPT_KEY.into(), to_value(&used)?);
    }
    if !input.attachments.is_empty() {
        let mut attached = Vec::with_capacity(input.attachments.len());
        for reference in input.attachments {
            let spec = offered(&reference.server_id)?;
            attached.push(read(pool, owner, spec, &reference.uri).await?);
            // Told when it changes, to read it again before the next run (a server without
            // subscriptions is not asked).
            if let Err(error) = pool.subscribe_resource(owner, spec, &reference.uri).await {
                tracing::debug!(%error, uri = %reference.uri, "cannot follow an attached resource");
            }
        }
        message
            .metadata
            .insert(ATTACHMENTS_KEY.into(), to_value(&attached)?);
    }
    Ok(message)
}

fn to_value<T: Serialize>(value: &T) -> Result<Value, AgentError> {
    serde_json::to_value(value).map_err(AgentError::Encode)
}

fn role_name(role: &McpRole) -> &'static str {
    match role {
        McpRole::Assistant => "assistant",
        _ => "user",
    }
}

/// A prompt's content as text: text as it is, an embedded resource's text, anything else
/// named in brackets.
fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Resource(embedded) => contents_text(&embedded.resource),
        ContentBlock::ResourceLink(link) => format!("[resource {}]", link.uri),
        ContentBlock::Image(image) => format!("[image, {}]", image.mime_type),
        ContentBlock::Audio(audio) => format!("[audio, {}]", audio.mime_type),
        _ => "[content]".to_owned(),
    }
}

fn contents_text(contents: &ResourceContents) -> String {
    match contents {
        ResourceContents::TextResourceContents { text, .. } => text.clone(),
        ResourceContents::BlobResourceContents {
            mime_type, blob, ..
        } => format!(
            "[binary content, {}, {} bytes as base64]",
            mime_type.as_deref().unwrap_or("application/octet-stream"),
            blob.len()
        ),
        _ => "[content]".to_owned(),
    }
}

/// Reads `uri` of `spec` as an attachment.
async fn read(
    pool: &dyn ServerPool,
    owner: &OwnerId,
    spec: &ServerSpec,
    uri: &str,
) -> Result<Attachment, AgentError> {
    let result: ReadResourceResult = pool.read_resource(owner, spec, uri).await?;
    let text = result
        .contents
        .iter()
        .map(contents_text)
        .collect::<Vec<_>>()
        .join("\n");
    let (text, truncated) = cut(text, MAX_ATTACHMENT_CHARS);
    let mime_type = result.contents.iter().find_map(|c| match c {
        ResourceContents::TextResourceContents { mime_type, .. }
        | ResourceContents::BlobResourceContents { mime_type, .. } => mime_type.clone(),
        _ => None,
    });
    Ok(Attachment {
        server_id: spec.id.clone(),
        server_name: spec.name.clone(),
        uri: uri.to_owned(),
        name: uri
            .trim_end_matches('/')
            .rsplit(['/', ':'])
            .next()
            .filter(|segment| !segment.is_empty())
            .unwrap_or(uri)
            .to_owned(),
        mime_type,
        text,
        truncated,
        read_at: Timestamp::now(),
    })
}

fn cut(text: String, max: usize) -> (String, bool) {
    match text.char_indices().nth(max) {
        Some((at, _)) => (text[..at].to_owned(), true),
        None => (text, false),
    }
}

/// The user message as the model reads it: the prompt's messages (each in its role), then
/// the attached resources and the typed text together in the last user message.
pub fn replay_user(message: &Message) -> Vec<switchboard_llm::ChatMessage> {
    use switchboard_llm::{ChatMessage, Part, Role};
    let mut out: Vec<ChatMessage> = Vec::new();
    if let Some(prompt) = message
        .metadata
        .get(PROMPT_KEY)
        .and_then(|p| serde_json::from_value::<UsedPrompt>(p.clone()).ok())
    {
        for m in prompt.messages {
            let role = if m.role == "assistant" {
                Role::Assistant
            } else {
                Role::User
            };
            out.push(ChatMessage {
                role,
                content: vec![Part::Text(m.text)],
            });
        }
    }
    let mut parts = Vec::new();
    for attachment in attachments_of(message) {
        parts.push(Part::Text(context_block(&attachment)));
    }
    if !message.content.is_empty() || (out.is_empty() && parts.is_empty()) {
        parts.push(Part::Text(message.content.clone()));
    }
    if !parts.is_empty() {
        match out.last_mut() {
            Some(last) if last.role == Role::User => last.content.extend(parts),
            _ => out.push(ChatMessage {
                role: Role::User,
                content: parts,
            }),
        }
    }
    out
}

/// The resources attached to `message`.
pub fn attachments_of(message: &Message) -> Vec<Attachment> {
    message
        .metadata
        .get(ATTACHMENTS_KEY)
        .and_then(|a| serde_json::from_value(a.clone()).ok())
        .unwrap_or_default()
}

/// An attachment as the model reads it.
fn context_block(attachment: &Attachment) -> String {
    let cut = if attachment.truncated {
        " truncated=\"true\""
    } else {
        ""
    };
    format!(
        "<resource server=\"{}\" uri=\"{}\"{cut}>\n{}\n</resource>",
        attachment.server_name, attachment.uri, attachment.text
    )
}

/// When each (owner, server, resource) last said it changed, from the pool's
/// `notifications/resources/updated` (fed by whoever owns the pool: [`ResourceChanges::follow`]).
#[derive(Debug, Default, Clone)]
pub struct ResourceChanges {
    changed: Arc<Mutex<HashMap<ResourceKey, Timestamp>>>,
}

/// A resource of one person's server: (owner, server, URI).
type ResourceKey = (OwnerId, ServerId, String);

/// Changes remembered at most; the oldest go first (their attachments are then read again only
/// if another change comes).
const MAX_CHANGES: usize = 4096;

impl ResourceChanges {
    /// Follows `pool`'s resource updates until it closes.
    pub fn follow(&self, pool: &Arc<dyn ServerPool>) -> tokio::task::JoinHandle<()> {
        let mut updates = pool.resource_updates();
        let changes = self.clone();
        tokio::spawn(async move {
            loop {
                match updates.recv().await {
                    Ok(update) => changes.record(update.owner, update.server, update.uri),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
            }
        })
    }

    pub fn record(&self, owner: OwnerId, server: ServerId, uri: String) {
        let mut changed = self.changed.lock().unwrap_or_else(PoisonError::into_inner);
        if changed.len() >= MAX_CHANGES
            && let Some(oldest) = changed
                .iter()
                .min_by_key(|(_, at)| at.0)
                .map(|(key, _)| key.clone())
        {
            changed.remove(&oldest);
        }
        changed.insert((owner, server, uri), Timestamp::now());
    }

    fn changed_after(&self, owner: &OwnerId, attachment: &Attachment) -> bool {
        let changed = self.changed.lock().unwrap_or_else(PoisonError::into_inner);
        changed
            .get(&(
                owner.clone(),
                attachment.server_id.clone(),
                attachment.uri.clone(),
            ))
            .is_some_and(|at| at.0 >= attachment.read_at.0)
    }

    fn any_for(&self, owner: &OwnerId) -> bool {
        let changed = self.changed.lock().unwrap_or_else(PoisonError::into_inner);
        changed.keys().any(|(o, _, _)| o == owner)
    }
}

/// Reads again the attachments of `conversation_id` whose resources changed since they were
/// read, and keeps the new contents with their messages. Cheap when nothing of `owner`'s
/// changed (no store read); a resource that cannot be read now keeps its last contents.
pub async fn refresh(
    pool: &dyn ServerPool,
    store: &dyn Store,
    changes: &ResourceChanges,
    owner: &OwnerId,
    conversation_id: &str,
    servers: &[ServerSpec],
) -> Result<(), AgentError> {
    if !changes.any_for(owner) {
        return Ok(());
    }
    for message in store.messages(owner, conversation_id).await? {
        let mut attachments = attachments_of(&message);
        let mut renewed = false;
        for attachment in &mut attachments {
            if !changes.changed_after(owner, attachment) {
                continue;
            }
            let Some(spec) = servers.iter().find(|s| s.id == attachment.server_id) else {
                continue;
            };
            match read(pool, owner, spec, &attachment.uri).await {
                Ok(fresh) => {
                    *attachment = fresh;
                    renewed = true;
                }
                Err(error) => {
                    tracing::debug!(%error, uri = %attachment.uri, "a changed attachment could not be read again");
                }
            }
        }
        if renewed {
            let mut metadata = message.metadata.clone();
            metadata.insert(ATTACHMENTS_KEY.into(), to_value(&attachments)?);
            store
                .set_message_content(owner, &message.id, &message.content, Some(&metadata))
                .await?;
        }
    }
    Ok(())
}

impl From<McpError> for AgentError {
    fn from(error: McpError) -> Self {
        AgentError::Mcp(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(content: &str, metadata: Value) -> Message {
        Message {
            id: "m".into(),
            conversation_id: "c".into(),
            role: MessageRole::User,
            content: content.into(),
            tool_calls: Vec::new(),
            metadata: metadata.as_object().cloned().unwrap_or_default(),
            created_at: Timestamp::now(),
            updated_at: Timestamp::now(),
        }
    }

    fn texts(out: &[switchboard_llm::ChatMessage]) -> Vec<(String, Vec<String>)> {
        out.iter()
            .map(|m| {
                (
                    format!("{:?}", m.role),
                    m.content
                        .iter()
                        .map(|p| match p {
                            switchboard_llm::Part::Text(t) => t.clone(),
                            other => format!("{other:?}"),
                        })
                        .collect(),
                )
            })
            .collect()
    }

    #[test]
    fn a_plain_message_is_its_text() {
        let out = replay_user(&message("hello", Value::Null));
        assert_eq!(texts(&out), vec![("User".into(), vec!["hello".into()])]);
    }

    #[test]
    fn attachments_come_before_the_text_in_one_user_message() {
        let now = Timestamp::now();
        let metadata = serde_json::json!({ "attachments": [{
            "serverId": "docs", "serverName": "docs", "uri": "file:///a.md", "name": "a.md",
            "text": "# A", "readAt": now,
        }]});
        let out = replay_user(&message("summarise", metadata));
        assert_eq!(
            texts(&out),
            vec![(
                "User".into(),
                vec![
                    "<resource server=\"docs\" uri=\"file:///a.md\">\n# A\n</resource>".into(),
                    "summarise".into()
                ]
            )]
        );
    }

    #[test]
    fn a_prompts_messages_start_the_turn_in_their_roles() {
        let metadata = serde_json::json!({ "prompt": {
            "serverId": "s", "serverName": "s", "name": "p", "arguments": {},
            "messages": [
                {"role": "user", "text": "Be a poet."},
                {"role": "assistant", "text": "I am one."},
                {"role": "user", "text": "Write about the sea."},
            ],
        }});
        let out = replay_user(&message("", metadata.clone()));
        assert_eq!(
            texts(&out),
            vec![
                ("User".into(), vec!["Be a poet.".into()]),
                ("Assistant".into(), vec!["I am one.".into()]),
                ("User".into(), vec!["Write about the sea.".into()]),
            ]
        );
        // Typed text joins the prompt's last user message.
        let out = replay_user(&message("In French.", metadata));
        assert_eq!(
            texts(&out)[2],
            (
                "User".into(),
                vec!["Write about the sea.".into(), "In French.".into()]
            )
        );
    }

    #[test]
    fn text_is_cut_on_a_character_boundary() {
        assert_eq!(cut("héllo".into(), 2), ("hé".into(), true));
        assert_eq!(cut("hé".into(), 2), ("hé".into(), false));
    }
}

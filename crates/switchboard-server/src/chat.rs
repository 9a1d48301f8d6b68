//! One chat turn answered in one request (seed 000's `ConversationService.processUserMessage`):
//! find or start the conversation, bring in what the client sent with it, send the user's
//! message, and wait until the turn is answered, failed, or waits for an approval.
//!
//! The seed route (`routes/seed_000/chat.rs`) only translates shapes into a [`ChatTurn`]. The
//! rules a client can rely on:
//!
//! - The conversation is the one named by id (it must exist), else the caller's conversation
//!   for the client's session key (created on first use; keys are per user, so another user's
//!   key never reaches this conversation), else a new one.
//! - `history` (the messages before the turn) is stored only when the conversation is new, so
//!   a stateless client that resends the whole list each time starts with that history and
//!   never duplicates it; for a conversation that exists, the stored messages are the history
//!   and earlier messages in the request are not stored again.
//! - A system prompt is stored as a system message when it differs from the conversation's
//!   latest one; the latest system message is the conversation's system prompt
//!   ([`crate::runs::run_spec`]).
//! - `variables` are merged into the conversation's (a `null` value removes its key).
//! - A server limit must name one of the caller's servers; it holds for the conversation's
//!   runs from then on (also a run resumed after an approval) until a request names another.

use serde_json::{Map, Value};
use switchboard_agent::{CallUpdate, EventKind};
use switchboard_core::{OwnerId, ServerId};
use switchboard_store::{Message, MessageRole, NewConversation, NewMessage};

use crate::error::ApiError;
use crate::live::Subscription;
use crate::state::AppState;

/// Which conversation a turn goes to.
#[derive(Debug, Clone)]
pub enum Target {
    /// This existing conversation.
    Id(String),
    /// The caller's conversation for this client-chosen key.
    Session(String),
    /// A new conversation.
    New,
}

/// One turn as a client asks for it.
#[derive(Debug, Clone)]
pub struct ChatTurn {
    pub target: Target,
    /// The user's message.
    pub text: String,
    /// Messages before it (user and assistant), stored only in a new conversation.
    pub history: Vec<NewMessage>,
    pub system_prompt: Option<String>,
    pub variables: Map<String, Value>,
    pub server: Option<ServerId>,
}

/// How a turn was left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnStatus {
    /// The model answered (or the turn ended by its round limit or a cancellation).
    Completed,
    /// A tool call waits for a decision; give it with `tool-confirm`, the run goes on.
    AwaitingApproval,
    /// The run failed; the error says why.
    Failed,
}

/// What a turn came to.
#[derive(Debug)]
pub struct TurnResult {
    pub conversation_id: String,
    pub status: TurnStatus,
    /// The assistant's message as stored (its content is what a person reads).
    pub message: Option<Message>,
    /// The `run.failed` event's data when the run failed.
    pub error: Option<Value>,
}

/// Answers one turn; see the module docs for the rules.
pub async fn one_turn(
    state: &AppState,
    owner: &OwnerId,
    turn: ChatTurn,
) -> Result<TurnResult, ApiError> {
    if let Some(server) = &turn.server {
        // Another user's server is not found, like every other id.
        state.store.server(owner, server).await?;
    }
    let title: String = turn.text.chars().take(60).collect();
    let (conversation, created) = match &turn.target {
        Target::Id(id) => (state.store.conversation(owner, id).await?, false),
        Target::Session(key) => {
            let max = Some(state.limits.max_conversations);
            state
                .store
                .session_conversation(owner, key, &title, max)
                .await?
        }
        Target::New => {
            let new = NewConversation {
                title,
                assistant_id: None,
            };
            let max = state.limits.max_conversations;
            let created = state.store.create_conversation_within(owner, &new, max);
            (created.await?, true)
        }
    };
    let id = conversation.id.clone();
    let started = start_turn(state, owner, &turn, &id, conversation.server_id, created).await;
    let subscription = match started {
        Ok(subscription) => subscription,
        Err(error) => {
            // A refused turn (a NUL in its history, too many runs) leaves nothing behind: the
            // conversation it created goes, with whatever was stored into it.
            if created && let Err(cleanup) = state.store.delete_conversation(owner, &id).await {
                tracing::warn!(conversation = %id, error = %cleanup, "could not remove a refused turn's conversation");
            }
            return Err(error);
        }
    };
    let (status, error) = settle(subscription, &id).await;
    // This turn's answer only: an assistant message after the turn's own user message (the
    // last one; the conversation's lease lets one turn run at a time). A run that failed
    // before it wrote one answers none, never an earlier turn's.
    let stored = state.store.messages(owner, &id).await?;
    let turn_start = stored
        .iter()
        .rposition(|m| m.role == MessageRole::User)
        .map_or(0, |i| i + 1);
    let message = stored
        .into_iter()
        .skip(turn_start)
        .rev()
        .find(|m| m.role == MessageRole::Assistant);
    Ok(TurnResult {
        conversation_id: id,
        status,
        message,
        error,
    })
}

/// A turn up to its run's start: the server limit, variables, system prompt and (in a new
/// conversation, `created`) history stored, the user's message sent. Returns what to wait on
/// for the turn's end.
async fn start_turn(
    state: &AppState,
    owner: &OwnerId,
    turn: &ChatTurn,
    id: &str,
    limited_to: Option<ServerId>,
    created: bool,
) -> Result<Subscription, ApiError> {
    if turn.server.is_some() && limited_to != turn.server {
        state
            .store
            .limit_to_server(owner, id, turn.server.as_ref())
            .await?;
    }
    if !turn.variables.is_empty() {
        state
            .store
            .merge_variables(owner, id, &turn.variables)
            .await?;
    }
    if let Some(prompt) = &turn.system_prompt {
        let stored = state.store.messages(owner, id).await?;
        let latest = stored.iter().rev().find(|m| m.role == MessageRole::System);
        if latest.is_none_or(|m| m.content != *prompt) {
            let system = NewMessage::text(MessageRole::System, prompt.clone());
            state.store.append_message(owner, id, &system).await?;
        }
    }
    if created {
        for message in &turn.history {
            state.store.append_message(owner, id, message).await?;
        }
    }
    // Subscribed before the run starts, so no event of it is missed.
    let subscription = state.events.subscribe(owner, None);
    state
        .runs
        .send(
            owner,
            id,
            switchboard_agent::input::UserInput::text(&turn.text),
            switchboard_app::runs::OnPendingTask::Refuse,
        )
        .await?;
    Ok(subscription)
}

/// Waits for the conversation's turn to end or to wait for a decision.
async fn settle(
    mut subscription: Subscription,
    conversation_id: &str,
) -> (TurnStatus, Option<Value>) {
    loop {
        let received = tokio::select! {
            () = subscription.closed.cancelled() => return (TurnStatus::Completed, None),
            received = subscription.live.recv() => received,
        };
        let Ok(logged) = received else {
            // Fell behind or closed: the caller reads the stored state instead.
            return (TurnStatus::Completed, None);
        };
        if logged.conversation_id.as_deref() != Some(conversation_id) {
            continue;
        }
        match EventKind::parse(logged.kind) {
            Some(EventKind::MessageCompleted) => return (TurnStatus::Completed, None),
            Some(EventKind::RunFailed) => {
                let data: Value = serde_json::from_str(&logged.data).unwrap_or_default();
                return (TurnStatus::Failed, Some(data));
            }
            Some(EventKind::ToolCallUpdated)
                if CallUpdate::parse(&logged.data)
                    .is_some_and(|update| update.awaits_decision()) =>
            {
                return (TurnStatus::AwaitingApproval, None);
            }
            _ => {}
        }
    }
}

//! What a run announces, after it is stored. The HTTP layer serves these as SSE; the terminal
//! chat prints them.

use serde::Serialize;
use switchboard_core::{OwnerId, ToolCallRecord};
use switchboard_store::Message;
use tokio::sync::broadcast;

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model answered without asking for tools.
    Answered,
    /// `max_rounds` rounds of tool calls were made.
    MaxRounds,
    /// The run was cancelled.
    Cancelled,
}

/// One announcement. Every state it reports is already in the store.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum AgentEvent {
    #[serde(rename = "message.created", rename_all = "camelCase")]
    MessageCreated {
        conversation_id: String,
        message: Box<Message>,
    },
    /// More text of an answer; `delta` follows what was announced before.
    #[serde(rename = "message.delta", rename_all = "camelCase")]
    MessageDelta {
        conversation_id: String,
        message_id: String,
        delta: String,
    },
    #[serde(rename = "assistant.toolCall.updated", rename_all = "camelCase")]
    ToolCallUpdated {
        conversation_id: String,
        message_id: String,
        tool_call: Box<ToolCallRecord>,
    },
    #[serde(rename = "message.completed", rename_all = "camelCase")]
    MessageCompleted {
        conversation_id: String,
        message_id: String,
        content: String,
        stop: StopReason,
    },
    #[serde(rename = "run.failed", rename_all = "camelCase")]
    RunFailed {
        conversation_id: String,
        code: String,
        message: String,
    },
}

/// An event and whose it is.
#[derive(Debug, Clone)]
pub struct OwnedEvent {
    pub owner: OwnerId,
    pub event: AgentEvent,
}

/// Fan-out of events to every subscriber. Slow subscribers miss events rather than slow a run
/// (they can reload from the store, where everything already is).
#[derive(Debug, Clone)]
pub struct EventBus {
    sender: broadcast::Sender<OwnedEvent>,
}

impl Default for EventBus {
    fn default() -> Self {
        Self {
            sender: broadcast::channel(4096).0,
        }
    }
}

impl EventBus {
    pub fn publish(&self, owner: &OwnerId, event: AgentEvent) {
        // No subscriber is not an error.
        let _ = self.sender.send(OwnedEvent {
            owner: owner.clone(),
            event,
        });
    }

    pub fn subscribe(&self) -> broadcast::Receiver<OwnedEvent> {
        self.sender.subscribe()
    }
}

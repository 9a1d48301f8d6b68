//! What a run announces, after it is stored. The HTTP layer serves these as SSE; the terminal
//! chat prints them.

use serde::{Deserialize, Serialize};
use switchboard_core::{ErrorCode, OwnerId, ToolCallRecord, ToolCallStatus};
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
    /// Every call still going runs as a task: the run ended without finishing the turn, and
    /// the turn goes on when a task ends (announced as `run.parked`, not as a completion).
    WaitingOnTasks,
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
        code: ErrorCode,
        message: String,
    },
    /// A task was created, changed status or message, or ended.
    #[serde(rename = "task.updated", rename_all = "camelCase")]
    TaskUpdated(Box<TaskUpdate>),
    /// The run ended while the turn waits on tasks: the conversation is free, and the turn
    /// goes on (the same message) when a task ends. Not the turn's end.
    #[serde(rename = "run.parked", rename_all = "camelCase")]
    RunParked {
        conversation_id: String,
        message_id: String,
    },
}

/// A task as `task.updated` tells it: where it stands, and the chat call it belongs to.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskUpdate {
    pub task_id: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    pub server_id: String,
    pub tool: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
}

impl TaskUpdate {
    pub fn of(task: &switchboard_store::StoredTask) -> Self {
        Self {
            task_id: task.id.clone(),
            status: task.status.as_str(),
            status_message: task.status_message.clone(),
            server_id: task.server_id.0.clone(),
            tool: task.tool.clone(),
            conversation_id: task.conversation_id.clone(),
            message_id: task.message_id.clone(),
            call_id: task.call_id.clone(),
        }
    }
}

/// What kind of announcement an event is: its `type` on the wire, written once here and
/// matched by kind everywhere else (the event log, the relay across replicas, the waits for
/// a run's end).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    MessageCreated,
    MessageDelta,
    ToolCallUpdated,
    MessageCompleted,
    RunFailed,
    TaskUpdated,
    RunParked,
}

impl EventKind {
    /// Every kind.
    pub const ALL: [EventKind; 7] = [
        EventKind::MessageCreated,
        EventKind::MessageDelta,
        EventKind::ToolCallUpdated,
        EventKind::MessageCompleted,
        EventKind::RunFailed,
        EventKind::TaskUpdated,
        EventKind::RunParked,
    ];

    /// The event's `type`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::MessageCreated => "message.created",
            EventKind::MessageDelta => "message.delta",
            EventKind::ToolCallUpdated => "assistant.toolCall.updated",
            EventKind::MessageCompleted => "message.completed",
            EventKind::RunFailed => "run.failed",
            EventKind::TaskUpdated => "task.updated",
            EventKind::RunParked => "run.parked",
        }
    }

    /// The kind whose `type` is `text`.
    pub fn parse(text: &str) -> Option<EventKind> {
        EventKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == text)
    }

    /// Whether a run's turn ends with it. A parked run's does not: its turn goes on when its
    /// tasks end, and a wait for the turn's answer waits through it.
    pub fn ends_run(self) -> bool {
        matches!(self, EventKind::MessageCompleted | EventKind::RunFailed)
    }
}

impl AgentEvent {
    pub fn kind(&self) -> EventKind {
        match self {
            AgentEvent::MessageCreated { .. } => EventKind::MessageCreated,
            AgentEvent::MessageDelta { .. } => EventKind::MessageDelta,
            AgentEvent::ToolCallUpdated { .. } => EventKind::ToolCallUpdated,
            AgentEvent::MessageCompleted { .. } => EventKind::MessageCompleted,
            AgentEvent::RunFailed { .. } => EventKind::RunFailed,
            AgentEvent::TaskUpdated(_) => EventKind::TaskUpdated,
            AgentEvent::RunParked { .. } => EventKind::RunParked,
        }
    }

    /// The conversation it is about; `None` for a task of no conversation.
    pub fn conversation_id(&self) -> Option<&str> {
        Some(match self {
            AgentEvent::MessageCreated {
                conversation_id, ..
            }
            | AgentEvent::MessageDelta {
                conversation_id, ..
            }
            | AgentEvent::ToolCallUpdated {
                conversation_id, ..
            }
            | AgentEvent::MessageCompleted {
                conversation_id, ..
            }
            | AgentEvent::RunFailed {
                conversation_id, ..
            }
            | AgentEvent::RunParked {
                conversation_id, ..
            } => conversation_id,
            AgentEvent::TaskUpdated(task) => return task.conversation_id.as_deref(),
        })
    }
}

/// Where a call of an `assistant.toolCall.updated` event stands, read back from the event's
/// JSON (another replica's event, the event log's): the fields a waiting run or a waiting
/// request decides on, typed, so nothing indexes the JSON by hand. A relayed event cut short
/// for its size keeps them.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallUpdate {
    pub message_id: String,
    pub tool_call: CallStanding,
}

/// A tool call's status and decision.
#[derive(Debug, Clone, Deserialize)]
pub struct CallStanding {
    pub status: ToolCallStatus,
    #[serde(default)]
    pub approved: Option<bool>,
}

impl CallUpdate {
    /// The update in an event's data; `None` for data that is not one.
    pub fn parse(data: &str) -> Option<CallUpdate> {
        serde_json::from_str(data).ok()
    }

    /// Pending and decided: a run waiting for the decision can go on.
    pub fn is_decided(&self) -> bool {
        self.tool_call.status == ToolCallStatus::Pending && self.tool_call.approved.is_some()
    }

    /// Pending and undecided: it waits for a person.
    pub fn awaits_decision(&self) -> bool {
        self.tool_call.status == ToolCallStatus::Pending && self.tool_call.approved.is_none()
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The kind's text is the `type` serde writes, for every kind.
    #[test]
    fn each_kind_is_the_type_on_the_wire() {
        let events = [
            AgentEvent::MessageDelta {
                conversation_id: "c".into(),
                message_id: "m".into(),
                delta: "d".into(),
            },
            AgentEvent::MessageCompleted {
                conversation_id: "c".into(),
                message_id: "m".into(),
                content: String::new(),
                stop: StopReason::Answered,
            },
            AgentEvent::RunFailed {
                conversation_id: "c".into(),
                code: ErrorCode::InternalError,
                message: String::new(),
            },
            AgentEvent::RunParked {
                conversation_id: "c".into(),
                message_id: "m".into(),
            },
        ];
        for event in &events {
            let json = serde_json::to_value(event).expect("encodes");
            assert_eq!(json["type"], event.kind().as_str());
            assert_eq!(EventKind::parse(event.kind().as_str()), Some(event.kind()));
            assert_eq!(event.conversation_id(), Some("c"));
        }
        assert_eq!(
            EventKind::parse("assistant.toolCall.updated"),
            Some(EventKind::ToolCallUpdated)
        );
        assert_eq!(
            EventKind::parse("message.created"),
            Some(EventKind::MessageCreated)
        );
        assert!(!EventKind::RunParked.ends_run() && EventKind::MessageCompleted.ends_run());
    }

    #[test]
    fn a_call_update_is_read_back_typed() {
        let decided = CallUpdate::parse(
            r#"{"messageId":"m","toolCall":{"status":"pending","approved":true},"truncated":true}"#,
        )
        .expect("an update");
        assert_eq!(decided.message_id, "m");
        assert!(decided.is_decided() && !decided.awaits_decision());
        let waiting =
            CallUpdate::parse(r#"{"messageId":"m","toolCall":{"status":"pending"}}"#).unwrap();
        assert!(waiting.awaits_decision() && !waiting.is_decided());
        let running = CallUpdate::parse(
            r#"{"messageId":"m","toolCall":{"status":"invoking","approved":true}}"#,
        )
        .unwrap();
        assert!(!running.is_decided() && !running.awaits_decision());
        assert!(CallUpdate::parse(r#"{"delta":"hi"}"#).is_none());
    }
}

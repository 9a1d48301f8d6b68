//! The record of one tool call the model asked for (seed 001 `ToolCallRecord`).
//!
//! Records live inside the assistant message that asked for them (`toolCalls`), so a run of
//! consecutive calls is one message, not a bubble per call. Their JSON form is the seed's
//! (camelCase), since it is what the browser and the event stream see.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::spec::ServerId;

/// Where a tool call is in its life: `pending` (waiting for approval) -> `invoking` ->
/// `done` | `error`, or `cancelled` from either of the first two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ToolCallStatus {
    Pending,
    Invoking,
    Done,
    Error,
    Cancelled,
}

impl ToolCallStatus {
    /// The serialized name.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolCallStatus::Pending => "pending",
            ToolCallStatus::Invoking => "invoking",
            ToolCallStatus::Done => "done",
            ToolCallStatus::Error => "error",
            ToolCallStatus::Cancelled => "cancelled",
        }
    }

    /// No further change is allowed.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            ToolCallStatus::Done | ToolCallStatus::Error | ToolCallStatus::Cancelled
        )
    }

    /// Whether a call in this state may move to `next`: forward only, never out of a
    /// terminal state.
    pub fn can_become(self, next: ToolCallStatus) -> bool {
        use ToolCallStatus::*;
        match self {
            Pending => matches!(next, Invoking | Done | Error | Cancelled),
            Invoking => matches!(next, Done | Error | Cancelled),
            Done | Error | Cancelled => false,
        }
    }
}

/// One tool call inside an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ToolCallRecord {
    /// The provider's id for the call (`tool_use_id`, `call_...`).
    pub id: String,
    pub server_id: ServerId,
    pub server_name: String,
    /// The tool's own name on its server.
    pub tool_name: String,
    /// The name the model saw (`mcp__{server}__{tool}`).
    pub display_name: String,
    /// The arguments as the model asked for them (what it is shown again when the
    /// conversation is replayed to it).
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub arguments: Map<String, Value>,
    /// For a tool offered through a tool node: the arguments that run, the model's with the
    /// node's mappings filled in from the run's variables (credential-named fields and the
    /// server's secrets masked). Set when the call is recorded, for the person who approves
    /// it, and again when it runs, to what was sent. Never shown to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub resolved_arguments: Option<Map<String, Value>>,
    /// For a tool offered through a tool node: the parameters its mappings fill, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mapped_parameters: BTreeMap<String, MappedParameter>,
    pub status: ToolCallStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub response: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Which model call of the turn asked for it (0 for the first), so the conversation can be
    /// replayed to the model round by round.
    #[serde(default)]
    pub round: u32,
    /// The decision on a call that needed one: `true` approved (by a person or because the tool
    /// is auto-approved), `false` rejected, absent while it waits. A `pending` call that is
    /// approved waits only for its turn to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved: Option<bool>,
    /// A question the server asked the person while the call ran (MCP elicitation), with the
    /// answer once given; the latest one, kept with the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<ServerQuestion>,
    /// A 2026-07-28 server's input-required answer this call waits on (its requests, the
    /// state to send back, the responses given so far): kept so that the call can be sent
    /// again with the person's answers after a restart, as a waiting approval is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_input: Option<PendingInput>,
    /// The task the call runs as, when its server runs it as one (MCP tasks): the call stays
    /// `invoking` while it is live, and the turn waits for it without holding a run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskRef>,
}

impl ToolCallRecord {
    /// Whether the call is running as a task: its turn waits for the task's end.
    pub fn waits_on_task(&self) -> bool {
        self.status == ToolCallStatus::Invoking && self.task.is_some()
    }
}

/// A call's task as the chat shows it: kept with the call so that a reload shows where it
/// stands; the task itself (what its poller needs) is kept apart, and read with
/// `GET /api/tasks/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TaskRef {
    /// Switchboard's id of the task (`tsk_…`).
    pub id: String,
    pub status: CallTaskStatus,
    /// What the server last said of its progress, at most [`TaskRef::MAX_STATUS_MESSAGE`]
    /// characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When the task was started, in milliseconds since the Unix epoch.
    pub created_at: i64,
}

impl TaskRef {
    /// The most characters of a status message kept with a call.
    pub const MAX_STATUS_MESSAGE: usize = 500;

    /// `message` as kept with a call: cut to [`TaskRef::MAX_STATUS_MESSAGE`] characters.
    pub fn status_message_of(message: Option<&str>) -> Option<String> {
        message.map(|m| m.chars().take(Self::MAX_STATUS_MESSAGE).collect())
    }
}

/// Where a call's task is (MCP's task statuses): `working` and `input_required` are live,
/// the others final.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum CallTaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl CallTaskStatus {
    /// The status of its written form (`working`, …); `None` for any other text.
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "working" => CallTaskStatus::Working,
            "input_required" => CallTaskStatus::InputRequired,
            "completed" => CallTaskStatus::Completed,
            "failed" => CallTaskStatus::Failed,
            "cancelled" => CallTaskStatus::Cancelled,
            _ => return None,
        })
    }

    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            CallTaskStatus::Completed | CallTaskStatus::Failed | CallTaskStatus::Cancelled
        )
    }
}

/// Where a tool node's mapping takes a parameter's value from.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MappedParameter {
    /// The variables its template reads (`user.name`, `greeting`); empty for a value fixed
    /// in the node.
    #[serde(default)]
    pub variables: Vec<String>,
}

/// What a call needs to be sent again to a server that answered it input-required
/// (SEP-2322): `tools/call` with `inputResponses` and the echoed `requestState`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PendingInput {
    /// The server's `requestState`, opaque, echoed as it came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// The server's `inputRequests`, by its keys (MCP request objects).
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub requests: Map<String, Value>,
    /// The responses given so far, by the same keys (MCP result objects).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub responses: Map<String, Value>,
    /// The key of the request the call's `question` asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asking: Option<String>,
}

/// A question a server asks the person in the middle of a tool call (`elicitation/create`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ServerQuestion {
    /// Names this question among the call's (an answer must name it).
    pub id: String,
    /// `form`: fill in `requestedSchema`'s fields; `url`: go to `url` and come back.
    pub mode: QuestionMode,
    /// What the server says it needs, in its own words.
    pub message: String,
    /// The fields asked for (a flat JSON Schema object of strings, numbers, booleans and
    /// enums, with their defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub requested_schema: Option<Value>,
    /// Where the person answers, in url mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// What the server asks the model, in sampling mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingReview>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<QuestionAnswer>,
}

/// A server's `sampling/createMessage`, as the person reviews it: first the request (its
/// messages may be edited, or it is rejected), then the model's answer (edited, returned or
/// rejected).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SamplingReview {
    pub stage: SamplingStage,
    /// The conversation the server wants answered (text; other content described in words).
    pub messages: Vec<SamplingText>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The request's `maxTokens`, cut to the server's cap.
    pub max_tokens: u32,
    /// The model that answers: the assistant's.
    pub model: String,
    /// The models the server would prefer (`modelPreferences.hints`), for the person to see.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub model_hints: Vec<String>,
    /// The model's answer, at the `answer` stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// Answered without review (the server's sampling setting).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub auto: bool,
}

/// One message of a sampling request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SamplingText {
    /// `user` or `assistant`.
    pub role: String,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum SamplingStage {
    /// The request, before it goes to the model.
    Request,
    /// The model's answer, before it goes back to the server.
    Answer,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum QuestionMode {
    Form,
    Url,
    /// `sampling/createMessage`: see [`ServerQuestion::sampling`].
    Sampling,
}

/// The person's answer (MCP's `ElicitResult`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct QuestionAnswer {
    pub action: QuestionAction,
    /// The fields filled in, with `accept` in form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub content: Option<Map<String, Value>>,
}

/// `accept` (with the content), `decline` (the tool goes on without it) or `cancel` (the
/// person stops the operation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum QuestionAction {
    Accept,
    Decline,
    Cancel,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_states_never_change() {
        use ToolCallStatus::*;
        for done in [Done, Error, Cancelled] {
            for next in [Pending, Invoking, Done, Error, Cancelled] {
                assert!(!done.can_become(next));
            }
        }
        assert!(Pending.can_become(Invoking));
        assert!(!Invoking.can_become(Pending));
    }

    #[test]
    fn json_is_the_seed_shape() {
        let record = ToolCallRecord {
            id: "call_1".into(),
            server_id: ServerId("files".into()),
            server_name: "Files".into(),
            tool_name: "read".into(),
            display_name: "mcp__files__read".into(),
            arguments: Map::new(),
            resolved_arguments: None,
            mapped_parameters: BTreeMap::new(),
            status: ToolCallStatus::Pending,
            response: None,
            is_error: None,
            round: 0,
            approved: None,
            question: None,
            pending_input: None,
            task: None,
        };
        let json = serde_json::to_value(&record).unwrap();
        assert_eq!(json["serverId"], "files");
        assert_eq!(json["displayName"], "mcp__files__read");
        assert_eq!(json["status"], "pending");
        assert!(json.get("resolvedArguments").is_none() && json.get("mappedParameters").is_none());
        assert!(json.get("task").is_none());
    }

    #[test]
    fn a_call_keeps_its_task_and_old_records_read_without_one() {
        let old = serde_json::json!({
            "id": "c", "serverId": "s", "serverName": "S", "toolName": "t",
            "displayName": "mcp__s__t", "arguments": {}, "status": "invoking",
        });
        let mut call: ToolCallRecord = serde_json::from_value(old).unwrap();
        assert!(call.task.is_none() && !call.waits_on_task());
        call.task = Some(TaskRef {
            id: "tsk_1".into(),
            status: CallTaskStatus::InputRequired,
            status_message: TaskRef::status_message_of(Some(&"x".repeat(600))),
            created_at: 1_700_000_000_000,
        });
        assert!(call.waits_on_task());
        let json = serde_json::to_value(&call).unwrap();
        assert_eq!(json["task"]["id"], "tsk_1");
        assert_eq!(json["task"]["status"], "input_required");
        assert_eq!(json["task"]["createdAt"], 1_700_000_000_000_i64);
        assert_eq!(json["task"]["statusMessage"].as_str().unwrap().len(), 500);
        let back: ToolCallRecord = serde_json::from_value(json).unwrap();
        assert_eq!(back, call);
        for status in [
            "working",
            "input_required",
            "completed",
            "failed",
            "cancelled",
        ] {
            let parsed = CallTaskStatus::parse(status).unwrap();
            assert_eq!(serde_json::to_value(parsed).unwrap(), status);
            assert_eq!(
                parsed.is_terminal(),
                !matches!(status, "working" | "input_required")
            );
        }
        call.status = ToolCallStatus::Done;
        assert!(!call.waits_on_task());
    }
}

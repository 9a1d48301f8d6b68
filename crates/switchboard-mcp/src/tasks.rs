//! Tasks a server runs for us (MCP tasks): what starting a call as a task gives, and a task's
//! state as the server reports it, in either dialect ([`TaskDialect`]). The server's task id
//! (`upstream_id`) is for Switchboard's own bookkeeping; it is never shown to anyone.
//!
//! The dialects say the same things in different shapes: the 2025-11-25 revision's `Task`
//! (`ttl`, `pollInterval`, the outcome fetched with `tasks/result`) is read here from its JSON
//! ([`WireTask`]); the 2026-07-28 extension's (`ttlMs`, `pollIntervalMs`, the outcome and the
//! server's questions inlined in `tasks/get`) from rmcp's types ([`extension`]).

use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::CallToolResult;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub(crate) mod extension;

/// What starting a call as a task gave.
#[derive(Debug, Clone)]
pub enum Started {
    /// The tool answered at once: it does not run as a task, or the server chose to.
    Done(CallToolResult),
    /// The server runs it as this task.
    Task(TaskState),
}

/// Where a task is in its life. `Working` and `InputRequired` are live; the others final.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Working,
    /// The server waits for an answer: asked on `tasks/result` (2025-11-25), or listed in
    /// [`TaskState::input_requests`] and answered by `tasks/update` (the extension).
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// Which of MCP's two task dialects a task is of. They are not wire-compatible, so every step
/// of a task is sent in the dialect that started it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskDialect {
    /// The 2025-11-25 revision's experimental tasks: the server marks each tool
    /// (`execution.taskSupport`), the caller asks for a task (`tools/call` with `task`), and
    /// the outcome is fetched with `tasks/result`, which also carries the server's questions.
    Legacy,
    /// The 2026-07-28 extension `io.modelcontextprotocol/tasks`: the caller declares it per
    /// request, the server decides per call, and `tasks/get` inlines the outcome and the
    /// server's questions, answered by `tasks/update`.
    Extension,
}

/// How a task ended, when its state says so (the extension inlines it in `tasks/get`; a
/// 2025-11-25 task's is fetched with `tasks/result`).
#[derive(Debug, Clone, PartialEq)]
pub enum TaskOutcome {
    /// The tool's result, an `isError: true` one included.
    Completed(CallToolResult),
    /// The JSON-RPC error the call ended with.
    Failed(ErrorData),
}

/// A task as the server last reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskState {
    /// The server's id of the task.
    pub upstream_id: String,
    pub status: TaskStatus,
    pub status_message: Option<String>,
    /// How often the server asks to be polled.
    pub poll_interval: Option<Duration>,
    /// How long after its creation the server keeps the task; `None`: as long as it likes.
    pub ttl: Option<Duration>,
    /// The dialect the task speaks.
    pub dialect: TaskDialect,
    /// When the server created it (ISO 8601, as the server wrote it).
    pub created_at: Option<String>,
    /// What the server asks while the task is `input_required` (the extension): requests
    /// (`elicitation/create`, `sampling/createMessage`, `roots/list`) by key, each key unique
    /// for the task's life, so a caller that saw a key before has asked it already. Answers
    /// go back by key with `ConnectionManager::update_tool_task`.
    pub input_requests: Option<Map<String, Value>>,
    /// How the task ended, when the server said it with its state (the extension).
    pub outcome: Option<TaskOutcome>,
}

/// A legacy `Task` on the wire.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WireTask {
    task_id: String,
    status: TaskStatus,
    #[serde(default)]
    status_message: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
    /// Milliseconds.
    #[serde(default)]
    poll_interval: Option<u64>,
    /// Milliseconds.
    #[serde(default)]
    ttl: Option<u64>,
}

impl From<WireTask> for TaskState {
    fn from(task: WireTask) -> Self {
        TaskState {
            upstream_id: task.task_id,
            status: task.status,
            status_message: task.status_message,
            poll_interval: task.poll_interval.map(Duration::from_millis),
            ttl: task.ttl.map(Duration::from_millis),
            dialect: TaskDialect::Legacy,
            created_at: task.created_at,
            input_requests: None,
            outcome: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_legacy_task_is_read_and_an_unknown_status_refused() {
        let task: WireTask = serde_json::from_value(json!({
            "taskId": "t1", "status": "input_required", "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": null, "pollInterval": 5000,
        }))
        .unwrap();
        let state = TaskState::from(task);
        assert_eq!(state.status, TaskStatus::InputRequired);
        assert_eq!(state.poll_interval, Some(Duration::from_millis(5000)));
        assert_eq!(state.ttl, None);
        assert_eq!(state.dialect, TaskDialect::Legacy);
        assert_eq!(state.created_at.as_deref(), Some("2025-11-25T10:30:00Z"));
        assert!(
            serde_json::from_value::<WireTask>(json!({"taskId": "t", "status": "paused"})).is_err()
        );
    }
}

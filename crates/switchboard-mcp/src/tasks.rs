//! Tasks a server runs for us (MCP tasks, the 2025-11-25 dialect): what starting a call as a
//! task gives, and a task's state as the server reports it. The server's task id
//! (`upstream_id`) is for Switchboard's own bookkeeping; it is never shown to anyone.

use std::time::Duration;

use rmcp::model::CallToolResult;
use serde::Deserialize;

/// What starting a call as a task gave.
#[derive(Debug, Clone)]
pub enum Started {
    /// The tool answered at once: it does not run as a task, or the server chose to.
    Done(CallToolResult),
    /// The server runs it as this task.
    Task(TaskState),
}

/// Where a task is in its life. `Working` and `InputRequired` are live; the others final.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Working,
    /// The server waits for an answer, asked on `tasks/result`.
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
}

/// A legacy `Task` on the wire.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WireTask {
    task_id: String,
    status: TaskStatus,
    #[serde(default)]
    status_message: Option<String>,
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
        assert!(
            serde_json::from_value::<WireTask>(json!({"taskId": "t", "status": "paused"})).is_err()
        );
    }
}

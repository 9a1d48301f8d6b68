//! A server's task as it crosses the hop: Switchboard's [`TaskState`] as the JSON the proto
//! describes (`TaskRequest`), in the same words on both sides. MCP's own shapes inside it (a
//! task's input requests, its result or JSON-RPC error) stay MCP's JSON.

use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::CallToolResult;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use switchboard_mcp::{TaskDialect, TaskOutcome, TaskState, TaskStatus};

/// A task as it crosses (see the module).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskJson {
    upstream_id: String,
    status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    poll_interval_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ttl_ms: Option<u64>,
    dialect: Dialect,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    created_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    input_requests: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<CallToolResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<ErrorData>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Dialect {
    Legacy,
    Extension,
}

impl From<&TaskState> for TaskJson {
    fn from(task: &TaskState) -> Self {
        let (result, error) = match &task.outcome {
            Some(TaskOutcome::Completed(result)) => (Some(result.clone()), None),
            Some(TaskOutcome::Failed(error)) => (None, Some(error.clone())),
            None => (None, None),
        };
        TaskJson {
            upstream_id: task.upstream_id.clone(),
            status: task.status,
            status_message: task.status_message.clone(),
            poll_interval_ms: task.poll_interval.map(millis),
            ttl_ms: task.ttl.map(millis),
            dialect: match task.dialect {
                TaskDialect::Legacy => Dialect::Legacy,
                TaskDialect::Extension => Dialect::Extension,
            },
            created_at: task.created_at.clone(),
            input_requests: task.input_requests.clone(),
            result,
            error,
        }
    }
}

/// `task` as JSON for the other side.
pub(crate) fn task_to_json(task: &TaskState) -> Result<Vec<u8>, serde_json::Error> {
    serde_json::to_vec(&TaskJson::from(task))
}

/// A task the other side wrote with [`task_to_json`].
pub(crate) fn task_from_json(json: &[u8]) -> Result<TaskState, serde_json::Error> {
    let task: TaskJson = serde_json::from_slice(json)?;
    Ok(task.into_state())
}

impl TaskJson {
    /// The task this JSON describes.
    pub(crate) fn into_state(self) -> TaskState {
        let task = self;
        let outcome = match (task.result, task.error) {
            (Some(result), _) => Some(TaskOutcome::Completed(result)),
            (None, Some(error)) => Some(TaskOutcome::Failed(error)),
            (None, None) => None,
        };
        TaskState {
            upstream_id: task.upstream_id,
            status: task.status,
            status_message: task.status_message,
            poll_interval: task.poll_interval_ms.map(Duration::from_millis),
            ttl: task.ttl_ms.map(Duration::from_millis),
            dialect: match task.dialect {
                Dialect::Legacy => TaskDialect::Legacy,
                Dialect::Extension => TaskDialect::Extension,
            },
            created_at: task.created_at,
            input_requests: task.input_requests,
            outcome,
        }
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use rmcp::model::ContentBlock;
    use serde_json::json;

    use super::*;

    fn task(outcome: Option<TaskOutcome>) -> TaskState {
        TaskState {
            upstream_id: "t-1".into(),
            status: TaskStatus::InputRequired,
            status_message: Some("waiting".into()),
            poll_interval: Some(Duration::from_millis(1500)),
            ttl: None,
            dialect: TaskDialect::Extension,
            created_at: Some("2026-07-28T10:00:00Z".into()),
            input_requests: Some(
                json!({"k1": {"method": "elicitation/create", "params": {}}})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ),
            outcome,
        }
    }

    #[test]
    fn a_task_crosses_the_hop_whole() {
        for outcome in [
            None,
            Some(TaskOutcome::Completed(CallToolResult::success(vec![
                ContentBlock::text("done"),
            ]))),
            Some(TaskOutcome::Failed(ErrorData::invalid_params("no", None))),
        ] {
            let sent = task(outcome);
            let json = task_to_json(&sent).expect("written");
            assert_eq!(task_from_json(&json).expect("read"), sent);
        }
        let legacy = TaskState {
            dialect: TaskDialect::Legacy,
            status: TaskStatus::Working,
            input_requests: None,
            ..task(None)
        };
        let json: Value =
            serde_json::from_slice(&task_to_json(&legacy).expect("written")).expect("JSON");
        assert_eq!(json["dialect"], "legacy");
        assert_eq!(json["status"], "working");
        assert_eq!(json["pollIntervalMs"], 1500);
        assert!(json.get("ttlMs").is_none(), "{json}");
    }

    #[test]
    fn a_task_of_an_unknown_status_is_refused() {
        let json = br#"{"upstreamId": "t", "status": "paused", "dialect": "legacy"}"#;
        assert!(task_from_json(json).is_err());
    }
}

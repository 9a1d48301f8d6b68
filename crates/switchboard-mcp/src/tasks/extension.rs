//! The 2026-07-28 extension's tasks (`io.modelcontextprotocol/tasks`), read from rmcp's types
//! into [`TaskState`]: a created task (`CreateTaskResult`, the task alone) and a polled one
//! (`tasks/get`'s `DetailedTask`, with the outcome of a finished task and the questions of
//! one waiting for input inlined).

use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, DetailedTask, JsonObject, Task, TaskPayload};

use super::{TaskDialect, TaskOutcome, TaskState, TaskStatus};

/// Why a task of the extension could not be read: said as a protocol error of its server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unreadable(pub(crate) String);

/// The state of a task the server just created.
pub(crate) fn created(task: Task) -> Result<TaskState, Unreadable> {
    state(task)
}

/// The state `tasks/get` reported, its payload inlined.
pub(crate) fn detailed(task: DetailedTask) -> Result<TaskState, Unreadable> {
    let DetailedTask { task, payload, .. } = task;
    let mut state = state(task)?;
    match payload {
        TaskPayload::InputRequired { input_requests } => {
            let requests = serde_json::to_value(input_requests)
                .map_err(|error| Unreadable(format!("its input requests: {error}")))?;
            state.input_requests = match requests {
                serde_json::Value::Object(requests) => Some(requests),
                _ => None,
            };
        }
        TaskPayload::Completed { result } => {
            state.outcome = Some(TaskOutcome::Completed(tool_result(result)?));
        }
        TaskPayload::Failed { error } => {
            state.outcome = Some(TaskOutcome::Failed(json_rpc_error(error)));
        }
        _ => {}
    }
    Ok(state)
}

fn state(task: Task) -> Result<TaskState, Unreadable> {
    Ok(TaskState {
        status: status(task.status)?,
        upstream_id: task.task_id,
        status_message: task.status_message,
        poll_interval: task.poll_interval_ms.map(Duration::from_millis),
        ttl: task.ttl_ms.map(Duration::from_millis),
        dialect: TaskDialect::Extension,
        created_at: Some(task.created_at),
        input_requests: None,
        outcome: None,
    })
}

fn status(status: rmcp::model::TaskStatus) -> Result<TaskStatus, Unreadable> {
    use rmcp::model::TaskStatus as Wire;
    Ok(match status {
        Wire::Working => TaskStatus::Working,
        Wire::InputRequired => TaskStatus::InputRequired,
        Wire::Completed => TaskStatus::Completed,
        Wire::Failed => TaskStatus::Failed,
        Wire::Cancelled => TaskStatus::Cancelled,
        other => {
            return Err(Unreadable(format!(
                "a status this build does not know: {other:?}"
            )));
        }
    })
}

/// The inlined result of a completed task: the tool's result, as `tools/call` gives it.
fn tool_result(result: JsonObject) -> Result<CallToolResult, Unreadable> {
    serde_json::from_value(serde_json::Value::Object(result))
        .map_err(|error| Unreadable(format!("its result is not a tool result: {error}")))
}

/// The inlined error of a failed task. One that is not a JSON-RPC error object is kept as
/// the text it is, an internal error.
fn json_rpc_error(error: JsonObject) -> ErrorData {
    let value = serde_json::Value::Object(error);
    serde_json::from_value(value.clone())
        .unwrap_or_else(|_| ErrorData::internal_error(value.to_string(), None))
}

#[cfg(test)]
mod tests {
    use rmcp::model::GetTaskResult;
    use serde_json::json;

    use super::*;

    fn polled(value: serde_json::Value) -> TaskState {
        let result: GetTaskResult = serde_json::from_value(value).unwrap();
        detailed(result.task).unwrap()
    }

    fn task(status: &str) -> serde_json::Value {
        json!({
            "resultType": "complete", "taskId": "t1", "status": status,
            "createdAt": "2026-07-28T10:00:00Z", "lastUpdatedAt": "2026-07-28T10:00:01Z",
            "ttlMs": 60000, "pollIntervalMs": 500,
        })
    }

    #[test]
    fn a_working_task_keeps_its_timings() {
        let state = polled(task("working"));
        assert_eq!(state.status, TaskStatus::Working);
        assert_eq!(state.dialect, TaskDialect::Extension);
        assert_eq!(state.poll_interval, Some(Duration::from_millis(500)));
        assert_eq!(state.ttl, Some(Duration::from_secs(60)));
        assert_eq!(state.outcome, None);
    }

    #[test]
    fn a_completed_task_inlines_its_result_an_error_result_included() {
        let mut value = task("completed");
        value["result"] = json!({"content": [{"type": "text", "text": "broke"}], "isError": true});
        let state = polled(value);
        let Some(TaskOutcome::Completed(result)) = state.outcome else {
            panic!("{state:?}")
        };
        assert_eq!(result.is_error, Some(true));
    }

    #[test]
    fn a_failed_task_inlines_its_json_rpc_error() {
        let mut value = task("failed");
        value["error"] = json!({"code": -32603, "message": "the job crashed"});
        let state = polled(value);
        let Some(TaskOutcome::Failed(error)) = state.outcome else {
            panic!("{state:?}")
        };
        assert_eq!(error.code, rmcp::model::ErrorCode::INTERNAL_ERROR);
        assert_eq!(error.message, "the job crashed");
    }

    #[test]
    fn a_task_waiting_for_input_lists_its_requests() {
        let mut value = task("input_required");
        value["inputRequests"] = json!({"confirm-1": {
            "method": "elicitation/create",
            "params": {"message": "Delete it?", "requestedSchema": {"type": "object", "properties": {}}},
        }});
        let state = polled(value);
        let requests = state.input_requests.expect("input requests");
        assert_eq!(requests["confirm-1"]["method"], "elicitation/create");
    }
}

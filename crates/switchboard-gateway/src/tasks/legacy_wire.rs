//! A kept task as the 2025-11-25 revision shows it (`Task`: `ttl` and `pollInterval` in
//! milliseconds, `ttl` required and `null` for no limit), the pages of `tasks/list`, and the
//! outcome `tasks/result` answers. rmcp models none of these shapes; they are written here as
//! JSON from the same values as the extension's ([`super::wire`]), so both dialects show a
//! task alike: its status, message, times and poll interval.

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Task};
use serde_json::{Map, Value, json};
use switchboard_agent::tasks::TaskOutcome;
use switchboard_store::{StoredTask, TaskCursor, TaskStatus, Timestamp};

use super::wire;
use crate::error::GatewayError;

/// The `_meta` key that ties a result to its task (2025-11-25).
const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// `task` as a 2025-11-25 `Task`.
pub(crate) fn task(task: &StoredTask) -> Value {
    from_extension(&wire::created(task).task)
}

/// The extension's `Task` in the 2025-11-25 shape.
pub(crate) fn from_extension(task: &Task) -> Value {
    let mut wire = Map::new();
    wire.insert("taskId".into(), json!(task.task_id));
    wire.insert("status".into(), json!(task.status));
    if let Some(message) = &task.status_message {
        wire.insert("statusMessage".into(), json!(message));
    }
    wire.insert("createdAt".into(), json!(task.created_at));
    wire.insert("lastUpdatedAt".into(), json!(task.last_updated_at));
    wire.insert("ttl".into(), json!(task.ttl_ms));
    if let Some(poll) = task.poll_interval_ms {
        wire.insert("pollInterval".into(), json!(poll));
    }
    Value::Object(wire)
}

/// The answer to a `tools/call` that became `task` (`CreateTaskResult`).
pub(crate) fn created(task: &Task) -> Value {
    json!({ "task": from_extension(task) })
}

/// A page of `tasks/list`; `next` where more may follow.
pub(crate) fn page(tasks: &[StoredTask], next: Option<&StoredTask>) -> Value {
    let mut page = json!({ "tasks": tasks.iter().map(task).collect::<Vec<_>>() });
    if let Some(last) = next {
        page["nextCursor"] = json!(cursor(last));
    }
    page
}

/// The cursor of the page after `last`.
fn cursor(last: &StoredTask) -> String {
    format!("{}.{}", last.created_at.0, last.id)
}

/// A cursor [`page`] gave, read back.
pub(crate) fn read_cursor(text: &str) -> Result<TaskCursor, GatewayError> {
    let (at, id) = text.split_once('.').ok_or(GatewayError::BadCursor)?;
    let created_at = at.parse::<i64>().map_err(|_| GatewayError::BadCursor)?;
    if id.is_empty() {
        return Err(GatewayError::BadCursor);
    }
    Ok(TaskCursor {
        created_at: Timestamp(created_at),
        id: id.to_owned(),
    })
}

/// What `tasks/result` answers for `task`, which has ended: the tool's result (an
/// `isError` one included) tied to the task, or the error the call ended with.
pub(crate) fn outcome(task: &StoredTask) -> Result<Value, ErrorData> {
    if task.status == TaskStatus::Cancelled {
        return Err(GatewayError::TaskCancelled(task.id.clone()).into());
    }
    match task.outcome.as_ref().and_then(TaskOutcome::from_value) {
        Some(TaskOutcome::Result(result)) => result_of(task, result),
        Some(TaskOutcome::Error { code, message }) => Err(ErrorData::internal_error(
            message,
            Some(json!({ "code": code })),
        )),
        None => {
            tracing::error!(task = %task.id, "gateway: an ended task's outcome cannot be read");
            Err(ErrorData::internal_error(
                "the task's outcome could not be read",
                None,
            ))
        }
    }
}

fn result_of(task: &StoredTask, mut result: CallToolResult) -> Result<Value, ErrorData> {
    // A 2025-11-25 result has no `resultType`.
    result.result_type = None;
    let mut value = serde_json::to_value(result)
        .map_err(|_| ErrorData::internal_error("the task's result could not be written", None))?;
    if let Some(object) = value.as_object_mut() {
        let meta = object
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(RELATED_TASK.into(), json!({ "taskId": task.id }));
        }
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use rmcp::model::ContentBlock;
    use switchboard_core::{ErrorCode as Code, OwnerId, ServerId};
    use switchboard_store::{TaskKind, TaskOrigin};

    use super::*;

    fn kept(status: TaskStatus, outcome: Option<TaskOutcome>) -> StoredTask {
        StoredTask {
            id: "tsk_1".into(),
            owner: OwnerId("u1".into()),
            server_id: ServerId("s1".into()),
            tool: "echo".into(),
            origin: TaskOrigin::Gateway,
            kind: TaskKind::Legacy,
            conversation_id: None,
            message_id: None,
            call_id: None,
            view_id: None,
            upstream_id: Some("upstream-secret".into()),
            status,
            status_message: None,
            poll_interval_ms: Some(5_000),
            ttl_ms: Some(60_000),
            outcome: outcome.map(|outcome| outcome.to_value()),
            cancel_requested: false,
            holder: None,
            lease_until: None,
            next_poll_at: Timestamp(0),
            failures: 0,
            created_at: Timestamp(1_000),
            updated_at: Timestamp(2_500),
            finished_at: None,
        }
    }

    #[test]
    fn a_task_has_the_2025_11_25_fields_and_no_limit() {
        let value = task(&kept(TaskStatus::InputRequired, None));
        assert_eq!(
            value,
            json!({
                "taskId": "tsk_1", "status": "working",
                "createdAt": "1970-01-01T00:00:01.000Z",
                "lastUpdatedAt": "1970-01-01T00:00:02.500Z", "ttl": null,
                "pollInterval": 5000,
            })
        );
        assert!(!value.to_string().contains("upstream-secret"));
    }

    #[test]
    fn pages_carry_a_cursor_that_reads_back() {
        let tasks = [kept(TaskStatus::Working, None)];
        let value = page(&tasks, Some(&tasks[0]));
        let next = value["nextCursor"].as_str().unwrap();
        let cursor = read_cursor(next).unwrap();
        assert_eq!(cursor.created_at, Timestamp(1_000));
        assert_eq!(cursor.id, "tsk_1");
        assert!(page(&tasks, None).get("nextCursor").is_none());
        for bad in ["", "x.tsk", "12", "12."] {
            assert!(read_cursor(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_ended_task_gives_its_result_or_its_error() {
        let result = CallToolResult::error(vec![ContentBlock::text("no such file")]);
        let done = kept(TaskStatus::Completed, Some(TaskOutcome::Result(result)));
        let value = outcome(&done).unwrap();
        assert_eq!(value["isError"], true);
        assert_eq!(value["_meta"][RELATED_TASK]["taskId"], "tsk_1");
        assert!(value.get("resultType").is_none());

        let failed = kept(
            TaskStatus::Failed,
            Some(TaskOutcome::error(Code::TaskLost, "the server forgot it")),
        );
        let error = outcome(&failed).unwrap_err();
        assert_eq!(error.message, "the server forgot it");
        assert_eq!(error.data, Some(json!({"code": "TASK_LOST"})));

        let cancelled = kept(TaskStatus::Cancelled, None);
        assert!(outcome(&cancelled).is_err());
    }
}

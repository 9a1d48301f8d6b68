//! A kept task as the tasks extension shows it: the `Task` a call is answered with, and the
//! `DetailedTask` of `tasks/get`, its outcome inlined once it has ended.
//!
//! - `ttlMs` is `null`: Switchboard keeps a task and its outcome with no time limit, whatever
//!   its server does with its own.
//! - `pollIntervalMs` is the server's, or 2 s for a task without one, never under 1 s.
//! - A task waiting for input shows as `working`: the gateway cannot pass a task's questions
//!   on yet, so its client has nothing to answer (the task goes on once the server's
//!   question is answered another way, or ends when the server gives up).
//! - `failed` inlines a JSON-RPC error: internal error (-32603) with the reason in our words
//!   and its stable code in `data.code`, as the gateway answers any other failed request.

use rmcp::model::{
    CallToolResult, CreateTaskResult, DetailedTask, ErrorCode, JsonObject, ResultType, Task,
    TaskPayload, TaskStatus as WireStatus,
};
use serde_json::json;
use switchboard_agent::tasks::TaskOutcome;
use switchboard_store::{StoredTask, TaskStatus, Timestamp};

/// How often a client is asked to poll a task whose server suggests nothing.
const DEFAULT_POLL_MS: u64 = 2_000;
/// The shortest poll interval a client is given.
const MIN_POLL_MS: u64 = 1_000;

/// The answer to a call that became `task`.
pub(crate) fn created(task: &StoredTask) -> CreateTaskResult {
    CreateTaskResult::new(base(task, status(task.status)))
}

/// `task` as `tasks/get` answers it.
pub(crate) fn detailed(task: &StoredTask) -> DetailedTask {
    let outcome = task.outcome.as_ref().map(TaskOutcome::from_value);
    let payload = match (task.status, outcome) {
        (TaskStatus::Working | TaskStatus::InputRequired, _) => TaskPayload::Working,
        (TaskStatus::Cancelled, _) => TaskPayload::Cancelled,
        (TaskStatus::Completed | TaskStatus::Failed, Some(Some(TaskOutcome::Result(result)))) => {
            completed(result)
        }
        (
            TaskStatus::Completed | TaskStatus::Failed,
            Some(Some(TaskOutcome::Error { code, message })),
        ) => failed(&message, json!({ "code": code })),
        (TaskStatus::Completed | TaskStatus::Failed, _) => {
            tracing::error!(task = %task.id, "gateway: an ended task's outcome cannot be read");
            failed("the task's outcome could not be read", json!({}))
        }
    };
    DetailedTask::new(base(task, status(task.status)), payload)
}

fn base(task: &StoredTask, status: WireStatus) -> Task {
    let mut wire = Task::new(
        task.id.clone(),
        status,
        rfc3339(task.created_at),
        rfc3339(task.updated_at),
    )
    .with_poll_interval_ms(
        task.poll_interval_ms
            .unwrap_or(DEFAULT_POLL_MS)
            .max(MIN_POLL_MS),
    );
    wire.status_message = task.status_message.clone();
    wire
}

fn status(status: TaskStatus) -> WireStatus {
    match status {
        TaskStatus::Working | TaskStatus::InputRequired => WireStatus::Working,
        TaskStatus::Completed => WireStatus::Completed,
        TaskStatus::Failed => WireStatus::Failed,
        TaskStatus::Cancelled => WireStatus::Cancelled,
    }
}

fn completed(mut result: CallToolResult) -> TaskPayload {
    // The result of a 2026-07-28 `tools/call`, whichever revision its server spoke.
    result.result_type = Some(ResultType::COMPLETE);
    match serde_json::to_value(result) {
        Ok(serde_json::Value::Object(result)) => TaskPayload::Completed { result },
        _ => failed("the task's result could not be written", json!({})),
    }
}

fn failed(message: &str, data: serde_json::Value) -> TaskPayload {
    let mut error = JsonObject::new();
    error.insert("code".into(), json!(ErrorCode::INTERNAL_ERROR.0));
    error.insert("message".into(), json!(message));
    error.insert("data".into(), data);
    TaskPayload::Failed { error }
}

/// A time as RFC 3339, in UTC to the millisecond.
fn rfc3339(at: Timestamp) -> String {
    let since = std::time::Duration::from_millis(u64::try_from(at.0).unwrap_or(0));
    humantime::format_rfc3339_millis(std::time::UNIX_EPOCH + since).to_string()
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
            kind: TaskKind::Local,
            conversation_id: None,
            message_id: None,
            call_id: None,
            view_id: None,
            upstream_id: Some("upstream-secret".into()),
            status,
            status_message: Some("halfway".into()),
            poll_interval_ms: None,
            ttl_ms: Some(300_000),
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
    fn a_created_task_shows_our_id_and_polling_never_under_a_second() {
        let mut task = kept(TaskStatus::Working, None);
        let value = serde_json::to_value(created(&task)).unwrap();
        assert_eq!(
            value,
            json!({
                "resultType": "task", "taskId": "tsk_1", "status": "working",
                "statusMessage": "halfway", "createdAt": "1970-01-01T00:00:01.000Z",
                "lastUpdatedAt": "1970-01-01T00:00:02.500Z", "ttlMs": null,
                "pollIntervalMs": 2000,
            })
        );
        task.poll_interval_ms = Some(10);
        assert_eq!(created(&task).task.poll_interval_ms, Some(1000));
        task.poll_interval_ms = Some(5000);
        assert_eq!(created(&task).task.poll_interval_ms, Some(5000));
        task.status = TaskStatus::InputRequired;
        assert_eq!(detailed(&task).status(), WireStatus::Working);
    }

    #[test]
    fn an_ended_task_inlines_its_result_or_error() {
        let result = CallToolResult::error(vec![ContentBlock::text("no such file")]);
        let done = detailed(&kept(
            TaskStatus::Completed,
            Some(TaskOutcome::Result(result)),
        ));
        let value = serde_json::to_value(&done).unwrap();
        assert_eq!(value["status"], "completed");
        assert_eq!(
            value["result"]["isError"], true,
            "a tool error is completed"
        );
        assert_eq!(value["result"]["resultType"], "complete");
        assert_eq!(value["result"]["content"][0]["text"], "no such file");

        let lost = detailed(&kept(
            TaskStatus::Failed,
            Some(TaskOutcome::error(Code::TaskLost, "the server forgot it")),
        ));
        let value = serde_json::to_value(&lost).unwrap();
        assert_eq!(value["status"], "failed");
        assert_eq!(
            value["error"],
            json!({"code": -32603, "message": "the server forgot it", "data": {"code": "TASK_LOST"}})
        );

        let cancelled = detailed(&kept(
            TaskStatus::Cancelled,
            Some(TaskOutcome::error(Code::Cancelled, "cancelled")),
        ));
        let value = serde_json::to_value(&cancelled).unwrap();
        assert_eq!(value["status"], "cancelled");
        assert!(value.get("error").is_none() && value.get("result").is_none());
        assert!(!value.to_string().contains("upstream-secret"));
    }

    #[test]
    fn an_unreadable_outcome_fails_the_task() {
        let mut task = kept(TaskStatus::Completed, None);
        task.outcome = Some(json!({"neither": true}));
        assert_eq!(detailed(&task).status(), WireStatus::Failed);
    }
}

//! switchboard-mcp's client of the tasks extension (`io.modelcontextprotocol/tasks`), against
//! `conformance-server` serving Streamable HTTP: a task started, polled, answered, cancelled
//! and lost through the manager's step API; a plain call of a tool the server runs only as a
//! task answered all the same; the tool list saying every tool may run as a task; and a
//! server's `tasks` setting deciding what starts as one.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]
// Sampling is deprecated by SEP-2577; a requester still answers it.
#![allow(deprecated)]

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationAction, JsonObject,
};
use serde_json::{Value, json};
use switchboard_core::{
    ErrorCode, OwnerId, ServerSpec, TaskSupport, TasksPolicy, ToolTasks, TransportKind,
};
use switchboard_mcp::{
    CallOptions, ConnectionManager, ManagerConfig, McpError, ServerRequests, Started, TaskDialect,
    TaskOutcome, TaskState, TaskStatus,
};
use tokio::io::{AsyncBufReadExt, BufReader};

const BIN: &str = env!("CARGO_BIN_EXE_conformance-server");
/// How long a test waits for an outcome: far more than any fixture takes.
const WAIT: Duration = Duration::from_secs(30);

/// conformance-server on Streamable HTTP, and a manager with a spec for it.
struct Upstream {
    _child: tokio::process::Child,
    manager: ConnectionManager,
    owner: OwnerId,
    spec: ServerSpec,
}

async fn upstream(tasks: Option<TasksPolicy>) -> Upstream {
    let mut child = tokio::process::Command::new(BIN)
        .args(["--http", "127.0.0.1:0"])
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines.next_line().await.unwrap().expect("a listening line");
        if let Some(url) = line.strip_prefix("conformance-server is listening on ") {
            break url.to_owned();
        }
    };
    let mut spec = ServerSpec::http("conformance", url, Some(TransportKind::StreamableHttp));
    spec.tasks = tasks;
    Upstream {
        _child: child,
        manager: ConnectionManager::new(ManagerConfig::default()),
        owner: OwnerId("ada".to_owned()),
        spec,
    }
}

fn args(value: Value) -> Option<JsonObject> {
    value.as_object().cloned()
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect()
}

fn asking_for_a_task() -> CallOptions {
    CallOptions {
        prefer_task: true,
        ..CallOptions::default()
    }
}

impl Upstream {
    async fn start(&self, tool: &str, arguments: Value, options: CallOptions) -> Started {
        self.manager
            .start_tool_task(&self.owner, &self.spec, tool, args(arguments), options)
            .await
            .unwrap_or_else(|e| panic!("{tool}: {e}"))
    }

    async fn task(&self, tool: &str, arguments: Value, options: CallOptions) -> TaskState {
        match self.start(tool, arguments, options).await {
            Started::Task(task) => task,
            Started::Done(result) => panic!("{tool} answered at once: {result:?}"),
        }
    }

    async fn state(&self, tool: &str, task: &TaskState) -> Result<TaskState, McpError> {
        self.manager
            .tool_task(
                &self.owner,
                &self.spec,
                tool,
                &task.upstream_id,
                CallOptions::default(),
            )
            .await
    }

    /// Polls until the task's status is `until` or final; each poll is a round trip.
    async fn poll_until(&self, tool: &str, task: &TaskState, until: TaskStatus) -> TaskState {
        for _ in 0..500 {
            let state = self.state(tool, task).await.unwrap();
            if state.status == until || state.status.is_terminal() {
                return state;
            }
        }
        panic!("{tool} never became {until:?}");
    }

    async fn outcome(&self, tool: &str, task: &TaskState) -> Result<CallToolResult, McpError> {
        self.manager
            .tool_task_result(
                &self.owner,
                &self.spec,
                tool,
                &task.upstream_id,
                CallOptions::default(),
                WAIT,
            )
            .await
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slow_computation_runs_as_a_task_followed_to_its_end() {
    let up = upstream(None).await;
    let task = up
        .task(
            "slow_compute",
            json!({"seconds": 1, "label": "tide"}),
            asking_for_a_task(),
        )
        .await;
    assert_eq!(task.dialect, TaskDialect::Extension);
    assert_eq!(task.status, TaskStatus::Working);
    assert_eq!(task.poll_interval, Some(Duration::from_millis(500)));
    assert!(task.ttl.is_some() && task.created_at.is_some(), "{task:?}");
    let now = up.state("slow_compute", &task).await.unwrap();
    assert_eq!(now.upstream_id, task.upstream_id);

    let result = up.outcome("slow_compute", &task).await.unwrap();
    assert_eq!(text(&result), "computed tide in 1s");
    let ended = up.state("slow_compute", &task).await.unwrap();
    assert_eq!(ended.status, TaskStatus::Completed);
    assert_eq!(ended.outcome, Some(TaskOutcome::Completed(result)));
    up.manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_error_completes_the_task_and_a_json_rpc_error_fails_it() {
    let up = upstream(None).await;
    // Required by the server: a task even though nobody asked for one.
    let failing = up
        .task("failing_job", json!({}), CallOptions::default())
        .await;
    let result = up.outcome("failing_job", &failing).await.unwrap();
    assert_eq!(result.is_error, Some(true), "{result:?}");
    let ended = up.state("failing_job", &failing).await.unwrap();
    assert_eq!(ended.status, TaskStatus::Completed);

    let crashing = up
        .task("protocol_error_job", json!({}), asking_for_a_task())
        .await;
    let error = up
        .outcome("protocol_error_job", &crashing)
        .await
        .expect_err("a failed task gives its error");
    let McpError::Server { error: data, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(data.code, rmcp::model::ErrorCode::INTERNAL_ERROR);
    assert!(data.message.contains("crashed"), "{data:?}");
    let ended = up.state("protocol_error_job", &crashing).await.unwrap();
    assert_eq!(ended.status, TaskStatus::Failed);
    assert!(
        matches!(ended.outcome, Some(TaskOutcome::Failed(ref e)) if e.code == data.code),
        "{ended:?}"
    );
    up.manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tasks_question_is_shown_and_answered_by_update() {
    let up = upstream(None).await;
    let task = up
        .task(
            "confirm_delete",
            json!({"filename": "notes.txt"}),
            CallOptions::default(),
        )
        .await;
    let waiting = up
        .poll_until("confirm_delete", &task, TaskStatus::InputRequired)
        .await;
    assert_eq!(waiting.status, TaskStatus::InputRequired);
    let requests = waiting.input_requests.expect("the server's questions");
    assert_eq!(
        requests.keys().collect::<Vec<_>>(),
        ["confirm"],
        "{requests:?}"
    );
    assert_eq!(requests["confirm"]["method"], "elicitation/create");
    assert!(
        requests["confirm"]["params"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("notes.txt")),
        "{requests:?}"
    );

    let answer = [(
        "confirm".to_owned(),
        json!({"action": "accept", "content": {"confirm": true}}),
    )];
    up.manager
        .update_tool_task(
            &up.owner,
            &up.spec,
            "confirm_delete",
            &task.upstream_id,
            answer.into_iter().collect(),
        )
        .await
        .unwrap();
    let result = up.outcome("confirm_delete", &task).await.unwrap();
    assert_eq!(text(&result), "Deleted notes.txt");
    up.manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_task_ends_cancelled() {
    let up = upstream(None).await;
    let task = up
        .task("slow_compute", json!({"seconds": 60}), asking_for_a_task())
        .await;
    let after = up
        .manager
        .cancel_tool_task(&up.owner, &up.spec, "slow_compute", &task.upstream_id)
        .await
        .unwrap();
    assert_eq!(after.upstream_id, task.upstream_id);
    // Cancellation is cooperative: the state after the acknowledgement may still be working.
    let ended = up
        .poll_until("slow_compute", &task, TaskStatus::Cancelled)
        .await;
    assert_eq!(ended.status, TaskStatus::Cancelled);
    // Cancelling a task that ended is acknowledged all the same.
    let again = up
        .manager
        .cancel_tool_task(&up.owner, &up.spec, "slow_compute", &task.upstream_id)
        .await
        .unwrap();
    assert_eq!(again.status, TaskStatus::Cancelled);
    up.manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_the_server_does_not_know_is_lost() {
    let up = upstream(None).await;
    let unknown = TaskState {
        upstream_id: "no-such-task".to_owned(),
        status: TaskStatus::Working,
        status_message: None,
        poll_interval: None,
        ttl: None,
        dialect: TaskDialect::Extension,
        created_at: None,
        input_requests: None,
        outcome: None,
    };
    let lost = up.state("slow_compute", &unknown).await.unwrap_err();
    assert!(matches!(lost, McpError::TaskLost { .. }), "{lost:?}");
    assert_eq!(lost.code(), ErrorCode::TaskLost);
    assert_eq!(lost.code().http_status(), 502);
    let lost = up.outcome("slow_compute", &unknown).await.unwrap_err();
    assert!(matches!(lost, McpError::TaskLost { .. }), "{lost:?}");
    let lost = up
        .manager
        .cancel_tool_task(&up.owner, &up.spec, "slow_compute", "no-such-task")
        .await
        .unwrap_err();
    assert!(matches!(lost, McpError::TaskLost { .. }), "{lost:?}");
    up.manager.shutdown().await;
}

/// Answers every form by confirming.
#[derive(Debug)]
struct Confirmer;

impl ServerRequests for Confirmer {
    fn elicit(&self, _: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult, ErrorData>> {
        Box::pin(async {
            Ok(ElicitResult::new(ElicitationAction::Accept)
                .with_content(json!({"confirm": true, "name": "Ada"})))
        })
    }

    fn sample(
        &self,
        _: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorData>> {
        Box::pin(async { Err(ErrorData::invalid_request("no sampling here", None)) })
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plain_call_of_a_task_only_tool_gets_its_result() {
    let up = upstream(None).await;
    let call = |tool: &'static str, arguments: Value, options: CallOptions| {
        up.manager
            .call_tool(&up.owner, &up.spec, tool, args(arguments), options)
    };
    let failed = call("failing_job", json!({}), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(failed.is_error, Some(true), "{failed:?}");
    assert!(text(&failed).contains("the job failed"), "{failed:?}");

    // Its question goes to the caller's requester, the answer back by tasks/update.
    let answered = CallOptions {
        requests: Some(Arc::new(Confirmer)),
        ..CallOptions::default()
    };
    let deleted = call("confirm_delete", json!({"filename": "a.txt"}), answered)
        .await
        .unwrap();
    assert_eq!(text(&deleted), "Deleted a.txt");

    // A tool that may run as a task is called plainly: no task is made for a plain call.
    let greeted = call(
        "slow_compute",
        json!({"seconds": 0}),
        CallOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(text(&greeted), "computed in 0s");
    up.manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn every_tool_of_a_server_of_the_extension_may_run_as_a_task() {
    let up = upstream(None).await;
    let tools = up.manager.list_tools(&up.owner, &up.spec).await.unwrap();
    assert!(tools.len() > 10, "{}", tools.len());
    for tool in tools.iter() {
        assert_eq!(
            tool.tasks,
            Some(ToolTasks {
                support: TaskSupport::Optional
            }),
            "{}",
            tool.name
        );
    }
    up.manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_servers_tasks_setting_decides_what_starts_as_a_task() {
    let slow = || json!({"seconds": 0.2});
    // auto: only when the caller asks.
    let auto = upstream(None).await;
    let plain = auto
        .start("slow_compute", slow(), CallOptions::default())
        .await;
    assert!(matches!(plain, Started::Done(_)), "{plain:?}");
    let asked = auto
        .start("slow_compute", slow(), asking_for_a_task())
        .await;
    assert!(matches!(asked, Started::Task(_)), "{asked:?}");
    auto.manager.shutdown().await;

    // always: whether asked or not.
    let always = upstream(Some(TasksPolicy::Always)).await;
    let started = always
        .start("slow_compute", slow(), CallOptions::default())
        .await;
    assert!(matches!(started, Started::Task(_)), "{started:?}");
    always.manager.shutdown().await;

    // never: not even when asked; a tool that runs only as a task cannot be called.
    let never = upstream(Some(TasksPolicy::Never)).await;
    let plain = never
        .start("slow_compute", slow(), asking_for_a_task())
        .await;
    assert!(matches!(plain, Started::Done(_)), "{plain:?}");
    let refused = never
        .manager
        .start_tool_task(
            &never.owner,
            &never.spec,
            "failing_job",
            None,
            asking_for_a_task(),
        )
        .await
        .unwrap_err();
    assert!(matches!(refused, McpError::TasksOff { .. }), "{refused:?}");
    assert!(refused.to_string().contains("tasks are off"), "{refused}");
    let refused = never
        .manager
        .call_tool(
            &never.owner,
            &never.spec,
            "failing_job",
            None,
            CallOptions::default(),
        )
        .await
        .unwrap_err();
    assert!(matches!(refused, McpError::TasksOff { .. }), "{refused:?}");
    never.manager.shutdown().await;
}

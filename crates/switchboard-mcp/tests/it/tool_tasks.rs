//! Tools a server runs only as tasks (2025-11-25 `execution.taskSupport: "required"`): called
//! as tasks and followed to their end, so the caller gets the tool's result, over every
//! transport; the tool list says how each tool runs as a task; a server's `tasks` setting
//! decides what starts as one; a task the server does not know is lost.

// Sampling is deprecated by SEP-2577; a requester still answers it.
#![allow(deprecated)]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::{args, http_spec, manager, owner, stdio_spec, text};
use futures::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction,
};
use serde_json::json;
use switchboard_core::{ServerSpec, TaskSupport, TasksPolicy, ToolTasks, TransportKind};
use switchboard_mcp::{
    CallOptions, ConnectionManager, ConnectionStatus, ManagerConfig, McpError, ServerRequests,
    Started, TaskDialect, TaskStatus,
};
use switchboard_testkit::{EverythingHttp, Peers, PyGen, StdioCommand};

const RESEARCH: &str = "simulate-research-query";

async fn research_runs_as_a_task(m: &ConnectionManager, spec: &ServerSpec) {
    let tools = m.list_tools(&owner(), spec).await.expect("tools");
    let research = tools
        .iter()
        .find(|t| t.name == RESEARCH)
        .unwrap_or_else(|| panic!("{RESEARCH} listed: {tools:?}"));
    assert_eq!(
        research.tasks,
        Some(ToolTasks {
            support: TaskSupport::Required
        })
    );
    let echo = tools.iter().find(|t| t.name == "echo").expect("echo");
    assert_eq!(
        echo.tasks,
        Some(ToolTasks {
            support: TaskSupport::Forbidden
        })
    );
    assert!(
        research
            .meta
            .as_ref()
            .is_none_or(|meta| meta.keys().all(|key| !key.starts_with("switchboard/"))),
        "the adapter's carrier stays inside: {:?}",
        research.meta
    );
    let result = m
        .call_tool(
            &owner(),
            spec,
            RESEARCH,
            args(json!({"topic": "tides"})),
            CallOptions::default(),
        )
        .await
        .unwrap_or_else(|e| panic!("{RESEARCH} on {}: {e}", spec.name));
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let report = text(&result);
    assert!(report.contains("Research Report: tides"), "{report}");
    assert!(report.contains("Stage 4: Generating report"), "{report}");
    // A plain tool of the same server is still called plainly.
    let echoed = m
        .call_tool(
            &owner(),
            spec,
            "echo",
            args(json!({"message": "still plain"})),
            CallOptions::default(),
        )
        .await
        .expect("echo");
    assert!(text(&echoed).contains("still plain"));
}

#[tokio::test]
async fn a_task_only_tool_answers_over_stdio() {
    let spec = stdio_spec("everything", &Peers::locate().everything_stdio());
    let m = manager();
    research_runs_as_a_task(&m, &spec).await;
    m.shutdown().await;
}

#[tokio::test]
async fn a_task_only_tool_answers_over_streamable_http_and_sse() {
    for (kind, transport) in [
        (
            EverythingHttp::StreamableHttp,
            TransportKind::StreamableHttp,
        ),
        (EverythingHttp::Sse, TransportKind::Sse),
    ] {
        let peer = Peers::locate()
            .everything_http(kind)
            .await
            .expect("start server-everything");
        let spec = http_spec("everything", &peer.url(), transport);
        let m = manager();
        research_runs_as_a_task(&m, &spec).await;
        m.shutdown().await;
    }
}

#[tokio::test]
async fn a_task_only_tool_called_before_any_listing_answers() {
    let spec = stdio_spec("everything", &Peers::locate().everything_stdio());
    let m = manager();
    let result = m
        .call_tool(
            &owner(),
            &spec,
            RESEARCH,
            args(json!({"topic": "reefs"})),
            CallOptions::default(),
        )
        .await
        .expect("the first use of the server is the task");
    assert!(text(&result).contains("Research Report: reefs"));
    m.shutdown().await;
}

/// The Python SDK 1.x server whose tools run only as tasks (`tests/peers/tasks_server.py`).
fn tasks_peer() -> ServerSpec {
    let command = StdioCommand {
        program: Peers::locate()
            .python(PyGen::V1)
            .to_string_lossy()
            .into_owned(),
        args: vec![format!(
            "{}/tests/peers/tasks_server.py",
            env!("CARGO_MANIFEST_DIR")
        )],
        env: Vec::new(),
    };
    stdio_spec("tasks", &command)
}

async fn cancelled_count(m: &ConnectionManager, spec: &ServerSpec) -> String {
    let counted = m
        .call_tool(
            &owner(),
            spec,
            "task_cancelled_count",
            None,
            CallOptions::default(),
        )
        .await
        .expect("task_cancelled_count");
    text(&counted)
}

#[tokio::test]
async fn a_task_that_outlasts_the_call_is_cancelled_on_the_server() {
    common::init_tracing();
    let m = ConnectionManager::new(ManagerConfig {
        call_timeout_ceiling: Duration::from_secs(3),
        ..common::config()
    });
    let spec = tasks_peer();
    let error = m
        .call_tool(
            &owner(),
            &spec,
            "slow_task",
            args(json!({"seconds": 60})),
            CallOptions::default(),
        )
        .await
        .expect_err("the task outlasts the ceiling");
    assert_eq!(
        error.code(),
        switchboard_core::ErrorCode::McpTimeout,
        "{error}"
    );
    // The cancellation is sent from a task of its own: each ask is a round trip behind it.
    let mut seen = String::new();
    for _ in 0..50 {
        seen = cancelled_count(&m, &spec).await;
        if seen == "1" {
            break;
        }
    }
    assert_eq!(seen, "1", "the server received one tasks/cancel");
    m.shutdown().await;
}

/// A server that dies while its task runs: the tool may have run, so the call is not sent
/// again (it is not read-only or idempotent) and the caller hears the connection was lost.
#[tokio::test]
async fn a_task_whose_server_dies_is_not_started_again() {
    let m = ConnectionManager::new(ManagerConfig {
        call_timeout_ceiling: Duration::from_secs(20),
        ..common::config()
    });
    let spec = tasks_peer();
    let mut following = m.follow_logs();
    let me = owner();
    let call = m.call_tool(
        &me,
        &spec,
        "slow_task",
        args(json!({"seconds": 60})),
        CallOptions::default(),
    );
    let kill = async {
        let started = tokio::time::timeout(Duration::from_secs(20), following.recv())
            .await
            .expect("the task starts within 20 s")
            .expect("a line");
        assert!(started.line.text.contains("started"), "{:?}", started.line);
        let group = m.process_group(&owner(), &spec.id).expect("a process");
        nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(i32::try_from(group).unwrap()),
            nix::sys::signal::Signal::SIGKILL,
        )
        .expect("killed");
    };
    let (called, ()) = tokio::join!(call, kill);
    let error = called.expect_err("the server died");
    assert!(
        matches!(error, switchboard_mcp::McpError::LostAfterSend { .. }),
        "{error:?}"
    );
    m.shutdown().await;
}

#[tokio::test]
async fn a_finished_task_is_not_cancelled_and_a_failed_one_gives_its_error() {
    let m = manager();
    let spec = tasks_peer();
    let slept = m
        .call_tool(
            &owner(),
            &spec,
            "slow_task",
            args(json!({"seconds": 0.2})),
            CallOptions::default(),
        )
        .await
        .expect("slow_task");
    assert_eq!(text(&slept), "slept 0.2");
    let failed = m
        .call_tool(
            &owner(),
            &spec,
            "failing_task",
            None,
            CallOptions::default(),
        )
        .await
        .expect("a tool error is a result");
    assert_eq!(failed.is_error, Some(true), "{failed:?}");
    assert_eq!(text(&failed), "the job broke");
    assert_eq!(cancelled_count(&m, &spec).await, "0");
    m.shutdown().await;
}

/// Answers every question with a colour.
#[derive(Debug)]
struct Painter;

impl ServerRequests for Painter {
    fn elicit(&self, _: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult, ErrorData>> {
        Box::pin(async {
            Ok(
                ElicitResult::new(ElicitationAction::Accept)
                    .with_content(json!({"colour": "teal"})),
            )
        })
    }

    fn sample(
        &self,
        _: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorData>> {
        Box::pin(async { Err(ErrorData::invalid_request("no sampling here", None)) })
    }
}

#[tokio::test]
async fn a_tasks_question_is_answered_by_the_caller() {
    let m = manager();
    let spec = tasks_peer();
    let options = CallOptions {
        requests: Some(Arc::new(Painter)),
        ..CallOptions::default()
    };
    let told = m
        .call_tool(&owner(), &spec, "ask_task", None, options)
        .await
        .expect("ask_task");
    assert_eq!(text(&told), "told teal");
    m.shutdown().await;
}

#[tokio::test]
async fn a_started_task_is_followed_step_by_step() {
    let m = manager();
    let spec = tasks_peer();
    let started = m
        .start_tool_task(
            &owner(),
            &spec,
            "slow_task",
            args(json!({"seconds": 0.5})),
            CallOptions::default(),
        )
        .await
        .expect("started");
    let Started::Task(task) = started else {
        panic!("a task-only tool starts a task: {started:?}")
    };
    assert_eq!(task.status, TaskStatus::Working);
    assert_eq!(task.dialect, TaskDialect::Legacy);
    let result = m
        .tool_task_result(
            &owner(),
            &spec,
            "slow_task",
            &task.upstream_id,
            CallOptions::default(),
            Duration::from_secs(20),
        )
        .await
        .expect("the outcome");
    assert_eq!(text(&result), "slept 0.5");
    let ended = m
        .tool_task(
            &owner(),
            &spec,
            "slow_task",
            &task.upstream_id,
            CallOptions::default(),
        )
        .await
        .expect("state");
    assert_eq!(ended.status, TaskStatus::Completed);
    // A tool the server does not run as a task answers at once.
    let plain = m
        .start_tool_task(
            &owner(),
            &spec,
            "task_cancelled_count",
            None,
            CallOptions::default(),
        )
        .await
        .expect("plain");
    assert!(
        matches!(plain, Started::Done(ref result) if text(result) == "0"),
        "{plain:?}"
    );
    m.shutdown().await;
}

#[tokio::test]
async fn a_started_task_is_cancelled_on_the_server() {
    let m = manager();
    let spec = tasks_peer();
    let Started::Task(task) = m
        .start_tool_task(
            &owner(),
            &spec,
            "slow_task",
            args(json!({"seconds": 60})),
            CallOptions::default(),
        )
        .await
        .expect("started")
    else {
        panic!("a task")
    };
    let cancelled = m
        .cancel_tool_task(&owner(), &spec, "slow_task", &task.upstream_id)
        .await
        .expect("cancelled");
    assert_eq!(cancelled.status, TaskStatus::Cancelled);
    assert_eq!(cancelled_count(&m, &spec).await, "1");
    m.shutdown().await;
}

/// The idle reaper leaves a connection whose task still runs alone, and closes it once the
/// task has ended.
#[tokio::test]
async fn a_connection_running_a_task_is_not_closed_as_idle() {
    common::init_tracing();
    let m = ConnectionManager::new(ManagerConfig {
        idle_timeout: Duration::from_millis(200),
        reap_interval: Duration::from_millis(50),
        ..common::config()
    });
    let spec = tasks_peer();
    let Started::Task(task) = m
        .start_tool_task(
            &owner(),
            &spec,
            "slow_task",
            args(json!({"seconds": 3})),
            CallOptions::default(),
        )
        .await
        .expect("started")
    else {
        panic!("a task")
    };
    let mut status = m.subscribe(&owner(), &spec.id);
    // Five idle timeouts with nothing sent: the connection stays.
    let closed = tokio::time::timeout(
        Duration::from_secs(1),
        status.wait_for(|s| s.status == ConnectionStatus::Disconnected),
    )
    .await
    .is_ok();
    assert!(!closed, "the connection running a task was closed");
    let result = m
        .tool_task_result(
            &owner(),
            &spec,
            "slow_task",
            &task.upstream_id,
            CallOptions::default(),
            Duration::from_secs(20),
        )
        .await
        .expect("the task ran on");
    assert_eq!(text(&result), "slept 3");
    tokio::time::timeout(
        Duration::from_secs(10),
        status.wait_for(|s| s.status == ConnectionStatus::Disconnected),
    )
    .await
    .expect("closed once idle")
    .expect("status");
    m.shutdown().await;
}

#[tokio::test]
async fn a_legacy_task_the_server_does_not_know_is_lost() {
    let m = manager();
    let spec = tasks_peer();
    let lost = m
        .tool_task(
            &owner(),
            &spec,
            "slow_task",
            "no-such-task",
            CallOptions::default(),
        )
        .await
        .expect_err("an unknown task");
    assert!(matches!(lost, McpError::TaskLost { .. }), "{lost:?}");
    assert_eq!(lost.code(), switchboard_core::ErrorCode::TaskLost);
    let lost = m
        .tool_task_result(
            &owner(),
            &spec,
            "slow_task",
            "no-such-task",
            CallOptions::default(),
            Duration::from_secs(20),
        )
        .await
        .expect_err("an unknown task");
    assert!(matches!(lost, McpError::TaskLost { .. }), "{lost:?}");
    m.shutdown().await;
}

/// `never`: a tool that runs only as a task cannot be called, and says why; `always` starts
/// a tool that may run as a task as one, which `auto` does only when asked.
#[tokio::test]
async fn the_servers_tasks_setting_decides_what_starts_as_a_task() {
    let m = manager();
    let mut spec = tasks_peer();
    spec.tasks = Some(TasksPolicy::Never);
    let refused = m
        .call_tool(
            &owner(),
            &spec,
            "slow_task",
            args(json!({"seconds": 0})),
            CallOptions::default(),
        )
        .await
        .expect_err("tasks are off");
    assert!(matches!(refused, McpError::TasksOff { .. }), "{refused:?}");
    assert!(refused.to_string().contains("tasks are off"), "{refused}");
    let asking = || CallOptions {
        prefer_task: true,
        ..CallOptions::default()
    };
    let refused = m
        .start_tool_task(
            &owner(),
            &spec,
            "slow_task",
            args(json!({"seconds": 0})),
            asking(),
        )
        .await
        .expect_err("tasks are off");
    assert!(matches!(refused, McpError::TasksOff { .. }), "{refused:?}");
    let echo = || args(json!({"text": "hi"}));
    let plain = m
        .start_tool_task(&owner(), &spec, "echo_task", echo(), asking())
        .await
        .expect("a plain call");
    assert!(
        matches!(plain, Started::Done(ref r) if text(r) == "echo hi"),
        "{plain:?}"
    );

    spec.tasks = None;
    let plain = m
        .start_tool_task(&owner(), &spec, "echo_task", echo(), CallOptions::default())
        .await
        .expect("auto, not asked");
    assert!(matches!(plain, Started::Done(_)), "{plain:?}");
    let asked = m
        .start_tool_task(&owner(), &spec, "echo_task", echo(), asking())
        .await
        .expect("auto, asked");
    assert!(matches!(asked, Started::Task(_)), "{asked:?}");

    spec.tasks = Some(TasksPolicy::Always);
    let started = m
        .start_tool_task(&owner(), &spec, "echo_task", echo(), CallOptions::default())
        .await
        .expect("always");
    let Started::Task(task) = started else {
        panic!("always starts a task: {started:?}")
    };
    let result = m
        .tool_task_result(
            &owner(),
            &spec,
            "echo_task",
            &task.upstream_id,
            CallOptions::default(),
            Duration::from_secs(20),
        )
        .await
        .expect("the outcome");
    assert_eq!(text(&result), "echo hi");
    m.shutdown().await;
}

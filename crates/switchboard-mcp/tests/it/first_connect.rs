//! Seed 002's retry policy on the first connect: a server that is not up yet (a stdio server
//! that dies before the handshake, an HTTP server not yet listening) is tried again with
//! backoff, not reported as failed at once.

use crate::common;

use std::time::Duration;

use common::{http_spec, owner, stdio_spec};
use switchboard_core::{ErrorCode, TransportKind};
use switchboard_mcp::{ConnectionManager, ConnectionStatus, ManagerConfig, RetryPolicy};
use switchboard_testkit::{Peers, PyGen, StdioCommand};

/// `command` wrapped so that its first start exits before the handshake (and leaves
/// `marker`), and later starts run it.
fn fails_first_time(command: &StdioCommand, marker: &std::path::Path) -> StdioCommand {
    let mut args = vec![
        "-c".to_owned(),
        r#"if [ -e "$0" ]; then exec "$@"; else : > "$0"; exit 1; fi"#.to_owned(),
        marker.to_string_lossy().into_owned(),
        command.program.clone(),
    ];
    args.extend(command.args.iter().cloned());
    StdioCommand {
        program: "sh".into(),
        args,
        env: command.env.clone(),
    }
}

fn manager_with(retry: RetryPolicy) -> ConnectionManager {
    common::init_tracing();
    ConnectionManager::new(ManagerConfig {
        retry,
        ..common::config()
    })
}

fn quick_retries() -> RetryPolicy {
    RetryPolicy {
        initial_delay: Duration::ZERO,
        ..RetryPolicy::default()
    }
}

#[tokio::test]
async fn a_stdio_server_that_fails_its_first_start_is_started_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("started-once");
    let command = fails_first_time(&Peers::locate().python_stdio(PyGen::V1), &marker);
    let spec = stdio_spec("late", &command);
    let m = manager_with(quick_retries());
    let tools = m
        .list_tools(&owner(), &spec)
        .await
        .expect("tools on a retry");
    assert!(tools.iter().any(|t| t.name == "pid"), "{tools:?}");
    assert!(marker.exists(), "the first start really failed");
    m.shutdown().await;
}

#[tokio::test]
async fn without_retries_the_first_failed_start_is_final() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("started-once");
    let command = fails_first_time(&Peers::locate().python_stdio(PyGen::V1), &marker);
    let spec = stdio_spec("late", &command);
    let m = manager_with(RetryPolicy::never());
    let error = m.list_tools(&owner(), &spec).await.expect_err("no retry");
    assert_eq!(error.code(), ErrorCode::McpConnectionError, "{error}");
    m.shutdown().await;
}

#[tokio::test]
async fn a_call_waits_for_an_http_server_that_starts_listening_after_the_first_try() {
    let mut peer = Peers::locate()
        .python_http(PyGen::V1)
        .await
        .expect("http peer");
    peer.kill().await.expect("stopped");
    let spec = http_spec("late", &peer.url(), TransportKind::StreamableHttp);
    // The peer is started again while the manager waits out the first delay; the later
    // delays leave room for a slow start.
    let m = manager_with(RetryPolicy {
        initial_delay: Duration::from_secs(1),
        ..RetryPolicy::default()
    });
    let mut status = m.subscribe(&owner(), &spec.id);
    let call = {
        let m = m.clone();
        let spec = spec.clone();
        tokio::spawn(async move {
            m.call_tool(
                &owner(),
                &spec,
                "pid",
                None,
                switchboard_mcp::CallOptions::default(),
            )
            .await
        })
    };
    let failed = status
        .wait_for(|s| s.status == ConnectionStatus::Error)
        .await
        .expect("status")
        .clone();
    let first_error = failed.last_error.unwrap_or_default();
    peer.restart().await.expect("listening again");
    let answer = call.await.expect("joined").expect("answered on a retry");
    assert!(!common::text(&answer).is_empty(), "{answer:?}");
    assert!(first_error.contains("cannot reach"), "{first_error}");
    m.shutdown().await;
}

#[tokio::test]
async fn a_call_with_its_own_retry_policy_is_not_retried_by_the_manager() {
    // The manager would retry (quickly); the call says never, as the tool-call service does,
    // which retries itself and records each attempt.
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("started-once");
    let command = fails_first_time(&Peers::locate().python_stdio(PyGen::V1), &marker);
    let spec = stdio_spec("late", &command);
    let m = manager_with(quick_retries());
    let options = switchboard_mcp::CallOptions {
        retry: Some(RetryPolicy::never()),
        ..Default::default()
    };
    let error = m
        .call_tool(&owner(), &spec, "pid", None, options)
        .await
        .expect_err("no retry in the manager");
    assert_eq!(error.code(), ErrorCode::McpConnectionError, "{error}");
    assert_eq!(
        error.retry_safety(),
        switchboard_core::RetrySafety::Always,
        "closed during the handshake: nothing was sent"
    );
    // The next call, with the manager's own policy, connects.
    let answer = m
        .call_tool(&owner(), &spec, "pid", None, Default::default())
        .await
        .expect("answered");
    assert!(!common::text(&answer).is_empty(), "{answer:?}");
    m.shutdown().await;
}

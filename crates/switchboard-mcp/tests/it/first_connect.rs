//! A server that is not up yet on the first connect (a stdio server that dies before the
//! handshake, an HTTP server not yet listening) is left out at once rather than waited for,
//! and tried again in the background: once a try reaches it, it is used, without anyone
//! editing or testing it.

use crate::common;

use std::time::Duration;

use common::{http_spec, owner, stdio_spec};
use switchboard_core::{ErrorCode, RetrySafety, TransportKind};
use switchboard_mcp::{
    BreakerPolicy, CallOptions, ConnectionManager, ConnectionStatus, ManagerConfig, McpError,
};
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

/// A manager whose breaker tries again after `first_delay`.
fn manager_with(first_delay: Duration) -> ConnectionManager {
    common::init_tracing();
    ConnectionManager::new(ManagerConfig {
        breaker: BreakerPolicy {
            first_delay,
            ..BreakerPolicy::default()
        },
        ..common::config()
    })
}

/// Waits (at most 20 s) until the connection to `spec` is `status`.
async fn wait_for_status(
    m: &ConnectionManager,
    spec: &switchboard_core::ServerSpec,
    status: ConnectionStatus,
) {
    let mut watch = m.subscribe(&owner(), &spec.id);
    tokio::time::timeout(
        Duration::from_secs(20),
        watch.wait_for(|s| s.status == status),
    )
    .await
    .unwrap_or_else(|_| panic!("no {status:?} within 20 s"))
    .expect("status");
}

#[tokio::test]
async fn a_stdio_server_that_fails_its_first_start_is_started_again_in_the_background() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("started-once");
    let command = fails_first_time(&Peers::locate().python_stdio(PyGen::V1), &marker);
    let spec = stdio_spec("late", &command);
    let m = manager_with(Duration::from_millis(100));
    let error = m
        .list_tools(&owner(), &spec)
        .await
        .expect_err("left out at once");
    assert!(matches!(error, McpError::Unavailable { .. }), "{error:?}");
    assert_eq!(error.code(), ErrorCode::McpConnectionError, "{error}");
    assert!(marker.exists(), "the first start really failed");
    // Nobody asks again: the background try starts it.
    wait_for_status(&m, &spec, ConnectionStatus::Connected).await;
    let tools = m.list_tools(&owner(), &spec).await.expect("tools");
    assert!(tools.iter().any(|t| t.name == "pid"), "{tools:?}");
    m.shutdown().await;
}

#[tokio::test]
async fn an_http_server_that_starts_listening_later_is_called_once_a_try_reaches_it() {
    let mut peer = Peers::locate()
        .python_http(PyGen::V1)
        .await
        .expect("http peer");
    peer.kill().await.expect("stopped");
    let spec = http_spec("late", &peer.url(), TransportKind::StreamableHttp);
    let m = manager_with(Duration::from_millis(200));
    let me = owner();
    let call = || m.call_tool(&me, &spec, "pid", None, CallOptions::default());
    let error = call().await.expect_err("not listening yet");
    assert_eq!(error.code(), ErrorCode::McpUnreachable, "{error}");
    assert_eq!(
        error.retry_safety(),
        RetrySafety::Never,
        "the background tries own the retrying: a caller does not wait them out"
    );
    assert!(error.to_string().contains("cannot reach"), "{error}");
    peer.restart().await.expect("listening again");
    wait_for_status(&m, &spec, ConnectionStatus::Connected).await;
    let answer = call().await.expect("answered");
    assert!(!common::text(&answer).is_empty(), "{answer:?}");
    m.shutdown().await;
}

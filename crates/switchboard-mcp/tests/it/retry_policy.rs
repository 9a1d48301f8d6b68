//! What happens to a call whose connection dies after it was sent: repeated on a new
//! connection only when the tool is annotated read-only or idempotent.

use crate::common;

use common::{args, manager, owner, stdio_spec, text};
use serde_json::json;
use switchboard_mcp::{CallOptions, ConnectionManager, ConnectionStatus, McpError};
use switchboard_testkit::{Peers, PyGen};

async fn crash_once(
    m: &ConnectionManager,
    tool: &str,
    marker: &std::path::Path,
) -> Result<String, McpError> {
    let spec = stdio_spec("py1", &Peers::locate().python_stdio(PyGen::V1));
    // List first, so the manager knows the tools' annotations.
    m.list_tools(&owner(), &spec).await.expect("tools");
    let a = json!({"marker": marker.to_string_lossy()});
    m.call_tool(&owner(), &spec, tool, args(a), CallOptions::default())
        .await
        .map(|result| text(&result))
}

#[tokio::test]
async fn read_only_tool_is_repeated_after_the_server_dies_mid_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("crashed");
    let m = manager();
    let answer = crash_once(&m, "crash_once_read_only", &marker)
        .await
        .expect("retried");
    assert_eq!(answer, "survived");
    assert!(marker.exists(), "the first attempt really ran and died");
    m.shutdown().await;
}

#[tokio::test]
async fn unsafe_tool_is_not_repeated_after_the_server_dies_mid_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("crashed");
    let m = manager();
    let error = crash_once(&m, "crash_once_unsafe", &marker)
        .await
        .expect_err("not repeated");
    assert!(matches!(error, McpError::LostAfterSend { .. }), "{error:?}");
    assert_eq!(
        error.code(),
        switchboard_core::ErrorCode::McpConnectionError
    );
    m.shutdown().await;
}

#[tokio::test]
async fn idle_connections_are_closed() {
    let spec = stdio_spec("py1", &Peers::locate().python_stdio(PyGen::V1));
    common::init_tracing();
    let m = ConnectionManager::new(switchboard_mcp::ManagerConfig {
        idle_timeout: std::time::Duration::from_millis(200),
        reap_interval: std::time::Duration::from_millis(50),
        ..common::config()
    });
    m.list_tools(&owner(), &spec).await.expect("tools");
    let pgid = m.process_group(&owner(), &spec.id).expect("running");
    let mut status = m.subscribe(&owner(), &spec.id);
    status
        .wait_for(|s| s.status == ConnectionStatus::Disconnected)
        .await
        .expect("status");
    let left = switchboard_testkit::process::wait_until_group_gone(
        pgid,
        std::time::Duration::from_secs(5),
    )
    .await;
    assert!(left.is_empty(), "the idle server was ended: {left:?}");
    // The next use connects again.
    m.list_tools(&owner(), &spec)
        .await
        .expect("tools after reconnect");
    m.shutdown().await;
}

#[tokio::test]
async fn idempotent_tool_is_repeated_after_the_server_dies_mid_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("crashed");
    let m = manager();
    let answer = crash_once(&m, "crash_once_idempotent", &marker)
        .await
        .expect("retried");
    assert_eq!(answer, "survived");
    assert!(marker.exists(), "the first attempt really ran and died");
    m.shutdown().await;
}

//! The pool under concurrency and reconfiguration: one connect attempt shared by everyone
//! waiting for it, restarts only when the way of connecting changed, callers that stop
//! waiting, and shutdown that ends everything.

use crate::common;

use std::time::{Duration, Instant};

use common::{args, owner, stdio_spec, text};
use serde_json::json;
use switchboard_core::ErrorCode;
use switchboard_mcp::{CallOptions, ConnectionManager, ConnectionStatus, ManagerConfig, McpError};
use switchboard_testkit::{Misbehaving, Peers, PyGen, process};

fn manager_with(connect_timeout: Duration) -> ConnectionManager {
    common::init_tracing();
    ConnectionManager::new(ManagerConfig {
        connect_timeout,
        ..common::config()
    })
}

#[tokio::test]
async fn callers_waiting_on_a_failed_connect_share_its_failure() {
    let spec = stdio_spec(
        "silent",
        &Peers::locate().misbehaving(Misbehaving::NeverAnswers),
    );
    let timeout = Duration::from_secs(1);
    // One attempt, not retried, so the time taken counts attempts.
    let m = ConnectionManager::new(ManagerConfig {
        connect_timeout: timeout,
        retry: switchboard_mcp::RetryPolicy::never(),
        ..common::config()
    });
    let started = Instant::now();
    let me = owner();
    let calls = (0..8).map(|_| m.call_tool(&me, &spec, "any", None, CallOptions::default()));
    let results = futures::future::join_all(calls).await;
    // One attempt for all eight: waiting in turn would take eight connect timeouts.
    assert!(
        started.elapsed() < timeout * 4,
        "took {:?}",
        started.elapsed()
    );
    for result in results {
        let error = result.expect_err("nothing connects");
        assert_eq!(error.code(), ErrorCode::McpTimeout, "{error:?}");
    }
    m.shutdown().await;
}

#[tokio::test]
async fn changing_tool_settings_keeps_the_server_running() {
    let mut spec = stdio_spec("py1", &Peers::locate().python_stdio(PyGen::V1));
    let m = common::manager();
    let pid = text(
        &m.call_tool(&owner(), &spec, "pid", None, CallOptions::default())
            .await
            .expect("pid"),
    );
    spec.disabled_tools.insert("counter".into());
    spec.auto_approved_tools.insert("echo".into());
    spec.timeout = Some(Duration::from_secs(7));
    let again = text(
        &m.call_tool(&owner(), &spec, "pid", None, CallOptions::default())
            .await
            .expect("pid"),
    );
    assert_eq!(pid, again, "same process");
    spec.env.insert("CHANGED".into(), "1".into());
    let restarted = text(
        &m.call_tool(&owner(), &spec, "pid", None, CallOptions::default())
            .await
            .expect("pid"),
    );
    assert_ne!(pid, restarted, "a new environment needs a new process");
    m.shutdown().await;
}

#[tokio::test]
async fn cancelling_while_connecting_sends_nothing() {
    let spec = stdio_spec(
        "silent",
        &Peers::locate().misbehaving(Misbehaving::NeverAnswers),
    );
    let m = manager_with(Duration::from_secs(30));
    let options = CallOptions::default();
    let cancel = options.cancel.clone();
    let mut status = m.subscribe(&owner(), &spec.id);
    let me = owner();
    let call = m.call_tool(&me, &spec, "any", None, options);
    let (result, ()) = tokio::join!(call, async {
        status
            .wait_for(|s| s.status == ConnectionStatus::Connecting)
            .await
            .expect("status");
        cancel.cancel();
    });
    assert!(matches!(result, Err(McpError::Cancelled)), "{result:?}");
    m.shutdown().await;
}

#[tokio::test]
async fn disconnect_ends_the_server_under_a_running_call() {
    let spec = stdio_spec("py1", &Peers::locate().python_stdio(PyGen::V1));
    let m = common::manager();
    let (tx, mut progress) = tokio::sync::mpsc::unbounded_channel();
    let options = CallOptions {
        progress: Some(tx),
        ..CallOptions::default()
    };
    let me = owner();
    let long = json!({"steps": 1000, "step_ms": 50});
    let call = m.call_tool(&me, &spec, "long_task", args(long), options);
    let (result, pgid) = tokio::join!(call, async {
        progress.recv().await.expect("running");
        let pgid = m.process_group(&owner(), &spec.id).expect("group");
        m.disconnect(&owner(), &spec.id).await;
        pgid
    });
    assert!(
        matches!(result, Err(McpError::LostAfterSend { .. })),
        "{result:?}"
    );
    assert!(
        process::wait_until_group_gone(pgid, Duration::from_secs(5))
            .await
            .is_empty()
    );
    m.shutdown().await;
}

#[tokio::test]
async fn nothing_connects_after_shutdown() {
    let spec = stdio_spec("py1", &Peers::locate().python_stdio(PyGen::V1));
    let m = common::manager();
    m.shutdown().await;
    let error = m.list_tools(&owner(), &spec).await.expect_err("shut down");
    assert!(matches!(error, McpError::ShutDown), "{error:?}");
}

//! The manager against real stdio servers written by others: the reference server from npm and
//! servers built on both generations of the official Python SDK.

use crate::common;

use std::time::{Duration, Instant};

use common::{args, has_image, manager, owner, stdio_spec, text};
use serde_json::json;
use switchboard_core::ServerSpec;
use switchboard_mcp::{CallOptions, ConnectionManager, ConnectionStatus, McpError};
use switchboard_testkit::{Peers, PyGen, process};

fn python(generation: PyGen) -> ServerSpec {
    let name = match generation {
        PyGen::V1 => "py1",
        PyGen::V2 => "py2",
    };
    stdio_spec(name, &Peers::locate().python_stdio(generation))
}

fn everything() -> ServerSpec {
    stdio_spec("everything", &Peers::locate().everything_stdio())
}

async fn call(
    m: &ConnectionManager,
    spec: &ServerSpec,
    tool: &str,
    a: serde_json::Value,
) -> rmcp::model::CallToolResult {
    m.call_tool(&owner(), spec, tool, args(a), CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{tool} on {}: {e}", spec.name))
}

/// Connect, list every page of tools, call a tool, an image tool and a failing tool.
async fn basics(spec: ServerSpec) {
    let m = manager();
    let tools = m.list_tools(&owner(), &spec).await.expect("list tools");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    // The Python peers serve three tools a page; all of them must arrive.
    for expected in [
        "echo",
        "add",
        "image",
        "fail",
        "long_task",
        "slow",
        "cancelled_count",
        "pid",
        "counter",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    let echoed = call(&m, &spec, "echo", json!({"text": "hello"})).await;
    assert!(text(&echoed).contains("hello"));
    assert_ne!(echoed.is_error, Some(true));
    assert!(has_image(&call(&m, &spec, "image", json!({})).await));
    assert_eq!(
        call(&m, &spec, "fail", json!({})).await.is_error,
        Some(true)
    );
    let snapshot = m.snapshot(&owner(), &spec.id);
    assert_eq!(snapshot.status, ConnectionStatus::Connected);
    assert!(snapshot.last_active_at.is_some());
    m.shutdown().await;
}

#[tokio::test]
async fn python_v1_stdio_basics() {
    basics(python(PyGen::V1)).await;
}

#[tokio::test]
async fn python_v2_stdio_basics() {
    basics(python(PyGen::V2)).await;
}

#[tokio::test]
async fn python_generations_negotiate_their_own_protocol() {
    let m = manager();
    let v1 = m
        .test_connection(&switchboard_core::OwnerId::local(), &python(PyGen::V1))
        .await
        .expect("v1");
    let v2 = m
        .test_connection(&switchboard_core::OwnerId::local(), &python(PyGen::V2))
        .await
        .expect("v2");
    assert_ne!(
        v1.details.protocol_version, "2026-07-28",
        "mcp 1.x uses initialize"
    );
    assert_eq!(
        v2.details.protocol_version, "2026-07-28",
        "mcp 2.x is stateless"
    );
    assert!(v1.tools.len() >= 9 && v2.tools.len() >= 9);
}

#[tokio::test]
async fn everything_stdio_basics() {
    let spec = everything();
    let m = manager();
    let tools = m.list_tools(&owner(), &spec).await.expect("list tools");
    assert!(tools.iter().any(|t| t.name == "echo"), "{tools:?}");
    let echoed = call(&m, &spec, "echo", json!({"message": "hi there"})).await;
    assert!(text(&echoed).contains("hi there"));
    assert!(has_image(
        &call(&m, &spec, "get-tiny-image", json!({})).await
    ));
    // Arguments the tool's schema rejects come back as a tool error, not a protocol error.
    let bad = call(&m, &spec, "get-sum", json!({"a": "x", "b": 1})).await;
    assert_eq!(bad.is_error, Some(true));
    m.shutdown().await;
}

/// A call that takes longer than the base timeout succeeds because progress resets it.
async fn progress_outlives_timeout(spec: ServerSpec, tool: &str, a: serde_json::Value) {
    let m = manager();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let options = CallOptions {
        progress: Some(tx),
        timeout: Some(Duration::from_millis(1500)),
        ..CallOptions::default()
    };
    let started = Instant::now();
    let result = m
        .call_tool(&owner(), &spec, tool, args(a), options)
        .await
        .expect("long call");
    assert!(
        started.elapsed() > Duration::from_millis(1500),
        "the call must outlive the base timeout"
    );
    assert_ne!(result.is_error, Some(true));
    let mut reports = 0;
    while rx.try_recv().is_ok() {
        reports += 1;
    }
    // Every report arrives before the result does: none is lost to a race with the response.
    assert_eq!(reports, 6, "saw {reports} progress reports");
    m.shutdown().await;
}

#[tokio::test]
async fn python_v1_progress_resets_the_timeout() {
    progress_outlives_timeout(
        python(PyGen::V1),
        "long_task",
        json!({"steps": 6, "step_ms": 500}),
    )
    .await;
}

#[tokio::test]
async fn python_v2_progress_resets_the_timeout() {
    progress_outlives_timeout(
        python(PyGen::V2),
        "long_task",
        json!({"steps": 6, "step_ms": 500}),
    )
    .await;
}

#[tokio::test]
async fn everything_stdio_progress_resets_the_timeout() {
    progress_outlives_timeout(
        everything(),
        "trigger-long-running-operation",
        json!({"duration": 3, "steps": 6}),
    )
    .await;
}

/// A call we time out is cancelled at the server and the connection stays usable.
pub async fn timeout_cancels_at_the_server(spec: ServerSpec) {
    let m = manager();
    let options = CallOptions {
        timeout: Some(Duration::from_millis(500)),
        ..CallOptions::default()
    };
    let error = m
        .call_tool(
            &owner(),
            &spec,
            "slow",
            args(json!({"seconds": 30})),
            options,
        )
        .await
        .expect_err("must time out");
    assert!(matches!(error, McpError::Timeout { .. }), "{error}");
    // The cancellation is handled asynchronously by the server; ask until it has counted it.
    common::assert_server_saw_one_cancellation(&m, &spec).await;
    m.shutdown().await;
}

#[tokio::test]
async fn python_v1_timeout_cancels_at_the_server() {
    timeout_cancels_at_the_server(python(PyGen::V1)).await;
}

#[tokio::test]
async fn python_v2_timeout_cancels_at_the_server() {
    timeout_cancels_at_the_server(python(PyGen::V2)).await;
}

#[tokio::test]
async fn caller_cancel_reaches_the_server() {
    let spec = python(PyGen::V1);
    let m = manager();
    let (tx, mut progress) = tokio::sync::mpsc::unbounded_channel();
    let options = CallOptions {
        progress: Some(tx),
        ..CallOptions::default()
    };
    let cancel = options.cancel.clone();
    let long = json!({"steps": 1000, "step_ms": 50});
    let me = owner();
    let call = m.call_tool(&me, &spec, "long_task", args(long), options);
    let (result, ()) = tokio::join!(call, async {
        // The first progress report proves the tool is running at the server.
        progress.recv().await.expect("progress");
        cancel.cancel();
    });
    assert!(matches!(result, Err(McpError::Cancelled)), "{result:?}");
    common::assert_server_saw_one_cancellation(&m, &spec).await;
    m.shutdown().await;
}

#[tokio::test]
async fn caller_that_drops_the_call_cancels_it_at_the_server() {
    let spec = python(PyGen::V2);
    let m = manager();
    let (tx, mut progress) = tokio::sync::mpsc::unbounded_channel();
    let options = CallOptions {
        progress: Some(tx),
        ..CallOptions::default()
    };
    let me = owner();
    let long = json!({"steps": 1000, "step_ms": 50});
    let call = m.call_tool(&me, &spec, "long_task", args(long), options);
    // The caller gives up by dropping the call's future once it is running at the server.
    tokio::select! {
        _ = call => panic!("the call cannot finish first"),
        Some(_) = progress.recv() => {}
    }
    common::assert_server_saw_one_cancellation(&m, &spec).await;
    m.shutdown().await;
}

/// The server is killed with SIGKILL between calls; the next call reconnects.
async fn survives_sigkill(spec: ServerSpec) {
    let m = manager();
    let first: u32 = text(&call(&m, &spec, "pid", json!({})).await)
        .trim()
        .parse()
        .expect("pid");
    let mut status = m.subscribe(&owner(), &spec.id);
    let pgid = m
        .process_group(&owner(), &spec.id)
        .expect("stdio server has a group");
    std::process::Command::new("kill")
        .args(["-KILL", &first.to_string()])
        .status()
        .expect("kill");
    // Wait until the manager has noticed, so the next call is a reconnect, not a lost send.
    status
        .wait_for(|s| s.status != ConnectionStatus::Connected)
        .await
        .expect("status channel");
    let second: u32 = text(&call(&m, &spec, "pid", json!({})).await)
        .trim()
        .parse()
        .expect("pid");
    assert_ne!(first, second, "a new process answered");
    assert!(
        process::wait_until_group_gone(pgid, Duration::from_secs(5))
            .await
            .is_empty()
    );
    m.shutdown().await;
}

#[tokio::test]
async fn python_v1_survives_sigkill() {
    survives_sigkill(python(PyGen::V1)).await;
}

#[tokio::test]
async fn python_v2_survives_sigkill() {
    survives_sigkill(python(PyGen::V2)).await;
}

#[tokio::test]
async fn hundred_concurrent_calls_share_one_connection() {
    let spec = everything();
    let m = manager();
    let calls = (0..100).map(|n| {
        let (m, spec) = (m.clone(), spec.clone());
        async move {
            let result = call(&m, &spec, "echo", json!({"message": format!("call {n}")})).await;
            (n, text(&result))
        }
    });
    for (n, reply) in futures::future::join_all(calls).await {
        assert!(
            reply.ends_with(&format!("call {n}")),
            "call {n} got {reply}"
        );
    }
    let pgid = m
        .process_group(&owner(), &spec.id)
        .expect("one live process");
    assert_eq!(process::pgid_of(pgid), Some(pgid));
    m.shutdown().await;
    assert!(
        process::wait_until_group_gone(pgid, Duration::from_secs(5))
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn unknown_tool_is_reported_as_not_found() {
    let spec = python(PyGen::V1);
    let m = manager();
    let error = m
        .call_tool(
            &owner(),
            &spec,
            "no_such_tool",
            None,
            CallOptions::default(),
        )
        .await
        .map(|r| text(&r))
        .expect_err("no such tool");
    assert_eq!(
        error.code(),
        switchboard_core::ErrorCode::McpToolNotFound,
        "{error:?}"
    );
    m.shutdown().await;
}

#[tokio::test]
async fn env_is_merged_over_ours() {
    let mut spec = everything();
    spec.env
        .insert("SWITCHBOARD_TEST_MARKER".into(), "merged-value".into());
    let m = manager();
    let env = text(&call(&m, &spec, "get-env", json!({})).await);
    assert!(env.contains("merged-value"), "our variable is set");
    assert!(
        env.contains("\"PATH\""),
        "the inherited environment is kept"
    );
    m.shutdown().await;
}

#[tokio::test]
async fn tool_list_changed_drops_the_cache() {
    let spec = python(PyGen::V1);
    let m = manager();
    let before = m.list_tools(&owner(), &spec).await.expect("tools");
    let again = m.list_tools(&owner(), &spec).await.expect("tools");
    assert!(
        std::sync::Arc::ptr_eq(&before, &again),
        "the second listing is served from the cache"
    );
    call(&m, &spec, "add_tool", json!({"name": "late_arrival"})).await;
    // The notification precedes the call's response on the same stream, so the cache is
    // already stale when the call returns.
    let after = m.list_tools(&owner(), &spec).await.expect("tools");
    assert!(after.iter().any(|t| t.name == "late_arrival"), "{after:?}");
    m.shutdown().await;
}

#[tokio::test]
async fn tool_cache_expires_after_its_ttl() {
    let spec = python(PyGen::V1);
    let m = ConnectionManager::new(switchboard_mcp::ManagerConfig {
        tool_cache_ttl: Duration::ZERO,
        ..common::config()
    });
    let first = m.list_tools(&owner(), &spec).await.expect("tools");
    let second = m.list_tools(&owner(), &spec).await.expect("tools");
    assert!(
        !std::sync::Arc::ptr_eq(&first, &second),
        "a zero TTL always refetches"
    );
    m.shutdown().await;
}

#[tokio::test]
async fn resources_and_prompts_are_listed_and_read() {
    let spec = everything();
    let m = manager();
    let resources = m.list_resources(&owner(), &spec).await.expect("resources");
    let first = resources
        .first()
        .expect("server-everything offers resources");
    let read = m
        .read_resource(&owner(), &spec, &first.uri)
        .await
        .expect("read");
    assert!(!read.contents.is_empty(), "{} has contents", first.uri);
    let prompts = m.list_prompts(&owner(), &spec).await.expect("prompts");
    assert!(
        prompts.iter().any(|p| p.name == "simple-prompt"),
        "{prompts:?}"
    );
    let prompt = m
        .get_prompt(&owner(), &spec, "simple-prompt", None)
        .await
        .expect("prompt");
    assert!(!prompt.messages.is_empty());
    m.shutdown().await;
}

/// A stdio server sees its configured env and what a program needs to run, and none of the
/// rest of Switchboard's environment (which holds Switchboard's own secrets).
#[tokio::test]
async fn stdio_servers_do_not_inherit_switchboards_environment() {
    // Cargo and nextest set this for every test process; the server must not see it.
    let ours = "CARGO_MANIFEST_DIR";
    assert!(std::env::var_os(ours).is_some(), "{ours} is set for tests");
    let spec = everything().with_env("SWITCHBOARD_PROBE", "configured value");
    let m = manager();
    let result = call(&m, &spec, "get-env", json!({})).await;
    let env: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&text(&result)).expect("get-env returns a JSON object");
    assert_eq!(env["SWITCHBOARD_PROBE"], "configured value");
    assert!(env.contains_key("PATH"), "{env:?}");
    assert!(!env.contains_key(ours), "{ours} leaked into the server");
    m.shutdown().await;
}

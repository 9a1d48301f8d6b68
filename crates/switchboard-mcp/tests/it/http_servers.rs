//! The manager against real HTTP servers: the reference server over Streamable HTTP and legacy
//! SSE, and both Python SDK generations over Streamable HTTP.

use crate::common;

use std::time::{Duration, Instant};

use common::{args, has_image, http_spec, manager, owner, text};
use serde_json::json;
use switchboard_core::{ServerSpec, TransportKind};
use switchboard_mcp::{CallOptions, ConnectionManager, McpError};
use switchboard_testkit::{EverythingHttp, HttpPeer, Peers, PyGen};

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

async fn everything(kind: EverythingHttp) -> (HttpPeer, ServerSpec) {
    let peer = Peers::locate()
        .everything_http(kind)
        .await
        .expect("start server-everything");
    let transport = match kind {
        EverythingHttp::Sse => TransportKind::Sse,
        _ => TransportKind::StreamableHttp,
    };
    let spec = http_spec("everything", &peer.url(), transport);
    (peer, spec)
}

async fn python(generation: PyGen) -> (HttpPeer, ServerSpec) {
    let peer = Peers::locate()
        .python_http(generation)
        .await
        .expect("start python peer");
    let spec = http_spec("py", &peer.url(), TransportKind::StreamableHttp);
    (peer, spec)
}

/// Tools, a call, an image, a tool error, progress past the base timeout, and a restart of
/// the server between calls.
async fn everything_scenario(kind: EverythingHttp) {
    let (mut peer, spec) = everything(kind).await;
    let m = manager();
    let tools = m.list_tools(&owner(), &spec).await.expect("tools");
    assert!(tools.iter().any(|t| t.name == "get-sum"), "{tools:?}");
    assert!(
        text(&call(&m, &spec, "echo", json!({"message": "over http"})).await).contains("over http")
    );
    assert!(has_image(
        &call(&m, &spec, "get-tiny-image", json!({})).await
    ));
    assert_eq!(
        call(&m, &spec, "get-sum", json!({"a": "x", "b": 1}))
            .await
            .is_error,
        Some(true)
    );

    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let options = CallOptions {
        progress: Some(tx),
        timeout: Some(Duration::from_millis(1500)),
        ..CallOptions::default()
    };
    let started = Instant::now();
    let long = json!({"duration": 3, "steps": 6});
    m.call_tool(
        &owner(),
        &spec,
        "trigger-long-running-operation",
        args(long),
        options,
    )
    .await
    .expect("progress keeps the call alive");
    assert!(started.elapsed() > Duration::from_millis(1500));
    assert!(rx.try_recv().is_ok(), "progress was reported");

    peer.restart().await.expect("restart");
    let again = call(&m, &spec, "echo", json!({"message": "after restart"})).await;
    assert!(text(&again).contains("after restart"));
    m.shutdown().await;
}

#[tokio::test]
async fn everything_streamable_http() {
    everything_scenario(EverythingHttp::StreamableHttp).await;
}

#[tokio::test]
async fn everything_legacy_sse() {
    everything_scenario(EverythingHttp::Sse).await;
}

async fn python_scenario(generation: PyGen) {
    let (mut peer, spec) = python(generation).await;
    let m = manager();
    let tools = m.list_tools(&owner(), &spec).await.expect("tools");
    assert!(tools.len() >= 9, "every page arrived: {}", tools.len());
    assert!(
        text(&call(&m, &spec, "echo", json!({"text": "py over http"})).await)
            .contains("py over http")
    );
    assert!(has_image(&call(&m, &spec, "image", json!({})).await));
    assert_eq!(
        call(&m, &spec, "fail", json!({})).await.is_error,
        Some(true)
    );

    let options = CallOptions {
        timeout: Some(Duration::from_millis(1500)),
        ..CallOptions::default()
    };
    let started = Instant::now();
    m.call_tool(
        &owner(),
        &spec,
        "long_task",
        args(json!({"steps": 6, "step_ms": 500})),
        options,
    )
    .await
    .expect("progress keeps the call alive");
    assert!(started.elapsed() > Duration::from_millis(1500));

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
        .expect_err("times out");
    assert!(matches!(error, McpError::Timeout { .. }), "{error}");
    common::assert_server_saw_one_cancellation(&m, &spec).await;

    peer.restart().await.expect("restart");
    let again = call(&m, &spec, "echo", json!({"text": "after restart"})).await;
    assert!(text(&again).contains("after restart"));
    m.shutdown().await;
}

#[tokio::test]
async fn python_v1_streamable_http() {
    python_scenario(PyGen::V1).await;
}

#[tokio::test]
async fn python_v2_streamable_http() {
    python_scenario(PyGen::V2).await;
}

#[tokio::test]
async fn bearer_and_headers_reach_the_server() {
    let (_peer, spec) = everything(EverythingHttp::StreamableHttp).await;
    let spec = spec
        .with_auth(switchboard_core::Auth::Bearer {
            token: "secret-token".into(),
        })
        .with_header("X-Switchboard-Test", "yes");
    let m = manager();
    // server-everything ignores credentials; what matters is that they are valid headers
    // and the session works with them attached.
    call(&m, &spec, "echo", json!({"message": "with auth"})).await;
    m.shutdown().await;
}

#[tokio::test]
async fn unreachable_server_is_a_clear_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let spec = http_spec(
        "gone",
        &format!("http://127.0.0.1:{port}/mcp"),
        TransportKind::StreamableHttp,
    );
    let m = manager();
    let error = m
        .list_tools(&owner(), &spec)
        .await
        .expect_err("nothing listens");
    assert_eq!(
        error.code(),
        switchboard_core::ErrorCode::McpUnreachable,
        "{error:?}"
    );
}

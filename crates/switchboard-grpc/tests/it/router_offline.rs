//! The router without a node to reach: settings it refuses, servers on unknown nodes, a node
//! where nothing listens, and the admission cache.

use crate::router_support;

use std::sync::Arc;

use router_support::*;
use switchboard_core::{ErrorCode, RetrySafety};
use switchboard_grpc::{NodeConfig, Router, RouterError};
use switchboard_mcp::{
    AdmitAll, CallOptions, ConnectionStatus, McpError, NodeState, ServerPool, ToolBackend,
};
use switchboard_testkit::canned_http::closed_port;

fn build(nodes: Vec<NodeConfig>) -> Result<Router, RouterError> {
    Router::new(local(), nodes, Arc::new(AdmitAll))
}

fn refusal(nodes: Vec<NodeConfig>) -> String {
    match build(nodes) {
        Ok(_) => panic!("the settings must be refused"),
        Err(error) => error.to_string(),
    }
}

#[tokio::test]
async fn plaintext_to_a_host_off_loopback_is_refused_unless_allowed() {
    let mut node = loopback_node("build-box", 7443);
    // TEST-NET-1: an address off loopback that no test reaches (and no name to look up).
    node.url = "http://192.0.2.1:7443".into();
    let text = refusal(vec![node.clone()]);
    assert!(
        text.contains("build-box") && text.contains("loopback"),
        "{text}"
    );

    node.allow_plaintext = true;
    build(vec![node]).expect("allowed plaintext");
    for url in [
        "http://127.0.0.1:7443",
        "http://localhost:7443",
        "http://[::1]:7443",
    ] {
        let mut node = loopback_node("here", 7443);
        node.url = url.into();
        build(vec![node]).unwrap_or_else(|e| panic!("{url}: {e}"));
    }
}

#[tokio::test]
async fn settings_that_cannot_work_are_refused() {
    let mut https_without_ca = loopback_node("a", 7443);
    https_without_ca.url = "https://build-box.internal:7443".into();
    assert!(refusal(vec![https_without_ca.clone()]).contains("ca"));

    let mut bad_ca = https_without_ca;
    bad_ca.ca_pem = Some(b"-----BEGIN CERTIFICATE-----\n".to_vec());
    assert!(refusal(vec![bad_ca]).contains("TLS"));

    let mut other_scheme = loopback_node("a", 7443);
    other_scheme.url = "ftp://127.0.0.1:7443".into();
    assert!(refusal(vec![other_scheme]).contains("https://"));

    let mut no_token = loopback_node("a", 7443);
    no_token.token = "  ".into();
    assert!(refusal(vec![no_token]).contains("token"));

    let twice = vec![loopback_node("a", 7443), loopback_node("a", 7444)];
    assert!(refusal(twice).contains("twice"));
}

#[tokio::test]
async fn the_token_never_shows_in_debug() {
    let node = loopback_node("a", 7443);
    assert!(!format!("{node:?}").contains(TOKEN));
}

#[tokio::test]
async fn a_server_on_an_unknown_node_is_unreachable() {
    let router = build(vec![]).expect("router");
    let spec = remote_spec("far", "nowhere");
    let error = router
        .call(&owner(), &spec, "echo", None, CallOptions::default())
        .await
        .expect_err("no such node");
    assert!(matches!(error, McpError::UnknownNode { ref node } if node == "nowhere"));
    assert_eq!(error.code(), ErrorCode::McpUnreachable);
    let listed = router.list_tools(&owner(), &spec).await;
    assert!(matches!(listed, Err(McpError::UnknownNode { .. })));
    let snapshot = router.snapshot(&owner(), &spec);
    assert_eq!(snapshot.status, ConnectionStatus::Error);
    assert!(snapshot.last_error.unwrap_or_default().contains("nowhere"));
    assert!(router.nodes().is_empty());
    // The router is the pool the server, the agent and the CLI hold.
    let pool: Arc<dyn ServerPool> = Arc::new(router);
    assert!(pool.nodes().is_empty());
}

#[tokio::test]
async fn a_node_where_nothing_listens_is_down_and_its_calls_never_left() {
    let port = closed_port().await;
    let router = build(vec![loopback_node("gone", port)]).expect("router");
    let spec = remote_spec("far", "gone");
    assert_eq!(
        router.snapshot(&owner(), &spec).status,
        ConnectionStatus::Disconnected,
        "a node never reached has not said anything about its servers"
    );

    let error = router
        .call(&owner(), &spec, "echo", None, CallOptions::default())
        .await
        .expect_err("nothing listens");
    assert!(
        matches!(&error, McpError::NodeUnreachable { node, .. } if node == "gone"),
        "{error:?}"
    );
    assert_eq!(error.code(), ErrorCode::McpUnreachable);
    assert_eq!(error.retry_safety(), RetrySafety::Always);
    let listed = router.list_tools(&owner(), &spec).await;
    assert!(
        matches!(listed, Err(McpError::NodeUnreachable { .. })),
        "{listed:?}"
    );

    wait_for_state(&router, "gone", NodeState::Down).await;
    let health = router.nodes();
    assert_eq!(health.len(), 1);
    assert_eq!(health[0].name, "gone");
    assert_eq!(health[0].state, NodeState::Down);
    assert!(health[0].last_error.is_some());
    let snapshot = router.snapshot(&owner(), &spec);
    assert_eq!(snapshot.status, ConnectionStatus::Error);
    let text = snapshot.last_error.unwrap_or_default();
    assert!(
        text.starts_with("node `gone` cannot be reached: "),
        "{text}"
    );
    assert!(text.contains("Connection refused"), "{text}");
    router.shutdown().await;
}

#[tokio::test]
async fn admission_is_asked_once_and_a_refusal_never_reaches_the_node() {
    let port = closed_port().await;
    let counting = Arc::new(Counting::default());
    let router =
        Router::new(local(), vec![loopback_node("n", port)], counting.clone()).expect("router");
    let spec = remote_spec("far", "n");
    for _ in 0..3 {
        let error = router
            .call(&owner(), &spec, "echo", None, CallOptions::default())
            .await
            .expect_err("nothing listens");
        assert!(matches!(error, McpError::NodeUnreachable { .. }), "{error}");
    }
    assert_eq!(counting.asked(), 1, "the answer is kept");

    let refusing = Arc::new(Refusing::default());
    let router =
        Router::new(local(), vec![loopback_node("n", port)], refusing.clone()).expect("router");
    for _ in 0..2 {
        let error = router
            .call(&owner(), &spec, "echo", None, CallOptions::default())
            .await
            .expect_err("refused");
        assert!(matches!(error, McpError::Refused { .. }), "{error}");
    }
    assert_eq!(
        refusing.0.load(std::sync::atomic::Ordering::SeqCst),
        2,
        "a refusal is not kept"
    );
}

#[tokio::test]
async fn a_cancelled_call_is_not_sent() {
    let port = closed_port().await;
    let router = build(vec![loopback_node("n", port)]).expect("router");
    let options = CallOptions::default();
    options.cancel.cancel();
    let error = router
        .call(&owner(), &remote_spec("far", "n"), "echo", None, options)
        .await
        .expect_err("cancelled");
    assert!(matches!(error, McpError::Cancelled), "{error}");
}

/// Templates, completion and resource subscriptions are carried to a node: with the node
/// down they fail as unreachable, at once.
#[tokio::test]
async fn what_a_down_node_is_asked_fails_as_unreachable() {
    let port = closed_port().await;
    let router = build(vec![loopback_node("n1", port)]).expect("router");
    let spec = remote_spec("srv", "n1");
    let owner = owner();
    let subscribe = router
        .subscribe_resource(&owner, &spec, "file:///x")
        .await
        .expect_err("the node is down");
    let unsubscribe = router
        .unsubscribe_resource(&owner, &spec, "file:///x")
        .await
        .expect_err("the node is down");
    let templates = router
        .list_resource_templates(&owner, &spec)
        .await
        .expect_err("the node is down");
    let complete = router
        .complete(
            &owner,
            &spec,
            rmcp::model::CompleteRequestParams::new(
                rmcp::model::Reference::for_prompt("p"),
                rmcp::model::ArgumentInfo::new("a", "b"),
            ),
        )
        .await
        .expect_err("the node is down");
    for error in [subscribe, unsubscribe, templates, complete] {
        assert_eq!(error.code(), ErrorCode::McpUnreachable, "{error}");
    }
}

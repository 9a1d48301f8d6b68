//! The router against a real node (in this process, on loopback) running real stdio servers:
//! lists and calls, progress, cancellation, a wrong token, and a node that dies and comes
//! back on the same port. Needs the peers (`SWITCHBOARD_PEERS`).

use crate::router_support;

use std::sync::Arc;

use router_support::*;
use serde_json::json;
use switchboard_core::{ErrorCode, RetrySafety, ServerSpec};
use switchboard_grpc::{NodeConfig, Router};
use switchboard_mcp::{
    AdmitAll, CallOptions, ConnectionStatus, McpError, NodeState, ServerPool, ToolBackend,
};
use switchboard_testkit::{Peers, PyGen};

fn router(nodes: Vec<NodeConfig>) -> Router {
    Router::new(local(), nodes, Arc::new(AdmitAll)).expect("router")
}

fn python() -> ServerSpec {
    stdio_spec("py1", &Peers::locate().python_stdio(PyGen::V1))
}

/// Calls `tool` through `router`, expecting a result.
async fn call(
    router: &Router,
    spec: &ServerSpec,
    tool: &str,
    arguments: serde_json::Value,
) -> String {
    let result = router
        .call(
            &owner(),
            spec,
            tool,
            args(arguments),
            CallOptions::default(),
        )
        .await
        .unwrap_or_else(|error| panic!("{tool} on {}: {error}", spec.name));
    assert_ne!(result.is_error, Some(true), "{result:?}");
    text(&result)
}

/// Asks the server how many calls it saw cancelled, until it says one.
async fn assert_one_cancellation(router: &Router, spec: &ServerSpec) {
    let mut seen = String::new();
    for _ in 0..50 {
        seen = call(router, spec, "cancelled_count", json!({})).await;
        if seen.trim() == "1" {
            return;
        }
    }
    panic!("the server saw no cancellation: cancelled_count is {seen}");
}

#[tokio::test(flavor = "multi_thread")]
async fn node_servers_list_and_call_beside_local_ones() {
    let node = TestNode::start(0).await;
    let router = router(vec![loopback_node("box", node.port())]);
    let mut changes = router.status_changes();
    let mut local_changes = router.status_changes();
    let mut everything = on_node(
        stdio_spec("everything", &Peers::locate().everything_stdio()),
        "box",
    );
    everything.disabled_tools.insert("get-sum".into());
    let local_python = python();

    let listed = router
        .tools(&owner(), &[everything.clone(), local_python.clone()])
        .await;
    assert_eq!(listed.len(), 2);
    let on_node = listed[0].1.as_ref().expect("the node's server lists");
    assert!(
        on_node.iter().any(|tool| tool.name == "echo"),
        "{on_node:?}"
    );
    assert!(
        !on_node.iter().any(|tool| tool.name == "get-sum"),
        "a disabled tool is not offered"
    );
    let all = router
        .list_tools(&owner(), &everything)
        .await
        .expect("list");
    assert!(
        all.iter().any(|tool| tool.name == "get-sum"),
        "list_tools has them all"
    );
    let here = listed[1].1.as_ref().expect("the local server lists");
    assert!(here.iter().any(|tool| tool.name == "long_task"));

    let echoed = call(
        &router,
        &everything,
        "echo",
        json!({"message": "over grpc"}),
    )
    .await;
    assert!(echoed.contains("over grpc"), "{echoed}");
    let local_echo = call(&router, &local_python, "echo", json!({"text": "here"})).await;
    assert!(local_echo.contains("here"), "{local_echo}");

    // The node's watch says the server is connected, and the local manager's change comes
    // through the same channel (a second receiver reads the local one).
    wait_for_change(&mut changes, |change| {
        change.server == everything.id && change.status == ConnectionStatus::Connected
    })
    .await;
    wait_for_change(&mut local_changes, |change| {
        change.server == local_python.id && change.status == ConnectionStatus::Connected
    })
    .await;
    assert_eq!(
        router.snapshot(&owner(), &everything).status,
        ConnectionStatus::Connected
    );
    assert_eq!(
        router.snapshot(&owner(), &local_python).status,
        ConnectionStatus::Connected
    );
    assert!(
        router
            .local()
            .process_group(&owner(), &local_python.id)
            .is_some()
    );
    assert!(
        router
            .local()
            .process_group(&owner(), &everything.id)
            .is_none(),
        "the node's server runs on the node"
    );
    let health = router.nodes();
    assert_eq!(health[0].state, NodeState::Up);
    assert_eq!(
        health[0].version.as_deref(),
        Some(env!("CARGO_PKG_VERSION"))
    );

    // Resources, templates, prompts, completions and a test connection come back as MCP's
    // own types.
    let resources = router
        .list_resources(&owner(), &everything)
        .await
        .expect("resources");
    let document = resources
        .iter()
        .find(|resource| resource.uri.starts_with("demo://resource/static/document/"))
        .expect("a static document");
    let read = router
        .read_resource(&owner(), &everything, &document.uri)
        .await
        .expect("read");
    assert!(!read.contents.is_empty());
    let prompts = router
        .list_prompts(&owner(), &everything)
        .await
        .expect("prompts");
    assert!(prompts.iter().any(|prompt| prompt.name == "simple-prompt"));
    let prompt = router
        .get_prompt(&owner(), &everything, "simple-prompt", None)
        .await
        .expect("prompt");
    assert!(!prompt.messages.is_empty());
    let templates = router
        .list_resource_templates(&owner(), &everything)
        .await
        .expect("resource templates");
    assert!(!templates.is_empty(), "server-everything has templates");
    let completed = router
        .complete(
            &owner(),
            &everything,
            rmcp::model::CompleteRequestParams::new(
                rmcp::model::Reference::for_prompt("completable-prompt"),
                rmcp::model::ArgumentInfo::new("department", "Eng"),
            ),
        )
        .await
        .expect("completion");
    assert!(
        completed
            .completion
            .values
            .iter()
            .any(|value| value == "Engineering"),
        "{completed:?}"
    );
    let report = router
        .test_connection(&owner(), &everything)
        .await
        .expect("test connection");
    assert!(report.tools.iter().any(|tool| tool.name == "echo"));

    // Disconnecting closes the node's connection; its watch says so.
    router.disconnect(&owner(), &everything).await;
    wait_for_change(&mut changes, |change| {
        change.server == everything.id && change.status == ConnectionStatus::Disconnected
    })
    .await;
    router.shutdown().await;
    node.kill().await;
}

/// A server on a node that says its tool list changed is heard on the router's list changes,
/// as a local server's is (the gateway tells its clients from there).
#[tokio::test(flavor = "multi_thread")]
async fn a_node_servers_list_change_reaches_the_host() {
    let node = TestNode::start(0).await;
    let router = router(vec![loopback_node("box", node.port())]);
    let mut lists = router.list_changes();
    let spec = on_node(python(), "box");
    call(&router, &spec, "add_tool", json!({"name": "fresh"})).await;
    let heard = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        loop {
            let change = lists.recv().await.expect("the router's list changes");
            if change.server == spec.id && change.kind == switchboard_mcp::ListKind::Tools {
                return change;
            }
        }
    })
    .await
    .expect("the node's list change in time");
    assert_eq!(heard.owner, owner());
    router.shutdown().await;
    node.kill().await;
}

/// A subscription to a resource of a server on a node is made there, and the server's update
/// reaches the host's resource updates.
#[tokio::test(flavor = "multi_thread")]
async fn a_node_servers_resource_update_reaches_the_host() {
    let node = TestNode::start(0).await;
    let router = router(vec![loopback_node("box", node.port())]);
    let mut updates = router.resource_updates();
    let spec = on_node(
        stdio_spec("everything", &Peers::locate().everything_stdio()),
        "box",
    );
    let resources = router
        .list_resources(&owner(), &spec)
        .await
        .expect("resources");
    let uri = resources[0].uri.clone();
    router
        .subscribe_resource(&owner(), &spec, &uri)
        .await
        .expect("subscribed on the node");
    // The server sends an update for each subscribed resource at once, then every 5 s.
    call(&router, &spec, "toggle-subscriber-updates", json!({})).await;
    let heard = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        loop {
            let update = updates.recv().await.expect("the router's resource updates");
            if update.server == spec.id {
                return update;
            }
        }
    })
    .await
    .expect("the node's resource update in time");
    assert_eq!((heard.owner, heard.uri.as_str()), (owner(), uri.as_str()));
    router
        .unsubscribe_resource(&owner(), &spec, &uri)
        .await
        .expect("unsubscribed on the node");
    router.shutdown().await;
    node.kill().await;
}

/// What a server on a node logs is kept in its server log on the host, as a local server's.
#[tokio::test(flavor = "multi_thread")]
async fn a_node_servers_log_reaches_the_hosts_server_log() {
    let node = TestNode::start(0).await;
    let router = router(vec![loopback_node("box", node.port())]);
    let spec = on_node(stdio_spec("plain", &Peers::locate().plain_stdio()), "box");
    call(
        &router,
        &spec,
        "log",
        json!({"message": "logged on the box"}),
    )
    .await;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let lines = router.server_log(&owner(), &spec);
        if lines
            .iter()
            .any(|line| line.text.contains("logged on the box"))
        {
            assert!(lines.iter().all(|line| line.level == "info"), "{lines:?}");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no log line: {lines:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    router.shutdown().await;
    node.kill().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn progress_reaches_the_caller_and_cancel_reaches_the_server() {
    let node = TestNode::start(0).await;
    let router = router(vec![loopback_node("box", node.port())]);
    let spec = on_node(python(), "box");
    let (tx, mut progress) = tokio::sync::mpsc::unbounded_channel();
    let options = CallOptions {
        progress: Some(tx),
        ..CallOptions::default()
    };
    let cancel = options.cancel.clone();
    let me = owner();
    let long = args(json!({"steps": 1000, "step_ms": 50}));
    let running = router.call(&me, &spec, "long_task", long, options);
    let (result, ()) = tokio::join!(running, async {
        let first = progress.recv().await.expect("progress from the node");
        assert!(first.progress > 0.0);
        progress.recv().await.expect("more progress");
        cancel.cancel();
    });
    assert!(matches!(result, Err(McpError::Cancelled)), "{result:?}");
    assert_one_cancellation(&router, &spec).await;

    // A caller that drops its call cancels it on the server too.
    let (tx, mut progress) = tokio::sync::mpsc::unbounded_channel();
    let options = CallOptions {
        progress: Some(tx),
        ..CallOptions::default()
    };
    let long = args(json!({"steps": 1000, "step_ms": 50}));
    tokio::select! {
        _ = router.call(&me, &spec, "long_task", long, options) => panic!("it cannot finish first"),
        Some(_) = progress.recv() => {}
    }
    let mut seen = String::new();
    for _ in 0..50 {
        seen = call(&router, &spec, "cancelled_count", json!({})).await;
        if seen.trim() == "2" {
            break;
        }
    }
    assert_eq!(
        seen.trim(),
        "2",
        "the dropped call was cancelled at the server"
    );
    node.kill().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_token_is_refused() {
    let node = TestNode::start(0).await;
    let mut config = loopback_node("box", node.port());
    config.token = "not-the-token".into();
    let router = router(vec![config]);
    let spec = on_node(python(), "box");
    let error = router
        .call(
            &owner(),
            &spec,
            "echo",
            args(json!({"text": "x"})),
            CallOptions::default(),
        )
        .await
        .expect_err("refused");
    assert!(
        matches!(&error, McpError::NodeUnreachable { detail, .. } if detail.contains("token")),
        "{error:?}"
    );
    assert!(!error.to_string().contains("not-the-token"));
    wait_for_state(&router, "box", NodeState::Down).await;
    let health = router.nodes();
    assert!(
        health[0]
            .last_error
            .as_deref()
            .unwrap_or_default()
            .contains("token"),
        "{health:?}"
    );
    node.kill().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_node_that_dies_and_comes_back_on_the_same_port() {
    let node = TestNode::start(0).await;
    let port = node.port();
    let router = router(vec![loopback_node("box", port)]);
    let mut changes = router.status_changes();
    let spec = on_node(python(), "box");
    wait_for_state(&router, "box", NodeState::Up).await;
    let before = call(&router, &spec, "pid", json!({})).await;
    wait_for_change(&mut changes, |change| {
        change.server == spec.id && change.status == ConnectionStatus::Connected
    })
    .await;

    // A call in flight when the node dies may have run: it is lost after being sent.
    let (tx, mut progress) = tokio::sync::mpsc::unbounded_channel();
    let options = CallOptions {
        progress: Some(tx),
        ..CallOptions::default()
    };
    let me = owner();
    let long = args(json!({"steps": 1000, "step_ms": 50}));
    let running = router.call(&me, &spec, "long_task", long, options);
    let (result, ()) = tokio::join!(running, async {
        progress.recv().await.expect("the call runs on the node");
        node.kill().await;
    });
    let lost = result.expect_err("the node died under the call");
    assert!(
        matches!(&lost, McpError::LostAfterSend { server, tool } if server == "py1" && tool == "long_task"),
        "{lost:?}"
    );
    assert_eq!(lost.retry_safety(), RetrySafety::IfIdempotent);

    // Its servers turn `error`, saying why, and calls fail as unreachable.
    let change = wait_for_change(&mut changes, |change| {
        change.server == spec.id && change.status == ConnectionStatus::Error
    })
    .await;
    let said = change.last_error.unwrap_or_default();
    assert!(said.starts_with("node `box` cannot be reached"), "{said}");
    wait_for_state(&router, "box", NodeState::Down).await;
    let snapshot = router.snapshot(&owner(), &spec);
    assert_eq!(snapshot.status, ConnectionStatus::Error);
    let error = router
        .call(&owner(), &spec, "pid", None, CallOptions::default())
        .await
        .expect_err("the node is down");
    assert!(
        matches!(error, McpError::NodeUnreachable { .. }),
        "{error:?}"
    );
    assert_eq!(error.code(), ErrorCode::McpUnreachable);

    // A node on the same port again: the router resumes and the next call succeeds (on a
    // new server process, since the old one went with its node).
    // The call reaching the node also cuts the router's backoff short.
    let again = TestNode::start(port).await;
    let after = call(&router, &spec, "pid", json!({})).await;
    assert_ne!(before, after, "a new process on the new node");
    wait_for_state(&router, "box", NodeState::Up).await;
    assert_eq!(router.nodes()[0].last_error, None);
    router.shutdown().await;
    again.kill().await;
}

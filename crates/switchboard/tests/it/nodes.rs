//! MCP nodes, host and node as two real processes on loopback: `switchboard serve`
//! (and the CLI) with a `[nodes.box]` section, and `switchboard node` running the servers.
//! Stdio, Streamable HTTP and legacy SSE servers on the node are listed and called through the
//! REST API; their processes run under the node, not under `serve`; progress reaches the
//! host; dropping a call on the host cancels it on the server.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use common::node::{NodeLaunch, NodeProc, descendants_running, write_settings};
use common::rest::{
    call_tool, create_server, demo_command, remote_body, result_text, send, stdio_body,
};
use common::serve::{serve, terminate};
use common::{BIN, Switchboard};
use reqwest::Method;
use serde_json::json;
use switchboard_testkit::{EverythingHttp, Peers, PyGen};

const TOKEN: &str = "node-token-for-tests";

/// A node, and a data directory whose settings point at it as `box`.
fn node_and_host() -> (NodeProc, Switchboard) {
    let node = NodeProc::start(NodeLaunch::plaintext(TOKEN));
    let sb = Switchboard::new();
    write_settings(&sb.data_dir(), "", &[node.section("box", &sb.data_dir())]);
    (node, sb)
}

#[tokio::test]
async fn stdio_servers_on_a_node_are_listed_and_called_through_serve() {
    let (node, sb) = node_and_host();
    let mut served = serve(&sb, &["--single-user"]);

    let demo = create_server(&served, stdio_body("boxdemo", &demo_command(), Some("box"))).await;
    let (status, stored) = send(
        &served,
        Method::GET,
        &format!("/api/mcp-servers/{demo}"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{stored}");
    assert_eq!(stored["node"], "box", "{stored}");

    let (status, tools) = send(
        &served,
        Method::GET,
        &format!("/api/mcp-servers/{demo}/tools"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{tools}");
    assert!(tools.to_string().contains("calculate"), "{tools}");
    let (status, result) = call_tool(&served, &demo, "echo", json!({"text": "from the box"})).await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(result_text(&result), "from the box");
    let (status, result) =
        call_tool(&served, &demo, "calculate", json!({"expression": "6*7"})).await;
    assert_eq!(status, 200, "{result}");
    assert!(result_text(&result).contains("42"), "{result}");

    // The process runs under the node, not under serve.
    assert_eq!(descendants_running(node.pid(), "demo-server").len(), 1);
    assert!(descendants_running(served.child.id(), "demo-server").is_empty());

    // server-everything over stdio, on Node.
    let everything = Peers::locate().everything_stdio();
    let id = create_server(
        &served,
        stdio_body("boxeverything", &everything, Some("box")),
    )
    .await;
    let (status, result) = call_tool(&served, &id, "echo", json!({"message": "hi"})).await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(result_text(&result), "Echo: hi");
    assert!(!descendants_running(node.pid(), "server-everything").is_empty());

    // The node is up and the server healthy.
    let (status, nodes) = send(&served, Method::GET, "/api/nodes", None).await;
    assert_eq!(status, 200, "{nodes}");
    assert_eq!(nodes[0]["name"], "box", "{nodes}");
    assert_eq!(nodes[0]["state"], "up", "{nodes}");
    let health = common::rest::health(&served, &demo).await;
    assert_eq!(health["status"], "connected", "{health}");

    assert!(terminate(&mut served).success());
}

#[tokio::test]
async fn http_and_sse_servers_on_a_node_are_called_through_serve() {
    let (_node, sb) = node_and_host();
    let peers = Peers::locate();
    let mut streamable = peers
        .everything_http(EverythingHttp::StreamableHttp)
        .await
        .unwrap();
    let mut sse = peers.everything_http(EverythingHttp::Sse).await.unwrap();
    let mut served = serve(&sb, &["--single-user"]);

    for (name, transport, url) in [
        ("boxhttp", "streamable_http", streamable.url()),
        ("boxsse", "sse", sse.url()),
    ] {
        let id = create_server(&served, remote_body(name, transport, &url, Some("box"))).await;
        let (status, tools) = send(
            &served,
            Method::GET,
            &format!("/api/mcp-servers/{id}/tools"),
            None,
        )
        .await;
        assert_eq!(status, 200, "{name}: {tools}");
        assert!(tools.to_string().contains("echo"), "{name}: {tools}");
        let (status, result) = call_tool(&served, &id, "echo", json!({"message": name})).await;
        assert_eq!(status, 200, "{name}: {result}");
        assert_eq!(result_text(&result), format!("Echo: {name}"));
    }

    assert!(terminate(&mut served).success());
    let _ = streamable.kill().await;
    let _ = sse.kill().await;
}

#[test]
fn a_server_on_an_unknown_node_is_refused() {
    let sb = Switchboard::new();
    let run = sb
        .run(&[
            "servers",
            "add",
            "far",
            "--command",
            BIN,
            "--arg",
            "demo-server",
            "--node",
            "nowhere",
        ])
        .failed();
    assert!(run.stderr.contains("nowhere"), "{run:#?}");
}

#[tokio::test]
async fn saving_a_server_on_an_unknown_node_is_a_validation_error() {
    let (_node, sb) = node_and_host();
    let mut served = serve(&sb, &["--single-user"]);
    let (status, body) = send(
        &served,
        Method::POST,
        "/api/mcp-servers",
        Some(stdio_body("far", &demo_command(), Some("nowhere"))),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["code"], "VALIDATION_ERROR", "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("nowhere"),
        "{body}"
    );
    assert!(terminate(&mut served).success());
}

/// `switchboard call` on a server of the node prints the server's progress as it comes.
#[test]
fn progress_on_the_node_reaches_the_host() {
    let (node, sb) = node_and_host();
    sb.run(&[
        "servers",
        "add",
        "boxdemo",
        "--command",
        BIN,
        "--arg",
        "demo-server",
        "--node",
        "box",
    ])
    .ok();
    let listed = sb.run(&["servers", "list"]).ok();
    assert!(listed.stdout.contains("box"), "{listed:#?}");

    let run = sb
        .run(&[
            "call",
            "boxdemo",
            "echo",
            "--args",
            r#"{"text": "done", "steps": 3}"#,
        ])
        .ok();
    assert_eq!(run.stdout.trim(), "done", "{run:#?}");
    for step in 1..=3 {
        let line = format!("progress {step}/3: step {step} of 3");
        assert!(run.stderr.contains(&line), "{line} missing: {run:#?}");
    }
    assert_eq!(descendants_running(node.pid(), "demo-server").len(), 1);
}

/// The host that was calling goes away mid-call (the CLI killed while the tool runs): the
/// node cancels the call on the server, which counts it.
#[test]
fn a_call_dropped_by_the_host_is_cancelled_on_the_server() {
    let (_node, sb) = node_and_host();
    let python = Peers::locate().python_stdio(PyGen::V1);
    let mut add = vec![
        "servers",
        "add",
        "slowpy",
        "--command",
        python.program.as_str(),
    ];
    for arg in &python.args {
        add.extend(["--arg", arg.as_str()]);
    }
    let env: Vec<String> = python.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    for pair in &env {
        add.extend(["--env", pair.as_str()]);
    }
    add.extend(["--node", "box"]);
    sb.run(&add).ok();
    let count = sb.run(&["call", "slowpy", "cancelled_count"]).ok();
    assert_eq!(count.stdout.trim(), "0", "{count:#?}");

    // A long task whose first progress line shows it runs on the server.
    let mut caller = Command::new(BIN)
        .arg("--data-dir")
        .arg(sb.data_dir())
        .args([
            "call",
            "slowpy",
            "long_task",
            "--args",
            r#"{"steps": 600, "step_ms": 100}"#,
        ])
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(caller.stderr.take().unwrap());
    loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "the call ended before progress"
        );
        if line.starts_with("progress ") {
            break;
        }
    }
    caller.kill().unwrap();
    caller.wait().unwrap();

    let deadline = std::time::Instant::now() + common::rest::PATIENCE;
    loop {
        let count = sb.run(&["call", "slowpy", "cancelled_count"]).ok();
        if count.stdout.trim() == "1" {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server never saw the cancellation: {count:#?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

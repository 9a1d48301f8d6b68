//! An MCP node's life as the host sees it: killed with SIGKILL while the host
//! uses it, its servers turn `error` naming the node and calls fail `MCP_UNREACHABLE`; once it
//! is back on the same port the host reconnects and the next call succeeds. Ended with
//! SIGTERM, it leaves no process of its servers' process groups behind.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::node::{NodeLaunch, NodeProc, descendants_running, write_settings};
use common::rest::{
    add_provider, call_tool, create_server, demo_command, eventually, health, result_text, send,
    stdio_body,
};
use common::serve::{serve, terminate};
use common::{BIN, Switchboard};
use reqwest::Method;
use serde_json::json;
use switchboard_testkit::{Peers, PyGen, ScriptedLlm, Turn, process};

const TOKEN: &str = "node-token-for-tests";

#[tokio::test]
async fn a_node_killed_and_restarted_on_its_port_serves_the_next_call() {
    let mut node = NodeProc::start(NodeLaunch::plaintext(TOKEN));
    let sb = Switchboard::new();
    write_settings(&sb.data_dir(), "", &[node.section("box", &sb.data_dir())]);
    let mut served = serve(&sb, &["--single-user"]);
    let demo = create_server(&served, stdio_body("boxdemo", &demo_command(), Some("box"))).await;
    let (status, result) = call_tool(&served, &demo, "echo", json!({"text": "one"})).await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(result_text(&result), "one");

    node.kill();

    // The host notices on its own: the server's health turns error and names the node.
    let down = eventually("the server's health turning error", || {
        let served = &served;
        let demo = demo.clone();
        async move {
            let health = health(served, &demo).await;
            if health["status"] == "error" {
                Ok(health)
            } else {
                Err(health.to_string())
            }
        }
    })
    .await;
    let why = down["lastError"].as_str().unwrap_or_default();
    assert!(why.contains("box"), "{down}");
    let (status, nodes) = send(&served, Method::GET, "/api/nodes", None).await;
    assert_eq!(status, 200, "{nodes}");
    assert_eq!(nodes[0]["state"], "down", "{nodes}");

    // Calls fail fast while it is down.
    let started = std::time::Instant::now();
    let (status, body) = call_tool(&served, &demo, "echo", json!({"text": "two"})).await;
    assert_eq!(body["code"], "MCP_UNREACHABLE", "{status} {body}");
    assert!(body["message"].as_str().unwrap().contains("box"), "{body}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );

    node.restart();
    eventually("the node coming back up", || {
        let served = &served;
        async move {
            let (_, nodes) = send(served, Method::GET, "/api/nodes", None).await;
            if nodes[0]["state"] == "up" {
                Ok(())
            } else {
                Err(nodes.to_string())
            }
        }
    })
    .await;
    let (status, result) = call_tool(&served, &demo, "echo", json!({"text": "three"})).await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(result_text(&result), "three");
    assert_eq!(descendants_running(node.pid(), "demo-server").len(), 1);
    let health = health(&served, &demo).await;
    assert_eq!(health["status"], "connected", "{health}");

    assert!(terminate(&mut served).success());
}

/// The node dies between two turns of one conversation: the turn while it is down gets an
/// error for the node's tool (its tools cannot be listed, so it is not offered; a call made
/// anyway is `MCP_UNREACHABLE`) and the run still answers; the turn after its restart calls
/// the tool on the node again.
#[tokio::test]
async fn a_conversation_goes_on_after_its_node_restarts() {
    let mut node = NodeProc::start(NodeLaunch::plaintext(TOKEN));
    let sb = Switchboard::new();
    write_settings(&sb.data_dir(), "", &[node.section("box", &sb.data_dir())]);
    let echo = |text: &str| Turn::tool_call("mcp__boxdemo__echo", json!({ "text": text }));
    let llm = ScriptedLlm::start(vec![
        echo("before"),
        Turn::text("One."),
        echo("while down"),
        Turn::text("Two."),
        echo("after"),
        Turn::text("Three."),
    ])
    .await;
    let mut served = serve(&sb, &["--single-user"]);
    add_provider(&served, &llm).await;
    let demo = create_server(&served, stdio_body("boxdemo", &demo_command(), Some("box"))).await;
    let (status, body) = send(
        &served,
        Method::PUT,
        &format!("/api/mcp-servers/{demo}/tools/echo"),
        Some(json!({"autoApprove": true})),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    let mut conversation = serde_json::Value::Null;
    let mut turn = async |message: &str| {
        let mut body = json!({ "message": message });
        if !conversation.is_null() {
            body["conversationId"] = conversation.clone();
        }
        let (status, answer) = send(&served, Method::POST, "/api/chat/message", Some(body)).await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["status"], "completed", "{answer}");
        conversation = answer["conversationId"].clone();
        let id = conversation.as_str().unwrap().to_owned();
        let (_, history) = send(
            &served,
            Method::GET,
            &format!("/api/conversations/{id}"),
            None,
        )
        .await;
        // The call of this turn: the last one of the conversation.
        let calls: Vec<serde_json::Value> = history["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|m| m["toolCalls"].as_array())
            .flatten()
            .cloned()
            .collect();
        (answer, calls.last().cloned().unwrap())
    };

    let (answer, call) = turn("First").await;
    assert_eq!(answer["message"]["content"], "One.", "{answer}");
    assert_eq!(call["status"], "done", "{call}");
    assert!(call["response"].to_string().contains("before"), "{call}");

    node.kill();
    let (answer, call) = turn("Second").await;
    assert_eq!(answer["message"]["content"], "Two.", "{answer}");
    assert_eq!(call["status"], "error", "{call}");
    // The server's tools could not be listed, so the model's call names a tool it was not
    // offered; a call made anyway fails unreachable. Either way the run goes on.
    let code = call["response"]["error"]["code"]
        .as_str()
        .unwrap_or_default();
    assert!(
        ["MCP_UNREACHABLE", "MCP_TOOL_NOT_FOUND"].contains(&code),
        "{call}"
    );

    node.restart();
    eventually("the node coming back up", || {
        let served = &served;
        async move {
            let (_, nodes) = send(served, Method::GET, "/api/nodes", None).await;
            if nodes[0]["state"] == "up" {
                Ok(())
            } else {
                Err(nodes.to_string())
            }
        }
    })
    .await;
    let (answer, call) = turn("Third").await;
    assert_eq!(answer["message"]["content"], "Three.", "{answer}");
    assert_eq!(call["status"], "done", "{call}");
    assert!(call["response"].to_string().contains("after"), "{call}");
    assert_eq!(llm.requests().len(), 6);
    assert!(terminate(&mut served).success());
}

/// SIGTERM ends the node with status 0 and every process group of its stdio servers with it,
/// grandchildren included.
#[test]
fn a_node_ended_with_sigterm_leaves_no_process_group_behind() {
    let mut node = NodeProc::start(NodeLaunch::plaintext(TOKEN));
    let sb = Switchboard::new();
    write_settings(&sb.data_dir(), "", &[node.section("box", &sb.data_dir())]);
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
    let python = Peers::locate().python_stdio(PyGen::V1);
    let mut add = vec![
        "servers",
        "add",
        "boxpy",
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

    sb.run(&["call", "boxdemo", "echo", "--args", r#"{"text": "x"}"#])
        .ok();
    // A grandchild in the python server's group, which only a group kill ends.
    let grandchild: u32 = sb
        .run(&["call", "boxpy", "spawn_child"])
        .ok()
        .stdout
        .trim()
        .parse()
        .unwrap();

    let node_group = process::pgid_of(node.pid()).unwrap();
    let mut groups: Vec<u32> = process::descendants(node.pid())
        .into_iter()
        .filter_map(process::pgid_of)
        .filter(|&group| group != node_group)
        .collect();
    groups.sort_unstable();
    groups.dedup();
    assert_eq!(groups.len(), 2, "one group per stdio server: {groups:?}");
    assert!(groups.contains(&process::pgid_of(grandchild).unwrap()));

    let exit = node.terminate();
    assert!(exit.success(), "{exit:?}: {}", node.stderr.lock().unwrap());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for group in groups {
        let left = runtime.block_on(process::wait_until_group_gone(
            group,
            Duration::from_secs(10),
        ));
        assert!(left.is_empty(), "group {group} outlived the node: {left:?}");
    }
    assert!(!process::alive(grandchild));
}

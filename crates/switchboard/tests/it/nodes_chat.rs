//! A chat whose tools run on an MCP node: the scripted model calls a tool of a
//! server on the node, the run waits for the approval, and once approved the result comes
//! from the node's process; cancelling the run while the tool runs ends the call on the
//! node's server; a question the node's server asks during the call shows in the chat, and
//! the person's answer goes back to it.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::Switchboard;
use common::node::{NodeLaunch, NodeProc, descendants_running, write_settings};
use common::rest::{
    Events, add_provider, call_tool, create_server, demo_command, eventually, result_text, send,
    stdio_body,
};
use common::serve::{Served, serve, terminate};
use reqwest::Method;
use serde_json::{Value, json};
use switchboard_testkit::{Peers, PyGen, ScriptedLlm, Turn};

const TOKEN: &str = "node-token-for-tests";

/// Asks something the model answers with a tool call; returns (conversation, message, call).
async fn ask(served: &Served, question: &str) -> (String, String, String) {
    let (status, answer) = send(
        served,
        Method::POST,
        "/api/chat/message",
        Some(json!({"message": question})),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "awaiting_approval", "{answer}");
    let text = |v: &Value| v.as_str().unwrap().to_owned();
    (
        text(&answer["conversationId"]),
        text(&answer["message"]["id"]),
        text(&answer["message"]["toolCalls"][0]["id"]),
    )
}

async fn approve(served: &Served, message: &str, call: &str) {
    let (status, decided) = send(
        served,
        Method::POST,
        &format!("/api/messages/{message}/tool-confirm"),
        Some(json!({"toolCallId": call, "approved": true})),
    )
    .await;
    assert_eq!(status, 200, "{decided}");
}

fn node_and_host() -> (NodeProc, Switchboard) {
    let node = NodeProc::start(NodeLaunch::plaintext(TOKEN));
    let sb = Switchboard::new();
    write_settings(&sb.data_dir(), "", &[node.section("box", &sb.data_dir())]);
    (node, sb)
}

#[tokio::test]
async fn a_chat_with_an_approval_runs_its_tool_on_the_node() {
    let (node, sb) = node_and_host();
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__boxdemo__echo", json!({"text": "said on the node"})),
        Turn::text("The node answered."),
    ])
    .await;
    let mut served = serve(&sb, &["--single-user"]);
    add_provider(&served, &llm).await;
    // The local demo server of single-user mode goes, so the only demo-server is the node's.
    let (status, body) = send(&served, Method::DELETE, "/api/mcp-servers/demo", None).await;
    assert!(status.is_success(), "{status} {body}");
    let demo = create_server(&served, stdio_body("boxdemo", &demo_command(), Some("box"))).await;
    assert_eq!(demo, "boxdemo");

    let (conversation, message, call) = ask(&served, "Say it through the node").await;
    let mut events = Events::open(&served).await;
    approve(&served, &message, &call).await;
    let completed = events.until("message.completed", |_| true).await;
    assert_eq!(completed["content"], "The node answered.");

    let (_, history) = send(
        &served,
        Method::GET,
        &format!("/api/conversations/{conversation}"),
        None,
    )
    .await;
    let done = &history["messages"][1]["toolCalls"][0];
    assert_eq!(done["status"], "done", "{history}");
    assert!(
        done["response"].to_string().contains("said on the node"),
        "{done}"
    );
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[1].body.to_string().contains("said on the node"));
    // The tool ran on the node: its process is the node's, and serve started none.
    assert_eq!(descendants_running(node.pid(), "demo-server").len(), 1);
    assert!(descendants_running(served.child.id(), "demo-server").is_empty());
    assert!(terminate(&mut served).success());
}

#[tokio::test]
async fn cancelling_a_run_cancels_its_call_on_the_nodes_server() {
    let (_node, sb) = node_and_host();
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call(
            "mcp__slowpy__long_task",
            json!({"steps": 600, "step_ms": 100}),
        ),
        Turn::text("Never asked for."),
    ])
    .await;
    let mut served = serve(&sb, &["--single-user"]);
    add_provider(&served, &llm).await;
    let python = Peers::locate().python_stdio(PyGen::V1);
    let slow = create_server(&served, stdio_body("slowpy", &python, Some("box"))).await;
    let (status, count) = call_tool(&served, &slow, "cancelled_count", json!({})).await;
    assert_eq!(status, 200, "{count}");
    assert_eq!(result_text(&count), "0");

    let (conversation, message, call) = ask(&served, "Take your time").await;
    let mut events = Events::open(&served).await;
    approve(&served, &message, &call).await;
    events
        .until("assistant.toolCall.updated", |data| {
            data["toolCall"]["status"] == "invoking"
        })
        .await;
    let (status, body) = send(
        &served,
        Method::POST,
        &format!("/api/conversations/{conversation}/cancel"),
        None,
    )
    .await;
    assert_eq!(status, 202, "{body}");

    eventually("the server counting the cancelled call", || {
        let served = &served;
        let slow = slow.clone();
        async move {
            let (_, count) = call_tool(served, &slow, "cancelled_count", json!({})).await;
            let count = result_text(&count);
            if count == "1" { Ok(()) } else { Err(count) }
        }
    })
    .await;
    let (_, history) = send(
        &served,
        Method::GET,
        &format!("/api/conversations/{conversation}"),
        None,
    )
    .await;
    assert_eq!(
        history["messages"][1]["toolCalls"][0]["status"], "cancelled",
        "{history}"
    );
    assert_eq!(llm.requests().len(), 1, "the model is not asked again");
    assert!(terminate(&mut served).success());
}

#[tokio::test]
async fn a_question_of_the_nodes_server_is_answered_in_the_chat() {
    let (_node, sb) = node_and_host();
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__boxeverything__trigger-elicitation-request", json!({})),
        Turn::text("Thanks, noted."),
    ])
    .await;
    let mut served = serve(&sb, &["--single-user"]);
    add_provider(&served, &llm).await;
    let everything = Peers::locate().everything_stdio();
    let server = create_server(
        &served,
        stdio_body("boxeverything", &everything, Some("box")),
    )
    .await;
    let (status, set) = send(
        &served,
        Method::PUT,
        &format!("/api/mcp-servers/{server}/tools/trigger-elicitation-request"),
        Some(json!({"enabled": true, "autoApprove": false})),
    )
    .await;
    assert_eq!(status, 200, "{set}");

    let (conversation, message, call) = ask(&served, "Ask me for my details").await;
    let mut events = Events::open(&served).await;
    approve(&served, &message, &call).await;
    let asked = events
        .until("assistant.toolCall.updated", |data| {
            !data["toolCall"]["question"].is_null()
        })
        .await;
    let question = &asked["toolCall"]["question"];
    assert_eq!(question["mode"], "form", "{question}");
    assert!(
        question["requestedSchema"]["properties"]["name"].is_object(),
        "{question}"
    );
    let (status, answered) = send(
        &served,
        Method::POST,
        &format!("/api/messages/{message}/tool-calls/{call}/answer"),
        Some(json!({
            "questionId": question["id"],
            "action": "accept",
            "content": {"name": "Ada Lovelace", "check": true},
        })),
    )
    .await;
    assert_eq!(status, 200, "{answered}");

    let completed = events.until("message.completed", |_| true).await;
    assert_eq!(completed["content"], "Thanks, noted.");
    let (_, history) = send(
        &served,
        Method::GET,
        &format!("/api/conversations/{conversation}"),
        None,
    )
    .await;
    let done = &history["messages"][1]["toolCalls"][0];
    assert_eq!(done["status"], "done", "{history}");
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[1].body.to_string().contains("Ada Lovelace"),
        "the server got the answer: {}",
        requests[1].body
    );
    assert!(terminate(&mut served).success());
}

//! Tasks of a server that runs on an MCP node (in this process, on loopback), as for a server
//! inside `serve` (`chat_tasks.rs`, `tasks_api.rs`, `chat_task_questions.rs`): the call is
//! started as a task on the node, the host's watcher follows it through the node (its state,
//! its outcome, its questions, its cancellation), and the node keeps nothing but the
//! connection that runs it.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_agent::StopReason;
use switchboard_core::ServerId;
use switchboard_mcp::ConnectionStatus;
use switchboard_testkit::{ScriptedLlm, Turn};

use crate::chat_task_questions::{answer, asking_model, parked_question};
use crate::chat_tasks::{Events, call_of, cancels_told, chat_with, messages, model, post};
use crate::common::node::{NODE, RunningNode, start_node};
use crate::common::{self, Api, everything};
use crate::tasks_api::{add_server, ended, servers_task, start_task, tasks_peer};

/// `server` (an API body) on the test's node.
fn on_node(mut server: Value) -> Value {
    server["node"] = json!(NODE);
    server
}

/// The API with a router over a node of its own.
async fn with_node() -> (Api, RunningNode) {
    let node = start_node().await;
    let api = common::start_with_nodes(vec![node.config.clone()]).await;
    (api, node)
}

/// Whether `server` of the admin runs on `node` and not in `serve`.
async fn runs_on(api: &Api, node: &RunningNode, server: &str) -> bool {
    let owner = api.store.user_by_token(&api.admin).await.unwrap().unwrap();
    let server = ServerId(server.to_owned());
    node.manager.snapshot(&owner.id, &server).status == ConnectionStatus::Connected
        && api.manager.snapshot(&owner.id, &server).status == ConnectionStatus::Disconnected
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chat_turn_parks_on_a_node_servers_task_and_goes_on_when_it_ends() {
    let (api, node) = with_node().await;
    let llm = ScriptedLlm::responding(model(
        vec![(
            "Research",
            Turn::tool_call(
                "mcp__everything__simulate-research-query",
                json!({"topic": "tides"}),
            ),
        )],
        "Here is the report.",
    ))
    .await;
    let mut events = Events::of(&api);
    let (conversation, server) =
        chat_with(&api, &llm, on_node(everything()), "simulate-research-query").await;
    // The node's listing says how the server runs the tool (`execution.taskSupport`).
    let (status, tools) = api
        .send(
            Method::GET,
            &format!("/api/mcp-servers/{server}/tools"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{tools}");
    let research = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "simulate-research-query")
        .unwrap_or_else(|| panic!("{tools}"));
    assert_eq!(research["tasks"]["support"], "required", "{research}");
    let (status, sent) = post(&api, &conversation, json!({"content": "Research tides"})).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{sent}");

    // The turn waits on the server's task, as for a server inside `serve`.
    let message_id = events.parked(&conversation).await;
    let call = call_of(&api, &conversation, &message_id).await;
    assert_eq!(call["status"], "invoking", "{call}");
    let task_id = call["task"]["id"].as_str().unwrap().to_owned();
    assert_eq!(call["task"]["status"], "working", "{call}");
    assert!(
        runs_on(&api, &node, &server).await,
        "the task runs on the node"
    );

    // Followed through the node to its end: the result reaches the same turn.
    let (content, stop) = events.completed(&conversation).await;
    assert_eq!(
        (content.as_str(), stop),
        ("Here is the report.", StopReason::Answered)
    );
    let stored = messages(&api, &conversation).await;
    assert_eq!(stored.len(), 2, "one turn: {stored:#?}");
    let call = &stored[1]["toolCalls"][0];
    assert_eq!(call["status"], "done", "{call}");
    assert_eq!(call["task"]["id"], task_id.as_str(), "{call}");
    assert_eq!(call["task"]["status"], "completed", "{call}");
    assert!(
        call["response"]
            .to_string()
            .contains("Research Report: tides"),
        "{call}"
    );
    api.manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_node_servers_task_reaches_the_server() {
    let (api, node) = with_node().await;
    let llm = ScriptedLlm::responding(model(
        vec![(
            "Sleep",
            Turn::tool_call("mcp__tasks__slow_task", json!({"seconds": 600})),
        )],
        "Stopped, as you asked.",
    ))
    .await;
    let mut events = Events::of(&api);
    let (conversation, server) = chat_with(&api, &llm, on_node(tasks_peer()), "slow_task").await;
    post(&api, &conversation, json!({"content": "Sleep a while"})).await;
    let message_id = events.parked(&conversation).await;
    let call = call_of(&api, &conversation, &message_id).await;
    let task_id = call["task"]["id"].as_str().unwrap().to_owned();
    assert!(
        runs_on(&api, &node, &server).await,
        "the task runs on the node"
    );

    let path = format!(
        "/api/messages/{message_id}/tool-calls/{}/cancel",
        call["id"].as_str().unwrap()
    );
    let (status, cancelled) = api.send(Method::POST, &path, Some(&api.admin), None).await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    assert_eq!(cancelled["task"]["status"], "cancelled", "{cancelled}");
    assert_eq!(events.task_ended(&task_id).await, "cancelled");
    let (content, _) = events.completed(&conversation).await;
    assert_eq!(content, "Stopped, as you asked.");
    // The node's server was told (the count is asked of the same process, on the node).
    assert_eq!(cancels_told(&api, &server).await, "1");
    api.manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_proxy_runs_a_node_servers_tool_as_its_task() {
    let (api, node) = with_node().await;
    let server = add_server(&api, &api.admin, on_node(everything())).await;
    let mut events = api.app.agent.events().subscribe();
    let task = start_task(
        &api,
        &format!("/api/mcp/proxy/{server}/tools/simulate-research-query/call?mode=task"),
        json!({"topic": "tides"}),
    )
    .await;
    let id = task["taskId"].as_str().unwrap().to_owned();
    // It becomes the server's own task, on the node.
    servers_task(&api, &mut events, &id).await;
    assert!(
        runs_on(&api, &node, &server).await,
        "the task runs on the node"
    );
    let done = ended(&api, &mut events, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert!(
        done["result"]
            .to_string()
            .contains("Research Report: tides"),
        "{done}"
    );
    api.manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_node_servers_task_question_is_answered_in_the_chat() {
    let (api, node) = with_node().await;
    let llm = asking_model("Teal it is.").await;
    let mut events = Events::of(&api);
    let (conversation, server) = chat_with(&api, &llm, on_node(tasks_peer()), "ask_task").await;
    // The server asks on the task's `tasks/result`, held open through the node.
    let (message_id, call) = parked_question(&api, &mut events, &conversation).await;
    let task_id = call.task.as_ref().unwrap().id.clone();
    assert!(
        runs_on(&api, &node, &server).await,
        "the task runs on the node"
    );

    answer(
        &api,
        &message_id,
        &call,
        json!({"action": "accept", "content": {"colour": "teal"}}),
    )
    .await;
    assert_eq!(events.task_ended(&task_id).await, "completed");
    let (content, _) = events.completed(&conversation).await;
    assert_eq!(content, "Teal it is.");
    let call = call_of(&api, &conversation, &message_id).await;
    assert_eq!(
        call["response"]["content"][0]["text"], "told teal",
        "{call}"
    );
    api.manager.shutdown().await;
}

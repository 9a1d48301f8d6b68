//! A chat's call parked on a task of the 2026-07-28 tasks extension whose server asks a
//! question: conformance-server's `confirm_delete` task lists its question with the task
//! (`inputRequests`); Switchboard asks it in the chat, on the call still waiting on its task,
//! sends the person's answer with `tasks/update`, and the turn goes on once the task ends
//! with a result that reflects the answer. Cancelling the call while the question waits ends
//! the question and the task. A server on an MCP node is asked and answered the same way, each
//! step of its task going through the node.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_store::{Role, StoreConfig};
use switchboard_testkit::{ScriptedLlm, Turn};

use crate::chat_restart_2026::upstream;
use crate::served::{Events, Served, node, serve_with_nodes};

/// A Switchboard whose chat calls `confirm_delete` on the server at `url`, then answers
/// `after_tool`: it, a token, the conversation and the SSE events, the message already sent.
struct Chat {
    served: Served,
    token: String,
    conversation: String,
    events: Events,
    _dir: tempfile::TempDir,
    _node: Option<tokio::sync::oneshot::Sender<()>>,
}

/// Where the server runs.
#[derive(Clone, Copy, PartialEq)]
enum Runs {
    Here,
    OnANode,
}

async fn chat(url: &str, llm: &ScriptedLlm, runs: Runs) -> Chat {
    let dir = tempfile::tempdir().unwrap();
    let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
        .await
        .unwrap();
    let admin = store.create_user("admin", Role::Admin).await.unwrap();
    let token = store.issue_token(&admin.id, "t").await.unwrap().secret;
    let (nodes, running) = match runs {
        Runs::Here => (Vec::new(), None),
        Runs::OnANode => {
            let (config, running) = node("box").await;
            (vec![config], Some(running))
        }
    };
    let served = serve_with_nodes(&store, nodes).await;
    let send = |method, path: &'static str, body| served.send(&token, method, path, Some(body));
    let (status, provider) = send(
        Method::POST,
        "/api/providers",
        json!({
            "name": "scripted", "kind": "openai", "baseUrl": llm.openai_base_url(),
            "apiKey": "sk-test", "defaultModel": "scripted-model",
        }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{provider}");
    let (status, server) = send(
        Method::POST,
        "/api/mcp-servers",
        json!({
            "name": "conformance", "transport": "streamable_http", "url": url,
            "auto_approved_tools": ["confirm_delete"],
            "node": (runs == Runs::OnANode).then_some("box"),
        }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{server}");
    let (status, assistant) = send(
        Method::POST,
        "/api/assistants",
        json!({"name": "Helper", "providerId": provider["id"], "toolMode": "native"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{assistant}");
    let assistant_id = assistant["id"].as_str().unwrap().to_owned();
    served
        .send(
            &token,
            Method::PUT,
            &format!("/api/assistants/{assistant_id}/mcp-servers"),
            Some(json!({"serverIds": [server["id"]]})),
        )
        .await;
    let (status, conversation) = send(
        Method::POST,
        "/api/conversations",
        json!({"title": "Files", "assistantId": assistant_id}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{conversation}");
    let conversation = conversation["id"].as_str().unwrap().to_owned();
    let events = served.events(&token).await;
    let (status, sent) = served
        .send(
            &token,
            Method::POST,
            &format!("/api/conversations/{conversation}/messages"),
            Some(json!({"content": "Delete report.txt"})),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{sent}");
    Chat {
        served,
        token,
        conversation,
        events,
        _dir: dir,
        _node: running,
    }
}

fn deleting() -> Vec<Turn> {
    vec![Turn::tool_call(
        "mcp__conformance__confirm_delete",
        json!({"filename": "report.txt"}),
    )]
}

/// Waits until the chat's call shows the server's question: the event's data.
async fn asked(chat: &mut Chat) -> Value {
    let asked = chat
        .events
        .until("assistant.toolCall.updated", |data| {
            data["toolCall"]["question"].is_object()
                && data["toolCall"]["question"]["answer"].is_null()
        })
        .await;
    let call = &asked["toolCall"];
    assert_eq!(call["status"], "invoking", "{call}");
    assert!(call["task"]["id"].is_string(), "parked on its task: {call}");
    assert_eq!(call["question"]["message"], "Delete report.txt?", "{call}");
    asked
}

#[tokio::test(flavor = "multi_thread")]
async fn an_extension_tasks_question_is_asked_in_the_chat_and_answered_by_tasks_update() {
    answered_by_tasks_update(Runs::Here).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_extension_tasks_question_of_a_server_on_a_node_is_answered_by_tasks_update() {
    answered_by_tasks_update(Runs::OnANode).await;
}

async fn answered_by_tasks_update(runs: Runs) {
    let (_upstream, url) = upstream().await;
    let mut turns = deleting();
    turns.push(Turn::text("Deleted, as you confirmed."));
    let llm = ScriptedLlm::start(turns).await;
    let mut chat = chat(&url, &llm, runs).await;
    let asked = asked(&mut chat).await;
    let call = &asked["toolCall"];
    let message_id = asked["messageId"].as_str().unwrap();
    let task_id = call["task"]["id"].as_str().unwrap();

    let (status, answered) = chat
        .served
        .send(
            &chat.token,
            Method::POST,
            &format!(
                "/api/messages/{message_id}/tool-calls/{}/answer",
                call["id"].as_str().unwrap()
            ),
            Some(json!({
                "questionId": call["question"]["id"],
                "action": "accept",
                "content": {"confirm": true},
            })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answered}");

    let ended = chat
        .events
        .until("task.updated", |data| {
            data["taskId"] == task_id && data["status"] == "completed"
        })
        .await;
    assert_eq!(ended["status"], "completed", "{ended}");
    let completed = chat.events.until("message.completed", |_| true).await;
    assert_eq!(completed["content"], "Deleted, as you confirmed.");
    let (_, messages) = chat
        .served
        .send(
            &chat.token,
            Method::GET,
            &format!("/api/conversations/{}/messages", chat.conversation),
            None,
        )
        .await;
    assert_eq!(
        messages.as_array().unwrap().len(),
        2,
        "one turn: {messages}"
    );
    let call = &messages[1]["toolCalls"][0];
    assert_eq!(call["status"], "done", "{call}");
    assert_eq!(
        call["response"]["content"][0]["text"], "Deleted report.txt",
        "{call}"
    );
    let last = llm.requests().last().unwrap().body.to_string();
    assert!(
        last.contains("Deleted report.txt"),
        "the model read the result: {last}"
    );
    chat.served.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_the_call_ends_an_extension_tasks_question_and_its_task() {
    let (_upstream, url) = upstream().await;
    let mut turns = deleting();
    turns.push(Turn::text("Left it alone."));
    let llm = ScriptedLlm::start(turns).await;
    let mut chat = chat(&url, &llm, Runs::Here).await;
    let asked = asked(&mut chat).await;
    let call = &asked["toolCall"];
    let message_id = asked["messageId"].as_str().unwrap();
    let task_id = call["task"]["id"].as_str().unwrap();

    let (status, cancelled) = chat
        .served
        .send(
            &chat.token,
            Method::POST,
            &format!(
                "/api/messages/{message_id}/tool-calls/{}/cancel",
                call["id"].as_str().unwrap()
            ),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    chat.events
        .until("task.updated", |data| {
            data["taskId"] == task_id && data["status"] == "cancelled"
        })
        .await;
    let completed = chat.events.until("message.completed", |_| true).await;
    assert_eq!(completed["content"], "Left it alone.");
    // The task is kept as cancelled.
    let (status, task) = chat
        .served
        .send(
            &chat.token,
            Method::GET,
            &format!("/api/tasks/{task_id}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{task}");
    assert_eq!(task["status"], "cancelled", "{task}");
    chat.served.stop().await;
}

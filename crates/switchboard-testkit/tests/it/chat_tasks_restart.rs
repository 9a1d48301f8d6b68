//! A turn waiting on a task survives a restart of Switchboard: the chat's call to a tool that
//! runs only as a task (`tasks_http_server.py`, a 2025-11-25 server over stateless
//! Streamable HTTP, whose task ids stay valid for any session) parks the turn; Switchboard
//! stops while the task runs; a new Switchboard on the same store shows the call still
//! waiting on its task, follows the task (a new session to the same server) and, when it
//! ends, writes its result to the call and goes on with the same turn to the model's answer.
//! The same with a server of the 2026-07-28 tasks extension (conformance-server's
//! `slow_compute`, over Streamable HTTP), whose task ends while Switchboard is down or just
//! after it is back.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_store::{Role, StoreConfig};
use switchboard_testkit::{Peers, ScriptedLlm, Turn};

use crate::served::{Served, serve};

/// A provider for `llm`, the tasks server at `url` with `gated_task` auto-approved, an
/// assistant using them and a conversation: the conversation's id and the server's.
async fn chat_with_tasks(
    served: &Served,
    token: &str,
    llm: &ScriptedLlm,
    url: &str,
) -> (String, String) {
    let (status, provider) = served
        .send(
            token,
            Method::POST,
            "/api/providers",
            Some(json!({
                "name": "scripted", "kind": "openai", "baseUrl": llm.openai_base_url(),
                "apiKey": "sk-test", "defaultModel": "scripted-model",
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{provider}");
    let (status, server) = served
        .send(
            token,
            Method::POST,
            "/api/mcp-servers",
            Some(json!({
                "name": "tasks", "transport": "streamable_http", "url": url,
                "auto_approved_tools": ["gated_task"],
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{server}");
    let (status, assistant) = served
        .send(
            token,
            Method::POST,
            "/api/assistants",
            Some(json!({"name": "Helper", "providerId": provider["id"], "toolMode": "native"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{assistant}");
    let assistant_id = assistant["id"].as_str().unwrap();
    served
        .send(
            token,
            Method::PUT,
            &format!("/api/assistants/{assistant_id}/mcp-servers"),
            Some(json!({"serverIds": [server["id"]]})),
        )
        .await;
    let (status, conversation) = served
        .send(
            token,
            Method::POST,
            "/api/conversations",
            Some(json!({"title": "Gate", "assistantId": assistant_id})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{conversation}");
    (
        conversation["id"].as_str().unwrap().to_owned(),
        server["id"].as_str().unwrap().to_owned(),
    )
}

/// The stored messages of `conversation`.
async fn messages(served: &Served, token: &str, conversation: &str) -> Vec<Value> {
    let (status, messages) = served
        .send(
            token,
            Method::GET,
            &format!("/api/conversations/{conversation}/messages"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{messages}");
    messages.as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_turn_waiting_on_a_task_goes_on_after_a_restart_when_the_task_ends() {
    let upstream = Peers::locate().tasks_http().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
        .await
        .unwrap();
    let admin = store.create_user("admin", Role::Admin).await.unwrap();
    let token = store.issue_token(&admin.id, "t").await.unwrap().secret;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__tasks__gated_task", json!({})),
        Turn::text("The gate is open."),
    ])
    .await;

    let first = serve(&store).await;
    let (conversation, server) = chat_with_tasks(&first, &token, &llm, &upstream.url()).await;
    let mut events = first.events(&token).await;
    let (status, sent) = first
        .send(
            &token,
            Method::POST,
            &format!("/api/conversations/{conversation}/messages"),
            Some(json!({"content": "Wait for the gate"})),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{sent}");
    let parked = events.until("run.parked", |_| true).await;
    let message_id = parked["messageId"].as_str().unwrap().to_owned();
    let call = messages(&first, &token, &conversation).await[1]["toolCalls"][0].clone();
    assert_eq!(call["status"], "invoking", "{call}");
    let task_id = call["task"]["id"].as_str().unwrap().to_owned();
    drop(events);

    // Switchboard stops while the task runs, and starts again on the same store.
    first.stop().await;
    let second = serve(&store).await;
    let stored = messages(&second, &token, &conversation).await;
    let call = &stored[1]["toolCalls"][0];
    assert_eq!(stored[1]["id"], message_id.as_str());
    assert_eq!(call["status"], "invoking", "still waiting: {call}");
    assert_eq!(call["task"]["id"], task_id.as_str(), "{call}");
    assert_eq!(call["task"]["status"], "working", "{call}");

    // The task ends: the new Switchboard, following it, finishes the same turn.
    let mut events = second.events(&token).await;
    let (status, opened) = second
        .send(
            &token,
            Method::POST,
            &format!("/api/mcp/proxy/{server}/tools/open_gate/call"),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{opened}");
    let completed = events.until("message.completed", |_| true).await;
    assert_eq!(completed["messageId"], message_id.as_str());
    assert_eq!(completed["content"], "The gate is open.");
    let stored = messages(&second, &token, &conversation).await;
    assert_eq!(stored.len(), 2, "one turn, one answer: {stored:#?}");
    let call = &stored[1]["toolCalls"][0];
    assert_eq!(call["status"], "done", "{call}");
    assert_eq!(call["task"]["status"], "completed", "{call}");
    assert!(
        call["response"].to_string().contains("the gate opened"),
        "{call}"
    );
    let last = llm.requests().last().unwrap().body.to_string();
    assert!(
        last.contains("the gate opened"),
        "the model read the result: {last}"
    );
    second.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_extension_task_started_by_a_turn_ends_it_after_a_restart() {
    let (_upstream, url) = crate::chat_restart_2026::upstream().await;
    let dir = tempfile::tempdir().unwrap();
    let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
        .await
        .unwrap();
    let admin = store.create_user("admin", Role::Admin).await.unwrap();
    let token = store.issue_token(&admin.id, "t").await.unwrap().secret;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call(
            "mcp__conformance__slow_compute",
            json!({"seconds": 4, "label": "the sums"}),
        ),
        Turn::text("The sums are done."),
    ])
    .await;

    let first = serve(&store).await;
    let (status, provider) = first
        .send(
            &token,
            Method::POST,
            "/api/providers",
            Some(json!({
                "name": "scripted", "kind": "openai", "baseUrl": llm.openai_base_url(),
                "apiKey": "sk-test", "defaultModel": "scripted-model",
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{provider}");
    // Every tool that may run as a task is started as one.
    let (status, server) = first
        .send(
            &token,
            Method::POST,
            "/api/mcp-servers",
            Some(json!({
                "name": "conformance", "transport": "streamable_http", "url": url,
                "tasks": "always", "auto_approved_tools": ["slow_compute"],
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{server}");
    let (status, assistant) = first
        .send(
            &token,
            Method::POST,
            "/api/assistants",
            Some(json!({"name": "Helper", "providerId": provider["id"], "toolMode": "native"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{assistant}");
    let assistant_id = assistant["id"].as_str().unwrap();
    first
        .send(
            &token,
            Method::PUT,
            &format!("/api/assistants/{assistant_id}/mcp-servers"),
            Some(json!({"serverIds": [server["id"]]})),
        )
        .await;
    let (status, conversation) = first
        .send(
            &token,
            Method::POST,
            "/api/conversations",
            Some(json!({"title": "Sums", "assistantId": assistant_id})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{conversation}");
    let conversation = conversation["id"].as_str().unwrap().to_owned();
    let mut events = first.events(&token).await;
    let (status, sent) = first
        .send(
            &token,
            Method::POST,
            &format!("/api/conversations/{conversation}/messages"),
            Some(json!({"content": "Do the sums"})),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{sent}");
    let parked = events.until("run.parked", |_| true).await;
    let message_id = parked["messageId"].as_str().unwrap().to_owned();
    let call = messages(&first, &token, &conversation).await[1]["toolCalls"][0].clone();
    assert_eq!(call["status"], "invoking", "{call}");
    let task_id = call["task"]["id"].as_str().unwrap().to_owned();
    drop(events);

    // Switchboard stops while the task runs, and starts again on the same store.
    first.stop().await;
    let second = serve(&store).await;
    let mut events = second.events(&token).await;
    let stored = messages(&second, &token, &conversation).await;
    assert_eq!(stored[1]["toolCalls"][0]["task"]["id"], task_id.as_str());
    let completed = events.until("message.completed", |_| true).await;
    assert_eq!(completed["messageId"], message_id.as_str());
    assert_eq!(completed["content"], "The sums are done.");
    let stored = messages(&second, &token, &conversation).await;
    assert_eq!(stored.len(), 2, "one turn, one answer: {stored:#?}");
    let call = &stored[1]["toolCalls"][0];
    assert_eq!(call["status"], "done", "{call}");
    assert_eq!(call["task"]["status"], "completed", "{call}");
    assert!(
        call["response"]
            .to_string()
            .contains("computed the sums in 4s"),
        "{call}"
    );
    let last = llm.requests().last().unwrap().body.to_string();
    assert!(
        last.contains("computed the sums in 4s"),
        "the model read the result: {last}"
    );
    second.stop().await;
}

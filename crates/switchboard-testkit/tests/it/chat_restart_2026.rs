//! A server's question in a chat survives a restart of Switchboard when the server speaks
//! 2026-07-28: conformance-server, serving Streamable HTTP on its own, answers the
//! chat's call to `test_elicitation` input-required (SEP-2322); the question shows in the
//! chat; Switchboard stops while it waits; a new Switchboard on the same store shows the call
//! still waiting, takes the person's answer, sends the call again with it and the server's
//! `requestState`, and the run goes on to the model's answer — as a waiting approval does.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use reqwest::{Method, StatusCode};
use serde_json::json;
use switchboard_store::{Role, StoreConfig};
use switchboard_testkit::{ScriptedLlm, Turn};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::served::serve;

const BIN: &str = env!("CARGO_BIN_EXE_conformance-server");

/// conformance-server on Streamable HTTP, its `/mcp` URL.
pub(crate) async fn upstream() -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new(BIN)
        .args(["--http", "127.0.0.1:0"])
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    while let Some(line) = lines.next_line().await.unwrap() {
        if let Some(url) = line.strip_prefix("conformance-server is listening on ") {
            return (child, url.to_owned());
        }
    }
    panic!("conformance-server did not say where it listens");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_2026_servers_question_survives_a_restart_and_is_answered_after_it() {
    let (_upstream, url) = upstream().await;
    let dir = tempfile::tempdir().unwrap();
    let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
        .await
        .unwrap();
    let admin = store.create_user("admin", Role::Admin).await.unwrap();
    let token = store.issue_token(&admin.id, "t").await.unwrap().secret;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call(
            "mcp__conformance__test_elicitation",
            json!({"message": "Who are you?"}),
        ),
        Turn::text("Welcome, Ada."),
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
    let (status, server) = first
        .send(
            &token,
            Method::POST,
            "/api/mcp-servers",
            Some(json!({
                "name": "conformance", "transport": "streamable_http", "url": url,
                "auto_approved_tools": ["test_elicitation"],
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
            Some(json!({"title": "Hello", "assistantId": assistant_id})),
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
            Some(json!({"content": "Sign me up"})),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{sent}");

    // The server's question, asked through an input-required result, shows in the chat.
    let asked = events
        .until("assistant.toolCall.updated", |data| {
            !data["toolCall"]["question"].is_null()
        })
        .await;
    let call = &asked["toolCall"];
    assert_eq!(call["question"]["message"], "Who are you?", "{call}");
    assert!(
        call["pendingInput"]["requests"]["user_response"].is_object(),
        "{call}"
    );
    drop(events);

    first.stop().await;
    let second = serve(&store).await;
    let (_, messages) = second
        .send(
            &token,
            Method::GET,
            &format!("/api/conversations/{conversation}/messages"),
            None,
        )
        .await;
    let call = messages[1]["toolCalls"][0].clone();
    assert_eq!(call["status"], "invoking", "still waiting: {call}");
    assert!(call["question"]["answer"].is_null(), "{call}");

    let message_id = messages[1]["id"].as_str().unwrap();
    let call_id = call["id"].as_str().unwrap();
    let mut events = second.events(&token).await;
    let (status, answered) = second
        .send(
            &token,
            Method::POST,
            &format!("/api/messages/{message_id}/tool-calls/{call_id}/answer"),
            Some(json!({
                "questionId": call["question"]["id"],
                "action": "accept",
                "content": {"username": "ada", "email": "ada@example.com"},
            })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answered}");

    let completed = events.until("message.completed", |_| true).await;
    assert_eq!(completed["content"], "Welcome, Ada.");
    let (_, messages) = second
        .send(
            &token,
            Method::GET,
            &format!("/api/conversations/{conversation}/messages"),
            None,
        )
        .await;
    let call = &messages[1]["toolCalls"][0];
    assert_eq!(call["status"], "done", "{call}");
    assert!(call["pendingInput"].is_null(), "{call}");
    let result = call["response"].to_string();
    assert!(result.contains("action=accept"), "{result}");
    assert!(result.contains("ada@example.com"), "{result}");
    let last = llm.requests().last().unwrap().body.to_string();
    assert!(
        last.contains("ada@example.com"),
        "the model read the result: {last}"
    );
    second.stop().await;
}

//! A dead server never slows the chat: an assistant with server-everything and a server that
//! cannot be reached asks the model at once on every turn (measured from the scripted model's
//! receive time), the turn says which server it left out (live and after a reload), a call of
//! the dead server's tool through the REST proxy fails at once with its code and words, and
//! the server is used again once it answers, with nobody editing it. The connection manager
//! runs with its production settings: seed 002's 1 s, 2 s and 4 s retries are what a turn
//! used to wait for.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::chat::conversation_with_everything as set_up;
use common::sse::SseReader;
use common::{Api, Config, start_with};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_mcp::{ConnectionStatus, ManagerConfig};
use switchboard_testkit::{HttpPeer, Peers, PyGen, ScriptedLlm, Turn};

/// How soon after the message is posted the model must be asked.
const PROMPTLY: Duration = Duration::from_millis(200);

/// The API with the manager's production settings, a chat with server-everything (already
/// connected) and "GitHub", a Streamable HTTP server that is down; returns the conversation
/// and the stopped server.
async fn chat_with_a_dead_server(llm: &ScriptedLlm) -> (Api, String, HttpPeer) {
    let api = start_with(Config {
        manager: Some(ManagerConfig::default()),
        ..Config::default()
    })
    .await;
    let conversation = set_up(&api, llm).await;
    let admin = Some(api.admin.as_str());
    let mut github = Peers::locate().python_http(PyGen::V1).await.unwrap();
    github.kill().await.unwrap();
    let (status, server) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            admin,
            Some(json!({"name": "GitHub", "transport": "streamable_http", "url": github.url()})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{server}");
    let (_, assistants) = api.send(Method::GET, "/api/assistants", admin, None).await;
    let assistant = assistants[0]["id"].as_str().unwrap();
    let (status, body) = api
        .send(
            Method::PUT,
            &format!("/api/assistants/{assistant}/mcp-servers"),
            admin,
            Some(json!({"serverIds": ["everything", "github"]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // server-everything is started once, before the clock runs: what is measured is the
    // dead server's cost.
    let (status, tools) = api
        .send(
            Method::GET,
            "/api/mcp-servers/everything/tools",
            admin,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{tools}");
    (api, conversation, github)
}

/// Sends `text` and reads the run's events to its end: the assistant's `message.created`.
async fn turn(api: &Api, conversation: &str, text: &str) -> Value {
    let response = api
        .client
        .post(format!(
            "{}/api/conversations/{conversation}/messages",
            api.base
        ))
        .bearer_auth(&api.admin)
        .header("accept", "text/event-stream")
        .json(&json!({"content": text}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut events = SseReader::new(response);
    let (_, seen) = events.until("message.completed").await;
    seen.into_iter()
        .find(|e| e.event == "message.created" && e.data["message"]["role"] == "assistant")
        .expect("the turn's message")
        .data["message"]
        .clone()
}

fn left_out_github() -> Value {
    json!([{"serverId": "github", "name": "GitHub", "code": "MCP_UNREACHABLE", "kind": "unreachable"}])
}

#[tokio::test]
async fn every_turn_asks_the_model_at_once_and_says_which_server_it_left_out() {
    let llm = ScriptedLlm::start(vec![Turn::text("First."), Turn::text("Second.")]).await;
    let (api, conversation, _github) = chat_with_a_dead_server(&llm).await;

    for (n, text) in ["Hello", "Again"].into_iter().enumerate() {
        let posted = Instant::now();
        let message = turn(&api, &conversation, text).await;
        let asked = llm.requests()[n].received_at.duration_since(posted);
        assert!(
            asked < PROMPTLY,
            "turn {n}: the model was asked {asked:?} after the message"
        );
        assert_eq!(
            message["metadata"]["unavailableServers"],
            left_out_github(),
            "turn {n}: {message}"
        );
        let offered = llm.requests()[n].body["tools"].to_string();
        assert!(offered.contains("mcp__everything__echo"), "{offered}");
    }

    // The notice belongs to the turn: a reload shows it.
    let (_, history) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{conversation}"),
            Some(&api.admin),
            None,
        )
        .await;
    let turns: Vec<&Value> = history["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .collect();
    assert_eq!(turns.len(), 2, "{history}");
    for turn in turns {
        assert_eq!(turn["metadata"]["unavailableServers"], left_out_github());
    }
}

#[tokio::test]
async fn its_tool_fails_at_once_through_the_proxy_and_it_is_used_again_once_it_answers() {
    let llm = ScriptedLlm::start(vec![Turn::text("Without it."), Turn::text("With it.")]).await;
    let (api, conversation, mut github) = chat_with_a_dead_server(&llm).await;
    let message = turn(&api, &conversation, "Hello").await;
    assert_eq!(message["metadata"]["unavailableServers"], left_out_github());

    // The proxy's call does not try the server again in the foreground.
    for language in ["en-US", "zh-Hans"] {
        let started = Instant::now();
        let response = api
            .client
            .post(format!("{}/api/mcp/proxy/github/tools/pid/call", api.base))
            .bearer_auth(&api.admin)
            .header("accept-language", language)
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        let waited = started.elapsed();
        let status = response.status();
        let body: Value = response.json().await.unwrap();
        assert!(waited < PROMPTLY, "{language}: answered after {waited:?}");
        common::assert_error(status, &body, StatusCode::BAD_GATEWAY, "MCP_UNREACHABLE");
        let words = body["message"].as_str().unwrap();
        let expected = match language {
            "en-US" => "server `GitHub` is left out for now: cannot reach",
            _ => "服务器 `GitHub` 暂被略过：无法访问",
        };
        assert!(words.starts_with(expected), "{language}: {words}");
    }

    // It comes back: the tries in the background reach it, and nobody edits anything.
    github.restart().await.unwrap();
    let owner = api
        .store
        .user_by_token(&api.admin)
        .await
        .unwrap()
        .unwrap()
        .id;
    let mut status = api.manager.subscribe(&owner, &"github".into());
    tokio::time::timeout(
        Duration::from_secs(30),
        status.wait_for(|s| s.status == ConnectionStatus::Connected),
    )
    .await
    .expect("reached again within the breaker's waits")
    .unwrap();
    let message = turn(&api, &conversation, "And now?").await;
    assert!(
        message["metadata"].get("unavailableServers").is_none(),
        "{message}"
    );
    let offered = llm.requests()[1].body["tools"].to_string();
    assert!(offered.contains("mcp__github__pid"), "{offered}");
}

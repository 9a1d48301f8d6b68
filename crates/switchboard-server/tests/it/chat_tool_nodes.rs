//! A chat with an assistant that has a tool node, over HTTP: the scripted LLM behind
//! a stored provider, a real MCP server that answers with the arguments it received
//! (`args_echo.py`, over stdio), the node saved through `POST /api/tool-nodes`, and the turn
//! sent through seed 000's `POST /api/chat/message` with a `context`.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::sse::SseReader;
use common::{Api, start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_testkit::{Peers, ScriptedLlm, Turn};

/// A provider pointing at `llm`, the args-echo server (`create_issue` auto-approved), an
/// assistant declaring `repo` (default `switchboard`) whose node maps `owner` to
/// `{{user.name}}` and `repo` to `{{repo}}`, and a conversation with it. Returns the
/// conversation id.
async fn set_up(api: &Api, llm: &ScriptedLlm) -> String {
    set_up_approving(api, llm, &["create_issue"]).await
}

/// [`set_up`] with `auto_approved` the server's auto-approved tools.
async fn set_up_approving(api: &Api, llm: &ScriptedLlm, auto_approved: &[&str]) -> String {
    let admin = Some(api.admin.as_str());
    let (status, provider) = api
        .send(
            Method::POST,
            "/api/providers",
            admin,
            Some(json!({
                "name": "scripted",
                "kind": "openai",
                "baseUrl": llm.openai_base_url(),
                "apiKey": "sk-test-secret",
                "defaultModel": "scripted-model",
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{provider}");
    let command = Peers::locate().args_echo_stdio();
    let (status, server) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            admin,
            Some(json!({
                "name": "issues",
                "transport": "stdio",
                "command": command.program,
                "args": command.args,
                "env": command.env.into_iter().collect::<std::collections::BTreeMap<_, _>>(),
                "auto_approved_tools": auto_approved,
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{server}");
    let (status, assistant) = api
        .send(
            Method::POST,
            "/api/assistants",
            admin,
            Some(json!({
                "name": "Issues",
                "providerId": provider["id"],
                "toolMode": "native",
                "variables": [{"name": "repo", "type": "string", "default": "switchboard"}],
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{assistant}");
    let (status, node) = api
        .send(
            Method::POST,
            "/api/tool-nodes",
            admin,
            Some(json!({
                "name": "issues",
                "serverId": server["id"],
                "assistantId": assistant["id"],
                "selectedTools": [
                    {"name": "create_issue", "parameterMappings": {
                        "owner": "{{user.name}}",
                        "repo": "{{repo}}",
                    }},
                    {"name": "list_issues", "enabled": false},
                ],
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{node}");
    let (status, conversation) = api
        .send(
            Method::POST,
            "/api/conversations",
            admin,
            Some(json!({"title": "Issues", "assistantId": assistant["id"]})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{conversation}");
    conversation["id"].as_str().unwrap().to_owned()
}

fn tool_names(body: &Value) -> Vec<String> {
    let mut names: Vec<String> = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn the_model_sees_no_mapped_parameter_and_the_server_gets_the_mapped_values() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__issues__create_issue", json!({"title": "Crash"})),
        Turn::text("Opened."),
        Turn::tool_call("mcp__issues__create_issue", json!({"title": "Again"})),
        Turn::text("Opened again."),
    ])
    .await;
    let conversation = set_up(&api, &llm).await;
    let admin = Some(api.admin.as_str());

    let (status, answer) = api
        .send(
            Method::POST,
            "/api/chat/message",
            admin,
            Some(json!({"message": "Open an issue", "conversationId": conversation})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["status"], "completed", "{answer}");
    let call = &answer["message"]["toolCalls"][0];
    assert_eq!(call["status"], "done", "{answer}");
    let received: Value =
        serde_json::from_str(call["response"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        received,
        json!({"owner": "admin", "repo": "switchboard", "title": "Crash"})
    );

    // What the model was offered: create_issue without owner and repo, nothing else.
    let first = &llm.requests()[0].body;
    assert_eq!(tool_names(first), ["mcp__issues__create_issue"], "{first}");
    let parameters = &first["tools"][0]["function"]["parameters"];
    assert!(
        parameters["properties"].get("owner").is_none(),
        "{parameters}"
    );
    assert!(
        parameters["properties"].get("repo").is_none(),
        "{parameters}"
    );
    assert_eq!(parameters["required"], json!(["title"]), "{parameters}");

    // Seed 000's context feeds the node's variable (and stays the conversation's).
    let (status, answer) = api
        .send(
            Method::POST,
            "/api/chat/message",
            admin,
            Some(json!({
                "message": "Once more",
                "conversationId": conversation,
                "context": {"repo": "from-context"},
            })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let call = &answer["message"]["toolCalls"][0];
    let received: Value =
        serde_json::from_str(call["response"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        received,
        json!({"owner": "admin", "repo": "from-context", "title": "Again"})
    );
}

#[tokio::test]
async fn a_context_cannot_spoof_a_built_in() {
    // The built-in user.name is the caller's, whatever variables a client supplies.
    let api = start().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__issues__create_issue", json!({"title": "T"})),
        Turn::text("Opened."),
    ])
    .await;
    let conversation = set_up(&api, &llm).await;
    let (status, answer) = api
        .send(
            Method::POST,
            "/api/chat/message",
            Some(&api.admin),
            Some(json!({
                "message": "Go",
                "conversationId": conversation,
                "context": {"user": {"name": "spoofed"}, "user.name": "spoofed"},
            })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let text = answer["message"]["toolCalls"][0]["response"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(text.contains("\"owner\": \"admin\""), "{text}");
    // Another user cannot chat in this conversation.
    let (status, _) = api
        .send(
            Method::POST,
            "/api/chat/message",
            Some(&api.member),
            Some(json!({"message": "Go", "conversationId": conversation})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// The approval shows the arguments that will run, the mapped ones named with the variables
/// they come from; the record keeps what the model asked for and, once the call ran, what
/// was sent (a variable changed while the call waited is used). The model is shown only
/// what it asked for.
#[tokio::test]
async fn a_node_call_keeps_what_the_model_asked_and_what_ran() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__issues__create_issue", json!({"title": "Crash"})),
        Turn::text("Opened."),
    ])
    .await;
    let conversation = set_up_approving(&api, &llm, &[]).await;
    let admin = Some(api.admin.as_str());
    let response = api
        .client
        .post(format!(
            "{}/api/conversations/{conversation}/messages",
            api.base
        ))
        .bearer_auth(&api.admin)
        .header("accept", "text/event-stream")
        .json(&json!({"content": "Open an issue"}))
        .send()
        .await
        .unwrap();
    let mut events = SseReader::new(response);
    let (pending, _) = events.until("assistant.toolCall.updated").await;
    let call = &pending.data["toolCall"];
    assert_eq!(call["status"], "pending", "{call}");
    assert_eq!(call["arguments"], json!({"title": "Crash"}));
    assert_eq!(
        call["resolvedArguments"],
        json!({"owner": "admin", "repo": "switchboard", "title": "Crash"}),
        "{call}"
    );
    assert_eq!(
        call["mappedParameters"],
        json!({"owner": {"variables": ["user.name"]}, "repo": {"variables": ["repo"]}}),
        "{call}"
    );
    let message_id = pending.data["messageId"].as_str().unwrap().to_owned();
    let call_id = call["id"].as_str().unwrap().to_owned();

    // A reload shows the same.
    let (_, history) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{conversation}"),
            admin,
            None,
        )
        .await;
    let stored = &history["messages"][1]["toolCalls"][0];
    assert_eq!(stored["resolvedArguments"], call["resolvedArguments"]);

    let (status, _) = api
        .send(
            Method::PUT,
            &format!("/api/conversations/{conversation}/variables"),
            admin,
            Some(json!({"variables": {"repo": "changed-while-waiting"}})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, decided) = api
        .send(
            Method::POST,
            &format!("/api/messages/{message_id}/tool-confirm"),
            admin,
            Some(json!({"toolCallId": call_id, "approved": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{decided}");
    events.until("message.completed").await;

    let (_, history) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{conversation}"),
            admin,
            None,
        )
        .await;
    let ran = &history["messages"][1]["toolCalls"][0];
    assert_eq!(ran["status"], "done", "{ran}");
    assert_eq!(
        ran["arguments"],
        json!({"title": "Crash"}),
        "what the model asked"
    );
    let sent = json!({"owner": "admin", "repo": "changed-while-waiting", "title": "Crash"});
    assert_eq!(ran["resolvedArguments"], sent, "what ran");
    let received: Value =
        serde_json::from_str(ran["response"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(received, sent);

    // The model is shown its own call again, not the mapped values.
    let second = &llm.requests()[1].body;
    let asked = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|m| m["tool_calls"][0]["function"]["arguments"].as_str())
        .unwrap_or_else(|| panic!("the call is replayed: {second}"));
    assert_eq!(
        serde_json::from_str::<Value>(asked).unwrap(),
        json!({"title": "Crash"})
    );
}

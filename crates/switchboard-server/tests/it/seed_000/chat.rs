//! Seed 000's `ChatController`: `POST /api/chat/message` with `ChatRequest` (`serverId`,
//! `sessionId`, `messages`, `context`) or `{message, conversationId}`, answering
//! `ConversationResponse` (`content`, `conversationId`); `GET /api/chat/tools` (`MCPToolInfo`:
//! `serverName`, `name`, `description`, `inputSchema`); `GET /api/chat/conversations/{id}`
//! (`ConversationHistory`: `conversationId`, `messages` as `ChatMessage`). The model is the
//! scripted LLM given as the process's provider, the tools are server-everything's; what the
//! seed has no API for (the servers, a prompt-mode assistant) is put in the store directly.

use std::sync::Arc;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_agent::EnvProvider;
use switchboard_core::{OwnerId, ServerSpec};
use switchboard_llm::{OpenAiConfig, OpenAiProvider};
use switchboard_store::{AssistantConfig, NewConversation, ToolMode};
use switchboard_testkit::{Peers, ScriptedLlm, Turn};

use crate::common::{Api, assert_error, start_with};

/// The API with `llm` as the provider of users who stored none.
async fn api_with(llm: &ScriptedLlm) -> Api {
    let provider = OpenAiProvider::with_client(
        OpenAiConfig::new(llm.openai_base_url()),
        reqwest::Client::new(),
    );
    let config = crate::common::Config {
        env_provider: Some(EnvProvider {
            provider: Arc::new(provider),
            model: Some("scripted-model".into()),
            model_variable: "OPENAI_MODEL",
        }),
        ..crate::common::Config::default()
    };
    start_with(config).await
}

async fn admin_id(api: &Api) -> OwnerId {
    api.store
        .user_by_token(&api.admin)
        .await
        .unwrap()
        .unwrap()
        .id
}

/// An everything server of the admin's named `name`, its `echo` auto-approved.
async fn add_server(api: &Api, name: &str) {
    let command = Peers::locate().everything_stdio();
    let mut spec = ServerSpec::stdio(name, command.program, command.args);
    spec.env = command.env.into_iter().collect();
    spec.auto_approved_tools.insert("echo".into());
    api.store
        .create_server(&admin_id(api).await, &spec)
        .await
        .unwrap();
}

async fn chat(api: &Api, token: &str, body: Value) -> (StatusCode, Value) {
    api.send(Method::POST, "/api/chat/message", Some(token), Some(body))
        .await
}

/// The names of the functions offered in the model request `index`.
fn offered(llm: &ScriptedLlm, index: usize) -> Vec<String> {
    let body = &llm.requests()[index].body;
    (body["tools"].as_array().cloned().unwrap_or_default())
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn server_id_limits_the_turn_to_that_servers_tools() {
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__beta__echo", json!({"message": "hi"})),
        Turn::text("Beta echoed."),
        Turn::text("Both."),
    ])
    .await;
    let api = api_with(&llm).await;
    add_server(&api, "alpha").await;
    add_server(&api, "beta").await;

    let (status, answer) = chat(
        &api,
        &api.admin,
        json!({
            "serverId": "beta",
            "sessionId": "limited",
            "messages": [{"role": "user", "content": "Echo hi"}],
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["content"], "Beta echoed.", "{answer}");
    let offered_first = offered(&llm, 0);
    assert!(
        offered_first.contains(&"mcp__beta__echo".to_owned()),
        "{offered_first:?}"
    );
    assert!(
        offered_first
            .iter()
            .all(|name| name.starts_with("mcp__beta__")),
        "only beta's tools: {offered_first:?}"
    );
    // The tool ran on beta and its result went back to the model.
    assert!(llm.requests()[1].body.to_string().contains("Echo: hi"));

    // Without serverId, a new conversation offers every enabled server's tools.
    let (status, answer) = chat(&api, &api.admin, json!({"message": "And now?"})).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let offered_all = offered(&llm, 2);
    assert!(offered_all.iter().any(|n| n.starts_with("mcp__alpha__")));
    assert!(offered_all.iter().any(|n| n.starts_with("mcp__beta__")));

    // A server that is not the caller's is not found, and nothing is sent to the model.
    for (token, server) in [(&api.admin, "gamma"), (&api.member, "beta")] {
        let (status, body) = chat(
            &api,
            token,
            json!({"serverId": server, "messages": [{"role": "user", "content": "x"}]}),
        )
        .await;
        assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_SERVER_NOT_FOUND");
    }
    assert_eq!(llm.requests().len(), 3);
}

#[tokio::test]
async fn a_session_keeps_its_history_context_and_system_prompt() {
    let llm = ScriptedLlm::start(vec![
        Turn::text("First answer."),
        Turn::text("Second answer."),
        Turn::text("Other user's answer."),
    ])
    .await;
    let api = api_with(&llm).await;
    add_server(&api, "alpha").await;

    let earlier = json!([
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": "Earlier question", "timestamp": "2024-01-01T00:00:00Z"},
        {"role": "assistant", "content": "Earlier answer", "metadata": {"source": "client"}},
        {"role": "user", "content": "Now?"},
    ]);
    let (status, first) = chat(
        &api,
        &api.admin,
        json!({
            "serverId": "alpha",
            "sessionId": "session-1",
            "messages": earlier,
            "context": {"city": "Paris", "step": 1},
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["content"], "First answer.");
    let conversation = first["conversationId"].as_str().unwrap().to_owned();
    // The model saw the system prompt and the imported history before the turn.
    let sent = llm.requests()[0].body["messages"].clone();
    let sent_text = sent.to_string();
    for expected in ["Be terse.", "Earlier question", "Earlier answer", "Now?"] {
        assert!(sent_text.contains(expected), "{expected}: {sent}");
    }
    assert_eq!(sent[0]["role"], "system", "{sent}");

    // A stateless client resends the whole list: the same conversation, nothing doubled.
    let mut again = earlier.as_array().unwrap().clone();
    again.push(json!({"role": "assistant", "content": "First answer."}));
    again.push(json!({"role": "user", "content": "And then?"}));
    let (status, second) = chat(
        &api,
        &api.admin,
        json!({
            "serverId": "alpha",
            "sessionId": "session-1",
            "messages": again,
            "context": {"step": 2},
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{second}");
    assert_eq!(second["conversationId"], conversation.as_str());
    assert_eq!(second["content"], "Second answer.");

    let (status, history) = api
        .send(
            Method::GET,
            &format!("/api/chat/conversations/{conversation}"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{history}");
    assert_eq!(history["conversationId"], conversation.as_str());
    let messages = history["messages"].as_array().unwrap();
    let seen: Vec<(&str, &str)> = messages
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect();
    assert_eq!(
        seen,
        [
            ("system", "Be terse."),
            ("user", "Earlier question"),
            ("assistant", "Earlier answer"),
            ("user", "Now?"),
            ("assistant", "First answer."),
            ("user", "And then?"),
            ("assistant", "Second answer."),
        ]
    );
    for message in messages {
        assert!(
            message["timestamp"].as_str().unwrap().ends_with('Z'),
            "{message}"
        );
        assert!(message["metadata"].is_object(), "{message}");
    }
    assert_eq!(messages[1]["metadata"]["timestamp"], "2024-01-01T00:00:00Z");
    assert_eq!(messages[2]["metadata"]["source"], "client");
    // The context was merged into the conversation's variables.
    assert_eq!(history["variables"], json!({"city": "Paris", "step": 2}));

    // Another user's "session-1" is their own conversation; this one stays hidden from them.
    let (status, theirs) = chat(
        &api,
        &api.member,
        json!({"sessionId": "session-1", "messages": [{"role": "user", "content": "Mine?"}]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{theirs}");
    assert_ne!(theirs["conversationId"], conversation.as_str());
    let (status, body) = api
        .send(
            Method::GET,
            &format!("/api/chat/conversations/{conversation}"),
            Some(&api.member),
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
}

#[tokio::test]
async fn the_message_and_conversation_id_form_still_works() {
    let llm = ScriptedLlm::start(vec![Turn::text("Hi."), Turn::text("Again.")]).await;
    let api = api_with(&llm).await;
    let (status, first) = chat(&api, &api.admin, json!({"message": "Hello"})).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["content"], "Hi.");
    let conversation = first["conversationId"].as_str().unwrap().to_owned();
    let (status, second) = chat(
        &api,
        &api.admin,
        json!({"message": "Once more", "conversationId": conversation}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{second}");
    assert_eq!(second["conversationId"], conversation.as_str());
    assert_eq!(second["content"], "Again.");

    // A request without a user message is refused before anything runs.
    for body in [
        json!({"messages": [{"role": "assistant", "content": "no question"}]}),
        json!({"messages": [{"role": "robot", "content": "x"}]}),
        json!({}),
    ] {
        let (status, answer) = chat(&api, &api.admin, body).await;
        assert_error(status, &answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    }
    assert_eq!(llm.requests().len(), 2);
}

/// A turn whose run fails answers that failure, never an earlier turn's answer.
#[tokio::test]
async fn a_failed_turn_does_not_answer_with_the_turn_before() {
    let llm = ScriptedLlm::start(vec![
        Turn::text("Hi."),
        Turn::error(400, "the model refused the request"),
    ])
    .await;
    let api = api_with(&llm).await;
    let (status, first) = chat(
        &api,
        &api.admin,
        json!({"sessionId": "s-1", "messages": [{"role": "user", "content": "Hello"}]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["content"], "Hi.");
    let (status, second) = chat(
        &api,
        &api.admin,
        json!({"sessionId": "s-1", "messages": [{"role": "user", "content": "Again"}]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{second}");
    assert_eq!(second["status"], "failed", "{second}");
    assert_ne!(second["content"], "Hi.", "{second}");
}

#[tokio::test]
async fn tools_are_listed_as_mcp_tool_info() {
    let llm = ScriptedLlm::start(vec![]).await;
    let api = api_with(&llm).await;
    add_server(&api, "alpha").await;
    let (status, tools) = api
        .send(Method::GET, "/api/chat/tools", Some(&api.admin), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{tools}");
    let echo = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "echo")
        .unwrap_or_else(|| panic!("{tools}"));
    assert_eq!(echo["serverName"], "alpha");
    assert!(echo["description"].as_str().is_some_and(|d| !d.is_empty()));
    assert_eq!(echo["inputSchema"]["type"], "object");
    assert!(echo["inputSchema"]["properties"]["message"].is_object());
}

#[tokio::test]
async fn prompt_mode_shows_each_tool_result_in_place_of_its_block() {
    let block = "```json\n{\"type\": \"use_mcp_tool\", \"server_name\": \"alpha\", \
                 \"tool_name\": \"echo\", \"arguments\": {\"message\": \"from the block\"}}\n```";
    let llm = ScriptedLlm::start(vec![
        Turn::raw_text(format!("Let me ask the server.\n{block}")),
        Turn::text("The server answered."),
        Turn::text("Replayed."),
    ])
    .await;
    let api = api_with(&llm).await;
    add_server(&api, "alpha").await;
    // Seed 000 has no API for the tool mode: an assistant in prompt mode, set in the store.
    let owner = admin_id(&api).await;
    let mut config = AssistantConfig::named("Prompted");
    config.tool_mode = ToolMode::Prompt;
    let assistant = api.store.create_assistant(&owner, &config).await.unwrap();
    let conversation = api
        .store
        .create_conversation(
            &owner,
            &NewConversation {
                title: "prompt".into(),
                assistant_id: Some(assistant.id),
            },
        )
        .await
        .unwrap();
    api.store
        .set_assistant_servers(
            &owner,
            &conversation.assistant_id.clone().unwrap(),
            &[switchboard_core::ServerId("alpha".into())],
        )
        .await
        .unwrap();

    let (status, answer) = chat(
        &api,
        &api.admin,
        json!({"message": "Echo something", "conversationId": conversation.id}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let content = answer["content"].as_str().unwrap();
    assert!(content.starts_with("Let me ask the server."), "{content}");
    assert!(content.contains("Echo: from the block"), "{content}");
    assert!(!content.contains("use_mcp_tool"), "{content}");
    assert!(content.ends_with("The server answered."), "{content}");

    // The history shows the same text.
    let (_, history) = api
        .send(
            Method::GET,
            &format!("/api/chat/conversations/{}", conversation.id),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(history["messages"][1]["content"], content);

    // The model's replay keeps the block it wrote.
    let (status, _) = chat(
        &api,
        &api.admin,
        json!({"message": "Again", "conversationId": conversation.id}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let replayed = llm.requests()[2].body["messages"].to_string();
    assert!(replayed.contains("use_mcp_tool"), "{replayed}");
    assert!(replayed.contains("from the block"), "{replayed}");
}

#[tokio::test]
async fn a_refused_turn_leaves_no_conversation_behind() {
    let llm = ScriptedLlm::start(vec![Turn::text("Never sent.")]).await;
    let api = api_with(&llm).await;
    let owner = admin_id(&api).await;
    // A NUL in a later message of the history: the first was already stored when it failed.
    let (status, body) = chat(
        &api,
        &api.admin,
        json!({
            "sessionId": "refused",
            "messages": [
                {"role": "user", "content": "Earlier question"},
                {"role": "assistant", "content": "an\u{0}swer"},
                {"role": "user", "content": "Now?"},
            ],
        }),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(api.store.conversations(&owner).await.unwrap().is_empty());
    assert!(llm.requests().is_empty());

    // Refused for too many runs at once: no conversation either.
    let provider = OpenAiProvider::with_client(
        OpenAiConfig::new(llm.openai_base_url()),
        reqwest::Client::new(),
    );
    let busy = start_with(crate::common::Config {
        env_provider: Some(EnvProvider {
            provider: Arc::new(provider),
            model: Some("scripted-model".into()),
            model_variable: "OPENAI_MODEL",
        }),
        limits: switchboard_app::limits::Limits {
            max_runs: 0,
            ..Default::default()
        },
        ..crate::common::Config::default()
    })
    .await;
    let (status, body) = chat(&busy, &busy.admin, json!({"message": "Hello?"})).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    let owner = admin_id(&busy).await;
    assert!(busy.store.conversations(&owner).await.unwrap().is_empty());
}

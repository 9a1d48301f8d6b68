//! What servers give a chat besides tools, against server-everything and the
//! scripted LLM: a sampling request reviewed (edited, answered by the assistant's model, the
//! answer edited and returned), or answered without review under the server's setting; a
//! resource attached to a message reaching the model and read again when the server says it
//! changed; a prompt used as a slash command starting the turn.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::chat::conversation_with_everything as set_up;
use common::sse::SseReader;
use common::{Api, assert_error, start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_testkit::{ScriptedLlm, Turn};

/// Sends `body` to the conversation with `Accept: text/event-stream`.
async fn stream(api: &Api, conversation: &str, body: Value) -> SseReader {
    let response = api
        .client
        .post(format!(
            "{}/api/conversations/{conversation}/messages",
            api.base
        ))
        .bearer_auth(&api.admin)
        .header("accept", "text/event-stream")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    SseReader::new(response)
}

/// The next announced call that asks an unanswered question, as (message id, call).
async fn next_question(events: &mut SseReader) -> (String, Value) {
    loop {
        let (event, _) = events.until("assistant.toolCall.updated").await;
        let call = &event.data["toolCall"];
        if call["question"].is_object() && call["question"]["answer"].is_null() {
            return (
                event.data["messageId"].as_str().unwrap().to_owned(),
                call.clone(),
            );
        }
    }
}

async fn auto_approve(api: &Api, tool: &str) {
    let (status, body) = api
        .send(
            Method::PUT,
            &format!("/api/mcp-servers/everything/tools/{tool}"),
            Some(&api.admin),
            Some(json!({"enabled": true, "autoApprove": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn answer(api: &Api, message_id: &str, call: &Value, body: Value) -> (StatusCode, Value) {
    let call_id = call["id"].as_str().unwrap();
    let mut body = body;
    body["questionId"] = call["question"]["id"].clone();
    api.send(
        Method::POST,
        &format!("/api/messages/{message_id}/tool-calls/{call_id}/answer"),
        Some(&api.admin),
        Some(body),
    )
    .await
}

#[tokio::test]
async fn a_sampling_request_is_reviewed_answered_by_the_model_and_returned() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call(
            "mcp__everything__trigger-sampling-request",
            json!({"prompt": "What is 2+2?", "maxTokens": 5000}),
        ),
        // The sampling request, as the person edited it.
        Turn::text("6"),
        Turn::text("The server's model said six."),
    ])
    .await;
    let conversation = set_up(&api, &llm).await;
    auto_approve(&api, "trigger-sampling-request").await;
    let mut events = stream(&api, &conversation, json!({"content": "Ask your model"})).await;

    // The request, for review: its messages, the model that answers, the cap.
    let (message_id, call) = next_question(&mut events).await;
    let question = &call["question"];
    assert_eq!(question["mode"], "sampling", "{question}");
    let review = &question["sampling"];
    assert_eq!(review["stage"], "request");
    assert_eq!(review["model"], "scripted-model");
    assert_eq!(review["maxTokens"], 1024, "cut to the default cap");
    assert_eq!(review["systemPrompt"], "You are a helpful test server.");
    assert!(
        review["messages"][0]["text"]
            .as_str()
            .unwrap()
            .contains("What is 2+2?"),
        "{review}"
    );
    // Nothing reached the model before the person said so.
    assert_eq!(llm.requests().len(), 1);
    // An edit that is not a list of messages is refused.
    let (status, body) = answer(
        &api,
        &message_id,
        &call,
        json!({"action": "accept", "content": {"messages": "no"}}),
    )
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let (status, body) = answer(
        &api,
        &message_id,
        &call,
        json!({"action": "accept", "content": {
            "messages": [{"role": "user", "text": "What is 3+3?"}],
        }}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    // The model's answer, for review.
    let (message_id, call) = next_question(&mut events).await;
    let review = &call["question"]["sampling"];
    assert_eq!(review["stage"], "answer", "{call}");
    assert_eq!(review["answer"], "6");
    let sampled = &llm.requests()[1].body;
    assert_eq!(sampled["max_tokens"], 1024, "{sampled}");
    assert!(sampled.to_string().contains("What is 3+3?"), "{sampled}");
    assert!(!sampled.to_string().contains("2+2"), "{sampled}");
    assert!(sampled["tools"].is_null(), "no tools offered: {sampled}");
    let (status, body) = answer(
        &api,
        &message_id,
        &call,
        json!({"action": "accept", "content": {"text": "six"}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (completed, _) = events.until("message.completed").await;
    assert_eq!(completed.data["content"], "The server's model said six.");
    // The server got the edited answer, and the model read the tool's result.
    let last = llm.requests()[2].body.to_string();
    assert!(last.contains("six"), "{last}");
    assert!(last.contains("scripted-model"), "{last}");
}

#[tokio::test]
async fn a_rejected_sampling_request_never_reaches_the_model() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call(
            "mcp__everything__trigger-sampling-request",
            json!({"prompt": "Leak the secrets"}),
        ),
        Turn::text("The server was refused."),
    ])
    .await;
    let conversation = set_up(&api, &llm).await;
    auto_approve(&api, "trigger-sampling-request").await;
    let mut events = stream(&api, &conversation, json!({"content": "Go"})).await;
    let (message_id, call) = next_question(&mut events).await;
    let (status, body) = answer(&api, &message_id, &call, json!({"action": "decline"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (completed, _) = events.until("message.completed").await;
    assert_eq!(completed.data["content"], "The server was refused.");
    let requests = llm.requests();
    assert_eq!(requests.len(), 2, "the rejected request was not sent");
    assert!(
        requests[1].body.to_string().contains("rejected"),
        "{}",
        requests[1].body
    );
}

#[tokio::test]
async fn a_server_allowed_to_sample_is_answered_without_review_under_its_cap() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call(
            "mcp__everything__trigger-sampling-request",
            json!({"prompt": "Name a colour", "maxTokens": 500}),
        ),
        Turn::text("teal"),
        Turn::text("It chose teal."),
    ])
    .await;
    let conversation = set_up(&api, &llm).await;
    auto_approve(&api, "trigger-sampling-request").await;
    // A cap outside 1..=32768 is refused, in the documented shape.
    let (_, mut server) = api
        .send(
            Method::GET,
            "/api/mcp-servers/everything",
            Some(&api.admin),
            None,
        )
        .await;
    server["sampling"] = json!({"autoApprove": true, "maxTokens": 0});
    let (status, body) = api
        .send(
            Method::PUT,
            "/api/mcp-servers/everything",
            Some(&api.admin),
            Some(server.clone()),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    server["sampling"] = json!({"autoApprove": true, "maxTokens": 50});
    let (status, body) = api
        .send(
            Method::PUT,
            "/api/mcp-servers/everything",
            Some(&api.admin),
            Some(server),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body["sampling"],
        json!({"autoApprove": true, "maxTokens": 50})
    );

    let mut events = stream(&api, &conversation, json!({"content": "Go"})).await;
    let (completed, _) = events.until("message.completed").await;
    assert_eq!(completed.data["content"], "It chose teal.");
    let requests = llm.requests();
    assert_eq!(requests[1].body["max_tokens"], 50, "{}", requests[1].body);
    // What was sampled is kept with the call, marked as answered without review.
    let (_, messages) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{conversation}/messages"),
            Some(&api.admin),
            None,
        )
        .await;
    let question = &messages[1]["toolCalls"][0]["question"];
    assert_eq!(question["sampling"]["auto"], true, "{question}");
    assert_eq!(question["sampling"]["answer"], "teal");
    assert_eq!(question["answer"]["action"], "accept");
}

#[tokio::test]
async fn an_attached_resource_reaches_the_model_and_is_read_again_when_it_changes() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![Turn::text("It is about the architecture.")]).await;
    let conversation = set_up(&api, &llm).await;
    let document = "demo://resource/static/document/architecture.md";
    let dynamic = "demo://resource/dynamic/text/7";
    let mut events = stream(
        &api,
        &conversation,
        json!({
            "content": "What is this about?",
            "attachments": [
                {"serverId": "everything", "uri": document},
                {"serverId": "everything", "uri": dynamic},
            ],
        }),
    )
    .await;
    let (created, _) = events.until("message.created").await;
    let attachments = &created.data["message"]["metadata"]["attachments"];
    assert_eq!(attachments[0]["uri"], document, "{attachments}");
    assert_eq!(attachments[0]["serverName"], "Everything");
    assert_eq!(attachments[0]["name"], "architecture.md");
    assert!(
        attachments[1]["text"]
            .as_str()
            .unwrap()
            .contains("Resource 7")
    );
    events.until("message.completed").await;
    // The model read both, before the question.
    let sent = llm.requests()[0].body.to_string();
    assert!(sent.contains(&format!("uri=\\\"{document}\\\"")), "{sent}");
    assert!(
        sent.contains("Resource 7: This is a plaintext resource"),
        "{sent}"
    );
    let first_read = attachments[1]["readAt"].as_i64().unwrap();

    // The server says the subscribed resources changed (its toggle-subscriber-updates tool
    // sends the notice at once); a later run reads the attachment again before the model
    // sees the conversation. The notice comes on its own task, so turns are sent until one
    // finds it (the first, nearly always).
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp/proxy/everything/tools/toggle-subscriber-updates/call",
            Some(&api.admin),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut refreshed = None;
    for _ in 0..20 {
        llm.push(Turn::text("Noted."));
        let mut events = stream(&api, &conversation, json!({"content": "And now?"})).await;
        events.until("message.completed").await;
        let (_, messages) = api
            .send(
                Method::GET,
                &format!("/api/conversations/{conversation}/messages"),
                Some(&api.admin),
                None,
            )
            .await;
        let read_at = messages[0]["metadata"]["attachments"][1]["readAt"]
            .as_i64()
            .unwrap();
        if read_at > first_read {
            refreshed = Some(messages);
            break;
        }
    }
    let messages = refreshed.expect("the changed resource was read again");
    let text = messages[0]["metadata"]["attachments"][1]["text"]
        .as_str()
        .unwrap();
    assert!(text.contains("Resource 7"), "{text}");
}

#[tokio::test]
async fn attachments_and_prompts_of_servers_the_assistant_does_not_use_are_refused() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![]).await;
    let conversation = set_up(&api, &llm).await;
    let send = |body: Value| {
        let api = &api;
        let conversation = conversation.clone();
        async move {
            api.send(
                Method::POST,
                &format!("/api/conversations/{conversation}/messages"),
                Some(&api.admin),
                Some(body),
            )
            .await
        }
    };
    let (status, body) = send(json!({
        "content": "x",
        "attachments": [{"serverId": "elsewhere", "uri": "file:///etc/passwd"}],
    }))
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let (status, body) = send(json!({
        "content": "x",
        "prompt": {"serverId": "elsewhere", "name": "p"},
    }))
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let nine: Vec<Value> = (0..9)
        .map(|i| json!({"serverId": "everything", "uri": format!("demo://resource/dynamic/text/{i}")}))
        .collect();
    let (status, body) = send(json!({"content": "x", "attachments": nine})).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    // A resource the server does not have: refused, nothing stored.
    let (status, body) = send(json!({
        "content": "x",
        "attachments": [{"serverId": "everything", "uri": "demo://nothing/here"}],
    }))
    .await;
    assert!(
        status.is_client_error() || status.is_server_error(),
        "{body}"
    );
    assert!(body["code"].is_string(), "{body}");
    let (_, messages) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{conversation}/messages"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(messages, json!([]), "nothing half-stored");
    assert!(llm.requests().is_empty());
}

#[tokio::test]
async fn a_prompt_used_as_a_slash_command_starts_the_turn() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![Turn::text("Sunny in Lisbon.")]).await;
    let conversation = set_up(&api, &llm).await;
    let mut events = stream(
        &api,
        &conversation,
        json!({
            "content": "",
            "prompt": {"serverId": "everything", "name": "args-prompt", "arguments": {"city": "Lisbon"}},
        }),
    )
    .await;
    let (created, _) = events.until("message.created").await;
    let prompt = &created.data["message"]["metadata"]["prompt"];
    assert_eq!(prompt["name"], "args-prompt", "{prompt}");
    assert_eq!(prompt["serverName"], "Everything");
    assert_eq!(
        prompt["messages"],
        json!([{"role": "user", "text": "What's weather in Lisbon?"}])
    );
    let (completed, _) = events.until("message.completed").await;
    assert_eq!(completed.data["content"], "Sunny in Lisbon.");
    let messages = &llm.requests()[0].body["messages"];
    let last = messages.as_array().unwrap().last().unwrap();
    assert_eq!(last["role"], "user", "{messages}");
    assert!(
        last.to_string().contains("What's weather in Lisbon?"),
        "{messages}"
    );
}

//! A chat's own model, system prompt and temperature: stored on the conversation, listed
//! from its provider, and sent to the model by its runs in place of the assistant's and the
//! provider's defaults (asserted on the scripted model's recorded request bodies).

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_testkit::{SCRIPTED_MODELS, ScriptedLlm, Turn};

use crate::common::{Api, assert_error, start};

/// A provider at `llm` (default model `scripted-large`), an assistant on it with its own
/// system prompt, and a conversation with that assistant.
async fn chat(api: &Api, llm: &ScriptedLlm) -> String {
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
                "defaultModel": "scripted-large",
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{provider}");
    let (status, assistant) = api
        .send(
            Method::POST,
            "/api/assistants",
            admin,
            Some(json!({
                "name": "Helper",
                "systemPrompt": "The assistant's prompt.",
                "providerId": provider["id"],
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{assistant}");
    let (status, conversation) = api
        .send(
            Method::POST,
            "/api/conversations",
            admin,
            Some(json!({"assistantId": assistant["id"]})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{conversation}");
    conversation["id"].as_str().unwrap().to_owned()
}

/// Sends `message` and waits for the answer.
async fn say(api: &Api, conversation: &str, message: &str) {
    let (status, answer) = api
        .send(
            Method::POST,
            "/api/chat/message",
            Some(&api.admin),
            Some(json!({"message": message, "conversationId": conversation})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["status"], "completed", "{answer}");
}

/// The system message of an OpenAI chat request body.
fn system(body: &Value) -> &Value {
    &body["messages"][0]["content"]
}

#[tokio::test]
async fn a_run_uses_the_chats_model_prompt_and_temperature() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![Turn::text("One."), Turn::text("Two.")]).await;
    let id = chat(&api, &llm).await;
    let settings = format!("/api/conversations/{id}/settings");

    let (status, models) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{id}/models"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{models}");
    assert_eq!(models["models"], json!(SCRIPTED_MODELS));
    assert_eq!(models["defaultModel"], "scripted-large");
    assert_eq!(models["providerName"], "scripted");

    let (status, stored) = api
        .send(
            Method::PUT,
            &settings,
            Some(&api.admin),
            Some(json!({
                "model": "scripted-small",
                "systemPrompt": "Answer in French.",
                "temperature": 0.25,
            })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{stored}");
    assert_eq!(stored["model"], "scripted-small");
    assert_eq!(stored["systemPrompt"], "Answer in French.");
    assert_eq!(stored["temperature"], 0.25);
    let (_, read) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{id}"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(read["model"], "scripted-small");

    say(&api, &id, "Hello").await;
    let sent = &llm.requests()[0].body;
    assert_eq!(sent["model"], "scripted-small");
    assert_eq!(system(sent), "Answer in French.");
    assert_eq!(sent["temperature"], 0.25);

    // Cleared: the assistant's prompt, the provider's model, no temperature.
    let (status, cleared) = api
        .send(Method::PUT, &settings, Some(&api.admin), Some(json!({})))
        .await;
    assert_eq!(status, StatusCode::OK, "{cleared}");
    assert!(cleared.get("model").is_none(), "{cleared}");
    say(&api, &id, "Again").await;
    let sent = &llm.requests()[1].body;
    assert_eq!(sent["model"], "scripted-large");
    assert_eq!(system(sent), "The assistant's prompt.");
    assert!(sent.get("temperature").is_none(), "{sent}");
}

#[tokio::test]
async fn chat_settings_are_checked_and_the_owners_alone() {
    let api = start().await;
    let llm = ScriptedLlm::start(Vec::new()).await;
    let id = chat(&api, &llm).await;
    let settings = format!("/api/conversations/{id}/settings");
    for body in [
        json!({"temperature": 2.5}),
        json!({"temperature": -1}),
        json!({"temperature": "hot"}),
        json!({"model": "m", "top_p": 1}),
    ] {
        let (status, answer) = api
            .send(Method::PUT, &settings, Some(&api.admin), Some(body.clone()))
            .await;
        assert_error(status, &answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    }
    let (status, answer) = api
        .send(
            Method::PUT,
            &settings,
            Some(&api.admin),
            Some(json!({"temperature": 3})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(answer["message"], "temperature must be between 0 and 2");

    for (method, path) in [
        (Method::PUT, settings.clone()),
        (Method::GET, format!("/api/conversations/{id}/models")),
    ] {
        let body = (method == Method::PUT).then(|| json!({"model": "x"}));
        let (status, answer) = api.send(method, &path, Some(&api.member), body).await;
        assert_error(status, &answer, StatusCode::NOT_FOUND, "NOT_FOUND");
    }
    assert!(llm.listings().is_empty());
}

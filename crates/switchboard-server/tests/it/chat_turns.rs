//! Turns run again over HTTP, with the scripted LLM behind a stored provider: a failed turn
//! keeps its failure (in the reader's language) and Retry runs it again; an answer
//! regenerated and a message edited and sent again fork the conversation, and the model's
//! next request holds none of the dropped messages.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::sse::SseReader;
use common::{Api, assert_error, start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_testkit::{ScriptedLlm, Turn};

/// A provider pointing at `llm`, an assistant with no servers and a conversation with it.
async fn conversation(api: &Api, llm: &ScriptedLlm) -> String {
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
    let (status, assistant) = api
        .send(
            Method::POST,
            "/api/assistants",
            admin,
            Some(json!({"name": "Plain", "providerId": provider["id"]})),
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

/// Sends `text` to `conversation` and waits for the turn's end; the answer's status.
async fn say(api: &Api, conversation: &str, text: &str) -> Value {
    let (status, answer) = api
        .send(
            Method::POST,
            "/api/chat/message",
            Some(&api.admin),
            Some(json!({"message": text, "conversationId": conversation})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    answer
}

/// The admin's live events.
async fn events(api: &Api) -> SseReader {
    let response = api
        .client
        .get(format!("{}/api/events", api.base))
        .bearer_auth(&api.admin)
        .send()
        .await
        .unwrap();
    SseReader::new(response)
}

async fn history(api: &Api, conversation: &str, language: &str) -> Value {
    let response = api
        .client
        .get(format!("{}/api/conversations/{conversation}", api.base))
        .bearer_auth(&api.admin)
        .header("accept-language", language)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

/// The contents of the conversation's messages, in order.
async fn contents(api: &Api, conversation: &str) -> Vec<String> {
    history(api, conversation, "en").await["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .collect()
}

/// The texts of the person's and the assistant's messages the model was sent in `request`.
fn sent_texts(request: &Value) -> Vec<String> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user" || m["role"] == "assistant")
        .filter_map(|m| m["content"].as_str())
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn a_failed_turn_keeps_its_failure_and_retry_runs_it_again() {
    let api = start().await;
    // The stream breaks after a little text (no retry inside the provider then), and the
    // model answers when asked again.
    let llm = ScriptedLlm::start(vec![
        Turn::stream_error("api_error", "the model fell over"),
        Turn::text("Here it is."),
    ])
    .await;
    let id = conversation(&api, &llm).await;
    let answer = say(&api, &id, "Tell me something").await;
    assert_eq!(answer["status"], "failed", "{answer}");
    let failure = &answer["message"]["metadata"]["failure"];
    assert!(
        failure["hint"].is_string(),
        "worded for the reader: {answer}"
    );

    // After a reload, the turn still says why it failed, in the reader's language.
    let english = history(&api, &id, "en").await;
    let turn = &english["messages"][1];
    assert_eq!(turn["role"], "assistant", "{english}");
    assert_eq!(
        turn["content"], "Partial",
        "what came before the failure stays"
    );
    let failure = &turn["metadata"]["failure"];
    assert_eq!(failure["code"], "UPSTREAM_UNAVAILABLE", "{failure}");
    let message = failure["message"].as_str().unwrap();
    assert!(message.starts_with("the model call failed:"), "{failure}");
    assert!(message.contains("the model fell over"), "{failure}");
    assert!(
        failure["hint"].as_str().unwrap().contains("try again"),
        "{failure}"
    );
    assert!(
        failure["timestamp"].as_str().unwrap().ends_with('Z'),
        "{failure}"
    );
    for key in ["key", "params", "at"] {
        assert!(
            failure.get(key).is_none(),
            "served as an error body: {failure}"
        );
    }
    let chinese = history(&api, &id, "zh-CN").await;
    let failure = &chinese["messages"][1]["metadata"]["failure"];
    assert!(
        failure["message"]
            .as_str()
            .unwrap()
            .starts_with("调用模型失败"),
        "{failure}"
    );
    let (status, listed) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{id}/messages"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        listed[1]["metadata"]["failure"]["code"],
        "UPSTREAM_UNAVAILABLE"
    );

    // Another person cannot retry it.
    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/conversations/{id}/retry"),
            Some(&api.member),
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");

    let mut live = events(&api).await;
    let (status, started) = api
        .send(
            Method::POST,
            &format!("/api/conversations/{id}/retry"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{started}");
    assert_eq!(started["conversationId"], id.as_str());
    assert_eq!(
        started["message"]["id"], turn["id"],
        "the failed turn runs again"
    );
    assert!(
        started["message"]["metadata"].get("failure").is_none(),
        "{started}"
    );
    let (completed, _) = live.until("message.completed").await;
    assert_eq!(completed.data["content"], "Here it is.");

    let after = history(&api, &id, "en").await;
    let messages = after["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "{after}");
    assert_eq!(messages[1]["id"], turn["id"]);
    assert_eq!(messages[1]["content"], "Here it is.");
    assert!(messages[1]["metadata"].get("failure").is_none(), "{after}");
    // The round that broke off was asked again, without its broken text.
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(sent_texts(&requests[1].body), ["Tell me something"]);

    // Nothing failed now: nothing to retry.
    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/conversations/{id}/retry"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::CONFLICT, "CONFLICT");
    assert_eq!(llm.requests().len(), 2);
}

#[tokio::test]
async fn an_edited_message_sent_again_forks_the_conversation_there() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![
        Turn::text("Answer one."),
        Turn::text("Answer two."),
        Turn::text("Answer to the edit."),
    ])
    .await;
    let id = conversation(&api, &llm).await;
    say(&api, &id, "First question").await;
    say(&api, &id, "Second question").await;
    let before = history(&api, &id, "en").await;
    let first = before["messages"][0]["id"].as_str().unwrap().to_owned();
    let answer = before["messages"][1]["id"].as_str().unwrap().to_owned();

    // Only the person's own messages can be edited, and only by them.
    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/messages/{answer}/resend"),
            Some(&api.admin),
            Some(json!({"content": "not mine to edit"})),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/messages/{first}/resend"),
            Some(&api.member),
            Some(json!({"content": "hijacked"})),
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/messages/{first}/resend"),
            Some(&api.admin),
            Some(json!({"text": "the wrong field"})),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_eq!(
        contents(&api, &id).await.len(),
        4,
        "refusals change nothing"
    );

    let mut live = events(&api).await;
    let (status, started) = api
        .send(
            Method::POST,
            &format!("/api/messages/{first}/resend"),
            Some(&api.admin),
            Some(json!({"content": "First question, put better"})),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{started}");
    assert_eq!(started["message"]["content"], "First question, put better");
    assert_ne!(started["message"]["id"], first.as_str());
    live.until("message.completed").await;

    assert_eq!(
        contents(&api, &id).await,
        ["First question, put better", "Answer to the edit."]
    );
    // The model's request holds the edited message alone: nothing that came after the
    // original, nor the original.
    let requests = llm.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(
        sent_texts(&requests[2].body),
        ["First question, put better"]
    );
}

#[tokio::test]
async fn a_regenerated_answer_drops_it_and_what_followed() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![
        Turn::text("Answer one."),
        Turn::text("Answer two."),
        Turn::text("Answer one, again."),
    ])
    .await;
    let id = conversation(&api, &llm).await;
    say(&api, &id, "First question").await;
    say(&api, &id, "Second question").await;
    let before = history(&api, &id, "en").await;
    let question = before["messages"][0]["id"].as_str().unwrap().to_owned();
    let answer = before["messages"][1]["id"].as_str().unwrap().to_owned();

    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/messages/{question}/regenerate"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/messages/{answer}/regenerate"),
            Some(&api.member),
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");

    let mut live = events(&api).await;
    let (status, started) = api
        .send(
            Method::POST,
            &format!("/api/messages/{answer}/regenerate"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{started}");
    assert_eq!(started["message"]["id"], question.as_str());
    live.until("message.completed").await;

    assert_eq!(
        contents(&api, &id).await,
        ["First question", "Answer one, again."]
    );
    let requests = llm.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(sent_texts(&requests[2].body), ["First question"]);
}

#[tokio::test]
async fn a_conversation_that_is_answering_is_not_forked() {
    let api = start().await;
    // The answer takes a while: the run holds the conversation meanwhile.
    let llm = ScriptedLlm::start(vec![
        Turn::text("Answer one."),
        Turn::text("Slow answer.").delay(std::time::Duration::from_secs(30)),
    ])
    .await;
    let id = conversation(&api, &llm).await;
    say(&api, &id, "First question").await;
    let answer = history(&api, &id, "en").await["messages"][1]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut live = events(&api).await;
    let (status, _) = api
        .send(
            Method::POST,
            &format!("/api/conversations/{id}/messages"),
            Some(&api.admin),
            Some(json!({"content": "Second question"})),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    // The run has begun its answer.
    loop {
        let (created, _) = live.until("message.created").await;
        if created.data["message"]["role"] == "assistant" {
            break;
        }
    }
    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/messages/{answer}/regenerate"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::CONFLICT, "CONFLICT");
    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/conversations/{id}/retry"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::CONFLICT, "CONFLICT");
    assert_eq!(contents(&api, &id).await.len(), 4, "{id}");
    let (status, _) = api
        .send(
            Method::POST,
            &format!("/api/conversations/{id}/cancel"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
}

//! Turns in the page: a failed turn retried after a reload (the model thinking meanwhile,
//! the answer copied), a message edited and sent again and an answer regenerated (the model
//! is not sent what the fork dropped), and the approval card of a call through a tool node
//! (the arguments that will run, the mapped ones tagged).

use std::time::Duration;

use serde_json::{Value, json};
use switchboard_testkit::Turn;

use super::Ui;

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

#[tokio::test(flavor = "multi_thread")]
async fn chat_a_failed_turn_is_retried_after_a_reload_and_its_answer_copied() {
    let ui = Ui::start(vec![
        Turn::error(401, "key rejected"),
        // Slow enough to show the model thinking.
        Turn::text("Octopuses have three hearts.").delay(Duration::from_millis(1500)),
    ])
    .await;
    ui.scenario("turns-retry").await;

    let requests = ui.llm.requests();
    assert_eq!(requests.len(), 2, "asked once more, by Retry");
    assert_eq!(sent_texts(&requests[1].body), ["Tell me a fact."]);
    ui.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_a_message_edited_and_an_answer_regenerated_fork_the_conversation() {
    let ui = Ui::start(vec![
        Turn::text("Answer one."),
        Turn::text("Answer two."),
        Turn::text("Answer to the edit."),
        Turn::text("Answer to the edit, again."),
    ])
    .await;
    ui.scenario("turns-fork").await;

    let requests = ui.llm.requests();
    assert_eq!(requests.len(), 4);
    assert_eq!(
        sent_texts(&requests[1].body),
        ["First question", "Answer one.", "Second question"]
    );
    // After the fork, neither request holds a message it dropped.
    for request in &requests[2..] {
        assert_eq!(sent_texts(&request.body), ["First question, put better"]);
    }
    ui.stop();
}

/// The demo server's echo through a node of the assistant Greeter: `text` from its
/// variable `greeting` (default "Hello"), `steps` fixed at 1.
#[tokio::test(flavor = "multi_thread")]
async fn chat_the_approval_card_shows_a_node_calls_resolved_arguments() {
    let ui = Ui::start(vec![
        Turn::tool_call("mcp__demo__echo", json!({"delay_ms": 0})),
        Turn::text("Greeted."),
    ])
    .await;
    let assistant = ui
        .api(
            reqwest::Method::POST,
            "/api/assistants",
            Some(json!({
                "name": "Greeter",
                "toolMode": "native",
                "variables": [{"name": "greeting", "type": "string", "default": "Hello"}],
            })),
        )
        .await;
    ui.api(
        reqwest::Method::POST,
        "/api/tool-nodes",
        Some(json!({
            "name": "Greet",
            "serverId": "demo",
            "assistantId": assistant["id"],
            "selectedTools": [{"name": "echo", "parameterMappings": {"text": "{{greeting}}", "steps": 1}}],
        })),
    )
    .await;
    ui.scenario("node-approval").await;

    let conversations = ui
        .api(reqwest::Method::GET, "/api/conversations", None)
        .await;
    let id = conversations[0]["id"].as_str().unwrap();
    let history = ui
        .api(
            reqwest::Method::GET,
            &format!("/api/conversations/{id}"),
            None,
        )
        .await;
    let call = &history["messages"][1]["toolCalls"][0];
    assert_eq!(call["arguments"], json!({"delay_ms": 0}), "{call}");
    assert_eq!(
        call["resolvedArguments"],
        json!({"delay_ms": 0, "steps": 1, "text": "Hello"}),
        "{call}"
    );
    ui.stop();
}

//! A chat's call parked on a task whose server asks a question (a 2025-11-25 task in
//! `input_required`, its question asked on `tasks/result`): the question shows with the
//! call, which stays `invoking` with its task; the person's answer (through the answer
//! route) reaches the tool, the task ends with a result that reflects it, and the turn goes
//! on. A declined question is declined to the server; cancelling the task's call ends the
//! question unanswered and the task.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_agent::{AgentEvent, StopReason};
use switchboard_core::ToolCallRecord;
use switchboard_testkit::{ScriptedLlm, Turn};

use crate::chat_tasks::{Events, call_of, chat_with, messages, model, post};
use crate::common::{Api, start};
use crate::tasks_api::tasks_peer;

/// A model that calls the tasks peer's `ask_task` when asked for a colour, and answers
/// `after_tool` once the result is in.
pub(crate) async fn asking_model(after_tool: &'static str) -> ScriptedLlm {
    ScriptedLlm::responding(model(
        vec![("colour", Turn::tool_call("mcp__tasks__ask_task", json!({})))],
        after_tool,
    ))
    .await
}

/// Waits until a call of `conversation` shows a question not yet answered: the call.
async fn asked(events: &mut Events, conversation: &str) -> ToolCallRecord {
    let event = events
        .until(|e| matches!(e, AgentEvent::ToolCallUpdated { conversation_id, tool_call, .. } if conversation_id == conversation && tool_call.question.as_ref().is_some_and(|q| q.answer.is_none())))
        .await;
    match event {
        AgentEvent::ToolCallUpdated { tool_call, .. } => *tool_call,
        _ => unreachable!(),
    }
}

/// Answers the question of `call` of message `message_id` with `body` (`questionId` added).
pub(crate) async fn answer(
    api: &Api,
    message_id: &str,
    call: &ToolCallRecord,
    mut body: Value,
) -> Value {
    body["questionId"] = json!(call.question.as_ref().unwrap().id);
    let (status, answered) = api
        .send(
            Method::POST,
            &format!("/api/messages/{message_id}/tool-calls/{}/answer", call.id),
            Some(&api.admin),
            Some(body),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answered}");
    answered
}

/// The conversation sent for a colour: its parked turn's id and the call asking, shown as
/// the page sees it.
pub(crate) async fn parked_question(
    api: &Api,
    events: &mut Events,
    conversation: &str,
) -> (String, ToolCallRecord) {
    let (status, sent) = post(api, conversation, json!({"content": "Pick a colour"})).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{sent}");
    let message_id = events.parked(conversation).await;
    let call = asked(events, conversation).await;
    assert!(call.waits_on_task(), "{call:?}");
    let question = call.question.as_ref().unwrap();
    assert_eq!(question.message, "Which colour?");
    // A reload shows it too, with the call still waiting on its task.
    let stored = call_of(api, conversation, &message_id).await;
    assert_eq!(stored["status"], "invoking", "{stored}");
    assert_eq!(stored["question"]["id"], question.id.as_str(), "{stored}");
    assert!(stored["task"]["id"].is_string(), "{stored}");
    (message_id, call)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_parked_tasks_question_is_answered_in_the_chat_and_the_turn_goes_on() {
    let api = start().await;
    let llm = asking_model("Teal it is.").await;
    let mut events = Events::of(&api);
    let (conversation, _) = chat_with(&api, &llm, tasks_peer(), "ask_task").await;
    let (message_id, call) = parked_question(&api, &mut events, &conversation).await;
    let task_id = call.task.as_ref().unwrap().id.clone();

    let answered = answer(
        &api,
        &message_id,
        &call,
        json!({"action": "accept", "content": {"colour": "teal"}}),
    )
    .await;
    assert_eq!(answered["question"]["answer"]["action"], "accept");
    assert_eq!(
        answered["status"], "invoking",
        "the task still runs: {answered}"
    );

    assert_eq!(events.task_ended(&task_id).await, "completed");
    let (content, stop) = events.completed(&conversation).await;
    assert_eq!(
        (content.as_str(), stop),
        ("Teal it is.", StopReason::Answered)
    );
    let stored = messages(&api, &conversation).await;
    assert_eq!(stored.len(), 2, "one turn: {stored:#?}");
    let call = &stored[1]["toolCalls"][0];
    assert_eq!(call["status"], "done", "{call}");
    assert_eq!(
        call["response"]["content"][0]["text"], "told teal",
        "{call}"
    );
    let last = llm.requests().last().unwrap().body.to_string();
    assert!(
        last.contains("told teal"),
        "the model read the result: {last}"
    );
    api.manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_parked_tasks_question_declined_in_the_chat_is_declined_to_the_server() {
    let api = start().await;
    let llm = asking_model("No colour, then.").await;
    let mut events = Events::of(&api);
    let (conversation, _) = chat_with(&api, &llm, tasks_peer(), "ask_task").await;
    let (message_id, call) = parked_question(&api, &mut events, &conversation).await;
    let task_id = call.task.as_ref().unwrap().id.clone();

    answer(&api, &message_id, &call, json!({"action": "decline"})).await;
    assert_eq!(events.task_ended(&task_id).await, "completed");
    let (content, _) = events.completed(&conversation).await;
    assert_eq!(content, "No colour, then.");
    let call = call_of(&api, &conversation, &message_id).await;
    assert_eq!(
        call["response"]["content"][0]["text"], "told decline",
        "{call}"
    );
    api.manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_call_whose_task_asks_ends_the_question_and_the_task() {
    let api = start().await;
    let llm = asking_model("Stopped, as you asked.").await;
    let mut events = Events::of(&api);
    let (conversation, _) = chat_with(&api, &llm, tasks_peer(), "ask_task").await;
    let (message_id, call) = parked_question(&api, &mut events, &conversation).await;
    let task_id = call.task.as_ref().unwrap().id.clone();

    let path = format!("/api/messages/{message_id}/tool-calls/{}/cancel", call.id);
    let (status, cancelled) = api.send(Method::POST, &path, Some(&api.admin), None).await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");

    // (The SDK's stdio peer may exit once a task asking a question is cancelled, so its
    // count of `tasks/cancel` is not read here; `chat_tasks` reads it for a working task.)
    assert_eq!(events.task_ended(&task_id).await, "cancelled");
    let (content, stop) = events.completed(&conversation).await;
    assert_eq!(
        (content.as_str(), stop),
        ("Stopped, as you asked.", StopReason::Answered)
    );
    // The question is no one's to answer any more.
    let (status, _) = api
        .send(
            Method::POST,
            &format!("/api/messages/{message_id}/tool-calls/{}/answer", call.id),
            Some(&api.admin),
            Some(json!({"questionId": call.question.as_ref().unwrap().id, "action": "decline"})),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    api.manager.shutdown().await;
}

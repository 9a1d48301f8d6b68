//! A chat's call that its server runs as a task (MCP tasks): the turn parks (`run.parked`),
//! freeing the person's run slot, and goes on in the same assistant message when the task
//! ends; a person cancels one task's call (the turn goes on, the model told) or the whole
//! parked turn, and the server is told; a new message on a parked turn is refused with the
//! tasks it waits on (`TASK_PENDING`) unless it cancels them.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_agent::{AgentEvent, OwnedEvent, StopReason};
use switchboard_app::limits::Limits;
use switchboard_testkit::{ScriptedLlm, Turn};
use tokio::sync::broadcast::Receiver;

use crate::common::{Api, Config, assert_error, everything, start, start_with};

/// A model that answers each conversation by what it was sent: a turn whose last user
/// message holds one of `asks`' words gets its turn; once a tool's result is in, it answers
/// `after_tool`.
pub(crate) fn model(
    asks: Vec<(&'static str, Turn)>,
    after_tool: &'static str,
) -> impl Fn(&Value) -> Turn {
    move |body: &Value| {
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let last_user = messages
            .iter()
            .rev()
            .find(|m| m["role"] == "user")
            .map(|m| m["content"].to_string())
            .unwrap_or_default();
        let last = messages.last().cloned().unwrap_or_default();
        if last["role"] == "tool" {
            return Turn::text(after_tool);
        }
        asks.iter()
            .find(|(word, _)| last_user.contains(word))
            .map_or_else(|| Turn::text("Nothing to do."), |(_, turn)| turn.clone())
    }
}

/// A provider for `llm`, the server `server` with `tool` auto-approved, an assistant using
/// them, and a conversation with it. Returns the conversation's id and the server's.
pub(crate) async fn chat_with(
    api: &Api,
    llm: &ScriptedLlm,
    server: Value,
    tool: &str,
) -> (String, String) {
    let admin = Some(api.admin.as_str());
    let (status, provider) = api
        .send(
            Method::POST,
            "/api/providers",
            admin,
            Some(json!({
                "name": "scripted", "kind": "openai", "baseUrl": llm.openai_base_url(),
                "apiKey": "sk-test", "defaultModel": "scripted-model",
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{provider}");
    let (status, server) = api
        .send(Method::POST, "/api/mcp-servers", admin, Some(server))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{server}");
    let server_id = server["id"].as_str().unwrap().to_owned();
    let (status, switched) = api
        .send(
            Method::PUT,
            &format!("/api/mcp-servers/{server_id}/tools/{tool}"),
            admin,
            Some(json!({"enabled": true, "autoApprove": true})),
        )
        .await;
    assert!(status.is_success(), "{switched}");
    let (status, assistant) = api
        .send(
            Method::POST,
            "/api/assistants",
            admin,
            Some(json!({"name": "Helper", "providerId": provider["id"], "toolMode": "native"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{assistant}");
    let assistant_id = assistant["id"].as_str().unwrap();
    let (status, _) = api
        .send(
            Method::PUT,
            &format!("/api/assistants/{assistant_id}/mcp-servers"),
            admin,
            Some(json!({"serverIds": [server_id]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    (new_conversation(api, assistant_id).await, server_id)
}

pub(crate) async fn new_conversation(api: &Api, assistant_id: &str) -> String {
    let (status, conversation) = api
        .send(
            Method::POST,
            "/api/conversations",
            Some(&api.admin),
            Some(json!({"title": "Tasks", "assistantId": assistant_id})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{conversation}");
    conversation["id"].as_str().unwrap().to_owned()
}

/// Sends `body` as a message to `conversation`: the status and the answer.
pub(crate) async fn post(api: &Api, conversation: &str, body: Value) -> (StatusCode, Value) {
    api.send(
        Method::POST,
        &format!("/api/conversations/{conversation}/messages"),
        Some(&api.admin),
        Some(body),
    )
    .await
}

/// The agent's events, each awaited by what it says rather than by its place in the order
/// (a task's end and its turn's go their own ways).
pub(crate) struct Events {
    live: Receiver<OwnedEvent>,
    /// Received and not yet awaited.
    seen: Vec<AgentEvent>,
}

impl Events {
    pub(crate) fn of(api: &Api) -> Self {
        Self {
            live: api.app.agent.events().subscribe(),
            seen: Vec::new(),
        }
    }

    /// The first event not yet awaited for which `wanted` holds, within a minute.
    pub(crate) async fn until(&mut self, wanted: impl Fn(&AgentEvent) -> bool) -> AgentEvent {
        if let Some(at) = self.seen.iter().position(&wanted) {
            return self.seen.remove(at);
        }
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            let event = tokio::time::timeout_at(deadline, self.live.recv())
                .await
                .expect("the event comes within a minute")
                .unwrap();
            if wanted(&event.event) {
                return event.event;
            }
            self.seen.push(event.event);
        }
    }

    /// Waits until `conversation`'s run parks, and answers its message's id.
    pub(crate) async fn parked(&mut self, conversation: &str) -> String {
        let event = self
            .until(|e| matches!(e, AgentEvent::RunParked { conversation_id, .. } if conversation_id == conversation))
            .await;
        match event {
            AgentEvent::RunParked { message_id, .. } => message_id,
            _ => unreachable!(),
        }
    }

    /// Waits until `conversation`'s turn completes: its content and why it stopped.
    pub(crate) async fn completed(&mut self, conversation: &str) -> (String, StopReason) {
        let event = self
            .until(|e| matches!(e, AgentEvent::MessageCompleted { conversation_id, .. } if conversation_id == conversation))
            .await;
        match event {
            AgentEvent::MessageCompleted { content, stop, .. } => (content, stop),
            _ => unreachable!(),
        }
    }

    /// Waits until task `id` ends (`task.updated` with a final status): that status.
    pub(crate) async fn task_ended(&mut self, id: &str) -> &'static str {
        let event = self
            .until(|e| matches!(e, AgentEvent::TaskUpdated(t) if t.task_id == id && matches!(t.status, "completed" | "failed" | "cancelled")))
            .await;
        match event {
            AgentEvent::TaskUpdated(task) => task.status,
            _ => unreachable!(),
        }
    }
}

/// The stored messages of `conversation`.
pub(crate) async fn messages(api: &Api, conversation: &str) -> Vec<Value> {
    let (status, messages) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{conversation}/messages"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{messages}");
    messages.as_array().unwrap().clone()
}

/// The call of assistant message `message_id` of `conversation`, as stored.
pub(crate) async fn call_of(api: &Api, conversation: &str, message_id: &str) -> Value {
    let stored = messages(api, conversation).await;
    let message = stored.iter().find(|m| m["id"] == message_id).unwrap();
    message["toolCalls"][0].clone()
}

/// How many `tasks/cancel` requests the Python tasks peer `server` received.
pub(crate) async fn cancels_told(api: &Api, server: &str) -> String {
    let (status, count) = api
        .send(
            Method::POST,
            &format!("/api/mcp/proxy/{server}/tools/task_cancelled_count/call"),
            Some(&api.admin),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{count}");
    count["content"][0]["text"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_turn_parks_on_a_task_frees_its_slot_and_goes_on_when_the_task_ends() {
    // One run at a time: the second conversation can answer only if the first freed it.
    let api = start_with(Config {
        limits: Limits {
            max_runs: 1,
            ..Limits::default()
        },
        ..Config::default()
    })
    .await;
    let llm = ScriptedLlm::responding(model(
        vec![(
            "Research",
            Turn::tool_call(
                "mcp__everything__simulate-research-query",
                json!({"topic": "tides"}),
            ),
        )],
        "Here is the report.",
    ))
    .await;
    let mut events = Events::of(&api);
    let (first, _) = chat_with(&api, &llm, everything(), "simulate-research-query").await;
    let (status, sent) = post(&api, &first, json!({"content": "Research tides"})).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{sent}");

    let message_id = events.parked(&first).await;
    let call = call_of(&api, &first, &message_id).await;
    assert_eq!(call["status"], "invoking", "{call}");
    let task_id = call["task"]["id"].as_str().unwrap().to_owned();
    assert!(task_id.starts_with("tsk_"), "{call}");
    assert_eq!(call["task"]["status"], "working", "{call}");
    assert!(call["task"]["createdAt"].as_i64().unwrap() > 0, "{call}");
    let (_, history) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{first}"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(history["running"], false, "no run holds a parked turn");

    // The slot is free: another conversation answers meanwhile.
    let assistant = history["assistantId"].as_str().unwrap().to_owned();
    let second = new_conversation(&api, &assistant).await;
    let (status, sent) = post(&api, &second, json!({"content": "Hello"})).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{sent}");
    let (answer, _) = events.completed(&second).await;
    assert_eq!(answer, "Nothing to do.");

    // The task ends: the call gets its result and the same turn goes on to the answer.
    let (answer, stop) = events.completed(&first).await;
    assert_eq!(stop, StopReason::Answered);
    assert_eq!(answer, "Here is the report.");
    let stored = messages(&api, &first).await;
    assert_eq!(
        stored.len(),
        2,
        "one turn, one assistant message: {stored:#?}"
    );
    let call = &stored[1]["toolCalls"][0];
    assert_eq!(call["status"], "done", "{call}");
    assert_eq!(call["task"]["id"], task_id.as_str());
    assert_eq!(call["task"]["status"], "completed", "{call}");
    assert!(
        call["response"]
            .to_string()
            .contains("Research Report: tides"),
        "{call}"
    );
    let last = llm.requests().last().unwrap().body.to_string();
    assert!(
        last.contains("Research Report: tides"),
        "the model read the result: {last}"
    );
    api.manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_tasks_call_tells_the_server_and_the_turn_goes_on() {
    let api = start().await;
    let llm = ScriptedLlm::responding(model(
        vec![(
            "Sleep",
            Turn::tool_call("mcp__tasks__slow_task", json!({"seconds": 600})),
        )],
        "Stopped, as you asked.",
    ))
    .await;
    let mut events = Events::of(&api);
    let (conversation, server) =
        chat_with(&api, &llm, crate::tasks_api::tasks_peer(), "slow_task").await;
    let (status, _) = post(&api, &conversation, json!({"content": "Sleep a while"})).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let message_id = events.parked(&conversation).await;
    let call = call_of(&api, &conversation, &message_id).await;
    let call_id = call["id"].as_str().unwrap();
    let task_id = call["task"]["id"].as_str().unwrap().to_owned();

    let path = format!("/api/messages/{message_id}/tool-calls/{call_id}/cancel");
    let (status, cancelled) = api.send(Method::POST, &path, Some(&api.admin), None).await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert_eq!(cancelled["task"]["status"], "cancelled", "{cancelled}");

    let (answer, stop) = events.completed(&conversation).await;
    assert_eq!(
        (answer.as_str(), stop),
        ("Stopped, as you asked.", StopReason::Answered)
    );
    let told = llm.requests().last().unwrap().body.to_string();
    assert!(told.contains("CANCELLED"), "the model heard it: {told}");

    assert_eq!(events.task_ended(&task_id).await, "cancelled");
    assert_eq!(cancels_told(&api, &server).await, "1");
    // A call that runs as no task any more cannot be cancelled again.
    let (status, again) = api.send(Method::POST, &path, Some(&api.admin), None).await;
    assert_error(status, &again, StatusCode::CONFLICT, "CONFLICT");
    api.manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_parked_run_cancels_its_tasks() {
    let api = start().await;
    let llm = ScriptedLlm::responding(model(
        vec![(
            "Sleep",
            Turn::tool_call("mcp__tasks__slow_task", json!({"seconds": 600})),
        )],
        "unused",
    ))
    .await;
    let mut events = Events::of(&api);
    let (conversation, server) =
        chat_with(&api, &llm, crate::tasks_api::tasks_peer(), "slow_task").await;
    post(&api, &conversation, json!({"content": "Sleep a while"})).await;
    let message_id = events.parked(&conversation).await;
    let call = call_of(&api, &conversation, &message_id).await;
    let task_id = call["task"]["id"].as_str().unwrap().to_owned();

    let path = format!("/api/conversations/{conversation}/cancel");
    let (status, _) = api.send(Method::POST, &path, Some(&api.admin), None).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let (_, stop) = events.completed(&conversation).await;
    assert_eq!(stop, StopReason::Cancelled);
    let call = call_of(&api, &conversation, &message_id).await;
    assert_eq!(call["status"], "cancelled", "{call}");
    assert_eq!(events.task_ended(&task_id).await, "cancelled");
    assert_eq!(cancels_told(&api, &server).await, "1");
    assert_eq!(llm.requests().len(), 1, "the model was not asked again");
    let (status, nothing) = api.send(Method::POST, &path, Some(&api.admin), None).await;
    assert_error(status, &nothing, StatusCode::CONFLICT, "CONFLICT");
    api.manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_message_on_a_parked_turn_is_refused_unless_it_cancels_the_tasks() {
    let api = start().await;
    let llm = ScriptedLlm::responding(model(
        vec![
            (
                "Sleep",
                Turn::tool_call("mcp__tasks__slow_task", json!({"seconds": 600})),
            ),
            ("Instead", Turn::text("Fresh answer.")),
        ],
        "unused",
    ))
    .await;
    let mut events = Events::of(&api);
    let (conversation, server) =
        chat_with(&api, &llm, crate::tasks_api::tasks_peer(), "slow_task").await;
    post(&api, &conversation, json!({"content": "Sleep a while"})).await;
    let message_id = events.parked(&conversation).await;
    let call = call_of(&api, &conversation, &message_id).await;
    let task_id = call["task"]["id"].as_str().unwrap().to_owned();

    let (status, refused) = post(&api, &conversation, json!({"content": "Instead, hi"})).await;
    assert_error(status, &refused, StatusCode::CONFLICT, "TASK_PENDING");
    let tasks = refused["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 1, "{refused}");
    assert_eq!(tasks[0]["taskId"], task_id.as_str(), "{refused}");
    assert_eq!(tasks[0]["messageId"], message_id.as_str(), "{refused}");
    assert_eq!(tasks[0]["callId"], call["id"], "{refused}");
    assert_eq!(tasks[0]["toolName"], "slow_task", "{refused}");
    assert_eq!(tasks[0]["status"], "working", "{refused}");
    assert_eq!(
        messages(&api, &conversation).await.len(),
        2,
        "nothing stored"
    );
    // In Chinese too, with the tasks.
    let response = api
        .client
        .post(format!(
            "{}/api/conversations/{conversation}/messages",
            api.base
        ))
        .bearer_auth(&api.admin)
        .header("accept-language", "zh-CN")
        .json(&json!({"content": "Instead, hi"}))
        .send()
        .await
        .unwrap();
    let body: Value = response.json().await.unwrap();
    assert!(body["message"].as_str().unwrap().contains("任务"), "{body}");
    assert_eq!(body["tasks"][0]["taskId"], task_id.as_str(), "{body}");

    let (status, sent) = post(
        &api,
        &conversation,
        json!({"content": "Instead, hi", "onPendingTask": "cancel"}),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{sent}");
    let (_, stop) = events.completed(&conversation).await;
    assert_eq!(stop, StopReason::Cancelled, "the parked turn ends first");
    let (answer, stop) = events.completed(&conversation).await;
    assert_eq!(
        (answer.as_str(), stop),
        ("Fresh answer.", StopReason::Answered)
    );
    assert_eq!(events.task_ended(&task_id).await, "cancelled");
    assert_eq!(cancels_told(&api, &server).await, "1");
    let stored = messages(&api, &conversation).await;
    assert_eq!(stored.len(), 4, "{stored:#?}");
    assert_eq!(stored[1]["toolCalls"][0]["status"], "cancelled");
    api.manager.shutdown().await;
}

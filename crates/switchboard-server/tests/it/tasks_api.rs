//! Tool calls that are not waited for: `?mode=task` or `Prefer: respond-async` on the call
//! routes answers 202 with a task (`Location: /api/tasks/{id}`), followed with `GET
//! /api/tasks/{id}` until it holds the result in the route's own shape, cancelled with
//! `DELETE` (the server told when it runs the task), announced as `task.updated`, and
//! another person's task is not found. A tool its server runs as a task is followed as the
//! server's task; any other runs in the background here.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_agent::AgentEvent;
use switchboard_testkit::{Peers, PyGen};

use crate::common::{self, Api, assert_error, everything, start};

/// Registers a server for the holder of `token`.
pub(crate) async fn add_server(api: &Api, token: &str, server: Value) -> String {
    let (status, body) = api
        .send(Method::POST, "/api/mcp-servers", Some(token), Some(server))
        .await;
    assert!(status.is_success(), "{status} {body}");
    body["id"].as_str().unwrap().to_owned()
}

/// The Python SDK 1.x server whose tools run only as tasks, and which counts the cancels
/// it was asked for.
pub(crate) fn tasks_peer() -> Value {
    json!({
        "name": "Tasks",
        "transport": "stdio",
        "command": Peers::locate().python(PyGen::V1),
        "args": [format!(
            "{}/../switchboard-mcp/tests/peers/tasks_server.py",
            env!("CARGO_MANIFEST_DIR")
        )],
        "env": {},
        "headers": {},
    })
}

/// Sends a call with `?mode=task` and answers the 202's body, checking its headers.
pub(crate) async fn start_task(api: &Api, path: &str, body: Value) -> Value {
    let response = api
        .client
        .post(format!("{}{path}", api.base))
        .bearer_auth(&api.admin)
        .header("prefer", "respond-async")
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let location = response
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_owned());
    let applied = response
        .headers()
        .get("preference-applied")
        .map(|v| v.to_str().unwrap().to_owned());
    let task: Value = response.json().await.unwrap();
    assert_eq!(status, StatusCode::ACCEPTED, "{task}");
    let id = task["taskId"].as_str().unwrap();
    assert!(id.starts_with("tsk_"), "{task}");
    assert_eq!(
        location.as_deref(),
        Some(format!("/api/tasks/{id}").as_str())
    );
    assert_eq!(applied.as_deref(), Some("respond-async"));
    assert_eq!(task["status"], "working", "{task}");
    task
}

/// Waits for the announcement that task `id` ended, then answers it as `GET` shows it.
pub(crate) async fn ended(
    api: &Api,
    events: &mut tokio::sync::broadcast::Receiver<switchboard_agent::OwnedEvent>,
    id: &str,
) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .expect("the task ends within a minute")
            .unwrap();
        if let AgentEvent::TaskUpdated(task) = &event.event
            && task.task_id == id
            && matches!(task.status, "completed" | "failed" | "cancelled")
        {
            break;
        }
    }
    let (status, task) = api
        .send(
            Method::GET,
            &format!("/api/tasks/{id}"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{task}");
    task
}

/// Waits until the admin's task `id` is its server's (its call was answered with a task),
/// and answers it as `GET` shows it then.
pub(crate) async fn servers_task(
    api: &Api,
    events: &mut tokio::sync::broadcast::Receiver<switchboard_agent::OwnedEvent>,
    id: &str,
) -> Value {
    let owner = api
        .store
        .user_by_token(&api.admin)
        .await
        .unwrap()
        .unwrap()
        .id;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let (_, now) = api
            .send(
                Method::GET,
                &format!("/api/tasks/{id}"),
                Some(&api.admin),
                None,
            )
            .await;
        let kept = api.app.tasks.task(&owner, id).await.unwrap();
        if kept.upstream_id.is_some() {
            return now;
        }
        tokio::time::timeout_at(deadline, events.recv())
            .await
            .expect("the server's task is kept within a minute")
            .unwrap();
    }
}

#[tokio::test]
async fn a_plain_tool_asked_as_a_task_runs_in_the_background() {
    let api = start().await;
    add_server(&api, &api.admin, everything()).await;
    let stream = api
        .client
        .get(format!("{}/api/events", api.base))
        .bearer_auth(&api.admin)
        .send()
        .await
        .unwrap();
    let mut stream = common::sse::SseReader::new(stream);
    let mut events = api.app.agent.events().subscribe();
    let task = start_task(
        &api,
        "/api/mcp/proxy/everything/tools/echo/call",
        json!({"message": "later"}),
    )
    .await;
    let id = task["taskId"].as_str().unwrap();
    let done = ended(&api, &mut events, id).await;
    // The caller's event stream told it: created, then ended.
    let (created, _) = stream.until("task.updated").await;
    assert_eq!(created.data["taskId"], id, "{:?}", created.data);
    assert_eq!(created.data["status"], "working");
    let (finished, _) = stream.until("task.updated").await;
    assert_eq!(finished.data["status"], "completed", "{:?}", finished.data);
    assert_eq!(finished.data["tool"], "echo");
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["tool"], "echo");
    assert_eq!(done["serverId"], "everything");
    // The result in the proxy's own shape: the MCP result as the server sent it.
    assert_eq!(
        done["result"]["content"][0]["text"], "Echo: later",
        "{done}"
    );
    api.manager.shutdown().await;
}

#[tokio::test]
async fn a_task_only_tool_runs_as_its_servers_task_through_the_call_route() {
    let api = start().await;
    add_server(&api, &api.admin, everything()).await;
    let mut events = api.app.agent.events().subscribe();
    let response = api
        .client
        .post(format!("{}/api/mcp/tools/call?mode=task", api.base))
        .bearer_auth(&api.admin)
        .json(&json!({
            "serverId": "everything",
            "toolName": "simulate-research-query",
            "arguments": {"topic": "tides"}
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert!(response.headers().get("preference-applied").is_none());
    let task: Value = response.json().await.unwrap();
    let id = task["taskId"].as_str().unwrap().to_owned();
    // While it runs it is the server's task: its status message is the server's.
    let mut told = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .expect("the task ends within a minute")
            .unwrap();
        if let AgentEvent::TaskUpdated(update) = &event.event
            && update.task_id == id
        {
            told.push(update.status_message.clone());
            if matches!(update.status, "completed" | "failed" | "cancelled") {
                break;
            }
        }
    }
    assert!(
        told.iter().flatten().next().is_some(),
        "the server's progress was told: {told:?}"
    );
    let (status, done) = api
        .send(
            Method::GET,
            &format!("/api/tasks/{id}"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["status"], "completed", "{done}");
    assert!(
        done["result"]
            .to_string()
            .contains("Research Report: tides"),
        "{done}"
    );
    api.manager.shutdown().await;
}

#[tokio::test]
async fn cancelling_a_servers_task_tells_the_server() {
    let api = start().await;
    let server = add_server(&api, &api.admin, tasks_peer()).await;
    let mut events = api.app.agent.events().subscribe();
    let task = start_task(
        &api,
        &format!("/api/mcp/proxy/{server}/tools/slow_task/call"),
        json!({"seconds": 600}),
    )
    .await;
    let id = task["taskId"].as_str().unwrap().to_owned();
    // Once it is the server's task (its call was answered with one), cancel it.
    let now = servers_task(&api, &mut events, &id).await;
    assert_eq!(now["status"], "working", "{now}");
    let (status, cancelling) = api
        .send(
            Method::DELETE,
            &format!("/api/tasks/{id}"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{cancelling}");
    let done = ended(&api, &mut events, &id).await;
    assert_eq!(done["status"], "cancelled", "{done}");
    assert_eq!(done["error"]["code"], "CANCELLED", "{done}");
    let (status, count) = api
        .send(
            Method::POST,
            &format!("/api/mcp/proxy/{server}/tools/task_cancelled_count/call"),
            Some(&api.admin),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{count}");
    assert_eq!(count["content"][0]["text"], "1", "{count}");
    // Cancelling an ended task leaves it as it is.
    let (status, again) = api
        .send(
            Method::DELETE,
            &format!("/api/tasks/{id}"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(again["status"], "cancelled");
    api.manager.shutdown().await;
}

#[tokio::test]
async fn another_persons_task_is_not_found_and_a_bad_mode_is_refused() {
    let api = start().await;
    add_server(&api, &api.admin, everything()).await;
    let mut events = api.app.agent.events().subscribe();
    let task = start_task(
        &api,
        "/api/mcp/proxy/everything/tools/echo/call",
        json!({"message": "mine"}),
    )
    .await;
    let id = task["taskId"].as_str().unwrap();
    ended(&api, &mut events, id).await;
    for method in [Method::GET, Method::DELETE] {
        let (status, body) = api
            .send(method, &format!("/api/tasks/{id}"), Some(&api.member), None)
            .await;
        assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    }
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp/proxy/everything/tools/echo/call?mode=eventually",
            Some(&api.admin),
            Some(json!({"message": "x"})),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    api.manager.shutdown().await;
}

#[tokio::test]
async fn tasks_past_the_quota_are_refused() {
    let api = common::start_with(common::Config {
        limits: switchboard_app::limits::Limits {
            max_tasks: 1,
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let server = add_server(&api, &api.admin, tasks_peer()).await;
    start_task(
        &api,
        &format!("/api/mcp/proxy/{server}/tools/slow_task/call"),
        json!({"seconds": 600}),
    )
    .await;
    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/mcp/proxy/{server}/tools/slow_task/call?mode=task"),
            Some(&api.admin),
            Some(json!({"seconds": 1})),
        )
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "QUOTA_EXCEEDED");
    api.manager.shutdown().await;
}

#[tokio::test]
async fn a_tool_nodes_run_as_a_task_ends_in_the_nodes_shape() {
    let api = start().await;
    add_server(&api, &api.admin, everything()).await;
    let owner = api
        .store
        .user_by_token(&api.admin)
        .await
        .unwrap()
        .unwrap()
        .id;
    let node: switchboard_core::ToolNode = serde_json::from_value(json!({
        "name": "sums",
        "serverId": "everything",
        "selectedTools": [{"name": "get-sum", "parameterMappings": {"a": 40}}]
    }))
    .unwrap();
    let node = api.store.create_tool_node(&owner, &node).await.unwrap().id;
    let mut events = api.app.agent.events().subscribe();
    let task = start_task(
        &api,
        &format!("/api/tool-nodes/{node}/execute"),
        json!({"arguments": {"b": 2}}),
    )
    .await;
    let done = ended(&api, &mut events, task["taskId"].as_str().unwrap()).await;
    assert_eq!(done["status"], "completed", "{done}");
    let result = &done["result"];
    assert_eq!(result["success"], true, "{done}");
    assert_eq!(result["tool"], "get-sum");
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("42"),
        "{done}"
    );
    assert_eq!(result["attempts"].as_array().unwrap().len(), 1, "{done}");
    api.manager.shutdown().await;
}

/// Answers every question of a task's server with the colour teal.
#[derive(Debug)]
struct Teal;

impl switchboard_mcp::ServerRequests for Teal {
    fn elicit(
        &self,
        _params: rmcp::model::ElicitRequestParams,
    ) -> futures::future::BoxFuture<'_, Result<rmcp::model::ElicitResult, rmcp::ErrorData>> {
        Box::pin(async {
            Ok(
                rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)
                    .with_content(json!({"colour": "teal"})),
            )
        })
    }

    // Sampling is deprecated in the newest revision; a server of an older one may still ask.
    #[allow(deprecated)]
    fn sample(
        &self,
        _params: rmcp::model::CreateMessageRequestParams,
    ) -> futures::future::BoxFuture<'_, Result<rmcp::model::CreateMessageResult, rmcp::ErrorData>>
    {
        Box::pin(async { Err(rmcp::ErrorData::invalid_request("no sampling here", None)) })
    }
}

struct AnswersTeal;

impl switchboard_agent::tasks::TaskAsker for AnswersTeal {
    fn requester<'a>(
        &'a self,
        _task: &'a switchboard_store::StoredTask,
        _server: &'a switchboard_core::ServerSpec,
        _cancel: tokio_util::sync::CancellationToken,
    ) -> futures::future::BoxFuture<'a, Option<switchboard_mcp::Requester>> {
        Box::pin(async { Some(std::sync::Arc::new(Teal) as switchboard_mcp::Requester) })
    }
}

/// A server's task that waits on input asks its question on `tasks/result`, which is held
/// open for it: with no one to answer for the task, the question is declined (as during a
/// plain call) and the tool goes on; with someone, their answer reaches the tool.
#[tokio::test]
async fn a_tasks_question_is_answered_or_declined() {
    let api = start().await;
    let server = add_server(&api, &api.admin, tasks_peer()).await;
    let mut events = api.app.agent.events().subscribe();
    let path = format!("/api/mcp/proxy/{server}/tools/ask_task/call");
    let task = start_task(&api, &path, json!({})).await;
    let done = ended(&api, &mut events, task["taskId"].as_str().unwrap()).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"], "told decline",
        "{done}"
    );

    api.app.tasks.add_asker(std::sync::Arc::new(AnswersTeal));
    let task = start_task(&api, &path, json!({})).await;
    let done = ended(&api, &mut events, task["taskId"].as_str().unwrap()).await;
    assert_eq!(done["result"]["content"][0]["text"], "told teal", "{done}");
    api.manager.shutdown().await;
}

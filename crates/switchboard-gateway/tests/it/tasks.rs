//! Tasks for the gateway's clients (the 2026-07-28 tasks extension), end to end: a client that
//! declares the extension gets our task for a tool its server runs as a task, and for any
//! tool a view says to run as one (`always`, or `slow` once it was slow), polls it to its
//! end and can cancel it (the server is told); a task is found only by the person and the
//! view that started it; a client that does not declare the extension waits for the result
//! as before. Real parts as in `tools.rs`: server-everything and the Python SDK's servers
//! over stdio, the gateway over Streamable HTTP, an rmcp client.

#![allow(clippy::unwrap_used)]

use rmcp::model::{CallToolResponse, TaskPayload, TaskStatus as WireStatus};
use serde_json::{Value, json};
use switchboard_core::{RunAsTask, ServerSpec, ViewServer, ViewSpec, ViewTasks};
use switchboard_gateway::GatewayConfig;
use switchboard_store::{StoredView, TaskKind, TaskOrigin, User};

use crate::tasks_support::{TaskClient, add_everything, add_tasks_peer, code};
use crate::tools_support::World;

const INVALID_PARAMS: i32 = -32602;
const MISSING_CLIENT_CAPABILITY: i32 = -32021;

/// Stores a view `name` of `user`'s over `server`, with `tasks` settings.
async fn view(
    world: &World,
    user: &User,
    name: &str,
    server: &ServerSpec,
    tasks: Option<ViewTasks>,
) -> StoredView {
    let spec = ViewSpec {
        tool_exposure: Default::default(),
        pinned_tools: Vec::new(),
        name: name.to_owned(),
        description: None,
        assistant_id: None,
        servers: vec![ViewServer {
            server_id: server.id.clone(),
            tools: None,
            prefix: None,
        }],
        tasks,
    };
    world.store.create_view(&user.id, &spec).await.unwrap()
}

fn run_as(run_as_task: RunAsTask, slow_after_secs: Option<u32>) -> Option<ViewTasks> {
    Some(ViewTasks {
        run_as_task,
        slow_after_secs,
    })
}

/// The text of an ended task's result.
fn result_text(payload: &TaskPayload) -> String {
    let TaskPayload::Completed { result } = payload else {
        panic!("a completed task expected, got {payload:?}");
    };
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

fn complete_text(response: CallToolResponse) -> String {
    let CallToolResponse::Complete(result) = response else {
        panic!("a result expected, got {response:?}");
    };
    result.content[0].as_text().unwrap().text.clone()
}

#[tokio::test]
async fn a_tool_its_server_runs_as_a_task_is_passed_through_as_ours() {
    let mut world = World::new(GatewayConfig::default()).await;
    let alice = world.alice.clone();
    add_everything(&world, &alice, &["simulate-research-query"]).await;
    let mut events = world.events.subscribe();
    let client = TaskClient::connect(&world.serve(&alice).await, true).await;

    let created = client
        .start(
            "mcp__everything__simulate-research-query",
            json!({"topic": "tasks"}),
        )
        .await;
    let id = created.task.task_id.clone();
    assert!(id.starts_with("tsk_"), "{id}");
    assert_eq!(created.task.status, WireStatus::Working);
    assert!(created.task.poll_interval_ms.unwrap() >= 1000);
    assert_eq!(created.task.ttl_ms, None, "we keep it as long as it takes");
    let kept = world.store.task(&alice.id, &id).await.unwrap();
    let upstream = kept.upstream_id.clone().unwrap();
    assert!(!serde_json::to_string(&created).unwrap().contains(&upstream));
    assert_eq!(
        (kept.origin, kept.kind, kept.view_id),
        (TaskOrigin::Gateway, TaskKind::Legacy, None)
    );

    let ended = client.ended(&mut events, &id).await;
    assert_eq!(ended.status(), WireStatus::Completed);
    let report = result_text(&ended.payload);
    assert!(report.contains("# Research Report: tasks"), "{report}");
}

#[tokio::test]
async fn a_view_runs_any_tool_as_a_task_when_it_says_always() {
    let mut world = World::new(GatewayConfig::default()).await;
    let alice = world.alice.clone();
    let py = world.add_py(&alice, "py", &["echo"]).await;
    let background = view(
        &world,
        &alice,
        "background",
        &py,
        run_as(RunAsTask::Always, None),
    )
    .await;
    let mut events = world.events.subscribe();
    let url = world.serve_view(&alice, "background").await;
    let client = TaskClient::connect(&url, true).await;

    let created = client
        .start("mcp__py__echo", json!({"text": "later"}))
        .await;
    let id = created.task.task_id;
    let kept = world.store.task(&alice.id, &id).await.unwrap();
    assert_eq!(kept.kind, TaskKind::Local);
    assert_eq!(kept.view_id, Some(background.id));
    let ended = client.ended(&mut events, &id).await;
    assert_eq!(result_text(&ended.payload), "later");

    // A client that does not accept tasks waits for the result, as before.
    let waiting = TaskClient::connect(&url, false).await;
    let answered = waiting.call("mcp__py__echo", json!({"text": "now"})).await;
    assert_eq!(complete_text(answered), "now");
}

#[tokio::test]
async fn a_plain_tool_is_answered_at_once_unless_the_view_says_otherwise() {
    let mut world = World::new(GatewayConfig::default()).await;
    let alice = world.alice.clone();
    let py = world.add_py(&alice, "py", &["echo", "slow"]).await;
    view(
        &world,
        &alice,
        "when-slow",
        &py,
        run_as(RunAsTask::Slow, Some(1)),
    )
    .await;
    let mut events = world.events.subscribe();

    // `/mcp` runs no tool as a task of ours.
    let everything = TaskClient::connect(&world.serve(&alice).await, true).await;
    let echoed = everything
        .call("mcp__py__echo", json!({"text": "hi"}))
        .await;
    assert_eq!(complete_text(echoed), "hi");

    // `slow`: a tool is waited for until one of its calls took the threshold or more.
    let client = TaskClient::connect(&world.serve_view(&alice, "when-slow").await, true).await;
    let first = client.call("mcp__py__slow", json!({"seconds": 1.1})).await;
    assert!(matches!(first, CallToolResponse::Complete(_)), "{first:?}");
    let echoed = client.call("mcp__py__echo", json!({"text": "fast"})).await;
    assert_eq!(complete_text(echoed), "fast");
    let created = client.start("mcp__py__slow", json!({"seconds": 0.1})).await;
    let ended = client.ended(&mut events, &created.task.task_id).await;
    assert_eq!(ended.status(), WireStatus::Completed);
}

#[tokio::test]
async fn cancelling_a_task_reaches_its_server() {
    let mut world = World::new(GatewayConfig::default()).await;
    let alice = world.alice.clone();
    add_tasks_peer(&world, &alice).await;
    let mut events = world.events.subscribe();
    let client = TaskClient::connect(&world.serve(&alice).await, true).await;

    let created = client
        .start("mcp__tasks__slow_task", json!({"seconds": 60}))
        .await;
    let id = created.task.task_id;
    client.cancel(&id).await.unwrap();
    let ended = client.ended(&mut events, &id).await;
    assert_eq!(ended.status(), WireStatus::Cancelled);
    // Cancelling an ended task leaves it as it ended.
    client.cancel(&id).await.unwrap();
    assert_eq!(
        client.get(&id).await.unwrap().status(),
        WireStatus::Cancelled
    );
    let count = client
        .call("mcp__tasks__task_cancelled_count", json!({}))
        .await;
    assert_eq!(complete_text(count), "1");
}

#[tokio::test]
async fn a_task_is_found_only_by_its_person_through_its_view() {
    let mut world = World::new(GatewayConfig::default()).await;
    let (alice, bob) = (world.alice.clone(), world.bob.clone());
    let py = world.add_py(&alice, "py", &["echo"]).await;
    let always = run_as(RunAsTask::Always, None);
    view(&world, &alice, "one", &py, always).await;
    view(&world, &alice, "two", &py, always).await;
    let bobs = world.add_py(&bob, "py", &["echo"]).await;
    view(&world, &bob, "one", &bobs, always).await;
    let mut events = world.events.subscribe();
    let one = TaskClient::connect(&world.serve_view(&alice, "one").await, true).await;

    let id = one
        .start("mcp__py__echo", json!({"text": "mine"}))
        .await
        .task
        .task_id;
    let ended = one.ended(&mut events, &id).await;
    assert_eq!(result_text(&ended.payload), "mine");

    let elsewhere = [
        world.serve(&alice).await,
        world.serve_view(&alice, "two").await,
        world.serve(&bob).await,
        world.serve_view(&bob, "one").await,
    ];
    for url in &elsewhere {
        let client = TaskClient::connect(url, true).await;
        let refused = client.get(&id).await.unwrap_err();
        assert_eq!(code(&refused), Some(INVALID_PARAMS), "{url}: {refused}");
        let refused = client.cancel(&id).await.unwrap_err();
        assert_eq!(code(&refused), Some(INVALID_PARAMS), "{url}: {refused}");
    }
    let unknown = one.get("tsk_00000000-0000-0000-0000-000000000000").await;
    assert_eq!(code(&unknown.unwrap_err()), Some(INVALID_PARAMS));
    // No task takes input through the gateway yet.
    let refused = one.update(&id).await.unwrap_err();
    assert_eq!(code(&refused), Some(INVALID_PARAMS), "{refused}");
    // A client that did not declare the extension is told it must.
    let undeclared = TaskClient::connect(&world.serve_view(&alice, "one").await, false).await;
    let refused = undeclared.get(&id).await.unwrap_err();
    assert_eq!(code(&refused), Some(MISSING_CLIENT_CAPABILITY), "{refused}");
}

#[tokio::test]
async fn the_gateway_declares_the_tasks_extension() {
    let mut world = World::new(GatewayConfig::default()).await;
    let alice = world.alice.clone();
    let client = TaskClient::connect(&world.serve(&alice).await, true).await;
    let info = client.service.peer_info().unwrap();
    let declared: Value = serde_json::to_value(&info.capabilities).unwrap();
    assert!(
        declared["extensions"]
            .get("io.modelcontextprotocol/tasks")
            .is_some(),
        "{declared}"
    );
}

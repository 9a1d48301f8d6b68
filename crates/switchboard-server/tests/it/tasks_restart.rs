//! Tasks across a restart: the process that starts after `serve` stopped (here a second
//! application on the same store) takes up the tasks the first one left. A task of a server
//! that did not outlive the restart (a stdio server ends with its host) ends `TASK_LOST`; a
//! call that ran in the background here ends `TASK_INTERRUPTED`, since it cannot be known
//! whether it took effect.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_agent::AgentEvent;
use switchboard_agent::tasks::TaskOutcome;
use switchboard_app::{App, AppConfig};
use switchboard_core::{ErrorCode, OwnerId};
use switchboard_store::{StoreConfig, TaskStatus};
use switchboard_testkit::{Peers, PyGen};

use crate::common::{Api, everything, manager_config, start};

async fn add_server(api: &Api, server: Value) -> String {
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.admin),
            Some(server),
        )
        .await;
    assert!(status.is_success(), "{status} {body}");
    body["id"].as_str().unwrap().to_owned()
}

/// Starts a call as a task through the proxy; its id.
async fn start_task(api: &Api, server: &str, tool: &str, arguments: Value) -> String {
    let (status, task) = api
        .send(
            Method::POST,
            &format!("/api/mcp/proxy/{server}/tools/{tool}/call?mode=task"),
            Some(&api.admin),
            Some(arguments),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{task}");
    task["taskId"].as_str().unwrap().to_owned()
}

/// Stops the first application and starts a second on its store, following tasks; waits
/// for task `id` to end there and answers its code.
async fn ended_after_restart(api: Api, owner: &OwnerId, id: &str) -> ErrorCode {
    api.app.shutdown(Duration::ZERO).await;
    let app = Arc::new(
        App::build(
            &StoreConfig::in_dir(api.dir()),
            AppConfig {
                manager: manager_config(),
                ..AppConfig::default()
            },
        )
        .await
        .unwrap(),
    );
    let mut events = app.agent.events().subscribe();
    app.tasks.start();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .expect("the task ends within a minute of the restart")
            .unwrap();
        if let AgentEvent::TaskUpdated(task) = &event.event
            && task.task_id == id
            && task.status == "failed"
        {
            break;
        }
    }
    let task = app.tasks.task(owner, id).await.unwrap();
    assert_eq!(task.status, TaskStatus::Failed);
    let code = match TaskOutcome::from_value(task.outcome.as_ref().unwrap()).unwrap() {
        TaskOutcome::Error { code, .. } => code,
        other => panic!("not an error: {other:?}"),
    };
    app.shutdown(Duration::ZERO).await;
    code
}

#[tokio::test]
async fn a_task_of_a_server_that_ended_with_serve_is_lost() {
    let api = start().await;
    let owner = api
        .store
        .user_by_token(&api.admin)
        .await
        .unwrap()
        .unwrap()
        .id;
    let server = add_server(
        &api,
        json!({
            "name": "Tasks",
            "transport": "stdio",
            "command": Peers::locate().python(PyGen::V1),
            "args": [format!(
                "{}/../switchboard-mcp/tests/peers/tasks_server.py",
                env!("CARGO_MANIFEST_DIR")
            )],
        }),
    )
    .await;
    let mut events = api.app.agent.events().subscribe();
    let id = start_task(&api, &server, "slow_task", json!({"seconds": 600})).await;
    // Once the server runs it as its task, stop.
    loop {
        if api
            .app
            .tasks
            .task(&owner, &id)
            .await
            .unwrap()
            .upstream_id
            .is_some()
        {
            break;
        }
        tokio::time::timeout(Duration::from_secs(60), events.recv())
            .await
            .expect("the server's task is kept within a minute")
            .unwrap();
    }
    assert_eq!(
        ended_after_restart(api, &owner, &id).await,
        ErrorCode::TaskLost
    );
}

#[tokio::test]
async fn a_background_call_cut_short_by_a_restart_is_interrupted() {
    let api = start().await;
    let owner = api
        .store
        .user_by_token(&api.admin)
        .await
        .unwrap()
        .unwrap()
        .id;
    add_server(&api, everything()).await;
    let id = start_task(
        &api,
        "everything",
        "trigger-long-running-operation",
        json!({"duration": 600, "steps": 2}),
    )
    .await;
    assert_eq!(
        ended_after_restart(api, &owner, &id).await,
        ErrorCode::TaskInterrupted
    );
}

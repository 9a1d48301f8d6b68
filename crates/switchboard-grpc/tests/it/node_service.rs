//! The node's gRPC service against real stdio servers (the npm reference server and the Python
//! SDK's), through the generated client: tools, calls with progress and cancellation,
//! resources and prompts, health and the status watch, and requests it must refuse.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use serde_json::{Value, json};
use switchboard_grpc::pb::{self, call_tool_event::Event};
use switchboard_testkit::process;

fn json_of(reply: pb::JsonReply) -> Value {
    match reply.outcome.unwrap() {
        pb::json_reply::Outcome::Json(json) => serde_json::from_slice(&json).unwrap(),
        pb::json_reply::Outcome::Error(error) => panic!("node error: {error:?}"),
    }
}

fn tools_of(response: pb::GetToolsResponse) -> (Vec<String>, u64, pb::ServerStatus) {
    match response.outcome.unwrap() {
        pb::get_tools_response::Outcome::Tools(list) => {
            let tools: Vec<Value> = serde_json::from_slice(&list.tools_json).unwrap();
            let names = tools
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_owned())
                .collect();
            (names, list.generation, list.status.unwrap())
        }
        pb::get_tools_response::Outcome::Error(error) => panic!("node error: {error:?}"),
    }
}

#[tokio::test]
async fn get_tools_lists_every_tool_with_the_connections_status() {
    let node = start(options()).await;
    let mut host = client(node.address).await;
    for (spec, expected) in [
        (py1(), ["echo", "long_task", "cancelled_count", "pid"]),
        (
            everything(),
            [
                "echo",
                "get-sum",
                "get-tiny-image",
                "trigger-long-running-operation",
            ],
        ),
    ] {
        let request = pb::GetToolsRequest {
            server: Some(server_ref(&spec)),
        };
        let (names, generation, status) =
            tools_of(host.get_tools(request.clone()).await.unwrap().into_inner());
        for tool in expected {
            assert!(
                names.iter().any(|n| n == tool),
                "{tool} missing from {names:?}"
            );
        }
        assert_eq!(status.status, "connected");
        assert_eq!(status.server_id, spec.id.0);
        assert_eq!(status.owner, owner().0);
        assert!(!status.details_json.is_empty(), "the server's details");
        // The same list again: the same generation.
        let (_, again, _) = tools_of(host.get_tools(request).await.unwrap().into_inner());
        assert_eq!(again, generation);
    }
    node.stop().await.unwrap();
}

#[tokio::test]
async fn call_tool_returns_the_result() {
    let node = start(options()).await;
    let mut host = client(node.address).await;
    let echoed = call(
        &mut host,
        server_ref(&everything()),
        "echo",
        json!({"message": "hi there"}),
    )
    .await;
    assert!(result_text(&echoed).contains("hi there"), "{echoed:?}");
    let added = call(
        &mut host,
        server_ref(&py1()),
        "add",
        json!({"a": 2, "b": 3}),
    )
    .await;
    assert!(result_text(&added).contains('5'), "{added:?}");
    // A tool's own failure is a result with isError, not a node error.
    let failed = call(&mut host, server_ref(&py1()), "fail", json!({})).await;
    let Event::ResultJson(json) = &failed else {
        panic!("{failed:?}")
    };
    let failed: Value = serde_json::from_slice(json).unwrap();
    assert_eq!(failed["isError"], json!(true));
    node.stop().await.unwrap();
}

#[tokio::test]
async fn an_unknown_tool_is_a_node_error_with_its_kind() {
    let node = start(options()).await;
    let mut host = client(node.address).await;
    let error = error_of(call(&mut host, server_ref(&py1()), "no_such_tool", json!({})).await);
    assert_eq!(error.kind, "tool_not_found", "{error:?}");
    assert_eq!(error.code, "MCP_TOOL_NOT_FOUND");
    node.stop().await.unwrap();
}

#[tokio::test]
async fn progress_arrives_before_the_result() {
    let node = start(options()).await;
    let mut host = client(node.address).await;
    let start = start_message(
        server_ref(&py1()),
        "long_task",
        json!({"steps": 3, "step_ms": 20}),
    );
    let (progress, outcome) = OpenCall::open(&mut host, start).await.finish().await;
    let steps: Vec<f64> = progress.iter().map(|p| p.progress).collect();
    assert_eq!(steps, vec![1.0, 2.0, 3.0]);
    assert_eq!(progress[2].total, Some(3.0));
    assert_eq!(progress[0].message.as_deref(), Some("step 1 of 3"));
    assert!(result_text(&outcome).contains("done after 3 steps"));
    node.stop().await.unwrap();
}

/// Asks the Python peer's `cancelled_count` until it says `expected` (the server handles
/// `notifications/cancelled` on its own time; each ask is a round trip, not a sleep).
async fn assert_server_saw_cancellations(host: &mut Client, server: &pb::ServerRef, expected: u32) {
    let mut seen = String::new();
    for _ in 0..100 {
        seen = result_text(&call(host, server.clone(), "cancelled_count", json!({})).await);
        if seen.trim() == expected.to_string() {
            return;
        }
    }
    panic!("the server saw {seen} cancellations, not {expected}");
}

#[tokio::test]
async fn a_cancel_reaches_the_server_and_the_server_stays_usable() {
    let node = start(options()).await;
    let mut host = client(node.address).await;
    let server = server_ref(&py1());
    let long = json!({"steps": 1000, "step_ms": 50});
    let mut call_in_flight =
        OpenCall::open(&mut host, start_message(server.clone(), "long_task", long)).await;
    // The first progress report proves the tool runs at the server.
    assert!(matches!(
        call_in_flight.next().await,
        Some(Event::Progress(_))
    ));
    call_in_flight.host.send(cancel_message()).await.unwrap();
    let (_, outcome) = call_in_flight.finish().await;
    let error = error_of(outcome);
    assert_eq!(error.kind, "cancelled", "{error:?}");
    assert_eq!(error.code, "CANCELLED");
    assert_server_saw_cancellations(&mut host, &server, 1).await;
    let echoed = call(&mut host, server, "echo", json!({"text": "still here"})).await;
    assert!(result_text(&echoed).contains("still here"));
    node.stop().await.unwrap();
}

#[tokio::test]
async fn a_host_that_drops_the_call_cancels_it_at_the_server() {
    let node = start(options()).await;
    let mut host = client(node.address).await;
    let server = server_ref(&py1());
    let long = json!({"steps": 1000, "step_ms": 50});
    let mut call_in_flight =
        OpenCall::open(&mut host, start_message(server.clone(), "long_task", long)).await;
    assert!(matches!(
        call_in_flight.next().await,
        Some(Event::Progress(_))
    ));
    drop(call_in_flight);
    assert_server_saw_cancellations(&mut host, &server, 1).await;
    node.stop().await.unwrap();
}

#[tokio::test]
async fn a_host_that_ends_its_half_cancels_the_call() {
    let node = start(options()).await;
    let mut host = client(node.address).await;
    let server = server_ref(&py1());
    let long = json!({"steps": 1000, "step_ms": 50});
    let mut call_in_flight =
        OpenCall::open(&mut host, start_message(server.clone(), "long_task", long)).await;
    assert!(matches!(
        call_in_flight.next().await,
        Some(Event::Progress(_))
    ));
    let OpenCall { host: half, events } = call_in_flight;
    drop(half);
    let (_, outcome) = OpenCall {
        host: tokio::sync::mpsc::channel(1).0,
        events,
    }
    .finish()
    .await;
    assert_eq!(error_of(outcome).kind, "cancelled");
    assert_server_saw_cancellations(&mut host, &server, 1).await;
    node.stop().await.unwrap();
}

#[tokio::test]
async fn resources_prompts_and_test_connection_answer_mcp_json() {
    let node = start(options()).await;
    let mut host = client(node.address).await;
    let server = server_ref(&everything());
    let request = pb::ServerRequest {
        server: Some(server.clone()),
    };
    let resources = json_of(
        host.list_resources(request.clone())
            .await
            .unwrap()
            .into_inner(),
    );
    let uri = resources
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .find(|uri| uri.starts_with("demo://resource/static/document/"))
        .unwrap()
        .to_owned();
    let read = json_of(
        host.read_resource(pb::ReadResourceRequest {
            server: Some(server.clone()),
            uri: uri.clone(),
        })
        .await
        .unwrap()
        .into_inner(),
    );
    assert_eq!(read["contents"][0]["uri"], json!(uri));
    let prompts = json_of(
        host.list_prompts(request.clone())
            .await
            .unwrap()
            .into_inner(),
    );
    assert!(
        prompts
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "simple-prompt")
    );
    let prompt = json_of(
        host.get_prompt(pb::GetPromptRequest {
            server: Some(server.clone()),
            name: "simple-prompt".into(),
            arguments_json: Vec::new(),
        })
        .await
        .unwrap()
        .into_inner(),
    );
    assert!(
        prompt["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("simple prompt")
    );
    let report = json_of(host.test_connection(request).await.unwrap().into_inner());
    assert!(
        report["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "echo")
    );
    assert!(report["protocolVersion"].is_string(), "{report}");
    node.stop().await.unwrap();
}

/// The next status event (`synced`, which ends the full state, list changes, resource
/// updates and log lines are skipped).
async fn next_status(watch: &mut tonic::Streaming<pb::WatchEvent>) -> pb::ServerStatus {
    loop {
        let event = tokio::time::timeout(PATIENCE, watch.message())
            .await
            .expect("a watch event in time")
            .unwrap()
            .expect("the watch goes on");
        match event.event.unwrap() {
            pb::watch_event::Event::Status(status) => return status,
            pb::watch_event::Event::Synced(_)
            | pb::watch_event::Event::ListChanged(_)
            | pb::watch_event::Event::ResourceUpdated(_)
            | pb::watch_event::Event::Logged(_) => {}
            pb::watch_event::Event::Lagged(_) => panic!("no lag here"),
        }
    }
}

#[tokio::test]
async fn health_watch_and_disconnect_follow_the_pool() {
    let node = start(options()).await;
    let mut host = client(node.address).await;
    let health = host
        .health(pb::HealthRequest {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(health.version, env!("CARGO_PKG_VERSION"));
    assert_eq!((health.servers, health.processes), (0, 0));

    let mut watch = host.watch(pb::WatchRequest {}).await.unwrap().into_inner();
    let spec = py1();
    let server = server_ref(&spec);
    let first_pid = pid(&mut host, server.clone()).await;
    loop {
        let status = next_status(&mut watch).await;
        assert_eq!(status.server_id, spec.id.0);
        if status.status == "connected" {
            break;
        }
    }
    let health = host
        .health(pb::HealthRequest {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!((health.servers, health.processes), (1, 1));

    // A second watcher gets the full state first.
    let mut second = host.watch(pb::WatchRequest {}).await.unwrap().into_inner();
    let full = next_status(&mut second).await;
    assert_eq!(
        (full.server_id.as_str(), full.status.as_str()),
        (spec.id.0.as_str(), "connected")
    );

    let pgid = node.manager.process_group(&owner(), &spec.id).unwrap();
    host.disconnect(pb::DisconnectRequest {
        owner: owner().0,
        server_id: spec.id.0.clone(),
    })
    .await
    .unwrap();
    loop {
        if next_status(&mut watch).await.status == "disconnected" {
            break;
        }
    }
    assert!(
        process::wait_until_group_gone(pgid, PATIENCE)
            .await
            .is_empty()
    );
    let health = host
        .health(pb::HealthRequest {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(health.processes, 0);
    assert_eq!(
        health.servers, 0,
        "a closed connection's slot is not counted"
    );
    // The next call starts the server again.
    assert_ne!(pid(&mut host, server).await, first_pid);
    node.stop().await.unwrap();
    // The watch ends with the node.
    let ended = tokio::time::timeout(PATIENCE, async {
        loop {
            match watch.message().await {
                Ok(Some(_)) => continue,
                _ => return,
            }
        }
    })
    .await;
    assert!(ended.is_ok());
}

#[tokio::test]
async fn malformed_requests_are_invalid_argument() {
    let node = start(options()).await;
    let mut host = client(node.address).await;
    let no_server = host
        .get_tools(pb::GetToolsRequest { server: None })
        .await
        .unwrap_err();
    assert_eq!(no_server.code(), tonic::Code::InvalidArgument);

    let mut secret = py1();
    secret
        .env
        .insert("API_TOKEN".into(), "sk-very-secret".into());
    let mut bad = server_ref(&secret);
    bad.spec_json.truncate(bad.spec_json.len() - 3);
    let unreadable = host
        .list_prompts(pb::ServerRequest { server: Some(bad) })
        .await
        .unwrap_err();
    assert_eq!(unreadable.code(), tonic::Code::InvalidArgument);
    assert!(
        !unreadable.message().contains("sk-very"),
        "{}",
        unreadable.message()
    );

    let (requests, stream) = tokio::sync::mpsc::channel(1);
    requests.send(cancel_message()).await.unwrap();
    let no_start = host
        .call_tool(tokio_stream::wrappers::ReceiverStream::new(stream))
        .await
        .unwrap_err();
    assert_eq!(no_start.code(), tonic::Code::InvalidArgument);

    let mut not_an_object = start_message(server_ref(&py1()), "echo", json!([1, 2]));
    if let Some(pb::call_tool_request::Message::Start(start)) = &mut not_an_object.message {
        start.arguments_json = b"[1, 2]".to_vec();
    }
    let (requests, stream) = tokio::sync::mpsc::channel(1);
    requests.send(not_an_object).await.unwrap();
    let refused = host
        .call_tool(tokio_stream::wrappers::ReceiverStream::new(stream))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    node.stop().await.unwrap();
}

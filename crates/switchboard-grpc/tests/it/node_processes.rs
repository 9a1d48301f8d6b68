//! The node's stdio processes: hosts sending the same spec share one, a changed spec restarts
//! it, and none is left once the node stopped.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use serde_json::json;
use switchboard_grpc::pb;
use switchboard_testkit::process;

#[tokio::test]
async fn two_hosts_sending_the_same_spec_share_one_process() {
    let node = start(options()).await;
    // Two hosts: two connections (channels) of their own.
    let mut first = client(node.address).await;
    let mut second = client(node.address).await;
    let spec = py1();
    let (a, b) = tokio::join!(
        pid(&mut first, server_ref(&spec)),
        pid(&mut second, server_ref(&spec))
    );
    assert_eq!(a, b);
    assert_eq!(node.manager.process_count(), 1);
    // The version the host computed is accepted as well as none at all.
    let mut versioned = server_ref(&spec);
    versioned.spec_version = "host-computed-version".into();
    assert_eq!(pid(&mut second, versioned).await, a);
    assert_eq!(node.manager.process_count(), 1);
    node.stop().await.unwrap();
}

#[tokio::test]
async fn a_changed_spec_restarts_the_server() {
    let node = start(options()).await;
    let mut host = client(node.address).await;
    let spec = py1();
    let before = pid(&mut host, server_ref(&spec)).await;
    let mut changed = spec.clone();
    changed.env.insert("SOME_SETTING".into(), "2".into());
    let after = pid(&mut host, server_ref(&changed)).await;
    assert_ne!(before, after);
    assert!(
        process::wait_until_gone(&[before], PATIENCE)
            .await
            .is_empty()
    );
    assert_eq!(node.manager.process_count(), 1);
    node.stop().await.unwrap();
}

#[tokio::test]
async fn no_process_group_is_left_once_the_node_stopped() {
    let node = start(options()).await;
    let mut host = client(node.address).await;
    let spec = py1();
    let server = server_ref(&spec);
    pid(&mut host, server.clone()).await;
    // A grandchild in the server's group must go too.
    let grandchild: u32 = result_text(&call(&mut host, server, "spawn_child", json!({})).await)
        .trim()
        .parse()
        .unwrap();
    let pgid = node.manager.process_group(&owner(), &spec.id).unwrap();
    assert!(process::alive(grandchild));
    let health = host
        .health(pb::HealthRequest {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(health.processes, 1);
    node.stop().await.unwrap();
    let left = process::wait_until_group_gone(pgid, PATIENCE).await;
    assert!(
        left.is_empty(),
        "still running after the node stopped: {left:?}"
    );
}

#[tokio::test]
async fn a_call_still_running_when_the_node_stops_ends_and_its_group_goes() {
    let node = start(options()).await;
    let mut host = client(node.address).await;
    let spec = py1();
    let long = json!({"steps": 100_000, "step_ms": 50});
    let mut running = OpenCall::open(
        &mut host,
        start_message(server_ref(&spec), "long_task", long),
    )
    .await;
    assert!(matches!(
        running.next().await,
        Some(pb::call_tool_event::Event::Progress(_))
    ));
    let pgid = node.manager.process_group(&owner(), &spec.id).unwrap();
    let stopped = tokio::spawn(node.stop());
    // After the drain, the server is closed under the call: it ends as lost, or its stream
    // breaks with the connection.
    let outcome = tokio::time::timeout(PATIENCE, async {
        loop {
            match running.events.message().await {
                Ok(Some(pb::CallToolEvent {
                    event: Some(pb::call_tool_event::Event::Progress(_)),
                })) => continue,
                Ok(Some(event)) => return Some(event),
                _ => return None,
            }
        }
    })
    .await
    .expect("the call ends once the node stops");
    if let Some(event) = outcome {
        let error = error_of(event.event.unwrap());
        assert!(
            ["lost_after_send", "connection_lost", "shut_down"].contains(&error.kind.as_str()),
            "{error:?}"
        );
    }
    stopped.await.unwrap().unwrap();
    let left = process::wait_until_group_gone(pgid, PATIENCE).await;
    assert!(
        left.is_empty(),
        "still running after the node stopped: {left:?}"
    );
}

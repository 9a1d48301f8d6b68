//! The tools of a view (`/mcp/v/{name}`) end to end: only the view's servers and tools, under
//! its prefixes; a collision an edit brings in is resolved visibly and reported; a view name
//! of another person's is not found. Real parts as in `tools.rs`.

#![allow(clippy::unwrap_used)]

use crate::tools_support;

use serde_json::json;
use switchboard_core::{ServerSpec, ViewServer, ViewSpec};
use switchboard_gateway::GatewayConfig;
use tools_support::{Client, Revision, World, error_code, text};

const INVALID_PARAMS: i32 = -32602;

fn view(one: &ServerSpec, two: &ServerSpec, prefix_two: &str) -> ViewSpec {
    ViewSpec {
        tool_exposure: Default::default(),
        pinned_tools: Vec::new(),
        tasks: None,
        name: "claude".into(),
        description: None,
        assistant_id: None,
        servers: vec![
            ViewServer {
                server_id: one.id.clone(),
                tools: Some(["echo".to_owned(), "add".to_owned()].into()),
                prefix: Some(String::new()),
            },
            ViewServer {
                server_id: two.id.clone(),
                tools: Some(["echo".to_owned()].into()),
                prefix: Some(prefix_two.to_owned()),
            },
        ],
    }
}

#[tokio::test]
async fn a_view_exports_only_its_tools_under_its_prefixes() {
    let mut world = World::new(GatewayConfig::default()).await;
    let (alice, bob) = (world.alice.clone(), world.bob.clone());
    let one = world
        .add_py(&alice, "one", &["echo", "add", "long_task"])
        .await;
    let two = world.add_py(&alice, "two", &["echo", "add"]).await;
    let stored = world
        .store
        .create_view(&alice.id, &view(&one, &two, "two_"))
        .await
        .unwrap();
    let client = Client::connect(
        &world.serve_view(&alice, "claude").await,
        None,
        Revision::Session,
    )
    .await;

    assert_eq!(client.names().await, ["add", "echo", "two_echo"]);
    let echoed = client
        .call("two_echo", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(text(&echoed), "hi");
    for outside in [
        "mcp__one__long_task",
        "long_task",
        "two_add",
        "mcp__two__add",
    ] {
        let refused = client.call(outside, json!({})).await.unwrap_err();
        assert_eq!(
            error_code(&refused),
            Some(INVALID_PARAMS),
            "{outside}: {refused}"
        );
    }

    // An edit that makes two tools want one name: both stay callable under suffixed names,
    // and the collision is reported.
    world
        .store
        .update_view(&alice.id, &stored.id, &view(&one, &two, ""))
        .await
        .unwrap();
    let names = client.names().await;
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names.contains(&"add".to_owned()), "{names:?}");
    assert!(!names.contains(&"echo".to_owned()), "{names:?}");
    for name in names.iter().filter(|n| n.starts_with("echo_")) {
        let echoed = client.call(name, json!({"text": "both"})).await.unwrap();
        assert_eq!(text(&echoed), "both");
    }
    let collisions = world
        .gateway
        .view_collisions(&alice, &view(&one, &two, ""))
        .await
        .unwrap();
    assert_eq!(collisions.len(), 1);
    assert_eq!(collisions[0].name, "echo");

    // Bob has no view named so: nothing is listed for him through it.
    let as_bob = Client::connect(
        &world.serve_view(&bob, "claude").await,
        None,
        Revision::Session,
    )
    .await;
    let refused = as_bob.service.list_all_tools().await.unwrap_err();
    assert_eq!(error_code(&refused), Some(INVALID_PARAMS), "{refused}");
}

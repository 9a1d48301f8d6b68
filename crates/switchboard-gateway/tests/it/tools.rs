//! The gateway's tools end to end: a real rmcp client over Streamable HTTP on a loopback
//! port, the gateway on a SQLite store and the real connection manager, and upstreams on the
//! official Python SDK over stdio (see `tools_support`).

#![allow(clippy::unwrap_used)]

use crate::tools_support;

use std::time::Duration;

use rmcp::model::{ClientRequest, Request};
use serde_json::json;
use switchboard_core::{ViewServer, ViewSpec};
use switchboard_gateway::{GatewayConfig, Unapproved};
use tools_support::{Answer, Client, Revision, World, error_code, text};

const INVALID_PARAMS: i32 = -32602;
/// Bounds every wait on an event, so a broken test fails instead of hanging.
const WAIT: Duration = Duration::from_secs(30);

fn refuse() -> GatewayConfig {
    GatewayConfig::default()
}

#[tokio::test]
async fn tools_are_exported_with_names_annotations_output_schemas_and_icons() {
    let mut world = World::new(refuse()).await;
    let alice = world.alice.clone();
    world.add_py(&alice, "py", &["echo", "add"]).await;
    world.add_icons(&alice).await;
    let client = Client::connect(&world.serve(&alice).await, None, Revision::Session).await;

    let tools = client.tools().await;
    let find = |name: &str| {
        tools.iter().find(|t| t.name == name).unwrap_or_else(|| {
            panic!(
                "{name} in {:?}",
                tools.iter().map(|t| &t.name).collect::<Vec<_>>()
            )
        })
    };
    let echo = find("mcp__py__echo");
    assert_eq!(
        echo.description.as_deref(),
        Some("Return the text unchanged.")
    );
    assert_eq!(
        echo.annotations.as_ref().and_then(|a| a.read_only_hint),
        Some(true)
    );
    assert!(echo.input_schema.get("properties").is_some());
    let add = find("mcp__py__add");
    assert!(add.output_schema.is_some(), "{add:?}");
    let pictured = find("mcp__icons__pictured");
    let icons = pictured.icons.as_ref().expect("icons exported");
    assert_eq!(icons[0].src, "data:image/png;base64,iVBORw0KGgo=");
    assert_eq!(icons[0].mime_type.as_deref(), Some("image/png"));
    assert_eq!(icons[0].sizes.as_deref(), Some(&["16x16".to_owned()][..]));

    let sum = client
        .call("mcp__py__add", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert_ne!(sum.is_error, Some(true), "{sum:?}");
    assert_eq!(sum.structured_content, Some(json!({"result": 5.0})));
    let echoed = client
        .call("mcp__py__echo", json!({"text": "hello"}))
        .await
        .unwrap();
    assert_eq!(text(&echoed), "hello");
}

#[tokio::test]
async fn a_disabled_tool_or_server_is_neither_listed_nor_callable() {
    let mut world = World::new(refuse()).await;
    let alice = world.alice.clone();
    let py = world.add_py(&alice, "py", &["echo", "add"]).await;
    let client = Client::connect(&world.serve(&alice).await, None, Revision::Session).await;
    assert!(client.names().await.contains(&"mcp__py__echo".to_owned()));

    world
        .edit(&alice, &py, |spec| {
            spec.disabled_tools.insert("echo".into());
        })
        .await;
    let names = client.names().await;
    assert!(!names.contains(&"mcp__py__echo".to_owned()), "{names:?}");
    assert!(names.contains(&"mcp__py__add".to_owned()), "{names:?}");
    let refused = client
        .call("mcp__py__echo", json!({"text": "x"}))
        .await
        .unwrap_err();
    assert_eq!(error_code(&refused), Some(INVALID_PARAMS), "{refused}");
    assert!(refused.to_string().contains("mcp__py__echo"), "{refused}");

    world.edit(&alice, &py, |spec| spec.enabled = false).await;
    assert!(client.names().await.is_empty());
    let refused = client
        .call("mcp__py__add", json!({"a": 1, "b": 2}))
        .await
        .unwrap_err();
    assert_eq!(error_code(&refused), Some(INVALID_PARAMS), "{refused}");
}

#[tokio::test]
async fn another_users_tools_are_invisible_and_not_callable() {
    let mut world = World::new(refuse()).await;
    let (alice, bob) = (world.alice.clone(), world.bob.clone());
    world.add_py(&alice, "mine", &["echo"]).await;
    world.add_py(&bob, "bobs", &["echo"]).await;
    let as_alice = Client::connect(&world.serve(&alice).await, None, Revision::Session).await;
    let as_bob = Client::connect(&world.serve(&bob).await, None, Revision::Session).await;

    let alices = as_alice.names().await;
    assert!(
        alices.iter().all(|n| n.starts_with("mcp__mine__")),
        "{alices:?}"
    );
    let bobs = as_bob.names().await;
    assert!(bobs.contains(&"mcp__bobs__echo".to_owned()), "{bobs:?}");
    let refused = as_alice
        .call("mcp__bobs__echo", json!({"text": "x"}))
        .await
        .unwrap_err();
    assert_eq!(error_code(&refused), Some(INVALID_PARAMS), "{refused}");
}

#[tokio::test]
async fn progress_reaches_the_client_and_cancelling_cancels_upstream() {
    let mut world = World::new(refuse()).await;
    let alice = world.alice.clone();
    world
        .add_py(&alice, "py", &["long_task", "cancelled_count"])
        .await;
    let mut client = Client::connect(&world.serve(&alice).await, None, Revision::Session).await;

    // Progress: three steps, each forwarded with the client's own token.
    let mut params = rmcp::model::CallToolRequestParams::new("mcp__py__long_task");
    params.arguments = json!({"steps": 3, "step_ms": 1}).as_object().cloned();
    let handle = client
        .service
        .send_cancellable_request(
            ClientRequest::CallToolRequest(Request::new(params)),
            rmcp::service::PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    let token = handle.progress_token.clone();
    let response = tokio::time::timeout(WAIT, handle.await_response())
        .await
        .unwrap()
        .unwrap();
    assert!(
        format!("{response:?}").contains("done after 3 steps"),
        "{response:?}"
    );
    // The gateway coalesces progress that arrives while a send is slow (the latest wins), so
    // under load a step may be skipped: the steps seen only rise, and the last is the third.
    let mut last = 0.0;
    while last < 3.0 {
        let progress = tokio::time::timeout(WAIT, client.progress.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(progress.progress_token, token);
        assert!(progress.progress > last, "{progress:?} after {last}");
        assert_eq!(progress.total, Some(3.0));
        last = progress.progress;
    }
    assert_eq!(last, 3.0);

    // Cancellation: a long call, cancelled once its first progress arrived, is cancelled on
    // the server (which counts the calls it saw cancelled).
    let mut params = rmcp::model::CallToolRequestParams::new("mcp__py__long_task");
    params.arguments = json!({"steps": 1000, "step_ms": 20}).as_object().cloned();
    let handle = client
        .service
        .send_cancellable_request(
            ClientRequest::CallToolRequest(Request::new(params)),
            rmcp::service::PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    tokio::time::timeout(WAIT, client.progress.recv())
        .await
        .unwrap()
        .unwrap();
    handle.cancel(Some("test".into())).await.unwrap();
    let counted = tokio::time::timeout(WAIT, async {
        loop {
            let count = client
                .call("mcp__py__cancelled_count", json!({}))
                .await
                .unwrap();
            if text(&count) == "1" {
                break;
            }
            tokio::task::yield_now().await;
        }
    })
    .await;
    assert!(counted.is_ok(), "the upstream never saw the call cancelled");
}

#[tokio::test]
async fn approval_by_elicitation_approves_and_rejects() {
    let mut world = World::new(refuse()).await;
    let alice = world.alice.clone();
    let mut py = world.add_py(&alice, "py", &[]).await;
    world
        .edit(&alice, &py, |spec| {
            spec.env
                .insert("API_TOKEN".into(), "tok-very-secret-42".into());
            spec.secret_env.insert("API_TOKEN".into());
        })
        .await;
    py = world
        .store
        .connection_spec(&alice.id, &py.id)
        .await
        .unwrap();
    assert!(py.secret_env.contains("API_TOKEN"));
    let client = Client::connect(
        &world.serve(&alice).await,
        Some(Answer::Approve),
        Revision::Session,
    )
    .await;

    let ran = client
        .call("mcp__py__echo", json!({"text": "sent tok-very-secret-42"}))
        .await
        .unwrap();
    // The pool masks a secret in what comes back, too.
    assert!(text(&ran).starts_with("sent "), "{}", text(&ran));
    let asked = client.seen.elicitations.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(
        asked[0].contains("`echo`") && asked[0].contains("`py`"),
        "{}",
        asked[0]
    );
    assert!(
        asked[0].contains("sent"),
        "the arguments are shown: {}",
        asked[0]
    );
    assert!(
        !asked[0].contains("tok-very-secret-42"),
        "secrets masked: {}",
        asked[0]
    );

    for answer in [Answer::Disapprove, Answer::Decline] {
        client.set_answer(answer);
        let rejected = client
            .call("mcp__py__echo", json!({"text": "no"}))
            .await
            .unwrap();
        assert_eq!(rejected.is_error, Some(true), "{answer:?}");
        assert!(
            text(&rejected).contains("rejected by the user"),
            "{}",
            text(&rejected)
        );
    }
}

#[tokio::test]
async fn without_elicitation_the_configuration_refuses_or_runs() {
    let mut world = World::new(refuse()).await;
    let alice = world.alice.clone();
    world.add_py(&alice, "py", &[]).await;
    let client = Client::connect(&world.serve(&alice).await, None, Revision::Session).await;
    let refused = client
        .call("mcp__py__echo", json!({"text": "x"}))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    let words = text(&refused);
    assert!(
        words.contains("needs approval") && words.contains("autoApprovedTools"),
        "{words}"
    );

    let mut world = World::new(GatewayConfig {
        unapproved: Unapproved::Run,
        ..GatewayConfig::default()
    })
    .await;
    let alice = world.alice.clone();
    world.add_py(&alice, "py", &[]).await;
    let client = Client::connect(&world.serve(&alice).await, None, Revision::Session).await;
    let ran = client
        .call("mcp__py__echo", json!({"text": "x"}))
        .await
        .unwrap();
    assert_eq!(text(&ran), "x");
}

#[tokio::test]
async fn stateless_approval_goes_through_an_input_required_result() {
    let mut world = World::new(refuse()).await;
    let alice = world.alice.clone();
    world.add_py(&alice, "py", &[]).await;
    let client = Client::connect(
        &world.serve(&alice).await,
        Some(Answer::Approve),
        Revision::Stateless,
    )
    .await;
    let ran = client
        .call("mcp__py__echo", json!({"text": "stateless"}))
        .await
        .unwrap();
    assert_eq!(text(&ran), "stateless");
    assert_eq!(client.seen.elicitations.lock().unwrap().len(), 1);

    client.set_answer(Answer::Decline);
    let rejected = client
        .call("mcp__py__echo", json!({"text": "no"}))
        .await
        .unwrap();
    assert_eq!(rejected.is_error, Some(true));
    assert!(text(&rejected).contains("rejected by the user"));
}

#[tokio::test]
async fn invalid_arguments_are_a_tool_error() {
    let mut world = World::new(refuse()).await;
    let alice = world.alice.clone();
    world.add_py(&alice, "py", &["add"]).await;
    let client = Client::connect(&world.serve(&alice).await, None, Revision::Session).await;
    let invalid = client
        .call("mcp__py__add", json!({"a": "two"}))
        .await
        .unwrap();
    assert_eq!(invalid.is_error, Some(true), "{invalid:?}");
    let unknown = client.call("nope", json!({})).await.unwrap_err();
    assert_eq!(error_code(&unknown), Some(INVALID_PARAMS));
}

#[tokio::test]
async fn collisions_of_a_view_are_reported() {
    let world = World::new(refuse()).await;
    let alice = world.alice.clone();
    let one = world.add_py(&alice, "one", &[]).await;
    let two = world.add_py(&alice, "two", &[]).await;
    let view = |prefix_two: Option<&str>| ViewSpec {
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
                prefix: prefix_two.map(str::to_owned),
            },
        ],
    };
    let collisions = world
        .gateway
        .view_collisions(&alice, &view(Some("")))
        .await
        .unwrap();
    assert_eq!(collisions.len(), 1, "{collisions:?}");
    assert_eq!(collisions[0].name, "echo");
    assert_eq!(
        collisions[0].tools,
        [
            ("one".to_owned(), "echo".to_owned()),
            ("two".to_owned(), "echo".to_owned())
        ]
    );
    let none = world
        .gateway
        .view_collisions(&alice, &view(Some("two_")))
        .await
        .unwrap();
    assert!(none.is_empty(), "{none:?}");
    let templated = world
        .gateway
        .view_collisions(&alice, &view(None))
        .await
        .unwrap();
    assert!(templated.is_empty(), "{templated:?}");
}

#[tokio::test]
async fn progress_reaches_a_stateless_client() {
    let mut world = World::new(refuse()).await;
    let alice = world.alice.clone();
    world.add_py(&alice, "py", &["long_task"]).await;
    let mut client = Client::connect(&world.serve(&alice).await, None, Revision::Stateless).await;
    let mut params = rmcp::model::CallToolRequestParams::new("mcp__py__long_task");
    params.arguments = json!({"steps": 2, "step_ms": 1}).as_object().cloned();
    let handle = client
        .service
        .send_cancellable_request(
            ClientRequest::CallToolRequest(Request::new(params)),
            rmcp::service::PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    let token = handle.progress_token.clone();
    let response = tokio::time::timeout(WAIT, handle.await_response())
        .await
        .unwrap()
        .unwrap();
    assert!(
        format!("{response:?}").contains("done after 2 steps"),
        "{response:?}"
    );
    for step in 1..=2 {
        let progress = tokio::time::timeout(WAIT, client.progress.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(progress.progress_token, token);
        assert_eq!(progress.progress, f64::from(step));
    }
}

/// A tool its server runs only as a task (server-everything's `simulate-research-query`,
/// `execution.taskSupport: "required"`) answers a gateway client's plain call: the gateway
/// runs it as a task upstream and follows it to its end.
#[tokio::test]
async fn a_task_only_upstream_tool_answers_a_plain_call() {
    let mut world = World::new(refuse()).await;
    let alice = world.alice.clone();
    world
        .add(
            &alice,
            "everything",
            switchboard_testkit::Peers::locate().everything_stdio(),
            &["simulate-research-query"],
        )
        .await;
    let client = Client::connect(&world.serve(&alice).await, None, Revision::Session).await;
    let tools = client.tools().await;
    let research = tools
        .iter()
        .find(|t| t.name == "mcp__everything__simulate-research-query")
        .expect("listed");
    assert!(
        research
            .meta
            .as_ref()
            .is_none_or(|meta| meta.0.keys().all(|key| !key.starts_with("switchboard/"))),
        "{research:?}"
    );
    let report = client
        .call(
            "mcp__everything__simulate-research-query",
            json!({"topic": "tides"}),
        )
        .await
        .unwrap();
    assert_ne!(report.is_error, Some(true), "{report:?}");
    assert!(
        text(&report).contains("Research Report: tides"),
        "{report:?}"
    );
}

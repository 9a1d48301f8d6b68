//! A view in `search` mode end to end: `tools/list` shows the three search tools and the pinned
//! ones; `search_tools` finds the view's tools and nothing else (another server's tools left
//! out of the view, another person's); `describe_tool` gives a tool's schema; `call_tool` is the
//! direct call, approval by elicitation included, over a session and statelessly; wrong
//! arguments are invalid params; list changes reach a session only when its list changed.
//! Real parts as in `tools.rs`; the list changes with `content_support`'s recording client.

#![allow(clippy::unwrap_used)]

use crate::{content_support, tools_support};

use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use switchboard_core::{PinnedTool, ServerSpec, ViewExposure, ViewServer, ViewSpec};
use switchboard_gateway::{GatewayConfig, Unapproved};
use switchboard_testkit::{Peers, PyGen};
use tools_support::{Answer, Client, Revision, World, error_code, text};

const INVALID_PARAMS: i32 = -32602;

fn pin(server: &ServerSpec, tool: Option<&str>) -> PinnedTool {
    PinnedTool {
        server_id: server.id.clone(),
        tool: tool.map(str::to_owned),
    }
}

/// `one`'s every tool under its own name and `two`'s `echo` as `two_echo`, searched, with
/// `one`'s `add` pinned.
fn big(one: &ServerSpec, two: &ServerSpec) -> ViewSpec {
    ViewSpec {
        tool_exposure: ViewExposure::Search,
        pinned_tools: vec![pin(one, Some("add"))],
        tasks: None,
        name: "big".into(),
        description: None,
        assistant_id: None,
        servers: vec![
            ViewServer {
                server_id: one.id.clone(),
                tools: None,
                prefix: Some(String::new()),
            },
            ViewServer {
                server_id: two.id.clone(),
                tools: Some(["echo".to_owned()].into()),
                prefix: Some("two_".into()),
            },
        ],
    }
}

fn structured(result: &CallToolResult) -> Value {
    result.structured_content.clone().unwrap_or_default()
}

/// The names a `search_tools` answer found.
fn found(result: &CallToolResult) -> Vec<String> {
    structured(result)["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

async fn search(client: &Client, query: &str) -> Vec<String> {
    let result = client
        .call("search_tools", json!({"query": query, "limit": 50}))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    found(&result)
}

#[tokio::test]
async fn a_search_view_lists_few_tools_and_reaches_only_its_own() {
    let mut world = World::new(GatewayConfig {
        unapproved: Unapproved::Refuse,
        ..GatewayConfig::default()
    })
    .await;
    let (alice, bob) = (world.alice.clone(), world.bob.clone());
    // `one`'s echo asks before it runs; everything of `two` and of Bob's runs at once.
    let one = world.add_py(&alice, "one", &["add", "long_task"]).await;
    let two = world.add_py(&alice, "two", &["echo", "add"]).await;
    world.add_py(&bob, "bobs", &["echo", "add"]).await;
    world
        .store
        .create_view(&alice.id, &big(&one, &two))
        .await
        .unwrap();
    let client = Client::connect(
        &world.serve_view(&alice, "big").await,
        Some(Answer::Approve),
        Revision::Session,
    )
    .await;

    assert_eq!(
        client.names().await,
        ["search_tools", "describe_tool", "call_tool", "add"]
    );

    // Found: the view's tools, never `two`'s other tools nor Bob's.
    let echoes = search(&client, "echo").await;
    assert!(echoes.contains(&"echo".to_owned()), "{echoes:?}");
    assert!(echoes.contains(&"two_echo".to_owned()), "{echoes:?}");
    let everything = search(&client, "echo add text number server tool").await;
    for name in &everything {
        assert!(
            !name.starts_with("mcp__") && (!name.starts_with("two_") || name == "two_echo"),
            "{name} is not a tool of the view: {everything:?}"
        );
    }
    assert!(
        !search(&client, "two_add")
            .await
            .contains(&"two_add".to_owned())
    );
    // An exported name comes first.
    assert_eq!(search(&client, "two_echo").await[0], "two_echo");
    let limited = client
        .call("search_tools", json!({"query": "echo", "limit": 1}))
        .await
        .unwrap();
    assert_eq!(found(&limited).len(), 1);
    let entry = &structured(&limited)["tools"][0];
    assert!(entry["description"].is_string(), "{entry}");
    assert!(entry["inputSchema"]["properties"].is_object(), "{entry}");
    assert!(
        entry["server"] == "one" || entry["server"] == "two",
        "{entry}"
    );

    let described = client
        .call("describe_tool", json!({"name": "two_echo"}))
        .await
        .unwrap();
    let tool = structured(&described);
    assert_eq!(tool["name"], "two_echo");
    assert_eq!(tool["inputSchema"]["properties"]["text"]["type"], "string");
    assert_eq!(tool["annotations"]["readOnlyHint"], true);
    for outside in ["two_add", "mcp__bobs__echo", "mcp__one__echo"] {
        let refused = client
            .call("describe_tool", json!({"name": outside}))
            .await
            .unwrap_err();
        assert_eq!(error_code(&refused), Some(INVALID_PARAMS), "{outside}");
        let refused = client
            .call(
                "call_tool",
                json!({"name": outside, "arguments": {"a": 1, "b": 2}}),
            )
            .await
            .unwrap_err();
        assert_eq!(error_code(&refused), Some(INVALID_PARAMS), "{outside}");
    }

    // A call through call_tool is the direct call: `one`'s echo asks first.
    let ran = client
        .call(
            "call_tool",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        )
        .await
        .unwrap();
    assert_eq!(text(&ran), "hi");
    let asked = client.seen.elicitations.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(
        asked[0].contains("`echo`") && asked[0].contains("`one`"),
        "{}",
        asked[0]
    );
    client.set_answer(Answer::Decline);
    let rejected = client
        .call(
            "call_tool",
            json!({"name": "echo", "arguments": {"text": "no"}}),
        )
        .await
        .unwrap();
    assert_eq!(rejected.is_error, Some(true));
    assert!(
        text(&rejected).contains("rejected by the user"),
        "{}",
        text(&rejected)
    );
    // Its result is the tool's own (structured content included), and a tool of the view
    // that is not listed is still called directly.
    let added = client
        .call(
            "call_tool",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        )
        .await
        .unwrap();
    assert_eq!(structured(&added)["result"], 5.0, "{added:?}");
    let direct = client
        .call("two_echo", json!({"text": "direct"}))
        .await
        .unwrap();
    assert_eq!(text(&direct), "direct");

    // Wrong arguments name what is wrong.
    for (tool, arguments, says) in [
        ("search_tools", json!({}), "`query` is required"),
        ("search_tools", json!({"query": "x", "limit": 0}), "`limit`"),
        (
            "describe_tool",
            json!({"tool": "echo"}),
            "unknown argument `tool`",
        ),
        (
            "call_tool",
            json!({"name": "echo", "arguments": [1]}),
            "`arguments` must be an object",
        ),
    ] {
        let refused = client.call(tool, arguments).await.unwrap_err();
        assert_eq!(
            error_code(&refused),
            Some(INVALID_PARAMS),
            "{tool}: {refused}"
        );
        assert!(refused.to_string().contains(says), "{tool}: {refused}");
    }
}

#[tokio::test]
async fn a_stateless_client_calls_through_call_tool_with_its_approval_round() {
    let mut world = World::new(GatewayConfig::default()).await;
    let alice = world.alice.clone();
    let one = world.add_py(&alice, "one", &["add"]).await;
    let two = world.add_py(&alice, "two", &["echo"]).await;
    world
        .store
        .create_view(&alice.id, &big(&one, &two))
        .await
        .unwrap();
    let client = Client::connect(
        &world.serve_view(&alice, "big").await,
        Some(Answer::Approve),
        Revision::Stateless,
    )
    .await;
    assert_eq!(
        client.names().await,
        ["search_tools", "describe_tool", "call_tool", "add"]
    );
    let ran = client
        .call(
            "call_tool",
            json!({"name": "echo", "arguments": {"text": "stateless"}}),
        )
        .await
        .unwrap();
    assert_eq!(text(&ran), "stateless");
    assert_eq!(client.seen.elicitations.lock().unwrap().len(), 1);
    assert_eq!(search(&client, "two_echo").await[0], "two_echo");
}

#[tokio::test]
async fn a_view_in_all_mode_lists_everything_and_has_no_search_tools() {
    let mut world = World::new(GatewayConfig::default()).await;
    let alice = world.alice.clone();
    let one = world.add_py(&alice, "one", &["echo"]).await;
    let two = world.add_py(&alice, "two", &["echo"]).await;
    let mut view = big(&one, &two);
    view.tool_exposure = ViewExposure::All;
    world.store.create_view(&alice.id, &view).await.unwrap();
    let client = Client::connect(
        &world.serve_view(&alice, "big").await,
        None,
        Revision::Session,
    )
    .await;
    let names = client.names().await;
    assert!(names.contains(&"echo".to_owned()) && names.contains(&"two_echo".to_owned()));
    assert!(!names.contains(&"search_tools".to_owned()), "{names:?}");
    let refused = client
        .call("search_tools", json!({"query": "echo"}))
        .await
        .unwrap_err();
    assert_eq!(error_code(&refused), Some(INVALID_PARAMS));
}

/// Whether a recording client's next notification is `wanted`, past any it should not hear.
async fn next_is(client: &mut content_support::Client, wanted: content_support::Heard) {
    assert_eq!(client.next().await, wanted);
}

#[tokio::test]
async fn list_changes_reach_a_search_session_only_when_its_list_changed() {
    use content_support::{Harness, Heard};

    let harness = Harness::start().await;
    let alice = harness.alice.clone();
    let command = Peers::locate().python_stdio(PyGen::V1);
    let mut spec = ServerSpec::stdio("py", command.program, command.args);
    spec.env.extend(command.env);
    spec.auto_approved_tools = ["add_tool".to_owned()].into();
    let py = harness
        .store
        .create_server(&alice.id, &spec)
        .await
        .unwrap()
        .spec;
    let view = |name: &str, pinned: PinnedTool| ViewSpec {
        tool_exposure: ViewExposure::Search,
        pinned_tools: vec![pinned],
        tasks: None,
        name: name.into(),
        description: None,
        assistant_id: None,
        servers: vec![ViewServer {
            server_id: py.id.clone(),
            tools: None,
            prefix: Some(String::new()),
        }],
    };
    // `one-tool` pins `echo`; `whole` pins every tool of the server.
    for stored in [
        view("one-tool", pin(&py, Some("echo"))),
        view("whole", pin(&py, None)),
    ] {
        harness.store.create_view(&alice.id, &stored).await.unwrap();
    }
    let mut one_tool = harness.client(&alice, Some("one-tool")).await;
    let mut whole = harness.client(&alice, Some("whole")).await;
    let listed = one_tool.session.list_all_tools().await.unwrap();
    let names: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        ["search_tools", "describe_tool", "call_tool", "echo"]
    );
    assert!(whole.session.list_all_tools().await.unwrap().len() > 10);

    // The server adds a tool: only the session that lists every tool of it hears so; the
    // other finds the new tool by searching.
    let mut params = rmcp::model::CallToolRequestParams::new("call_tool");
    params.arguments = json!({"name": "add_tool", "arguments": {"name": "fresh_tool"}})
        .as_object()
        .cloned();
    let added = one_tool.session.call_tool(params).await.unwrap();
    assert_ne!(added.is_error, Some(true), "{added:?}");
    next_is(&mut whole, Heard::Tools).await;
    let mut params = rmcp::model::CallToolRequestParams::new("search_tools");
    params.arguments = json!({"query": "fresh_tool"}).as_object().cloned();
    let searched = one_tool.session.call_tool(params).await.unwrap();
    assert_eq!(found(&searched)[0], "fresh_tool");

    // What the `one-tool` session hears next is the announcement's resources and prompts,
    // not the tools: had the new tool been announced to it, that would have come first.
    harness.gateway.announce(&alice.id);
    next_is(&mut one_tool, Heard::Resources).await;
    next_is(&mut one_tool, Heard::Prompts).await;

    // Pinning the new tool changes the list: now the session hears it.
    let stored = harness
        .store
        .view_by_name(&alice.id, "one-tool")
        .await
        .unwrap();
    let mut changed = stored.spec.clone();
    changed.pinned_tools.push(pin(&py, Some("fresh_tool")));
    harness
        .store
        .update_view(&alice.id, &stored.id, &changed)
        .await
        .unwrap();
    harness.gateway.announce(&alice.id);
    next_is(&mut one_tool, Heard::Tools).await;
    let listed = one_tool.session.list_all_tools().await.unwrap();
    assert!(listed.iter().any(|t| t.name == "fresh_tool"));
    let _ = one_tool.session.cancel().await;
    let _ = whole.session.cancel().await;
}

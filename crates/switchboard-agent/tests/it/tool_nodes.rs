//! Tool nodes inside a chat run, end to end: the scripted LLM through the
//! production OpenAI client, a real MCP server that answers with the arguments it received
//! (`args_echo.py` on the official Python SDK, over stdio), SQLite, and the run resolved by
//! [`switchboard_agent::resolve`] from a stored assistant with a stored node.
//!
//! The node on the `issues` server selects `create_issue` with `owner` mapped to
//! `{{user.name}}` and `repo` to `{{repo}}` (a variable the assistant declares, default
//! `switchboard`), and `list_issues` with `enabled: false`; `other` is not selected.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::e2e::{World, provider};
use serde_json::{Map, Value, json};
use switchboard_agent::{
    ApprovalPolicy, EnvProvider, PlainClients, RunRequest, RunSpec, StopReason,
};
use switchboard_core::{ServerSpec, ToolCallRecord, ToolCallStatus, ToolNode, VariableDecl};
use switchboard_llm::WireFormat;
use switchboard_store::{Assistant, AssistantConfig, MessageRole, ToolMode};
use switchboard_testkit::{Peers, ScriptedLlm, Turn};
use tokio_util::sync::CancellationToken;

/// The args-echo server, every tool auto-approved, stored for the world's owner.
async fn issues_server(world: &World) -> ServerSpec {
    let command = Peers::locate().args_echo_stdio();
    let mut spec = ServerSpec::stdio("issues", command.program, command.args);
    spec.env.extend(command.env);
    spec.auto_approved_tools = ["create_issue", "list_issues", "other"]
        .map(String::from)
        .into();
    let stored = world
        .store
        .create_server(&world.owner, &spec)
        .await
        .unwrap();
    world
        .store
        .connection_spec(&world.owner, &stored.spec.id)
        .await
        .unwrap()
}

/// An assistant in `mode` declaring `repo` (default `switchboard`), with `node` (JSON, its
/// `serverId` and `assistantId` filled in) stored as its node.
async fn assistant(
    world: &World,
    server: &ServerSpec,
    mode: ToolMode,
    mut node: Value,
) -> Assistant {
    let mut config = AssistantConfig::named("helper");
    config.tool_mode = mode;
    config.variables = vec![VariableDecl {
        name: "repo".into(),
        kind: Default::default(),
        default: Some(json!("switchboard")),
        description: None,
    }];
    let assistant = world
        .store
        .create_assistant(&world.owner, &config)
        .await
        .unwrap();
    node["serverId"] = json!(server.id.0);
    node["assistantId"] = json!(assistant.id);
    let node: ToolNode = serde_json::from_value(node).unwrap();
    world
        .store
        .create_tool_node(&world.owner, &node)
        .await
        .unwrap();
    assistant
}

/// The node of the module docs.
fn issue_node() -> Value {
    json!({
        "name": "issues",
        "selectedTools": [
            {"name": "create_issue", "parameterMappings": {
                "owner": "{{user.name}}",
                "repo": "{{repo}}",
            }},
            {"name": "list_issues", "enabled": false},
        ],
    })
}

/// The run the server would make for a conversation with `assistant`.
async fn plan(world: &World, llm: &ScriptedLlm, assistant: Assistant) -> RunSpec {
    let env = EnvProvider {
        provider: provider(llm, WireFormat::OpenAi),
        model: Some("scripted".into()),
        model_variable: switchboard_agent::resolve::OPENAI_MODEL,
    };
    let request = RunRequest {
        assistant: Some(assistant),
        approval: ApprovalPolicy::Ask,
        ..RunRequest::default()
    };
    switchboard_agent::resolve(
        world.store.as_ref(),
        &world.owner,
        request,
        Some(&env),
        &PlainClients,
    )
    .await
    .unwrap()
    .spec
}

/// Sends `text` in a new conversation with `variables`, returns the turn's tool calls.
async fn chat(
    world: &World,
    spec: &RunSpec,
    variables: Map<String, Value>,
    text: &str,
) -> Vec<ToolCallRecord> {
    let conversation = world.conversation().await;
    world
        .store
        .merge_variables(&world.owner, &conversation, &variables)
        .await
        .unwrap();
    let outcome = world
        .agent
        .send(
            &world.owner,
            &conversation,
            text,
            spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.stop, StopReason::Answered, "{outcome:?}");
    let messages = world
        .store
        .messages(&world.owner, &conversation)
        .await
        .unwrap();
    messages
        .into_iter()
        .filter(|m| m.role == MessageRole::Assistant)
        .flat_map(|m| m.tool_calls)
        .collect()
}

/// The text the server answered a call with, read back as the JSON arguments it received.
fn received(call: &ToolCallRecord) -> Value {
    let text = call.response.as_ref().unwrap()["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {call:?}"));
    serde_json::from_str(text).unwrap_or_else(|_| panic!("not the echoed arguments: {text}"))
}

/// The function definition named `name` in the first request the model received.
fn offered(llm: &ScriptedLlm, name: &str) -> Option<Value> {
    let body = &llm.requests()[0].body;
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["function"]["name"] == name)
        .cloned()
}

#[tokio::test]
async fn native_mode_hides_mapped_parameters_and_fills_them_from_the_run() {
    let world = World::new().await;
    let server = issues_server(&world).await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call(
            "mcp__issues__create_issue",
            json!({"title": "Crash", "labels": ["bug"]}),
        ),
        Turn::text("Opened."),
    ])
    .await;
    let assistant = assistant(&world, &server, ToolMode::Native, issue_node()).await;
    let spec = plan(&world, &llm, assistant).await;
    let calls = chat(&world, &spec, Map::new(), "Open an issue").await;

    // The model saw create_issue without the mapped parameters, and nothing else.
    let create = offered(&llm, "mcp__issues__create_issue").expect("create_issue offered");
    let parameters = &create["function"]["parameters"];
    let properties = parameters["properties"].as_object().unwrap();
    assert!(!properties.contains_key("owner"), "{parameters}");
    assert!(!properties.contains_key("repo"), "{parameters}");
    assert!(properties.contains_key("title"), "{parameters}");
    assert!(properties.contains_key("labels"), "{parameters}");
    assert_eq!(parameters["required"], json!(["title"]), "{parameters}");
    // A tool with enabled: false, and one not selected, are not offered.
    assert!(offered(&llm, "mcp__issues__list_issues").is_none());
    assert!(offered(&llm, "mcp__issues__other").is_none());

    // The server received the model's arguments and the mapped ones.
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].status, ToolCallStatus::Done, "{calls:?}");
    assert_eq!(
        received(&calls[0]),
        json!({"owner": "local", "repo": "switchboard", "title": "Crash", "labels": ["bug"]})
    );
    // The model reads the result, and its own call as it made it.
    let second = llm.requests()[1].body.to_string();
    assert!(second.contains(r#"\"owner\": \"local\""#), "{second}");
}

#[tokio::test]
async fn conversation_variables_beat_declared_defaults_and_never_built_ins() {
    let world = World::new().await;
    let server = issues_server(&world).await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__issues__create_issue", json!({"title": "T"})),
        Turn::text("Done."),
    ])
    .await;
    let mut node = issue_node();
    node["selectedTools"][0]["parameterMappings"]["title"] =
        json!("[{{conversation.id}}] {{repo}}");
    let assistant = assistant(&world, &server, ToolMode::Native, node).await;
    let spec = plan(&world, &llm, assistant).await;
    // As seed 000's context arrives: merged into the conversation's variables.
    let context = json!({"repo": "from-context", "user": {"name": "spoofed"}});
    let calls = chat(&world, &spec, context.as_object().unwrap().clone(), "Go").await;
    let got = received(&calls[0]);
    assert_eq!(got["owner"], "local", "{got}");
    assert_eq!(got["repo"], "from-context", "{got}");
    // A mapping wins over what the model sent, and interpolates inside text.
    let title = got["title"].as_str().unwrap();
    assert!(
        title.starts_with('[') && title.ends_with("] from-context"),
        "{title}"
    );
    assert!(!title.contains("{{"), "{title}");
}

#[tokio::test]
async fn a_missing_variable_is_an_error_the_model_reads() {
    let world = World::new().await;
    let server = issues_server(&world).await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__issues__create_issue", json!({"title": "T"})),
        Turn::text("I could not."),
    ])
    .await;
    let mut node = issue_node();
    node["variables"] = json!([{"name": "milestone", "type": "string"}]);
    node["selectedTools"][0]["parameterMappings"]["meta"] = json!({"variable": "milestone"});
    let assistant = assistant(&world, &server, ToolMode::Native, node).await;
    let spec = plan(&world, &llm, assistant).await;
    let calls = chat(&world, &spec, Map::new(), "Go").await;
    assert_eq!(calls[0].status, ToolCallStatus::Error, "{calls:?}");
    let response = calls[0].response.as_ref().unwrap().to_string();
    assert!(response.contains("MCP_INVALID_PARAMS"), "{response}");
    assert!(response.contains("milestone"), "{response}");
    let second = llm.requests()[1].body.to_string();
    assert!(second.contains("milestone"), "{second}");
}

#[tokio::test]
async fn meta_mode_describes_the_schema_the_model_sees() {
    let world = World::new().await;
    let server = issues_server(&world).await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call(
            "mcp_query",
            json!({"resource": "issues", "operation": "create_issue", "params": {"title": "M"}}),
        ),
        Turn::text("Opened."),
    ])
    .await;
    let assistant = assistant(&world, &server, ToolMode::Meta, issue_node()).await;
    let spec = plan(&world, &llm, assistant).await;
    let calls = chat(&world, &spec, Map::new(), "Open").await;

    let query = offered(&llm, "mcp_query").unwrap();
    let description = query["function"]["description"].as_str().unwrap();
    assert!(
        description.contains("Operation 'create_issue'"),
        "{description}"
    );
    assert!(
        description.contains("title (string, required)"),
        "{description}"
    );
    assert!(!description.contains("owner ("), "{description}");
    assert!(!description.contains("repo ("), "{description}");
    assert!(!description.contains("list_issues"), "{description}");
    assert!(!description.contains("'other'"), "{description}");
    assert_eq!(
        received(&calls[0]),
        json!({"owner": "local", "repo": "switchboard", "title": "M"})
    );
}

#[tokio::test]
async fn prompt_mode_lists_the_schema_the_model_sees() {
    let world = World::new().await;
    let server = issues_server(&world).await;
    let block = json!({
        "type": "use_mcp_tool",
        "server_name": "issues",
        "tool_name": "create_issue",
        "arguments": {"title": "P"},
    });
    let llm = ScriptedLlm::start(vec![
        Turn::raw_text(format!("```json\n{block}\n```\n")),
        Turn::text("Opened."),
    ])
    .await;
    let assistant = assistant(&world, &server, ToolMode::Prompt, issue_node()).await;
    let spec = plan(&world, &llm, assistant).await;
    let calls = chat(&world, &spec, Map::new(), "Open").await;

    let system = llm.requests()[0].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(system.contains("**create_issue**"), "{system}");
    assert!(system.contains("title (string, required)"), "{system}");
    assert!(!system.contains("owner ("), "{system}");
    assert!(!system.contains("list_issues"), "{system}");
    assert!(!system.contains("**other**"), "{system}");
    assert_eq!(
        received(&calls[0]),
        json!({"owner": "local", "repo": "switchboard", "title": "P"})
    );
}

#[tokio::test]
async fn a_node_refines_plain_servers_and_adds_its_own() {
    let world = World::new().await;
    let server = issues_server(&world).await;
    // A second server given as a plain server of the assistant, without a node: all its
    // tools are offered; the node's server is added though not in the plain list.
    let command = Peers::locate().args_echo_stdio();
    let mut plain = ServerSpec::stdio("plain", command.program, command.args);
    plain.env.extend(command.env);
    let plain = world
        .store
        .create_server(&world.owner, &plain)
        .await
        .unwrap()
        .spec;
    let llm = ScriptedLlm::start(vec![Turn::text("Hi.")]).await;
    let assistant = assistant(&world, &server, ToolMode::Native, issue_node()).await;
    let assistant = world
        .store
        .set_assistant_servers(&world.owner, &assistant.id, std::slice::from_ref(&plain.id))
        .await
        .unwrap();
    let spec = plan(&world, &llm, assistant).await;
    chat(&world, &spec, Map::new(), "Hi").await;
    let mut names: Vec<String> = llm.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "mcp__issues__create_issue",
            "mcp__plain__create_issue",
            "mcp__plain__list_issues",
            "mcp__plain__other",
        ]
    );
    let plain_create = offered(&llm, "mcp__plain__create_issue").unwrap();
    assert!(
        plain_create["function"]["parameters"]["properties"]
            .as_object()
            .unwrap()
            .contains_key("owner")
    );
}

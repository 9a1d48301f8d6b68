//! Seed 002 property 5 through a tool node: for random arguments the model sends (fitting
//! the schema it was offered), the server receives a well-formed `tools/call` (the official
//! Python SDK checks it against the tool's full schema before answering) with exactly the
//! model's arguments plus the node's mapped ones, and the result goes back to the model.
//!
//! One real server (`args_echo.py`, over stdio, pooled across cases) and one scripted LLM per
//! case; few cases, since each is a whole chat turn.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::e2e::{World, provider};
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use switchboard_agent::{ApprovalPolicy, PlainClients, RunRequest, RunSpec, StopReason};
use switchboard_core::{ServerSpec, ToolCallStatus, ToolNode};
use switchboard_llm::WireFormat;
use switchboard_store::{AssistantConfig, MessageRole};
use switchboard_testkit::{Peers, ScriptedLlm, Turn};
use tokio_util::sync::CancellationToken;

/// How the node fills `repo`: a literal, or the conversation's `repo` variable.
#[derive(Debug, Clone)]
enum Repo {
    Literal(String),
    Variable(String),
}

fn text() -> impl Strategy<Value = String> {
    "\\PC{0,12}"
}

/// Arguments fitting the schema the model sees: `title` required; `labels`, `priority`,
/// `draft`, `meta` optional.
fn arguments() -> impl Strategy<Value = Map<String, Value>> {
    (
        text(),
        proptest::option::of(proptest::collection::vec(text(), 0..4)),
        proptest::option::of(0i64..=5),
        proptest::option::of(any::<bool>()),
        proptest::option::of(proptest::collection::btree_map("[a-z]{1,6}", text(), 0..3)),
    )
        .prop_map(|(title, labels, priority, draft, meta)| {
            let mut args = Map::new();
            args.insert("title".into(), json!(title));
            if let Some(labels) = labels {
                args.insert("labels".into(), json!(labels));
            }
            if let Some(priority) = priority {
                args.insert("priority".into(), json!(priority));
            }
            if let Some(draft) = draft {
                args.insert("draft".into(), json!(draft));
            }
            if let Some(meta) = meta {
                args.insert("meta".into(), json!(meta));
            }
            args
        })
}

fn repo() -> impl Strategy<Value = Repo> {
    prop_oneof![
        text().prop_map(Repo::Literal),
        text().prop_map(Repo::Variable)
    ]
}

struct Fixture {
    world: World,
    server: ServerSpec,
}

async fn fixture() -> Fixture {
    let world = World::new().await;
    let command = Peers::locate().args_echo_stdio();
    let mut spec = ServerSpec::stdio("issues", command.program, command.args);
    spec.env.extend(command.env);
    spec.auto_approved_tools = ["create_issue".to_owned()].into();
    let stored = world
        .store
        .create_server(&world.owner, &spec)
        .await
        .unwrap();
    let server = world
        .store
        .connection_spec(&world.owner, &stored.spec.id)
        .await
        .unwrap();
    Fixture { world, server }
}

/// The run of an assistant whose node maps `owner` to `{{user.name}}` and `repo` as `repo`
/// says.
async fn spec(fixture: &Fixture, llm: &ScriptedLlm, repo: &Repo) -> RunSpec {
    let world = &fixture.world;
    let assistant = world
        .store
        .create_assistant(
            &world.owner,
            &AssistantConfig::named(format!("helper {}", uuid::Uuid::now_v7())),
        )
        .await
        .unwrap();
    let repo_mapping = match repo {
        // The `{"value": ..}` form: a literal string that may itself contain `{{`.
        Repo::Literal(text) => json!({"value": text}),
        Repo::Variable(_) => json!("{{repo}}"),
    };
    let node: ToolNode = serde_json::from_value(json!({
        "name": format!("n{}", assistant.id),
        "serverId": fixture.server.id.0,
        "assistantId": assistant.id,
        "variables": [{"name": "repo", "type": "string"}],
        "selectedTools": [{"name": "create_issue", "parameterMappings": {
            "owner": "{{user.name}}",
            "repo": repo_mapping,
        }}],
    }))
    .unwrap();
    world
        .store
        .create_tool_node(&world.owner, &node)
        .await
        .unwrap();
    let env = switchboard_agent::EnvProvider {
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

/// Every string of the tool-result messages of a request body.
fn tool_results(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .flat_map(|m| match &m["content"] {
            Value::String(text) => vec![text.clone()],
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

async fn one_case(fixture: &Fixture, args: Map<String, Value>, repo: Repo) {
    let world = &fixture.world;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__issues__create_issue", Value::Object(args.clone())),
        Turn::text("Done."),
    ])
    .await;
    let spec = spec(fixture, &llm, &repo).await;
    let conversation = world.conversation().await;
    let repo_value = match &repo {
        Repo::Literal(text) => text.clone(),
        Repo::Variable(text) => {
            let variables = json!({"repo": text});
            world
                .store
                .merge_variables(&world.owner, &conversation, variables.as_object().unwrap())
                .await
                .unwrap();
            text.clone()
        }
    };
    let outcome = world
        .agent
        .send(
            &world.owner,
            &conversation,
            "Open an issue",
            &spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.stop, StopReason::Answered);

    let mut expected = args.clone();
    expected.insert("owner".into(), json!("local"));
    expected.insert("repo".into(), json!(repo_value));
    let expected = Value::Object(expected);

    let messages = world
        .store
        .messages(&world.owner, &conversation)
        .await
        .unwrap();
    let call = messages
        .iter()
        .filter(|m| m.role == MessageRole::Assistant)
        .flat_map(|m| &m.tool_calls)
        .next()
        .unwrap();
    assert_eq!(call.status, ToolCallStatus::Done, "{call:?}");
    // The record keeps the model's own call, as the model made it.
    assert_eq!(call.arguments, args);
    let text = call.response.as_ref().unwrap()["content"][0]["text"]
        .as_str()
        .unwrap();
    let received: Value = serde_json::from_str(text).unwrap();
    assert_eq!(received, expected);

    // The result went back to the model.
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    let results = tool_results(&requests[1].body);
    assert!(
        results
            .iter()
            .any(|r| serde_json::from_str::<Value>(r).ok() == Some(expected.clone())),
        "{results:?}"
    );
}

#[test]
fn what_the_model_sends_reaches_the_server_with_the_mapped_arguments() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let fixture = runtime.block_on(fixture());
    let config = ProptestConfig {
        cases: 32,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(config, |(args in arguments(), repo in repo())| {
        runtime.block_on(one_case(&fixture, args, repo));
    });
}

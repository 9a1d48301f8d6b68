//! Deferred tools: the model is shown its pinned tools and `search_tools`, finds the tool it
//! needs, and is shown that tool's schema from its next request on, for the rest of the
//! conversation. The scripted LLM over HTTP, server-everything over stdio, SQLite.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use switchboard_agent::exposure::Exposure;
use switchboard_agent::{ApprovalPolicy, RunSpec, StopReason};
use switchboard_core::{ServerId, ToolCallStatus};
use switchboard_llm::WireFormat;
use switchboard_store::{PinnedTool, ToolExposure, ToolMode};
use switchboard_testkit::{ScriptedLlm, Turn};
use tokio_util::sync::CancellationToken;

use crate::common::e2e::{World, everything, run_spec};

/// The names of the functions request `index` offered (OpenAI's wire).
fn offered(llm: &ScriptedLlm, index: usize) -> Vec<String> {
    llm.requests()[index].body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            t["function"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

fn deferred_spec(llm: &ScriptedLlm, mode: ToolMode, pinned: Vec<PinnedTool>) -> RunSpec {
    let server = everything(&["echo", "get-sum"]);
    let mut spec = run_spec(
        llm,
        WireFormat::OpenAi,
        mode,
        vec![server],
        ApprovalPolicy::Ask,
    );
    spec.exposure = Exposure {
        kind: ToolExposure::Deferred,
        pinned,
    };
    spec
}

/// A search for `query` written the way `mode` calls tools.
fn search(mode: ToolMode, query: &str) -> Turn {
    match mode {
        ToolMode::Meta => Turn::tool_call(
            "mcp_query",
            json!({"resource": "switchboard", "operation": "search_tools", "params": {"query": query}}),
        ),
        ToolMode::Prompt => {
            let block = json!({"type": "use_mcp_tool", "server_name": "switchboard",
                "tool_name": "search_tools", "arguments": {"query": query}});
            Turn::raw_text(format!("Let me look.\n```json\n{block:#}\n```\n"))
        }
        _ => Turn::tool_call("search_tools", json!({"query": query})),
    }
}

/// A call of everything's `get-sum` written the way `mode` calls tools.
fn get_sum(mode: ToolMode) -> Turn {
    match mode {
        ToolMode::Meta => Turn::tool_call(
            "mcp_query",
            json!({"resource": "everything", "operation": "get-sum", "params": {"a": 2, "b": 3}}),
        ),
        ToolMode::Prompt => {
            let block = json!({"type": "use_mcp_tool", "server_name": "everything",
                "tool_name": "get-sum", "arguments": {"a": 2, "b": 3}});
            Turn::raw_text(format!("Now the sum.\n```json\n{block:#}\n```\n"))
        }
        _ => Turn::tool_call("mcp__everything__get-sum", json!({"a": 2, "b": 3})),
    }
}

/// Everything the model was shown in request `index`: the functions and the system prompt.
fn shown(llm: &ScriptedLlm, index: usize) -> String {
    let body: &Value = &llm.requests()[index].body;
    format!("{} {}", body["tools"], body["messages"][0])
}

async fn search_then_call(mode: ToolMode) {
    let world = World::new().await;
    let llm = ScriptedLlm::start(vec![
        search(mode, "sum of two numbers"),
        get_sum(mode),
        Turn::text("The sum is 5."),
    ])
    .await;
    let conversation = world.conversation().await;
    let spec = deferred_spec(&llm, mode, Vec::new());
    let outcome = world
        .agent
        .send(
            &world.owner,
            &conversation,
            "Add 2 and 3.",
            &spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.stop, StopReason::Answered, "{mode:?}");
    assert!(
        outcome.content.ends_with("The sum is 5."),
        "{}",
        outcome.content
    );

    // First request: the search only. Second: the tool found, with its schema.
    let first = shown(&llm, 0);
    assert!(first.contains("search_tools"), "{mode:?}: {first}");
    assert!(!first.contains("get-sum"), "{mode:?}: {first}");
    assert!(!first.contains("echo"), "{mode:?}: {first}");
    let second = shown(&llm, 1);
    assert!(second.contains("get-sum"), "{mode:?}: {second}");
    assert!(second.contains("search_tools"), "{mode:?}: {second}");

    let messages = world
        .store
        .messages(&world.owner, &conversation)
        .await
        .unwrap();
    let calls = &messages[1].tool_calls;
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0].tool_name, "search_tools");
    assert_eq!(calls[0].status, ToolCallStatus::Done);
    let found = &calls[0].response.as_ref().unwrap()["_meta"]["switchboard/toolSearch"]["tools"];
    assert_eq!(found[0]["name"], "mcp__everything__get-sum", "{found}");
    assert_eq!(calls[1].tool_name, "get-sum");
    assert_eq!(
        calls[1].status,
        ToolCallStatus::Done,
        "{:?}",
        calls[1].response
    );
}

#[tokio::test]
async fn native_mode_searches_then_calls_the_tool_found() {
    search_then_call(ToolMode::Native).await;
}

#[tokio::test]
async fn meta_mode_searches_then_calls_the_tool_found() {
    search_then_call(ToolMode::Meta).await;
}

#[tokio::test]
async fn prompt_mode_searches_then_calls_the_tool_found() {
    search_then_call(ToolMode::Prompt).await;
}

#[tokio::test]
async fn a_found_tool_stays_offered_for_the_conversation_after_a_restart() {
    let world = World::new().await;
    let llm = ScriptedLlm::start(vec![
        search(ToolMode::Native, "sum of two numbers"),
        Turn::text("I can add now."),
        Turn::text("Still here."),
    ])
    .await;
    let conversation = world.conversation().await;
    let spec = deferred_spec(&llm, ToolMode::Native, Vec::new());
    world
        .agent
        .send(
            &world.owner,
            &conversation,
            "Find adding.",
            &spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    let (agent, _manager) = world.restarted();
    agent
        .send(
            &world.owner,
            &conversation,
            "Again.",
            &spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    let third = offered(&llm, 2);
    assert!(
        third.contains(&"mcp__everything__get-sum".to_owned()),
        "{third:?}"
    );
    assert!(third.contains(&"search_tools".to_owned()), "{third:?}");
    assert!(
        !third.contains(&"mcp__everything__echo".to_owned()),
        "{third:?}"
    );
}

#[tokio::test]
async fn pinned_tools_are_always_offered_and_a_known_tool_is_run_unsearched() {
    let world = World::new().await;
    let llm = ScriptedLlm::start(vec![get_sum(ToolMode::Native), Turn::text("5.")]).await;
    let conversation = world.conversation().await;
    let pinned = vec![PinnedTool {
        server_id: ServerId("everything".into()),
        tool: Some("echo".into()),
    }];
    let mut spec = deferred_spec(&llm, ToolMode::Native, pinned);
    spec.exposure.pinned[0].server_id = spec.servers[0].id.clone();
    world
        .agent
        .send(
            &world.owner,
            &conversation,
            "Add.",
            &spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    let first = offered(&llm, 0);
    assert_eq!(first, ["mcp__everything__echo", "search_tools"]);
    // get-sum was never shown, yet the call of a tool the assistant has is made, and the
    // tool is shown from then on.
    let messages = world
        .store
        .messages(&world.owner, &conversation)
        .await
        .unwrap();
    assert_eq!(messages[1].tool_calls[0].status, ToolCallStatus::Done);
    let second = offered(&llm, 1);
    assert!(
        second.contains(&"mcp__everything__get-sum".to_owned()),
        "{second:?}"
    );
}

#[tokio::test]
async fn auto_offers_every_tool_under_the_budget_and_defers_past_it() {
    for (budget, deferred) in [(1000, false), (3, true)] {
        let world = World::new().await;
        let llm = ScriptedLlm::start(vec![Turn::text("Hi.")]).await;
        let conversation = world.conversation().await;
        let mut spec = deferred_spec(&llm, ToolMode::Native, Vec::new());
        spec.exposure.kind = ToolExposure::Auto;
        let mut config = switchboard_agent::AgentConfig::default();
        config.defer.tools = budget;
        let agent = switchboard_agent::Agent::new(
            std::sync::Arc::clone(&world.store),
            world.manager.clone(),
            config,
        );
        agent
            .send(
                &world.owner,
                &conversation,
                "Hi.",
                &spec,
                CancellationToken::new(),
            )
            .await
            .unwrap();
        let first = offered(&llm, 0);
        assert_eq!(
            first == ["search_tools"],
            deferred,
            "budget {budget}: {first:?}"
        );
        assert_eq!(
            first.contains(&"mcp__everything__echo".to_owned()),
            !deferred
        );
    }
}

#[tokio::test]
async fn a_result_over_its_budget_reaches_the_model_as_a_preview_it_reads_on() {
    let world = World::new().await;
    let long: String = (0..120).map(|i| format!("word{i} ")).collect();
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__everything__echo", json!({"message": long})),
        Turn::tool_call("read_result", json!({"handle": "call_1", "offset": 300})),
        Turn::tool_call(
            "read_result",
            json!({"handle": "call_1", "query": "word77 "}),
        ),
        Turn::text("Read it."),
    ])
    .await;
    let conversation = world.conversation().await;
    let mut spec = deferred_spec(&llm, ToolMode::Native, Vec::new());
    spec.exposure.kind = ToolExposure::All;
    let config = switchboard_agent::AgentConfig {
        result_budget_tokens: 100,
        ..switchboard_agent::AgentConfig::default()
    };
    let agent = switchboard_agent::Agent::new(
        std::sync::Arc::clone(&world.store),
        world.manager.clone(),
        config,
    );
    let outcome = agent
        .send(
            &world.owner,
            &conversation,
            "Echo it.",
            &spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.stop, StopReason::Answered);

    // No read_result until a result was cut; then the preview with its handle.
    assert!(!offered(&llm, 0).contains(&"read_result".to_owned()));
    assert!(offered(&llm, 1).contains(&"read_result".to_owned()));
    let second = llm.requests()[1].body["messages"][3]["content"].to_string();
    assert!(second.contains("This result is"), "{second}");
    assert!(second.contains(r#"\"handle\": \"call_1\""#), "{second}");
    assert!(second.contains("word119"), "the tail is kept: {second}");
    assert!(!second.contains("word60 "), "the middle is cut: {second}");
    // The page from offset 300, and the line with the word asked for.
    let third = llm.requests()[2].body["messages"].to_string();
    assert!(third.contains("characters 300-"), "{third}");
    let fourth = llm.requests()[3].body["messages"].to_string();
    assert!(fourth.contains("word77"), "{fourth}");

    // The person keeps the whole result.
    let messages = world
        .store
        .messages(&world.owner, &conversation)
        .await
        .unwrap();
    let whole = messages[1].tool_calls[0]
        .response
        .as_ref()
        .unwrap()
        .to_string();
    assert!(
        whole.contains("word60 ") && whole.contains("word119"),
        "{whole}"
    );
}

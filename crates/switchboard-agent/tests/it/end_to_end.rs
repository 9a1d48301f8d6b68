//! The agent end to end: the scripted LLM over HTTP through the production OpenAI and
//! Anthropic clients, real MCP servers (server-everything from npm, a server on the official
//! Python SDK), SQLite persistence.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::spawn::spawn_send;

use common::e2e::{World, bodies, everything, python, run_spec};
use serde_json::json;
use switchboard_agent::{AgentEvent, ApprovalPolicy, StopReason};
use switchboard_core::ToolCallStatus;
use switchboard_llm::WireFormat;
use switchboard_store::ToolMode;
use switchboard_testkit::{ScriptedLlm, Turn};
use tokio_util::sync::CancellationToken;

fn prompt_block(server: &str, tool: &str, arguments: serde_json::Value) -> String {
    let block = json!({
        "type": "use_mcp_tool",
        "server_name": server,
        "tool_name": tool,
        "arguments": arguments,
    });
    format!("I will use a tool.\n```json\n{block:#}\n```\n")
}

/// The model's two tool calls (`echo`, then `get-sum`) written the way `mode` wants them.
fn two_calls(mode: ToolMode) -> Vec<Turn> {
    match mode {
        ToolMode::Prompt => vec![
            Turn::raw_text(prompt_block(
                "everything",
                "echo",
                json!({"message": "one"}),
            )),
            Turn::raw_text(prompt_block(
                "everything",
                "get-sum",
                json!({"a": 2, "b": 3}),
            )),
        ],
        ToolMode::Meta => vec![
            Turn::tool_call(
                "mcp_query",
                json!({"resource": "everything", "operation": "echo", "params": {"message": "one"}}),
            ),
            Turn::tool_call(
                "mcp_query",
                json!({"resource": "everything", "operation": "get-sum", "params": {"a": 2, "b": 3}}),
            ),
        ],
        _ => vec![
            Turn::tool_call("mcp__everything__echo", json!({"message": "one"})),
            Turn::tool_call("mcp__everything__get-sum", json!({"a": 2, "b": 3})),
        ],
    }
}

/// tool -> tool -> text in one mode on one wire format.
async fn three_rounds(mode: ToolMode, wire: WireFormat) {
    let world = World::new().await;
    let mut script = two_calls(mode);
    script.push(Turn::text("The sum is 5."));
    let llm = ScriptedLlm::start(script).await;
    let conversation = world.conversation().await;
    let spec = run_spec(
        &llm,
        wire,
        mode,
        vec![everything(&["echo", "get-sum"])],
        ApprovalPolicy::Ask,
    );
    let outcome = world
        .agent
        .send(
            &world.owner,
            &conversation,
            "Echo one, then add 2 and 3.",
            &spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.stop, StopReason::Answered);
    assert_eq!(outcome.tool_rounds, 2);
    assert!(
        outcome.content.ends_with("The sum is 5."),
        "{}",
        outcome.content
    );

    let messages = world
        .store
        .messages(&world.owner, &conversation)
        .await
        .unwrap();
    assert_eq!(messages.len(), 2, "one user and one assistant message");
    let calls = &messages[1].tool_calls;
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].tool_name, "echo");
    assert_eq!(calls[1].tool_name, "get-sum");
    assert!(
        calls.iter().all(|c| c.status == ToolCallStatus::Done),
        "{calls:?}"
    );

    let requests = llm.requests();
    assert_eq!(requests.len(), 3);
    let sent = bodies(&llm);
    match mode {
        ToolMode::Native => {
            assert!(sent[0].contains("mcp__everything__echo"), "{}", sent[0]);
            assert!(sent[1].contains("Echo: one"), "{}", sent[1]);
            assert!(sent[2].contains("The sum of 2 and 3 is 5"), "{}", sent[2]);
        }
        ToolMode::Meta => {
            let tools = &requests[0].body["tools"];
            assert_eq!(tools.as_array().unwrap().len(), 1, "{tools}");
            assert!(sent[0].contains("Operation 'get-sum'"), "{}", sent[0]);
            assert!(
                sent[1].contains("Tool execution successful: Echo: one"),
                "{}",
                sent[1]
            );
        }
        _ => {
            assert!(requests[0].body.get("tools").is_none(), "{}", sent[0]);
            assert!(sent[0].contains("use_mcp_tool"), "{}", sent[0]);
            assert!(
                sent[0].contains("## Server \\\"everything\\\""),
                "{}",
                sent[0]
            );
            assert!(
                sent[1].contains("Tool echo of server everything returned"),
                "{}",
                sent[1]
            );
            assert!(sent[2].contains("The sum of 2 and 3 is 5"), "{}", sent[2]);
        }
    }
    world.manager.shutdown().await;
}

#[tokio::test]
async fn native_mode_over_openai() {
    three_rounds(ToolMode::Native, WireFormat::OpenAi).await;
}

#[tokio::test]
async fn native_mode_over_anthropic() {
    three_rounds(ToolMode::Native, WireFormat::Anthropic).await;
}

#[tokio::test]
async fn prompt_mode_over_openai() {
    three_rounds(ToolMode::Prompt, WireFormat::OpenAi).await;
}

#[tokio::test]
async fn prompt_mode_over_anthropic() {
    three_rounds(ToolMode::Prompt, WireFormat::Anthropic).await;
}

#[tokio::test]
async fn meta_mode_over_openai() {
    three_rounds(ToolMode::Meta, WireFormat::OpenAi).await;
}

#[tokio::test]
async fn meta_mode_over_anthropic() {
    three_rounds(ToolMode::Meta, WireFormat::Anthropic).await;
}

/// Waits until a call of the conversation is pending without a decision; returns its ids.
async fn first_pending(
    events: &mut tokio::sync::broadcast::Receiver<switchboard_agent::OwnedEvent>,
) -> (String, String) {
    loop {
        let event = events.recv().await.unwrap();
        if let AgentEvent::ToolCallUpdated {
            message_id,
            tool_call,
            ..
        } = event.event
            && tool_call.status == ToolCallStatus::Pending
            && tool_call.approved.is_none()
        {
            return (message_id, tool_call.id.clone());
        }
    }
}

#[tokio::test]
async fn an_approval_granted_and_one_rejected() {
    let world = World::new().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_calls(vec![
            ("mcp__everything__echo", json!({"message": "approved"})),
            ("mcp__everything__get-sum", json!({"a": 1, "b": 1})),
        ]),
        Turn::text("One ran, one did not."),
    ])
    .await;
    let conversation = world.conversation().await;
    let spec = run_spec(
        &llm,
        WireFormat::OpenAi,
        ToolMode::Native,
        vec![everything(&[])],
        ApprovalPolicy::Ask,
    );
    let mut events = world.agent.events().subscribe();
    let run = spawn_send(
        &world.agent,
        &world.owner,
        &conversation,
        &spec,
        CancellationToken::new(),
    );
    let (message_id, _) = first_pending(&mut events).await;
    let stored = world
        .store
        .message(&world.owner, &message_id)
        .await
        .unwrap();
    let ids: Vec<String> = stored.tool_calls.iter().map(|c| c.id.clone()).collect();
    world
        .agent
        .decide(&world.owner, &message_id, &ids[0], true)
        .await
        .unwrap();
    world
        .agent
        .decide(&world.owner, &message_id, &ids[1], false)
        .await
        .unwrap();
    let outcome = run.await.unwrap().unwrap();
    assert_eq!(outcome.content, "One ran, one did not.");

    let stored = world
        .store
        .message(&world.owner, &message_id)
        .await
        .unwrap();
    assert_eq!(stored.tool_calls[0].status, ToolCallStatus::Done);
    assert_eq!(stored.tool_calls[1].status, ToolCallStatus::Cancelled);
    let sent = bodies(&llm);
    assert!(sent[1].contains("Echo: approved"), "{}", sent[1]);
    assert!(sent[1].contains("REJECTED"), "{}", sent[1]);
    world.manager.shutdown().await;
}

#[tokio::test]
async fn a_pending_approval_survives_a_restart() {
    let world = World::new().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__everything__echo", json!({"message": "after restart"})),
        Turn::text("Resumed."),
    ])
    .await;
    let conversation = world.conversation().await;
    let spec = run_spec(
        &llm,
        WireFormat::Anthropic,
        ToolMode::Native,
        vec![everything(&[])],
        ApprovalPolicy::Ask,
    );
    let mut events = world.agent.events().subscribe();
    let run = spawn_send(
        &world.agent,
        &world.owner,
        &conversation,
        &spec,
        CancellationToken::new(),
    );
    let (message_id, call_id) = first_pending(&mut events).await;
    // The process "dies" while the call waits: the run and its connections are gone.
    run.abort();
    let _ = run.await;
    world.manager.shutdown().await;

    let (agent, manager) = world.restarted();
    agent
        .decide(&world.owner, &message_id, &call_id, true)
        .await
        .unwrap();
    let outcome = agent
        .resume(&world.owner, &conversation, &spec, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.content, "Resumed.");
    let stored = world
        .store
        .message(&world.owner, &message_id)
        .await
        .unwrap();
    assert_eq!(stored.tool_calls[0].status, ToolCallStatus::Done);
    assert!(bodies(&llm)[1].contains("Echo: after restart"));
    manager.shutdown().await;
}

#[tokio::test]
async fn max_rounds_ends_the_turn() {
    let world = World::new().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__everything__echo", json!({"message": "1"})),
        Turn::tool_call("mcp__everything__echo", json!({"message": "2"})),
        Turn::tool_call("mcp__everything__echo", json!({"message": "3"})),
    ])
    .await;
    let conversation = world.conversation().await;
    let mut spec = run_spec(
        &llm,
        WireFormat::OpenAi,
        ToolMode::Native,
        vec![everything(&["echo"])],
        ApprovalPolicy::Ask,
    );
    spec.max_rounds = 2;
    let outcome = world
        .agent
        .send(
            &world.owner,
            &conversation,
            "loop",
            &spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.stop, StopReason::MaxRounds);
    assert_eq!(outcome.tool_rounds, 2);
    assert_eq!(llm.requests().len(), 2);
    world.manager.shutdown().await;
}

#[tokio::test]
async fn tool_errors_bad_arguments_and_unknown_tools_go_back_to_the_model() {
    let world = World::new().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_calls(vec![
            ("mcp__py__fail", json!({})),
            ("mcp__py__add", json!({"a": "two", "b": 3})),
            ("mcp__py__nope", json!({})),
        ]),
        Turn::tool_call("mcp__py__add", json!({"a": 2, "b": 3})),
        Turn::text("Fixed."),
    ])
    .await;
    let conversation = world.conversation().await;
    let spec = run_spec(
        &llm,
        WireFormat::Anthropic,
        ToolMode::Native,
        vec![python(&["fail", "add"])],
        ApprovalPolicy::Ask,
    );
    let outcome = world
        .agent
        .send(
            &world.owner,
            &conversation,
            "try",
            &spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.content, "Fixed.");
    let messages = world
        .store
        .messages(&world.owner, &conversation)
        .await
        .unwrap();
    let calls = &messages[1].tool_calls;
    assert_eq!(
        calls[0].status,
        ToolCallStatus::Error,
        "isError is an error result"
    );
    assert_eq!(calls[0].is_error, Some(true));
    assert!(
        calls[1]
            .response
            .as_ref()
            .unwrap()
            .to_string()
            .contains("MCP_INVALID_PARAMS")
    );
    assert!(
        calls[2]
            .response
            .as_ref()
            .unwrap()
            .to_string()
            .contains("MCP_TOOL_NOT_FOUND")
    );
    assert_eq!(calls[3].status, ToolCallStatus::Done);

    let second = &llm.requests()[1].body;
    let results: Vec<&serde_json::Value> = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().into_iter().flatten())
        .filter(|block| block["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 3, "{second}");
    assert!(results.iter().all(|r| r["is_error"] == true), "{second}");
    assert!(
        bodies(&llm)[2].contains('5'),
        "the corrected call's result went back"
    );
    world.manager.shutdown().await;
}

#[tokio::test]
async fn twenty_conversations_share_one_stdio_server() {
    let world = World::new().await;
    let server = everything(&["echo"]);
    let mut runs = Vec::new();
    let mut llms = Vec::new();
    for i in 0..20 {
        let llm = ScriptedLlm::start(vec![
            Turn::tool_call(
                "mcp__everything__echo",
                json!({"message": format!("conversation {i}")}),
            ),
            Turn::text(format!("done {i}")),
        ])
        .await;
        let spec = run_spec(
            &llm,
            WireFormat::OpenAi,
            ToolMode::Native,
            vec![server.clone()],
            ApprovalPolicy::Ask,
        );
        let conversation = world.conversation().await;
        runs.push(spawn_send(
            &world.agent,
            &world.owner,
            &conversation,
            &spec,
            CancellationToken::new(),
        ));
        llms.push(llm);
    }
    for (i, run) in runs.into_iter().enumerate() {
        let outcome = run.await.unwrap().unwrap();
        assert_eq!(outcome.content, format!("done {i}"));
    }
    for (i, llm) in llms.iter().enumerate() {
        let sent = bodies(llm);
        assert!(
            sent[1].contains(&format!("Echo: conversation {i}\"")),
            "{}",
            sent[1]
        );
        for j in (0..20).filter(|j| *j != i) {
            assert!(!sent[1].contains(&format!("Echo: conversation {j}\"")));
        }
    }
    assert!(
        world
            .manager
            .process_group(&world.owner, &server.id)
            .is_some(),
        "one shared connection"
    );
    world.manager.shutdown().await;
}

#[tokio::test]
async fn cancelling_a_run_cancels_its_calls_at_the_server() {
    let world = World::new().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_calls(vec![
            ("mcp__py__slow", json!({"seconds": 30})),
            ("mcp__py__echo", json!({"text": "needs approval"})),
        ]),
        Turn::tool_call("mcp__py__cancelled_count", json!({})),
        Turn::text("checked"),
    ])
    .await;
    let conversation = world.conversation().await;
    let server = python(&["slow", "cancelled_count"]);
    let spec = run_spec(
        &llm,
        WireFormat::OpenAi,
        ToolMode::Native,
        vec![server.clone()],
        ApprovalPolicy::Ask,
    );
    let mut events = world.agent.events().subscribe();
    let cancel = CancellationToken::new();
    let run = spawn_send(
        &world.agent,
        &world.owner,
        &conversation,
        &spec,
        cancel.clone(),
    );
    // Cancel once the slow call is running at the server.
    let message_id = loop {
        let event = events.recv().await.unwrap();
        if let AgentEvent::ToolCallUpdated {
            message_id,
            tool_call,
            ..
        } = event.event
            && tool_call.tool_name == "slow"
            && tool_call.status == ToolCallStatus::Invoking
        {
            break message_id;
        }
    };
    cancel.cancel();
    let outcome = run.await.unwrap().unwrap();
    assert_eq!(outcome.stop, StopReason::Cancelled);
    let stored = world
        .store
        .message(&world.owner, &message_id)
        .await
        .unwrap();
    assert!(
        stored
            .tool_calls
            .iter()
            .all(|c| c.status == ToolCallStatus::Cancelled),
        "{:?}",
        stored.tool_calls
    );

    // The server heard of it: the next turn asks the same process how many calls were
    // cancelled.
    let outcome = world
        .agent
        .send(
            &world.owner,
            &conversation,
            "how many?",
            &spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.content, "checked");
    let sent = bodies(&llm);
    assert!(
        sent.last().unwrap().contains("\"content\":\"1\""),
        "{}",
        sent.last().unwrap()
    );
    world.manager.shutdown().await;
}

#[tokio::test]
async fn images_reach_the_model_as_image_blocks() {
    let world = World::new().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__everything__get-tiny-image", json!({})),
        Turn::text("A logo."),
    ])
    .await;
    let conversation = world.conversation().await;
    let spec = run_spec(
        &llm,
        WireFormat::Anthropic,
        ToolMode::Native,
        vec![everything(&["get-tiny-image"])],
        ApprovalPolicy::Ask,
    );
    world
        .agent
        .send(
            &world.owner,
            &conversation,
            "show me",
            &spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    let second = &llm.requests()[1].body;
    let image = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().into_iter().flatten())
        .filter(|block| block["type"] == "tool_result")
        .flat_map(|block| block["content"].as_array().into_iter().flatten())
        .find(|part| part["type"] == "image")
        .unwrap_or_else(|| panic!("no image block in {second}"));
    assert_eq!(image["source"]["type"], "base64");
    assert_eq!(image["source"]["media_type"], "image/png");
    world.manager.shutdown().await;
}

#[tokio::test]
async fn calls_of_one_round_run_concurrently() {
    let world = World::new().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_calls(vec![
            ("mcp__py__slow", json!({"seconds": 0.3})),
            ("mcp__py__slow", json!({"seconds": 0.3})),
        ]),
        Turn::text("both slept"),
    ])
    .await;
    let conversation = world.conversation().await;
    let spec = run_spec(
        &llm,
        WireFormat::OpenAi,
        ToolMode::Native,
        vec![python(&["slow"])],
        ApprovalPolicy::Ask,
    );
    let mut events = world.agent.events().subscribe();
    world
        .agent
        .send(
            &world.owner,
            &conversation,
            "sleep twice",
            &spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    let mut order = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let AgentEvent::ToolCallUpdated { tool_call, .. } = event.event {
            order.push(tool_call.status);
        }
    }
    let first_done = order
        .iter()
        .position(|s| *s == ToolCallStatus::Done)
        .unwrap();
    let invoking = order[..first_done]
        .iter()
        .filter(|s| **s == ToolCallStatus::Invoking)
        .count();
    assert_eq!(
        invoking, 2,
        "both calls started before either finished: {order:?}"
    );
    world.manager.shutdown().await;
}

#[tokio::test]
async fn a_model_answer_with_nul_is_stored_without_it() {
    let world = World::new().await;
    let llm = ScriptedLlm::start(vec![Turn::text("before\0after\0")]).await;
    let conversation = world.conversation().await;
    let spec = run_spec(
        &llm,
        WireFormat::OpenAi,
        ToolMode::Native,
        vec![],
        ApprovalPolicy::Ask,
    );
    let outcome = world
        .agent
        .send(
            &world.owner,
            &conversation,
            "say it",
            &spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.stop, StopReason::Answered);
    assert_eq!(outcome.content, "beforeafter");
    let messages = world
        .store
        .messages(&world.owner, &conversation)
        .await
        .unwrap();
    assert_eq!(messages.last().unwrap().content, "beforeafter");
    world.manager.shutdown().await;
}

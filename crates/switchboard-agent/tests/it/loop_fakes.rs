//! The loop's bookkeeping with an in-process model and tools: rounds, approvals, restarts,
//! max rounds, bad calls. End-to-end behaviour over HTTP and real MCP servers is in
//! `tests/end_to_end.rs`.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::spawn::spawn_send;

use std::sync::Arc;

use common::fakes::{Answer, FakeBackend, FakeProvider, echo_server};
use serde_json::json;
use switchboard_agent::{Agent, AgentConfig, ApprovalPolicy, RunSpec, StopReason};
use switchboard_core::{OwnerId, ToolCallStatus};
use switchboard_store::{NewConversation, Store, ToolMode};
use tokio_util::sync::CancellationToken;

struct Setup {
    _dir: tempfile::TempDir,
    store: Arc<dyn Store>,
    owner: OwnerId,
    conversation: String,
    backend: Arc<FakeBackend>,
}

async fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let (store, owner) = common::fakes::local_store(dir.path()).await;
    let conversation = store
        .create_conversation(&owner, &NewConversation::default())
        .await
        .unwrap()
        .id;
    Setup {
        _dir: dir,
        store,
        owner,
        conversation,
        backend: Arc::new(FakeBackend::default()),
    }
}

fn spec(provider: Arc<FakeProvider>, approval: ApprovalPolicy, auto: bool) -> RunSpec {
    let mut server = echo_server();
    if auto {
        server.auto_approved_tools.insert("echo".into());
    }
    RunSpec {
        provider,
        model: "m".into(),
        system_prompt: "Be brief.".into(),
        tool_mode: ToolMode::Native,
        max_rounds: 20,
        servers: vec![server],
        nodes: Vec::new(),
        variables: Vec::new(),
        approval,
        max_tokens: None,
        temperature: None,
        exposure: Default::default(),
    }
}

fn echo(text: &str) -> Answer {
    Answer::Calls(vec![("mcp__fake__echo".into(), json!({"text": text}))])
}

#[tokio::test]
async fn tool_then_tool_then_text_in_one_assistant_message() {
    let s = setup().await;
    let provider = FakeProvider::new(vec![echo("one"), echo("two"), Answer::Text("done".into())]);
    let agent = Agent::new(
        Arc::clone(&s.store),
        s.backend.clone(),
        AgentConfig::default(),
    );
    let outcome = agent
        .send(
            &s.owner,
            &s.conversation,
            "go",
            &spec(provider.clone(), ApprovalPolicy::Ask, true),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.stop, StopReason::Answered);
    assert_eq!(outcome.content, "done");
    assert_eq!(outcome.tool_rounds, 2);
    let messages = s.store.messages(&s.owner, &s.conversation).await.unwrap();
    assert_eq!(messages.len(), 2, "user + one assistant message");
    let calls = &messages[1].tool_calls;
    assert_eq!(calls.len(), 2);
    assert!(calls.iter().all(|c| c.status == ToolCallStatus::Done));
    assert_eq!((calls[0].round, calls[1].round), (0, 1));
    // The third request carried both rounds and both results.
    let requests = provider.requests.lock().unwrap();
    assert_eq!(requests.len(), 3);
    assert_eq!(
        requests[2].messages.len(),
        5,
        "user, call, result, call, result"
    );
    assert_eq!(requests[0].tools[0].name, "mcp__fake__echo");
    assert_eq!(requests[0].system.as_deref(), Some("Be brief."));
}

#[tokio::test]
async fn a_pending_call_waits_survives_a_restart_and_runs_when_approved() {
    let s = setup().await;
    let provider = FakeProvider::new(vec![echo("secret"), Answer::Text("ok".into())]);
    let first = Agent::new(
        Arc::clone(&s.store),
        s.backend.clone(),
        AgentConfig::default(),
    );
    let run_spec = spec(provider, ApprovalPolicy::Ask, false);
    let cancel = CancellationToken::new();
    let waiting = spawn_send(&first, &s.owner, &s.conversation, &run_spec, cancel.clone());
    let mut events = first.events().subscribe();
    // Wait until the call is recorded as pending.
    let message_id = loop {
        let event = events.recv().await.unwrap();
        if let switchboard_agent::AgentEvent::ToolCallUpdated {
            message_id,
            tool_call,
            ..
        } = event.event
        {
            assert_eq!(tool_call.status, ToolCallStatus::Pending);
            break message_id;
        }
    };
    // "Restart": the first agent goes away without a decision.
    waiting.abort();
    drop(first);
    assert!(s.backend.calls.lock().unwrap().is_empty());

    let second = Agent::new(
        Arc::clone(&s.store),
        s.backend.clone(),
        AgentConfig::default(),
    );
    let stored = s.store.message(&s.owner, &message_id).await.unwrap();
    assert_eq!(stored.tool_calls[0].status, ToolCallStatus::Pending);
    let call_id = stored.tool_calls[0].id.clone();
    second
        .decide(&s.owner, &message_id, &call_id, true)
        .await
        .unwrap();
    let outcome = second
        .resume(
            &s.owner,
            &s.conversation,
            &run_spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.content, "ok");
    assert_eq!(s.backend.calls.lock().unwrap().len(), 1);
    let err = second
        .decide(&s.owner, &message_id, &call_id, false)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("not waiting"), "{err}");
}

#[tokio::test]
async fn a_rejection_goes_back_to_the_model_as_the_result() {
    let s = setup().await;
    let provider = FakeProvider::new(vec![echo("x"), Answer::Text("understood".into())]);
    let agent = Agent::new(
        Arc::clone(&s.store),
        s.backend.clone(),
        AgentConfig::default(),
    );
    let outcome = agent
        .send(
            &s.owner,
            &s.conversation,
            "go",
            &spec(provider.clone(), ApprovalPolicy::RejectUnapproved, false),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.content, "understood");
    assert!(s.backend.calls.lock().unwrap().is_empty());
    let last = serde_json::to_string(&provider.requests.lock().unwrap()[1].messages).unwrap();
    assert!(last.contains("REJECTED"), "{last}");
    let messages = s.store.messages(&s.owner, &s.conversation).await.unwrap();
    assert_eq!(messages[1].tool_calls[0].status, ToolCallStatus::Cancelled);
}

#[tokio::test]
async fn max_rounds_stops_the_loop() {
    let s = setup().await;
    let provider = FakeProvider::cycling(vec![echo("again")]);
    let agent = Agent::new(
        Arc::clone(&s.store),
        s.backend.clone(),
        AgentConfig::default(),
    );
    let mut run_spec = spec(provider, ApprovalPolicy::Ask, true);
    run_spec.max_rounds = 3;
    let outcome = agent
        .send(
            &s.owner,
            &s.conversation,
            "go",
            &run_spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.stop, StopReason::MaxRounds);
    assert_eq!(outcome.tool_rounds, 3);
    assert_eq!(s.backend.calls.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn the_agents_max_rounds_caps_the_specs() {
    let s = setup().await;
    let provider = FakeProvider::cycling(vec![echo("again")]);
    let agent = Agent::new(
        Arc::clone(&s.store),
        s.backend.clone(),
        AgentConfig {
            max_rounds: 2,
            ..AgentConfig::default()
        },
    );
    let run_spec = spec(provider, ApprovalPolicy::Ask, true);
    assert_eq!(run_spec.max_rounds, 20);
    let outcome = agent
        .send(
            &s.owner,
            &s.conversation,
            "go",
            &run_spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.stop, StopReason::MaxRounds);
    assert_eq!(outcome.tool_rounds, 2);
    assert_eq!(s.backend.calls.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn unknown_tools_and_bad_arguments_are_fed_back_without_calling_anything() {
    let s = setup().await;
    let provider = FakeProvider::new(vec![
        Answer::Calls(vec![
            ("mcp__fake__nope".into(), json!({})),
            ("mcp__fake__echo".into(), json!({"text": 5})),
        ]),
        echo("fixed"),
        Answer::Text("done".into()),
    ]);
    let agent = Agent::new(
        Arc::clone(&s.store),
        s.backend.clone(),
        AgentConfig::default(),
    );
    agent
        .send(
            &s.owner,
            &s.conversation,
            "go",
            &spec(provider.clone(), ApprovalPolicy::Ask, true),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    let requests = provider.requests.lock().unwrap();
    let second = serde_json::to_string(&requests[1].messages).unwrap();
    assert!(second.contains("MCP_TOOL_NOT_FOUND"), "{second}");
    assert!(second.contains("MCP_INVALID_PARAMS"), "{second}");
    let calls = s.backend.calls.lock().unwrap();
    assert_eq!(calls.len(), 1, "only the corrected call ran");
    assert_eq!(calls[0].1["text"], "fixed");
}

#[tokio::test]
async fn call_ids_reused_by_the_provider_stay_unique_in_the_turn() {
    let s = setup().await;
    let provider = Arc::new(FakeProvider {
        answers: std::sync::Mutex::new(
            vec![echo("a"), echo("b"), Answer::Text("ok".into())].into(),
        ),
        reuse_ids: true,
        ..FakeProvider::default()
    });
    let agent = Agent::new(
        Arc::clone(&s.store),
        s.backend.clone(),
        AgentConfig::default(),
    );
    let outcome = agent
        .send(
            &s.owner,
            &s.conversation,
            "go",
            &spec(provider, ApprovalPolicy::Ask, true),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.content, "ok");
    let messages = s.store.messages(&s.owner, &s.conversation).await.unwrap();
    let ids: Vec<&str> = messages[1]
        .tool_calls
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(ids, ["call_0", "r1_call_0"]);
}

#[tokio::test]
async fn a_round_cut_off_mid_answer_is_asked_again_on_resume() {
    let s = setup().await;
    let provider = FakeProvider::new(vec![
        Answer::Broken("half an ans".into()),
        Answer::Text("the whole answer".into()),
    ]);
    let agent = Agent::new(
        Arc::clone(&s.store),
        s.backend.clone(),
        AgentConfig::default(),
    );
    let run_spec = spec(Arc::clone(&provider), ApprovalPolicy::Ask, true);
    let failed = agent
        .send(
            &s.owner,
            &s.conversation,
            "go",
            &run_spec,
            CancellationToken::new(),
        )
        .await;
    assert!(failed.is_err());
    let outcome = agent
        .resume(
            &s.owner,
            &s.conversation,
            &run_spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.content, "the whole answer");
    // The round is asked anew: the text it broke off with is not shown as the model's.
    let asked_again = format!("{:?}", provider.requests.lock().unwrap()[1].messages);
    assert!(!asked_again.contains("half an ans"), "{asked_again}");
}

#[tokio::test]
async fn a_cancelled_turn_stays_cancelled_and_a_busy_conversation_refuses_a_second_run() {
    let s = setup().await;
    let provider = FakeProvider::new(vec![echo("x"), Answer::Text("never".into())]);
    let agent = Agent::new(
        Arc::clone(&s.store),
        s.backend.clone(),
        AgentConfig::default(),
    );
    let run_spec = spec(provider, ApprovalPolicy::Ask, false);
    let cancel = CancellationToken::new();
    let mut events = agent.events().subscribe();
    let run = spawn_send(&agent, &s.owner, &s.conversation, &run_spec, cancel.clone());
    loop {
        if let switchboard_agent::AgentEvent::ToolCallUpdated { .. } =
            events.recv().await.unwrap().event
        {
            break;
        }
    }
    let busy = agent
        .send(
            &s.owner,
            &s.conversation,
            "again",
            &run_spec,
            CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(busy, switchboard_agent::AgentError::Busy { .. }),
        "{busy}"
    );
    cancel.cancel();
    assert_eq!(run.await.unwrap().unwrap().stop, StopReason::Cancelled);
    let resumed = agent
        .resume(
            &s.owner,
            &s.conversation,
            &run_spec,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(
        resumed.stop,
        StopReason::Cancelled,
        "resuming does not reopen it"
    );
    assert_eq!(
        s.store
            .messages(&s.owner, &s.conversation)
            .await
            .unwrap()
            .len(),
        2
    );
}

/// Counts what the agent reports.
#[derive(Default)]
struct Observed(std::sync::Mutex<Vec<(String, String)>>);

impl switchboard_agent::AgentObserver for Observed {
    fn tool_left_out(&self, server: &str, tool: &str) {
        self.0.lock().unwrap().push((server.into(), tool.into()));
    }
}

#[tokio::test]
async fn a_tool_whose_schema_does_not_convert_is_left_out_and_reported() {
    let s = setup().await;
    let backend = Arc::new(FakeBackend {
        with_broken_tool: true,
        ..FakeBackend::default()
    });
    let observed = Arc::new(Observed::default());
    let provider = FakeProvider::new(vec![Answer::Text("fine".into())]);
    let agent = Agent::new(Arc::clone(&s.store), backend, AgentConfig::default())
        .with_observer(observed.clone());
    agent
        .send(
            &s.owner,
            &s.conversation,
            "go",
            &spec(provider.clone(), ApprovalPolicy::Ask, true),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    let offered: Vec<String> = provider.requests.lock().unwrap()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(offered, ["mcp__fake__echo"]);
    assert_eq!(
        *observed.0.lock().unwrap(),
        [("fake".to_owned(), "broken".to_owned())]
    );
}

#[tokio::test]
async fn the_next_message_sent_on_the_completion_event_is_taken() {
    // `message.completed` was announced before the run gave the conversation up, so
    // a client sending its next message on that event was refused as busy.
    const TURNS: usize = 200;
    let s = setup().await;
    let provider = FakeProvider::new(
        (0..TURNS)
            .map(|i| Answer::Text(format!("answer {i}")))
            .collect(),
    );
    let agent = Agent::new(
        Arc::clone(&s.store),
        s.backend.clone(),
        AgentConfig::default(),
    );
    let run_spec = spec(provider, ApprovalPolicy::Ask, false);
    let mut events = agent.events().subscribe();
    let mut run = spawn_send(
        &agent,
        &s.owner,
        &s.conversation,
        &run_spec,
        CancellationToken::new(),
    );
    for turn in 1..TURNS {
        loop {
            if let switchboard_agent::AgentEvent::MessageCompleted { .. } =
                events.recv().await.unwrap().event
            {
                break;
            }
        }
        let claim = agent.claim(&s.conversation).await;
        assert!(claim.is_ok(), "turn {turn}: {:?}", claim.err());
        claim.unwrap().release().await;
        run.await.unwrap().unwrap();
        run = spawn_send(
            &agent,
            &s.owner,
            &s.conversation,
            &run_spec,
            CancellationToken::new(),
        );
    }
    assert_eq!(run.await.unwrap().unwrap().stop, StopReason::Answered);
}

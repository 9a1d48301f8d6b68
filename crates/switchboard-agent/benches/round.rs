//! Agent overhead per round, excluding model and tool time: an in-process model that answers
//! at once and a tool that returns at once, with SQLite persistence (a temporary file, WAL,
//! synchronous=NORMAL). One turn is two rounds: a tool call, then the answer, run on a worker
//! thread of the runtime as `serve` runs it. Beside it, the store calls a round is made of.
//!
//! `cargo bench -p switchboard-agent --bench round`

// Bench code: a failed unwrap is a failed run.
#![allow(clippy::unwrap_used)]

#[path = "../tests/it/common/fakes.rs"]
mod fakes;

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use fakes::{Answer, FakeBackend, FakeProvider, echo_server};
use serde_json::json;
use switchboard_agent::{Agent, AgentConfig, ApprovalPolicy, RunSpec};
use switchboard_store::{NewConversation, ToolMode};
use tokio_util::sync::CancellationToken;

const ROUNDS_PER_TURN: u32 = 2;

fn rounds(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (agent, owner, store) = runtime.block_on(async {
        let (store, owner) = fakes::local_store(dir.path()).await;
        let agent = Agent::new(
            Arc::clone(&store),
            Arc::new(FakeBackend::default()),
            AgentConfig::default(),
        );
        (agent, owner, store)
    });
    let mut server = echo_server();
    server.auto_approved_tools.insert("echo".into());
    let spec = RunSpec {
        provider: FakeProvider::cycling(vec![
            Answer::Calls(vec![("mcp__fake__echo".into(), json!({"text": "hi"}))]),
            Answer::Text("The tool said hi.".into()),
        ]),
        model: "m".into(),
        system_prompt: String::new(),
        tool_mode: ToolMode::Native,
        max_rounds: 20,
        servers: vec![server],
        nodes: Vec::new(),
        variables: Vec::new(),
        approval: ApprovalPolicy::Ask,
        max_tokens: None,
        temperature: None,
        exposure: Default::default(),
    };
    let (agent, spec) = (Arc::new(agent), Arc::new(spec));
    c.bench_function("agent round (tool call or answer), sqlite", |b| {
        b.iter_custom(|turns| {
            let (agent, owner, store, spec) = (
                Arc::clone(&agent),
                owner.clone(),
                Arc::clone(&store),
                Arc::clone(&spec),
            );
            // On a worker thread of the runtime, as `serve` runs a turn.
            runtime
                .block_on(runtime.spawn(async move {
                    let mut total = Duration::ZERO;
                    for _ in 0..turns {
                        let conversation = store
                            .create_conversation(&owner, &NewConversation::default())
                            .await
                            .unwrap();
                        let started = Instant::now();
                        agent
                            .send(
                                &owner,
                                &conversation.id,
                                "hello",
                                &spec,
                                CancellationToken::new(),
                            )
                            .await
                            .unwrap();
                        total += started.elapsed() / ROUNDS_PER_TURN;
                    }
                    total
                }))
                .unwrap()
        });
    });
}

/// The store calls a round makes, one at a time, on the same kind of store: what the round's
/// figure is made of.
fn store_calls(c: &mut Criterion) {
    use switchboard_core::{ServerId, ToolCallRecord, ToolCallStatus};
    use switchboard_store::{MessageRole, NewMessage};

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (store, owner, conversation, message) = runtime.block_on(async {
        let (store, owner) = fakes::local_store(dir.path()).await;
        let conversation = store
            .create_conversation(&owner, &NewConversation::default())
            .await
            .unwrap();
        let mut new = NewMessage::text(MessageRole::Assistant, "hello");
        new.tool_calls.push(ToolCallRecord {
            id: "call_1".into(),
            server_id: ServerId("fake".into()),
            server_name: "fake".into(),
            tool_name: "echo".into(),
            display_name: "mcp__fake__echo".into(),
            arguments: serde_json::Map::new(),
            status: ToolCallStatus::Pending,
            response: None,
            is_error: None,
            round: 0,
            approved: Some(true),
            question: None,
            pending_input: None,
            task: None,
            resolved_arguments: None,
            mapped_parameters: Default::default(),
        });
        let message = store
            .append_message(&owner, &conversation.id, &new)
            .await
            .unwrap();
        (store, owner, conversation.id, message.id)
    });
    let (owner, conversation, message) =
        (Arc::new(owner), Arc::new(conversation), Arc::new(message));
    let mut group = c.benchmark_group("store call");
    group.bench_function("messages", |b| {
        let (store, owner, conversation) = (store.clone(), owner.clone(), conversation.clone());
        b.iter_custom(on_worker(&runtime, move || {
            let (store, owner, conversation) = (store.clone(), owner.clone(), conversation.clone());
            async move {
                store.messages(&owner, &conversation).await.unwrap();
            }
        }));
    });
    group.bench_function("set_message_content", |b| {
        let (store, owner, message) = (store.clone(), owner.clone(), message.clone());
        b.iter_custom(on_worker(&runtime, move || {
            let (store, owner, message) = (store.clone(), owner.clone(), message.clone());
            async move {
                store
                    .set_message_content(&owner, &message, "hello", None)
                    .await
                    .unwrap();
            }
        }));
    });
    group.bench_function("update_tool_call", |b| {
        let (store, owner, message) = (store.clone(), owner.clone(), message.clone());
        b.iter_custom(on_worker(&runtime, move || {
            let (store, owner, message) = (store.clone(), owner.clone(), message.clone());
            async move {
                store
                    .update_tool_call(&owner, &message, "call_1", &|c: &mut ToolCallRecord| {
                        c.is_error = Some(false);
                        Ok(())
                    })
                    .await
                    .unwrap();
            }
        }));
    });
    group.bench_function("lease_run and release_run", |b| {
        let (store, conversation) = (store.clone(), conversation.clone());
        b.iter_custom(on_worker(&runtime, move || {
            let (store, conversation) = (store.clone(), conversation.clone());
            async move {
                store
                    .lease_run(&conversation, "bench", Duration::from_secs(15))
                    .await
                    .unwrap();
                store.release_run(&conversation, "bench").await.unwrap();
            }
        }));
    });
    group.finish();
}

/// Times `n` runs of `call` one after another on a worker thread of `runtime`.
fn on_worker<F, Fut>(runtime: &tokio::runtime::Runtime, call: F) -> impl FnMut(u64) -> Duration
where
    F: Fn() -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let handle = runtime.handle().clone();
    move |n| {
        let call = call.clone();
        handle
            .block_on(handle.spawn(async move {
                let started = Instant::now();
                for _ in 0..n {
                    call().await;
                }
                started.elapsed()
            }))
            .unwrap()
    }
}

criterion_group!(benches, rounds, store_calls);
criterion_main!(benches);

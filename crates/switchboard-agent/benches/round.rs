//! Agent overhead per round, excluding model and tool time: an in-process model that answers
//! at once and a tool that returns at once, with SQLite persistence (a temporary file, WAL,
//! synchronous=FULL). One turn is two rounds: a tool call, then the answer.
//!
//! `cargo bench -p switchboard-agent --bench round`

// Bench code: a failed unwrap is a failed run.
#![allow(clippy::unwrap_used)]

#[path = "../tests/common/fakes.rs"]
mod fakes;

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use fakes::{Answer, FakeBackend, FakeProvider, echo_server};
use serde_json::json;
use switchboard_agent::{Agent, AgentConfig, ApprovalPolicy, RunSpec};
use switchboard_core::OwnerId;
use switchboard_store::{NewConversation, Role, StoreConfig, ToolMode};
use tokio_util::sync::CancellationToken;

const ROUNDS_PER_TURN: u32 = 2;

fn rounds(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (agent, owner, store) = runtime.block_on(async {
        let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
            .await
            .unwrap();
        let owner = store
            .ensure_user(&OwnerId::local(), "local", Role::Admin)
            .await
            .unwrap()
            .id;
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
    };
    c.bench_function("agent round (tool call or answer), sqlite", |b| {
        b.iter_custom(|turns| {
            runtime.block_on(async {
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
            })
        });
    });
}

criterion_group!(benches, rounds);
criterion_main!(benches);

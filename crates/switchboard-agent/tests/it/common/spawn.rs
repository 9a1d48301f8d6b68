//! A turn run in the background, for tests that act while it waits (approvals, cancellation).

#![allow(dead_code)]

use switchboard_agent::{Agent, AgentError, RunOutcome, RunSpec};
use switchboard_core::OwnerId;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// `agent.send(owner, conversation, "go", spec, cancel)` on its own task.
pub fn spawn_send(
    agent: &Agent,
    owner: &OwnerId,
    conversation: &str,
    spec: &RunSpec,
    cancel: CancellationToken,
) -> JoinHandle<Result<RunOutcome, AgentError>> {
    let (agent, owner, conversation, spec) = (
        agent.clone(),
        owner.clone(),
        conversation.to_owned(),
        spec.clone(),
    );
    tokio::spawn(async move { agent.send(&owner, &conversation, "go", &spec, cancel).await })
}

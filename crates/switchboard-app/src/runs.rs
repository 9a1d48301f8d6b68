//! Runs in the background of requests: a message is stored, the request is answered (or
//! streams the run's events), and the run goes on in a task this service tracks, so it can be
//! cancelled, resumed after a decision, and finished or marked when the server stops.

mod again;
mod decisions;
mod spec;
mod tasks;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use switchboard_agent::input::{ResourceChanges, UserInput};
use switchboard_agent::{Agent, AgentError, Claim, RunSpec, StopReason};
use switchboard_core::OwnerId;
use switchboard_mcp::ServerPool;
use switchboard_store::{Entity, Message, Store, StoreError};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use switchboard_agent::EnvProvider;

use crate::destinations::ProviderClients;
use crate::error::AppError;
use crate::limits::{SlotGuard, Slots};
use crate::metered::MeteredProvider;
use crate::metrics::Metrics;

pub(crate) use spec::resolve_error;
pub use spec::{conversation_request, run_spec};
pub(crate) use tasks::ChatTasks;
pub use tasks::OnPendingTask;

/// The background runs of this process.
pub struct Runs {
    agent: Agent,
    store: Arc<dyn Store>,
    tracker: TaskTracker,
    /// Each running conversation's cancel token.
    cancels: Arc<Mutex<HashMap<String, CancellationToken>>>,
    metrics: Arc<Metrics>,
    env_provider: Option<EnvProvider>,
    /// Builds stored providers' clients (members' behind the destination guard).
    providers: ProviderClients,
    /// Runs going on per user (`Limits::max_runs`).
    slots: Slots,
    /// Messages a user may keep (`Limits::max_messages`).
    max_messages: u32,
    /// Where attached resources are read and prompts fetched.
    pool: Arc<dyn ServerPool>,
    /// Which attached resources changed since they were read (read again before a run).
    changes: ResourceChanges,
}

/// What the run service allows each person.
pub struct RunLimits {
    /// Runs going on at once.
    pub max_runs: usize,
    /// Messages kept in all their conversations: a turn is refused past it.
    pub max_messages: u32,
}

/// What a run service reads servers through.
pub struct RunServers {
    pub pool: Arc<dyn ServerPool>,
    pub changes: ResourceChanges,
}

impl Runs {
    /// The run service: `env_provider` for people who have stored none, each person within
    /// `limits`, and stored providers' clients built with `providers` (members' behind the
    /// destination guard).
    pub fn new(
        agent: Agent,
        store: Arc<dyn Store>,
        metrics: Arc<Metrics>,
        limits: RunLimits,
        env_provider: Option<EnvProvider>,
        providers: ProviderClients,
        servers: RunServers,
    ) -> Self {
        Self {
            pool: servers.pool,
            changes: servers.changes,
            providers,
            env_provider,
            metrics,
            agent,
            store,
            tracker: TaskTracker::new(),
            cancels: Arc::default(),
            slots: Slots::new(limits.max_runs),
            max_messages: limits.max_messages,
        }
    }

    /// Stores the user's message and answers it in the background. Everything that can be
    /// refused (no such conversation, no provider, a run already going, as many runs going on
    /// for the user as they may have: 429 `RATE_LIMITED`, as many messages kept as they may:
    /// 403 `QUOTA_EXCEEDED`, a last turn still waiting on tasks: 409 `TASK_PENDING` unless
    /// `on_pending` cancels them) is refused before the message is stored.
    pub async fn send(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
        input: UserInput,
        on_pending: OnPendingTask,
    ) -> Result<Message, AppError> {
        let conversation = self.store.conversation(owner, conversation_id).await?;
        self.check_pending(owner, conversation_id, on_pending)
            .await?;
        if self.store.message_count(owner).await? >= u64::from(self.max_messages) {
            return Err(StoreError::QuotaExceeded {
                entity: Entity::Message,
                limit: self.max_messages,
            }
            .into());
        }
        let spec = self.spec(owner, &conversation).await?;
        let slot = self.slots.try_take(owner).ok_or(AppError::TooManyRuns {
            limit: self.slots.limit(),
        })?;
        // Resources read and the prompt fetched before the conversation is claimed: a server
        // that refuses leaves nothing behind.
        let message =
            switchboard_agent::input::compose(self.pool.as_ref(), owner, &spec.servers, input)
                .await?;
        let claim = self.agent.claim(conversation_id).await?;
        self.settle_pending(&claim, owner, on_pending).await?;
        let message = self.agent.post_message(&claim, owner, &message).await?;
        self.spawn(claim, owner.clone(), spec, slot);
        Ok(message)
    }

    /// Goes on with the turn of `message_id` in the background after a decision on one of
    /// its calls, unless a run already has it (here or on another replica: that run finds the
    /// decision by itself) or nothing in it waits any more (that run already finished it).
    ///
    /// `spec` is [`Runs::spec_for`] the conversation, settled before the decision is stored so
    /// that a conversation that cannot run (its provider was deleted) refuses the decision
    /// rather than store one nothing acts on. Failures here are logged: the decision is
    /// already stored and a later message or decision goes on from it.
    pub async fn resume_after_decision(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
        message_id: &str,
        spec: RunSpec,
    ) {
        let claim = match self.agent.claim(conversation_id).await {
            Ok(claim) => claim,
            Err(AgentError::Busy { .. }) => return,
            Err(error) => {
                tracing::warn!(%error, conversation = %conversation_id, "cannot resume after a decision");
                return;
            }
        };
        // Read under the claim: a run that held it before has finished with the turn.
        match self.store.message(owner, message_id).await {
            Ok(message) if message.tool_calls.iter().any(|c| !c.status.is_terminal()) => {
                // Counted, but not refused: the run was admitted when its message was sent,
                // and a decision only lets it go on.
                let slot = self.slots.take_anyway(owner);
                self.spawn(claim, owner.clone(), spec, slot);
            }
            Ok(_) => claim.release().await,
            Err(error) => {
                tracing::warn!(%error, conversation = %conversation_id, "cannot resume after a decision");
                claim.release().await;
            }
        }
    }

    /// The run spec of the conversation.
    pub async fn spec_for(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
    ) -> Result<RunSpec, AppError> {
        let conversation = self.store.conversation(owner, conversation_id).await?;
        self.spec(owner, &conversation).await
    }

    /// The conversation's run spec, its model calls measured.
    async fn spec(
        &self,
        owner: &OwnerId,
        conversation: &switchboard_store::Conversation,
    ) -> Result<RunSpec, AppError> {
        let mut spec = run_spec(
            self.store.as_ref(),
            owner,
            conversation,
            self.env_provider.as_ref(),
            &self.providers,
        )
        .await?;
        spec.provider = Arc::new(MeteredProvider::new(
            spec.provider,
            Arc::clone(&self.metrics),
        ));
        Ok(spec)
    }

    /// What this service reads servers through (for a service that replaces it).
    pub fn servers(&self) -> RunServers {
        RunServers {
            pool: Arc::clone(&self.pool),
            changes: self.changes.clone(),
        }
    }

    /// Cancels the conversation's run; `false` if it has none here.
    fn cancel_running(&self, conversation_id: &str) -> bool {
        let cancels = self.cancels.lock().unwrap_or_else(PoisonError::into_inner);
        cancels
            .get(conversation_id)
            .map(CancellationToken::cancel)
            .is_some()
    }

    fn spawn(&self, claim: Claim, owner: OwnerId, spec: RunSpec, slot: SlotGuard) {
        let conversation_id = claim.conversation_id().to_owned();
        let cancel = CancellationToken::new();
        self.cancels
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(conversation_id.clone(), cancel.clone());
        let agent = self.agent.clone();
        let cancels = Arc::clone(&self.cancels);
        let (pool, store, changes) = (
            Arc::clone(&self.pool),
            Arc::clone(&self.store),
            self.changes.clone(),
        );
        self.tracker.spawn(async move {
            // Attached resources that changed since they were read are read again first.
            if let Err(error) = switchboard_agent::input::refresh(
                pool.as_ref(),
                store.as_ref(),
                &changes,
                &owner,
                &conversation_id,
                &spec.servers,
            )
            .await
            {
                tracing::debug!(conversation = %conversation_id, %error, "attachments not refreshed");
            }
            let mut claim = claim;
            loop {
                let outcome = agent.run(claim, &owner, &spec, cancel.clone()).await;
                let parked = match outcome {
                    Ok(outcome) if outcome.stop == StopReason::WaitingOnTasks => outcome,
                    Ok(_) => break,
                    Err(error) => {
                        tracing::debug!(conversation = %conversation_id, %error, "run ended without an answer");
                        break;
                    }
                };
                // A task that ended just as the run parked found the conversation still
                // claimed and left its turn to this run: it goes on here.
                match tasks::claim_if_it_goes_on(
                    &agent,
                    &owner,
                    &conversation_id,
                    &parked.message_id,
                )
                .await
                {
                    Some(again) => claim = again,
                    None => break,
                }
            }
            cancels
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&conversation_id);
            drop(slot);
        });
    }

    /// Stops the runs for a shutdown: runs waiting for decisions return at once (their calls
    /// stay pending and go on after the restart); the others get `grace` to finish; those
    /// still going are then cancelled, which marks their turn and calls cancelled.
    pub async fn shutdown(&self, grace: Duration) {
        self.agent.stop_waiting();
        self.tracker.close();
        if tokio::time::timeout(grace, self.tracker.wait())
            .await
            .is_ok()
        {
            return;
        }
        let cancels: Vec<CancellationToken> = self
            .cancels
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect();
        tracing::warn!(runs = cancels.len(), "cancelling the runs still going");
        for cancel in cancels {
            cancel.cancel();
        }
        // Marking a cancelled run is a few writes; a store that hangs must not hold the exit.
        let _ = tokio::time::timeout(CANCEL_GRACE, self.tracker.wait()).await;
    }
}

/// How long cancelled runs get to record that they were cancelled.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

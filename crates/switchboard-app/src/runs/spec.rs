//! A conversation's run as the server asks for it: its assistant and its server limit
//! (seed 000 `serverId`), resolved by [`switchboard_agent::resolve`] with stored providers'
//! clients from [`ProviderClients`] (members' behind the destination guard).

use std::sync::Arc;

use async_trait::async_trait;
use switchboard_agent::{
    ApprovalPolicy, ClientSource, EnvProvider, ResolveError, RunRequest, RunSpec, resolve,
};
use switchboard_core::OwnerId;
use switchboard_llm::Provider;
use switchboard_store::{Conversation, MessageRole, Store};

use crate::destinations::ProviderClients;
use crate::error::AppError;

/// The run spec for `conversation`: its assistant's settings and servers (only its limit
/// server when it has one), its latest system message, if any, as the system prompt. Calls of tools that are not auto-approved wait for a decision
/// (`POST /api/messages/{id}/tool-confirm`).
pub async fn run_spec(
    store: &dyn Store,
    owner: &OwnerId,
    conversation: &Conversation,
    env_provider: Option<&EnvProvider>,
    providers: &ProviderClients,
) -> Result<RunSpec, AppError> {
    let assistant = match &conversation.assistant_id {
        Some(id) => Some(store.assistant(owner, id).await?),
        None => None,
    };
    // The conversation's latest system message (seed 000's `ChatMessage` role `system`).
    let system_prompt = store
        .messages(owner, &conversation.id)
        .await?
        .into_iter()
        .rev()
        .find(|m| m.role == MessageRole::System)
        .map(|m| m.content);
    let request = RunRequest {
        assistant,
        system_prompt,
        only_server: conversation.server_id.clone(),
        approval: ApprovalPolicy::Ask,
        ..RunRequest::default()
    };
    match resolve(store, owner, request, env_provider, providers).await {
        Ok(plan) => Ok(plan.spec),
        Err(ResolveError::NoProvider) => Err(AppError::NoProvider),
        Err(ResolveError::NoModel { variable }) => Err(AppError::NoModel { variable }),
        Err(ResolveError::Store(e)) => Err(e.into()),
        Err(ResolveError::Client(e)) => Err(e),
    }
}

#[async_trait]
impl ClientSource for ProviderClients {
    type Error = AppError;
    async fn client(
        &self,
        owner: &OwnerId,
        stored: &switchboard_store::Provider,
    ) -> Result<Arc<dyn Provider>, AppError> {
        self.client_for(owner, stored).await
    }
}

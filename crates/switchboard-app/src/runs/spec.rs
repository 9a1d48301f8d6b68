//! A conversation's run as the server asks for it: its assistant, its server limit (seed 000
//! `serverId`) and the chat's own settings, resolved by [`switchboard_agent::resolve`] with stored providers'
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

/// What `conversation` asks of its runs: its assistant, its server limit, and the chat's own
/// model, system prompt and temperature. The system prompt is the chat's, else its latest
/// system message (seed 000's `ChatMessage` role `system`), else the assistant's. Calls of
/// tools that are not auto-approved wait for a decision (`POST /api/messages/{id}/tool-confirm`).
pub async fn conversation_request(
    store: &dyn Store,
    owner: &OwnerId,
    conversation: &Conversation,
) -> Result<RunRequest, AppError> {
    let assistant = match &conversation.assistant_id {
        Some(id) => Some(store.assistant(owner, id).await?),
        None => None,
    };
    let settings = &conversation.settings;
    let system_prompt = match &settings.system_prompt {
        Some(prompt) => Some(prompt.clone()),
        None => store
            .messages(owner, &conversation.id)
            .await?
            .into_iter()
            .rev()
            .find(|m| m.role == MessageRole::System)
            .map(|m| m.content),
    };
    Ok(RunRequest {
        assistant,
        model: settings.model.clone(),
        system_prompt,
        // Stored as checked (0..=2): narrowed, it is still the value the person chose.
        temperature: settings.temperature.map(|t| t as f32),
        only_server: conversation.server_id.clone(),
        approval: ApprovalPolicy::Ask,
        ..RunRequest::default()
    })
}

/// The run spec for `conversation` ([`conversation_request`]), resolved by
/// [`switchboard_agent::resolve`].
pub async fn run_spec(
    store: &dyn Store,
    owner: &OwnerId,
    conversation: &Conversation,
    env_provider: Option<&EnvProvider>,
    providers: &ProviderClients,
) -> Result<RunSpec, AppError> {
    let request = conversation_request(store, owner, conversation).await?;
    match resolve(store, owner, request, env_provider, providers).await {
        Ok(plan) => Ok(plan.spec),
        Err(error) => Err(resolve_error(error)),
    }
}

/// A resolution's failure as the application reports it.
pub(crate) fn resolve_error(error: ResolveError<AppError>) -> AppError {
    match error {
        ResolveError::NoProvider => AppError::NoProvider,
        ResolveError::NoModel { variable } => AppError::NoModel { variable },
        ResolveError::Store(e) => e.into(),
        ResolveError::Client(e) => e,
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
        self.client_for(owner, &stored.config).await
    }
}

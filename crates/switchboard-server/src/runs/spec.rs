//! A conversation's run as the server asks for it: its assistant and its server limit
//! (seed 000 `serverId`), resolved by [`switchboard_agent::resolve`] with stored providers'
//! clients from [`ProviderClients`] (members' behind the destination guard).

use std::sync::Arc;

use async_trait::async_trait;
use switchboard_agent::{ApprovalPolicy, ClientSource, ResolveError, RunRequest, RunSpec, resolve};
use switchboard_core::{ErrorCode, OwnerId};
use switchboard_llm::Provider;
use switchboard_store::{Conversation, MessageRole, Store};

use crate::config::EnvProvider;
use crate::destinations::ProviderClients;
use crate::error::ApiError;

/// The run spec for `conversation`: its assistant's settings and servers (only its limit
/// server when it has one), its latest system message, if any, as the system prompt. Calls of tools that are not auto-approved wait for a decision
/// (`POST /api/messages/{id}/tool-confirm`).
pub async fn run_spec(
    store: &dyn Store,
    owner: &OwnerId,
    conversation: &Conversation,
    env_provider: Option<&EnvProvider>,
    providers: &ProviderClients,
) -> Result<RunSpec, ApiError> {
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
        Err(ResolveError::NoProvider) => Err(ApiError::new(
            ErrorCode::ValidationError,
            "there is no LLM provider: add one with POST /api/providers (or start serve with \
             OPENAI_API_KEY / OPENAI_BASE_URL or ANTHROPIC_API_KEY set)",
        )
        .key("error.msg.no_provider")),
        Err(ResolveError::NoModel { variable }) => Err(ApiError::new(
            ErrorCode::ValidationError,
            format!("no model: give the assistant one, or set {variable}"),
        )
        .key("error.msg.no_model")
        .param("variable", variable)),
        Err(ResolveError::Store(e)) => Err(e.into()),
        Err(ResolveError::Client(e)) => Err(e),
    }
}

#[async_trait]
impl ClientSource for ProviderClients {
    type Error = ApiError;
    async fn client(
        &self,
        owner: &OwnerId,
        stored: &switchboard_store::Provider,
    ) -> Result<Arc<dyn Provider>, ApiError> {
        self.client_for(owner, stored).await
    }
}

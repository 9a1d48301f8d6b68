//! What a conversation's run uses: its assistant's provider, model, prompt, mode and servers,
//! or the defaults when it has no assistant.

use std::sync::Arc;

use switchboard_agent::{ApprovalPolicy, RunSpec};
use switchboard_core::{ErrorCode, OwnerId, ServerSpec};
use switchboard_store::{AssistantConfig, Conversation, Store};

use crate::config::EnvProvider;
use crate::destinations::ProviderClients;
use crate::error::ApiError;

/// The run spec for `conversation`. The provider is the assistant's, else the owner's first
/// stored one, else the one the process environment describes; the model the assistant's,
/// else the provider's default (`OPENAI_MODEL` / `ANTHROPIC_MODEL` for the environment's); the servers the assistant's, else
/// every enabled server of the owner. Calls of tools that are not auto-approved wait for a
/// decision (`POST /api/messages/{id}/tool-confirm`). A stored provider's client comes from
/// `providers` (a member's behind the destination guard).
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
    let defaults = AssistantConfig::named(String::new());
    let config = assistant.as_ref().map_or(&defaults, |a| &a.config);
    let (provider, default_model) = match provider(store, owner, config, env_provider).await? {
        Chosen::Stored(stored) => {
            let model = stored.config.default_model.clone();
            (providers.client_for(owner, &stored).await?, Some(model))
        }
        Chosen::Env(env) => (Arc::clone(&env.provider), env.model.clone()),
    };
    let model = config
        .model
        .clone()
        .filter(|m| !m.trim().is_empty())
        .or(default_model)
        .ok_or_else(|| {
            let variable = env_provider.map_or("OPENAI_MODEL", |e| e.model_variable);
            ApiError::new(
                ErrorCode::ValidationError,
                format!("no model: give the assistant one, or set {variable}"),
            )
        })?;
    let servers: Vec<ServerSpec> = match &assistant {
        Some(assistant) => {
            let mut specs = Vec::with_capacity(assistant.server_ids.len());
            for id in &assistant.server_ids {
                specs.push(store.connection_spec(owner, id).await?);
            }
            specs
        }
        None => store
            .connection_specs(owner)
            .await?
            .into_iter()
            .filter(|s| s.enabled)
            .collect(),
    };
    Ok(RunSpec {
        provider,
        model,
        system_prompt: config.system_prompt.clone(),
        tool_mode: config.tool_mode,
        max_rounds: config.max_rounds,
        servers,
        approval: ApprovalPolicy::Ask,
        max_tokens: None,
    })
}

enum Chosen<'a> {
    Stored(switchboard_store::Provider),
    Env(&'a EnvProvider),
}

/// The assistant's provider, else the owner's first stored one, else the environment's.
async fn provider<'a>(
    store: &dyn Store,
    owner: &OwnerId,
    config: &AssistantConfig,
    env_provider: Option<&'a EnvProvider>,
) -> Result<Chosen<'a>, ApiError> {
    let id = match &config.provider_id {
        Some(id) => Some(id.clone()),
        None => store.providers(owner).await?.first().map(|p| p.id.clone()),
    };
    match (id, env_provider) {
        (Some(id), _) => Ok(Chosen::Stored(store.provider_with_key(owner, &id).await?)),
        (None, Some(env)) => Ok(Chosen::Env(env)),
        (None, None) => Err(ApiError::new(
            ErrorCode::ValidationError,
            "there is no LLM provider: add one with POST /api/providers (or start serve with \
             OPENAI_API_KEY / OPENAI_BASE_URL or ANTHROPIC_API_KEY set)",
        )),
    }
}

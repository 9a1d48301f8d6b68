//! What a conversation's run uses: its assistant's provider, model, prompt, mode and servers,
//! or the defaults when it has no assistant.

use switchboard_agent::{ApprovalPolicy, RunSpec, client_for};
use switchboard_core::{ErrorCode, OwnerId, ServerSpec};
use switchboard_store::{AssistantConfig, Conversation, Store};

use crate::error::ApiError;

/// The run spec for `conversation`. The provider is the assistant's, else the owner's first;
/// the model the assistant's, else the provider's default; the servers the assistant's, else
/// every enabled server of the owner. Calls of tools that are not auto-approved wait for a
/// decision (`POST /api/messages/{id}/tool-confirm`).
pub async fn run_spec(
    store: &dyn Store,
    owner: &OwnerId,
    conversation: &Conversation,
) -> Result<RunSpec, ApiError> {
    let assistant = match &conversation.assistant_id {
        Some(id) => Some(store.assistant(owner, id).await?),
        None => None,
    };
    let defaults = AssistantConfig::named(String::new());
    let config = assistant.as_ref().map_or(&defaults, |a| &a.config);
    let provider_id = match &config.provider_id {
        Some(id) => id.clone(),
        None => store
            .providers(owner)
            .await?
            .first()
            .map(|p| p.id.clone())
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::ValidationError,
                    "there is no LLM provider: add one with POST /api/providers",
                )
            })?,
    };
    let provider = store.provider_with_key(owner, &provider_id).await?;
    let model = config
        .model
        .clone()
        .filter(|m| !m.trim().is_empty())
        .unwrap_or_else(|| provider.config.default_model.clone());
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
        provider: client_for(&provider)?,
        model,
        system_prompt: config.system_prompt.clone(),
        tool_mode: config.tool_mode,
        max_rounds: config.max_rounds,
        servers,
        approval: ApprovalPolicy::Ask,
        max_tokens: None,
    })
}

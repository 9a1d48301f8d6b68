//! The LLM client for a stored provider.

use std::sync::Arc;

use switchboard_llm::{AnthropicConfig, AnthropicProvider, OpenAiConfig, OpenAiProvider, Provider};
use switchboard_store::{ProviderConfig, ProviderKind};

use crate::error::AgentError;

/// The client for `stored`, which must carry its key in clear
/// (`ProviderStore::provider_with_key`).
pub fn client_for(stored: &switchboard_store::Provider) -> Result<Arc<dyn Provider>, AgentError> {
    client_with(&stored.config, reqwest::Client::new())
}

/// The client for a provider configured as `config` (its key in clear), sending through
/// `http` (the server gives members' providers the destination-guarded client).
pub fn client_with(
    config: &ProviderConfig,
    http: reqwest::Client,
) -> Result<Arc<dyn Provider>, AgentError> {
    Ok(match config.kind {
        ProviderKind::OpenAi => {
            let mut openai = OpenAiConfig::default();
            if let Some(url) = &config.base_url {
                openai.base_url.clone_from(url);
            }
            openai.api_key.clone_from(&config.api_key);
            Arc::new(OpenAiProvider::with_client(openai, http))
        }
        ProviderKind::Anthropic => {
            let mut anthropic = AnthropicConfig::default();
            if let Some(url) = &config.base_url {
                anthropic.base_url.clone_from(url);
            }
            anthropic.api_key.clone_from(&config.api_key);
            Arc::new(AnthropicProvider::with_client(anthropic, http))
        }
        other => {
            return Err(AgentError::UnsupportedProvider {
                name: config.name.clone(),
                kind: other.as_str().to_owned(),
            });
        }
    })
}

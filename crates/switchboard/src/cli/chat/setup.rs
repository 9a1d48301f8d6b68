//! What a chat runs with: the provider, the model, the rules and the servers, from a stored
//! assistant, the command line and the environment.
//!
//! The options given on the command line win; then the assistant's settings (`--assistant`);
//! then the defaults. The provider is, in that order: `--provider` (a stored provider's name or
//! id, or `openai` / `anthropic` for the one the environment describes), the assistant's, the
//! first stored provider, the one the environment describes (`OPENAI_API_KEY` /
//! `OPENAI_BASE_URL`, else `ANTHROPIC_API_KEY` / `ANTHROPIC_BASE_URL`). The model is `--model`,
//! the assistant's, the stored provider's default, or `OPENAI_MODEL` / `ANTHROPIC_MODEL` for a
//! provider from the environment. The environment is read through a lookup function, so tests
//! never touch the process's own.

use std::sync::Arc;

use switchboard_agent::{ApprovalPolicy, RunSpec};
use switchboard_core::ServerSpec;
use switchboard_llm::{
    ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, DefaultProvider, OPENAI_API_KEY, OPENAI_BASE_URL,
    Provider, default_provider_from_env,
};
use switchboard_store::{Assistant, AssistantConfig};

use super::ChatArgs;
use super::error::ChatError;
use crate::cli::local::LocalServers;

/// The variable naming the model of the OpenAI-compatible provider from the environment.
pub const OPENAI_MODEL: &str = "OPENAI_MODEL";
/// The variable naming the model of the Anthropic provider from the environment.
pub const ANTHROPIC_MODEL: &str = "ANTHROPIC_MODEL";

/// Reads one environment variable (`|name| std::env::var(name).ok()` in the binary).
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Everything a chat needs before its first message.
#[derive(Debug)]
pub struct Setup {
    pub spec: RunSpec,
    /// The assistant the conversation is filed under.
    pub assistant_id: Option<String>,
    /// Which model through which provider, for the greeting.
    pub description: String,
    /// Things worth telling before the chat starts (a named server that is disabled).
    pub notes: Vec<String>,
}

/// Settles the chat's provider, model, rules and servers.
pub async fn resolve(
    servers: &LocalServers,
    args: &ChatArgs,
    approval: ApprovalPolicy,
    env: Env<'_>,
) -> anyhow::Result<Setup> {
    let assistant = match &args.assistant {
        Some(name) => Some(find_assistant(servers, name).await?),
        None => None,
    };
    let config = assistant.as_ref().map(|a| &a.config);
    let source = provider_source(servers, args.provider.as_deref(), config, env).await?;
    let built = build_provider(source, env)?;
    let model = (args.model.clone())
        .or_else(|| config.and_then(|c| c.model.clone()))
        .or(built.default_model)
        .filter(|model| !model.trim().is_empty())
        .ok_or(ChatError::NoModel(built.model_variable))?;
    let specs = server_specs(servers, &args.servers, assistant.as_ref()).await?;
    let notes = specs
        .iter()
        .filter(|spec| !spec.enabled)
        .map(|spec| {
            format!(
                "server `{}` is disabled: its tools are not offered",
                spec.name
            )
        })
        .collect();
    // The store's defaults for an assistant, for a chat without one.
    let defaults = AssistantConfig::named(String::new());
    let config = config.unwrap_or(&defaults);
    let spec = RunSpec {
        provider: built.provider,
        model: model.clone(),
        system_prompt: (args.system.clone()).unwrap_or_else(|| config.system_prompt.clone()),
        tool_mode: args.tool_mode.map_or(config.tool_mode, Into::into),
        max_rounds: args.max_rounds.unwrap_or(config.max_rounds),
        servers: specs,
        approval,
        max_tokens: None,
    };
    Ok(Setup {
        spec,
        assistant_id: assistant.map(|a| a.id),
        description: format!("{model} via {}", built.label),
        notes,
    })
}

async fn find_assistant(servers: &LocalServers, name: &str) -> anyhow::Result<Assistant> {
    let mut assistants = servers.store().assistants(servers.owner()).await?;
    let index = (assistants.iter().position(|a| a.config.name == name))
        .or_else(|| assistants.iter().position(|a| a.id == name))
        .ok_or_else(|| ChatError::AssistantNotFound(name.to_owned()))?;
    Ok(assistants.swap_remove(index))
}

/// Where the provider comes from.
#[derive(Debug)]
enum Source {
    /// A stored provider, key in clear.
    Stored(switchboard_store::Provider),
    Env(DefaultProvider),
}

async fn provider_source(
    servers: &LocalServers,
    requested: Option<&str>,
    assistant: Option<&AssistantConfig>,
    env: Env<'_>,
) -> anyhow::Result<Source> {
    let (store, owner) = (servers.store(), servers.owner());
    if let Some(name) = requested {
        let providers = store.providers(owner).await?;
        let found = (providers.iter().find(|p| p.config.name == name))
            .or_else(|| providers.iter().find(|p| p.id == name));
        if let Some(provider) = found {
            return Ok(Source::Stored(
                store.provider_with_key(owner, &provider.id).await?,
            ));
        }
        // Only that vendor's variables, so `--provider anthropic` is not taken over by an
        // `OPENAI_API_KEY` that is also set.
        let (name, key, url) = match name {
            "openai" => ("openai", OPENAI_API_KEY, OPENAI_BASE_URL),
            "anthropic" => ("anthropic", ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL),
            _ => return Err(ChatError::ProviderNotFound(name.to_owned()).into()),
        };
        let only_these =
            |variable: &str| env(variable).filter(|_| variable == key || variable == url);
        return default_provider_from_env(only_these)
            .map(Source::Env)
            .ok_or_else(|| ChatError::NoEnvProvider { name, key, url }.into());
    }
    if let Some(id) = assistant.and_then(|a| a.provider_id.as_deref()) {
        return Ok(Source::Stored(store.provider_with_key(owner, id).await?));
    }
    if let Some(first) = store.providers(owner).await?.first() {
        return Ok(Source::Stored(
            store.provider_with_key(owner, &first.id).await?,
        ));
    }
    default_provider_from_env(env)
        .map(Source::Env)
        .ok_or_else(|| ChatError::NoProvider.into())
}

/// A provider ready to call, with what it says about models.
struct Built {
    provider: Arc<dyn Provider>,
    default_model: Option<String>,
    /// The variable to suggest when there is no model.
    model_variable: &'static str,
    label: String,
}

fn build_provider(source: Source, env: Env<'_>) -> Result<Built, ChatError> {
    let model_from = |variable: &str| env(variable).filter(|value| !value.trim().is_empty());
    match source {
        Source::Stored(stored) => {
            let provider =
                switchboard_agent::client_for(&stored).map_err(|_| ChatError::UnsupportedKind {
                    name: stored.config.name.clone(),
                    kind: stored.config.kind.as_str().to_owned(),
                })?;
            let config = stored.config;
            Ok(Built {
                provider,
                default_model: Some(config.default_model),
                model_variable: OPENAI_MODEL,
                label: format!("provider `{}`", config.name),
            })
        }
        Source::Env(found) => {
            let (model_variable, label) = match &found {
                DefaultProvider::OpenAi(config) => (OPENAI_MODEL, config.base_url.clone()),
                DefaultProvider::Anthropic(config) => (ANTHROPIC_MODEL, config.base_url.clone()),
            };
            Ok(Built {
                provider: found.into_provider(),
                default_model: model_from(model_variable),
                model_variable,
                label: format!("{label} (from the environment)"),
            })
        }
    }
}

/// The servers named with `--server`; else the assistant's; else every enabled one.
async fn server_specs(
    servers: &LocalServers,
    named: &[String],
    assistant: Option<&Assistant>,
) -> anyhow::Result<Vec<ServerSpec>> {
    if !named.is_empty() {
        let mut specs = Vec::with_capacity(named.len());
        for name in named {
            specs.push(servers.connection_spec(name).await?);
        }
        return Ok(specs);
    }
    if let Some(assistant) = assistant {
        let mut specs = Vec::with_capacity(assistant.server_ids.len());
        for id in &assistant.server_ids {
            specs.push(servers.store().connection_spec(servers.owner(), id).await?);
        }
        return Ok(specs);
    }
    Ok(servers.enabled_connection_specs().await?)
}

#[cfg(test)]
#[path = "setup_tests.rs"]
mod tests;

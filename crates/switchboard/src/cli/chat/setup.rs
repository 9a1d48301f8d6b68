//! What a chat runs with, from a stored assistant, the command line and the environment:
//! the flags are parsed here into a [`RunRequest`] (names of the assistant, the provider and
//! the servers looked up), and [`switchboard_agent::resolve`], the one owner of the
//! precedence, chooses the provider, model, rules and servers (flags, then the assistant, then
//! the defaults). `--provider openai|anthropic` asks for the provider the environment
//! describes, from that vendor's variables only. The environment is read through a lookup
//! function, so tests never touch the process's own.

use std::sync::Arc;

use switchboard_agent::{
    ApprovalPolicy, EnvProvider, PlainClients, ProviderChoice, ResolveError, RunRequest, RunSpec,
    ServerChoice,
};
use switchboard_llm::{
    ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, DefaultProvider, OPENAI_API_KEY, OPENAI_BASE_URL,
    default_provider_from_env,
};
use switchboard_store::Assistant;

use super::ChatArgs;
use super::error::ChatError;
use crate::cli::local::LocalServers;

pub use switchboard_agent::resolve::{ANTHROPIC_MODEL, OPENAI_MODEL};

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

/// Why there is no provider, with a model server found on this machine's usual ports when
/// one answers (the command line's first start): how to chat with it. Nothing is stored.
async fn no_provider(servers: &LocalServers) -> ChatError {
    let found = match servers.store().user(servers.owner()).await {
        Ok(user) => servers
            .app()
            .providers
            .find_local(&user)
            .await
            .unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    let Some(server) = found.into_iter().find(|s| !s.models.is_empty()) else {
        return ChatError::NoProvider;
    };
    ChatError::NoProviderButLocal {
        name: server.name.map_or_else(
            || format!("a model server on port {}", server.port),
            str::to_owned,
        ),
        model: server.models[0].clone(),
        base_url: server.base_url,
    }
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
    let (provider, found_env) = provider_choice(servers, args.provider.as_deref(), env).await?;
    let chosen = match &args.servers {
        named if named.is_empty() => ServerChoice::Default,
        named => {
            let mut specs = Vec::with_capacity(named.len());
            for name in named {
                specs.push(servers.connection_spec(name).await?);
            }
            ServerChoice::These(specs)
        }
    };
    let request = RunRequest {
        provider,
        model: args.model.clone(),
        servers: chosen,
        only_server: None,
        system_prompt: args.system.clone(),
        temperature: None,
        tool_mode: args.tool_mode.map(Into::into),
        max_rounds: args.max_rounds,
        approval,
        assistant: assistant.clone(),
    };
    let env_provider = found_env.as_ref().map(|(_, provider)| provider);
    let plan = match switchboard_agent::resolve(
        servers.store().as_ref(),
        servers.owner(),
        request,
        env_provider,
        &PlainClients,
    )
    .await
    {
        Ok(plan) => plan,
        Err(ResolveError::NoProvider) => return Err(no_provider(servers).await.into()),
        Err(ResolveError::NoModel { variable }) => return Err(ChatError::NoModel(variable).into()),
        Err(ResolveError::Store(e)) => return Err(e.into()),
        Err(ResolveError::Client(switchboard_agent::AgentError::UnsupportedProvider {
            name,
            kind,
        })) => return Err(ChatError::UnsupportedKind { name, kind }.into()),
        Err(ResolveError::Client(e)) => return Err(e.into()),
    };
    let notes = (plan.spec.servers.iter())
        .filter(|spec| !spec.enabled)
        .map(|spec| {
            format!(
                "server `{}` is disabled: its tools are not offered",
                spec.name
            )
        })
        .collect();
    let label = match (&plan.provider_name, &found_env) {
        (Some(name), _) => format!("provider `{name}`"),
        (None, Some((base_url, _))) => format!("{base_url} (from the environment)"),
        (None, None) => "the environment's provider".to_owned(),
    };
    Ok(Setup {
        description: format!("{} via {label}", plan.spec.model),
        spec: plan.spec,
        assistant_id: assistant.map(|a| a.id),
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

/// The provider asked for with `--provider`, and the environment's provider with its base
/// URL (for the greeting): a stored provider's name or id; `openai` / `anthropic` for the
/// environment's, from that vendor's variables only (so `--provider anthropic` is not taken
/// over by an `OPENAI_API_KEY` that is also set); by default the environment's from any.
async fn provider_choice(
    servers: &LocalServers,
    requested: Option<&str>,
    env: Env<'_>,
) -> anyhow::Result<(ProviderChoice, Option<(String, EnvProvider)>)> {
    let Some(name) = requested else {
        return Ok((ProviderChoice::Default, env_provider(env)));
    };
    let (store, owner) = (servers.store(), servers.owner());
    let providers = store.providers(owner).await?;
    let found = (providers.iter().find(|p| p.config.name == name))
        .or_else(|| providers.iter().find(|p| p.id == name));
    if let Some(provider) = found {
        return Ok((ProviderChoice::Stored(provider.id.clone()), None));
    }
    let (name, key, url) = match name {
        "openai" => ("openai", OPENAI_API_KEY, OPENAI_BASE_URL),
        "anthropic" => ("anthropic", ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL),
        _ => return Err(ChatError::ProviderNotFound(name.to_owned()).into()),
    };
    let only_these = |variable: &str| {
        let vendor = variable == key || variable == url;
        let model = variable == OPENAI_MODEL || variable == ANTHROPIC_MODEL;
        env(variable).filter(|_| vendor || model)
    };
    let found = env_provider(&only_these).ok_or(ChatError::NoEnvProvider { name, key, url })?;
    Ok((ProviderChoice::Env, Some(found)))
}

/// The provider the environment describes, with its base URL, and its model from
/// `OPENAI_MODEL` / `ANTHROPIC_MODEL`.
fn env_provider(env: Env<'_>) -> Option<(String, EnvProvider)> {
    let found = default_provider_from_env(env)?;
    let (base_url, model_variable) = match &found {
        DefaultProvider::OpenAi(config) => (config.base_url.clone(), OPENAI_MODEL),
        DefaultProvider::Anthropic(config) => (config.base_url.clone(), ANTHROPIC_MODEL),
    };
    let provider: Arc<dyn switchboard_llm::Provider> = found.into_provider();
    Some((
        base_url,
        EnvProvider {
            provider,
            model: env(model_variable).filter(|m| !m.trim().is_empty()),
            model_variable,
        },
    ))
}

#[cfg(test)]
#[path = "setup_tests.rs"]
mod tests;

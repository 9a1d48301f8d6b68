//! The one place a run's provider, model, rules and servers are chosen (`serve`'s
//! routes, the seed routes and `switchboard chat` all come here), so the precedence cannot
//! drift between them.
//!
//! What the caller asks for wins ([`RunRequest`]: a flag, a request field); then the
//! assistant's settings; then the defaults. The provider is the one asked for, else the
//! assistant's, else the owner's first stored provider, else the one the process environment
//! describes ([`EnvProvider`]). The model is the one asked for, else the assistant's, else the
//! provider's default ([`resolve_provider`] makes just this choice, for a chat's model list).
//! The system prompt and the temperature are the ones asked for, else the assistant's (an
//! assistant has no temperature: the provider's default). The servers are the ones asked for, else the assistant's, else every
//! enabled server of the owner; a limit to one server ([`RunRequest::only_server`], seed 000's
//! `serverId`) replaces them all with that one server, which must be the owner's.
//!
//! An assistant's tool nodes refine its servers: a node's server is one of the
//! assistant's even when it is not in its plain list, and on a server with a node only the
//! node's selected tools are offered ([`crate::offer`]). A server limit narrows the nodes to
//! that server's, as it narrows the servers.
//!
//! Callers keep their own vocabulary: they parse names and flags into a [`RunRequest`], build
//! stored providers' clients through a [`ClientSource`] (the server's is behind the
//! destination guard), and word [`ResolveError`] for their users.

use std::sync::Arc;

use async_trait::async_trait;
use switchboard_core::{OwnerId, ServerId, ServerSpec};
use switchboard_llm::Provider;
use switchboard_store::{Assistant, AssistantConfig, Store, StoreError, StoredToolNode, ToolMode};

use crate::agent::{ApprovalPolicy, RunSpec};

/// The variable naming the model of the OpenAI-compatible provider from the environment.
pub const OPENAI_MODEL: &str = "OPENAI_MODEL";
/// The variable naming the model of the Anthropic provider from the environment.
pub const ANTHROPIC_MODEL: &str = "ANTHROPIC_MODEL";

/// A provider from the process environment (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, ...), for
/// owners who have stored none.
#[derive(Debug, Clone)]
pub struct EnvProvider {
    pub provider: Arc<dyn Provider>,
    /// `OPENAI_MODEL` / `ANTHROPIC_MODEL`, when set.
    pub model: Option<String>,
    /// The variable that names the model, for the error when it is missing.
    pub model_variable: &'static str,
}

/// Which provider a run asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ProviderChoice {
    /// The assistant's, else the first stored one, else the environment's.
    #[default]
    Default,
    /// This stored provider (an id).
    Stored(String),
    /// The environment's, even when providers are stored.
    Env,
}

/// Which servers a run asks for.
#[derive(Debug, Clone, Default)]
pub enum ServerChoice {
    /// The assistant's, else every enabled server of the owner.
    #[default]
    Default,
    /// These (secrets in clear), enabled or not.
    These(Vec<ServerSpec>),
}

/// What the caller asks of a run; everything left `None` comes from the assistant or the
/// defaults.
#[derive(Debug, Clone, Default)]
pub struct RunRequest {
    pub assistant: Option<Assistant>,
    pub provider: ProviderChoice,
    pub model: Option<String>,
    pub servers: ServerChoice,
    /// Only this server's tools, whatever else was chosen (seed 000 `serverId`).
    pub only_server: Option<ServerId>,
    pub system_prompt: Option<String>,
    /// The sampling temperature (assistants have none: the provider's default otherwise).
    pub temperature: Option<f32>,
    pub tool_mode: Option<ToolMode>,
    pub max_rounds: Option<u32>,
    pub approval: ApprovalPolicy,
}

/// A resolved run: its spec, and where its provider came from.
#[derive(Debug, Clone)]
pub struct RunPlan {
    pub spec: RunSpec,
    /// The stored provider's name; `None` for the environment's.
    pub provider_name: Option<String>,
}

/// Builds the client of a stored provider (its key in clear).
#[async_trait]
pub trait ClientSource: Send + Sync {
    type Error: std::fmt::Debug + Send;
    async fn client(
        &self,
        owner: &OwnerId,
        stored: &switchboard_store::Provider,
    ) -> Result<Arc<dyn Provider>, Self::Error>;
}

/// Stored providers' clients with a plain HTTP client ([`crate::client_for`]), for a
/// process that serves only its own user (`switchboard chat`).
#[derive(Debug, Clone, Copy, Default)]
pub struct PlainClients;

#[async_trait]
impl ClientSource for PlainClients {
    type Error = crate::AgentError;
    async fn client(
        &self,
        _owner: &OwnerId,
        stored: &switchboard_store::Provider,
    ) -> Result<Arc<dyn Provider>, Self::Error> {
        crate::client_for(stored)
    }
}

/// Why a run cannot be resolved.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError<E: std::fmt::Debug> {
    /// No provider was asked for, none is stored and the environment describes none.
    #[error("there is no LLM provider")]
    NoProvider,
    /// Neither the request, the assistant nor the provider names a model.
    #[error("no model: give one, or set {variable}")]
    NoModel { variable: &'static str },
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The stored provider's client could not be built.
    #[error("the provider's client cannot be built: {0:?}")]
    Client(E),
}

/// A run's provider and model, as [`resolve`] chooses them.
#[derive(Debug, Clone)]
pub struct ProviderPlan {
    pub provider: Arc<dyn Provider>,
    /// The model the run asks for.
    pub model: String,
    /// The model it would ask for without [`RunRequest::model`]: the assistant's, else the
    /// provider's default (`None` when neither names one).
    pub default_model: Option<String>,
    /// The stored provider's id and name; `None` for the environment's.
    pub stored: Option<(String, String)>,
}

/// Chooses the run's provider and model for `owner`, as [`resolve`] does, without its servers.
pub async fn resolve_provider<C: ClientSource>(
    store: &dyn Store,
    owner: &OwnerId,
    request: &RunRequest,
    env: Option<&EnvProvider>,
    clients: &C,
) -> Result<ProviderPlan, ResolveError<C::Error>> {
    let defaults = AssistantConfig::named(String::new());
    let config = request.assistant.as_ref().map_or(&defaults, |a| &a.config);
    let stored_id = match &request.provider {
        ProviderChoice::Stored(id) => Some(id.clone()),
        ProviderChoice::Env => None,
        ProviderChoice::Default => match &config.provider_id {
            Some(id) => Some(id.clone()),
            None => store.providers(owner).await?.first().map(|p| p.id.clone()),
        },
    };
    let (provider, provider_model, stored) = match stored_id {
        Some(id) => {
            let stored = store.provider_with_key(owner, &id).await?;
            let client = clients
                .client(owner, &stored)
                .await
                .map_err(ResolveError::Client)?;
            (
                client,
                Some(stored.config.default_model),
                Some((stored.id, stored.config.name)),
            )
        }
        None => {
            let env = env.ok_or(ResolveError::NoProvider)?;
            (Arc::clone(&env.provider), env.model.clone(), None)
        }
    };
    let named = |m: &Option<String>| m.clone().filter(|m| !m.trim().is_empty());
    let default_model = named(&config.model).or_else(|| named(&provider_model));
    let model = named(&request.model)
        .or_else(|| default_model.clone())
        .ok_or(ResolveError::NoModel {
            variable: env.map_or(OPENAI_MODEL, |e| e.model_variable),
        })?;
    Ok(ProviderPlan {
        provider,
        model,
        default_model,
        stored,
    })
}

/// Chooses the run's provider, model, rules and servers for `owner`.
pub async fn resolve<C: ClientSource>(
    store: &dyn Store,
    owner: &OwnerId,
    request: RunRequest,
    env: Option<&EnvProvider>,
    clients: &C,
) -> Result<RunPlan, ResolveError<C::Error>> {
    let ProviderPlan {
        provider,
        model,
        stored,
        ..
    } = resolve_provider(store, owner, &request, env, clients).await?;
    let defaults = AssistantConfig::named(String::new());
    let config = request.assistant.as_ref().map_or(&defaults, |a| &a.config);
    let (servers, nodes) = servers_and_nodes(store, owner, &request).await?;
    Ok(RunPlan {
        spec: RunSpec {
            provider,
            model,
            system_prompt: request
                .system_prompt
                .clone()
                .unwrap_or_else(|| config.system_prompt.clone()),
            tool_mode: request.tool_mode.unwrap_or(config.tool_mode),
            max_rounds: request.max_rounds.unwrap_or(config.max_rounds),
            servers,
            nodes,
            variables: config.variables.clone(),
            approval: request.approval,
            max_tokens: None,
            temperature: request.temperature,
            exposure: request
                .assistant
                .as_ref()
                .map_or_else(crate::exposure::Exposure::without_assistant, |a| {
                    crate::exposure::Exposure::of(&a.config)
                }),
        },
        provider_name: stored.map(|(_, name)| name),
    })
}

/// The servers and tool nodes a run with `assistant` (or none) gathers its offer from, as a
/// run that asks for nothing else does: the tool search gathers the same offer.
pub async fn offered_servers(
    store: &dyn Store,
    owner: &OwnerId,
    assistant: Option<&Assistant>,
) -> Result<(Vec<ServerSpec>, Vec<Arc<StoredToolNode>>), StoreError> {
    let request = RunRequest {
        assistant: assistant.cloned(),
        ..RunRequest::default()
    };
    servers_and_nodes(store, owner, &request).await
}

/// The servers `request` asks for, and its assistant's tool nodes on them.
async fn servers_and_nodes(
    store: &dyn Store,
    owner: &OwnerId,
    request: &RunRequest,
) -> Result<(Vec<ServerSpec>, Vec<Arc<StoredToolNode>>), StoreError> {
    let nodes = match &request.assistant {
        Some(assistant) => store
            .assistant_tool_nodes(owner, &assistant.id)
            .await?
            .into_iter()
            .map(Arc::new)
            .collect(),
        None => Vec::new(),
    };
    let servers = servers(store, owner, request, &nodes).await?;
    let nodes = nodes
        .into_iter()
        .filter(|n: &Arc<StoredToolNode>| servers.iter().any(|s| s.id == n.node.server_id))
        .collect();
    Ok((servers, nodes))
}

async fn servers(
    store: &dyn Store,
    owner: &OwnerId,
    request: &RunRequest,
    nodes: &[Arc<StoredToolNode>],
) -> Result<Vec<ServerSpec>, StoreError> {
    let of_a_node = |id: &ServerId| nodes.iter().any(|n| n.node.server_id == *id);
    if let Some(only) = &request.only_server {
        // A limit, never a widening: the server must be the caller's (else not found), and
        // with an assistant one of its servers (plain or a node's); a switched-off server
        // offers nothing.
        let spec = store.connection_spec(owner, only).await?;
        let outside = request
            .assistant
            .as_ref()
            .is_some_and(|a| !a.server_ids.contains(only) && !of_a_node(only));
        return Ok(if outside || !spec.enabled {
            Vec::new()
        } else {
            vec![spec]
        });
    }
    match (&request.servers, &request.assistant) {
        (ServerChoice::These(specs), _) => Ok(specs.clone()),
        (ServerChoice::Default, Some(assistant)) => {
            let mut ids: Vec<&ServerId> = assistant.server_ids.iter().collect();
            for node in nodes {
                if !ids.contains(&&node.node.server_id) {
                    ids.push(&node.node.server_id);
                }
            }
            let mut specs = Vec::with_capacity(ids.len());
            for id in ids {
                specs.push(store.connection_spec(owner, id).await?);
            }
            Ok(specs)
        }
        (ServerChoice::Default, None) => Ok(store
            .connection_specs(owner)
            .await?
            .into_iter()
            .filter(|s| s.enabled)
            .collect()),
    }
}

#[cfg(test)]
#[path = "resolve_tests.rs"]
mod tests;

//! What every handler can reach: a few shared services, nothing mutable of its own.

use std::sync::Arc;

use switchboard_agent::{Agent, AgentConfig, AgentObserver, ToolCalls};
use switchboard_core::OwnerId;
use switchboard_core::catalogue::Catalogue;
use switchboard_mcp::{ConnectionManager, ServerPool, ToolBackend};
use switchboard_store::Store;

use crate::config::ServerConfig;
use crate::destinations::ProviderClients;
use crate::limits::Gate;
use crate::limits::listing::BoundedBackend;
use crate::live::EventLog;
use crate::metered::MeteredBackend;
use crate::metrics::Metrics;
use crate::runs::Runs;

/// How callers are identified.
#[derive(Debug, Clone)]
pub enum AuthMode {
    /// Every request carries `Authorization: Bearer <token>` of a user.
    Tokens,
    /// No tokens: every request acts as this user (a person on their own machine).
    SingleUser(OwnerId),
}

/// What every handler can reach, behind one `Arc`: axum clones the state for each extractor
/// and middleware of each request, and a clone of the services themselves was some twenty
/// reference counts touched and dropped each time (about 4 % of the proxy's CPU under load,
/// issue 18). Fields read through [`Deref`](std::ops::Deref).
#[derive(Clone)]
pub struct AppState(Arc<Services>);

impl std::ops::Deref for AppState {
    type Target = Services;

    fn deref(&self) -> &Services {
        &self.0
    }
}

/// The services of [`AppState`].
#[derive(Clone)]
pub struct Services {
    pub store: Arc<dyn Store>,
    /// The local connection manager: the servers without a `node` (tests read process groups
    /// from it). Routes go through [`AppState::servers`], never through it.
    pub manager: Arc<ConnectionManager>,
    /// Every MCP server, wherever it runs: the local manager, or issue 15's router over the
    /// configured nodes and the local manager. Every route, the agent, the tool-call service
    /// and the event log go through it.
    pub servers: Arc<dyn ServerPool>,
    pub agent: Agent,
    pub auth: AuthMode,
    pub config: Arc<ServerConfig>,
    /// Runs going on in the background of requests.
    pub runs: Arc<Runs>,
    /// The numbered live events (`GET /api/events`).
    pub events: Arc<EventLog>,
    pub metrics: Arc<Metrics>,
    /// The manager as the agent and the tool routes list tools through: every listing
    /// bounded, every call counted.
    pub tools: Arc<BoundedBackend>,
    /// Every tool call, whoever makes it (the routes, the proxy, the agent): checks, node
    /// mappings, validation, retries and the audit. Its calls are counted, its single-tool
    /// lookups not bounded as listings are (the proxy is hot; the manager caches tools).
    pub tool_calls: Arc<ToolCalls>,
    /// Rate limits and open-stream slots ([`crate::limits`]).
    pub gate: Arc<Gate>,
    /// The locale files, for error answers and the web UI ([`crate::i18n`]).
    pub locales: Arc<crate::i18n::Catalog>,
    /// The catalogue of ready servers (`GET /api/catalogue`).
    pub catalogue: Arc<Catalogue>,
    /// The MCP gateway (`/mcp`, `/mcp/v/{name}`, issue 16), on the same tool-call service.
    pub gateway: Arc<switchboard_gateway::Gateway>,
}

impl AppState {
    /// The state with the default [`ServerConfig`] and every server in this process: the pool
    /// is `manager` itself (see [`AppState::with_pool`]).
    pub fn new(
        store: Arc<dyn Store>,
        manager: Arc<ConnectionManager>,
        agent_config: AgentConfig,
        auth: AuthMode,
    ) -> Self {
        let pool = Arc::clone(&manager) as Arc<dyn ServerPool>;
        Self::with_pool(store, manager, pool, agent_config, auth)
    }

    /// The state with the default [`ServerConfig`], servers reached through `pool` (`local`
    /// is the manager of the servers without a node, usually the pool's own), and an agent
    /// on the pool whose tool and model calls are measured. Starts the event log's feed, so
    /// it must be called inside a Tokio runtime; the feed ends with the agent and the pool.
    pub fn with_pool(
        store: Arc<dyn Store>,
        local: Arc<ConnectionManager>,
        pool: Arc<dyn ServerPool>,
        agent_config: AgentConfig,
        auth: AuthMode,
    ) -> Self {
        let metrics = Arc::new(Metrics::new());
        let limits = crate::limits::Limits::default();
        let metered: Arc<dyn ToolBackend> = Arc::new(MeteredBackend::new(
            Arc::clone(&pool) as Arc<dyn ToolBackend>,
            Arc::clone(&metrics),
        ));
        let tools = Arc::new(BoundedBackend::new(Arc::clone(&metered), &limits));
        let tool_calls = Arc::new(ToolCalls::new(
            metered,
            Arc::clone(&store),
            pool.config().retry.clone(),
        ));
        tool_calls.set_audit_keep(limits.audit_records);
        let agent = Agent::new(
            Arc::clone(&store),
            Arc::clone(&tools) as Arc<dyn ToolBackend>,
            agent_config,
        )
        .with_tool_calls(Arc::clone(&tool_calls))
        .with_observer(Arc::clone(&metrics) as Arc<dyn AgentObserver>);
        let events = EventLog::start(agent.events(), pool.as_ref());
        let gateway = switchboard_gateway::Gateway::new(
            switchboard_gateway::GatewayDeps {
                store: Arc::clone(&store),
                servers: Arc::clone(&pool),
                tool_calls: Arc::clone(&tool_calls),
            },
            switchboard_gateway::GatewayConfig::default(),
        );
        let config = Arc::new(ServerConfig::default());
        let runs = Arc::new(Runs::new(
            agent.clone(),
            Arc::clone(&store),
            Arc::clone(&metrics),
            &config,
            ProviderClients::new(Arc::clone(&store), &auth, &config.destinations),
            crate::runs::RunServers {
                pool: Arc::clone(&pool),
                changes: {
                    let changes = switchboard_agent::input::ResourceChanges::default();
                    changes.follow(&pool);
                    changes
                },
            },
        ));
        Self(Arc::new(Services {
            store,
            manager: local,
            servers: pool,
            agent,
            auth,
            config,
            runs,
            events,
            metrics,
            tools,
            tool_calls,
            gateway,
            gate: Arc::new(Gate::new(&limits)),
            locales: Arc::new(crate::i18n::Catalog::embedded_or_empty()),
            catalogue: Arc::new(Catalogue::embedded().unwrap_or_else(|error| {
                // A unit test reads the embedded file, so this is a build that skipped it.
                tracing::error!(%error, "the catalogue of ready servers is broken; it stays empty");
                Catalogue::default()
            })),
        }))
    }

    /// The state with the MCP gateway configured by `config` (`[gateway]`); called before
    /// serving, as the gateway is rebuilt on the same services.
    pub fn with_gateway_config(mut self, config: switchboard_gateway::GatewayConfig) -> Self {
        let gateway = switchboard_gateway::Gateway::new(
            switchboard_gateway::GatewayDeps {
                store: Arc::clone(&self.store),
                servers: Arc::clone(&self.servers),
                tool_calls: Arc::clone(&self.tool_calls),
            },
            config,
        );
        Arc::make_mut(&mut self.0).gateway = gateway;
        self
    }

    /// The state with `config`; called before serving (it replaces the run service, which
    /// takes the configuration's provider).
    pub fn with_config(self, config: ServerConfig) -> Self {
        self.with_shared_config(Arc::new(config))
    }

    /// As [`AppState::with_config`], with a configuration shared with other services (the
    /// connection manager's [`ServerPolicy`](crate::ServerPolicy)).
    pub fn with_shared_config(mut self, config: Arc<ServerConfig>) -> Self {
        // Members' providers behind the destination guard, with the admin's allow list.
        let providers =
            ProviderClients::new(Arc::clone(&self.store), &self.auth, &config.destinations);
        let runs = Arc::new(Runs::new(
            self.agent.clone(),
            Arc::clone(&self.store),
            Arc::clone(&self.metrics),
            &config,
            providers,
            self.runs.servers(),
        ));
        self.tools.set_limits(&config.limits);
        self.tool_calls.set_audit_keep(config.limits.audit_records);
        let services = Arc::make_mut(&mut self.0);
        services.runs = runs;
        services.gate = Arc::new(Gate::new(&config.limits));
        services.config = config;
        self
    }
}

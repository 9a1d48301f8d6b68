//! The composition root: [`App::build`] makes every service below the front ends once, in
//! one order, and [`App::shutdown`] ends them in the reverse one. `serve`, every command
//! of the command line and the tests build an `App`, so each runs with the same settings,
//! the same policies and the same services; nothing is started and then thrown away.
//!
//! ```text
//! store ─┬─ OAuth vault ─ local manager ─┐
//!        ├─ connection policy ───────────┴─ pool (router over nodes and the local manager)
//!        │                                     │
//!        │        metrics ─ metered backend ───┤
//!        │                  bounded listings ──┤
//!        └──────────────── tool-call service ──┼─ agent ─ runs
//!                                              └─ gateway ─ servers
//! ```

use std::sync::Arc;
use std::time::Duration;

use switchboard_agent::input::ResourceChanges;
use switchboard_agent::tasks::{TaskConfig, Tasks};
use switchboard_agent::{Agent, AgentObserver, ToolCalls};
use switchboard_core::Embedder;
use switchboard_core::catalogue::Catalogue;
use switchboard_gateway::{Gateway, GatewayDeps};
use switchboard_mcp::oauth::SignIns;
use switchboard_mcp::{ConnectPolicy, ConnectionManager, ServerPool, ToolBackend};
use switchboard_store::{Store, StoreConfig};

use crate::assistants::Assistants;
use crate::config::AppConfig;
use crate::destinations::ProviderClients;
use crate::error::AppError;
use crate::launchers::Launchers;
use crate::limits::Limits;
use crate::listing::BoundedBackend;
use crate::metered::MeteredBackend;
use crate::metrics::Metrics;
use crate::oauth_vault::StoreVault;
use crate::policy::{Rules, ServerPolicy};
use crate::providers::{ProviderDeps, Providers};
use crate::runs::{RunLimits, RunServers, Runs};
use crate::servers::Servers;
use crate::tool_nodes::ToolNodes;
use crate::tool_search::ToolSearches;
use crate::views::Views;
use switchboard_agent::search::ToolSearch;

/// Every service of the application, built once.
pub struct App {
    pub store: Arc<dyn Store>,
    /// The local connection manager: the servers without a `node` (tests read process
    /// groups from it). Everything else goes through [`App::pool`].
    pub manager: Arc<ConnectionManager>,
    /// Every MCP server, wherever it runs: a router that sends each server with a `node` to
    /// that node and the rest to the local manager.
    pub pool: Arc<dyn ServerPool>,
    /// The pool as what it is, for what only the router answers (a node's state).
    pub router: Arc<switchboard_grpc::Router>,
    pub metrics: Arc<Metrics>,
    /// The pool as listings see it: every listing bounded, every call counted.
    pub tools: Arc<BoundedBackend>,
    /// Every tool call, whoever makes it: checks, node mappings, validation, retries, audit.
    pub tool_calls: Arc<ToolCalls>,
    /// Tool calls running as tasks: kept, polled to their end, resumed after a restart.
    /// Followed once [`Tasks::start`] is called (by the front ends that stay up).
    pub tasks: Tasks,
    pub agent: Agent,
    /// The MCP gateway, on the same tool-call service.
    pub gateway: Arc<Gateway>,
    /// Runs going on in the background of requests.
    pub runs: Arc<Runs>,
    /// A person's servers: saved, replaced and deleted within their rules.
    pub servers: Servers,
    /// A person's tool nodes: checked and saved within their quota.
    pub tool_nodes: ToolNodes,
    /// A person's views of the gateway.
    pub views: Views,
    /// A person's assistants.
    pub assistants: Assistants,
    /// Search over the tools a person may be offered.
    pub tool_search: ToolSearches,
    /// A person's model providers.
    pub providers: Providers,
    /// The catalogue of ready servers (`GET /api/catalogue`, `servers add --preset`).
    pub catalogue: Arc<Catalogue>,
    /// Whether the programs stdio servers start with are on this machine.
    pub launchers: Arc<Launchers>,
    /// What members may run and reach.
    pub rules: Arc<Rules>,
    pub limits: Limits,
    /// The provider for people who have stored none.
    pub env_provider: Option<switchboard_agent::EnvProvider>,
    /// The embedding model of semantic tool search, its vectors cached in the store; `None`
    /// when none is configured (or it could not be loaded): search is then lexical.
    embedder: Option<Arc<dyn Embedder>>,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("rules", &self.rules)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl App {
    /// Opens the store `store` and builds every service on it. Must be called inside a
    /// Tokio runtime: the pool starts following the nodes, the tool-call service its audit
    /// writer.
    pub async fn build(store: &StoreConfig, mut config: AppConfig) -> Result<App, AppError> {
        let store = switchboard_store::open(store).await?;
        // A local embedding model is read (some 100 MB) off the runtime's threads.
        config.embedding = config.embedding.loaded().await;
        Self::on_store(store, config)
    }

    /// [`App::build`] on a store already open (another replica's own, in tests). A local
    /// embedding model ([`EmbeddingChoice::LocalDir`](crate::EmbeddingChoice)) is loaded on
    /// the calling thread.
    pub fn on_store(store: Arc<dyn Store>, config: AppConfig) -> Result<App, AppError> {
        let AppConfig {
            manager,
            nodes,
            agent,
            gateway,
            rules,
            limits,
            env_provider,
            oauth,
            local_ports,
            program_path,
            embedding,
        } = config;
        let embedder = embedding.embedder(&store);
        let rules = Arc::new(rules);
        // One policy for both: the local manager checks it before each start, the router
        // sends its admission with each spec to a node.
        let policy: Arc<dyn ConnectPolicy> =
            Arc::new(ServerPolicy::new(Arc::clone(&store), Arc::clone(&rules)));
        // OAuth sign-ins are kept in the store, so every replica and every command finds them.
        let sign_ins = SignIns::new(Arc::new(StoreVault(Arc::clone(&store))), oauth);
        let local = Arc::new(ConnectionManager::with_sign_ins(
            manager,
            Arc::clone(&policy),
            Arc::new(sign_ins),
        ));
        let router = Arc::new(switchboard_grpc::Router::new(
            Arc::clone(&local),
            nodes,
            policy,
        )?);
        let pool: Arc<dyn ServerPool> = Arc::clone(&router) as Arc<dyn ServerPool>;

        let metrics = Arc::new(Metrics::new());
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
        let defer = agent.defer;
        let agent = Agent::with_tool_calls(
            Arc::clone(&store),
            Arc::clone(&tools) as Arc<dyn ToolBackend>,
            Arc::clone(&tool_calls),
            agent,
        )
        .with_observer(Arc::clone(&metrics) as Arc<dyn AgentObserver>);
        let search = Arc::new(ToolSearch::new(embedder.clone()));
        let agent = agent.with_search(Arc::clone(&search));
        let tool_search = ToolSearches::new(
            Arc::clone(&store),
            Arc::clone(&tools) as Arc<dyn ToolBackend>,
            search,
            defer,
        );
        let tasks = Tasks::new(
            Arc::clone(&tool_calls),
            Arc::clone(&store),
            agent.events().clone(),
            switchboard_agent::replica_name(),
            task_config(&limits),
        );
        // A chat's call its server runs as a task is left to the tasks' watcher, where one
        // runs: the turn parks, and goes on when the task ends.
        let agent = agent.with_tasks(tasks.clone());
        let gateway = Gateway::new(
            GatewayDeps {
                store: Arc::clone(&store),
                servers: Arc::clone(&pool),
                tool_calls: Arc::clone(&tool_calls),
                tasks: tasks.clone(),
                search: Arc::clone(agent.search()),
            },
            gateway,
        );
        let changes = ResourceChanges::default();
        changes.follow(&pool);
        let clients =
            ProviderClients::new(Arc::clone(&store), rules.guarded(), &rules.destinations);
        let runs = Arc::new(Runs::new(
            agent.clone(),
            Arc::clone(&store),
            Arc::clone(&metrics),
            RunLimits {
                max_runs: limits.max_runs,
                max_messages: limits.max_messages,
            },
            env_provider.clone(),
            clients.clone(),
            RunServers {
                pool: Arc::clone(&pool),
                changes,
            },
        ));
        let chat_tasks = crate::runs::ChatTasks::of(&runs);
        tasks.on_end(Arc::clone(&chat_tasks) as _);
        // A parked chat call's task asks its questions in the chat.
        tasks.add_asker(chat_tasks);
        let servers = Servers::new(
            Arc::clone(&store),
            Arc::clone(&pool),
            Arc::clone(&gateway),
            Arc::clone(&rules),
            limits.max_servers,
        );
        let tool_nodes =
            ToolNodes::new(Arc::clone(&store), Arc::clone(&pool), limits.max_tool_nodes);
        let views = Views::new(Arc::clone(&store), Arc::clone(&gateway), limits.max_views);
        let assistants = Assistants::new(
            Arc::clone(&store),
            Arc::clone(&gateway),
            limits.max_assistants,
        );
        let providers = Providers::new(ProviderDeps {
            store: Arc::clone(&store),
            rules: Arc::clone(&rules),
            max_providers: limits.max_providers,
            clients,
            env_provider: env_provider.clone(),
            local_ports,
        });
        Ok(App {
            store,
            manager: local,
            pool,
            router,
            metrics,
            tools,
            tool_calls,
            tasks,
            agent,
            gateway,
            runs,
            servers,
            tool_nodes,
            views,
            assistants,
            tool_search,
            providers,
            catalogue: Arc::new(Catalogue::embedded().unwrap_or_else(|error| {
                // A unit test reads the embedded file, so this is a build that skipped it.
                tracing::error!(%error, "the catalogue of ready servers is broken; it stays empty");
                Catalogue::default()
            })),
            launchers: Arc::new(Launchers::new(program_path)),
            rules,
            limits,
            env_provider,
            embedder,
        })
    }

    /// The embedding model of semantic tool search, if one is configured and loaded.
    pub fn embedder(&self) -> Option<Arc<dyn Embedder>> {
        self.embedder.clone()
    }

    /// Ends the application: runs get `grace` to finish (those waiting for a decision stop
    /// at once and go on after a restart), the tool calls' audit is written out, every MCP
    /// connection is closed (each stdio server with its process group) and the store closed.
    pub async fn shutdown(&self, grace: Duration) {
        self.runs.shutdown(grace).await;
        self.tasks.shutdown().await;
        self.tool_calls.flush().await;
        self.pool.shutdown().await;
        self.store.close().await;
    }
}

/// How tasks are followed, within `limits`' quotas.
fn task_config(limits: &Limits) -> TaskConfig {
    TaskConfig {
        quota: switchboard_store::TaskQuota {
            per_user: Some(limits.max_tasks),
            per_server: Some(limits.max_tasks_per_server),
        },
        ..TaskConfig::default()
    }
}

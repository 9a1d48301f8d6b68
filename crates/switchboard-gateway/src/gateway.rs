//! [`Gateway`]: what every session of the gateway shares.

use std::sync::Arc;

use switchboard_agent::ToolCalls;
use switchboard_agent::search::ToolSearch;
use switchboard_agent::tasks::Tasks;
use switchboard_core::OwnerId;
use switchboard_mcp::ServerPool;
use switchboard_store::Store;

use crate::changes::ChangeHub;
use crate::config::GatewayConfig;
use crate::handler::GatewayHandler;
use crate::session::Scope;

/// The services the gateway is built on.
#[derive(Clone)]
pub struct GatewayDeps {
    pub store: Arc<dyn Store>,
    pub servers: Arc<dyn ServerPool>,
    /// Every call goes through it: validation, tool-node mappings, retries, audit.
    pub tool_calls: Arc<ToolCalls>,
    /// Where the calls of clients that accept tasks become tasks (followed once started).
    pub tasks: Tasks,
    /// The tool search `search_tools` asks (the application's one, shared with the agent).
    pub search: Arc<ToolSearch>,
}

pub struct Gateway {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) servers: Arc<dyn ServerPool>,
    pub(crate) tool_calls: Arc<ToolCalls>,
    pub(crate) tasks: Tasks,
    pub(crate) search: Arc<ToolSearch>,
    /// How long each tool's last call took, for views that run slow tools as tasks.
    pub(crate) durations: Arc<crate::tasks::Durations>,
    /// Tasks' ends, for the `tasks/result` requests waiting on them.
    pub(crate) ends: Arc<crate::tasks::Ends>,
    pub(crate) config: GatewayConfig,
    pub(crate) changes: ChangeHub,
    /// Exported tools per (person, view) (gw-tools).
    pub(crate) kept_exports: crate::exported::KeptExports,
    /// Seals approval state for the stateless revision (gw-tools).
    pub(crate) approvals: crate::approval::Approvals,
    /// Calls of stateless clients waiting for their input (`relay`).
    pub(crate) held: crate::relay::HeldCalls,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Gateway {
    /// The gateway; starts following the pool's list changes (inside a Tokio runtime).
    pub fn new(deps: GatewayDeps, config: GatewayConfig) -> Arc<Self> {
        let changes = ChangeHub::follow(deps.servers.as_ref());
        let durations = Arc::new(crate::tasks::Durations::default());
        deps.tasks
            .on_end(Arc::new(crate::tasks::LearnFromTasks(Arc::clone(
                &durations,
            ))));
        let ends = Arc::new(crate::tasks::Ends::default());
        deps.tasks
            .on_end(Arc::clone(&ends) as Arc<dyn switchboard_agent::tasks::TaskEnded>);
        Arc::new(Self {
            store: deps.store,
            servers: deps.servers,
            tool_calls: deps.tool_calls,
            tasks: deps.tasks,
            search: deps.search,
            durations,
            ends,
            config,
            changes,
            kept_exports: Default::default(),
            approvals: crate::approval::Approvals::new(),
            held: crate::relay::HeldCalls::new(),
        })
    }

    /// A handler for one rmcp session. `fixed` is the scope of every request (stdio); without
    /// it each request's scope is read from its HTTP request's extensions.
    pub fn handler(self: &Arc<Self>, fixed: Option<Scope>) -> GatewayHandler {
        GatewayHandler::new(Arc::clone(self), fixed)
    }

    /// Something of `owner`'s that the gateway exports changed (a server or view was saved,
    /// deleted, switched on or off): their sessions are told every list may have changed.
    pub fn announce(&self, owner: &OwnerId) {
        self.kept_exports.forget_owner(owner);
        self.changes.announce_owner(owner);
    }

    pub fn config(&self) -> &GatewayConfig {
        &self.config
    }
}

//! The MCP servers' lifetime in a command: a pool created for the command, and always shut
//! down before the command returns, so no stdio server outlives `switchboard` (also when
//! Ctrl-C arrives in the middle of a call). The pool is the same as `serve`'s: a router that
//! sends each server with a `node` to that node (`[nodes.NAME]`) and the rest to a local
//! connection manager, whose timeouts and retry policy are the `[manager]` settings (file
//! and environment; these commands have no flags for them). The person at the command line
//! may start anything, so the policy is [`AdmitAll`].

use std::sync::Arc;

use anyhow::Context as _;
use switchboard_agent::ToolCalls;
use switchboard_grpc::{NodeConfig, Router};
use switchboard_mcp::oauth::{OAuthClientIdentity, SignIns};
use switchboard_mcp::{AdmitAll, ConnectionManager, ManagerConfig, ServerPool, ToolBackend};
use switchboard_server::oauth_vault::StoreVault;
use switchboard_store::Store;

use super::{CliError, Context};
use crate::settings::{Settings, SettingsError, SettingsFlags};

/// What the commands outside `serve` read of the settings.
pub struct PoolSettings {
    /// `[manager]`.
    pub manager: ManagerConfig,
    /// `[nodes.NAME]`.
    pub nodes: Vec<NodeConfig>,
}

/// The `[manager]` and `[nodes]` settings from the settings file and the environment.
pub fn pool_settings(context: &Context) -> Result<PoolSettings, SettingsError> {
    let env = |name: &str| std::env::var(name).ok();
    let loaded = Settings::load(
        &context.global.settings_file(),
        &env,
        &SettingsFlags::default(),
        &context.global.store_shown(),
    )?;
    Ok(PoolSettings {
        manager: loaded.settings.manager.manager_config(),
        nodes: loaded.settings.nodes,
    })
}

/// A fresh local manager that keeps OAuth sign-ins in `store`, as `serve` does (a sign-in
/// made in the browser works at the command line, and the other way round).
pub fn local_manager(settings: &PoolSettings, store: &Arc<dyn Store>) -> Arc<ConnectionManager> {
    let sign_ins = SignIns::new(
        Arc::new(StoreVault(Arc::clone(store))),
        OAuthClientIdentity::default(),
    );
    Arc::new(ConnectionManager::with_sign_ins(
        settings.manager.clone(),
        Arc::new(AdmitAll),
        Arc::new(sign_ins),
    ))
}

/// A router over the configured nodes and a fresh local manager (sign-ins in `store`). Must be
/// called inside a Tokio runtime (it starts following the nodes).
pub fn pool(context: &Context, store: &Arc<dyn Store>) -> anyhow::Result<Arc<dyn ServerPool>> {
    let settings = pool_settings(context)?;
    let local = local_manager(&settings, store);
    let router = Router::new(local, settings.nodes, Arc::new(AdmitAll))
        .context("cannot use the [nodes] of the settings")?;
    Ok(Arc::new(router))
}

/// The tool-call service on `pool` (its checks, retries and audit, as the HTTP API's), with
/// the pool's retry policy for calls outside a tool node.
pub fn tool_calls(pool: &Arc<dyn ServerPool>, store: &Arc<dyn Store>) -> ToolCalls {
    ToolCalls::new(
        Arc::clone(pool) as Arc<dyn ToolBackend>,
        Arc::clone(store),
        pool.config().retry.clone(),
    )
}

/// Runs `work` with a fresh [`pool`] and shuts the pool down afterwards. Ctrl-C abandons
/// `work` and returns [`CliError::Interrupted`].
pub async fn with_pool<T>(
    context: &Context,
    store: &Arc<dyn Store>,
    work: impl AsyncFnOnce(&Arc<dyn ServerPool>) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let pool = pool(context, store)?;
    let outcome = tokio::select! {
        result = work(&pool) => result,
        () = interrupted() => Err(CliError::Interrupted.into()),
    };
    pool.shutdown().await;
    outcome
}

/// Completes on Ctrl-C; never, where signals cannot be listened for.
pub async fn interrupted() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

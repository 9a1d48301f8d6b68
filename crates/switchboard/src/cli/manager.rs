//! The connection manager's lifetime in a command: created for the command, and always shut
//! down before the command returns, so no stdio server outlives `switchboard` (also when
//! Ctrl-C arrives in the middle of a call). Its timeouts and retry policy are the `[manager]`
//! settings of `serve` (file and environment; these commands have no flags for them).

use std::sync::Arc;

use switchboard_agent::ToolCalls;
use switchboard_mcp::{ConnectionManager, ManagerConfig, ToolBackend};
use switchboard_store::Store;

use super::{CliError, Context};
use crate::settings::{Settings, SettingsError, SettingsFlags};

/// The `[manager]` settings from the settings file and the environment.
pub fn manager_config(context: &Context) -> Result<ManagerConfig, SettingsError> {
    let env = |name: &str| std::env::var(name).ok();
    let loaded = Settings::load(
        &context.global.settings_file(),
        &env,
        &SettingsFlags::default(),
        &context.global.store_shown(),
    )?;
    Ok(loaded.settings.manager.manager_config())
}

/// The tool-call service on `manager` (its checks, retries and audit, as the HTTP API's), with
/// the manager's retry policy for calls outside a node.
pub fn tool_calls(manager: &ConnectionManager, store: &Arc<dyn Store>) -> ToolCalls {
    ToolCalls::new(
        Arc::new(manager.clone()) as Arc<dyn ToolBackend>,
        Arc::clone(store),
        manager.config().retry.clone(),
    )
}

/// Runs `work` with a fresh [`ConnectionManager`] and shuts the manager down afterwards.
/// Ctrl-C abandons `work` and returns [`CliError::Interrupted`].
pub async fn with_manager<T>(
    context: &Context,
    work: impl AsyncFnOnce(&ConnectionManager) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let manager = ConnectionManager::new(manager_config(context)?);
    let outcome = tokio::select! {
        result = work(&manager) => result,
        () = interrupted() => Err(CliError::Interrupted.into()),
    };
    manager.shutdown().await;
    outcome
}

/// Completes on Ctrl-C; never, where signals cannot be listened for.
async fn interrupted() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

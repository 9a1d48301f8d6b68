//! The connection manager's lifetime in a command: created for the command, and always shut
//! down before the command returns, so no stdio server outlives `switchboard` (also when
//! Ctrl-C arrives in the middle of a call).

use switchboard_mcp::{ConnectionManager, ManagerConfig};

use super::CliError;

/// Runs `work` with a fresh [`ConnectionManager`] and shuts the manager down afterwards.
/// Ctrl-C abandons `work` and returns [`CliError::Interrupted`].
pub async fn with_manager<T>(
    work: impl AsyncFnOnce(&ConnectionManager) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let manager = ConnectionManager::new(ManagerConfig::default());
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

//! The application as a command builds it: [`App::build`](switchboard_app::App::build) from
//! the same layered settings as `serve` (the settings file and the environment; these
//! commands have no flags for them), so a command runs with `serve`'s `[manager]`, `[agent]`,
//! `[gateway]`, `[nodes]`, quotas and connection policy. Servers with a `node` run on it.
//!
//! The MCP servers a command starts live as long as the command: [`LocalServers::with_pool`]
//! shuts the pool down before it returns, also when Ctrl-C arrives in the middle of a call,
//! so no stdio server outlives `switchboard`; and each runs under this binary as its guard
//! ([`super::guard`]), which ends it even when `switchboard` is killed.
//!
//! [`LocalServers::with_pool`]: super::local::LocalServers::with_pool

use anyhow::Context as _;
use switchboard_app::AppConfig;

use super::Context;
use crate::settings::{Settings, SettingsError, SettingsFlags};

/// The settings file and the environment, as `serve` reads them without flags.
pub fn settings(context: &Context) -> Result<Settings, SettingsError> {
    let env = |name: &str| std::env::var(name).ok();
    Ok(Settings::load(
        &context.global.settings_file(),
        &env,
        &SettingsFlags::default(),
        &context.global.store_shown(),
    )?
    .settings)
}

/// What a command builds its application from.
pub fn app_config(context: &Context) -> anyhow::Result<AppConfig> {
    let mut config = settings(context)?
        .app_config(None, Default::default())
        .context("cannot use the launch templates of the settings")?;
    config.manager.stdio_guard = super::guard::stdio_guard();
    // Where the stdio servers this command starts will look for their programs.
    config.program_path = std::env::var_os("PATH");
    Ok(config)
}

/// Completes on Ctrl-C; never, where signals cannot be listened for.
pub async fn interrupted() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

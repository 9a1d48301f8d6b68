//! One layered configuration for `serve` (and `config show`): built-in defaults, then the
//! settings file (`--config FILE`, else `<data-dir>/switchboard.toml` when it exists), then
//! `SWITCHBOARD_*` environment variables, then command-line flags.
//!
//! Each section is one file with its keys, its flags and its typed settings ([`manager`],
//! [`agent`], [`server`], [`quotas`]); [`Layers`] looks every key up and remembers where each
//! value came from, so `config show` can say, and so a key in the file that no section reads
//! is reported as unknown instead of silently ignored. A new section (such as
//! `[nodes.NAME]`) is a new file plus one line in [`Settings::load`] and in [`SettingsFlags`].
//!
//! The environment is read through a lookup function, never `std::env` directly, so tests
//! pass their own.

mod agent;
mod app;
mod error;
mod gateway;
mod key;
mod layers;
mod manager;
mod nodes;
mod origin;
mod providers;
mod quotas;
mod search;
mod server;
mod store;
mod value;

use std::path::Path;

pub use agent::{AgentFlags, AgentSettings};
pub use error::SettingsError;
pub use gateway::{GatewayFlags, GatewaySettings};
pub use layers::{FileChoice, Shown};
pub use manager::{ManagerFlags, ManagerSettings};
pub use origin::Origin;
pub use providers::{ProviderFlags, ProviderSettings};
pub use quotas::{QuotaFlags, QuotaSettings};
pub use search::{SearchFlags, SearchSettings};
pub use server::{ServerFlags, ServerSettings};
pub use store::StoreShown;

use layers::{Layers, SettingsFile};

/// The name of the settings file in the data directory.
pub const FILE_NAME: &str = "switchboard.toml";

/// Every flag of the layered settings, shared by `serve` and `config show`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SettingsFlags {
    #[command(flatten)]
    pub server: ServerFlags,
    #[command(flatten)]
    pub manager: ManagerFlags,
    #[command(flatten)]
    pub agent: AgentFlags,
    #[command(flatten)]
    pub quotas: QuotaFlags,
    #[command(flatten)]
    pub gateway: GatewayFlags,
    #[command(flatten)]
    pub providers: ProviderFlags,
    #[command(flatten)]
    pub search: SearchFlags,
}

/// The effective settings. The nodes' tokens and the embeddings endpoint's key are secrets;
/// [`NodeConfig`](switchboard_grpc::NodeConfig)'s and [`SearchSettings`]' `Debug` hide them.
#[derive(Debug, Clone)]
pub struct Settings {
    pub server: ServerSettings,
    pub manager: ManagerSettings,
    pub agent: AgentSettings,
    pub quotas: QuotaSettings,
    /// `[nodes.NAME]`: the MCP nodes servers may run on.
    pub nodes: Vec<switchboard_grpc::NodeConfig>,
    /// `[gateway]`: the MCP gateway.
    pub gateway: GatewaySettings,
    /// `[providers]`: where model servers on this machine are looked for.
    pub providers: ProviderSettings,
    /// `[search]`: the embedding model of semantic tool search.
    pub search: SearchSettings,
}

/// The settings and, for `config show`, every value with where it came from.
#[derive(Debug)]
pub struct Loaded {
    pub settings: Settings,
    pub shown: Vec<Shown>,
    /// The file that was read, if any.
    pub file: Option<std::path::PathBuf>,
}

/// Where the settings file is: `config` when given, else `<data_dir>/switchboard.toml`.
pub fn file_choice(config: Option<&Path>, data_dir: &Path) -> FileChoice {
    match config {
        Some(path) => FileChoice::Given(path.to_owned()),
        None => FileChoice::Default(data_dir.join(FILE_NAME)),
    }
}

impl Settings {
    /// Reads every layer. `store` are the global options' values, only shown.
    pub fn load(
        file: &FileChoice,
        env: &dyn Fn(&str) -> Option<String>,
        flags: &SettingsFlags,
        store: &StoreShown,
    ) -> Result<Loaded, SettingsError> {
        let file = SettingsFile::read(file)?;
        let path = file.as_ref().map(|f| f.path().to_owned());
        let mut layers = Layers::new(file, env);
        store.note(&mut layers);
        let settings = Settings {
            server: ServerSettings::load(&mut layers, &flags.server)?,
            manager: ManagerSettings::load(&mut layers, &flags.manager)?,
            agent: AgentSettings::load(&mut layers, &flags.agent)?,
            quotas: QuotaSettings::load(&mut layers, &flags.quotas)?,
            nodes: nodes::load(&mut layers)?,
            gateway: GatewaySettings::load(&mut layers, &flags.gateway)?,
            providers: ProviderSettings::load(&mut layers, &flags.providers)?,
            search: SearchSettings::load(&mut layers, &flags.search)?,
        };
        Ok(Loaded {
            settings,
            shown: layers.finish()?,
            file: path,
        })
    }
}

#[cfg(test)]
mod tests;

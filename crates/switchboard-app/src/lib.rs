//! Switchboard's application layer: the use cases every front end (the HTTP API, the command
//! line, `mcp --stdio`) calls, and the one place they are built ([`App::build`]).
//!
//! - [`app`]: the composition root and its shutdown;
//! - [`config`]: what it is built from;
//! - [`error`]: the one error type the front ends map;
//! - [`assistants`], [`providers`]: assistants and providers, within their quotas and rules;
//!   providers tested by listing their models, and model servers found on this machine;
//! - [`servers`], [`presets`]: a person's servers, within the member rules and quotas, and
//!   the catalogue's entries added as servers;
//! - [`runs`]: runs in the background of requests, and their run specs;
//! - [`tool_nodes`], [`views`]: what a tool node or a gateway view must pass to be saved,
//!   and running a node;
//! - [`policy`], [`destinations`]: what members may launch and reach, at save and at connect;
//! - [`limits`], [`listing`]: quotas, and the bound on what one tools listing loads;
//! - [`tool_search`]: the tool search people and programs use, over their offer;
//! - [`recall`]: seed 003's action recall, a tool described as a function for a dialect;
//! - [`metrics`], [`metered`]: what the process counts;
//! - [`oauth_vault`]: OAuth sign-ins kept in the store.

pub mod app;
pub mod assistants;
pub mod config;
pub mod destinations;
pub mod embedding;
pub mod error;
pub mod launchers;
pub mod limits;
pub mod listing;
mod lookup;
pub mod metered;
pub mod metrics;
pub mod oauth_vault;
pub mod policy;
pub mod presets;
pub mod providers;
pub mod recall;
pub mod runs;
pub mod servers;
mod tool_labels;
pub mod tool_nodes;
pub mod tool_search;
pub mod views;

pub use app::App;
pub use config::AppConfig;
pub use embedding::{EmbeddingChoice, StoreVectors};
pub use error::AppError;
pub use launchers::Launchers;
pub use policy::Rules;
pub use servers::{Servers, ToolSwitches};
pub use switchboard_embed::EndpointConfig;

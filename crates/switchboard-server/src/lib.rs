//! Switchboard's HTTP API (DESIGN.md "HTTP API"): one axum application whose handlers stay
//! thin — the store, the connection manager and the agent do the work — with one error shape
//! (`{code, message, timestamp}`, [`error`]), one JSON extractor that answers bad bodies in
//! that shape ([`json`]) and authentication as an extractor ([`auth`]).

mod access_log;
pub mod auth;
pub mod chat;
pub mod config;
pub mod destinations;
pub mod error;
pub mod error_words;
pub mod guard;
pub mod i18n;
pub mod json;
mod layered;
pub mod limits;
pub mod live;
pub mod mcp_endpoint;
pub mod metered;
pub mod metrics;
pub mod oauth_vault;
pub mod policy;
pub mod recall;
mod routes;
pub mod runs;
mod serve;
pub mod state;
pub mod stream_auth;
pub mod tool_lookup;
pub mod tool_nodes;
mod unknown_fields;
pub mod views;
mod web;

pub use config::{EnvProvider, ServerConfig};
pub use error::ApiError;
pub use guard::GuardConfig;
pub use limits::Limits;
pub use oauth_vault::paths as oauth_paths;
pub use policy::ServerPolicy;
pub use routes::{app, metrics_app, openapi};
pub use serve::serve;
pub use state::{AppState, AuthMode, Services};

//! Switchboard's HTTP API (DESIGN.md "HTTP API"): one axum application over the application
//! layer ([`switchboard_app::App`], which does the work), with one error shape
//! (`{code, message, timestamp}`, [`error`]), one JSON extractor that answers bad bodies in
//! that shape ([`json`]) and authentication as an extractor ([`auth`]). Nothing here is a
//! rule another front end would need: routes translate HTTP to the application's calls and
//! back.

mod access_log;
pub mod auth;
pub mod chat;
pub mod config;
pub mod error;
pub mod error_words;
pub mod guard;
pub mod i18n;
pub mod json;
mod layered;
pub mod limits;
pub mod live;
pub mod mcp_endpoint;
pub mod oauth_paths;
mod proxy_url;
mod routes;
mod serve;
pub mod state;
pub mod stream_auth;
mod unknown_fields;
mod web;

// The application's modules the routes name most, reachable as `crate::...`.
use switchboard_app::{tool_nodes, views};

pub use config::{ServerConfig, StdioLaunch};
pub use error::ApiError;
pub use guard::GuardConfig;
pub use routes::{app, metrics_app, openapi};
pub use serve::serve;
pub use state::{AppState, AuthMode, Services};

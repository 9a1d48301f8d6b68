//! The MCP gateway: one MCP server that re-exports the tools, resources and prompts
//! of a person's enabled servers under namespaced names, calling them through the tool-call
//! service. `switchboard-server` serves it at `/mcp` and `/mcp/v/{name}` over Streamable HTTP
//! (both protocol generations, on rmcp's server side); `switchboard mcp --stdio` over stdio.
//!
//! One [`Gateway`] is built per process; rmcp makes one [`GatewayHandler`] per session (or per
//! request, in the stateless 2026-07-28 revision). Who is asking ([`Scope`]) comes with every
//! HTTP request, put there by the server's authentication, or is fixed for stdio.
//!
//! A view lists its tools whole, or, in `search` mode, as three tools that search, describe
//! and call the rest, beside the tools it pins (`search`).

mod approval;
mod call_log;
mod changes;
mod config;
mod content;
mod error;
mod exported;
mod gateway;
mod handler;
mod naming;
mod relay;
mod renamed;
mod revision;
mod search;
mod selection;
mod session;
pub mod stdio;
mod tasks;
mod tools;
pub mod wire_rewrite;

pub use call_log::CallLog;
pub use changes::ChangeHub;
pub use config::{ConfigError, GatewayConfig, Unapproved};
pub use error::GatewayError;
pub use exported::ViewReport;
pub use gateway::{Gateway, GatewayDeps};
pub use handler::GatewayHandler;
pub use naming::Collision;
pub use selection::{SelectedServer, Selection};
pub use session::Scope;

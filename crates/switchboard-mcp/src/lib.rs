//! Connections to MCP servers, and the manager that pools them.
//!
//! Switchboard reaches servers over stdio (a child process in its own process group),
//! Streamable HTTP (rmcp's client) and the legacy HTTP+SSE transport of protocol 2024-11-05
//! (our own rmcp [`Transport`](rmcp::transport::Transport), since rmcp dropped it). It speaks
//! both protocol generations: the `initialize` handshake and the stateless 2026-07-28 revision.
//!
//! [`ConnectionManager`] is the entry point: one shared connection per (owner, server),
//! multiplexing concurrent calls, with a tool cache, idle reaping, reconnection, a breaker
//! that leaves a server that cannot be reached out at once while it is tried again in the
//! background, timeouts that progress keeps alive, and cancellation that reaches the server.
//! It implements [`ToolBackend`], the interface the agent and the HTTP server use.

mod attention;
mod backend;
mod client;
mod config;
mod connect;
mod connection;
pub mod destination;
mod error;
pub mod guard;
mod input_required;
mod listen;
mod logbook;
mod manager;
mod notices;
pub mod oauth;
mod policy;
mod pool;
mod redact;
mod requests;
mod tasks;
pub mod transport;
mod upstream_text;

pub use backend::{PerServer, ServerTools, TaskStep, ToolBackend, enabled_tools, without_disabled};
pub use client::Progress;
pub use config::{BreakerPolicy, ManagerConfig, RetryPolicy};
pub use connection::{CallOptions, InputResume, PromptInput, ServerDetails};
pub use error::McpError;
pub use input_required::answer_input;
pub use logbook::{LogBook, LoggedLine, ServerLogLine};
pub use manager::{
    ConnectionManager, ConnectionSnapshot, ConnectionStatus, ServerReport, StatusChange,
    same_connection,
};
pub use policy::{Admission, AdmitAll, ConnectPolicy};
pub use pool::{ListChange, ListKind, NodeHealth, NodeState, ResourceUpdate, ServerPool};
pub use requests::{Requester, ServerRequests};
pub use tasks::{Started, TaskDialect, TaskOutcome, TaskState, TaskStatus};
pub use transport::program::find as find_program;

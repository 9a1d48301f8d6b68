//! The three ways of reaching an MCP server. Each module turns a [`ServerSpec`] into something
//! rmcp can run a client session over.
//!
//! [`ServerSpec`]: switchboard_core::ServerSpec

pub(crate) mod answer_id;
pub(crate) mod child_env;
pub(crate) mod http;
pub(crate) mod legacy_tasks;
pub(crate) mod lines;
pub(crate) mod probe;
pub(crate) mod program;
pub(crate) mod session_aware;
pub mod sse;
pub(crate) mod stdio;
pub(crate) mod stdio_pipes;
pub(crate) mod unreadable;
pub(crate) mod upstream_limit;
pub(crate) mod watched;

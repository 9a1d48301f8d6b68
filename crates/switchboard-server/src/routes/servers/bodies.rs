//! The documented shapes of server bodies whose Rust types cannot name themselves in the
//! OpenAPI document: a written server is parsed from JSON (`seed_001::accept` renames seed
//! 001's fields first), a server is answered in the house or seed 001's shape by `?format=`,
//! and a connection test or health answer holds rmcp's types (`switchboard_mcp::ServerReport`,
//! `ConnectionSnapshot`). Each type here mirrors the JSON those produce, field for field;
//! `tests/it/server_test_unsaved.rs` compares a real test answer with its mirror.
//!
//! None is ever built: they exist to be named by `#[utoipa::path]` attributes.
#![allow(dead_code)]

use serde::Serialize;
use serde_json::{Map, Value};
use switchboard_core::{ServerSpec, ToolInfo};
use switchboard_store::StoredServer;
use utoipa::ToSchema;

use crate::routes::seeds::seed_001::Seed001Server;

/// A server as `POST`/`PUT /api/mcp-servers` take it: the house shape (its `id` may be left
/// out on create: it then comes from the name; a URL without `transport` is Streamable HTTP
/// when it ends in `/mcp`, else SSE), or seed 001's field names.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum ServerWritten {
    House(ServerSpec),
    Seed001(Seed001Server),
}

/// A server as answered, secrets masked: the house shape, or seed 001's with
/// `?format=seed001`.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum ServerAnswer {
    House(StoredServer),
    Seed001(Seed001Server),
}

/// The server's own name and version, as it introduced itself.
#[derive(Serialize, ToSchema)]
pub struct ServerIdentity {
    pub name: String,
    pub version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// What the server told us about itself when we connected.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerDetails {
    /// The MCP protocol revision spoken.
    pub protocol_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_info: Option<ServerIdentity>,
    /// The MCP `ServerCapabilities` as the server declared them.
    #[schema(value_type = Object)]
    pub capabilities: Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// A connection test's answer: connected, initialized and listed.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerReport {
    #[serde(flatten)]
    pub details: ServerDetails,
    pub tools: Vec<ToolInfo>,
}

/// Where a connection is.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionStatus {
    Disconnected,
    Connecting,
    Connected,
    Error,
}

/// A server's connection health.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerHealth {
    pub id: String,
    pub status: ConnectionStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Milliseconds since the Unix epoch of the last request on this connection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_active_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerDetails>,
    /// When this answer was made (RFC 3339).
    pub checked_at: String,
}

//! What the manager reports about each connection (seed 001's connection instance).

use serde::{Deserialize, Serialize};

use crate::connection::ServerDetails;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionStatus {
    Disconnected,
    Connecting,
    Connected,
    Error,
    /// The server wants an OAuth sign-in the person has not made (or that expired for good).
    NeedsSignIn,
}

/// The state of one (owner, server) connection at a moment.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionSnapshot {
    pub status: ConnectionStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Milliseconds since the Unix epoch of the last request on this connection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_active_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerDetails>,
}

impl ConnectionSnapshot {
    /// No connection (yet).
    pub fn disconnected() -> Self {
        Self {
            status: ConnectionStatus::Disconnected,
            last_error: None,
            last_active_at: None,
            server: None,
        }
    }
}

/// A server's identity, capabilities and tools, from a connection made just to look.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerReport {
    #[serde(flatten)]
    pub details: ServerDetails,
    pub tools: Vec<switchboard_core::ToolInfo>,
}

/// A connection's state changed (the manager's `status_changes`).
#[derive(Debug, Clone)]
pub struct StatusChange {
    pub owner: switchboard_core::OwnerId,
    pub server: switchboard_core::ServerId,
    pub status: ConnectionStatus,
    pub last_error: Option<String>,
}

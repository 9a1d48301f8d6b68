//! The configuration of one MCP server: how to reach it and which of its tools to use.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Stable identifier of a configured server (unique per owner).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ServerId(pub String);

impl fmt::Display for ServerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for ServerId {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

/// How Switchboard talks to a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TransportKind {
    /// A local process speaking JSON-RPC lines on stdin/stdout.
    Stdio,
    /// MCP Streamable HTTP (2025-03-26 and later); the URL usually ends in `/mcp`.
    StreamableHttp,
    /// The legacy HTTP+SSE transport of protocol 2024-11-05.
    Sse,
}

/// Credentials sent to HTTP servers.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Auth {
    #[default]
    None,
    /// The key goes in `header` (for example `X-API-Key`).
    ApiKey { header: String, key: String },
    /// `Authorization: Bearer <token>`.
    Bearer { token: String },
}

impl fmt::Debug for Auth {
    // Secrets never reach logs, so Debug names the kind and hides the value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Auth::None => f.write_str("None"),
            Auth::ApiKey { header, .. } => write!(f, "ApiKey {{ header: {header:?}, key: *** }}"),
            Auth::Bearer { .. } => f.write_str("Bearer { token: *** }"),
        }
    }
}

/// One configured MCP server.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerSpec {
    pub id: ServerId,
    pub name: String,
    pub transport: TransportKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Merged over the environment of the Switchboard process.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub auth: Auth,
    /// Per-call timeout; the manager's default applies when absent.
    #[serde(default, with = "duration_secs_opt", skip_serializing_if = "Option::is_none")]
    pub timeout: Option<Duration>,
    #[serde(default = "default_true")]
    pub enabled: bool,
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub disabled_tools: BTreeSet<String>,
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub auto_approved_tools: BTreeSet<String>,
}

fn default_true() -> bool {
    true
}

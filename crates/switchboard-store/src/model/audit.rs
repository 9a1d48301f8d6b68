//! The record of one tool call (`tool_call_audit`): who called what, through which way in, how
//! it ended and how long it took.
//!
//! A record never holds the call's arguments or its result: both may carry secrets (a mapped
//! bearer token, a file's contents), and the audit is read by people who should learn that a
//! call happened, not what it carried.

use serde::{Deserialize, Serialize};
use switchboard_core::{ErrorCode, OwnerId, ServerId};

use super::Timestamp;

/// Which way a tool call came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[non_exhaustive]
pub enum CallerKind {
    /// `POST /api/mcp/tools/call`.
    Api,
    /// The flat-parameter proxy (seed 003).
    Proxy,
    /// The agent, for a model's tool call in a chat.
    Agent,
    /// `POST /api/tool-nodes/{id}/execute`, a workflow engine running a node.
    Node,
    /// The aggregated MCP endpoint.
    Gateway,
    /// `switchboard call` at the command line.
    Cli,
}

impl CallerKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            CallerKind::Api => "api",
            CallerKind::Proxy => "proxy",
            CallerKind::Agent => "agent",
            CallerKind::Node => "node",
            CallerKind::Gateway => "gateway",
            CallerKind::Cli => "cli",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<CallerKind> {
        [
            CallerKind::Api,
            CallerKind::Proxy,
            CallerKind::Agent,
            CallerKind::Node,
            CallerKind::Gateway,
            CallerKind::Cli,
        ]
        .into_iter()
        .find(|kind| kind.as_str() == text)
    }
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuditOutcome {
    /// The tool answered.
    Ok,
    /// The tool answered with its own error result (`isError: true`).
    ToolError,
    /// The call failed before the tool could answer, with this code.
    Error(ErrorCode),
}

impl AuditOutcome {
    /// The stored and shown text: `ok`, `tool_error`, or the error code (`MCP_TIMEOUT`).
    pub fn as_str(self) -> &'static str {
        match self {
            AuditOutcome::Ok => "ok",
            AuditOutcome::ToolError => "tool_error",
            AuditOutcome::Error(code) => code.as_str(),
        }
    }

    pub(crate) fn parse(text: &str) -> Option<AuditOutcome> {
        match text {
            "ok" => Some(AuditOutcome::Ok),
            "tool_error" => Some(AuditOutcome::ToolError),
            code => code.parse().ok().map(AuditOutcome::Error),
        }
    }
}

impl Serialize for AuditOutcome {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A tool call to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAuditRecord {
    pub owner: OwnerId,
    /// When the call started.
    pub at: Timestamp,
    pub caller: CallerKind,
    pub server_id: ServerId,
    pub tool: String,
    /// The tool node the call ran under, if any.
    pub node_id: Option<String>,
    pub outcome: AuditOutcome,
    /// Attempts made (1 when nothing was retried; 0 when the call was refused before it was
    /// sent).
    pub attempts: u32,
    /// From the start of the call to its answer, retries and their waits included.
    pub duration_ms: u64,
}

/// A recorded tool call, as its owner reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditRecord {
    /// The record's number among its owner's records: 1 for a person's first call, then
    /// increasing in the order they were written (each person is numbered on their own, so
    /// no one learns how many calls others made).
    pub id: i64,
    pub at: Timestamp,
    pub caller: CallerKind,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub server_id: ServerId,
    pub tool: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_id: Option<String>,
    /// `ok`, `tool_error` (the tool's own error result), or the error code the call failed
    /// with (`MCP_TIMEOUT`, `MCP_INVALID_PARAMS`, ...).
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "ok"))]
    pub outcome: AuditOutcome,
    pub attempts: u32,
    pub duration_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_and_callers_read_back_from_their_text() {
        for outcome in [
            AuditOutcome::Ok,
            AuditOutcome::ToolError,
            AuditOutcome::Error(ErrorCode::McpTimeout),
        ] {
            assert_eq!(AuditOutcome::parse(outcome.as_str()), Some(outcome));
        }
        assert_eq!(AuditOutcome::parse("MAYBE"), None);
        for kind in ["api", "proxy", "agent", "node", "gateway"] {
            assert_eq!(CallerKind::parse(kind).map(CallerKind::as_str), Some(kind));
        }
    }
}

//! What a caller hands the tool-call service, and what it gets back.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};
use switchboard_core::{ErrorCode, OwnerId, ServerSpec, Variables};
use switchboard_mcp::Progress;
use switchboard_store::Timestamp;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub use switchboard_store::CallerKind;

use super::StoredNode;

/// One tool call, as a caller built it. Fields are owned, so the request can move into a
/// spawned task.
#[derive(Debug)]
pub struct ToolCallRequest {
    pub owner: OwnerId,
    /// Which way the call came in (recorded in the audit).
    pub caller: CallerKind,
    /// The server, secrets in clear (`Store::connection_spec`).
    pub spec: Arc<ServerSpec>,
    /// The tool's own name on the server.
    pub tool: String,
    /// The arguments the model or the caller gave; a node's mappings are applied over them.
    pub arguments: Map<String, Value>,
    /// The tool node the call runs under: which tools may be called, how parameters are
    /// filled, how the call is retried and timed out.
    pub node: Option<Arc<StoredNode>>,
    /// What the node's `{{variable}}` references resolve against. The node's declared
    /// defaults are added below whatever is given; without variables, only those defaults
    /// and the owner's id (`user.id`, and as `user.name`) are known.
    pub variables: Option<Variables>,
    /// Cancelling stops the call, and any wait before a retry.
    pub cancel: CancellationToken,
    /// Receives the server's progress reports, for every attempt.
    pub progress: Option<mpsc::UnboundedSender<Progress>>,
    /// Who answers the server's elicitation and sampling requests during the call (the
    /// gateway's downstream client); `None`: they are refused.
    pub requests: Option<switchboard_mcp::Requester>,
    /// Answers to an input-required result the server gave this call before (a chat's call
    /// resumed after a restart).
    pub resume: Option<switchboard_mcp::InputResume>,
    /// The caller does not wait for the call: a tool that may run as a task (not only one
    /// that must) is started as one, unless its server's `tasks` setting says never.
    pub prefer_task: bool,
}

impl ToolCallRequest {
    /// A request with no node, variables, progress or cancellation of its own.
    pub fn new(
        owner: OwnerId,
        caller: CallerKind,
        spec: Arc<ServerSpec>,
        tool: impl Into<String>,
        arguments: Map<String, Value>,
    ) -> Self {
        Self {
            owner,
            caller,
            spec,
            tool: tool.into(),
            arguments,
            node: None,
            variables: None,
            cancel: CancellationToken::new(),
            progress: None,
            requests: None,
            resume: None,
            prefer_task: false,
        }
    }
}

/// One try at sending the call to the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// Wall-clock start.
    pub started_at: Timestamp,
    pub duration: Duration,
    /// Why the attempt failed; `None` when the server answered (a tool's own error result
    /// is an answer).
    pub error: Option<ErrorCode>,
}

/// A call the server answered (perhaps with the tool's own error result, `isError`).
#[derive(Debug, Clone)]
pub struct ToolCallOutcome {
    pub result: CallToolResult,
    /// The arguments as sent, mappings applied (secrets in clear: mask before showing).
    pub arguments: Map<String, Value>,
    /// Every attempt, the last one answered.
    pub attempts: Vec<Attempt>,
    /// The tool as the server lists it (its full schema).
    pub tool: super::SharedTool,
    /// From the start of the call to the answer, retries and waits included.
    pub duration: Duration,
}

/// A call started with [`ToolCalls::start`](super::ToolCalls::start): answered at once, or
/// running as the server's task.
#[derive(Debug, Clone)]
pub struct StartedCall {
    pub started: switchboard_mcp::Started,
    /// The arguments as sent, mappings applied (secrets in clear: mask before showing).
    pub arguments: Map<String, Value>,
    /// Every attempt at starting it, the last one answered.
    pub attempts: Vec<Attempt>,
    /// The tool as the server lists it.
    pub tool: super::SharedTool,
}

/// How a call started as a task ended, for the audit.
#[derive(Debug, Clone)]
pub struct TaskCallEnd {
    pub owner: OwnerId,
    pub caller: CallerKind,
    pub server_id: switchboard_core::ServerId,
    pub tool: String,
    /// When the call was started.
    pub at: Timestamp,
    pub outcome: switchboard_store::AuditOutcome,
    /// From the start to the end.
    pub duration: Duration,
}

//! Test doubles for the tool-call service: a backend that answers each call by a script and
//! notes when (in Tokio's clock) and how it was called, and an audit store in memory.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::model::{CallToolResult, ContentBlock, ErrorData, JsonObject};
use serde_json::{Map, Value, json};
use switchboard_core::{
    OwnerId, SelectedTool, ServerSpec, ToolAnnotations, ToolInfo, ToolNode, VariableDecl,
};
use switchboard_mcp::{CallOptions, McpError, RetryPolicy, ServerTools, ToolBackend};
use switchboard_store::{AuditRecord, AuditStore, NewAuditRecord, StoreError, Timestamp};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::StoredNode;

/// How one scripted call ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    Answer,
    ToolError,
    /// Lost before the request was written: never reached the tool.
    NotSent,
    /// The server could not be reached.
    Unreachable,
    /// Lost after the request was written: the tool may have run.
    LostAfterSend,
    /// No answer in time: the tool may be running.
    TimedOut,
    /// The server answered with an error: the same call fails the same way.
    ServerError,
}

impl Step {
    pub(crate) fn outcome(self, server: &str, tool: &str) -> Result<CallToolResult, McpError> {
        let server = server.to_owned();
        match self {
            Step::Answer => Ok(CallToolResult::success(vec![ContentBlock::text("done")])),
            Step::ToolError => Ok(CallToolResult::error(vec![ContentBlock::text("no")])),
            Step::NotSent => Err(McpError::ConnectionLost { server }),
            Step::Unreachable => Err(McpError::Unreachable {
                url: "http://127.0.0.1:9/mcp".into(),
                reason: switchboard_core::ReachFailure::Refused,
                detail: "connection refused".into(),
            }),
            Step::LostAfterSend => Err(McpError::LostAfterSend {
                server,
                tool: tool.to_owned(),
            }),
            Step::TimedOut => Err(McpError::Timeout {
                server,
                method: "tools/call".into(),
                timeout: Duration::from_secs(60),
            }),
            Step::ServerError => Err(McpError::Server {
                server,
                error: ErrorData::internal_error("broken", None),
            }),
        }
    }
}

/// One call the backend received.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    pub at: Instant,
    pub arguments: Option<JsonObject>,
    pub timeout: Option<Duration>,
    pub retry: Option<RetryPolicy>,
}

/// A backend with one server listing `tools`, answering calls by `script` (an answer once it
/// runs out); cancels `cancel_on_call` (if set) when called.
#[derive(Default)]
pub(crate) struct ScriptedBackend {
    pub tools: Vec<ToolInfo>,
    pub script: Mutex<VecDeque<Step>>,
    pub received: Mutex<Vec<Received>>,
    pub cancel_on_call: Option<CancellationToken>,
}

impl ScriptedBackend {
    pub(crate) fn new(tools: Vec<ToolInfo>, script: impl IntoIterator<Item = Step>) -> Self {
        Self {
            tools,
            script: Mutex::new(script.into_iter().collect()),
            ..Self::default()
        }
    }

    pub(crate) fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

impl ToolBackend for ScriptedBackend {
    fn tools<'a>(
        &'a self,
        _owner: &'a OwnerId,
        servers: &'a [ServerSpec],
    ) -> BoxFuture<'a, Vec<ServerTools>> {
        let listed = servers
            .iter()
            .filter(|spec| spec.enabled)
            .map(|spec| (spec.clone(), Ok(Arc::new(self.tools.clone()))))
            .collect();
        Box::pin(async move { listed })
    }

    fn call<'a>(
        &'a self,
        _owner: &'a OwnerId,
        server: &'a ServerSpec,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
        self.received.lock().unwrap().push(Received {
            at: Instant::now(),
            arguments,
            timeout: options.timeout,
            retry: options.retry,
        });
        if let Some(cancel) = &self.cancel_on_call {
            cancel.cancel();
        }
        let step = self
            .script
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(Step::Answer);
        let outcome = step.outcome(&server.name, tool);
        Box::pin(async move { outcome })
    }
}

/// Audit records kept in memory.
#[derive(Debug, Default)]
pub(crate) struct MemoryAudit {
    pub records: Mutex<Vec<NewAuditRecord>>,
    /// How many records each write brought.
    pub batches: Mutex<Vec<usize>>,
}

#[async_trait::async_trait]
impl AuditStore for MemoryAudit {
    async fn record_tool_calls(&self, records: &[NewAuditRecord]) -> Result<(), StoreError> {
        self.records.lock().unwrap().extend_from_slice(records);
        self.batches.lock().unwrap().push(records.len());
        Ok(())
    }

    /// Keeps each owner's newest `keep`, as the stores do.
    async fn prune_tool_calls(&self, owner: &OwnerId, keep: u32) -> Result<u64, StoreError> {
        let mut records = self.records.lock().unwrap();
        let theirs = records.iter().filter(|r| &r.owner == owner).count();
        let mut excess = theirs.saturating_sub(keep as usize);
        let before = records.len();
        records.retain(|r| {
            if excess > 0 && &r.owner == owner {
                excess -= 1;
                return false;
            }
            true
        });
        Ok((before - records.len()) as u64)
    }

    async fn tool_call_audit(
        &self,
        owner: &OwnerId,
        limit: u32,
    ) -> Result<Vec<AuditRecord>, StoreError> {
        let records = self.records.lock().unwrap();
        Ok(records
            .iter()
            .enumerate()
            .rev()
            .filter(|(_, r)| &r.owner == owner)
            .take(limit as usize)
            .map(|(id, r)| AuditRecord {
                id: id as i64,
                at: r.at,
                caller: r.caller,
                server_id: r.server_id.clone(),
                tool: r.tool.clone(),
                node_id: r.node_id.clone(),
                outcome: r.outcome,
                attempts: r.attempts,
                duration_ms: r.duration_ms,
            })
            .collect())
    }
}

pub(crate) fn spec() -> ServerSpec {
    ServerSpec::stdio("files", "true", Vec::<String>::new())
}

/// A tool of `spec` with `schema`, read-only or idempotent when `repeatable`.
pub(crate) fn tool(spec: &ServerSpec, name: &str, schema: Value, repeatable: bool) -> ToolInfo {
    let Value::Object(input_schema) = schema else {
        panic!("a schema is an object");
    };
    ToolInfo {
        server_id: spec.id.clone(),
        name: name.into(),
        title: None,
        description: None,
        input_schema,
        output_schema: None,
        annotations: ToolAnnotations {
            idempotent_hint: repeatable.then_some(true),
            ..ToolAnnotations::default()
        },
        icons: Vec::new(),
        meta: None,
        tasks: None,
    }
}

pub(crate) fn any_object() -> Value {
    json!({"type": "object"})
}

/// A stored node of `spec` selecting `selected`.
pub(crate) fn node(spec: &ServerSpec, selected: Vec<SelectedTool>) -> StoredNode {
    StoredNode {
        id: "node-1".into(),
        node: ToolNode {
            name: "node".into(),
            server_id: spec.id.clone(),
            selected_tools: selected,
            retry_on_error: false,
            max_retries: 3,
            timeout: None,
            variables: Vec::<VariableDecl>::new(),
            assistant_id: None,
        },
        created_at: Timestamp(0),
        updated_at: Timestamp(0),
    }
}

/// A selected, enabled tool with `mappings` (JSON as a node is written).
pub(crate) fn selected(name: &str, mappings: Value) -> SelectedTool {
    serde_json::from_value(json!({"name": name, "parameterMappings": mappings})).unwrap()
}

pub(crate) fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => panic!("arguments are an object"),
    }
}

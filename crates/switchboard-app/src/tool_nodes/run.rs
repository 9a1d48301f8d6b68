//! Running one tool of a stored node for a workflow engine, answered as seed 002's
//! `ToolCallResult`.
//!
//! The run's variables are the built-ins (the caller and the time; there is no conversation
//! here), then the supplied `variables`, then the defaults the node and its assistant declare.
//! The call itself is the tool-call service's ([`ToolCalls`]): the enabled and selected
//! checks, the mappings, the schema check, the node's timeout and retries, metering, audit.
//!
//! What could not be tried is an error ([`NodeRunError`]: a tool the node does not offer, a
//! variable with no value, arguments that do not fit); a call that was tried is a result,
//! with `success: false`, the error and every attempt with its timing when it failed, since
//! that is what a workflow branches on.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value};
use switchboard_agent::tasks::{TaskOutcome, Tasks};
use switchboard_agent::{
    Attempt, CallerKind, ToolCallError, ToolCallRequest, ToolCalls, builtins_now,
};
use switchboard_core::spec::redact_json;
use switchboard_core::{ErrorCode, ToolNode, Variables, resolve_arguments};
use switchboard_mcp::McpError;
use switchboard_store::{Store, StoreError, StoredTask, TaskOrigin, User};
use tokio_util::sync::CancellationToken;
use utoipa::ToSchema;

/// What to run.
#[derive(Debug, Default, Clone)]
pub struct NodeRun {
    /// The tool; may be left out when the node has exactly one enabled tool.
    pub tool: Option<String>,
    /// Values for `{{variable}}` references, over the declared defaults.
    pub variables: Map<String, Value>,
    /// The tool's arguments; a mapped parameter is filled by its mapping whatever is given.
    pub arguments: Map<String, Value>,
}

/// Why a node could not be run at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NodeRunError {
    /// The node, its server or its assistant is not the caller's, or the store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// No tool was named and the node does not have exactly one enabled tool.
    #[error("tool node {node:?} has {count} enabled tools; name the one to run in \"tool\"")]
    ToolRequired { node: String, count: usize },
    /// The service refused the call before trying it (not offered, a variable with no value,
    /// arguments that do not fit).
    #[error(transparent)]
    Call(ToolCallError),
}

impl NodeRunError {
    /// The error code of the API's error shape.
    pub fn code(&self) -> ErrorCode {
        match self {
            NodeRunError::Store(e) => e.code(),
            NodeRunError::ToolRequired { .. } => ErrorCode::ValidationError,
            NodeRunError::Call(e) => e.code(),
        }
    }
}

/// Seed 002's `ToolCallResult`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallResult {
    /// The call was made and the tool did not report an error.
    pub success: bool,
    pub tool: String,
    /// The MCP content blocks as the server sent them (empty when the call failed).
    #[schema(value_type = Vec<Object>)]
    pub content: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub structured_content: Option<Value>,
    /// The tool reported an error in its result.
    pub is_error: bool,
    /// Why the call failed, when it did not reach a result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<RunError>,
    /// The arguments as resolved and sent, with credentials and the server's secrets masked.
    #[schema(value_type = Object)]
    pub arguments: Map<String, Value>,
    pub attempts: Vec<AttemptView>,
    /// From the start of the run to its answer, in milliseconds.
    pub duration_ms: u64,
}

/// A call that was tried and failed.
#[derive(Debug, Serialize, ToSchema)]
pub struct RunError {
    /// The error code, e.g. `MCP_TIMEOUT`.
    #[schema(value_type = String)]
    pub code: ErrorCode,
    /// What went wrong, for a person.
    pub message: String,
}

/// One try of the call.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttemptView {
    /// 1 for the first try.
    pub attempt: usize,
    /// When it started, RFC 3339 in UTC.
    pub started_at: String,
    pub duration_ms: u64,
    /// The error code it failed with, if it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub error: Option<ErrorCode>,
}

/// Runs `run` on the node `id` of `user`. `word` puts an MCP failure into words for the
/// answer (the HTTP route uses the caller's language); the call ends when `cancel` does.
pub async fn run_node(
    store: &dyn Store,
    tool_calls: &ToolCalls,
    user: &User,
    id: &str,
    run: NodeRun,
    cancel: CancellationToken,
    word: impl Fn(&McpError) -> String,
) -> Result<ToolCallResult, NodeRunError> {
    let started = Instant::now();
    let Prepared {
        request,
        spec,
        stored,
        tool,
        variables,
    } = prepare(store, user, id, run.clone(), cancel).await?;
    let masked = |arguments: &Map<String, Value>| match redact_json(
        &Value::Object(arguments.clone()),
        &spec.secret_values(),
    ) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    match tool_calls.call(request).await {
        Ok(outcome) => {
            let result = serde_json::to_value(&outcome.result).unwrap_or_default();
            let is_error = result
                .get("isError")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let content = match result.get("content") {
                Some(Value::Array(blocks)) => blocks.clone(),
                _ => Vec::new(),
            };
            Ok(ToolCallResult {
                success: !is_error,
                tool,
                content,
                structured_content: result.get("structuredContent").cloned(),
                is_error,
                error: None,
                arguments: masked(&outcome.arguments),
                attempts: attempts(&outcome.attempts),
                duration_ms: millis(started.elapsed()),
            })
        }
        // Tried and failed. (With no attempt, the server could not even list its tools:
        // that is the error answer the servers routes give, 502 or 504.)
        Err(ToolCallError::Mcp {
            error,
            attempts: tried,
        }) if !tried.is_empty() => {
            // The mappings resolved before the call was tried, so they do again here (a pure
            // function of the same inputs).
            let sent = stored
                .node
                .selected(&tool)
                .and_then(|selected| {
                    resolve_arguments(selected, run.arguments.clone(), &variables).ok()
                })
                .unwrap_or(run.arguments);
            Ok(ToolCallResult {
                success: false,
                tool,
                content: Vec::new(),
                structured_content: None,
                is_error: false,
                error: Some(RunError {
                    code: error.code(),
                    message: word(&error),
                }),
                arguments: masked(&sent),
                attempts: attempts(&tried),
                duration_ms: millis(started.elapsed()),
            })
        }
        Err(other) => Err(NodeRunError::Call(other)),
    }
}

/// A node's call, ready for the tool-call service.
struct Prepared {
    request: ToolCallRequest,
    spec: Arc<switchboard_core::ServerSpec>,
    stored: Arc<switchboard_store::StoredToolNode>,
    tool: String,
    variables: Variables,
}

/// The call `run` makes on node `id` of `user`: its tool, variables and server.
async fn prepare(
    store: &dyn Store,
    user: &User,
    id: &str,
    run: NodeRun,
    cancel: CancellationToken,
) -> Result<Prepared, NodeRunError> {
    let owner = &user.id;
    let stored = store.tool_node(owner, id).await?;
    let tool = chosen_tool(&stored.node, run.tool)?;
    let outer = super::assistant_variables(store, owner, &stored.node).await?;
    let variables = Variables::new(builtins_now(&user.id.0, &user.name, None))
        .with_layer(run.variables)
        .with_declared(&stored.node.variables)
        .with_declared(&outer);
    let spec = Arc::new(store.connection_spec(owner, &stored.node.server_id).await?);
    let stored = Arc::new(stored);
    let request = ToolCallRequest {
        owner: owner.clone(),
        caller: CallerKind::Node,
        spec: Arc::clone(&spec),
        tool: tool.clone(),
        arguments: run.arguments,
        node: Some(Arc::clone(&stored)),
        variables: Some(variables.clone()),
        cancel,
        progress: None,
        requests: None,
        resume: None,
        prefer_task: false,
    };
    Ok(Prepared {
        request,
        spec,
        stored,
        tool,
        variables,
    })
}

/// Starts `run` on node `id` of `user` as a task, without waiting for it: the call runs in
/// the background (or as its server's task) and its result is read from the task.
pub async fn start_node_task(
    store: &dyn Store,
    tasks: &Tasks,
    user: &User,
    id: &str,
    run: NodeRun,
) -> Result<StoredTask, NodeRunError> {
    let prepared = prepare(store, user, id, run, CancellationToken::new()).await?;
    tasks
        .run_in_background(prepared.request, TaskOrigin::Node)
        .await
        .map_err(NodeRunError::Call)
}

/// What a node's task ended with, as seed 002's `ToolCallResult`; `None` while it runs.
/// The arguments sent are not kept with a task (nor anywhere), so they are empty here, and
/// the attempts are the one the task made.
pub fn task_result(task: &StoredTask) -> Option<ToolCallResult> {
    let outcome = TaskOutcome::from_value(task.outcome.as_ref()?)?;
    let finished = task.finished_at.unwrap_or(task.updated_at);
    let duration_ms = u64::try_from(finished.0 - task.created_at.0).unwrap_or(0);
    let attempt = |error| AttemptView {
        attempt: 1,
        started_at: rfc3339_millis(task.created_at.0),
        duration_ms,
        error,
    };
    Some(match outcome {
        TaskOutcome::Result(result) => {
            let is_error = result.is_error == Some(true);
            let result = serde_json::to_value(&result).unwrap_or_default();
            ToolCallResult {
                success: !is_error,
                tool: task.tool.clone(),
                content: match result.get("content") {
                    Some(Value::Array(blocks)) => blocks.clone(),
                    _ => Vec::new(),
                },
                structured_content: result.get("structuredContent").cloned(),
                is_error,
                error: None,
                arguments: Map::new(),
                attempts: vec![attempt(None)],
                duration_ms,
            }
        }
        TaskOutcome::Error { code, message } => ToolCallResult {
            success: false,
            tool: task.tool.clone(),
            content: Vec::new(),
            structured_content: None,
            is_error: false,
            error: Some(RunError { code, message }),
            arguments: Map::new(),
            attempts: vec![attempt(Some(code))],
            duration_ms,
        },
    })
}

/// The tool to run: the one named, or the node's only enabled tool.
fn chosen_tool(node: &ToolNode, named: Option<String>) -> Result<String, NodeRunError> {
    if let Some(tool) = named {
        return Ok(tool);
    }
    let mut enabled = node.selected_tools.iter().filter(|t| t.enabled);
    match (enabled.next(), enabled.next()) {
        (Some(only), None) => Ok(only.name.clone()),
        _ => Err(NodeRunError::ToolRequired {
            node: node.name.clone(),
            count: node.selected_tools.iter().filter(|t| t.enabled).count(),
        }),
    }
}

fn attempts(list: &[Attempt]) -> Vec<AttemptView> {
    list.iter()
        .enumerate()
        .map(|(i, a)| AttemptView {
            attempt: i + 1,
            started_at: rfc3339_millis(a.started_at.0),
            duration_ms: millis(a.duration),
            error: a.error,
        })
        .collect()
}

fn rfc3339_millis(epoch_millis: i64) -> String {
    let since = Duration::from_millis(u64::try_from(epoch_millis).unwrap_or(0));
    humantime::format_rfc3339_millis(std::time::UNIX_EPOCH + since).to_string()
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_only_enabled_tool_is_chosen_and_several_need_a_name() {
        let node: ToolNode = serde_json::from_value(serde_json::json!({
            "name": "n",
            "serverId": "s",
            "selectedTools": [{"name": "a"}, {"name": "b", "enabled": false}],
        }))
        .unwrap();
        assert_eq!(chosen_tool(&node, None).unwrap(), "a");
        assert_eq!(chosen_tool(&node, Some("b".into())).unwrap(), "b");
        let mut both = node.clone();
        both.selected_tools[1].enabled = true;
        let error = chosen_tool(&both, None).unwrap_err();
        assert!(
            matches!(error, NodeRunError::ToolRequired { count: 2, .. }),
            "{error}"
        );
    }

    #[test]
    fn attempt_times_are_rfc_3339() {
        assert_eq!(rfc3339_millis(1_000), "1970-01-01T00:00:01.000Z");
    }
}

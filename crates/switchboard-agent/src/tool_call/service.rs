//! [`ToolCalls`]: the one place a tool call is checked, completed, sent, retried and recorded,
//! whoever makes it (the REST call route, the proxy, the agent, a node's execution).

use std::ops::Deref as _;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};
use switchboard_core::{
    OwnerId, ServerSpec, ToolInfo, ToolNode, Variables, hide_mapped, resolve_arguments,
};
use switchboard_mcp::{CallOptions, McpError, RetryPolicy, Started, ToolBackend};
use switchboard_store::{AuditOutcome, AuditRecord, AuditStore, NewAuditRecord, Store, Timestamp};
use tokio::time::Instant;

use super::audit::{AuditConfig, AuditLog};
use super::retry::{Retries, with_retries};
use super::validators::Validators;
use super::{
    Attempt, SharedTool, StartedCall, TaskCallEnd, ToolCallError, ToolCallOutcome, ToolCallRequest,
};

/// The tool-call service. Built once per process and shared (`Arc`) by the HTTP routes and
/// the agent, so its validator cache and audit writer are shared too.
pub struct ToolCalls {
    /// Calls go through the caller's backend (the server's counts every call for metrics).
    backend: Arc<dyn ToolBackend>,
    validators: Validators,
    /// The `[manager.retry]` settings: for calls without a node, and under a node the floor
    /// for failures that never reached the tool (see [`Retries`]).
    default_retry: RetryPolicy,
    audit: AuditLog,
    store: Arc<dyn AuditStore>,
}

impl std::fmt::Debug for ToolCalls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCalls")
            .field("default_retry", &self.default_retry)
            .field("audit", &self.audit)
            .finish_non_exhaustive()
    }
}

impl ToolCalls {
    /// The service on `backend`, auditing into `store` with the default [`AuditConfig`];
    /// `default_retry` applies to calls without a node. Starts the audit writer on the current
    /// Tokio runtime (outside one, calls are not audited).
    pub fn new(
        backend: Arc<dyn ToolBackend>,
        store: Arc<dyn Store>,
        default_retry: RetryPolicy,
    ) -> Self {
        Self::with_audit(backend, store, default_retry, &AuditConfig::default())
    }

    /// As [`ToolCalls::new`], with any audit store and configuration.
    pub fn with_audit(
        backend: Arc<dyn ToolBackend>,
        store: Arc<dyn AuditStore>,
        default_retry: RetryPolicy,
        audit: &AuditConfig,
    ) -> Self {
        Self {
            backend,
            validators: Validators::default(),
            default_retry,
            audit: AuditLog::start(Arc::clone(&store), audit),
            store,
        }
    }

    /// Keeps at most `keep` audit records per owner from now on.
    pub fn set_audit_keep(&self, keep: u32) {
        self.audit.set_keep(keep);
    }

    /// Audit records dropped because the writer could not keep up.
    pub fn audit_dropped(&self) -> u64 {
        self.audit.dropped()
    }

    /// Returns once every audit record of the calls answered so far is written. A short-lived
    /// process (the CLI) awaits it before it exits, or the background writer may be dropped
    /// with records still queued.
    pub async fn flush(&self) {
        self.audit.flush().await;
    }

    /// The owner's newest `limit` audit records, newest first, including every call this
    /// process answered before (the queue is written out first).
    pub async fn audit(
        &self,
        owner: &OwnerId,
        limit: u32,
    ) -> Result<Vec<AuditRecord>, ToolCallError> {
        self.audit.flush().await;
        Ok(self.store.tool_call_audit(owner, limit).await?)
    }

    /// The tool as the model or caller may see it under `node`: `None` when the node does not
    /// offer it (not selected, or selected with `enabled: false`); else the tool with the
    /// parameters the node maps removed from its schema.
    pub fn offered(tool: &ToolInfo, node: Option<&ToolNode>) -> Option<ToolInfo> {
        let Some(node) = node else {
            return Some(tool.clone());
        };
        let selected = node.selected(&tool.name)?;
        let mut offered = tool.clone();
        offered.input_schema = hide_mapped(&tool.input_schema, selected);
        Some(offered)
    }

    /// The tool `tool` of `spec` as the server lists it, when the server is enabled and the
    /// tool is not switched off on it.
    pub async fn lookup(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        tool: &str,
    ) -> Result<ToolInfo, ToolCallError> {
        Ok(self.find(owner, spec, tool).await?.deref().clone())
    }

    /// As [`ToolCalls::lookup`], the tool read in place in the server's list.
    async fn find(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        tool: &str,
    ) -> Result<SharedTool, ToolCallError> {
        let not_found = || ToolCallError::ToolNotFound {
            server: spec.name.clone(),
            tool: tool.to_owned(),
        };
        if !spec.offers(tool) {
            return Err(not_found());
        }
        let tools = self.backend.server_tools(owner, spec).await?;
        SharedTool::find(tools, tool).ok_or_else(not_found)
    }

    /// Makes one tool call: the tool must be enabled on an enabled server and offered by the
    /// node (if any); the node's mappings are resolved over the given arguments (a variable
    /// with no value fails the call, naming it); the result is checked against the tool's full
    /// schema; then the call is sent with the node's timeout, and retried by the node's policy
    /// (or the default one) when that is safe. Every call, answered or not, is audited.
    pub async fn call(&self, req: ToolCallRequest) -> Result<ToolCallOutcome, ToolCallError> {
        let started_at = Timestamp::now();
        let started = Instant::now();
        let result = self.checked_call(&req).await;
        let duration = started.elapsed();
        let (outcome, attempts) = match &result {
            Ok(answer) if answer.result.is_error == Some(true) => {
                (AuditOutcome::ToolError, answer.attempts.len())
            }
            Ok(answer) => (AuditOutcome::Ok, answer.attempts.len()),
            Err(error) => (AuditOutcome::Error(error.code()), error.attempts().len()),
        };
        self.audit.record(NewAuditRecord {
            owner: req.owner.clone(),
            at: started_at,
            caller: req.caller,
            server_id: req.spec.id.clone(),
            tool: req.tool.clone(),
            node_id: req.node.as_ref().map(|node| node.id.clone()),
            outcome,
            attempts: u32::try_from(attempts).unwrap_or(u32::MAX),
            duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
        });
        result.map(|mut answer| {
            answer.duration = duration;
            answer
        })
    }

    async fn checked_call(&self, req: &ToolCallRequest) -> Result<ToolCallOutcome, ToolCallError> {
        let prepared = self.prepare(req).await?;
        let (result, attempts) = self.send(req, &prepared).await;
        match result {
            Ok(result) => Ok(ToolCallOutcome {
                result,
                arguments: prepared.arguments,
                attempts,
                tool: prepared.tool,
                duration: Duration::ZERO,
            }),
            Err(error) => Err(ToolCallError::Mcp { error, attempts }),
        }
    }

    /// Starts one tool call as a task where its server runs it as one, after every check
    /// [`Self::call`] makes: what the server runs as a task is answered with the task (the
    /// caller follows it and records its end, [`Self::record_end`]); any other call is made,
    /// answered and audited as [`Self::call`] does.
    pub async fn start(&self, req: ToolCallRequest) -> Result<StartedCall, ToolCallError> {
        let started_at = Timestamp::now();
        let started = Instant::now();
        let result = match self.prepare(&req).await {
            Ok(prepared) => {
                let (result, attempts) = self.send_start(&req, &prepared).await;
                match result {
                    Ok(started) => Ok(StartedCall {
                        started,
                        arguments: prepared.arguments,
                        attempts,
                        tool: prepared.tool,
                    }),
                    Err(error) => Err(ToolCallError::Mcp { error, attempts }),
                }
            }
            Err(error) => Err(error),
        };
        let (outcome, attempts) = match &result {
            Ok(StartedCall {
                started: Started::Task(_),
                ..
            }) => return result,
            Ok(StartedCall {
                started: Started::Done(result),
                attempts,
                ..
            }) => (
                if result.is_error == Some(true) {
                    AuditOutcome::ToolError
                } else {
                    AuditOutcome::Ok
                },
                attempts.len(),
            ),
            Err(error) => (AuditOutcome::Error(error.code()), error.attempts().len()),
        };
        self.audit.record(NewAuditRecord {
            owner: req.owner.clone(),
            at: started_at,
            caller: req.caller,
            server_id: req.spec.id.clone(),
            tool: req.tool.clone(),
            node_id: req.node.as_ref().map(|node| node.id.clone()),
            outcome,
            attempts: u32::try_from(attempts).unwrap_or(u32::MAX),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        });
        result
    }

    /// Audits the end of a call started as a task: `outcome` after `duration` since it was
    /// started at `at`.
    pub fn record_end(&self, end: TaskCallEnd) {
        self.audit.record(NewAuditRecord {
            owner: end.owner,
            at: end.at,
            caller: end.caller,
            server_id: end.server_id,
            tool: end.tool,
            node_id: None,
            outcome: end.outcome,
            attempts: 1,
            duration_ms: u64::try_from(end.duration.as_millis()).unwrap_or(u64::MAX),
        });
    }

    /// Every check of a call before it is sent: the tool, the node, the mappings, the
    /// schema; what is sent, and how it is retried and timed out.
    async fn prepare(&self, req: &ToolCallRequest) -> Result<Prepared, ToolCallError> {
        let spec = req.spec.as_ref();
        let node = req.node.as_deref().map(super::node_of);
        if let Some(node) = node
            && node.server_id != spec.id
        {
            return Err(ToolCallError::OtherServer {
                node: node.name.clone(),
                server: spec.name.clone(),
            });
        }
        let tool = self.find(&req.owner, spec, &req.tool).await?;
        let (arguments, mapped) = match node {
            None => (req.arguments.clone(), Vec::new()),
            Some(node) => {
                let selected =
                    node.selected(&req.tool)
                        .ok_or_else(|| ToolCallError::NotSelected {
                            node: node.name.clone(),
                            tool: req.tool.clone(),
                        })?;
                let vars = req
                    .variables
                    .clone()
                    .unwrap_or_else(|| owner_only(&req.owner))
                    .with_declared(&node.variables);
                let mapped = selected.parameter_mappings.keys().cloned().collect();
                (
                    resolve_arguments(selected, req.arguments.clone(), &vars)?,
                    mapped,
                )
            }
        };
        let arguments = self
            .validators
            .check_tool(&tool, arguments)
            .map_err(|e| super::redact::hide_mapped_values(e, &mapped))?;
        // A node's retryOnError/maxRetries (seed 002's delays) decide about calls that may
        // have run; one that never reached the tool gets at least the default retries.
        let policy = Retries {
            policy: match node {
                Some(node) => RetryPolicy {
                    max_retries: node.retry_policy_retries(),
                    ..RetryPolicy::default()
                },
                None => self.default_retry.clone(),
            },
            unreached: self.default_retry.clone(),
        };
        Ok(Prepared {
            tool,
            arguments,
            policy,
            timeout: node.and_then(|node| node.timeout),
        })
    }

    fn options(req: &ToolCallRequest, timeout: Option<Duration>) -> CallOptions {
        CallOptions {
            cancel: req.cancel.clone(),
            progress: req.progress.clone(),
            timeout,
            // The service's loop retries, and records each attempt; the manager must not too.
            retry: Some(RetryPolicy::never()),
            requests: req.requests.clone(),
            resume: req.resume.clone(),
            prefer_task: req.prefer_task,
        }
    }

    async fn send(
        &self,
        req: &ToolCallRequest,
        prepared: &Prepared,
    ) -> (Result<CallToolResult, McpError>, Vec<Attempt>) {
        let repeatable = prepared.tool.annotations.safe_to_repeat();
        with_retries(&prepared.policy, repeatable, &req.cancel, || {
            self.backend.call(
                &req.owner,
                &req.spec,
                &req.tool,
                Some(prepared.arguments.clone()),
                Self::options(req, prepared.timeout),
            )
        })
        .await
    }

    async fn send_start(
        &self,
        req: &ToolCallRequest,
        prepared: &Prepared,
    ) -> (Result<Started, McpError>, Vec<Attempt>) {
        let repeatable = prepared.tool.annotations.safe_to_repeat();
        with_retries(&prepared.policy, repeatable, &req.cancel, || {
            self.backend.start_task(
                &req.owner,
                &req.spec,
                &req.tool,
                Some(prepared.arguments.clone()),
                Self::options(req, prepared.timeout),
            )
        })
        .await
    }

    /// The backend calls go through (for the steps of a task a call started).
    pub fn backend(&self) -> &Arc<dyn ToolBackend> {
        &self.backend
    }
}

/// A call checked and ready to send.
struct Prepared {
    tool: SharedTool,
    arguments: Map<String, Value>,
    policy: Retries,
    timeout: Option<Duration>,
}

/// What a call knows without the caller's variables: the owner's id (also standing for the
/// name, which only the caller knows) and the time.
fn owner_only(owner: &OwnerId) -> Variables {
    Variables::new(super::builtins_now(&owner.0, &owner.0, None))
}

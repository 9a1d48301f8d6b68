//! The steps of a task of the 2025-11-25 revision (experimental tasks): `tools/call` with
//! `task` to start one, `tasks/get` to poll it, `tasks/result` to fetch its outcome (which
//! blocks until the task ends, and carries the server's questions meanwhile: they go to the
//! call's requester, as during a plain call), `tasks/cancel` to cancel it. rmcp models none
//! of these shapes; they are read through the rewrites of
//! [`crate::transport::legacy_tasks`].
//!
//! The revision answers -32602 both for an unknown task and for a cancel of a task that has
//! ended, and a failed tool's own -32602 comes back from `tasks/result` too: where the code
//! is ambiguous, `tasks/get` tells which it was.

use std::time::Duration;

use rmcp::model::{CallToolResult, ClientRequest, CustomRequest, JsonObject, ServerResult};
use rmcp::service::PeerRequestOptions;
use serde::Deserialize;
use serde_json::{Value, json};

use super::is_unknown_task;
use crate::connection::{CallLimits, CallOptions, Connection};
use crate::error::McpError;
use crate::tasks::{Started, TaskState, WireTask};
use crate::transport::legacy_tasks;

impl Connection {
    /// Whether the server declared task-augmented `tools/call` (2025-11-25
    /// `capabilities.tasks.requests.tools.call`); without it no tool is called as a task.
    pub(crate) fn runs_legacy_tasks(&self) -> bool {
        self.details
            .capabilities
            .experimental
            .as_ref()
            .and_then(|experimental| experimental.get(legacy_tasks::CAPABILITY))
            .and_then(|tasks| tasks.get("requests"))
            .and_then(|requests| requests.pointer("/tools/call"))
            .is_some()
    }

    /// Asks the server to run `tool` as a task (`tools/call` with `task`, its ttl the call
    /// ceiling). A server may answer with the result at once.
    pub(super) async fn start_legacy_task(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        options: &CallOptions,
        limits: CallLimits,
    ) -> Result<Started, McpError> {
        if options.cancel.is_cancelled() {
            return Err(McpError::Cancelled);
        }
        let mut params = json!({
            "name": tool,
            "task": {"ttl": u64::try_from(limits.ceiling.as_millis()).unwrap_or(u64::MAX)},
        });
        if let Some(arguments) = arguments {
            params["arguments"] = Value::Object(arguments);
        }
        let created = self
            .legacy_request(tool, "tools/call", params, options, limits.idle, true)
            .await?;
        match created {
            ServerResult::CallToolResult(result) => Ok(Started::Done(result)),
            ServerResult::CustomResult(created) => Ok(Started::Task(
                self.read_task("tools/call", created.0.get("task"))?,
            )),
            other => Err(self.unexpected("tools/call", &other)),
        }
    }

    /// The task's state now (`tasks/get`).
    pub(super) async fn get_legacy_task(
        &self,
        tool: &str,
        upstream_id: &str,
        options: &CallOptions,
        limits: CallLimits,
    ) -> Result<TaskState, McpError> {
        let polled = self
            .legacy_request(
                tool,
                "tasks/get",
                json!({"taskId": upstream_id}),
                options,
                limits.idle,
                false,
            )
            .await
            .map_err(|error| self.lost_if_unknown(self.once_created(error, tool)))?;
        match polled {
            ServerResult::CustomResult(polled) => {
                self.read_task("tasks/get", polled.0.get(legacy_tasks::TASK))
            }
            other => Err(self.unexpected("tasks/get", &other)),
        }
    }

    /// The task's outcome (`tasks/result`), waiting up to `wait` for it to end: the tool's
    /// result, or the JSON-RPC error a plain call would have given. The server's questions
    /// meanwhile go to the call's requester.
    pub(super) async fn legacy_task_result(
        &self,
        tool: &str,
        upstream_id: &str,
        options: &CallOptions,
        wait: Duration,
    ) -> Result<CallToolResult, McpError> {
        let outcome = self
            .legacy_request(
                tool,
                "tasks/result",
                json!({"taskId": upstream_id}),
                options,
                wait,
                true,
            )
            .await
            .map_err(|error| self.once_created(error, tool));
        match outcome {
            Ok(ServerResult::CallToolResult(result)) => Ok(result),
            Ok(other) => Err(self.unexpected("tasks/result", &other)),
            // The tool's own error, or a task the server does not know: the task says which.
            Err(error) if is_unknown_task(&error) => {
                let limits = CallLimits {
                    idle: wait,
                    ceiling: wait,
                };
                self.get_legacy_task(tool, upstream_id, options, limits)
                    .await?;
                Err(error)
            }
            Err(error) => Err(error),
        }
    }

    /// Asks the server to cancel the task (`tasks/cancel`); its state after. A task that has
    /// ended cannot be cancelled (-32602): its state is read instead.
    pub(super) async fn cancel_legacy_task(
        &self,
        tool: &str,
        upstream_id: &str,
        limits: CallLimits,
    ) -> Result<TaskState, McpError> {
        let options = CallOptions::default();
        let cancelled = self
            .legacy_request(
                tool,
                "tasks/cancel",
                json!({"taskId": upstream_id}),
                &options,
                limits.idle,
                false,
            )
            .await
            .map_err(|error| self.once_created(error, tool));
        match cancelled {
            Ok(ServerResult::CustomResult(cancelled)) => {
                self.read_task("tasks/cancel", cancelled.0.get(legacy_tasks::TASK))
            }
            Ok(other) => Err(self.unexpected("tasks/cancel", &other)),
            Err(error) if is_unknown_task(&error) => {
                self.get_legacy_task(tool, upstream_id, &options, limits)
                    .await
            }
            Err(error) => Err(error),
        }
    }

    /// One request of the legacy dialect for a call of `tool`, bounded by `timeout` and the
    /// call's cancellation. With `asks`, the server's requests on it (elicitation, sampling)
    /// go to the call's requester, as during a plain call.
    async fn legacy_request(
        &self,
        tool: &str,
        method: &'static str,
        params: Value,
        options: &CallOptions,
        timeout: Duration,
        asks: bool,
    ) -> Result<ServerResult, McpError> {
        let mut request = CustomRequest::new(method, Some(params));
        if asks {
            request
                .extensions
                .insert(crate::requests::Registering(options.requests.clone()));
        }
        self.task_request(
            tool,
            method,
            ClientRequest::CustomRequest(request),
            PeerRequestOptions::with_timeout(timeout),
            &options.cancel,
            asks,
        )
        .await
    }

    fn read_task(&self, method: &str, task: Option<&Value>) -> Result<TaskState, McpError> {
        let task = task.ok_or_else(|| McpError::Protocol {
            server: self.server.clone(),
            detail: format!("{method} did not answer with a task"),
        })?;
        WireTask::deserialize(task)
            .map(TaskState::from)
            .map_err(|error| McpError::Protocol {
                server: self.server.clone(),
                detail: format!("{method} answered with a task that cannot be read: {error}"),
            })
    }
}

/// `tasks/cancel` of the legacy dialect, for a task abandoned where no connection is at hand
/// ([`super::follow`]).
pub(super) fn cancel_request(upstream_id: &str) -> ClientRequest {
    ClientRequest::CustomRequest(CustomRequest::new(
        "tasks/cancel",
        Some(json!({"taskId": upstream_id})),
    ))
}

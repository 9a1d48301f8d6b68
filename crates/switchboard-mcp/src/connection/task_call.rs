//! A tool its server runs only as a task (2025-11-25: `execution.taskSupport: "required"`,
//! which a plain `tools/call` gets -32601 for), called as one and followed to its end in
//! process, so its caller gets the tool's result as from any other call.
//!
//! The call asks for a task (`tools/call` with `task`), polls `tasks/get` as often as the
//! server's `pollInterval` says (bounded, see [`poll_wait`]), and once the task stops working
//! fetches its outcome with `tasks/result`: the tool's result, or the JSON-RPC error a plain
//! call would have given. A task waiting on input (`input_required`) is fetched the same way
//! at once: the server asks its question on that request, which carries the call's
//! requester, as a question during a plain call does. The whole call is bounded by the call
//! ceiling; a caller that cancels, times out or stops waiting cancels the task on the server
//! (`tasks/cancel`).
//!
//! The steps (start, `tasks/get`, `tasks/result`, `tasks/cancel`) are also offered one by
//! one, for a caller that follows a task itself (`crate::manager::tasks`). The legacy shapes
//! are read through the rewrites of [`crate::transport::legacy_tasks`].

use std::time::{Duration, Instant};

use rmcp::RoleClient;
use rmcp::model::{CallToolResult, ClientRequest, CustomRequest, JsonObject, ServerResult};
use rmcp::service::PeerRequestOptions;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{CallLimits, CallOptions, Connection, result_kind};
use crate::error::McpError;
use crate::tasks::{Started, TaskState, TaskStatus, WireTask};
use crate::transport::legacy_tasks;

/// The shortest and longest wait between two polls, whatever the server suggests.
const MIN_POLL: Duration = Duration::from_secs(1);
const MAX_POLL: Duration = Duration::from_secs(60);
/// The first wait when the server suggests none; each further one is half as long again.
const FIRST_POLL: Duration = Duration::from_secs(2);
/// The least time `tasks/result` is given, however little of the ceiling is left.
const MIN_RESULT_WAIT: Duration = Duration::from_secs(1);
/// How long a `tasks/cancel` sent for an abandoned task may take.
const CANCEL_WAIT: Duration = Duration::from_secs(10);

impl Connection {
    /// Whether the server declared task-augmented `tools/call` (2025-11-25
    /// `capabilities.tasks.requests.tools.call`); without it no tool is called as a task.
    pub(crate) fn runs_tool_tasks(&self) -> bool {
        self.details
            .capabilities
            .experimental
            .as_ref()
            .and_then(|experimental| experimental.get(legacy_tasks::CAPABILITY))
            .and_then(|tasks| tasks.get("requests"))
            .and_then(|requests| requests.pointer("/tools/call"))
            .is_some()
    }

    /// Calls `tool` as a task and waits for its outcome (see the module).
    pub(crate) async fn call_tool_as_task(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        options: &CallOptions,
        limits: CallLimits,
    ) -> Result<CallToolResult, McpError> {
        let deadline = Instant::now() + limits.ceiling;
        let mut task = match self.start_task(tool, arguments, options, limits).await? {
            Started::Done(result) => return Ok(result),
            Started::Task(task) => task,
        };
        let mut abandoned = CancelOnDrop::new(self.session.peer().clone(), &task.upstream_id);
        let mut polls = 0;
        while task.status == TaskStatus::Working {
            let wait = poll_wait(task.poll_interval, polls);
            polls += 1;
            if Instant::now() + wait >= deadline {
                return Err(McpError::Timeout {
                    server: self.server.clone(),
                    method: "tools/call".to_owned(),
                    timeout: limits.ceiling,
                });
            }
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = options.cancel.cancelled() => return Err(McpError::Cancelled),
            }
            task = self
                .get_task(tool, &task.upstream_id, options, limits)
                .await?;
        }
        if task.status == TaskStatus::Cancelled {
            abandoned.disarm();
            return Err(McpError::Cancelled);
        }
        let wait = deadline
            .saturating_duration_since(Instant::now())
            .max(MIN_RESULT_WAIT);
        let outcome = self
            .task_result(tool, &task.upstream_id, options, wait)
            .await;
        // An answer, the tool's result or its own JSON-RPC error, means the task has ended.
        if matches!(outcome, Ok(_) | Err(McpError::Server { .. })) {
            abandoned.disarm();
        }
        outcome
    }

    /// Asks the server to run `tool` as a task (`tools/call` with `task`, its ttl the call
    /// ceiling). A server may answer with the result at once.
    pub(crate) async fn start_task(
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
            .task_request(tool, "tools/call", params, options, limits.idle, true)
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
    pub(crate) async fn get_task(
        &self,
        tool: &str,
        upstream_id: &str,
        options: &CallOptions,
        limits: CallLimits,
    ) -> Result<TaskState, McpError> {
        let polled = self
            .task_request(
                tool,
                "tasks/get",
                json!({"taskId": upstream_id}),
                options,
                limits.idle,
                false,
            )
            .await
            .map_err(|error| self.once_created(error, tool))?;
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
    pub(crate) async fn task_result(
        &self,
        tool: &str,
        upstream_id: &str,
        options: &CallOptions,
        wait: Duration,
    ) -> Result<CallToolResult, McpError> {
        let outcome = self
            .task_request(
                tool,
                "tasks/result",
                json!({"taskId": upstream_id}),
                options,
                wait,
                true,
            )
            .await
            .map_err(|error| self.once_created(error, tool))?;
        match outcome {
            ServerResult::CallToolResult(result) => Ok(result),
            other => Err(self.unexpected("tasks/result", &other)),
        }
    }

    /// Asks the server to cancel the task (`tasks/cancel`); its state after.
    pub(crate) async fn cancel_task(
        &self,
        tool: &str,
        upstream_id: &str,
        limits: CallLimits,
    ) -> Result<TaskState, McpError> {
        let cancelled = self
            .task_request(
                tool,
                "tasks/cancel",
                json!({"taskId": upstream_id}),
                &CallOptions::default(),
                limits.idle,
                false,
            )
            .await
            .map_err(|error| self.once_created(error, tool))?;
        match cancelled {
            ServerResult::CustomResult(cancelled) => {
                self.read_task("tasks/cancel", cancelled.0.get(legacy_tasks::TASK))
            }
            other => Err(self.unexpected("tasks/cancel", &other)),
        }
    }

    /// One request of the task dialect for a call of `tool`, bounded by `timeout` and the
    /// call's cancellation. With `asks`, the server's requests on it (elicitation, sampling)
    /// go to the call's requester, as during a plain call. A connection lost once the request
    /// was handed to the transport is [`McpError::LostAfterSend`], as for a plain call: the
    /// server may have started the tool.
    async fn task_request(
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
        let handle = self
            .session
            .send_request_with_option(
                ClientRequest::CustomRequest(request),
                PeerRequestOptions::with_timeout(timeout),
            )
            .await
            .map_err(|error| McpError::from_service(&self.server, method, error))?;
        let _in_flight = asks.then(|| self.events.calls.guard(handle.id.clone()));
        tokio::select! {
            response = handle.await_response() => response.map_err(|error| match error {
                rmcp::ServiceError::TransportClosed | rmcp::ServiceError::TransportSend(_)
                    if !McpError::wants_sign_in(&error) =>
                {
                    McpError::LostAfterSend {
                        server: self.server.clone(),
                        tool: tool.to_owned(),
                    }
                }
                error => McpError::from_service(&self.server, method, error),
            }),
            () = options.cancel.cancelled() => Err(McpError::Cancelled),
        }
    }

    /// `error` of a request about a task already created: a connection lost at any point
    /// leaves the tool perhaps run, so the call is not sent again unless it is safe to.
    fn once_created(&self, error: McpError, tool: &str) -> McpError {
        match error {
            McpError::ConnectionLost { .. } => McpError::LostAfterSend {
                server: self.server.clone(),
                tool: tool.to_owned(),
            },
            other => other,
        }
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

    fn unexpected(&self, method: &str, result: &ServerResult) -> McpError {
        McpError::Protocol {
            server: self.server.clone(),
            detail: format!(
                "expected a task or a tool result from {method}, got {}",
                result_kind(result)
            ),
        }
    }
}

/// How long to wait before polling again: the server's `pollInterval` when it gives one,
/// else a wait growing by half after each poll; never less than [`MIN_POLL`] (a server
/// suggesting 0 is not polled in a loop) nor more than [`MAX_POLL`].
fn poll_wait(suggested: Option<Duration>, polls: u32) -> Duration {
    let wait = match suggested {
        Some(wait) => wait,
        None => FIRST_POLL.mul_f64(1.5_f64.powi(i32::try_from(polls.min(20)).unwrap_or(20))),
    };
    wait.clamp(MIN_POLL, MAX_POLL)
}

/// Cancels the task on the server when the call stops following it before its end
/// (cancelled, timed out, dropped), from a task of its own so nothing waits on the write.
struct CancelOnDrop {
    peer: Option<rmcp::Peer<RoleClient>>,
    task_id: String,
}

impl CancelOnDrop {
    fn new(peer: rmcp::Peer<RoleClient>, task_id: &str) -> Self {
        Self {
            peer: Some(peer),
            task_id: task_id.to_owned(),
        }
    }

    fn disarm(&mut self) {
        self.peer = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else { return };
        let request = CustomRequest::new("tasks/cancel", Some(json!({"taskId": self.task_id})));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let sent = peer
                    .send_request_with_option(
                        ClientRequest::CustomRequest(request),
                        PeerRequestOptions::with_timeout(CANCEL_WAIT),
                    )
                    .await;
                if let Ok(handle) = sent
                    && let Err(error) = handle.await_response().await
                {
                    tracing::debug!(%error, "the server did not cancel an abandoned task");
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polls_follow_the_servers_interval_within_bounds() {
        let ms = |ms| Some(Duration::from_millis(ms));
        assert_eq!(poll_wait(ms(1500), 0), Duration::from_millis(1500));
        assert_eq!(poll_wait(ms(0), 3), MIN_POLL);
        assert_eq!(poll_wait(ms(3_600_000), 0), MAX_POLL);
        assert_eq!(poll_wait(None, 0), FIRST_POLL);
        assert_eq!(poll_wait(None, 1), Duration::from_secs(3));
        assert_eq!(poll_wait(None, 1000), MAX_POLL);
    }
}

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
//! The legacy shapes are read through the rewrites of [`crate::transport::legacy_tasks`].

use std::time::{Duration, Instant};

use rmcp::RoleClient;
use rmcp::model::{CallToolResult, ClientRequest, CustomRequest, JsonObject, ServerResult};
use rmcp::service::PeerRequestOptions;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{CallLimits, CallOptions, Connection, result_kind};
use crate::error::McpError;
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

/// A legacy task, as `tools/call`, `tasks/get` and `tasks/cancel` answer it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LegacyTask {
    task_id: String,
    status: Status,
    /// Milliseconds.
    #[serde(default)]
    poll_interval: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Status {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

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
        if options.cancel.is_cancelled() {
            return Err(McpError::Cancelled);
        }
        let deadline = Instant::now() + limits.ceiling;
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
        let mut task = match created {
            // A server may answer at once after all.
            ServerResult::CallToolResult(result) => return Ok(result),
            ServerResult::CustomResult(created) => {
                self.read_task("tools/call", created.0.get("task"))?
            }
            other => return Err(self.unexpected("tools/call", &other)),
        };
        let mut abandoned = CancelOnDrop::new(self.session.peer().clone(), &task.task_id);
        let mut polls = 0;
        while task.status == Status::Working {
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
            let polled = self
                .task_request(
                    tool,
                    "tasks/get",
                    json!({"taskId": task.task_id}),
                    options,
                    limits.idle,
                    false,
                )
                .await
                .map_err(|error| self.once_created(error, tool))?;
            task = match polled {
                ServerResult::CustomResult(polled) => {
                    self.read_task("tasks/get", polled.0.get(legacy_tasks::TASK))?
                }
                other => return Err(self.unexpected("tasks/get", &other)),
            };
        }
        if task.status == Status::Cancelled {
            abandoned.disarm();
            return Err(McpError::Cancelled);
        }
        let wait = deadline
            .saturating_duration_since(Instant::now())
            .max(MIN_RESULT_WAIT);
        let outcome = self
            .task_request(
                tool,
                "tasks/result",
                json!({"taskId": task.task_id}),
                options,
                wait,
                true,
            )
            .await
            .map_err(|error| self.once_created(error, tool));
        match outcome {
            Ok(ServerResult::CallToolResult(result)) => {
                abandoned.disarm();
                Ok(result)
            }
            Ok(other) => Err(self.unexpected("tasks/result", &other)),
            // The tool's own JSON-RPC error: the task has ended.
            Err(error @ McpError::Server { .. }) => {
                abandoned.disarm();
                Err(error)
            }
            Err(error) => Err(error),
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

    fn read_task(&self, method: &str, task: Option<&Value>) -> Result<LegacyTask, McpError> {
        let task = task.ok_or_else(|| McpError::Protocol {
            server: self.server.clone(),
            detail: format!("{method} did not answer with a task"),
        })?;
        LegacyTask::deserialize(task).map_err(|error| McpError::Protocol {
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
fn poll_wait(suggested_ms: Option<u64>, polls: u32) -> Duration {
    let wait = match suggested_ms {
        Some(ms) => Duration::from_millis(ms),
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
        assert_eq!(poll_wait(Some(1500), 0), Duration::from_millis(1500));
        assert_eq!(poll_wait(Some(0), 3), MIN_POLL);
        assert_eq!(poll_wait(Some(3_600_000), 0), MAX_POLL);
        assert_eq!(poll_wait(None, 0), FIRST_POLL);
        assert_eq!(poll_wait(None, 1), Duration::from_secs(3));
        assert_eq!(poll_wait(None, 1000), MAX_POLL);
    }

    #[test]
    fn a_legacy_task_is_read_and_an_unknown_status_refused() {
        let task: LegacyTask = serde_json::from_value(json!({
            "taskId": "t1", "status": "input_required", "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": null, "pollInterval": 5000,
        }))
        .unwrap();
        assert_eq!(task.status, Status::InputRequired);
        assert_eq!(task.poll_interval, Some(5000));
        assert!(
            serde_json::from_value::<LegacyTask>(json!({"taskId": "t", "status": "paused"}))
                .is_err()
        );
    }
}

//! Tool calls a server runs as tasks, step by step, in the dialect the server speaks
//! ([`TaskDialect`]): started ([`legacy`], [`extension`]), polled, answered, cancelled, and
//! followed to their end in process for a caller that waits for the result ([`follow`]).
//!
//! Every step is a request on this connection; a task lives in the server, so a server that
//! lost it (expired, restarted) answers -32602 for its id, which becomes
//! [`McpError::TaskLost`] here, whatever the dialect.

use rmcp::model::{CallToolResult, ClientRequest, InputResponses, JsonObject, ServerResult};
use rmcp::service::PeerRequestOptions;
use tokio_util::sync::CancellationToken;

use super::{CallLimits, CallOptions, Connection, result_kind};
use crate::error::McpError;
use crate::tasks::{Started, TaskDialect, TaskState};

pub(crate) mod extension;
mod follow;
mod legacy;

/// The JSON-RPC code of an unknown (or expired) task id, in both dialects.
const UNKNOWN_TASK: rmcp::model::ErrorCode = rmcp::model::ErrorCode::INVALID_PARAMS;

impl Connection {
    /// The dialect the server runs tool tasks in; `None`: it runs none. A server declaring the
    /// extension is spoken to in it, whatever else it declares.
    pub(crate) fn task_dialect(&self) -> Option<TaskDialect> {
        if self.runs_extension_tasks() {
            Some(TaskDialect::Extension)
        } else if self.runs_legacy_tasks() {
            Some(TaskDialect::Legacy)
        } else {
            None
        }
    }

    /// Calls `tool` as a task in `dialect`; the server may answer with the result at once.
    pub(crate) async fn start_task(
        &self,
        dialect: TaskDialect,
        tool: &str,
        arguments: Option<JsonObject>,
        options: &CallOptions,
        limits: CallLimits,
    ) -> Result<Started, McpError> {
        match dialect {
            TaskDialect::Legacy => {
                self.start_legacy_task(tool, arguments, options, limits)
                    .await
            }
            TaskDialect::Extension => {
                self.start_extension_task(tool, arguments, options, limits)
                    .await
            }
        }
    }

    /// The task's state now.
    pub(crate) async fn get_task(
        &self,
        tool: &str,
        upstream_id: &str,
        options: &CallOptions,
        limits: CallLimits,
    ) -> Result<TaskState, McpError> {
        match self.dialect_of_tasks()? {
            TaskDialect::Legacy => {
                self.get_legacy_task(tool, upstream_id, options, limits)
                    .await
            }
            TaskDialect::Extension => {
                self.get_extension_task(tool, upstream_id, options, limits)
                    .await
            }
        }
    }

    /// Asks the server to cancel the task (cooperatively: it may still end otherwise); its
    /// state after.
    pub(crate) async fn cancel_task(
        &self,
        tool: &str,
        upstream_id: &str,
        limits: CallLimits,
    ) -> Result<TaskState, McpError> {
        match self.dialect_of_tasks()? {
            TaskDialect::Legacy => self.cancel_legacy_task(tool, upstream_id, limits).await,
            TaskDialect::Extension => self.cancel_extension_task(tool, upstream_id, limits).await,
        }
    }

    /// Gives the server answers to the questions of a task waiting for input (the
    /// extension's `tasks/update`; a 2025-11-25 task takes none).
    pub(crate) async fn update_task(
        &self,
        tool: &str,
        upstream_id: &str,
        responses: InputResponses,
        limits: CallLimits,
    ) -> Result<(), McpError> {
        match self.dialect_of_tasks()? {
            TaskDialect::Legacy => Err(McpError::TaskTakesNoAnswers {
                server: self.server.clone(),
            }),
            TaskDialect::Extension => {
                self.update_extension_task(tool, upstream_id, responses, limits)
                    .await
            }
        }
    }

    /// The task's outcome, waiting up to `wait` for it to end: the tool's result, or the
    /// JSON-RPC error a plain call would have given. A 2025-11-25 server asks its questions
    /// meanwhile, of `options.requests`; an extension task's questions are answered by
    /// `options.requests` when there is one, and otherwise left to the caller
    /// ([`TaskState::input_requests`]).
    pub(crate) async fn task_result(
        &self,
        tool: &str,
        upstream_id: &str,
        options: &CallOptions,
        limits: CallLimits,
        wait: std::time::Duration,
    ) -> Result<CallToolResult, McpError> {
        match self.dialect_of_tasks()? {
            TaskDialect::Legacy => {
                self.legacy_task_result(tool, upstream_id, options, wait)
                    .await
            }
            TaskDialect::Extension => {
                let deadline = std::time::Instant::now() + wait;
                let task = self
                    .get_extension_task(tool, upstream_id, options, limits)
                    .await?;
                let answering = options.requests.is_some();
                self.follow(tool, task, options, limits, deadline, answering)
                    .await
            }
        }
    }

    /// The dialect of the server's tasks, for a step of a task it started: a server that no
    /// longer runs tasks at all (reconnected to another version) cannot know it.
    fn dialect_of_tasks(&self) -> Result<TaskDialect, McpError> {
        self.task_dialect().ok_or_else(|| McpError::TaskLost {
            server: self.server.clone(),
        })
    }

    /// One request about a task of a call of `tool`, bounded by `options`' timeout and
    /// `cancel`. A connection lost once the request was handed to the transport is
    /// [`McpError::LostAfterSend`], as for a plain call: the server may have started the tool.
    async fn task_request(
        &self,
        tool: &str,
        method: &'static str,
        request: ClientRequest,
        options: PeerRequestOptions,
        cancel: &CancellationToken,
        in_flight: bool,
    ) -> Result<ServerResult, McpError> {
        let handle = self
            .session
            .send_request_with_option(request, options)
            .await
            .map_err(|error| McpError::from_service(&self.server, method, error))?;
        let _in_flight = in_flight.then(|| self.events.calls.guard(handle.id.clone()));
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
            () = cancel.cancelled() => Err(McpError::Cancelled),
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

    /// `error` of a request naming only a task, with the server's "unknown task" said as
    /// such ([`McpError::TaskLost`]).
    fn lost_if_unknown(&self, error: McpError) -> McpError {
        match error {
            McpError::Server { error, .. } if error.code == UNKNOWN_TASK => McpError::TaskLost {
                server: self.server.clone(),
            },
            other => other,
        }
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

/// Whether `error` is an unknown task id (-32602).
fn is_unknown_task(error: &McpError) -> bool {
    matches!(error, McpError::Server { error, .. } if error.code == UNKNOWN_TASK)
}

//! A tool call run as a task, step by step, for a caller that follows the task itself rather
//! than waiting for it (`call_tool` follows a task-only tool's task to its end in process).
//!
//! Each step is a request on the owner's connection to the server; a task lives in the
//! server's session, so the steps must reach the connection that started it (a stdio server
//! that was restarted no longer knows it, and says so). While a task started here lives, its
//! connection is not closed as idle.

use std::time::Duration;

use rmcp::model::{CallToolResult, JsonObject};
use switchboard_core::{OwnerId, ServerSpec};

use super::ConnectionManager;
use super::entry::{Entry, Live};
use super::retry::offered;
use crate::connection::CallOptions;
use crate::error::McpError;
use crate::redact::redact_result;
use crate::tasks::{Started, TaskState};

impl ConnectionManager {
    /// Starts `tool` as a task when its server runs it as one (`execution.taskSupport`
    /// `optional` or `required`); any other tool is called as [`Self::call_tool`] calls it,
    /// and its result given at once.
    pub async fn start_tool_task(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        tool: &str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> Result<Started, McpError> {
        offered(spec, tool)?;
        let (entry, live, active) = self.for_task(owner, spec).await?;
        if self.task_support(&entry, &live, spec, tool).await.is_none() {
            drop(active);
            let result = self
                .call_tool(owner, spec, tool, arguments, options)
                .await?;
            return Ok(Started::Done(result));
        }
        let limits = self.limits(spec, options.timeout);
        let started = live
            .conn
            .start_task(tool, arguments, &options, limits)
            .await;
        let redactor = live.redactor.current(&live.conn);
        match self.settled(&entry, &live, started)? {
            Started::Done(result) => Ok(Started::Done(redact_result(result, &redactor))),
            Started::Task(task) => {
                if !task.status.is_terminal() {
                    entry.pin_task(live.instance, &task.upstream_id);
                }
                Ok(Started::Task(redacted(task, &redactor)))
            }
        }
    }

    /// The state of task `upstream_id` (of a call of `tool`) now.
    pub async fn tool_task(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        tool: &str,
        upstream_id: &str,
        options: CallOptions,
    ) -> Result<TaskState, McpError> {
        let (entry, live, _active) = self.for_task(owner, spec).await?;
        let limits = self.limits(spec, options.timeout);
        let state = live
            .conn
            .get_task(tool, upstream_id, &options, limits)
            .await;
        let state = self.settled(&entry, &live, state)?;
        if state.status.is_terminal() {
            entry.unpin_task(live.instance, upstream_id);
        }
        Ok(redacted(state, &live.redactor.current(&live.conn)))
    }

    /// The outcome of task `upstream_id` (of a call of `tool`), waiting up to `wait` for it
    /// to end: the tool's result, or the error a plain call would have given. The server's
    /// questions meanwhile go to `options.requests`.
    pub async fn tool_task_result(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        tool: &str,
        upstream_id: &str,
        options: CallOptions,
        wait: Duration,
    ) -> Result<CallToolResult, McpError> {
        let (entry, live, _active) = self.for_task(owner, spec).await?;
        let outcome = live
            .conn
            .task_result(tool, upstream_id, &options, wait)
            .await;
        if matches!(outcome, Ok(_) | Err(McpError::Server { .. })) {
            entry.unpin_task(live.instance, upstream_id);
        }
        let result = self.settled(&entry, &live, outcome)?;
        Ok(redact_result(result, &live.redactor.current(&live.conn)))
    }

    /// Asks the server to cancel task `upstream_id` (of a call of `tool`); its state after.
    pub async fn cancel_tool_task(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        tool: &str,
        upstream_id: &str,
    ) -> Result<TaskState, McpError> {
        let (entry, live, _active) = self.for_task(owner, spec).await?;
        let limits = self.limits(spec, None);
        let state = live.conn.cancel_task(tool, upstream_id, limits).await;
        let state = self.settled(&entry, &live, state)?;
        if state.status.is_terminal() {
            entry.unpin_task(live.instance, upstream_id);
        }
        Ok(redacted(state, &live.redactor.current(&live.conn)))
    }

    /// The connection a task step goes on, counted as activity while the step runs.
    async fn for_task(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
    ) -> Result<(std::sync::Arc<Entry>, Live, super::entry::ActiveGuard), McpError> {
        let entry = self.entry(owner, &spec.id);
        let active = entry.begin();
        let live = self
            .live(&entry, spec)
            .await
            .map_err(|e| e.redacted(&spec.redactor()))?;
        Ok((entry, live, active))
    }

    /// A step's outcome, its error cleaned of the server's secrets; a connection found lost
    /// is discarded, so the next use connects again.
    fn settled<T>(
        &self,
        entry: &Entry,
        live: &Live,
        outcome: Result<T, McpError>,
    ) -> Result<T, McpError> {
        outcome.map_err(|error| {
            if matches!(
                error,
                McpError::ConnectionLost { .. } | McpError::LostAfterSend { .. }
            ) {
                entry.discard(
                    live.instance,
                    "the connection was lost",
                    self.inner.config.shutdown_grace,
                );
            }
            error.redacted(&live.redactor.current(&live.conn))
        })
    }
}

/// `task` with the server's secrets cut out of its status message.
fn redacted(mut task: TaskState, redactor: &switchboard_core::spec::Redactor) -> TaskState {
    if let Some(message) = &mut task.status_message {
        redactor.redact_in_place(message);
    }
    task
}

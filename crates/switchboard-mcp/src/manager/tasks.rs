//! A tool call run as a task, step by step, for a caller that follows the task itself rather
//! than waiting for it (`call_tool` follows a task-only tool's task to its end in process).
//!
//! Each step is a request on the owner's connection to the server, in the dialect the server
//! speaks (`crate::tasks::TaskDialect`); a task lives in the server, so the steps must reach
//! the connection that started it (a stdio server that was restarted no longer knows it, and
//! says so: [`McpError::TaskLost`]). While a task started here lives, its connection is not
//! closed as idle.

use std::time::Duration;

use rmcp::model::{CallToolResult, InputResponses, JsonObject};
use switchboard_core::{OwnerId, ServerSpec};

use super::ConnectionManager;
use super::entry::{Entry, Live};
use super::task_route::Wanted;
use crate::connection::CallOptions;
use crate::error::McpError;
use crate::redact::{redact_result, redact_task};
use crate::tasks::{Started, TaskState};

impl ConnectionManager {
    /// Starts `tool` as a task as its server's `tasks` setting says: a tool the server runs
    /// only as a task always is (unless the setting is `never`, which refuses it), one that
    /// may run as a task is under `always`, and under `auto` (the default) when the caller
    /// asked for one (`options.prefer_task`). A server of the 2026-07-28 extension decides
    /// itself once asked. Any other call is made as [`Self::call_tool`] makes it, and its
    /// result given at once.
    pub async fn start_tool_task(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        tool: &str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> Result<Started, McpError> {
        self.call_logged(owner, spec, tool, arguments, options, Wanted::Start)
            .await
    }

    /// The state of task `upstream_id` (of a call of `tool`) now. A task of the extension
    /// that ended carries its outcome, and one waiting for input its questions.
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
        self.task_settled(&entry, &live, upstream_id, state)
    }

    /// The outcome of task `upstream_id` (of a call of `tool`), waiting up to `wait` for it
    /// to end: the tool's result (an `isError` one included), or the error a plain call would
    /// have given. A 2025-11-25 server asks its questions meanwhile of `options.requests`; an
    /// extension task's questions are answered by `options.requests` when there is one, and
    /// otherwise wait for [`Self::update_tool_task`].
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
        let limits = self.limits(spec, options.timeout);
        let outcome = live
            .conn
            .task_result(tool, upstream_id, &options, limits, wait)
            .await;
        if matches!(
            outcome,
            Ok(_) | Err(McpError::Server { .. } | McpError::TaskLost { .. })
        ) {
            entry.unpin_task(live.instance, upstream_id);
        }
        let result = self.settled(&entry, &live, outcome)?;
        Ok(redact_result(result, &live.redactor.current(&live.conn)))
    }

    /// Gives task `upstream_id` (of a call of `tool`) answers to its questions, by the keys
    /// of its `input_requests` (the extension's `tasks/update`); some may be left for later.
    /// The server takes them in eventually: the next [`Self::tool_task`] may still show them.
    pub async fn update_tool_task(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        tool: &str,
        upstream_id: &str,
        input_responses: InputResponses,
    ) -> Result<(), McpError> {
        let (entry, live, _active) = self.for_task(owner, spec).await?;
        let limits = self.limits(spec, None);
        let updated = live
            .conn
            .update_task(tool, upstream_id, input_responses, limits)
            .await;
        if matches!(updated, Err(McpError::TaskLost { .. })) {
            entry.unpin_task(live.instance, upstream_id);
        }
        self.settled(&entry, &live, updated)
    }

    /// Asks the server to cancel task `upstream_id` (of a call of `tool`); its state after
    /// (cancellation is cooperative: a task may still end otherwise, later).
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
        self.task_settled(&entry, &live, upstream_id, state)
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

    /// A task's state as a step gave it: the connection no longer held for a task that ended
    /// or was lost, the server's secrets cut out.
    fn task_settled(
        &self,
        entry: &Entry,
        live: &Live,
        upstream_id: &str,
        state: Result<TaskState, McpError>,
    ) -> Result<TaskState, McpError> {
        let ended = match &state {
            Ok(state) => state.status.is_terminal(),
            Err(error) => matches!(error, McpError::TaskLost { .. }),
        };
        if ended {
            entry.unpin_task(live.instance, upstream_id);
        }
        let state = self.settled(entry, live, state)?;
        Ok(redact_task(state, &live.redactor.current(&live.conn)))
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

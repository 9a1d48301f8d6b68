//! Calls that survive a lost connection: connecting again with seed 002's backoff
//! ([`RetryPolicy`](crate::RetryPolicy)) and re-sending only what is safe to send twice.
//!
//! A connect that cannot reach the server is not tried again here, by the caller who waits:
//! it opens the slot's breaker, which answers every use at once while it tries the server
//! again in the background ([`super::breaker`]). A caller never waits out seed 002's delays
//! for a server that is down, and a server that comes back is used again all the same.

use std::sync::{Arc, PoisonError};

use rmcp::model::{CallToolResult, JsonObject};
use switchboard_core::spec::{Redactor, redact_json};
use switchboard_core::{ErrorCode, OwnerId, ServerSpec, TaskSupport};

use super::ConnectionManager;
use super::ConnectionStatus;
use super::entry::{Entry, Live};
use super::task_route::{Call, Wanted};
use crate::config::ManagerConfig;
use crate::connection::CallOptions;
use crate::error::McpError;
use crate::tasks::{Started, TaskDialect};

impl ConnectionManager {
    /// Calls `tool` on the server. When the server cannot be reached the connect is tried
    /// again; when the connection is lost the call is retried on a new one only when it was
    /// never sent, or the tool is annotated read-only or idempotent. A tool the server runs
    /// only as a task is run as one and followed to its end (`crate::manager::task_route`).
    ///
    /// At debug level the request and the response are logged (seed 002 property 9), with
    /// credential fields and the server's own secrets redacted.
    pub async fn call_tool(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        tool: &str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> Result<CallToolResult, McpError> {
        match self
            .call_logged(owner, spec, tool, arguments, options, Wanted::Result)
            .await?
        {
            Started::Done(result) => Ok(result),
            // Not so: a call that wants its result follows a task to its end.
            Started::Task(_) => Err(McpError::Protocol {
                server: spec.name.clone(),
                detail: format!("`{tool}` was left running as a task"),
            }),
        }
    }

    /// [`Self::call_tool`], or with [`Wanted::Start`] a task left running on the server.
    pub(super) async fn call_logged(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        tool: &str,
        arguments: Option<JsonObject>,
        options: CallOptions,
        wanted: Wanted,
    ) -> Result<Started, McpError> {
        if !tracing::enabled!(tracing::Level::DEBUG) {
            let result = self
                .call_tool_unlogged(owner, spec, tool, arguments, options, wanted)
                .await;
            return redact_call(result, spec);
        }
        let secrets = spec.secret_values();
        let shown = arguments
            .as_ref()
            .map(|a| redact_json(&serde_json::Value::Object(a.clone()), &secrets));
        tracing::debug!(server = %spec.id, %tool, arguments = ?shown.map(|a| a.to_string()), "MCP request");
        let started = std::time::Instant::now();
        let result = self
            .call_tool_unlogged(owner, spec, tool, arguments, options, wanted)
            .await;
        let result = redact_call(result, spec);
        let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
        match &result {
            Ok(Started::Done(answer)) => {
                let body = serde_json::to_value(answer).unwrap_or_default();
                let mut body = redact_json(&body, &secrets).to_string();
                truncate(&mut body, LOGGED_RESULT_CHARS);
                tracing::debug!(server = %spec.id, %tool, elapsed_ms, is_error = answer.is_error.unwrap_or(false), result = %body, "MCP response");
            }
            Ok(Started::Task(task)) => {
                tracing::debug!(server = %spec.id, %tool, elapsed_ms, status = ?task.status, "MCP task started");
            }
            // Already redacted by `redact_call`.
            Err(error) => {
                tracing::debug!(server = %spec.id, %tool, elapsed_ms, %error, "MCP call failed");
            }
        }
        result
    }

    async fn call_tool_unlogged(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        tool: &str,
        arguments: Option<JsonObject>,
        options: CallOptions,
        wanted: Wanted,
    ) -> Result<Started, McpError> {
        offered(spec, tool)?;
        let entry = self.entry(owner, &spec.id);
        let _active = entry.begin();
        let config = &self.inner.config;
        let policy = options.retry.as_ref().unwrap_or(&config.retry);
        let mut attempt = 0;
        loop {
            // A caller that gives up while the server is still being reached stops waiting,
            // and nothing is sent.
            let live = tokio::select! {
                live = self.live(&entry, spec) => live,
                () = options.cancel.cancelled() => return Err(McpError::Cancelled),
            };
            let result = match live {
                Ok(live) => {
                    let call = Call {
                        tool,
                        arguments: arguments.clone(),
                        options: &options,
                        wanted,
                    };
                    let called = Box::pin(self.call_on(&entry, &live, spec, call)).await;
                    let redactor = live.redactor.current(&live.conn);
                    let result = called.map(|started| redact_started(started, &redactor));
                    if matches!(
                        result,
                        Err(McpError::ConnectionLost { .. } | McpError::LostAfterSend { .. })
                    ) {
                        entry.discard(
                            live.instance,
                            "the connection was lost",
                            config.shutdown_grace,
                        );
                    }
                    signed_out(&entry, live.instance, &result, config);
                    result
                }
                Err(error) => Err(error),
            };
            let retry = match &result {
                Err(McpError::LostAfterSend { .. }) => self.safe_to_repeat(&entry, tool),
                Err(error) => worth_retrying(error, attempt),
                Ok(_) => false,
            };
            if !retry || attempt >= policy.max_retries {
                // Servers report an unknown tool as a protocol error or as a tool error,
                // with differing codes; on either, the tool list is the reliable witness.
                let failed = match &result {
                    Err(McpError::Server { .. }) => true,
                    Ok(Started::Done(result)) => result.is_error == Some(true),
                    Ok(Started::Task(_)) | Err(_) => false,
                };
                // Boxed: a listing (with its reconnects) is a large future that a call
                // which answered never needs.
                if failed && Box::pin(self.unknown_tool(owner, spec, tool)).await {
                    return Err(McpError::ToolNotFound {
                        server: spec.name.clone(),
                        tool: tool.to_owned(),
                    });
                }
                return result;
            }
            attempt += 1;
            tracing::info!(server = %spec.name, tool, attempt, "connecting again to retry a call");
            tokio::select! {
                () = tokio::time::sleep(policy.delay(attempt)) => {}
                () = options.cancel.cancelled() => return Err(McpError::Cancelled),
            }
        }
    }

    /// Whether the server, asked after a failed call, does not list `tool`.
    async fn unknown_tool(&self, owner: &OwnerId, spec: &ServerSpec, tool: &str) -> bool {
        match self.list_tools(owner, spec).await {
            Ok(tools) => !tools.iter().any(|t| t.name == tool),
            Err(_) => false,
        }
    }

    /// How the server runs `tool` as a task: on the extension, as the server decides per
    /// call; on the 2025-11-25 revision, as its tool list says (fetched first when not
    /// cached). `None`: the server runs no tasks, or its list cannot be had.
    pub(super) async fn task_support(
        &self,
        entry: &Entry,
        live: &Live,
        spec: &ServerSpec,
        tool: &str,
    ) -> Option<TaskSupport> {
        match live.conn.task_dialect()? {
            TaskDialect::Extension => return Some(TaskSupport::Optional),
            TaskDialect::Legacy => {}
        }
        match Box::pin(self.cached_tools(entry, live, spec)).await {
            Ok(cached) => cached.task_support(tool),
            Err(error) => {
                tracing::debug!(server = %spec.name, %error, "no tool list to tell a task from a call");
                None
            }
        }
    }

    fn safe_to_repeat(&self, entry: &Entry, tool: &str) -> bool {
        let cached = entry.tools.lock().unwrap_or_else(PoisonError::into_inner);
        cached
            .as_ref()
            .and_then(|c| c.tools.iter().find(|t| t.name == tool).cloned())
            .is_some_and(|t| t.annotations.safe_to_repeat())
    }

    /// Runs a request that is always safe to repeat (listing, reading), reconnecting with
    /// backoff when the connection turns out to be dead.
    pub(super) async fn with_reconnect<T, F, Fut>(
        &self,
        entry: &Arc<Entry>,
        spec: &ServerSpec,
        request: F,
    ) -> Result<T, McpError>
    where
        F: Fn(Live) -> Fut,
        Fut: Future<Output = Result<T, McpError>>,
    {
        let config = &self.inner.config;
        let mut attempt = 0;
        loop {
            let result = match self.live(entry, spec).await {
                Ok(live) => {
                    let instance = live.instance;
                    let result = request(live).await;
                    if let Err(error) = &result
                        && lost(error)
                    {
                        entry.discard(instance, "the connection was lost", config.shutdown_grace);
                    }
                    signed_out(entry, instance, &result, config);
                    result
                }
                Err(error) => Err(error),
            };
            let retry = match &result {
                Err(error) => worth_retrying(error, attempt),
                Ok(_) => false,
            };
            if !retry || attempt >= config.retry.max_retries {
                return result;
            }
            attempt += 1;
            tracing::info!(server = %spec.name, attempt, "connecting again to retry a request");
            tokio::time::sleep(config.retry.delay(attempt)).await;
        }
    }
}

/// A connection whose server stopped taking the person's tokens is closed, its status
/// `needs_sign_in`: the next use connects again, with the tokens of a new sign-in if any.
fn signed_out<T>(
    entry: &Entry,
    instance: u64,
    result: &Result<T, McpError>,
    config: &ManagerConfig,
) {
    if let Err(error @ McpError::SignInRequired { .. }) = result {
        entry.discard_as(
            instance,
            ConnectionStatus::NeedsSignIn,
            &error.to_string(),
            config.shutdown_grace,
        );
    }
}

/// A call's outcome with the server's own secrets cut out of its error. A result was
/// redacted as it came in, with its connection's redactor (`Live::redactor`), so the common
/// case builds nothing here.
fn redact_call(result: Result<Started, McpError>, spec: &ServerSpec) -> Result<Started, McpError> {
    result.map_err(|error| error.redacted(&spec.redactor()))
}

fn redact_started(started: Started, redactor: &Redactor) -> Started {
    match started {
        Started::Done(result) => Started::Done(crate::redact::redact_result(result, redactor)),
        Started::Task(task) => Started::Task(crate::redact::redact_task(task, redactor)),
    }
}

fn lost(error: &McpError) -> bool {
    matches!(
        error,
        McpError::ConnectionLost { .. } | McpError::LostAfterSend { .. }
    )
}

/// Whether a request that failed with `error` (before anything was sent, or on a request
/// that is always safe to repeat) is worth another try after `attempt` retries. Seed 002
/// retries failures to reach the server: a connection lost, refused or reset
/// (`MCP_UNREACHABLE`), a connect that timed out, a server that closed the connection. A
/// connect that fails so is answered as the server left out ([`McpError::Unavailable`]),
/// which is final here: the breaker tries again in the background. A handshake the server
/// answered wrongly is retried only once a connection has failed before (a server that is
/// restarting); a refusal, bad credentials or a call that timed out are final.
fn worth_retrying(error: &McpError, attempt: u32) -> bool {
    match error {
        McpError::ConnectionLost { .. }
        | McpError::LostAfterSend { .. }
        | McpError::Unreachable { .. }
        | McpError::ConnectTimeout { .. }
        | McpError::ClosedDuringHandshake { .. } => true,
        McpError::Handshake { .. } => attempt > 0,
        // Another caller's connect, which this one waited for, could not reach the server.
        McpError::ConnectFailed { code, .. } => {
            matches!(code, ErrorCode::McpUnreachable | ErrorCode::McpTimeout)
        }
        _ => false,
    }
}

/// How much of a result a debug log line shows.
const LOGGED_RESULT_CHARS: usize = 4_000;

/// Cuts `text` to at most `max` characters, on a character boundary, marking the cut.
fn truncate(text: &mut String, max: usize) {
    if let Some((at, _)) = text.char_indices().nth(max) {
        text.truncate(at);
        text.push_str("…(truncated)");
    }
}

/// Refuses a tool its server's spec switches off, as if the server had not listed it.
pub(super) fn offered(spec: &ServerSpec, tool: &str) -> Result<(), McpError> {
    if spec.offers(tool) {
        Ok(())
    } else {
        Err(McpError::ToolNotFound {
            server: spec.name.clone(),
            tool: format!("{tool} (disabled)"),
        })
    }
}

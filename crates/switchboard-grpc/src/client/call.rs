//! A tool call on a node: one `CallTool` stream per call.
//!
//! The host sends `start`, then keeps its half of the stream open until the call ends: ending
//! it early (or dropping the call) tells the node to cancel. When the caller cancels, `cancel`
//! is sent and the call returns at once; the node tells the server.
//!
//! What a failure means depends on what is certain. The connection could not be made (the node
//! is down, TLS failed), the node refused the stream or answered with its own refusal (token,
//! bad request): the call never started, so it is [`McpError::NodeUnreachable`] (or a protocol
//! error), safe to send again. Anything else, even before the answer's headers arrived (the
//! node starts the tool as soon as its handler returns): the tool may have run, so it is
//! [`McpError::LostAfterSend`], sent again only for read-only or idempotent tools, as for a
//! local server (see `failure::call_failed`).

use std::time::Duration;

use futures::{Stream, StreamExt};
use rmcp::model::{CallToolResult, JsonObject};
use switchboard_core::ServerSpec;
use switchboard_mcp::{CallOptions, McpError};
use tokio_util::sync::CancellationToken;

use super::rpc::arguments_json;
use super::{NodeClient, failure};
use crate::pb::{self, call_tool_event, call_tool_request};
use crate::wire;

impl NodeClient {
    /// Calls `tool` on the server `server` names; `spec` is the same server, for the names in
    /// errors.
    pub async fn call_tool(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
        tool: &str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> Result<CallToolResult, McpError> {
        let CallOptions {
            cancel,
            progress,
            timeout,
            retry,
            // Elicitation and sampling do not cross the node hop (yet): the node refuses them
            // as for a caller without a requester (node/service.rs).
            requests: _,
            // Nothing is kept to resume with: with no requester on the node, no answer waits.
            resume: _,
        } = options;
        if cancel.is_cancelled() {
            return Err(McpError::Cancelled);
        }
        let start = pb::CallStart {
            server: Some(server),
            tool: tool.to_owned(),
            arguments_json: arguments_json(spec, arguments.as_ref())?,
            timeout_ms: timeout.map_or(0, millis),
            retry: retry.as_ref().map(wire::retry_to_pb),
        };
        // Ends the host's half of the stream when this call returns or is dropped.
        let finished = CancellationToken::new();
        let _finished = finished.clone().drop_guard();
        let requests = outgoing(start, cancel.clone(), finished);

        let _probe = self.gate(&spec.name)?;
        let mut rpc = self.rpc();
        let mut request = tonic::Request::new(requests);
        // Opening the stream is bounded like a one-answer request; what follows is bounded by
        // the idle and ceiling timeouts below.
        request.set_timeout(self.timeouts.call_ceiling);
        let timeouts = self.timeouts;
        let ceiling = tokio::time::sleep(timeouts.call_ceiling);
        tokio::pin!(ceiling);
        let opened = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(McpError::Cancelled),
            opened = rpc.call_tool(request) => opened,
        };
        let mut events = opened
            .map_err(|status| failure::call_failed(&self.name, &spec.name, tool, &status))?
            .into_inner();
        self.reached();
        let lost = || McpError::LostAfterSend {
            server: spec.name.clone(),
            tool: tool.to_owned(),
        };
        let timed_out = |timeout| McpError::Timeout {
            server: spec.name.clone(),
            method: "tools/call".to_owned(),
            timeout,
        };
        loop {
            // The node answers within the idle timeout (progress resets it), and within the
            // ceiling in all; after either, the call may still be running there.
            let event = tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(McpError::Cancelled),
                event = tokio::time::timeout(timeouts.call_idle, events.message()) => match event {
                    Ok(event) => event,
                    Err(_) => return Err(timed_out(timeouts.call_idle)),
                },
                () = &mut ceiling => return Err(timed_out(timeouts.call_ceiling)),
            };
            let event = match event {
                Ok(Some(event)) => event.event,
                Ok(None) => return Err(lost()),
                Err(status) => {
                    tracing::debug!(
                        node = %self.name,
                        server = %spec.name,
                        tool,
                        detail = %failure::detail(&status),
                        "a tool call's stream to the node broke"
                    );
                    return Err(lost());
                }
            };
            match event {
                Some(call_tool_event::Event::Progress(report)) => {
                    if let Some(progress) = &progress {
                        // The caller stopped listening; the call goes on.
                        let _ = progress.send(wire::progress_from_pb(report));
                    }
                }
                Some(call_tool_event::Event::ResultJson(json)) => {
                    return serde_json::from_slice(&json)
                        .map_err(|error| failure::unreadable(&spec.name, "a tool result", &error));
                }
                Some(call_tool_event::Event::Error(error)) => {
                    return Err(wire::error_from_pb(&self.name, error));
                }
                None => {}
            }
        }
    }
}

/// The host's half of the stream: `start`, then `cancel` if the caller cancels; it ends when
/// the call is `finished` (after `cancel`, when both happened).
fn outgoing(
    start: pb::CallStart,
    cancel: CancellationToken,
    finished: CancellationToken,
) -> impl Stream<Item = pb::CallToolRequest> + Send + 'static {
    let start = pb::CallToolRequest {
        message: Some(call_tool_request::Message::Start(start)),
    };
    let later = async move {
        tokio::select! {
            biased;
            () = cancel.cancelled() => Some(pb::CallToolRequest {
                message: Some(call_tool_request::Message::Cancel(pb::Cancel {})),
            }),
            () = finished.cancelled() => None,
        }
    };
    futures::stream::once(std::future::ready(start))
        .chain(futures::stream::once(later).filter_map(std::future::ready))
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

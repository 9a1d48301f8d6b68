//! One `CallTool` stream: the call, its progress, and the host's cancel.
//!
//! The call runs inside the response stream itself, polled by the HTTP/2 stream's own task: no
//! task is spawned and no channel carries the result, so a call adds no hop of its own. The
//! stream yields every progress report the server sent, then exactly one `result_json` or
//! `error`. A `cancel` message, or the host ending or breaking its half of the stream, cancels
//! the call (rmcp then sends `notifications/cancelled` to the server and the call ends
//! `cancelled`); a host that drops the call altogether drops this stream, and with it the
//! call, which also tells the server.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use futures::future::BoxFuture;
use rmcp::model::CallToolResult;
use switchboard_mcp::{McpError, Progress};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tonic::{Status, Streaming};

use crate::{pb, wire};

type Event = pb::call_tool_event::Event;

pub(crate) struct CallStream {
    call: Option<BoxFuture<'static, Result<CallToolResult, McpError>>>,
    progress: mpsc::UnboundedReceiver<Progress>,
    /// The host's half; `None` once it ended.
    host: Option<Streaming<pb::CallToolRequest>>,
    cancel: CancellationToken,
    /// The call's outcome, sent once the progress reported before it is.
    outcome: Option<Event>,
    done: bool,
}

impl CallStream {
    /// `call` must run with `cancel` and report progress to the sender of `progress`.
    pub(crate) fn new(
        call: BoxFuture<'static, Result<CallToolResult, McpError>>,
        progress: mpsc::UnboundedReceiver<Progress>,
        host: Streaming<pb::CallToolRequest>,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            call: Some(call),
            progress,
            host: Some(host),
            cancel,
            outcome: None,
            done: false,
        }
    }

    /// Reads what the host sent since: `cancel`, or the end of its half, cancels the call.
    fn watch_host(&mut self, cx: &mut Context<'_>) {
        while let Some(host) = self.host.as_mut() {
            match Pin::new(host).poll_next(cx) {
                Poll::Ready(Some(Ok(pb::CallToolRequest {
                    message: Some(pb::call_tool_request::Message::Cancel(_)),
                }))) => self.cancel.cancel(),
                // A second `start` or an empty message: nothing to do.
                Poll::Ready(Some(Ok(_))) => {}
                Poll::Ready(Some(Err(_)) | None) => {
                    self.cancel.cancel();
                    self.host = None;
                }
                Poll::Pending => break,
            }
        }
    }
}

impl Stream for CallStream {
    type Item = Result<pb::CallToolEvent, Status>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        if this.call.is_some() {
            this.watch_host(cx);
        }
        if let Some(call) = this.call.as_mut()
            && let Poll::Ready(outcome) = call.as_mut().poll(cx)
        {
            this.call = None;
            this.host = None;
            this.outcome = Some(match outcome {
                Ok(result) => result_event(&result),
                Err(error) => Event::Error(wire::error_to_pb(&error)),
            });
        }
        // Progress first: every report the server sent before its result is queued by the
        // time the result is read.
        if let Poll::Ready(Some(progress)) = this.progress.poll_recv(cx) {
            return ready(Event::Progress(wire::progress_to_pb(progress)));
        }
        match this.outcome.take() {
            Some(outcome) => {
                this.done = true;
                ready(outcome)
            }
            None => Poll::Pending,
        }
    }
}

impl Drop for CallStream {
    fn drop(&mut self) {
        // The host is gone: a call still running is abandoned (dropping it tells the server).
        self.cancel.cancel();
    }
}

fn ready(event: Event) -> Poll<Option<Result<pb::CallToolEvent, Status>>> {
    Poll::Ready(Some(Ok(pb::CallToolEvent { event: Some(event) })))
}

fn result_event(result: &CallToolResult) -> Event {
    match serde_json::to_vec(result) {
        Ok(json) => Event::ResultJson(json),
        Err(error) => Event::Error(wire::error_to_pb(&McpError::Protocol {
            server: String::new(),
            detail: format!("the tool's result could not be written as JSON: {error}"),
        })),
    }
}

//! One `CallTool` stream: the call, its progress, the server's questions and log lines, and
//! the host's answers and cancel. The call is a tool call, a call started as a task, the
//! wait for a task's outcome or a `prompts/get` ([`Finished`] says which answer it gave).
//!
//! The call runs inside the response stream itself, polled by the HTTP/2 stream's own task: no
//! task is spawned and no channel carries the result, so a call adds no hop of its own. The
//! stream yields every progress report, question and log line the server sent, then exactly
//! one `result_json` or `error`. The host's answers go to the call's [`Relay`]. A `cancel`
//! message, or the host ending or breaking its half of the stream, cancels the call (rmcp then
//! sends `notifications/cancelled` to the server and the call ends `cancelled`); a host that
//! drops the call altogether drops this stream, and with it the call, which also tells the
//! server. Once the call is over, in any of these ways, the questions still open are failed.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::Stream;
use futures::future::BoxFuture;
use rmcp::model::{CallToolResult, GetPromptResult};
use switchboard_mcp::{McpError, Progress, Started, TaskState};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tonic::{Status, Streaming};

use super::relay::Relay;
use crate::{pb, wire};

type Event = pb::call_tool_event::Event;

/// What the stream's call gave, sent as its last event.
pub(crate) enum Finished {
    Result(CallToolResult),
    Task(TaskState),
    Prompt(GetPromptResult),
}

impl From<Started> for Finished {
    fn from(started: Started) -> Self {
        match started {
            Started::Done(result) => Finished::Result(result),
            Started::Task(task) => Finished::Task(task),
        }
    }
}

pub(crate) struct CallStream {
    call: Option<BoxFuture<'static, Result<Finished, McpError>>>,
    progress: mpsc::UnboundedReceiver<Progress>,
    /// The server's questions and log lines, and who takes the host's answers; `None` when
    /// the host has no one to answer.
    relayed: Option<(Arc<Relay>, mpsc::Receiver<Event>)>,
    /// The host's half; `None` once it ended.
    host: Option<Streaming<pb::CallToolRequest>>,
    cancel: CancellationToken,
    /// The call's outcome, sent once the progress reported before it is.
    outcome: Option<Event>,
    done: bool,
}

impl CallStream {
    /// `call` must run with `cancel`, report progress to the sender of `progress`, and have
    /// the server's requests answered by the relay of `relayed`, which sends on the sender of
    /// its receiver.
    pub(crate) fn new(
        call: BoxFuture<'static, Result<Finished, McpError>>,
        progress: mpsc::UnboundedReceiver<Progress>,
        relayed: Option<(Arc<Relay>, mpsc::Receiver<Event>)>,
        host: Streaming<pb::CallToolRequest>,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            call: Some(call),
            progress,
            relayed,
            host: Some(host),
            cancel,
            outcome: None,
            done: false,
        }
    }

    /// Reads what the host sent since: answers go to the relay; `cancel`, or the end of its
    /// half, cancels the call.
    fn watch_host(&mut self, cx: &mut Context<'_>) {
        while let Some(host) = self.host.as_mut() {
            match Pin::new(host).poll_next(cx) {
                Poll::Ready(Some(Ok(pb::CallToolRequest {
                    message: Some(pb::call_tool_request::Message::Cancel(_)),
                }))) => self.cancel.cancel(),
                Poll::Ready(Some(Ok(pb::CallToolRequest {
                    message: Some(pb::call_tool_request::Message::Answer(answer)),
                }))) => {
                    if let Some((relay, _)) = &self.relayed {
                        relay.answer(answer);
                    }
                }
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
            if let Some((relay, _)) = &this.relayed {
                relay.close();
            }
            this.outcome = Some(match outcome {
                Ok(finished) => finished_event(&finished),
                Err(error) => Event::Error(wire::error_to_pb(&error)),
            });
        }
        // Progress, questions and log lines first: every one the server sent before its
        // result is queued by the time the result is read.
        if let Poll::Ready(Some(progress)) = this.progress.poll_recv(cx) {
            return ready(Event::Progress(wire::progress_to_pb(progress)));
        }
        if let Some((_, relayed)) = this.relayed.as_mut()
            && let Poll::Ready(Some(event)) = relayed.poll_recv(cx)
        {
            return ready(event);
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
        // The host is gone: a call still running is abandoned (dropping it tells the server),
        // and its open questions fail.
        self.cancel.cancel();
        if let Some((relay, _)) = &self.relayed {
            relay.close();
        }
    }
}

fn ready(event: Event) -> Poll<Option<Result<pb::CallToolEvent, Status>>> {
    Poll::Ready(Some(Ok(pb::CallToolEvent { event: Some(event) })))
}

fn finished_event(finished: &Finished) -> Event {
    let written = match finished {
        Finished::Result(result) => serde_json::to_vec(result).map(Event::ResultJson),
        Finished::Task(task) => wire::task_to_json(task).map(Event::TaskJson),
        Finished::Prompt(prompt) => serde_json::to_vec(prompt).map(Event::PromptJson),
    };
    written.unwrap_or_else(|error| {
        Event::Error(wire::error_to_pb(&McpError::Protocol {
            server: String::new(),
            detail: format!("the answer could not be written as JSON: {error}"),
        }))
    })
}

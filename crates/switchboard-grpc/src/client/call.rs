//! A tool call on a node: one `CallTool` stream per call. The same stream starts a call as a
//! task, waits for a task's outcome and gets a prompt for a caller that answers the server's
//! questions ([`Step`]); only what the stream ends with differs.
//!
//! The host sends `start`, then keeps its half of the stream open until the call ends: ending
//! it early (or dropping the call) tells the node to cancel. When the caller cancels, `cancel`
//! is sent and the call returns at once; the node tells the server.
//!
//! What the server asks during the call (elicitation, sampling, a 2026-07-28 server's input)
//! comes as `question`s, answered by the call's own requester while the call goes on; its
//! answers go up the host's half. The idle timeout then follows the local rule
//! (`switchboard_mcp`'s attention): for a requester that waits for a person it stops while a
//! question is open, and it counts from the node's last event or the host's last answer.
//!
//! What a failure means depends on what is certain. The connection could not be made (the node
//! is down, TLS failed), the node refused the stream or answered with its own refusal (token,
//! bad request): the call never started, so it is [`McpError::NodeUnreachable`] (or a protocol
//! error), safe to send again. Anything else, even before the answer's headers arrived (the
//! node starts the tool as soon as its handler returns): the tool may have run, so it is
//! [`McpError::LostAfterSend`], sent again only for read-only or idempotent tools, as for a
//! local server (see `failure::call_failed`).

use std::time::Duration;

use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use futures::{Stream, StreamExt};
use rmcp::model::{CallToolResult, GetPromptRequestParams, GetPromptResult, JsonObject};
use switchboard_core::ServerSpec;
use switchboard_mcp::{CallOptions, McpError, Started, TaskState, TaskStep};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_stream::wrappers::UnboundedReceiverStream;

use super::rpc::arguments_json;
use super::{NodeClient, Timeouts, failure, questions};
use crate::pb::{self, call_tool_event, call_tool_request};
use crate::wire;

/// What a `CallTool` stream does besides a plain call of its tool.
enum Step {
    Call,
    /// The call started as a task where its server runs it as one.
    StartTask,
    /// The outcome of the server's task, waited for this long at most.
    TaskOutcome {
        upstream_id: String,
        wait: Duration,
    },
    Prompt(GetPromptRequestParams),
}

/// What a `CallTool` stream ended with.
enum Answered {
    Result(CallToolResult),
    Task(TaskState),
    Prompt(GetPromptResult),
}

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
        match self
            .stream(spec, server, tool, arguments, options, Step::Call)
            .await?
        {
            Answered::Result(result) => Ok(result),
            _ => Err(unexpected(spec, "a tool call")),
        }
    }

    /// Starts `tool` as a task where its server runs it as one, as the local manager's
    /// `start_tool_task` does (on the node's connection, which the task's later steps reach).
    pub async fn start_task(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
        tool: &str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> Result<Started, McpError> {
        match self
            .stream(spec, server, tool, arguments, options, Step::StartTask)
            .await?
        {
            Answered::Result(result) => Ok(Started::Done(result)),
            Answered::Task(task) => Ok(Started::Task(task)),
            Answered::Prompt(_) => Err(unexpected(spec, "a task's start")),
        }
    }

    /// The outcome of the server's task `step`, waiting up to `wait` for it; the server's
    /// questions meanwhile go to `options.requests`.
    pub async fn task_outcome(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
        step: TaskStep<'_>,
        options: CallOptions,
        wait: Duration,
    ) -> Result<CallToolResult, McpError> {
        let outcome = Step::TaskOutcome {
            upstream_id: step.upstream_id.to_owned(),
            wait,
        };
        match self
            .stream(spec, server, step.tool, None, options, outcome)
            .await?
        {
            Answered::Result(result) => Ok(result),
            _ => Err(unexpected(spec, "a task's outcome")),
        }
    }

    /// `prompts/get` with the server's questions during it answered by `options.requests`
    /// (a 2026-07-28 server's input-required rounds too).
    pub async fn get_prompt_asking(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
        params: GetPromptRequestParams,
        options: CallOptions,
    ) -> Result<GetPromptResult, McpError> {
        match self
            .stream(spec, server, "", None, options, Step::Prompt(params))
            .await?
        {
            Answered::Prompt(prompt) => Ok(prompt),
            _ => Err(unexpected(spec, "a prompt")),
        }
    }

    /// One `CallTool` stream doing `step`.
    async fn stream(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
        tool: &str,
        arguments: Option<JsonObject>,
        options: CallOptions,
        step: Step,
    ) -> Result<Answered, McpError> {
        let CallOptions {
            cancel,
            progress,
            timeout,
            retry,
            requests,
            resume,
            prefer_task,
        } = options;
        if cancel.is_cancelled() {
            return Err(McpError::Cancelled);
        }
        // A task's outcome may be waited for longer than a call goes quiet: the node's wait
        // bounds it, and the host's ceiling is that wait and some.
        let timeouts = match &step {
            Step::TaskOutcome { wait, .. } => Timeouts {
                call_idle: *wait + self.timeouts.call_idle,
                call_ceiling: *wait + self.timeouts.call_idle,
                ..self.timeouts
            },
            _ => self.timeouts,
        };
        let method = match &step {
            Step::Prompt(_) => "prompts/get",
            Step::TaskOutcome { .. } => "tasks/result",
            Step::Call | Step::StartTask => "tools/call",
        };
        let start = pb::CallStart {
            server: Some(server),
            tool: tool.to_owned(),
            arguments_json: arguments_json(spec, arguments.as_ref())?,
            timeout_ms: timeout.map_or(0, millis),
            retry: retry.as_ref().map(wire::retry_to_pb),
            requester: requests.as_deref().map(wire::requester_to_pb),
            resume: resume.as_ref().map(wire::resume_to_pb),
            step: step_to_pb(spec, step, prefer_task)?,
        };
        // The host's half of the stream: `start`, then answers and `cancel`. It ends when this
        // call returns or is dropped, with `up`.
        let (up, later) = mpsc::unbounded_channel();
        let cancelled = |up: &mpsc::UnboundedSender<pb::CallToolRequest>| {
            // The stream may be gone already; ending it cancels the call too.
            let _ = up.send(message(call_tool_request::Message::Cancel(pb::Cancel {})));
            McpError::Cancelled
        };

        let _probe = self.gate(&spec.name)?;
        let mut rpc = self.rpc();
        let mut request = tonic::Request::new(outgoing(start, later));
        // Opening the stream is bounded like a one-answer request; what follows is bounded by
        // the idle and ceiling timeouts below.
        request.set_timeout(timeouts.call_ceiling);
        let ceiling = tokio::time::sleep(timeouts.call_ceiling);
        tokio::pin!(ceiling);
        let opened = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(cancelled(&up)),
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
            method: method.to_owned(),
            timeout,
        };
        let person = requests
            .as_ref()
            .is_some_and(|requester| requester.waits_for_a_person());
        // The questions being answered; dropped, unanswered, when the call returns.
        let mut answering = FuturesUnordered::<BoxFuture<'static, pb::Answer>>::new();
        let mut last = Instant::now();
        loop {
            // The node answers within the idle timeout (its events and our answers reset it,
            // and it stops while a person has a question open), and within the ceiling in
            // all; after either, the call may still be running there.
            let idle = idle_deadline(person, answering.len(), last, timeouts.call_idle);
            let step = tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(cancelled(&up)),
                Some(answer) = answering.next(), if !answering.is_empty() => Woke::Answered(answer),
                event = events.message() => Woke::Event(event),
                () = until(idle) => return Err(timed_out(timeouts.call_idle)),
                () = &mut ceiling => return Err(timed_out(timeouts.call_ceiling)),
            };
            last = Instant::now();
            let event = match step {
                Woke::Answered(answer) => {
                    // A stream already gone ends the call at the next event.
                    let _ = up.send(message(call_tool_request::Message::Answer(answer)));
                    continue;
                }
                Woke::Event(Ok(Some(event))) => event.event,
                Woke::Event(Ok(None)) => return Err(lost()),
                Woke::Event(Err(status)) => {
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
                Some(call_tool_event::Event::Question(question)) => {
                    if answering.len() < wire::MAX_OPEN_QUESTIONS {
                        answering.push(Box::pin(questions::answer(requests.clone(), question)));
                    } else {
                        let _ = up.send(message(call_tool_request::Message::Answer(
                            questions::too_many(question.id),
                        )));
                    }
                }
                Some(call_tool_event::Event::LogJson(json)) => {
                    if let (Some(requester), Some(line)) = (&requests, questions::log_line(&json)) {
                        // In order, before the result: as a local call's lines are.
                        tokio::select! {
                            biased;
                            () = cancel.cancelled() => return Err(cancelled(&up)),
                            () = requester.log(line) => {}
                        }
                    }
                }
                Some(call_tool_event::Event::ResultJson(json)) => {
                    return serde_json::from_slice(&json)
                        .map(Answered::Result)
                        .map_err(|error| failure::unreadable(&spec.name, "a tool result", &error));
                }
                Some(call_tool_event::Event::TaskJson(json)) => {
                    return wire::task_from_json(&json)
                        .map(Answered::Task)
                        .map_err(|error| failure::unreadable(&spec.name, "a task", &error));
                }
                Some(call_tool_event::Event::PromptJson(json)) => {
                    return serde_json::from_slice(&json)
                        .map(Answered::Prompt)
                        .map_err(|error| failure::unreadable(&spec.name, "a prompt", &error));
                }
                Some(call_tool_event::Event::Error(error)) => {
                    return Err(wire::error_from_pb(&self.name, error));
                }
                None => {}
            }
        }
    }
}

/// What woke the call up.
enum Woke {
    Answered(pb::Answer),
    Event(Result<Option<pb::CallToolEvent>, tonic::Status>),
}

/// `step` as `start` says it.
fn step_to_pb(
    spec: &ServerSpec,
    step: Step,
    prefer_task: bool,
) -> Result<Option<pb::call_start::Step>, McpError> {
    Ok(match step {
        Step::Call => None,
        Step::StartTask => Some(pb::call_start::Step::StartTask(pb::StartTask {
            prefer_task,
        })),
        Step::TaskOutcome { upstream_id, wait } => {
            Some(pb::call_start::Step::TaskOutcome(pb::TaskOutcome {
                upstream_id,
                wait_ms: millis(wait).max(1),
            }))
        }
        Step::Prompt(params) => Some(pb::call_start::Step::GetPromptJson(
            serde_json::to_vec(&params).map_err(|error| McpError::Protocol {
                server: spec.name.clone(),
                detail: format!("the prompt request does not encode: {error}"),
            })?,
        )),
    })
}

/// A node that ended a stream with another kind of answer than the one asked for.
fn unexpected(spec: &ServerSpec, what: &str) -> McpError {
    McpError::Protocol {
        server: spec.name.clone(),
        detail: format!("the node answered {what} with something else"),
    }
}

/// When a call that last showed life at `last` has gone `idle` without any: never while a
/// person has one of its `open` questions before them (a form takes a person longer than a
/// server may take), as for a local call (`switchboard_mcp`'s attention).
fn idle_deadline(person: bool, open: usize, last: Instant, idle: Duration) -> Option<Instant> {
    (!person || open == 0).then(|| last + idle)
}

/// Resolves at `deadline`, or never.
async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

fn message(message: call_tool_request::Message) -> pb::CallToolRequest {
    pb::CallToolRequest {
        message: Some(message),
    }
}

/// The host's half of the stream: `start`, then what is sent on the sender of `later`.
fn outgoing(
    start: pb::CallStart,
    later: mpsc::UnboundedReceiver<pb::CallToolRequest>,
) -> impl Stream<Item = pb::CallToolRequest> + Send + 'static {
    let start = message(call_tool_request::Message::Start(start));
    futures::stream::once(std::future::ready(start)).chain(UnboundedReceiverStream::new(later))
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_idle_clock_stops_only_while_a_person_has_a_question_open() {
        let last = Instant::now();
        let idle = Duration::from_secs(60);
        let lapses = Some(last + idle);
        assert_eq!(idle_deadline(true, 0, last, idle), lapses);
        assert_eq!(idle_deadline(true, 2, last, idle), None);
        // A requester that answers by itself gets the idle time, as rmcp gives it locally.
        assert_eq!(idle_deadline(false, 2, last, idle), lapses);
        assert_eq!(idle_deadline(false, 0, last, idle), lapses);
    }
}

//! Requests an upstream server sends during a call (elicitation, sampling) passed to the
//! downstream client that made the call, when it declared the capability; in the stateless
//! 2026-07-28 revision, as an input-required result.
//!
//! - A session client (2025-11-25 and older) that declared elicitation or sampling in
//!   `initialize` is asked directly, on the stream of its `tools/call` ([`downstream`]).
//! - A 2026-07-28 client cannot be sent requests; it declares its capabilities in each
//!   request's `_meta`. The upstream call is held in this process while the client answers,
//!   and the client's `tools/call` gets an `InputRequiredResult` with a signed `requestState`
//!   naming the held call; its retry with `inputResponses` resumes it ([`held`]).
//! - Anything the client did not declare is refused as the upstream's connection would refuse
//!   it for any caller that cannot answer: an elicitation declined, sampling an error.

mod capabilities;
mod downstream;
mod held;

use rmcp::model::CallToolRequestParams;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use switchboard_agent::{ToolCallError, ToolCallOutcome, ToolCallRequest, ToolCalls};
use switchboard_mcp::{Started, TaskState};
use tokio::time::Instant;

use crate::handler::GatewayHandler;

pub(crate) use capabilities::Capabilities;
pub(crate) use held::HeldCalls;

/// How a call is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum How {
    /// Waited for to its end (a task its server makes of it followed here).
    Call,
    /// Started: a tool its server runs as a task gives the server's task (for a client that
    /// accepts tasks).
    Start,
}

/// How a call ended.
// One per call, moved once to `tools::call`: boxing the outcome would buy nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Ran {
    Done(Result<Answered, ToolCallError>),
    InputRequired(rmcp::model::InputRequiredResult),
}

/// What a call that ended gave.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Answered {
    /// The tool's result.
    Result(ToolCallOutcome),
    /// The server runs it as this task ([`How::Start`] only).
    Task(TaskState),
}

/// Makes `call` through the tool-call service, `how` says.
pub(crate) async fn make(
    tool_calls: &ToolCalls,
    call: ToolCallRequest,
    how: How,
) -> Result<Answered, ToolCallError> {
    match how {
        How::Call => tool_calls.call(call).await.map(Answered::Result),
        How::Start => {
            let began = Instant::now();
            let started = tool_calls.start(call).await?;
            Ok(match started.started {
                Started::Done(result) => Answered::Result(ToolCallOutcome {
                    result,
                    arguments: started.arguments,
                    attempts: started.attempts,
                    tool: started.tool,
                    duration: began.elapsed(),
                }),
                Started::Task(state) => Answered::Task(state),
            })
        }
    }
}

/// Runs `call` through the tool-call service as `how` says, with the downstream client
/// answering the server's requests.
pub(crate) async fn run_call(
    handler: &GatewayHandler,
    context: &RequestContext<RoleServer>,
    params: &CallToolRequestParams,
    mut call: ToolCallRequest,
    how: How,
) -> Result<Ran, ErrorData> {
    // A revision without `initialize` (2026-07-28) has no session to send requests on.
    let stateless = context
        .protocol_version()
        .is_some_and(|version| !version.has_initialize());
    let capabilities = Capabilities::of(context.client_capabilities().as_ref());
    if stateless {
        let view = handler.scope(context)?.view;
        return handler
            .gateway
            .held
            .run(
                &handler.gateway.tool_calls,
                context,
                params,
                (call, how),
                capabilities,
                view.as_deref(),
            )
            .await;
    }
    // Set even when the client declared nothing: the upstream is then told so (its
    // capabilities go in the call's `_meta`) and anything it asks is refused.
    call.requests = Some(downstream::Downstream::requester(context, capabilities));
    Ok(Ran::Done(
        make(&handler.gateway.tool_calls, call, how).await,
    ))
}

/// How a `prompts/get` of this request treats an upstream's input-required answer, by the same
/// rules as a call: a 2026-07-28 client gets it as it is and retries with its answers (a
/// prompt has no side effects, so the upstream's own `requestState` carries the round and
/// nothing is held here); a session client that declared capabilities is asked directly.
pub(crate) fn prompt_input(context: &RequestContext<RoleServer>) -> switchboard_mcp::PromptInput {
    let stateless = context
        .protocol_version()
        .is_some_and(|version| !version.has_initialize());
    if stateless {
        return switchboard_mcp::PromptInput::Return;
    }
    let capabilities = Capabilities::of(context.client_capabilities().as_ref());
    switchboard_mcp::PromptInput::Answer(
        capabilities
            .any()
            .then(|| downstream::Downstream::requester(context, capabilities)),
    )
}

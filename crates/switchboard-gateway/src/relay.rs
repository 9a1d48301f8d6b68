//! Requests an upstream server sends during a call (elicitation, sampling) passed to the
//! downstream client that made the call, when it declared the capability; in the stateless
//! 2026-07-28 revision, as an input-required result.

use rmcp::model::CallToolRequestParams;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use switchboard_agent::{ToolCallError, ToolCallOutcome, ToolCallRequest};

use crate::handler::GatewayHandler;

/// How a call ended.
pub(crate) enum Ran {
    Done(Result<ToolCallOutcome, ToolCallError>),
    InputRequired(rmcp::model::InputRequiredResult),
}

/// Runs `call` through the tool-call service, with the downstream client answering the
/// server's requests.
pub(crate) async fn run_call(
    handler: &GatewayHandler,
    _context: &RequestContext<RoleServer>,
    _params: &CallToolRequestParams,
    call: ToolCallRequest,
) -> Result<Ran, ErrorData> {
    Ok(Ran::Done(handler.gateway.tool_calls.call(call).await))
}

//! `tools/list` and `tools/call`: the selection's tools under their exported names, each call
//! through the tool-call service (approval first, progress and cancellation passed through).
//!
//! A call is resolved against the catalog of the caller's own scope and then checked against
//! the selection read for this call, so a name never leads to another person's server, to a
//! server that was switched off, or to a tool outside the view; the tool-call service then
//! checks the server's tool list and switched-off tools once more, as for every caller.
//!
//! How a failed call is answered follows the MCP specification: an unknown tool is a JSON-RPC
//! error (invalid params, -32602); everything that went wrong with a known tool (arguments not
//! matching its schema, the server unreachable or timing out, the server's own JSON-RPC error)
//! is a tool result with `isError`, worded as the REST API words it, so a model can read it.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData, RoleServer};
use switchboard_agent::{CallerKind, ToolCallError, ToolCallRequest, builtins_now};
use switchboard_core::{ServerSpec, Variables};
use switchboard_mcp::Progress;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::approval::{self, Verdict};
use crate::error::GatewayError;
use crate::handler::GatewayHandler;
use crate::relay::{self, Ran};
use crate::session::Scope;

/// The longest a finished call's answer waits for its progress notifications to be sent.
const PROGRESS_FLUSH: Duration = Duration::from_secs(1);

pub(crate) async fn list(
    handler: &GatewayHandler,
    _request: Option<PaginatedRequestParams>,
    context: RequestContext<RoleServer>,
) -> Result<ListToolsResult, ErrorData> {
    let scope = handler.scope(&context)?;
    let (_, catalog) = handler.gateway.exports(&scope).await?;
    Ok(ListToolsResult::with_all_items(catalog.tools.clone()))
}

pub(crate) async fn call(
    handler: &GatewayHandler,
    mut params: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let scope = handler.scope(&context)?;
    let (spec, tool) = resolve(handler, &scope, &params.name).await?;
    let sealed =
        match approval::decide(handler, &context, &scope, &mut params, &spec, &tool).await? {
            Verdict::Run { sealed } => sealed,
            Verdict::Answer(response) => return Ok(response),
        };

    let cancel = context.ct.child_token();
    let (progress, forwarder) = forward_progress(&context);
    let request = ToolCallRequest {
        variables: Some(Variables::new(builtins_now(
            &scope.user.id.0,
            &scope.user.name,
            None,
        ))),
        cancel: cancel.clone(),
        progress,
        ..ToolCallRequest::new(
            scope.user.id.clone(),
            CallerKind::Gateway,
            spec,
            tool,
            params.arguments.clone().unwrap_or_default(),
        )
    };
    // Dropping this future (the client went away) stops the call too.
    let _stop = cancel.drop_guard();
    let ran = relay::run_call(handler, &context, &params, request).await;
    if let Some(forwarder) = forwarder
        && matches!(ran, Ok(Ran::Done(_)))
    {
        // Every progress notification goes out before the result; bounded, so that a sender
        // kept elsewhere (a call the relay holds across rounds) cannot hold the answer back.
        let _ = tokio::time::timeout(PROGRESS_FLUSH, forwarder).await;
    }
    match ran? {
        Ran::Done(Ok(outcome)) => Ok(CallToolResponse::Complete(outcome.result)),
        Ran::Done(Err(error)) => call_failed(&params.name, error),
        Ran::InputRequired(result) if sealed => Ok(CallToolResponse::InputRequired(
            handler.gateway.approvals.carry(&scope, &params, result)?,
        )),
        Ran::InputRequired(result) => Ok(CallToolResponse::InputRequired(result)),
    }
}

/// The server (as selected now) and the tool's own name behind an exported name.
async fn resolve(
    handler: &GatewayHandler,
    scope: &Scope,
    name: &str,
) -> Result<(Arc<ServerSpec>, String), ErrorData> {
    let (selection, target) = handler.gateway.export_of(scope, name).await?;
    let not_found = || ErrorData::from(GatewayError::ToolNotFound(name.to_owned()));
    let target = target.ok_or_else(not_found)?;
    let server = selection
        .servers
        .iter()
        .find(|s| s.spec.id == target.server && s.offers(&target.tool))
        .ok_or_else(not_found)?;
    Ok((Arc::clone(&server.spec), target.tool.clone()))
}

/// When the request carries a progress token: a sender for the server's progress, and the
/// task sending each one to the client as `notifications/progress` with that token (it ends
/// when the sender is dropped with the request).
fn forward_progress(
    context: &RequestContext<RoleServer>,
) -> (
    Option<mpsc::UnboundedSender<Progress>>,
    Option<JoinHandle<()>>,
) {
    let Some(token) = context.meta.get_progress_token() else {
        return (None, None);
    };
    let (sender, receiver) = mpsc::unbounded_channel();
    let task = tokio::spawn(send_progress(context.peer.clone(), token, receiver));
    (Some(sender), Some(task))
}

async fn send_progress(
    peer: Peer<RoleServer>,
    token: ProgressToken,
    mut receiver: mpsc::UnboundedReceiver<Progress>,
) {
    while let Some(progress) = receiver.recv().await {
        let mut param = ProgressNotificationParam::new(token.clone(), progress.progress);
        param.total = progress.total;
        param.message = progress.message;
        if let Err(error) = peer.notify_progress(param).await {
            tracing::debug!(%error, "gateway: progress could not be sent to the client");
            return;
        }
    }
}

/// A call the tool-call service did not get answered.
fn call_failed(name: &str, error: ToolCallError) -> Result<CallToolResponse, ErrorData> {
    match &error {
        // The tool went away between listing and calling (switched off, removed upstream):
        // for the client it is an unknown tool, as if it had not been listed.
        ToolCallError::ToolNotFound { .. } | ToolCallError::NotSelected { .. } => {
            Err(GatewayError::ToolNotFound(name.to_owned()).into())
        }
        ToolCallError::Store(_) | ToolCallError::OtherServer { .. } => {
            tracing::error!(%error, tool = name, "gateway: tool call failed");
            Err(ErrorData::internal_error(
                error.to_string(),
                Some(serde_json::json!({ "code": error.code() })),
            ))
        }
        _ => {
            let mut result = CallToolResult::error(vec![ContentBlock::text(error.to_string())]);
            let mut meta = rmcp::model::JsonObject::new();
            meta.insert(
                "switchboard/code".to_owned(),
                serde_json::json!(error.code()),
            );
            result.meta = Some(rmcp::model::MetaObject(meta));
            Ok(CallToolResponse::Complete(result))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_errors_are_tool_errors_and_unknown_tools_protocol_errors() {
        let unknown = call_failed(
            "mcp__a__x",
            ToolCallError::ToolNotFound {
                server: "a".into(),
                tool: "x".into(),
            },
        );
        let Err(error) = unknown else {
            panic!("a JSON-RPC error")
        };
        assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);

        let failed = call_failed(
            "mcp__a__x",
            ToolCallError::Mcp {
                error: switchboard_mcp::McpError::Cancelled,
                attempts: Vec::new(),
            },
        );
        let Ok(CallToolResponse::Complete(result)) = failed else {
            panic!("a tool result")
        };
        assert_eq!(result.is_error, Some(true));
    }
}

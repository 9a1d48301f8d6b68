//! `tools/list` and `tools/call`: the selection's tools under their exported names, each call
//! through the tool-call service (approval first, progress and cancellation passed through).
//! A view in `search` mode lists its search tools and pinned tools instead ([`crate::search`]),
//! and a `call_tool` there is made here as the direct call of the tool it names.
//!
//! A call is resolved against the export list of the caller's own scope and then checked against
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
    PaginatedRequestParams, ProgressNotificationParam, ResultType,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use switchboard_agent::{CallerKind, ToolCallError, ToolCallRequest, builtins_now};
use switchboard_core::spec::Redactor;
use switchboard_core::upstream_text::short_text;
use switchboard_core::{ServerSpec, TaskSupport, Variables, ViewExposure};
use switchboard_mcp::McpError;
use switchboard_mcp::Progress;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::task::AbortOnDropHandle;

use crate::approval::{self, Target, Verdict};
use crate::error::GatewayError;
use crate::handler::GatewayHandler;
use crate::relay::{self, Answered, How, Ran};
use crate::revision::Revision;
use crate::search::Intercepted;
use crate::session::Scope;
use crate::tasks::{self, Place};

/// The longest a finished call's answer waits for its progress notifications to be sent.
const PROGRESS_FLUSH: Duration = Duration::from_secs(1);
/// The most characters of an upstream's progress message passed on.
const MAX_PROGRESS_MESSAGE: usize = 500;

pub(crate) async fn list(
    handler: &GatewayHandler,
    _request: Option<PaginatedRequestParams>,
    context: RequestContext<RoleServer>,
) -> Result<ListToolsResult, ErrorData> {
    let scope = handler.scope(&context)?;
    let (selection, exported) = handler.gateway.exports(&scope).await?;
    let listed = match selection.exposure {
        ViewExposure::All => exported.tools.clone(),
        ViewExposure::Search => {
            let listed = crate::search::listed(&selection, &exported);
            handler.session.listed(crate::search::print(&listed));
            listed
        }
    };
    let revision = Revision::of(context.protocol_version());
    let tools = if revision.strips() {
        listed.into_iter().map(|t| revision.tool(t)).collect()
    } else {
        listed
    };
    Ok(ListToolsResult::with_all_items(tools))
}

pub(crate) async fn call(
    handler: &GatewayHandler,
    params: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    call_as(handler, params, context, false).await
}

/// A call, as a task when a 2025-11-25 client `asked` for one (`tools/call` with `task`).
pub(crate) async fn call_as(
    handler: &GatewayHandler,
    params: CallToolRequestParams,
    context: RequestContext<RoleServer>,
    asked: bool,
) -> Result<CallToolResponse, ErrorData> {
    let scope = handler.scope(&context)?;
    // A view in `search` mode answers its own tools, and `call_tool` becomes the call it names.
    let mut params = match crate::search::intercept(handler, &context, &scope, params).await? {
        Intercepted::Answer(response) => return Ok(response),
        Intercepted::Call(params) => params,
    };
    let (spec, tool, upstream_tasks) = resolve(handler, &scope, &params.name).await?;
    let sealed =
        match approval::decide(handler, &context, &scope, &mut params, &spec, &tool).await? {
            Verdict::Run { sealed } => sealed,
            Verdict::Answer(response) => return Ok(response),
        };

    let request = ToolCallRequest {
        variables: Some(Variables::new(builtins_now(
            &scope.user.id.0,
            &scope.user.name,
            None,
        ))),
        ..ToolCallRequest::new(
            scope.user.id.clone(),
            CallerKind::Gateway,
            Arc::clone(&spec),
            tool.clone(),
            params.arguments.clone().unwrap_or_default(),
        )
    };
    let gateway = &handler.gateway;
    // A client that accepts tasks may get one; a 2025-11-25 client that asked for one does
    // (see `crate::tasks`).
    let place = if asked && tasks::legacy::speaks(&context) {
        Some(Place::asked(gateway, &scope, &params.name, upstream_tasks).await?)
    } else {
        Place::of(gateway, &context, &scope).await?
    };
    if let Some(place) = &place
        && place.runs_here(gateway, &spec, &tool, upstream_tasks)
    {
        return tasks::run_here(gateway, place, request).await;
    }

    let server_id = spec.id.0.clone();
    let cancel = context.ct.child_token();
    let (progress, forwarder) = forward_progress(&context, spec.redactor());
    // Progress after the final response is forbidden: the forwarder ends with this call,
    // whichever way it returns (or is dropped).
    let mut forwarder = forwarder.map(AbortOnDropHandle::new);
    let request = ToolCallRequest {
        cancel: cancel.clone(),
        progress,
        ..request
    };
    // Dropping this future (the client went away) stops the call too.
    let _stop = cancel.drop_guard();
    let how = if place.is_some() {
        How::Start
    } else {
        How::Call
    };
    let ran = relay::run_call(handler, &context, &params, request, how).await;
    if let Some(forwarder) = forwarder.as_mut()
        && matches!(ran, Ok(Ran::Done(_)))
    {
        // Every progress notification goes out before the result; bounded, so that a sender
        // kept elsewhere (a call the relay holds across rounds) cannot hold the answer back.
        let _ = tokio::time::timeout(PROGRESS_FLUSH, forwarder).await;
    }
    drop(forwarder);
    let target = Target {
        server: &server_id,
        tool: &tool,
    };
    match ran? {
        Ran::Done(Ok(Answered::Result(outcome))) => {
            gateway.durations.record(&spec.id, &tool, outcome.duration);
            if let Some(place) = place.as_ref().filter(|place| place.was_asked()) {
                let (owner, result) = (&scope.user.id, outcome.result);
                return tasks::keep_answered(gateway, place, owner, &spec, &tool, result).await;
            }
            let revision = Revision::of(context.protocol_version());
            Ok(CallToolResponse::Complete(
                revision.result(complete(outcome.result)),
            ))
        }
        Ran::Done(Ok(Answered::Task(state))) => match &place {
            Some(place) => tasks::adopt(gateway, place, &scope.user.id, &spec, &tool, state).await,
            // Only a call started for a client that accepts tasks gives one.
            None => Err(ErrorData::internal_error(
                "a task came for a plain call",
                None,
            )),
        },
        Ran::Done(Err(error)) => call_failed(&params.name, error),
        Ran::InputRequired(result) if sealed => Ok(CallToolResponse::InputRequired(
            handler
                .gateway
                .approvals
                .carry(&scope, target, &params, result)?,
        )),
        Ran::InputRequired(result) => Ok(CallToolResponse::InputRequired(result)),
    }
}

/// An upstream's result as a complete one. An upstream of a revision before 2026-07-28 sends
/// no `resultType`, which a 2026-07-28 client requires (rmcp's server strips it again for a
/// client of an older revision).
fn complete(mut result: CallToolResult) -> CallToolResult {
    result.result_type = Some(ResultType::COMPLETE);
    result
}

/// The server (as selected now), the tool's own name and how the server runs it as a task,
/// behind an exported name.
async fn resolve(
    handler: &GatewayHandler,
    scope: &Scope,
    name: &str,
) -> Result<(Arc<ServerSpec>, String, Option<TaskSupport>), ErrorData> {
    let (selection, target) = handler.gateway.export_of(scope, name).await?;
    let not_found = || ErrorData::from(GatewayError::ToolNotFound(name.to_owned()));
    let target = target.ok_or_else(not_found)?;
    let server = selection
        .servers
        .iter()
        .find(|s| s.spec.id == target.server && s.offers(&target.tool))
        .ok_or_else(not_found)?;
    Ok((Arc::clone(&server.spec), target.tool.clone(), target.tasks))
}

/// When the request carries a progress token: a sender for the server's progress, and the
/// task sending each one to the client as `notifications/progress` with that token (it ends
/// when the sender is dropped with the request; the caller aborts it when the call ends).
fn forward_progress(
    context: &RequestContext<RoleServer>,
    redactor: Redactor,
) -> (
    Option<mpsc::UnboundedSender<Progress>>,
    Option<JoinHandle<()>>,
) {
    let Some(token) = context.meta.get_progress_token() else {
        return (None, None);
    };
    let (sender, receiver) = mpsc::unbounded_channel();
    let peer = context.peer.clone();
    let task = tokio::spawn(coalesce(receiver, move |progress: Progress| {
        let mut param = ProgressNotificationParam::new(token.clone(), progress.progress);
        param.total = progress.total;
        param.message = progress
            .message
            .as_deref()
            .map(|m| progress_message(&redactor, m));
        let peer = peer.clone();
        async move {
            match peer.notify_progress(param).await {
                Ok(()) => true,
                Err(error) => {
                    tracing::debug!(%error, "gateway: progress could not be sent to the client");
                    false
                }
            }
        }
    }));
    (Some(sender), Some(task))
}

/// An upstream's progress message with the server's secrets masked, on one line, cut short.
fn progress_message(redactor: &Redactor, message: &str) -> String {
    short_text(&redactor.redact(message), MAX_PROGRESS_MESSAGE)
}

/// Sends each progress with `send` (which says whether to go on), keeping only the latest
/// one that arrives while a send is under way: a slow client never makes a queue grow.
async fn coalesce<F, Fut>(mut receiver: mpsc::UnboundedReceiver<Progress>, mut send: F)
where
    F: FnMut(Progress) -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let mut latest: Option<Progress> = None;
    let mut open = true;
    loop {
        let progress = match latest.take() {
            Some(progress) => progress,
            None if open => match receiver.recv().await {
                Some(progress) => progress,
                None => return,
            },
            None => return,
        };
        let sending = send(progress);
        tokio::pin!(sending);
        loop {
            tokio::select! {
                biased;
                next = receiver.recv(), if open => match next {
                    Some(next) => latest = Some(next),
                    None => open = false,
                },
                sent = &mut sending => {
                    if !sent {
                        return;
                    }
                    break;
                }
            }
        }
    }
}

/// MissingRequiredClientCapabilityError (2026-07-28, SEP-2575).
const MISSING_CLIENT_CAPABILITY: rmcp::model::ErrorCode = rmcp::model::ErrorCode(-32021);

/// A call the tool-call service did not get answered.
fn call_failed(name: &str, error: ToolCallError) -> Result<CallToolResponse, ErrorData> {
    match &error {
        // The tool went away between listing and calling (switched off, removed upstream):
        // for the client it is an unknown tool, as if it had not been listed.
        ToolCallError::ToolNotFound { .. } | ToolCallError::NotSelected { .. } => {
            Err(GatewayError::ToolNotFound(name.to_owned()).into())
        }
        // The upstream needs a capability the client did not declare (SEP-2575; the client's
        // capabilities went to it in the call's `_meta`): the client is told so as the
        // protocol says, with the missing capabilities re-read as capabilities (nothing else
        // the upstream put there comes back).
        ToolCallError::Mcp {
            error: McpError::Server {
                error: upstream, ..
            },
            ..
        } if upstream.code == MISSING_CLIENT_CAPABILITY => {
            let required = upstream
                .data
                .as_ref()
                .and_then(|data| data.get("requiredCapabilities"))
                .and_then(|value| {
                    serde_json::from_value::<rmcp::model::ClientCapabilities>(value.clone()).ok()
                });
            Err(ErrorData::new(
                MISSING_CLIENT_CAPABILITY,
                format!("`{name}` needs a client capability this client did not declare"),
                required.map(|required| serde_json::json!({ "requiredCapabilities": required })),
            ))
        }
        ToolCallError::Store(_) | ToolCallError::OtherServer { .. } => {
            // The detail (a database's words) is for the log, not for the client.
            tracing::error!(%error, tool = name, "gateway: tool call failed");
            Err(ErrorData::internal_error(
                "internal error",
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
    fn store_failures_reach_the_client_without_their_detail() {
        let failed = call_failed(
            "mcp__a__x",
            ToolCallError::Store(switchboard_store::StoreError::Corrupt {
                entity: switchboard_store::Entity::ToolCall,
                id: "c1".into(),
                reason: "sqlx: relation secret_table".into(),
            }),
        );
        let Err(error) = failed else {
            panic!("a JSON-RPC error")
        };
        assert_eq!(error.message, "internal error");
        assert!(!error.to_string().contains("secret_table"));
        assert!(error.data.is_some());
    }

    #[test]
    fn progress_messages_are_masked_and_short() {
        let mut spec = ServerSpec::stdio("files", "cmd", Vec::<String>::new());
        spec.env.insert("TOKEN".into(), "s3cret-value-123".into());
        spec.secret_env.insert("TOKEN".into());
        let message = format!("using s3cret-value-123\n{}", "z".repeat(2000));
        let shown = progress_message(&spec.redactor(), &message);
        assert!(!shown.contains("s3cret-value-123"), "{shown}");
        assert!(!shown.contains('\n'));
        assert!(shown.chars().count() <= MAX_PROGRESS_MESSAGE + 3);
    }

    fn at(progress: f64) -> Progress {
        Progress {
            progress,
            total: None,
            message: None,
        }
    }

    #[tokio::test]
    async fn progress_arriving_during_a_slow_send_is_coalesced_to_the_latest() {
        let (sender, receiver) = mpsc::unbounded_channel();
        let (sent_tx, mut sent_rx) = mpsc::unbounded_channel();
        let (go_tx, go_rx) = tokio::sync::watch::channel(0u32);
        // Each send waits until the test lets it finish.
        let task = tokio::spawn(coalesce(receiver, move |progress: Progress| {
            let sent_tx = sent_tx.clone();
            let mut go_rx = go_rx.clone();
            async move {
                let _ = sent_tx.send(progress.progress);
                let _ = go_rx.changed().await;
                true
            }
        }));
        let _ = sender.send(at(1.0));
        assert_eq!(sent_rx.recv().await, Some(1.0));
        // While the first send is under way, three more arrive.
        for p in [2.0, 3.0, 4.0] {
            let _ = sender.send(at(p));
        }
        tokio::task::yield_now().await;
        drop(sender);
        let _ = go_tx.send(1);
        assert_eq!(sent_rx.recv().await, Some(4.0));
        let _ = go_tx.send(2);
        let _ = task.await;
        assert_eq!(sent_rx.recv().await, None);
    }

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

//! The 2025-11-25 revision's tasks (experimental `tasks`), for the clients that speak it: the
//! client asks for a task per call (`tools/call` with `task`), for a tool listed as one
//! (`execution.taskSupport`), then polls it (`tasks/get`), waits for its outcome
//! (`tasks/result`), lists its tasks (`tasks/list`) and cancels one (`tasks/cancel`).
//!
//! rmcp models only the extension, and would refuse these requests from a client that did
//! not declare it, or drop what they carry: the transports rename them
//! ([`crate::wire_rewrite`]) so that rmcp hands them whole to [`crate::renamed`], which
//! brings them here. The client's `capabilities.tasks` arrives under [`CLIENT_CAPABILITY`],
//! and the server's `capabilities.tasks` leaves from [`SERVER_CAPABILITY`].

use std::time::Duration;

use rmcp::model::{
    CallToolResponse, ClientCapabilities, ExperimentalCapabilities, InitializeRequestParams,
    JsonObject, ProtocolVersion, ServerResult,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};
use switchboard_store::{TaskFilter, TaskOrigin};
use tokio::time::Instant;

use super::{Ends, Place, bound, legacy_wire};
use crate::error::GatewayError;
use crate::handler::GatewayHandler;

/// Where a client's `capabilities.tasks` is carried in its `capabilities.experimental`.
pub(crate) const CLIENT_CAPABILITY: &str = "switchboard/tasks";
/// Where the gateway's `capabilities.tasks` leaves from in its `capabilities.experimental`.
pub(crate) const SERVER_CAPABILITY: &str = "switchboard/tasks";

/// The longest `tasks/result` waits for a task to end before it answers that the task is
/// still running (under the 5 minutes clients commonly wait for an answer).
const RESULT_WAIT: Duration = Duration::from_secs(4 * 60);
/// The most tasks on one page of `tasks/list`.
const PAGE: u32 = 50;

/// Whether the client of `context` speaks the 2025-11-25 tasks: a session negotiated at
/// 2025-11-25, or whose client declared `capabilities.tasks`, and which did not declare the
/// extension (a client that did keeps to it).
pub(crate) fn speaks(context: &RequestContext<RoleServer>) -> bool {
    // A revision without `initialize` (2026-07-28) has no session.
    let stateless = context
        .protocol_version()
        .is_some_and(|version| !version.has_initialize());
    if stateless {
        return false;
    }
    let Some(info) = context.peer.peer_info() else {
        return false;
    };
    let extension = context
        .client_capabilities()
        .is_some_and(|capabilities| capabilities.supports_tasks());
    !extension && offered(&info)
}

/// Whether a client that initializes with `request` is offered the 2025-11-25 tasks.
pub(crate) fn offered(request: &InitializeRequestParams) -> bool {
    !request.capabilities.supports_tasks()
        && (request.protocol_version == ProtocolVersion::V_2025_11_25
            || declared(&request.capabilities))
}

fn declared(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .experimental
        .as_ref()
        .is_some_and(|experimental| experimental.contains_key(CLIENT_CAPABILITY))
}

/// The gateway's `capabilities.tasks`, to be moved out of `experimental` on the way out:
/// listed, cancelled, and `tools/call` as a task.
pub(crate) fn declare(experimental: &mut ExperimentalCapabilities) {
    let mut tasks = JsonObject::new();
    tasks.insert("list".into(), json!({}));
    tasks.insert("cancel".into(), json!({}));
    tasks.insert("requests".into(), json!({ "tools": { "call": {} } }));
    experimental.insert(SERVER_CAPABILITY.into(), tasks);
}

/// A call's answer in the 2025-11-25 shape: a task as `CreateTaskResult`.
pub(crate) fn answer(response: CallToolResponse) -> Result<Value, ErrorData> {
    match response {
        CallToolResponse::Task(created) => Ok(legacy_wire::created(&created.task)),
        other => session_json(ServerResult::from(other)),
    }
}

/// `result` as rmcp would send it to a session client (of a revision before 2026-07-28).
pub(crate) fn session_json(mut result: ServerResult) -> Result<Value, ErrorData> {
    result.strip_result_type_for_legacy_peer();
    serde_json::to_value(result)
        .map_err(|_| ErrorData::internal_error("the answer could not be written", None))
}

/// Adds each listed tool's `execution.taskSupport` to `listed` (a `tools/list` answer; see
/// [`Place::legacy_support`]).
pub(crate) async fn with_execution(
    handler: &GatewayHandler,
    context: &RequestContext<RoleServer>,
    listed: &mut Value,
) -> Result<(), ErrorData> {
    let scope = handler.scope(context)?;
    let place = Place::at(&handler.gateway, &scope).await?;
    let (_, exported) = handler.gateway.exports(&scope).await?;
    if let Some(tools) = listed.get_mut("tools").and_then(Value::as_array_mut) {
        for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
            let upstream = tool
                .get("name")
                .and_then(Value::as_str)
                .and_then(|name| exported.resolve(name))
                .and_then(|target| target.tasks);
            if let Some(support) = place.legacy_support(upstream) {
                tool.insert("execution".into(), json!({ "taskSupport": support }));
            }
        }
    }
    Ok(())
}

/// `tasks/get`: the task as it is now.
pub(crate) async fn get(
    handler: &GatewayHandler,
    id: &str,
    context: &RequestContext<RoleServer>,
) -> Result<Value, ErrorData> {
    let task = bound(handler, context, id).await?;
    Ok(legacy_wire::task(&task))
}

/// `tasks/cancel`: as the extension's ([`super::cancel`]), answered with the task as it is
/// then (a server's task is cancelled on its server by its poller, so it may still show
/// `working`). A task that has ended cannot be cancelled (-32602, as the revision says).
pub(crate) async fn cancel(
    handler: &GatewayHandler,
    id: &str,
    context: &RequestContext<RoleServer>,
) -> Result<Value, ErrorData> {
    let task = bound(handler, context, id).await?;
    if !task.is_live() {
        return Err(ErrorData::invalid_params(
            format!("task `{id}` has ended and cannot be cancelled"),
            Some(json!({ "code": switchboard_core::ErrorCode::Conflict })),
        ));
    }
    let task = handler
        .gateway
        .tasks
        .cancel(&task.owner, &task.id)
        .await
        .map_err(GatewayError::from)?;
    Ok(legacy_wire::task(&task))
}

/// `tasks/result`: waits for the task to end (at most [`RESULT_WAIT`], woken by its end),
/// then answers what the call would have: the tool's result, or its error. The task's
/// questions are not passed on (see [`super`]): a server's question during a task is
/// refused as for a client that cannot answer.
pub(crate) async fn result(
    handler: &GatewayHandler,
    ends: &Ends,
    id: &str,
    context: &RequestContext<RoleServer>,
) -> Result<Value, ErrorData> {
    let deadline = Instant::now() + RESULT_WAIT;
    let mut listener = ends.listen();
    loop {
        let task = bound(handler, context, id).await?;
        if !task.is_live() {
            return legacy_wire::outcome(&task);
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(GatewayError::TaskStillRunning(task.id).into());
        }
        let wake = deadline.min(now + Ends::RECHECK);
        tokio::select! {
            () = context.ct.cancelled() => {
                return Err(ErrorData::internal_error("the request was cancelled", None));
            }
            _ = tokio::time::timeout_at(wake, listener.ended(id)) => {}
        }
    }
}

/// `tasks/list`: the caller's tasks started through the view this request comes through,
/// newest first, a page at a time.
pub(crate) async fn list(
    handler: &GatewayHandler,
    cursor: Option<&str>,
    context: &RequestContext<RoleServer>,
) -> Result<Value, ErrorData> {
    let scope = handler.scope(context)?;
    let place = Place::at(&handler.gateway, &scope).await?;
    let filter = TaskFilter {
        origin: TaskOrigin::Gateway,
        view_id: place.view_id,
        after: cursor.map(legacy_wire::read_cursor).transpose()?,
    };
    let mut tasks = handler
        .gateway
        .store
        .list_tasks(&scope.user.id, &filter, PAGE + 1)
        .await
        .map_err(GatewayError::from)?;
    let more = tasks.len() > PAGE as usize;
    tasks.truncate(PAGE as usize);
    let next = if more { tasks.last() } else { None };
    Ok(legacy_wire::page(&tasks, next))
}

/// The `taskId` of a request's params.
pub(crate) fn task_id(params: Option<&Value>) -> Result<String, ErrorData> {
    params
        .and_then(|params| params.get("taskId"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| ErrorData::invalid_params("`taskId` is missing", None))
}

/// The `cursor` of a request's params.
pub(crate) fn cursor(params: Option<&Value>) -> Option<&str> {
    params
        .and_then(|params| params.get("cursor"))
        .and_then(Value::as_str)
}

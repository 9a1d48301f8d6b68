//! Tasks for the gateway's clients, in both of MCP's dialects, kept by Switchboard's task
//! service (polled, resumed after a restart, cancelled) whichever the client speaks.
//!
//! The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, declared in
//! `server/discover` and `initialize`): a client that declares it (in a request's `_meta`, or
//! at `initialize`) may be answered a `tools/call` with a task instead of the result; the
//! server decides, per call:
//! - a tool its server runs as a task is started, and the server's task kept and followed by
//!   Switchboard's task service ([`adopt`]);
//! - any other tool is called as for every client and answered at once, unless the view runs
//!   it as a task of Switchboard's (its `tasks.runAsTask`: `always`, or `slow` once the tool's
//!   last call took `slowAfterSecs` or more), in the background on this process ([`run_here`]);
//! - a client that does not declare the extension is answered as before: the call is waited
//!   for, a task its server makes of it followed to its end.
//!
//! The 2025-11-25 revision's experimental tasks ([`legacy`]): a session negotiated at
//! 2025-11-25, or whose client declared `capabilities.tasks`, is told the server's
//! `capabilities.tasks`, and each tool's `execution.taskSupport`: its server's where the
//! server runs it as a task, else `optional` where the view runs tools as tasks of
//! Switchboard's (`slow` or `always`: this client decides per call), else none. The client
//! decides: a call with `task` of a tool its server runs as a task is started and the
//! server's task adopted ([`adopt`]; one the server answered at once is kept as a task that
//! has ended, [`keep_answered`]); of any other tool, it runs as a task of Switchboard's
//! ([`run_here`]). A task of a tool listed as none is refused (-32601); a call without `task`
//! is answered as before. It then has `tasks/get`,
//! `tasks/result` (which waits for the end, woken by it, [`Ends`]), `tasks/list` and
//! `tasks/cancel`, in the revision's shapes (`ttl` and `pollInterval` in milliseconds).
//!
//! The client only ever sees Switchboard's task id, never its server's. A task is bound to the
//! person and the view it was started through (`/mcp` without a view is a place of its own):
//! `tasks/get`, `tasks/result`, `tasks/cancel` and `tasks/update` of an id started elsewhere
//! answer -32602, as an id that never existed does, and `tasks/list` lists only the tasks of
//! that place. The extension has no `tasks/list`.
//!
//! Not yet: a task's questions. `tasks/update` answers -32602 ("takes no input"), and
//! `tasks/result` asks nothing: a server's question during a task is refused as for a client
//! that cannot answer (an elicitation declined, sampling an error), and a server's task waiting
//! for input shows as `working`.

mod durations;
mod ends;
pub(crate) mod legacy;
mod legacy_wire;
mod wire;

use rmcp::model::{
    CallToolResponse, CallToolResult, CancelTaskParams, GetTaskParams, GetTaskResult,
    UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use switchboard_agent::ToolCallRequest;
use switchboard_agent::tasks::TaskLink;
use switchboard_core::{OwnerId, RunAsTask, ServerSpec, TaskSupport, ViewTasks};
use switchboard_mcp::{TaskState, TaskStep};
use switchboard_store::{StoreError, StoredTask, StoredView, TaskOrigin};

use crate::error::GatewayError;
use crate::gateway::Gateway;
use crate::handler::GatewayHandler;
use crate::session::Scope;

pub(crate) use durations::{Durations, LearnFromTasks};
pub(crate) use ends::Ends;

/// Where a client that accepts tasks calls from: the view its tasks are bound to, and the
/// view's task settings.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    /// The view's id; `None`: `/mcp` without a view.
    view_id: Option<String>,
    settings: ViewTasks,
    /// A 2025-11-25 client asked for this call to be a task.
    asked: bool,
}

impl Place {
    /// Where the client of `context` calls from, when it accepts tasks (the extension);
    /// `None` when it does not.
    pub(crate) async fn of(
        gateway: &Gateway,
        context: &RequestContext<RoleServer>,
        scope: &Scope,
    ) -> Result<Option<Place>, GatewayError> {
        let accepts = context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.supports_tasks());
        if !accepts {
            return Ok(None);
        }
        Ok(Some(Place::at(gateway, scope).await?))
    }

    /// Where `scope` calls from: its view, if any, and the view's task settings.
    pub(crate) async fn at(gateway: &Gateway, scope: &Scope) -> Result<Place, GatewayError> {
        Ok(match view_of(gateway, scope).await? {
            Some(view) => Place {
                view_id: Some(view.id),
                settings: view.spec.tasks.unwrap_or_default(),
                asked: false,
            },
            None => Place {
                view_id: None,
                settings: ViewTasks::default(),
                asked: false,
            },
        })
    }

    /// Where a 2025-11-25 client that asked for a task (`tools/call` with `task`) calls
    /// from; refused for a tool not listed as one ([`Place::legacy_support`]).
    pub(crate) async fn asked(
        gateway: &Gateway,
        scope: &Scope,
        name: &str,
        upstream: Option<TaskSupport>,
    ) -> Result<Place, GatewayError> {
        let place = Place {
            asked: true,
            ..Place::at(gateway, scope).await?
        };
        match place.legacy_support(upstream) {
            Some(TaskSupport::Optional | TaskSupport::Required) => Ok(place),
            Some(TaskSupport::Forbidden) | None => Err(GatewayError::NotATaskTool(name.to_owned())),
        }
    }

    /// The `execution.taskSupport` a 2025-11-25 client is shown for a tool whose server
    /// runs it as `upstream` says: the server's own when it runs the tool as a task, else
    /// `optional` when the view runs tools as tasks of Switchboard's (`slow` or `always`:
    /// this client decides per call, so it is asked to), else none (not a task).
    pub(crate) fn legacy_support(&self, upstream: Option<TaskSupport>) -> Option<TaskSupport> {
        match upstream {
            Some(support @ (TaskSupport::Optional | TaskSupport::Required)) => Some(support),
            _ if self.settings.run_as_task != RunAsTask::Never => Some(TaskSupport::Optional),
            _ => None,
        }
    }

    /// Whether a call of `tool` of `spec` runs as a task of Switchboard's, by the view's
    /// settings and how long the tool's last call took.
    /// Whether a call of `tool` of `spec` (which its server runs as a task as `upstream`
    /// says) runs as a task of Switchboard's: by the view's settings and how long the tool's
    /// last call took; for a 2025-11-25 client that asked for a task, whenever its server
    /// does not run the tool as one (when it does, the server's task is adopted, so that a
    /// cancel reaches the server however early it comes).
    pub(crate) fn runs_here(
        &self,
        gateway: &Gateway,
        spec: &ServerSpec,
        tool: &str,
        upstream: Option<TaskSupport>,
    ) -> bool {
        if self.asked {
            return !matches!(
                upstream,
                Some(TaskSupport::Optional | TaskSupport::Required)
            );
        }
        self.settings
            .runs_as_task(gateway.durations.last(&spec.id, tool))
    }

    /// Whether a 2025-11-25 client asked for this call to be a task.
    pub(crate) fn was_asked(&self) -> bool {
        self.asked
    }

    fn link(&self) -> TaskLink {
        TaskLink {
            view_id: self.view_id.clone(),
            ..TaskLink::default()
        }
    }
}

/// Runs `request` as a task of Switchboard's, in the background (it becomes its server's
/// task if the server answers with one); answered with the task.
pub(crate) async fn run_here(
    gateway: &Gateway,
    place: &Place,
    request: ToolCallRequest,
) -> Result<CallToolResponse, ErrorData> {
    let task = gateway
        .tasks
        .run_in_background_for(request, TaskOrigin::Gateway, place.link())
        .await
        .map_err(GatewayError::from)?;
    Ok(CallToolResponse::Task(wire::created(&task)))
}

/// Keeps the server's task `state`, which a call of `tool` of `spec` was answered with, as a
/// task of `owner`'s at `place`; answered with our task. A task that cannot be kept (past the
/// owner's quota) is cancelled on its server: nobody could follow it.
pub(crate) async fn adopt(
    gateway: &Gateway,
    place: &Place,
    owner: &OwnerId,
    spec: &ServerSpec,
    tool: &str,
    state: TaskState,
) -> Result<CallToolResponse, ErrorData> {
    match gateway
        .tasks
        .adopt(owner, spec, tool, &state, TaskOrigin::Gateway, place.link())
        .await
    {
        Ok(task) => Ok(CallToolResponse::Task(wire::created(&task))),
        Err(error) => {
            let step = TaskStep {
                tool,
                upstream_id: &state.upstream_id,
            };
            let backend = gateway.tool_calls.backend();
            if let Err(cancel) = backend.cancel_task(owner, spec, step).await {
                tracing::debug!(%cancel, "gateway: a task not kept could not be cancelled");
            }
            Err(GatewayError::Store(error).into())
        }
    }
}

/// Keeps a call that its server answered at once with `result` as a task that has ended,
/// for a 2025-11-25 client that asked for a task; answered with the task.
pub(crate) async fn keep_answered(
    gateway: &Gateway,
    place: &Place,
    owner: &OwnerId,
    spec: &ServerSpec,
    tool: &str,
    result: CallToolResult,
) -> Result<CallToolResponse, ErrorData> {
    let task = gateway
        .tasks
        .keep_answered(owner, spec, tool, result, TaskOrigin::Gateway, place.link())
        .await
        .map_err(GatewayError::from)?;
    Ok(CallToolResponse::Task(wire::created(&task)))
}

/// `tasks/get`: the task as it is now, its outcome inlined once it has ended.
pub(crate) async fn get(
    handler: &GatewayHandler,
    params: GetTaskParams,
    context: RequestContext<RoleServer>,
) -> Result<GetTaskResult, ErrorData> {
    let task = bound(handler, &context, &params.task_id).await?;
    Ok(GetTaskResult::new(wire::detailed(&task)))
}

/// `tasks/cancel`: a task running here stops at once, a server's task is cancelled on its
/// server by its poller; one that has ended stays as it ended.
pub(crate) async fn cancel(
    handler: &GatewayHandler,
    params: CancelTaskParams,
    context: RequestContext<RoleServer>,
) -> Result<(), ErrorData> {
    let task = bound(handler, &context, &params.task_id).await?;
    handler
        .gateway
        .tasks
        .cancel(&task.owner, &task.id)
        .await
        .map_err(GatewayError::from)?;
    Ok(())
}

/// `tasks/update`: no task takes input through the gateway yet (see the module docs).
pub(crate) async fn update(
    handler: &GatewayHandler,
    params: UpdateTaskParams,
    context: RequestContext<RoleServer>,
) -> Result<(), ErrorData> {
    let task = bound(handler, &context, &params.task_id).await?;
    Err(GatewayError::TaskTakesNoInput(task.id).into())
}

/// Task `id` of the caller's, when it was started through the view the request comes
/// through; else not found.
pub(crate) async fn bound(
    handler: &GatewayHandler,
    context: &RequestContext<RoleServer>,
    id: &str,
) -> Result<StoredTask, ErrorData> {
    let scope = handler.scope(context)?;
    let view_id = view_of(&handler.gateway, &scope).await?.map(|view| view.id);
    let not_found = || ErrorData::from(GatewayError::TaskNotFound(id.to_owned()));
    let task = match handler.gateway.tasks.task(&scope.user.id, id).await {
        Ok(task) => task,
        Err(StoreError::NotFound { .. }) => return Err(not_found()),
        Err(error) => return Err(GatewayError::Store(error).into()),
    };
    if task.origin != TaskOrigin::Gateway || task.view_id != view_id {
        return Err(not_found());
    }
    Ok(task)
}

/// The view `scope` is limited to, if any.
async fn view_of(gateway: &Gateway, scope: &Scope) -> Result<Option<StoredView>, GatewayError> {
    let Some(name) = &scope.view else {
        return Ok(None);
    };
    match gateway.store.view_by_name(&scope.user.id, name).await {
        Ok(view) => Ok(Some(view)),
        Err(StoreError::NotFound { .. }) => Err(GatewayError::ViewNotFound(name.clone())),
        Err(error) => Err(error.into()),
    }
}

//! The steps of a task of the 2026-07-28 extension `io.modelcontextprotocol/tasks`.
//!
//! The extension is declared per request, in `_meta["io.modelcontextprotocol/clientCapabilities"]`
//! (a server refuses `tasks/*` from a request that does not declare it, -32021), so every
//! request here carries the capabilities the call declares anyway (its requester's, else
//! ours) with the extension added ([`task_meta`]); rmcp's own `Peer::get_task` helpers send
//! none. A `tools/call` declaring it may be answered with the result or with a task, as the
//! server decides; `tasks/get` inlines a finished task's outcome and a waiting task's
//! questions, answered by `tasks/update`; `tasks/cancel` is an empty acknowledgement, the
//! state read again after it.
//!
//! A plain call (which does not declare the extension) of a tool the server runs only as a
//! task is refused with -32021 naming the extension ([`wants_the_extension`]).

use rmcp::model::{
    CancelTaskParams, CancelTaskRequest, ClientCapabilities, ClientRequest, GetTaskParams,
    GetTaskRequest, InputResponses, JsonObject, RequestMetaObject, ServerResult,
    TASKS_EXTENSION_ID, UpdateTaskParams, UpdateTaskRequest,
};
use rmcp::service::PeerRequestOptions;
use tokio_util::sync::CancellationToken;

use crate::connection::{Answered, CallLimits, CallOptions, Connection};
use crate::error::McpError;
use crate::tasks::{Started, TaskState, extension};

/// JSON-RPC's "missing required client capability" (SEP-2575).
const MISSING_CAPABILITY: rmcp::model::ErrorCode = rmcp::model::ErrorCode(-32021);

impl Connection {
    /// Whether the server declared the extension (`capabilities.extensions`).
    pub(crate) fn runs_extension_tasks(&self) -> bool {
        self.details.capabilities.supports_tasks()
    }

    /// The capabilities a request about a task declares: `requests`' (a gateway client's),
    /// else ours, with the extension.
    pub(crate) fn task_capabilities(
        &self,
        requests: Option<&crate::Requester>,
    ) -> ClientCapabilities {
        let declared = requests
            .and_then(|requests| requests.client_capabilities())
            .unwrap_or_else(|| rmcp::ClientHandler::get_info(self.session.service()).capabilities);
        with_tasks(declared)
    }

    /// `tools/call` declaring the extension: the result, or the task the server made of it.
    /// Input-required rounds before the task (SEP-2322) are answered as for a plain call.
    pub(super) async fn start_extension_task(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        options: &CallOptions,
        limits: CallLimits,
    ) -> Result<Started, McpError> {
        match self
            .call_rounds(tool, arguments, options, limits, true)
            .await?
        {
            Answered::Result(result) => Ok(Started::Done(result)),
            Answered::Task(created) => extension::created(created.task)
                .map(Started::Task)
                .map_err(|unreadable| self.unreadable("tools/call", unreadable)),
        }
    }

    /// The task's state now (`tasks/get`), its outcome or questions inlined.
    pub(super) async fn get_extension_task(
        &self,
        tool: &str,
        upstream_id: &str,
        options: &CallOptions,
        limits: CallLimits,
    ) -> Result<TaskState, McpError> {
        let request =
            ClientRequest::GetTaskRequest(GetTaskRequest::new(GetTaskParams::new(upstream_id)));
        let polled = self
            .extension_request(
                tool,
                "tasks/get",
                request,
                options.requests.as_ref(),
                &options.cancel,
                limits,
            )
            .await?;
        match polled {
            ServerResult::GetTaskResult(polled) => extension::detailed(polled.task)
                .map_err(|unreadable| self.unreadable("tasks/get", unreadable)),
            other => Err(self.unexpected("tasks/get", &other)),
        }
    }

    /// Answers to the task's questions by key (`tasks/update`); acknowledged at once, taken
    /// in by the server eventually.
    pub(super) async fn update_extension_task(
        &self,
        tool: &str,
        upstream_id: &str,
        responses: InputResponses,
        limits: CallLimits,
    ) -> Result<(), McpError> {
        let request = ClientRequest::UpdateTaskRequest(UpdateTaskRequest::new(
            UpdateTaskParams::new(upstream_id, responses),
        ));
        let acked = self
            .extension_request(
                tool,
                "tasks/update",
                request,
                None,
                &CancellationToken::new(),
                limits,
            )
            .await?;
        self.acknowledged("tasks/update", &acked)
    }

    /// Asks the server to cancel the task (`tasks/cancel`), then reads its state.
    pub(super) async fn cancel_extension_task(
        &self,
        tool: &str,
        upstream_id: &str,
        limits: CallLimits,
    ) -> Result<TaskState, McpError> {
        let acked = self
            .extension_request(
                tool,
                "tasks/cancel",
                cancel_request(upstream_id),
                None,
                &CancellationToken::new(),
                limits,
            )
            .await?;
        self.acknowledged("tasks/cancel", &acked)?;
        self.get_extension_task(tool, upstream_id, &CallOptions::default(), limits)
            .await
    }

    /// One `tasks/*` request, the extension declared in its `_meta`; an unknown task id is
    /// [`McpError::TaskLost`].
    async fn extension_request(
        &self,
        tool: &str,
        method: &'static str,
        request: ClientRequest,
        requests: Option<&crate::Requester>,
        cancel: &CancellationToken,
        limits: CallLimits,
    ) -> Result<ServerResult, McpError> {
        let mut options = PeerRequestOptions::with_timeout(limits.idle);
        options.meta = Some(task_meta(self.task_capabilities(requests)));
        self.task_request(tool, method, request, options, cancel, false)
            .await
            .map_err(|error| self.lost_if_unknown(self.once_created(error, tool)))
    }

    fn acknowledged(&self, method: &str, answer: &ServerResult) -> Result<(), McpError> {
        match answer {
            ServerResult::TaskAckResult(_) | ServerResult::EmptyResult(_) => Ok(()),
            other => Err(McpError::Protocol {
                server: self.server.clone(),
                detail: format!(
                    "expected an acknowledgement of {method}, got {}",
                    crate::connection::result_kind(other)
                ),
            }),
        }
    }

    fn unreadable(&self, method: &str, unreadable: extension::Unreadable) -> McpError {
        McpError::Protocol {
            server: self.server.clone(),
            detail: format!(
                "{method} answered with a task that cannot be read: {}",
                unreadable.0
            ),
        }
    }
}

/// `capabilities` with the tasks extension declared.
pub(crate) fn with_tasks(mut capabilities: ClientCapabilities) -> ClientCapabilities {
    capabilities
        .extensions
        .get_or_insert_with(Default::default)
        .entry(TASKS_EXTENSION_ID.to_owned())
        .or_default();
    capabilities
}

/// The `_meta` of a request declaring `capabilities` (which rmcp lays over the session's own
/// request `_meta`).
pub(crate) fn task_meta(capabilities: ClientCapabilities) -> RequestMetaObject {
    let mut meta = RequestMetaObject::default();
    meta.set_client_capabilities(capabilities);
    meta
}

/// `tasks/cancel` for task `upstream_id`.
pub(super) fn cancel_request(upstream_id: &str) -> ClientRequest {
    ClientRequest::CancelTaskRequest(CancelTaskRequest::new(CancelTaskParams::new(upstream_id)))
}

/// Whether `error` is a server's refusal of a plain call for want of the tasks extension
/// (-32021 naming it, or naming nothing).
pub(crate) fn wants_the_extension(error: &McpError) -> bool {
    let McpError::Server { error, .. } = error else {
        return false;
    };
    if error.code != MISSING_CAPABILITY {
        return false;
    }
    match error
        .data
        .as_ref()
        .and_then(|data| data.get("requiredCapabilities"))
    {
        Some(required) => required
            .get("extensions")
            .and_then(|extensions| extensions.get(TASKS_EXTENSION_ID))
            .is_some(),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use rmcp::ErrorData;
    use serde_json::json;

    use super::*;

    #[test]
    fn the_meta_declares_the_extension_beside_the_callers_capabilities() {
        let caller: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {}})).unwrap();
        let meta = task_meta(with_tasks(caller));
        let declared = meta.client_capabilities().expect("capabilities in _meta");
        assert!(declared.supports_tasks(), "{declared:?}");
        assert!(declared.elicitation.is_some(), "{declared:?}");
        let wire = serde_json::to_value(&meta).unwrap();
        assert_eq!(
            wire["io.modelcontextprotocol/clientCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
            json!({})
        );
    }

    #[test]
    fn settings_of_an_extension_already_declared_are_kept() {
        let caller: ClientCapabilities = serde_json::from_value(json!({"extensions": {
            "io.modelcontextprotocol/tasks": {"x": 1},
            "io.modelcontextprotocol/ui": {},
        }}))
        .unwrap();
        let declared = with_tasks(caller);
        let extensions = declared.extensions.expect("extensions");
        assert_eq!(extensions[TASKS_EXTENSION_ID]["x"], json!(1));
        assert!(extensions.contains_key("io.modelcontextprotocol/ui"));
    }

    #[test]
    fn a_refusal_for_want_of_the_extension_is_told_from_other_missing_capabilities() {
        let refused = |data| McpError::Server {
            server: "s".into(),
            error: ErrorData::new(MISSING_CAPABILITY, "needs more", data),
        };
        let tasks = json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION_ID: {}}}});
        assert!(wants_the_extension(&refused(Some(tasks))));
        assert!(wants_the_extension(&refused(None)));
        let sampling = json!({"requiredCapabilities": {"sampling": {}}});
        assert!(!wants_the_extension(&refused(Some(sampling))));
        let other = McpError::Server {
            server: "s".into(),
            error: ErrorData::invalid_params("no", None),
        };
        assert!(!wants_the_extension(&other));
    }
}

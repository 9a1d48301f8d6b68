//! The tasks tests' client: a real rmcp client of the 2026-07-28 revision (no session, its
//! capabilities in every request's `_meta`) that declares the tasks extension or not, the
//! servers it calls through the gateway, and a wait on the tasks' announcements.

#![allow(dead_code, clippy::unwrap_used)]

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    CreateTaskResult, DetailedTask, GetTaskParams, Implementation, InputResponses, ProtocolVersion,
    UpdateTaskParams,
};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceError};
use serde_json::Value;
use switchboard_agent::{AgentEvent, OwnedEvent};
use switchboard_core::ServerSpec;
use switchboard_store::User;
use switchboard_testkit::{Peers, PyGen, StdioCommand};
use tokio::sync::broadcast;

use crate::tools_support::World;

/// The client's handler: it only says what it declares.
#[derive(Clone)]
pub struct Declaring {
    tasks: bool,
}

impl ClientHandler for Declaring {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.tasks {
            ClientCapabilities::builder().enable_tasks().build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(capabilities, Implementation::new("tasks-test", "1.0"))
            .with_protocol_version(ProtocolVersion::V_2026_07_28)
    }
}

pub struct TaskClient {
    pub service: RunningService<RoleClient, Declaring>,
}

impl TaskClient {
    /// A client of `url`; `tasks`: it declares the tasks extension.
    pub async fn connect(url: &str, tasks: bool) -> TaskClient {
        let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
        let service = Declaring { tasks }
            .serve_with_lifecycle(
                transport,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .unwrap();
        TaskClient { service }
    }

    /// Calls `name` once: the result, or the task the gateway made of the call.
    pub async fn call(&self, name: &str, arguments: Value) -> CallToolResponse {
        let mut params = CallToolRequestParams::new(name.to_owned());
        params.arguments = arguments.as_object().cloned();
        self.service.call_tool_once(params).await.unwrap()
    }

    /// Calls `name`, which must become a task.
    pub async fn start(&self, name: &str, arguments: Value) -> CreateTaskResult {
        match self.call(name, arguments).await {
            CallToolResponse::Task(task) => task,
            other => panic!("a task expected, got {other:?}"),
        }
    }

    pub async fn get(&self, id: &str) -> Result<DetailedTask, ServiceError> {
        Ok(self.service.get_task(GetTaskParams::new(id)).await?.task)
    }

    pub async fn cancel(&self, id: &str) -> Result<(), ServiceError> {
        self.service.cancel_task(CancelTaskParams::new(id)).await
    }

    pub async fn update(&self, id: &str) -> Result<(), ServiceError> {
        self.service
            .update_task(UpdateTaskParams::new(id, InputResponses::new()))
            .await
    }

    /// Polls task `id` until it has ended, as a client would, waiting between polls for the
    /// task's next announcement rather than for a time.
    pub async fn ended(
        &self,
        events: &mut broadcast::Receiver<OwnedEvent>,
        id: &str,
    ) -> DetailedTask {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            let task = self.get(id).await.unwrap();
            if task.status().is_terminal() {
                return task;
            }
            loop {
                let event = tokio::time::timeout_at(deadline, events.recv())
                    .await
                    .expect("the task ends within a minute")
                    .unwrap();
                if let AgentEvent::TaskUpdated(update) = &event.event
                    && update.task_id == id
                {
                    break;
                }
            }
        }
    }
}

/// The JSON-RPC error code of a failed request.
pub fn code(error: &ServiceError) -> Option<i32> {
    match error {
        ServiceError::McpError(data) => Some(data.code.0),
        _ => None,
    }
}

/// Adds server-everything (stdio) for `user`, `auto` tools auto-approved.
pub async fn add_everything(world: &World, user: &User, auto: &[&str]) -> ServerSpec {
    world
        .add(user, "everything", Peers::locate().everything_stdio(), auto)
        .await
}

/// Adds the Python SDK 1.x server whose tools run only as tasks (`slow_task`, and the plain
/// `task_cancelled_count`), every tool auto-approved.
pub async fn add_tasks_peer(world: &World, user: &User) -> ServerSpec {
    let command = StdioCommand {
        program: Peers::locate()
            .python(PyGen::V1)
            .to_string_lossy()
            .into_owned(),
        args: vec![format!(
            "{}/../switchboard-mcp/tests/peers/tasks_server.py",
            env!("CARGO_MANIFEST_DIR")
        )],
        env: vec![("PYTHONDONTWRITEBYTECODE".into(), "1".into())],
    };
    world
        .add(
            user,
            "tasks",
            command,
            &["slow_task", "task_cancelled_count"],
        )
        .await
}

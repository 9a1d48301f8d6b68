//! The world of the tools tests: a SQLite store in a tempdir, a real connection manager and
//! tool-call service, MCP servers written by others (the Python SDK's FastMCP over stdio),
//! the gateway served by rmcp's Streamable HTTP server on 127.0.0.1:0 with the scope put in
//! each request's extensions (as the HTTP server does after authenticating), and a real rmcp
//! client that records the elicitations and progress it receives.

#![allow(dead_code, clippy::unwrap_used)]

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationCapability, Implementation,
    ProgressNotificationParam, ProtocolVersion, Tool,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{
    ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData, RoleClient, ServiceExt,
};
use switchboard_agent::tasks::{TaskConfig, Tasks};
use switchboard_agent::{EventBus, ToolCalls};
use switchboard_core::{OwnerId, ServerSpec};
use switchboard_gateway::{Gateway, GatewayConfig, GatewayDeps, Scope};
use switchboard_mcp::{ConnectionManager, ManagerConfig, ServerPool};
use switchboard_store::{Role, Store, StoreConfig, User};
use switchboard_testkit::{Peers, PyGen, StdioCommand};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// A FastMCP server (mcp 1.x) with one tool that has icons.
const ICON_SERVER: &str = r#"
from mcp.server.fastmcp import FastMCP
from mcp.types import Icon

mcp = FastMCP("icons")

@mcp.tool(icons=[Icon(src="data:image/png;base64,iVBORw0KGgo=", mimeType="image/png", sizes=["16x16"])])
def pictured(text: str) -> str:
    """A tool with an icon."""
    return text

mcp.run("stdio")
"#;

/// The task service over `tool_calls`, announcing on `events`, its watcher started.
pub fn start_tasks(
    tool_calls: &Arc<ToolCalls>,
    store: &Arc<dyn Store>,
    events: &EventBus,
) -> Tasks {
    let tasks = Tasks::new(
        Arc::clone(tool_calls),
        Arc::clone(store),
        events.clone(),
        "gateway-tests".to_owned(),
        TaskConfig::default(),
    );
    tasks.start();
    tasks
}

pub struct World {
    pub dir: tempfile::TempDir,
    pub store: Arc<dyn Store>,
    pub manager: Arc<ConnectionManager>,
    pub gateway: Arc<Gateway>,
    /// Where the gateway's tasks are announced (`task.updated`).
    pub events: EventBus,
    pub alice: User,
    pub bob: User,
    servers: Vec<CancellationToken>,
}

impl Drop for World {
    fn drop(&mut self) {
        for server in &self.servers {
            server.cancel();
        }
    }
}

impl World {
    pub async fn new(config: GatewayConfig) -> World {
        let dir = tempfile::tempdir().unwrap();
        let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
            .await
            .unwrap();
        let alice = store
            .ensure_user(&OwnerId::local(), "alice", Role::Admin)
            .await
            .unwrap();
        let bob = store.create_user("bob", Role::Admin).await.unwrap();
        let manager = Arc::new(ConnectionManager::new(ManagerConfig::default()));
        let pool: Arc<dyn ServerPool> = manager.clone();
        let tool_calls = Arc::new(ToolCalls::new(
            manager.clone(),
            Arc::clone(&store),
            pool.config().retry.clone(),
        ));
        let events = EventBus::default();
        let tasks = start_tasks(&tool_calls, &store, &events);
        let gateway = Gateway::new(
            GatewayDeps {
                search: Arc::new(switchboard_agent::search::ToolSearch::new(None)),
                store: Arc::clone(&store),
                servers: pool,
                tool_calls,
                tasks,
            },
            config,
        );
        World {
            dir,
            store,
            manager,
            gateway,
            events,
            alice,
            bob,
            servers: Vec::new(),
        }
    }

    /// Stores a stdio server of `user`'s, `auto` tools auto-approved; returns it as stored.
    pub async fn add(
        &self,
        user: &User,
        name: &str,
        command: StdioCommand,
        auto: &[&str],
    ) -> ServerSpec {
        let mut spec = ServerSpec::stdio(name, command.program, command.args);
        spec.env.extend(command.env);
        spec.auto_approved_tools = auto.iter().map(|t| (*t).to_owned()).collect();
        let stored = self.store.create_server(&user.id, &spec).await.unwrap();
        self.store
            .connection_spec(&user.id, &stored.spec.id)
            .await
            .unwrap()
    }

    /// The Python SDK's test peer (echo, add, long_task, slow, cancelled_count, ...).
    pub async fn add_py(&self, user: &User, name: &str, auto: &[&str]) -> ServerSpec {
        self.add(user, name, Peers::locate().python_stdio(PyGen::V1), auto)
            .await
    }

    /// A FastMCP server whose tool `pictured` has an icon.
    pub async fn add_icons(&self, user: &User) -> ServerSpec {
        let script = self.dir.path().join("icon_server.py");
        std::fs::write(&script, ICON_SERVER).unwrap();
        let command = StdioCommand {
            program: Peers::locate()
                .python(PyGen::V1)
                .to_string_lossy()
                .into_owned(),
            args: vec![script.to_string_lossy().into_owned()],
            env: vec![("PYTHONDONTWRITEBYTECODE".into(), "1".into())],
        };
        self.add(user, "icons", command, &["pictured"]).await
    }

    /// Changes a stored server of `user`'s.
    pub async fn edit(&self, user: &User, spec: &ServerSpec, edit: impl Fn(&mut ServerSpec)) {
        let mut changed = self
            .store
            .connection_spec(&user.id, &spec.id)
            .await
            .unwrap();
        edit(&mut changed);
        self.store
            .update_server(&user.id, &spec.id, &changed)
            .await
            .unwrap();
    }

    /// The gateway at `http://127.0.0.1:PORT/mcp`, every request acting for `user`.
    pub async fn serve(&mut self, user: &User) -> String {
        self.serve_scope(Scope {
            user: user.clone(),
            view: None,
        })
        .await
    }

    /// The gateway with every request acting for `user` through their view `view`.
    pub async fn serve_view(&mut self, user: &User, view: &str) -> String {
        self.serve_scope(Scope {
            user: user.clone(),
            view: Some(view.to_owned()),
        })
        .await
    }

    async fn serve_scope(&mut self, scope: Scope) -> String {
        let gateway = Arc::clone(&self.gateway);
        let mut config = StreamableHttpServerConfig::default();
        let ct = CancellationToken::new();
        config.cancellation_token = ct.clone();
        let service = StreamableHttpService::new(
            move || Ok(gateway.handler(None)),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let router = axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::Extension(scope));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let stop = ct.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(stop.cancelled_owned())
                .await;
        });
        self.servers.push(ct);
        format!("http://{address}/mcp")
    }
}

/// How the test client answers an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Approve,
    /// Accepts with `approve: false`.
    Disapprove,
    Decline,
}

/// What the client saw.
#[derive(Debug, Default)]
pub struct Seen {
    pub elicitations: Mutex<Vec<String>>,
}

#[derive(Clone)]
pub struct TestClient {
    /// `None`: the client does not declare elicitation.
    answer: Option<Arc<Mutex<Answer>>>,
    version: ProtocolVersion,
    pub seen: Arc<Seen>,
    progress: mpsc::UnboundedSender<ProgressNotificationParam>,
}

impl ClientHandler for TestClient {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.answer.is_some() {
            capabilities.elicitation = Some(ElicitationCapability::default());
        }
        ClientConfig::new(capabilities, Implementation::new("tools-test", "1.0"))
            .with_protocol_version(self.version.clone())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams { message, .. } = &request else {
            return Err(ErrorData::invalid_params("form elicitation expected", None));
        };
        self.seen.elicitations.lock().unwrap().push(message.clone());
        let answer = self
            .answer
            .as_ref()
            .map(|a| *a.lock().unwrap())
            .ok_or_else(|| ErrorData::invalid_request("no elicitation", None))?;
        Ok(match answer {
            Answer::Approve => ElicitResult::new(ElicitationAction::Accept)
                .with_content(serde_json::json!({"approve": true})),
            Answer::Disapprove => ElicitResult::new(ElicitationAction::Accept)
                .with_content(serde_json::json!({"approve": false})),
            Answer::Decline => ElicitResult::new(ElicitationAction::Decline),
        })
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.progress.send(params);
    }
}

pub struct Client {
    pub service: RunningService<RoleClient, TestClient>,
    pub seen: Arc<Seen>,
    pub answer: Option<Arc<Mutex<Answer>>>,
    pub progress: mpsc::UnboundedReceiver<ProgressNotificationParam>,
}

/// How the client talks to the gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revision {
    /// 2025-11-25: `initialize`, a session, server-to-client requests.
    Session,
    /// 2026-07-28: `server/discover`, no session, input-required results.
    Stateless,
}

impl Client {
    pub async fn connect(url: &str, answer: Option<Answer>, revision: Revision) -> Client {
        let (sender, progress) = mpsc::unbounded_channel();
        let answer = answer.map(|a| Arc::new(Mutex::new(a)));
        let handler = TestClient {
            answer: answer.clone(),
            version: match revision {
                Revision::Session => ProtocolVersion::V_2025_11_25,
                Revision::Stateless => ProtocolVersion::V_2026_07_28,
            },
            seen: Arc::default(),
            progress: sender,
        };
        let seen = Arc::clone(&handler.seen);
        let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
        let service = match revision {
            Revision::Session => handler.serve(transport).await.unwrap(),
            Revision::Stateless => handler
                .serve_with_lifecycle(
                    transport,
                    ClientLifecycleMode::Discover {
                        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                    },
                )
                .await
                .unwrap(),
        };
        Client {
            service,
            seen,
            answer,
            progress,
        }
    }

    pub fn set_answer(&self, answer: Answer) {
        *self.answer.as_ref().unwrap().lock().unwrap() = answer;
    }

    pub async fn tools(&self) -> Vec<Tool> {
        self.service.list_all_tools().await.unwrap()
    }

    pub async fn names(&self) -> Vec<String> {
        self.tools()
            .await
            .into_iter()
            .map(|t| t.name.into())
            .collect()
    }

    /// Calls `name`; `Err` is the JSON-RPC error.
    pub async fn call(
        &self,
        name: &str,
        arguments: serde_json::Value,
    ) -> Result<CallToolResult, rmcp::ServiceError> {
        let mut params = CallToolRequestParams::new(name.to_owned());
        params.arguments = arguments.as_object().cloned();
        self.service.call_tool(params).await
    }
}

/// The text of a result's first content block.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default()
}

/// The JSON-RPC error code of a failed call.
pub fn error_code(error: &rmcp::ServiceError) -> Option<i32> {
    match error {
        rmcp::ServiceError::McpError(data) => Some(data.code.0),
        _ => None,
    }
}

//! The world of the relay tests: a SQLite store in a tempdir, a real connection manager and
//! tool-call service, server-everything over stdio (it sends elicitation and sampling requests
//! to clients that declare them), the gateway served by rmcp's Streamable HTTP server on
//! 127.0.0.1:0 with the scope put in each request's extensions (as the HTTP server does after
//! authenticating), and a real rmcp client that answers what it declared and records it.

#![allow(dead_code, clippy::unwrap_used, deprecated)]

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientInfo,
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationCapability, Implementation, ProtocolVersion, SamplingCapability,
    SamplingMessage,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{
    ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData, RoleClient, ServiceExt,
};
use switchboard_agent::ToolCalls;
use switchboard_core::{OwnerId, ServerSpec};
use switchboard_gateway::{Gateway, GatewayConfig, GatewayDeps, Scope};
use switchboard_mcp::{ConnectionManager, ManagerConfig, ServerPool};
use switchboard_store::{Role, Store, StoreConfig, User};
use switchboard_testkit::Peers;
use tokio_util::sync::CancellationToken;

/// server-everything's tools that ask the client.
pub const ELICIT: &str = "mcp__everything__trigger-elicitation-request";
pub const SAMPLE: &str = "mcp__everything__trigger-sampling-request";

pub struct World {
    pub dir: tempfile::TempDir,
    pub store: Arc<dyn Store>,
    pub manager: Arc<ConnectionManager>,
    pub tool_calls: Arc<ToolCalls>,
    pub gateway: Arc<Gateway>,
    pub alice: User,
    pub everything: ServerSpec,
    stop: CancellationToken,
}

impl Drop for World {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl World {
    /// Alice with server-everything (its asking tools auto-approved), the gateway served.
    pub async fn new() -> (World, String) {
        let dir = tempfile::tempdir().unwrap();
        let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
            .await
            .unwrap();
        let alice = store
            .ensure_user(&OwnerId::local(), "alice", Role::Admin)
            .await
            .unwrap();
        let manager = Arc::new(ConnectionManager::new(ManagerConfig::default()));
        let pool: Arc<dyn ServerPool> = manager.clone();
        let tool_calls = Arc::new(ToolCalls::new(
            manager.clone(),
            Arc::clone(&store),
            pool.config().retry.clone(),
        ));
        let gateway = Gateway::new(
            GatewayDeps {
                search: Arc::new(switchboard_agent::search::ToolSearch::new(None)),
                store: Arc::clone(&store),
                servers: pool,
                tool_calls: Arc::clone(&tool_calls),
                tasks: crate::tools_support::start_tasks(
                    &tool_calls,
                    &store,
                    &switchboard_agent::EventBus::default(),
                ),
            },
            GatewayConfig::default(),
        );
        let command = Peers::locate().everything_stdio();
        let mut spec = ServerSpec::stdio("everything", command.program, command.args);
        spec.env.extend(command.env);
        spec.auto_approved_tools = ["trigger-elicitation-request", "trigger-sampling-request"]
            .iter()
            .map(|t| (*t).to_owned())
            .collect();
        let stored = store.create_server(&alice.id, &spec).await.unwrap();
        let everything = store
            .connection_spec(&alice.id, &stored.spec.id)
            .await
            .unwrap();
        let stop = CancellationToken::new();
        let url = serve(&gateway, &alice, stop.clone()).await;
        (
            World {
                dir,
                store,
                manager,
                tool_calls,
                gateway,
                alice,
                everything,
                stop,
            },
            url,
        )
    }
}

/// The gateway at `http://127.0.0.1:PORT/mcp`, every request acting for `user`.
async fn serve(gateway: &Arc<Gateway>, user: &User, stop: CancellationToken) -> String {
    let scope = Scope {
        user: user.clone(),
        view: None,
    };
    let gateway = Arc::clone(gateway);
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = stop.clone();
    let service = StreamableHttpService::new(
        move || Ok(gateway.handler(None)),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    // The tiny middleware: what the HTTP server's authentication does.
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::Extension(scope));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(stop.cancelled_owned())
            .await;
    });
    format!("http://{address}/mcp")
}

/// What the test client declares.
#[derive(Debug, Clone, Copy, Default)]
pub struct Declares {
    pub elicitation: bool,
    pub sampling: bool,
}

/// What the client was asked.
#[derive(Debug, Default)]
pub struct Seen {
    pub elicitations: Mutex<Vec<String>>,
    pub samplings: Mutex<Vec<String>>,
}

#[derive(Clone)]
pub struct TestClient {
    declares: Declares,
    version: ProtocolVersion,
    pub seen: Arc<Seen>,
}

/// The name the client gives when asked.
pub const NAME: &str = "Ada Lovelace";
/// What the client's "model" answers.
pub const REPLY: &str = "Sampled by the downstream client";

impl ClientHandler for TestClient {
    fn get_info(&self) -> ClientInfo {
        let mut capabilities = ClientCapabilities::default();
        if self.declares.elicitation {
            capabilities.elicitation = Some(ElicitationCapability::default());
        }
        if self.declares.sampling {
            capabilities.sampling = Some(SamplingCapability::default());
        }
        ClientInfo::new(capabilities, Implementation::new("relay-test", "1.0"))
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
        Ok(accept_name())
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.seen
            .samplings
            .lock()
            .unwrap()
            .push(serde_json::to_string(&params.messages).unwrap());
        Ok(sampled())
    }
}

pub fn accept_name() -> ElicitResult {
    ElicitResult::new(ElicitationAction::Accept).with_content(serde_json::json!({"name": NAME}))
}

pub fn sampled() -> CreateMessageResult {
    CreateMessageResult::new(
        SamplingMessage::assistant_text(REPLY),
        "test-model".to_owned(),
    )
    .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN)
}

pub struct Client {
    pub service: RunningService<RoleClient, TestClient>,
    pub seen: Arc<Seen>,
}

impl Client {
    /// A 2025-11-25 client with a session.
    pub async fn session(url: &str, declares: Declares) -> Client {
        Self::connect(url, declares, false).await
    }

    /// A stateless 2026-07-28 client.
    pub async fn stateless(url: &str, declares: Declares) -> Client {
        Self::connect(url, declares, true).await
    }

    async fn connect(url: &str, declares: Declares, stateless: bool) -> Client {
        let handler = TestClient {
            declares,
            version: if stateless {
                ProtocolVersion::V_2026_07_28
            } else {
                ProtocolVersion::V_2025_11_25
            },
            seen: Arc::default(),
        };
        let seen = Arc::clone(&handler.seen);
        let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
        let service = if stateless {
            handler
                .serve_with_lifecycle(
                    transport,
                    ClientLifecycleMode::Discover {
                        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                    },
                )
                .await
                .unwrap()
        } else {
            handler.serve(transport).await.unwrap()
        };
        Client { service, seen }
    }

    /// One `tools/call`, input-required results returned as they come.
    pub async fn call_once(
        &self,
        params: CallToolRequestParams,
    ) -> Result<CallToolResponse, rmcp::ServiceError> {
        self.service.call_tool_once(params).await
    }
}

/// Every text block of a result, joined.
pub fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

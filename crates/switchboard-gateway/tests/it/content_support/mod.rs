//! The gateway behind rmcp's Streamable HTTP server on 127.0.0.1:0, with a SQLite store in a
//! temporary directory, server-everything from the test peers as the upstream, and real rmcp
//! clients. The path names the scope, as the HTTP server's authentication would:
//! `/{user}` or `/{user}/v/{view}`.

#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientConfig, ResourceUpdatedNotificationParam};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use switchboard_agent::ToolCalls;
use switchboard_core::ServerSpec;
use switchboard_gateway::{Gateway, GatewayConfig, GatewayDeps, Scope};
use switchboard_mcp::{ConnectionManager, ManagerConfig, RetryPolicy, ServerPool, ToolBackend};
use switchboard_store::{Role, Store, StoreConfig, User};
use switchboard_testkit::Peers;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How long any one expected event may take (a guard against hanging, not an assertion).
pub const PATIENCE: Duration = Duration::from_secs(60);

pub struct Harness {
    pub gateway: Arc<Gateway>,
    pub store: Arc<dyn Store>,
    pub pool: Arc<ConnectionManager>,
    pub base: String,
    pub alice: User,
    pub bob: User,
    stop: CancellationToken,
    _dir: tempfile::TempDir,
}

impl Drop for Harness {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// server-everything over stdio, as a stored server named `everything`.
pub fn everything() -> ServerSpec {
    let command = Peers::locate().everything_stdio();
    let mut spec = ServerSpec::stdio("everything", command.program.clone(), command.args.clone());
    for (key, value) in &command.env {
        spec.env.insert(key.clone(), value.clone());
    }
    spec
}

impl Harness {
    /// Alice with server-everything, Bob with no server.
    pub async fn start() -> Harness {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
            .await
            .expect("store");
        let alice = store
            .create_user("alice", Role::Member)
            .await
            .expect("alice");
        let bob = store.create_user("bob", Role::Member).await.expect("bob");
        store
            .create_server(&alice.id, &everything())
            .await
            .expect("alice's server");
        let pool = Arc::new(ConnectionManager::new(ManagerConfig::default()));
        let tool_calls = Arc::new(ToolCalls::new(
            Arc::clone(&pool) as Arc<dyn ToolBackend>,
            Arc::clone(&store),
            RetryPolicy::default(),
        ));
        let gateway = Gateway::new(
            GatewayDeps {
                search: Arc::new(switchboard_agent::search::ToolSearch::new(None)),
                store: Arc::clone(&store),
                servers: Arc::clone(&pool) as Arc<dyn ServerPool>,
                tasks: crate::tools_support::start_tasks(
                    &tool_calls,
                    &store,
                    &switchboard_agent::EventBus::default(),
                ),
                tool_calls,
            },
            GatewayConfig::default(),
        );
        let stop = CancellationToken::new();
        let base = serve(
            Arc::clone(&gateway),
            &[alice.clone(), bob.clone()],
            stop.clone(),
        )
        .await;
        Harness {
            gateway,
            store,
            pool,
            base,
            alice,
            bob,
            stop,
            _dir: dir,
        }
    }

    /// A 2025-11-25 session of `user` (through `view`, if any) recording what it hears.
    pub async fn client(&self, user: &User, view: Option<&str>) -> Client {
        let url = match view {
            Some(view) => format!("{}/{}/v/{view}", self.base, user.name),
            None => format!("{}/{}", self.base, user.name),
        };
        let (heard, inbox) = mpsc::unbounded_channel();
        let transport = StreamableHttpClientTransport::from_uri(url);
        let session = Recorder { heard }
            .serve(transport)
            .await
            .expect("client session");
        Client { session, inbox }
    }
}

async fn serve(gateway: Arc<Gateway>, users: &[User], stop: CancellationToken) -> String {
    let service = StreamableHttpService::new(
        move || Ok(gateway.handler(None)),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token()),
    );
    let users: Arc<HashMap<String, User>> = Arc::new(
        users
            .iter()
            .map(|user| (user.name.clone(), user.clone()))
            .collect(),
    );
    let app = axum::Router::new()
        .fallback_service(service)
        .layer(axum::middleware::from_fn(
            move |mut request: axum::extract::Request, next: axum::middleware::Next| {
                let users = Arc::clone(&users);
                async move {
                    let parts: Vec<String> = request
                        .uri()
                        .path()
                        .split('/')
                        .filter(|part| !part.is_empty())
                        .map(str::to_owned)
                        .collect();
                    if let Some(user) = parts.first().and_then(|name| users.get(name)) {
                        let view = (parts.get(1).map(String::as_str) == Some("v"))
                            .then(|| parts.get(2).cloned())
                            .flatten();
                        request.extensions_mut().insert(Scope {
                            user: user.clone(),
                            view,
                        });
                    }
                    next.run(request).await
                }
            },
        ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("listener");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app)
            .with_graceful_shutdown(stop.cancelled_owned())
            .await;
    });
    format!("http://{address}")
}

/// A notification a client heard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    Tools,
    Resources,
    Prompts,
    Updated(String),
}

#[derive(Clone)]
pub struct Recorder {
    heard: mpsc::UnboundedSender<Heard>,
}

impl ClientHandler for Recorder {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default()
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.heard.send(Heard::Tools);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.heard.send(Heard::Resources);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.heard.send(Heard::Prompts);
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.heard.send(Heard::Updated(params.uri));
    }
}

pub struct Client {
    pub session: RunningService<RoleClient, Recorder>,
    pub inbox: mpsc::UnboundedReceiver<Heard>,
}

impl Client {
    /// The next notification heard.
    pub async fn next(&mut self) -> Heard {
        tokio::time::timeout(PATIENCE, self.inbox.recv())
            .await
            .expect("a notification in time")
            .expect("the client is still running")
    }

    /// Skips notifications until one matches.
    pub async fn until(&mut self, wanted: impl Fn(&Heard) -> bool) -> Heard {
        loop {
            let heard = self.next().await;
            if wanted(&heard) {
                return heard;
            }
        }
    }
}

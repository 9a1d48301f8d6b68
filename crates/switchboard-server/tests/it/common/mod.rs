//! The test API: the real router on a real socket, a store in a temporary directory, an admin
//! and a member with tokens.

#![allow(dead_code, clippy::unwrap_used)]

pub mod chat;
pub mod node;
pub mod sse;

use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use switchboard_app::limits::Limits;
use switchboard_app::{App, AppConfig, Rules};
use switchboard_mcp::{ConnectionManager, ManagerConfig, RetryPolicy};
use switchboard_server::{AppState, AuthMode, ServerConfig};
use switchboard_store::{Role, StoreConfig};
use switchboard_testkit::Peers;

pub struct Api {
    pub base: String,
    pub admin: String,
    pub member: String,
    pub client: reqwest::Client,
    _shutdown: tokio::sync::oneshot::Sender<()>,
    _dir: tempfile::TempDir,
    pub manager: Arc<ConnectionManager>,
    /// The router over the nodes and the local manager (tests wait on its nodes' states).
    pub router: Arc<switchboard_grpc::Router>,
    /// The application behind the API.
    pub app: Arc<App>,
    /// The store behind the API, for setting up what a seed's API cannot.
    pub store: Arc<dyn switchboard_store::Store>,
}

/// What a test starts the API with: the HTTP side's settings and the application's. The
/// connection policy is the production one (members run only what `rules` allows).
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub server: ServerConfig,
    pub limits: Limits,
    /// What members may run and reach (`single_user` is set by [`start_as`]).
    pub rules: Rules,
    pub env_provider: Option<switchboard_agent::EnvProvider>,
    /// The ports of 127.0.0.1 looked at for model servers.
    pub local_ports: switchboard_app::config::LocalPorts,
    /// The connection manager's settings, when not [`manager_config`]'s.
    pub manager: Option<ManagerConfig>,
}

pub async fn start() -> Api {
    start_with(Config::default()).await
}

pub async fn start_with(config: Config) -> Api {
    start_as(config, false).await
}

/// The API with `config`; in single-user mode when `single_user` (every request acts as the
/// admin, no token needed).
/// The connection manager's defaults, but seed 002's retries without their 1 s, 2 s, 4 s
/// waits: they still happen, and a test of an unreachable server answers at once instead of
/// 7 s later.
pub fn manager_config() -> ManagerConfig {
    ManagerConfig {
        retry: RetryPolicy {
            initial_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(1),
            ..RetryPolicy::default()
        },
        ..ManagerConfig::default()
    }
}

pub async fn start_as(config: Config, single_user: bool) -> Api {
    start_full(config, single_user, Vec::new()).await
}

/// The API with servers reached through a router over `nodes` and the local
/// manager.
pub async fn start_with_nodes(nodes: Vec<switchboard_grpc::NodeConfig>) -> Api {
    start_full(Config::default(), false, nodes).await
}

async fn start_full(
    config: Config,
    single_user: bool,
    nodes: Vec<switchboard_grpc::NodeConfig>,
) -> Api {
    let dir = tempfile::tempdir().unwrap();
    let Config {
        server: mut server_config,
        limits,
        mut rules,
        env_provider,
        local_ports,
        manager,
    } = config;
    rules.single_user = single_user;
    let app_config = AppConfig {
        manager: manager.unwrap_or_else(manager_config),
        nodes,
        rules,
        limits: limits.clone(),
        env_provider,
        local_ports,
        ..AppConfig::default()
    };
    let app = Arc::new(
        App::build(&StoreConfig::in_dir(dir.path()), app_config)
            .await
            .unwrap(),
    );
    let store = Arc::clone(&app.store);
    let admin = store.create_user("admin", Role::Admin).await.unwrap();
    let member = store.create_user("member", Role::Member).await.unwrap();
    let admin = store.issue_token(&admin.id, "t").await.unwrap().secret;
    let member = store.issue_token(&member.id, "t").await.unwrap().secret;
    let auth = if single_user {
        AuthMode::SingleUser(store.user_by_token(&admin).await.unwrap().unwrap().id)
    } else {
        AuthMode::Tokens
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    server_config.guard.listen = Some(address);
    let state = AppState::new(Arc::clone(&app), server_config, auth);
    let base = format!("http://{address}");
    let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        // The real server: its timeouts, connection cap and peer addresses.
        switchboard_server::serve(listener, switchboard_server::app(state), &limits, async {
            let _ = stopped.await;
        })
        .await
        .unwrap();
    });
    Api {
        base,
        admin,
        member,
        client: reqwest::Client::new(),
        _shutdown: shutdown,
        _dir: dir,
        manager: Arc::clone(&app.manager),
        router: Arc::clone(&app.router),
        app,
        store,
    }
}

impl Api {
    /// The directory of the store, for a second application on it (a restart).
    pub fn dir(&self) -> &std::path::Path {
        self._dir.path()
    }

    pub async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut request = self.client.request(method, format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }
}

pub fn everything() -> Value {
    let command = Peers::locate().everything_stdio();
    json!({
        "name": "Everything",
        "transport": "stdio",
        "command": command.program,
        "args": command.args,
        "env": command.env.into_iter().collect::<std::collections::BTreeMap<_, _>>(),
        "headers": {},
    })
}

pub fn assert_error(status: StatusCode, body: &Value, expected: StatusCode, code: &str) {
    assert_eq!(status, expected, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    assert!(
        body["timestamp"].as_str().is_some_and(|t| t.ends_with('Z')),
        "{body}"
    );
}

//! One Switchboard served on a store that outlives it, stopped as `serve` stops on SIGTERM
//! and started again on the same store: what the restart tests share.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::Value;
use switchboard_mcp::ConnectionManager;
use switchboard_server::{AppState, AuthMode, app};
use switchboard_store::Store;

/// One Switchboard on `store`, until `stop`ped.
pub struct Served {
    pub base: String,
    pub state: AppState,
    manager: Arc<ConnectionManager>,
    stop: tokio::sync::oneshot::Sender<()>,
    server: tokio::task::JoinHandle<()>,
}

pub async fn serve(store: &Arc<dyn Store>) -> Served {
    serve_with_nodes(store, Vec::new()).await
}

/// [`serve`], its servers with a `node` reached on `nodes`.
pub async fn serve_with_nodes(
    store: &Arc<dyn Store>,
    nodes: Vec<switchboard_grpc::NodeConfig>,
) -> Served {
    let config = switchboard_app::AppConfig {
        nodes,
        ..Default::default()
    };
    let application = Arc::new(switchboard_app::App::on_store(Arc::clone(store), config).unwrap());
    let manager = Arc::clone(&application.manager);
    let state = AppState::new(application, Default::default(), AuthMode::Tokens);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let router = app(state.clone());
    let server = tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
    });
    Served {
        base,
        state,
        manager,
        stop,
        server,
    }
}

impl Served {
    pub async fn send(
        &self,
        token: &str,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut request = reqwest::Client::new()
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// The event stream of `token`'s user (`GET /api/events`).
    pub async fn events(&self, token: &str) -> Events {
        let response = reqwest::Client::new()
            .get(format!("{}/api/events", self.base))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        Events {
            response,
            buffer: String::new(),
        }
    }

    /// Stops as `serve` does on SIGTERM: waits for people end, runs get their grace, the
    /// servers are ended.
    pub async fn stop(self) {
        self.state.agent.stop_waiting();
        self.state.events.close();
        let _ = self.stop.send(());
        self.server.await.unwrap();
        self.state.runs.shutdown(Duration::from_secs(5)).await;
        // Its tasks are left live in the store, for the next Switchboard to follow.
        self.state.tasks.shutdown().await;
        self.manager.shutdown().await;
    }
}

/// Server-sent events, read until one is as awaited.
pub struct Events {
    response: reqwest::Response,
    buffer: String,
}

impl Events {
    /// The data of the next event named `name` for which `wanted` holds.
    pub async fn until(&mut self, name: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let event = block.lines().find_map(|l| l.strip_prefix("event: "));
                let data = block.lines().find_map(|l| l.strip_prefix("data: "));
                if let (Some(event), Some(data)) = (event, data)
                    && event == name
                    && let Ok(data) = serde_json::from_str::<Value>(data)
                    && wanted(&data)
                {
                    return data;
                }
            }
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk())
                .await
                .unwrap_or_else(|_| {
                    panic!("no {name} event came; the stream had {:?}", self.buffer)
                })
                .unwrap()
                .expect("the stream stays open");
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}

/// An MCP node in this process, on loopback, serving until the sender is dropped; how a host
/// reaches it, named `name`.
pub async fn node(
    name: &str,
) -> (
    switchboard_grpc::NodeConfig,
    tokio::sync::oneshot::Sender<()>,
) {
    const TOKEN: &str = "testkit-node-token-0123";
    let node = switchboard_grpc::Node::bind(switchboard_grpc::NodeOptions {
        listen: "127.0.0.1:0".parse().unwrap(),
        token: TOKEN.into(),
        tls: None,
        allow_plaintext: false,
        launch: Default::default(),
        destinations: Default::default(),
        manager: Default::default(),
    })
    .await
    .unwrap();
    let config = switchboard_grpc::NodeConfig {
        name: name.to_owned(),
        url: format!("http://{}", node.local_addr()),
        token: TOKEN.into(),
        ca_pem: None,
        client_identity: None,
        allow_plaintext: false,
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(node.run(async move {
        let _ = stopped.await;
    }));
    (config, stop)
}

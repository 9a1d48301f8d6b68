//! Helpers of the router tests: policies that count or refuse, node settings, specs, waits.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use switchboard_core::{OwnerId, ServerSpec};
use switchboard_grpc::{NodeConfig, Router};
use switchboard_mcp::{
    Admission, ConnectPolicy, ConnectionManager, ManagerConfig, McpError, NodeState, StatusChange,
};
use tokio::sync::broadcast;

/// How long a test waits for something that should happen at once.
pub const BOUND: Duration = Duration::from_secs(20);

pub const TOKEN: &str = "node-token-for-tests";

/// Admits everyone as a member, counting the questions.
#[derive(Default)]
pub struct Counting(pub AtomicUsize);

impl Counting {
    pub fn asked(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

#[async_trait::async_trait]
impl ConnectPolicy for Counting {
    async fn admit(&self, _: &OwnerId, _: &ServerSpec) -> Result<Admission, McpError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(Admission {
            any_command: true,
            guard_destinations: false,
        })
    }
}

/// Refuses everyone, counting the questions.
#[derive(Default)]
pub struct Refusing(pub AtomicUsize);

#[async_trait::async_trait]
impl ConnectPolicy for Refusing {
    async fn admit(&self, _: &OwnerId, spec: &ServerSpec) -> Result<Admission, McpError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Err(McpError::Refused {
            server: spec.name.clone(),
            refusal: switchboard_core::Refusal::UnknownOwner {
                detail: "not for you".into(),
            },
        })
    }
}

pub fn manager_config() -> ManagerConfig {
    ManagerConfig {
        connect_timeout: Duration::from_secs(20),
        call_timeout: Duration::from_secs(20),
        shutdown_grace: Duration::from_millis(200),
        ..ManagerConfig::default()
    }
}

pub fn local() -> Arc<ConnectionManager> {
    init_tracing();
    Arc::new(ConnectionManager::new(manager_config()))
}

/// Logs to the test's captured output, filtered by `RUST_LOG`.
pub fn init_tracing() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
}

/// A plaintext node on loopback.
pub fn loopback_node(name: &str, port: u16) -> NodeConfig {
    NodeConfig {
        name: name.into(),
        url: format!("http://127.0.0.1:{port}"),
        token: TOKEN.into(),
        ca_pem: None,
        client_identity: None,
        allow_plaintext: false,
    }
}

pub fn owner() -> OwnerId {
    OwnerId("alice".into())
}

/// A spec that names `node` (its transport does not matter where nothing is reached).
pub fn remote_spec(name: &str, node: &str) -> ServerSpec {
    let mut spec = ServerSpec::http(name, "https://mcp.example.com/mcp", None);
    spec.node = Some(node.into());
    spec
}

/// Waits until the node `name` of `router` is in `state`.
pub async fn wait_for_state(router: &Router, name: &str, state: NodeState) {
    let node = router.node(name).expect("a configured node");
    let mut states = node.state_changes();
    tokio::time::timeout(BOUND, states.wait_for(|now| *now == state))
        .await
        .unwrap_or_else(|_| panic!("node `{name}` did not become {state:?}"))
        .expect("the node's state is followed");
}

/// Waits for the first status change that `wanted` accepts.
pub async fn wait_for_change(
    changes: &mut broadcast::Receiver<StatusChange>,
    wanted: impl Fn(&StatusChange) -> bool,
) -> StatusChange {
    tokio::time::timeout(BOUND, async {
        loop {
            match changes.recv().await {
                Ok(change) if wanted(&change) => return change,
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => panic!("status changes closed"),
            }
        }
    })
    .await
    .expect("the status change came")
}

/// A node serving on loopback in a runtime of its own, on its own thread, so that killing it
/// drops everything it had (tasks, sockets, stdio processes) at once, as a crash would.
pub struct TestNode {
    pub address: std::net::SocketAddr,
    kill: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TestNode {
    /// A plaintext node on 127.0.0.1:`port` (0: any free port) with [`TOKEN`].
    pub async fn start(port: u16) -> TestNode {
        Self::start_with(port, None).await
    }

    /// The same, serving TLS when `tls` is given.
    pub async fn start_with(port: u16, tls: Option<switchboard_grpc::ServerTls>) -> TestNode {
        let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
        let (kill, killed) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("the node's runtime");
            runtime.block_on(async move {
                let options = switchboard_grpc::NodeOptions {
                    listen: std::net::SocketAddr::from(([127, 0, 0, 1], port)),
                    token: TOKEN.into(),
                    tls,
                    allow_plaintext: false,
                    launch: Default::default(),
                    destinations: Default::default(),
                    manager: manager_config(),
                };
                let node = switchboard_grpc::Node::bind(options)
                    .await
                    .expect("the node binds");
                let _ = ready_tx.send(node.local_addr());
                tokio::select! {
                    served = node.run(std::future::pending()) => {
                        served.expect("the node serves");
                    }
                    _ = killed => {}
                }
            });
            // Dropping the runtime drops every task of the node, its connections with them.
            drop(runtime);
        });
        let address = ready_rx.await.expect("the node started");
        TestNode {
            address,
            kill: Some(kill),
            thread: Some(thread),
        }
    }

    pub fn port(&self) -> u16 {
        self.address.port()
    }

    /// Ends the node at once, without a graceful stop.
    pub async fn kill(mut self) {
        self.stop().await;
    }

    async fn stop(&mut self) {
        if let Some(kill) = self.kill.take() {
            let _ = kill.send(());
        }
        if let Some(thread) = self.thread.take() {
            tokio::task::spawn_blocking(move || thread.join())
                .await
                .expect("joined")
                .expect("the node's thread ended cleanly");
        }
    }
}

impl Drop for TestNode {
    fn drop(&mut self) {
        if let Some(kill) = self.kill.take() {
            let _ = kill.send(());
        }
    }
}

/// A stdio server's spec from a peer's command.
pub fn stdio_spec(name: &str, command: &switchboard_testkit::StdioCommand) -> ServerSpec {
    let mut spec = ServerSpec::stdio(name, command.program.clone(), command.args.clone());
    for (key, value) in &command.env {
        spec.env.insert(key.clone(), value.clone());
    }
    spec
}

/// The same spec, run on `node`.
pub fn on_node(mut spec: ServerSpec, node: &str) -> ServerSpec {
    spec.node = Some(node.into());
    spec
}

pub fn args(value: serde_json::Value) -> Option<rmcp::model::JsonObject> {
    match value {
        serde_json::Value::Object(map) => Some(map),
        _ => None,
    }
}

/// The text of every text block of a result, joined.
pub fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect::<Vec<_>>()
        .join("")
}

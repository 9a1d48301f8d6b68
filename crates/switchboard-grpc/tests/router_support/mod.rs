//! Helpers of the router tests: policies that count or refuse, node settings, specs, waits.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use switchboard_core::{ErrorCode, OwnerId, ServerSpec};
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
            code: ErrorCode::Forbidden,
            reason: "not for you".into(),
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

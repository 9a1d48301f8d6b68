//! An MCP node in this process, on loopback, for the tests of servers that run on one.

use std::time::Duration;

use switchboard_core::{DestinationRules, LaunchRules};
use switchboard_grpc::{Node, NodeConfig, NodeOptions};
use switchboard_mcp::{ConnectionManager, ManagerConfig};
use tokio::sync::oneshot;

/// The name the host knows the node by.
pub const NODE: &str = "edge";
const NODE_TOKEN: &str = "node-test-token-0123";

/// A node serving on a task of this test; stops when dropped.
pub struct RunningNode {
    /// How the host reaches it.
    pub config: NodeConfig,
    /// The node's own pool.
    pub manager: ConnectionManager,
    _stop: oneshot::Sender<()>,
}

pub async fn start_node() -> RunningNode {
    let node = Node::bind(NodeOptions {
        listen: "127.0.0.1:0".parse().unwrap(),
        token: NODE_TOKEN.into(),
        tls: None,
        allow_plaintext: false,
        launch: LaunchRules::default(),
        destinations: DestinationRules::default(),
        manager: ManagerConfig {
            connect_timeout: Duration::from_secs(20),
            shutdown_grace: Duration::from_millis(200),
            ..ManagerConfig::default()
        },
    })
    .await
    .unwrap();
    let config = NodeConfig {
        name: NODE.into(),
        url: format!("http://{}", node.local_addr()),
        token: NODE_TOKEN.into(),
        ca_pem: None,
        client_identity: None,
        allow_plaintext: false,
    };
    let manager = node.manager();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(node.run(async move {
        let _ = stopped.await;
    }));
    RunningNode {
        config,
        manager,
        _stop: stop,
    }
}

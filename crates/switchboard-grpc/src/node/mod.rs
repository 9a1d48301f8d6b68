//! The node: `switchboard node --listen ADDR` serves [`McpNode`](crate::pb::mcp_node_server)
//! over a [`ConnectionManager`](switchboard_mcp::ConnectionManager) of its own.
//!
//! OWNED BY HELPER "node" (issue 15): service.rs (the tonic service), auth.rs (the token,
//! constant time), tls.rs (rustls), policy.rs (the node's launch rules), this file (bind/run).

use std::net::SocketAddr;

use switchboard_core::{DestinationRules, LaunchRules};
use switchboard_mcp::ManagerConfig;

/// How a node runs.
pub struct NodeOptions {
    pub listen: SocketAddr,
    /// The shared token hosts must send (`authorization: Bearer …`).
    pub token: String,
    /// TLS; `None` serves plaintext, which is refused on a non-loopback address unless
    /// `allow_plaintext`.
    pub tls: Option<ServerTls>,
    pub allow_plaintext: bool,
    /// What a member's stdio server must fit on this node, whatever the host allowed.
    pub launch: LaunchRules,
    /// What a guarded remote server may reach besides public addresses.
    pub destinations: DestinationRules,
    pub manager: ManagerConfig,
}

/// The node's certificate and key (PEM), and the CA that client certificates must chain to
/// when hosts are required to present one.
pub struct ServerTls {
    pub cert_pem: Vec<u8>,
    pub key_pem: Vec<u8>,
    pub client_ca_pem: Option<Vec<u8>>,
}

/// Why a node could not start.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    #[error(
        "refusing to serve without TLS on {0}, which is not a loopback address: give a \
         certificate (--tls-cert, --tls-key) or, on a network you trust, --allow-plaintext"
    )]
    PlaintextRefused(SocketAddr),
    #[error("the node token is empty: set SWITCHBOARD_NODE_TOKEN or --token-file")]
    NoToken,
    #[error("cannot listen on {address}: {source}")]
    Bind {
        address: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("invalid TLS configuration: {0}")]
    Tls(String),
    #[error("the gRPC server failed: {0}")]
    Serve(String),
}

/// A node bound to its address, not yet serving.
pub struct Node {
    // fields: helper "node"
}

impl Node {
    /// Checks the options (token, TLS or loopback) and binds the listener.
    pub async fn bind(options: NodeOptions) -> Result<Node, NodeError> {
        let _ = options;
        unimplemented!("helper node")
    }

    /// The address it listens on (the port, when 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        unimplemented!("helper node")
    }

    /// Serves until `shutdown` completes, then ends every stdio server's process group.
    pub async fn run(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), NodeError> {
        let _ = shutdown;
        unimplemented!("helper node")
    }
}

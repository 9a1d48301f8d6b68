//! The node: `switchboard node --listen ADDR` serves [`McpNode`](crate::pb::mcp_node_server)
//! over a [`ConnectionManager`] of its own.
//!
//! [`service`] is the tonic service, [`auth`] the token (constant time), [`tls`] rustls,
//! [`policy`] the node's own launch rules; this file binds the listener (refusing an empty
//! token and plaintext off loopback) and runs the server until it is told to stop, then ends
//! every stdio server's process group.

mod auth;
mod call;
mod policy;
mod relay;
mod service;
mod sign_in;
mod specs;
mod tls;
mod tools;
mod watch;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use switchboard_core::{DestinationRules, LaunchRules};
use switchboard_mcp::{ConnectionManager, ManagerConfig};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;

use crate::pb::mcp_node_server::McpNodeServer;
use auth::TokenCheck;
use policy::NodePolicy;
use service::NodeService;

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
    listener: TcpListener,
    address: SocketAddr,
    server: Server,
    token: TokenCheck,
    manager: ConnectionManager,
}

/// The largest request a host may send (a spec with its arguments) and the largest answer
/// (a tool's result, a resource) the node sends.
const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;
/// Calls (HTTP/2 streams) one host connection may have open at once.
const MAX_STREAMS_PER_CONNECTION: u32 = 1024;
/// HTTP/2 pings find a host that vanished without closing its connection.
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(20);
const KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(10);
/// TCP keepalive on accepted connections, for the same reason below HTTP/2.
const TCP_KEEPALIVE: Duration = Duration::from_secs(60);
/// How long calls still running when the node is told to stop may take to finish before the
/// servers are closed under them.
const DRAIN: Duration = Duration::from_secs(5);
/// How long the server may take to close its connections once the servers are closed.
const CLOSE: Duration = Duration::from_secs(10);

impl Node {
    /// Checks the options (token, TLS or loopback) and binds the listener.
    pub async fn bind(options: NodeOptions) -> Result<Node, NodeError> {
        let NodeOptions {
            listen,
            token,
            tls,
            allow_plaintext,
            launch,
            destinations,
            manager,
        } = options;
        if token.trim().is_empty() {
            return Err(NodeError::NoToken);
        }
        if tls.is_none() && !allow_plaintext && !listen.ip().is_loopback() {
            return Err(NodeError::PlaintextRefused(listen));
        }
        let mut server = Server::builder()
            .tcp_nodelay(true)
            .tcp_keepalive(Some(TCP_KEEPALIVE))
            .http2_keepalive_interval(Some(KEEPALIVE_INTERVAL))
            .http2_keepalive_timeout(Some(KEEPALIVE_TIMEOUT))
            .max_concurrent_streams(MAX_STREAMS_PER_CONNECTION);
        if let Some(tls) = &tls {
            server = server
                .tls_config(tls::server_tls(tls))
                .map_err(|error| NodeError::Tls(error.to_string()))?;
        }
        let listener = TcpListener::bind(listen)
            .await
            .map_err(|source| NodeError::Bind {
                address: listen,
                source,
            })?;
        let address = listener.local_addr().map_err(|source| NodeError::Bind {
            address: listen,
            source,
        })?;
        let policy = Arc::new(NodePolicy::new(launch, destinations));
        let manager = ConnectionManager::with_policy(manager, policy);
        Ok(Node {
            listener,
            address,
            server,
            token: TokenCheck::new(&token),
            manager,
        })
    }

    /// The address it listens on (the port, when 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.address
    }

    /// The node's pool (a clone sharing its connections): its process groups, for tests and
    /// diagnostics.
    pub fn manager(&self) -> ConnectionManager {
        self.manager.clone()
    }

    /// Serves until `shutdown` completes, then ends every stdio server's process group.
    ///
    /// Once told to stop, the node accepts no new connection and ends `Watch` streams; calls
    /// still running get a few seconds to finish, then the servers are closed under them
    /// (they end as lost) and the connections close.
    pub async fn run(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), NodeError> {
        let Node {
            listener,
            mut server,
            token,
            manager,
            ..
        } = self;
        let stop = CancellationToken::new();
        let service = NodeService::new(manager.clone(), stop.clone());
        let service = McpNodeServer::new(service)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES);
        let service = tonic::service::interceptor::InterceptedService::new(service, token);
        let incoming = TcpIncoming::from(listener)
            .with_nodelay(Some(true))
            .with_keepalive(Some(TCP_KEEPALIVE));
        let stopping = stop.clone();
        let signal = async move {
            shutdown.await;
            stopping.cancel();
        };
        let serving = server
            .add_service(service)
            .serve_with_incoming_shutdown(incoming, signal);
        tokio::pin!(serving);
        let served = tokio::select! {
            served = &mut serving => served,
            () = async {
                stop.cancelled().await;
                tokio::time::sleep(DRAIN).await;
            } => {
                // Calls still running end as lost when their servers close; then the
                // connections can close.
                manager.shutdown().await;
                match tokio::time::timeout(CLOSE, &mut serving).await {
                    Ok(served) => served,
                    Err(_) => {
                        tracing::warn!("connections still open after the node stopped serving");
                        Ok(())
                    }
                }
            }
        };
        manager.shutdown().await;
        served.map_err(|error| NodeError::Serve(error.to_string()))
    }
}

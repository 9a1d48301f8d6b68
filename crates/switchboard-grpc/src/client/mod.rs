//! The host's side of one node: a tonic channel with the node's token and TLS, and a task that
//! follows the node's `Watch` stream (reconnecting with backoff) to know its servers' status
//! and its health.
//!
//! A [`NodeClient`] does what the local manager does for one server, over gRPC: the caller
//! (the [`Router`](crate::Router)) has already asked its policy and built the
//! [`ServerRef`](crate::pb::ServerRef) the node needs. Errors of the node's servers come back
//! as the same [`McpError`](switchboard_mcp::McpError)s they would have been locally; a node
//! that cannot be reached is [`McpError::NodeUnreachable`](switchboard_mcp::McpError).

mod call;
mod endpoint;
mod failure;
mod rpc;
mod watch;

use std::fmt;

use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::pb::mcp_node_client::McpNodeClient;
use crate::router::RouterError;
use endpoint::Bearer;
use watch::Watched;

/// One `[nodes.NAME]` of the settings file.
#[derive(Clone)]
pub struct NodeConfig {
    pub name: String,
    /// `https://host:port`, or `http://` for a node on a loopback address (or with
    /// `allow_plaintext`).
    pub url: String,
    pub token: String,
    /// The CA (PEM) that signed the node's certificate; the system roots are not used.
    pub ca_pem: Option<Vec<u8>>,
    /// A client certificate and key (PEM), for a node that requires one.
    pub client_identity: Option<(Vec<u8>, Vec<u8>)>,
    /// Accept an `http://` URL whose host is not a loopback address (`allow_plaintext` in
    /// the settings). Without it such a URL is refused when the router is built.
    pub allow_plaintext: bool,
}

impl fmt::Debug for NodeConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NodeConfig")
            .field("name", &self.name)
            .field("url", &endpoint::shown_url(&self.url))
            .field("token", &"***")
            .field("ca_pem", &self.ca_pem.is_some())
            .field("client_identity", &self.client_identity.is_some())
            .field("allow_plaintext", &self.allow_plaintext)
            .finish()
    }
}

type Rpc = McpNodeClient<InterceptedService<Channel, Bearer>>;

/// One node as the host reaches it: requests on one shared channel, and what the node's status
/// stream last said.
pub struct NodeClient {
    name: String,
    url: String,
    rpc: Rpc,
    watched: Watched,
}

impl fmt::Debug for NodeClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NodeClient")
            .field("name", &self.name)
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl NodeClient {
    /// Checks `config` (an `https://` URL with a CA, or `http://` to a loopback address unless
    /// plaintext is allowed; a token a header can carry) and makes the channel, which connects
    /// on first use. Must be called inside a Tokio runtime.
    pub fn new(config: &NodeConfig) -> Result<Self, RouterError> {
        let bearer = Bearer::new(config)?;
        let channel = endpoint::channel(config)?;
        let rpc = McpNodeClient::with_interceptor(channel, bearer)
            .max_decoding_message_size(endpoint::MAX_MESSAGE)
            .max_encoding_message_size(endpoint::MAX_MESSAGE);
        Ok(Self {
            name: config.name.clone(),
            url: endpoint::shown_url(&config.url),
            rpc,
            watched: Watched::default(),
        })
    }

    /// The node's name in the settings.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where it is reached (a password or query in the URL hidden).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A handle for one request: clones share the channel.
    fn rpc(&self) -> Rpc {
        self.rpc.clone()
    }
}

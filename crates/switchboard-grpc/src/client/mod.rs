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
mod questions;
mod rpc;
mod sign_in;
mod watch;
pub(crate) use watch::Heard;

use std::fmt;
use std::time::Duration;

use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::pb::mcp_node_client::McpNodeClient;
use crate::router::RouterError;
use endpoint::Bearer;
pub(crate) use sign_in::ThroughNode;
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
    timeouts: Timeouts,
}

/// How long the host waits for a node's answer, from the local manager's settings: a node runs
/// the same kind of work, so it gets as long as the work would locally, plus some slack for
/// the hop.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timeouts {
    /// A one-answer request (it may have to connect the server first, then make one request).
    pub(crate) unary: Duration,
    /// A tool call may go this long without an event (progress or its outcome)...
    pub(crate) call_idle: Duration,
    /// ...and never longer than this in all.
    pub(crate) call_ceiling: Duration,
}

/// What the hop to a node may add to a server's own timeouts.
const SLACK: Duration = Duration::from_secs(5);

impl Timeouts {
    pub(crate) fn from_config(config: &switchboard_mcp::ManagerConfig) -> Self {
        let connect = config.connect_timeout + SLACK;
        Self {
            unary: connect + config.call_timeout_ceiling,
            call_idle: connect + config.call_timeout,
            call_ceiling: connect + config.call_timeout_ceiling,
        }
    }
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
            timeouts: Timeouts::from_config(&switchboard_mcp::ManagerConfig::default()),
        })
    }

    /// Waits for the node as long as `config` (the local manager's) lets a server take.
    pub(crate) fn with_timeouts(mut self, config: &switchboard_mcp::ManagerConfig) -> Self {
        self.timeouts = Timeouts::from_config(config);
        self
    }

    /// A request with the deadline of a one-answer request.
    fn unary<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        request.set_timeout(self.timeouts.unary);
        request
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_gets_the_local_timeouts_plus_the_connect_and_some_slack() {
        let config = switchboard_mcp::ManagerConfig {
            connect_timeout: Duration::from_secs(10),
            call_timeout: Duration::from_secs(60),
            call_timeout_ceiling: Duration::from_secs(600),
            ..switchboard_mcp::ManagerConfig::default()
        };
        let timeouts = Timeouts::from_config(&config);
        assert_eq!(timeouts.unary, Duration::from_secs(615));
        assert_eq!(timeouts.call_idle, Duration::from_secs(75));
        assert_eq!(timeouts.call_ceiling, Duration::from_secs(615));
    }
}

//! The host's side of one node: a tonic channel with the node's token and TLS, and a task that
//! follows the node's `Watch` stream (reconnecting with backoff) to know its servers' status
//! and its health.
//!
//! OWNED BY HELPER "client" (issue 15).

use std::fmt;

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
            .field("url", &self.url)
            .field("token", &"***")
            .field("ca_pem", &self.ca_pem.is_some())
            .field("client_identity", &self.client_identity.is_some())
            .field("allow_plaintext", &self.allow_plaintext)
            .finish()
    }
}

/// One node as the host reaches it.
pub struct NodeClient {
    // fields: helper "client"
}

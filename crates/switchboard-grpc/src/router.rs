//! [`Router`]: a [`ServerPool`] that sends each server with a `node` to that node and every
//! other server to the local manager.
//!
//! OWNED BY HELPER "client" (issue 15).

use std::sync::Arc;

use switchboard_mcp::{ConnectPolicy, ConnectionManager};

use crate::client::NodeConfig;

/// Why the nodes of the settings cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RouterError {
    #[error("node `{node}`: {reason}")]
    Node { node: String, reason: String },
}

pub struct Router {
    // fields: helper "client"
}

impl Router {
    /// Routes to `nodes` and to `local`; `policy` is the host's, asked (and its answer cached
    /// briefly) for the admission sent with each spec. Starts following every node, so it must
    /// be called inside a Tokio runtime.
    pub fn new(
        local: Arc<ConnectionManager>,
        nodes: Vec<NodeConfig>,
        policy: Arc<dyn ConnectPolicy>,
    ) -> Result<Self, RouterError> {
        let _ = (local, nodes, policy);
        unimplemented!("helper client")
    }

    /// The local manager (stdio process groups of local servers, for tests).
    pub fn local(&self) -> &Arc<ConnectionManager> {
        unimplemented!("helper client")
    }
}

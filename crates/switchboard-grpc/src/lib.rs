//! MCP nodes over gRPC: seed 000's split of the MCP Host from the MCP Client.
//!
//! A node (`switchboard node`, [`node`]) runs MCP servers, above all stdio processes, on
//! another machine than the web tier: a [`ConnectionManager`](switchboard_mcp::ConnectionManager)
//! of its own behind the tonic service of `proto/switchboard/node/v1/node.proto`. It keeps no
//! database: the host sends the server's spec with every request.
//!
//! The host ([`client`], [`router`]) reaches each configured node with a token and TLS, follows
//! its servers' status, and routes each server with a `node` to it and the rest to a local
//! manager, behind the same [`ServerPool`](switchboard_mcp::ServerPool) the agent, the proxy and
//! the tool nodes already use.

pub mod client;
pub mod node;
pub mod router;
mod wire;

/// The generated protobuf types and the tonic client and server.
#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub mod pb {
    tonic::include_proto!("switchboard.node.v1");
}

pub use client::{NodeClient, NodeConfig};
pub use node::{Node, NodeError, NodeOptions, ServerTls};
pub use router::{Router, RouterError};

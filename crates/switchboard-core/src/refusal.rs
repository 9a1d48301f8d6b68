//! Why a server may not be saved, started or reached, as a type every layer matches on: the
//! admin's rules (launch templates, the destination guard, the configured nodes), a quota on
//! what one listing may load, or an owner that no longer exists. Carried by the MCP layer's error, worded per language by the
//! HTTP layer (a refused spawn reaches a zh-Hans user in Chinese), never parsed back from text.

use crate::ErrorCode;
use crate::launch::LaunchRefusal;

/// Why a server may not be started or reached.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// A member's stdio server fits none of the admin's launch templates.
    #[error("{0}")]
    Launch(LaunchRefusal),
    /// A member's stdio server fits none of the launch templates of the node it runs on.
    #[error("on this node, {0}")]
    LaunchOnNode(LaunchRefusal),
    /// A member's URL resolves to an address the destination guard refuses.
    #[error("{}", destination_reason(.host))]
    Destination { host: String },
    /// A tools listing is full: what it keeps, and how many servers it left out.
    #[error(
        "a tools listing keeps at most {tools} tools and {bytes} bytes of schemas; {left_out} \
         servers were left out"
    )]
    ListingFull {
        tools: usize,
        bytes: usize,
        left_out: usize,
    },
    /// One server's tools alone do not fit a listing.
    #[error("a tools listing keeps at most {tools} tools and {bytes} bytes of schemas")]
    ListingTooLarge { tools: usize, bytes: usize },
    /// A listing names more servers than it covers.
    #[error("a tools listing covers at most {max} servers; {left_out} servers were left out")]
    ListingServers { max: usize, left_out: usize },
    /// The server's owner could not be read.
    #[error("its owner could not be found: {detail}")]
    UnknownOwner { detail: String },
    /// A server's `node` that this host is not configured to reach; `known` names the
    /// configured ones (`-` when there are none).
    #[error("node `{node}` is not configured on this server (configured: {known})")]
    UnknownNode { node: String, known: String },
}

impl Refusal {
    /// The documented code of the refusal.
    pub fn code(&self) -> ErrorCode {
        match self {
            Refusal::Launch(_) | Refusal::LaunchOnNode(_) => ErrorCode::LaunchNotAllowed,
            Refusal::Destination { .. } => ErrorCode::DestinationNotAllowed,
            Refusal::ListingFull { .. }
            | Refusal::ListingTooLarge { .. }
            | Refusal::ListingServers { .. } => ErrorCode::QuotaExceeded,
            Refusal::UnknownOwner { .. } => ErrorCode::Forbidden,
            Refusal::UnknownNode { .. } => ErrorCode::ValidationError,
        }
    }
}

/// Why a member may not reach `host`, in English.
pub fn destination_reason(host: &str) -> String {
    format!(
        "members may not reach `{host}`: it is not a public address (an admin can allow it \
         with --allow-destination)"
    )
}

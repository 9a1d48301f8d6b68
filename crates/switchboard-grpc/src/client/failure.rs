//! What a failed gRPC request means for the host.
//!
//! A node answers the errors of its servers in band (`NodeError`, rebuilt by
//! [`wire::error_from_pb`](crate::wire::error_from_pb)); a gRPC status is about the node
//! itself: it cannot be reached, it refused this host, or the connection broke. Those are all
//! [`McpError::NodeUnreachable`] when the request never reached a server. A tool call whose
//! stream broke after it was opened is [`McpError::LostAfterSend`] instead (see `call.rs`).
//! The one other kind is a request the node could not read (a malformed request, or a method
//! an older node does not have): the same request would fail again, so it is a protocol error.

use std::error::Error as _;

use switchboard_mcp::McpError;
use tonic::{Code, Status};

/// What a request about the server `server` on `node` that failed with `status` means.
pub(crate) fn failed(node: &str, server: &str, status: &Status) -> McpError {
    match status.code() {
        Code::InvalidArgument
        | Code::Unimplemented
        | Code::FailedPrecondition
        | Code::OutOfRange
        | Code::NotFound
        | Code::AlreadyExists => McpError::Protocol {
            server: server.to_owned(),
            detail: format!(
                "node `{node}` could not take the request: {}",
                status.message()
            ),
        },
        _ => unreachable(node, status),
    }
}

/// The text of an unreachable node for a request that failed with `status`.
pub(crate) fn unreachable(node: &str, status: &Status) -> McpError {
    McpError::NodeUnreachable {
        node: node.to_owned(),
        detail: detail(status),
    }
}

/// Why `status` failed, in words: the token refused, or the status's message with its causes.
pub(crate) fn detail(status: &Status) -> String {
    match status.code() {
        Code::Unauthenticated => "the node refused this host's token".to_owned(),
        Code::PermissionDenied => format!("the node refused this host: {}", status.message()),
        _ => {
            let mut text = status.message().to_owned();
            let mut cause = status.source();
            while let Some(error) = cause {
                let more = error.to_string();
                if !more.is_empty() && !text.contains(&more) {
                    if !text.is_empty() {
                        text.push_str(": ");
                    }
                    text.push_str(&more);
                }
                cause = error.source();
            }
            if text.is_empty() {
                text = format!("gRPC status {:?}", status.code());
            }
            text
        }
    }
}

/// A reply the node sent that this host cannot read.
pub(crate) fn unreadable(server: &str, what: &str, error: &serde_json::Error) -> McpError {
    McpError::Protocol {
        server: server.to_owned(),
        detail: format!("the node sent {what} that could not be read: {error}"),
    }
}

/// A reply without its `oneof`, which a node of this protocol never sends.
pub(crate) fn empty_reply(server: &str, what: &str) -> McpError {
    McpError::Protocol {
        server: server.to_owned(),
        detail: format!("the node sent an empty answer to {what}"),
    }
}

//! What a failed gRPC request means for the host.
//!
//! A node answers the errors of its servers in band (`NodeError`, rebuilt by
//! [`wire::error_from_pb`](crate::wire::error_from_pb)); a gRPC status is about the node
//! itself: it cannot be reached, it refused this host, or the connection broke. Those are all
//! [`McpError::NodeUnreachable`] when the request never reached a server. A tool call is
//! [`McpError::LostAfterSend`] unless it provably never started ([`call_not_delivered`]): the
//! node starts the tool as soon as its handler returns, possibly before its answer's headers
//! reach this host.
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

/// What a tool call whose stream failed with `status` before its answer began means: never
/// delivered (so [`failed`]: safe to send again) only when that is certain; the call may be
/// running on the node otherwise.
pub(crate) fn call_failed(node: &str, server: &str, tool: &str, status: &Status) -> McpError {
    if call_not_delivered(status) {
        failed(node, server, status)
    } else {
        McpError::LostAfterSend {
            server: server.to_owned(),
            tool: tool.to_owned(),
        }
    }
}

/// Whether a call that failed with `status` certainly never reached the node's tool: the
/// connection could not be made (a TCP or TLS connect error is in its causes, hyper cancelled
/// the request unsent when its connection closed, the peer's TLS refused the session with an
/// alert, or the peer does not speak HTTP/2), the node
/// refused the stream (HTTP/2 `REFUSED_STREAM`), or the node itself answered with a status its
/// interceptor or handler sends before it starts anything (a status the node sent has no
/// local cause).
pub(crate) fn call_not_delivered(status: &Status) -> bool {
    let mut cause = status.source();
    while let Some(error) = cause {
        if error.is::<tonic::ConnectError>() {
            return true;
        }
        // hyper cancels a request it never wrote when the connection closes first (the
        // handshake failed: plaintext to a TLS node, a client certificate refused after it).
        if error
            .downcast_ref::<hyper::Error>()
            .is_some_and(hyper::Error::is_canceled)
        {
            return true;
        }
        if let Some(h2) = error.downcast_ref::<h2::Error>()
            && (h2.reason() == Some(h2::Reason::REFUSED_STREAM) || not_http2(h2))
        {
            return true;
        }
        // The peer's TLS sent a fatal alert: it refused the session (a client certificate
        // it requires, after a TLS 1.3 handshake the client thought complete). rustls's error
        // reaches here only as the text of an I/O error (h2 rewraps it).
        if let Some(io) = error.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::InvalidData
            && io.to_string().starts_with("received fatal alert")
        {
            return true;
        }
        cause = error.source();
    }
    status.source().is_none()
        && matches!(
            status.code(),
            Code::Unauthenticated
                | Code::PermissionDenied
                | Code::InvalidArgument
                | Code::Unimplemented
                | Code::FailedPrecondition
                | Code::NotFound
                | Code::AlreadyExists
                | Code::OutOfRange
        )
}

/// This host's HTTP/2 gave up on what the peer sent as not HTTP/2 at all (TLS records read as
/// frames: plaintext to a TLS node): no node handler ever saw a request on that connection.
fn not_http2(error: &h2::Error) -> bool {
    error.is_go_away()
        && error.is_library()
        && matches!(
            error.reason(),
            Some(h2::Reason::FRAME_SIZE_ERROR | h2::Reason::PROTOCOL_ERROR)
        )
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

#[cfg(test)]
mod tests {
    use super::*;

    fn connect_error() -> Status {
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        Status::from_error(Box::new(tonic::ConnectError(Box::new(refused))))
    }

    fn broken_stream() -> Status {
        let reset = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset by peer");
        Status::from_error(Box::new(reset))
    }

    #[test]
    fn a_connect_error_is_unreachable_and_a_broken_stream_is_lost() {
        let status = connect_error();
        assert_eq!(status.code(), Code::Unavailable);
        assert!(call_not_delivered(&status));
        assert!(matches!(
            call_failed("n", "s", "t", &status),
            McpError::NodeUnreachable { .. }
        ));

        // The same code without a connect error in its causes: it may have been delivered.
        let status = broken_stream();
        assert!(!call_not_delivered(&status));
        assert!(matches!(
            call_failed("n", "s", "t", &status),
            McpError::LostAfterSend { .. }
        ));
        let bare = Status::unavailable("connection closed");
        assert!(matches!(
            call_failed("n", "s", "t", &bare),
            McpError::LostAfterSend { .. }
        ));
        let internal = Status::internal("h2 protocol error");
        assert!(matches!(
            call_failed("n", "s", "t", &internal),
            McpError::LostAfterSend { .. }
        ));
    }

    #[test]
    fn a_refused_stream_or_a_nodes_own_refusal_was_not_delivered() {
        let refused: h2::Error = h2::Reason::REFUSED_STREAM.into();
        let status = Status::from_error(Box::new(refused));
        assert!(call_not_delivered(&status));
        let reset: h2::Error = h2::Reason::INTERNAL_ERROR.into();
        assert!(!call_not_delivered(&Status::from_error(Box::new(reset))));

        let token = Status::unauthenticated("the node token is missing or wrong");
        assert!(matches!(
            call_failed("n", "s", "t", &token),
            McpError::NodeUnreachable { .. }
        ));
        // The node's TLS refused the session (as h2 rewraps rustls's error).
        let alert = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "received fatal alert: CertificateRequired",
        );
        assert!(call_not_delivered(&Status::from_error(Box::new(alert))));
        let pipe = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "broken pipe");
        assert!(!call_not_delivered(&Status::from_error(Box::new(pipe))));

        let bad = Status::invalid_argument("a call must begin with `start`");
        assert!(matches!(
            call_failed("n", "s", "t", &bad),
            McpError::Protocol { .. }
        ));
    }
}

//! What a failed handshake says, read from rmcp's error.
//!
//! rmcp's `Display` of a failed handshake is written for rmcp's developers: it names the
//! transport's Rust type (`Transport [Watched<WorkerTransport<...>>] error`), dumps
//! unexpected messages with `Debug`, and flattens the HTTP client's error so its causes (the
//! resolver's, the TLS stack's) are no longer in the `source()` chain. Here the typed cause is
//! dug out where rmcp keeps it (in fields, not as the source), classified ([`classify`]),
//! and the failure put in plain words ([`describe`]).

use std::error::Error;

use rmcp::service::ClientInitializeError;
use rmcp::transport::streamable_http_client::StreamableHttpError;
use switchboard_core::ReachFailure;

use crate::transport::sse::SseTransportError;
use crate::upstream_text::{MAX_QUOTED, short_text};

/// What a failed HTTP handshake says about the server.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum HttpFailure {
    /// The server answered 401 or 403.
    Denied(u16),
    /// rmcp's OAuth client wants a sign-in it could not make, or a scope.
    Auth,
    /// The server could not be reached, for this reason.
    Unreachable(ReachFailure),
}

/// The error the transport itself reported, under rmcp's handshake error: the classic
/// handshake's after a failed stateless one (`fallback`), as most servers speak that one.
fn transport_error(error: &ClientInitializeError) -> Option<&(dyn Error + Send + Sync + 'static)> {
    match error {
        ClientInitializeError::TransportError { error, .. } => Some(error.error.as_ref()),
        ClientInitializeError::LegacyFallbackFailed { fallback, discover } => {
            transport_error(fallback).or_else(|| transport_error(discover))
        }
        _ => None,
    }
}

/// The HTTP client's own error inside a transport error, where the resolver's, the TLS
/// stack's and the operating system's causes are still chained.
fn client_error<'a>(
    transport: &'a (dyn Error + Send + Sync + 'static),
) -> Option<&'a reqwest::Error> {
    if let Some(StreamableHttpError::Client(error)) =
        transport.downcast_ref::<StreamableHttpError<reqwest::Error>>()
    {
        return Some(error);
    }
    if let Some(SseTransportError::Request(error)) = transport.downcast_ref::<SseTransportError>() {
        return Some(error);
    }
    None
}

/// Classifies a handshake failure: by type where the transport's error is at hand, and
/// otherwise by the exact phrases rmcp and reqwest write, because rmcp's worker transport
/// flattens the HTTP status of a refused request into its message. The phrases are matched
/// whole (`HTTP 401`, never a bare `401`), so a port or path holding those digits cannot
/// be mistaken for a status.
pub(super) fn classify(error: &ClientInitializeError) -> Option<HttpFailure> {
    if let Some(transport) = transport_error(error) {
        if let Some(SseTransportError::Unauthorized { status, .. }) =
            transport.downcast_ref::<SseTransportError>()
        {
            return Some(HttpFailure::Denied(status.as_u16()));
        }
        if let Some(client) = client_error(transport) {
            if let Some(status @ (401 | 403)) = client.status().map(|s| s.as_u16()) {
                return Some(HttpFailure::Denied(status));
            }
            let reason = ReachFailure::of(client);
            if client.is_connect() || client.is_timeout() || reason != ReachFailure::Other {
                return Some(HttpFailure::Unreachable(match reason {
                    ReachFailure::Other if client.is_timeout() => ReachFailure::TimedOut,
                    reason => reason,
                }));
            }
        }
    }
    classify_chain(error)
}

/// [`classify`] of an error whose typed causes are in its `source()` chain.
pub(super) fn classify_chain(error: &(dyn Error + 'static)) -> Option<HttpFailure> {
    let mut current = Some(error);
    while let Some(cause) = current {
        if let Some(error) = cause.downcast_ref::<reqwest::Error>() {
            if let Some(status @ (401 | 403)) = error.status().map(|s| s.as_u16()) {
                return Some(HttpFailure::Denied(status));
            }
            if error.is_connect() {
                return Some(HttpFailure::Unreachable(ReachFailure::of(error)));
            }
        }
        current = cause.source();
    }
    classify_text(&super::error_chain(error))
}

pub(super) fn classify_text(text: &str) -> Option<HttpFailure> {
    const UNAUTHORIZED: [&str; 2] = ["HTTP 401", "401 Unauthorized"];
    const FORBIDDEN: [&str; 2] = ["HTTP 403", "403 Forbidden"];
    const AUTH: [&str; 2] = ["Auth required", "Insufficient scope"];
    const UNREACHABLE: [&str; 8] = [
        "Connection refused",
        "tcp connect error",
        "dns error",
        "error sending request",
        "HTTP 500",
        "HTTP 502",
        "HTTP 503",
        "HTTP 504",
    ];
    let has = |phrases: &[&str]| phrases.iter().any(|phrase| text.contains(phrase));
    if has(&UNAUTHORIZED) {
        Some(HttpFailure::Denied(401))
    } else if has(&FORBIDDEN) {
        Some(HttpFailure::Denied(403))
    } else if has(&AUTH) {
        Some(HttpFailure::Auth)
    } else if has(&UNREACHABLE) {
        Some(HttpFailure::Unreachable(ReachFailure::of_text(text)))
    } else {
        None
    }
}

/// The failure in plain words: what the transport said without rmcp's frame (the transport's
/// type name, "when send discover request"), and no `Debug` dump of a message.
pub(super) fn describe(error: &ClientInitializeError) -> String {
    match error {
        ClientInitializeError::TransportError { error, .. } => {
            let transport = error.error.as_ref();
            match client_error(transport) {
                Some(client) => super::error_chain(client),
                None => super::error_chain(transport),
            }
        }
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => describe(fallback),
        ClientInitializeError::ExpectedInitResponse(_) => {
            "it answered `initialize` with another message than its result".to_owned()
        }
        ClientInitializeError::ExpectedInitResult(_) => {
            "it answered `initialize` with another result than the server's description".to_owned()
        }
        ClientInitializeError::JsonRpcError(data) => format!(
            "it refused `initialize` with error {}: {}",
            data.code.0,
            short_text(&data.message, MAX_QUOTED)
        ),
        ClientInitializeError::NoCompatibleProtocolVersion {
            server_supported, ..
        } => {
            let versions: Vec<String> = server_supported.iter().map(ToString::to_string).collect();
            format!(
                "it speaks no protocol revision this client speaks (it speaks {})",
                short_text(&versions.join(", "), MAX_QUOTED)
            )
        }
        ClientInitializeError::ConnectionClosed(_) => "it closed the connection".to_owned(),
        other => short_text(&other.to_string(), MAX_QUOTED),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_read_as_phrases_not_digits() {
        let refused = "Client error: error sending request for url (http://127.0.0.1:41401/mcp)";
        assert!(matches!(
            classify_text(refused),
            Some(HttpFailure::Unreachable(_))
        ));
        let denied = "unexpected server response: HTTP 401 Unauthorized: go away";
        assert_eq!(classify_text(denied), Some(HttpFailure::Denied(401)));
        assert_eq!(
            classify_text("unexpected server response: HTTP 403 Forbidden"),
            Some(HttpFailure::Denied(403))
        );
        assert_eq!(classify_text("HTTP 418 on /v401/mcp"), None);
        assert!(matches!(
            classify_text("HTTP 503 Service Unavailable"),
            Some(HttpFailure::Unreachable(ReachFailure::Other))
        ));
        assert_eq!(
            classify_text("client error (Connect): dns error: failed to lookup address"),
            Some(HttpFailure::Unreachable(ReachFailure::NameNotResolved))
        );
    }

    #[test]
    fn no_message_is_dumped() {
        let error = ClientInitializeError::ExpectedInitResponse(None);
        let words = describe(&error);
        assert!(!words.contains("None"), "{words}");
        let error = ClientInitializeError::NoCompatibleProtocolVersion {
            client_supported: vec![rmcp::model::ProtocolVersion::LATEST],
            server_supported: vec![rmcp::model::ProtocolVersion::V_2024_11_05],
        };
        let words = describe(&error);
        assert!(words.contains("2024-11-05"), "{words}");
        assert!(!words.contains("ProtocolVersion"), "{words}");
    }
}

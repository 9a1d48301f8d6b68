//! What a legacy SSE event means to the client, as pure functions so the protocol rules can be
//! tested without a server.
//!
//! The 2024-11-05 transport knows two events: `endpoint`, whose data is the URI to POST client
//! messages to, and `message`, whose data is one JSON-RPC message. Servers also send messages as
//! events with no type at all (the SSE default type is `message`). Everything else is ignored,
//! and a message that is not JSON-RPC is logged and skipped rather than ending the session,
//! unless it names the request it answers: that request is answered with an error.

use rmcp::model::ServerJsonRpcMessage;
use url::Url;

use super::super::answer_id::answer_id;
use super::super::lines::unreadable;
use super::error::EndpointError;
use super::parser::SseEvent;

/// How much of an unparseable message goes into the log.
const PREVIEW_CHARS: usize = 200;

/// An SSE event, classified.
#[derive(Debug)]
pub(crate) enum Inbound {
    /// The `endpoint` event; the data is still to be resolved with [`resolve_endpoint`].
    Endpoint(String),
    Message(Box<ServerJsonRpcMessage>),
    /// Some other event type, or a message that is not JSON-RPC (already logged).
    Skip,
}

/// The message in `data`, the 2025-11-25 tasks dialect rewritten into what rmcp's types keep
/// (`crate::transport::legacy_tasks`).
fn legacy_or_plain(data: &str) -> Result<ServerJsonRpcMessage, serde_json::Error> {
    match crate::transport::legacy_tasks::rewritten(data.as_bytes()) {
        Some(rewritten) => serde_json::from_slice(&rewritten),
        None => serde_json::from_str(data),
    }
}

pub(crate) fn classify(event: SseEvent) -> Inbound {
    match event.event.as_deref() {
        None | Some("" | "message") => match legacy_or_plain(&event.data) {
            Ok(message) => Inbound::Message(Box::new(message)),
            Err(error) => {
                // An answer naming its request fails that request at once rather than leaving
                // it to its timeout (see `crate::transport::unreadable`).
                if let Some(id) = answer_id(event.data.as_bytes()) {
                    tracing::warn!(%error, "an answer from the server cannot be read");
                    return Inbound::Message(Box::new(unreadable(
                        id,
                        &format!("the server's answer cannot be read: {error}"),
                    )));
                }
                tracing::warn!(
                    %error,
                    data = preview(&event.data),
                    "skipping an SSE message that is not a JSON-RPC message"
                );
                Inbound::Skip
            }
        },
        Some("endpoint") => Inbound::Endpoint(event.data),
        Some(other) => {
            tracing::debug!(event = other, "ignoring SSE event of unknown type");
            Inbound::Skip
        }
    }
}

/// Resolves the `endpoint` event's data against the URL the stream came from.
///
/// The endpoint must share the stream's origin: the client sends its headers, credentials
/// included, with every POST, and a server (or whatever sits in the stream) must not be able to
/// redirect them elsewhere.
pub(crate) fn resolve_endpoint(stream_url: &Url, data: &str) -> Result<Url, EndpointError> {
    let data = data.trim();
    if data.is_empty() {
        return Err(EndpointError::Empty);
    }
    let mut endpoint = stream_url.join(data).map_err(EndpointError::Invalid)?;
    endpoint.set_fragment(None);
    let (endpoint_origin, stream_origin) = (endpoint.origin(), stream_url.origin());
    if endpoint_origin != stream_origin || !endpoint_origin.is_tuple() {
        return Err(EndpointError::CrossOrigin {
            endpoint_origin: endpoint_origin.ascii_serialization(),
            stream_origin: stream_origin.ascii_serialization(),
        });
    }
    Ok(endpoint)
}

/// The start of `text`, cut at a character boundary, for logs.
pub(crate) fn preview(text: &str) -> &str {
    match text.char_indices().nth(PREVIEW_CHARS) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::JsonRpcMessage;

    use super::*;

    fn event(name: Option<&str>, data: &str) -> SseEvent {
        SseEvent {
            event: name.map(str::to_owned),
            data: data.to_owned(),
        }
    }

    fn stream_url() -> Url {
        Url::parse("http://127.0.0.1:3001/sse?token=abc").unwrap()
    }

    const RESPONSE: &str = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;

    #[test]
    fn message_events_with_or_without_a_type_are_json_rpc() {
        for name in [None, Some(""), Some("message")] {
            let Inbound::Message(message) = classify(event(name, RESPONSE)) else {
                panic!("{name:?} should be a message");
            };
            assert!(matches!(*message, JsonRpcMessage::Response(_)));
        }
    }

    #[test]
    fn notifications_and_server_requests_are_messages() {
        let notification = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
        let request = r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#;
        assert!(matches!(
            classify(event(None, notification)),
            Inbound::Message(m) if matches!(*m, JsonRpcMessage::Notification(_))
        ));
        assert!(matches!(
            classify(event(Some("message"), request)),
            Inbound::Message(m) if matches!(*m, JsonRpcMessage::Request(_))
        ));
    }

    #[test]
    fn an_unreadable_answer_fails_its_request() {
        let answer = format!(
            r#"{{"jsonrpc":"2.0","id":9,"result":{}}}"#,
            "[".repeat(100_000)
        );
        let Inbound::Message(message) = classify(event(None, &answer)) else {
            panic!("skipped");
        };
        let JsonRpcMessage::Error(error) = *message else {
            panic!("not an error answer: {message:?}");
        };
        assert_eq!(error.id, Some(rmcp::model::NumberOrString::Number(9)));
    }

    #[test]
    fn garbage_messages_are_skipped() {
        for data in ["not json", "{\"hello\":1}", "", "[1,2]"] {
            assert!(
                matches!(classify(event(None, data)), Inbound::Skip),
                "{data}"
            );
        }
    }

    #[test]
    fn endpoint_and_unknown_events() {
        assert!(matches!(
            classify(event(Some("endpoint"), "/message?sessionId=1")),
            Inbound::Endpoint(data) if data == "/message?sessionId=1"
        ));
        assert!(matches!(classify(event(Some("ping"), "{}")), Inbound::Skip));
    }

    #[test]
    fn relative_endpoints_resolve_against_the_stream_url() {
        let cases = [
            (
                "/message?sessionId=x",
                "http://127.0.0.1:3001/message?sessionId=x",
            ),
            (
                "messages/?session_id=y",
                "http://127.0.0.1:3001/messages/?session_id=y",
            ),
            (" /m#frag\n", "http://127.0.0.1:3001/m"),
            ("http://127.0.0.1:3001/abs", "http://127.0.0.1:3001/abs"),
        ];
        for (data, expected) in cases {
            assert_eq!(
                resolve_endpoint(&stream_url(), data).unwrap().as_str(),
                expected
            );
        }
    }

    #[test]
    fn default_ports_are_the_same_origin() {
        let stream = Url::parse("https://mcp.example.com/sse").unwrap();
        let endpoint = resolve_endpoint(&stream, "https://mcp.example.com:443/messages").unwrap();
        assert_eq!(endpoint.as_str(), "https://mcp.example.com/messages");
    }

    #[test]
    fn endpoints_on_another_origin_are_rejected() {
        for data in [
            "http://evil.example/message",
            "//evil.example/message",
            "https://127.0.0.1:3001/message",
            "http://127.0.0.1:3002/message",
            "http://localhost:3001/message",
            "data:text/plain,hi",
        ] {
            assert!(
                matches!(
                    resolve_endpoint(&stream_url(), data),
                    Err(EndpointError::CrossOrigin { .. })
                ),
                "{data}"
            );
        }
    }

    #[test]
    fn empty_and_unparseable_endpoints_are_rejected() {
        assert!(matches!(
            resolve_endpoint(&stream_url(), "  "),
            Err(EndpointError::Empty)
        ));
        assert!(matches!(
            resolve_endpoint(&stream_url(), "http://[::1"),
            Err(EndpointError::Invalid(_))
        ));
    }

    #[test]
    fn preview_cuts_at_a_character_boundary() {
        let long = "é".repeat(PREVIEW_CHARS + 10);
        assert_eq!(preview(&long).chars().count(), PREVIEW_CHARS);
        assert_eq!(preview("short"), "short");
    }
}

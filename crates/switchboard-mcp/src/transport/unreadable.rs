//! An answer a server sent over SSE that cannot be read fails the request it answers at once.
//!
//! rmcp's Streamable HTTP client, like our legacy SSE reader, skips an event whose message is
//! not a JSON-RPC message it can read (JSON nested too deep, a number out of range): the call
//! it answered would then wait its whole timeout. Where the event names the request it
//! answers ([`super::answer_id`], as over stdio), the event becomes a JSON-RPC error to that
//! request, with the reason; anything else is left for the reader to skip as before.
//!
//! The check parses each message event once more than rmcp does; a message it can read is
//! passed on untouched.

use futures::StreamExt;
use futures::stream::BoxStream;
use rmcp::model::ServerJsonRpcMessage;
use sse_stream::{Error as SseError, Sse};

use super::answer_id::answer_id;
use super::lines::unreadable;

/// `stream` with each unreadable answer made an error answer to its request.
pub(crate) fn answered(
    stream: BoxStream<'static, Result<Sse, SseError>>,
) -> BoxStream<'static, Result<Sse, SseError>> {
    stream.map(|event| event.map(readable)).boxed()
}

/// `event`, or an error answer in its place when its message cannot be read but names the
/// request it answers.
pub(crate) fn readable(mut event: Sse) -> Sse {
    if !matches!(event.event.as_deref(), None | Some("" | "message")) {
        return event;
    }
    let Some(data) = event.data.as_deref() else {
        return event;
    };
    let Err(error) = serde_json::from_str::<ServerJsonRpcMessage>(data) else {
        return event;
    };
    let Some(id) = answer_id(data.as_bytes()) else {
        return event;
    };
    tracing::warn!(%error, "an answer from the server cannot be read");
    let answer = unreadable(id, &format!("the server's answer cannot be read: {error}"));
    if let Ok(text) = serde_json::to_string(&answer) {
        event.data = Some(text);
    }
    event
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(text: &str) -> Sse {
        Sse {
            data: Some(text.to_owned()),
            ..Sse::default()
        }
    }

    fn message(event: &Sse) -> ServerJsonRpcMessage {
        serde_json::from_str(event.data.as_deref().unwrap_or_default())
            .unwrap_or_else(|e| panic!("{e}: {event:?}"))
    }

    #[test]
    fn a_readable_answer_is_passed_on_untouched() {
        let text = r#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#;
        assert_eq!(readable(data(text)).data.as_deref(), Some(text));
    }

    #[test]
    fn an_unreadable_answer_becomes_an_error_to_its_request() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":7,"result":{{"content":{}}}}}"#,
            "[".repeat(200_000)
        );
        let ServerJsonRpcMessage::Error(error) = message(&readable(data(&deep))) else {
            panic!("not an error answer");
        };
        assert_eq!(error.id, Some(rmcp::model::NumberOrString::Number(7)));
        assert!(error.error.message.contains("cannot be read"), "{error:?}");
    }

    #[test]
    fn what_names_no_request_is_left_to_be_skipped() {
        for text in ["not json", r#"{"jsonrpc":"2.0","method":"x","params":5}"#] {
            assert_eq!(readable(data(text)).data.as_deref(), Some(text));
        }
        let ping = Sse {
            event: Some("ping".into()),
            data: Some("{".into()),
            ..Sse::default()
        };
        assert_eq!(readable(ping).data.as_deref(), Some("{"));
    }
}

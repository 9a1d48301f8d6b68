//! Reads the server's event stream: first, while connecting, up to the `endpoint` event; then,
//! in a background task, every JSON-RPC message, handed to `receive()` through a channel.
//!
//! The task ends when the stream ends or breaks, or when the transport is closed or dropped (its
//! cancellation token); it then drops the response, which closes the connection, and the channel
//! sender, which makes `receive()` return `None` so rmcp sees the server go away. It also cancels
//! the token on the way out, so that sends fail fast instead of POSTing into a dead session.

use std::collections::VecDeque;

use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use rmcp::model::ServerJsonRpcMessage;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use url::Url;

use super::error::SseTransportError;
use super::events::{Inbound, classify, resolve_endpoint};
use super::parser::{SseEvent, SseParser};

pub(crate) type ByteStream = BoxStream<'static, Result<Bytes, reqwest::Error>>;

pub(crate) struct StreamReader {
    /// Where the stream was finally served from, after redirects: relative endpoints resolve
    /// against it.
    stream_url: Url,
    body: ByteStream,
    parser: SseParser,
    /// Events parsed from a chunk but not yet handled: one chunk can hold the endpoint and the
    /// first messages.
    pending: VecDeque<SseEvent>,
    inbound: mpsc::Sender<ServerJsonRpcMessage>,
}

impl StreamReader {
    pub(crate) fn new(
        stream_url: Url,
        body: ByteStream,
        max_event_size: usize,
        inbound: mpsc::Sender<ServerJsonRpcMessage>,
    ) -> Self {
        Self {
            stream_url,
            body,
            parser: SseParser::new(max_event_size),
            pending: VecDeque::new(),
            inbound,
        }
    }

    /// Reads up to the `endpoint` event and returns the resolved endpoint.
    ///
    /// Messages before it are not expected (the client has sent nothing yet) but are kept if the
    /// channel has room. The caller bounds this with the connect timeout.
    pub(crate) async fn wait_for_endpoint(&mut self) -> Result<Url, SseTransportError> {
        while let Some(event) = self.next_event().await? {
            match classify(event) {
                Inbound::Endpoint(data) => {
                    return resolve_endpoint(&self.stream_url, &data).map_err(|reason| {
                        SseTransportError::BadEndpoint {
                            endpoint: data,
                            reason,
                        }
                    });
                }
                Inbound::Message(message) => {
                    if self.inbound.try_send(*message).is_err() {
                        tracing::warn!("dropping an SSE message sent before the endpoint event");
                    }
                }
                Inbound::Skip => {}
            }
        }
        Err(SseTransportError::NoEndpoint)
    }

    /// Forwards messages until the stream ends or `stop` is cancelled; cancels `stop` on exit.
    pub(crate) async fn run(mut self, stop: CancellationToken) {
        let _stop_sends = stop.clone().drop_guard();
        loop {
            let event = tokio::select! {
                () = stop.cancelled() => break,
                event = self.next_event() => event,
            };
            let message = match event {
                Ok(Some(event)) => match classify(event) {
                    Inbound::Message(message) => message,
                    Inbound::Endpoint(data) => {
                        tracing::warn!(endpoint = %data, "ignoring a repeated endpoint event");
                        continue;
                    }
                    Inbound::Skip => continue,
                },
                Ok(None) => {
                    tracing::debug!(url = %self.stream_url, "MCP server ended the SSE stream");
                    break;
                }
                Err(error) => {
                    let error = &error as &(dyn std::error::Error + 'static);
                    tracing::warn!(url = %self.stream_url, error, "SSE stream from MCP server failed");
                    break;
                }
            };
            tokio::select! {
                () = stop.cancelled() => break,
                sent = self.inbound.send(*message) => {
                    if sent.is_err() {
                        break; // the transport is gone
                    }
                }
            }
        }
    }

    async fn next_event(&mut self) -> Result<Option<SseEvent>, SseTransportError> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Ok(Some(event));
            }
            match self.body.next().await {
                None => return Ok(None),
                Some(Err(error)) => return Err(SseTransportError::Request(error)),
                Some(Ok(chunk)) => {
                    let events = self
                        .parser
                        .push(&chunk)
                        .map_err(|e| SseTransportError::EventTooLarge { limit: e.limit })?;
                    self.pending.extend(events);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::JsonRpcMessage;

    use super::*;

    fn reader(chunks: &[&'static [u8]]) -> (StreamReader, mpsc::Receiver<ServerJsonRpcMessage>) {
        let body = futures::stream::iter(
            chunks
                .iter()
                .map(|chunk| Ok(Bytes::from_static(chunk)))
                .collect::<Vec<_>>(),
        );
        let (tx, rx) = mpsc::channel(8);
        let url = Url::parse("http://127.0.0.1:9/sse").unwrap();
        (StreamReader::new(url, body.boxed(), 1 << 20, tx), rx)
    }

    #[tokio::test]
    async fn messages_in_the_endpoint_chunk_are_not_lost() {
        let (mut reader, mut rx) = reader(&[
            b"event: endpoint\ndata: /message?sessionId=1\n\n\
              event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n",
            b"data: not json\n\n",
            b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
        ]);
        let endpoint = reader.wait_for_endpoint().await.unwrap();
        assert_eq!(endpoint.as_str(), "http://127.0.0.1:9/message?sessionId=1");

        let stop = CancellationToken::new();
        reader.run(stop.clone()).await;
        assert!(matches!(
            rx.recv().await,
            Some(JsonRpcMessage::Notification(_))
        ));
        assert!(matches!(rx.recv().await, Some(JsonRpcMessage::Response(_))));
        assert!(rx.recv().await.is_none(), "the stream ended");
        assert!(stop.is_cancelled(), "a finished reader stops sends");
    }

    #[tokio::test]
    async fn a_stream_ending_before_the_endpoint_is_no_endpoint() {
        let (mut reader, _rx) = reader(&[b": hello\n\nevent: ping\ndata: x\n\n"]);
        assert!(matches!(
            reader.wait_for_endpoint().await,
            Err(SseTransportError::NoEndpoint)
        ));
    }

    #[tokio::test]
    async fn a_cross_origin_endpoint_is_refused() {
        let (mut reader, _rx) = reader(&[b"event: endpoint\ndata: http://evil.example/m\n\n"]);
        assert!(matches!(
            reader.wait_for_endpoint().await,
            Err(SseTransportError::BadEndpoint { endpoint, .. }) if endpoint == "http://evil.example/m"
        ));
    }

    #[tokio::test]
    async fn an_oversized_event_ends_the_stream() {
        let (mut reader, mut rx) = reader(&[b"event: endpoint\ndata: /m\n\n", &[b'x'; 64]]);
        reader.parser = SseParser::new(32);
        reader.wait_for_endpoint().await.unwrap();
        reader.run(CancellationToken::new()).await;
        assert!(rx.recv().await.is_none());
    }

    #[tokio::test]
    async fn cancelling_stops_a_reader_waiting_on_the_stream() {
        let (tx, mut rx) = mpsc::channel(1);
        let url = Url::parse("http://127.0.0.1:9/sse").unwrap();
        let reader = StreamReader::new(url, futures::stream::pending().boxed(), 1024, tx);
        let stop = CancellationToken::new();
        stop.cancel();
        reader.run(stop).await; // returns instead of waiting forever
        assert!(rx.recv().await.is_none());
    }
}

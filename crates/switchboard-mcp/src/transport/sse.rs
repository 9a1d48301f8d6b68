//! The legacy MCP "HTTP with SSE" transport (protocol revision 2024-11-05), as an rmcp client
//! [`Transport`].
//!
//! rmcp dropped this transport, but many deployed servers still speak only it. The protocol: the
//! client opens `GET <url>` as an event stream; the server's first event is `endpoint`, whose
//! data is the URI (usually relative, carrying a session id) the client POSTs each JSON-RPC
//! message to; every server-to-client message arrives as a `message` event on the stream.
//!
//! [`SseClientTransport::connect`] opens the stream and waits, within the connect timeout, for the
//! endpoint. A background task then reads the stream into a channel that
//! [`Transport::receive`] drains. A legacy session cannot be resumed, so the transport never
//! reconnects: when the stream ends, `receive` returns `None`, sends fail with
//! [`SseTransportError::StreamClosed`], and the connection manager starts a new session.
//! Closing or dropping the transport stops the task and with it the connection.
//!
//! The `reqwest::Client` passed in must not have a total request timeout, which would cut the
//! stream; a connect timeout is fine.

mod error;
mod events;
#[cfg(test)]
mod fuzz_tests;
mod parser;
mod reader;

use std::fmt;
use std::time::Duration;

use futures::StreamExt;
use http::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE, WWW_AUTHENTICATE};
use http::{HeaderMap, HeaderValue, StatusCode};
use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::{CancellationToken, DropGuard};
use url::Url;

pub use error::{EndpointError, SseTransportError};
use reader::StreamReader;

/// The largest SSE event accepted from a server, so a broken or hostile server cannot make the
/// client buffer without bound. Matches rmcp's limit for Streamable HTTP.
const MAX_EVENT_SIZE: usize = 16 * 1024 * 1024;
/// Messages read from the stream but not yet received; beyond this the reader waits, which
/// pushes back on the server through TCP.
const INBOUND_CAPACITY: usize = 64;
/// How much of a successful POST's body is read so the connection can be reused.
const DRAIN_BODY_BYTES: usize = 64 * 1024;

/// Where and how to reach a legacy SSE server.
#[derive(Clone)]
pub struct SseClientConfig {
    /// The event stream's URL, often ending in `/sse`.
    pub url: String,
    /// Custom and auth headers, sent with the GET and with every POST.
    pub headers: HeaderMap,
    /// Bounds opening the stream and waiting for the `endpoint` event.
    pub connect_timeout: Duration,
}

impl SseClientConfig {
    /// A config with no headers and the default connect timeout of 30 s.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            headers: HeaderMap::new(),
            connect_timeout: Duration::from_secs(30),
        }
    }
}

/// Shows header names only: their values are often credentials.
impl fmt::Debug for SseClientConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SseClientConfig")
            .field("url", &self.url)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("connect_timeout", &self.connect_timeout)
            .finish()
    }
}

/// A connected legacy SSE session; see the module docs.
pub struct SseClientTransport {
    client: reqwest::Client,
    endpoint: Url,
    /// The configured headers plus `Content-Type: application/json`.
    post_headers: HeaderMap,
    /// Bounds each POST: a legacy server accepts a message at once (202) and answers on the
    /// stream, so a POST that hangs means the server is stuck, not that a tool is slow.
    post_timeout: Duration,
    inbound: mpsc::Receiver<ServerJsonRpcMessage>,
    /// Cancelled when the transport closes or the stream ends.
    stop: CancellationToken,
    reader: Option<JoinHandle<()>>,
    _stop_on_drop: DropGuard,
}

impl fmt::Debug for SseClientTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SseClientTransport")
            .field("endpoint", &self.endpoint.as_str())
            .field("closed", &self.stop.is_cancelled())
            .finish_non_exhaustive()
    }
}

impl SseClientTransport {
    /// Opens the event stream and waits for the server's `endpoint` event, all within
    /// `config.connect_timeout` (a timeout is [`SseTransportError::NoEndpoint`]).
    pub async fn connect(
        client: reqwest::Client,
        config: SseClientConfig,
    ) -> Result<Self, SseTransportError> {
        let url = Url::parse(&config.url).map_err(|source| SseTransportError::InvalidUrl {
            url: config.url.clone(),
            source,
        })?;
        let timeout = config.connect_timeout;
        match tokio::time::timeout(timeout, Self::open(client, config, url)).await {
            Ok(result) => result,
            Err(_elapsed) => {
                tracing::debug!(?timeout, "no endpoint event from the MCP server in time");
                Err(SseTransportError::NoEndpoint)
            }
        }
    }

    async fn open(
        client: reqwest::Client,
        config: SseClientConfig,
        url: Url,
    ) -> Result<Self, SseTransportError> {
        let mut get_headers = config.headers.clone();
        get_headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        get_headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        let response = client
            .get(url)
            .headers(get_headers)
            .send()
            .await
            .map_err(SseTransportError::Request)?;
        let response = check_status(response).await?;
        check_event_stream(response.headers())?;

        let (tx, inbound) = mpsc::channel(INBOUND_CAPACITY);
        let stream_url = response.url().clone();
        let body = response.bytes_stream().boxed();
        let mut reader = StreamReader::new(stream_url, body, MAX_EVENT_SIZE, tx);
        let endpoint = reader.wait_for_endpoint().await?;
        tracing::debug!(%endpoint, "legacy SSE session open");

        let stop = CancellationToken::new();
        let reader = tokio::spawn(reader.run(stop.clone()));
        let mut post_headers = config.headers;
        post_headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        Ok(Self {
            client,
            endpoint,
            post_headers,
            post_timeout: config.connect_timeout,
            inbound,
            _stop_on_drop: stop.clone().drop_guard(),
            stop,
            reader: Some(reader),
        })
    }
}

impl Transport<RoleClient> for SseClientTransport {
    type Error = SseTransportError;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let body = serde_json::to_vec(&item);
        let request = self
            .client
            .post(self.endpoint.clone())
            .headers(self.post_headers.clone())
            .timeout(self.post_timeout);
        let stop = self.stop.clone();
        async move {
            let body = body.map_err(SseTransportError::Json)?;
            let post = async {
                let response = request
                    .body(body)
                    .send()
                    .await
                    .map_err(SseTransportError::Request)?;
                let response = check_status(response).await?;
                drain(response).await;
                Ok(())
            };
            // Not biased: a POST that completed counts even if the stream ended meanwhile.
            tokio::select! {
                () = stop.cancelled() => Err(SseTransportError::StreamClosed),
                result = post => result,
            }
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        self.inbound.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.stop.cancel();
        if let Some(reader) = self.reader.take()
            && let Err(error) = reader.await
        {
            tracing::warn!(%error, "SSE reader task failed");
        }
        Ok(())
    }
}

/// Turns a non-2xx response into an error; 401 and 403 are `Unauthorized`. The body of an
/// error is never read into it (see [`SseTransportError::Http`]).
async fn check_status(response: reqwest::Response) -> Result<reqwest::Response, SseTransportError> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
        let www_authenticate = response
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        return Err(SseTransportError::Unauthorized {
            status,
            www_authenticate,
        });
    }
    Err(SseTransportError::Http { status })
}

fn check_event_stream(headers: &HeaderMap) -> Result<(), SseTransportError> {
    // A missing content type is tolerated; a different one means a wrong URL (an HTML page, a
    // Streamable HTTP endpoint answering JSON), better reported now than as a timeout later.
    let Some(value) = headers.get(CONTENT_TYPE) else {
        return Ok(());
    };
    let content_type = String::from_utf8_lossy(value.as_bytes());
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    if essence.eq_ignore_ascii_case("text/event-stream") {
        Ok(())
    } else {
        Err(SseTransportError::NotEventStream {
            content_type: content_type.into_owned(),
        })
    }
}

/// Reads a small successful body (servers say `Accepted`) so the connection goes back to the
/// pool; gives up on a large one.
async fn drain(response: reqwest::Response) {
    read_prefix(response, DRAIN_BODY_BYTES).await;
}

/// Up to about `limit` bytes of the body; a body that fails halfway yields what was read.
async fn read_prefix(mut response: reqwest::Response, limit: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < limit {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk),
            Ok(None) | Err(_) => break,
        }
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(content_type: Option<&'static str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(value) = content_type {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn event_stream_content_types() {
        for ok in [
            Some("text/event-stream"),
            Some("Text/Event-Stream; charset=utf-8"),
            None,
        ] {
            assert!(check_event_stream(&headers(ok)).is_ok(), "{ok:?}");
        }
        assert!(matches!(
            check_event_stream(&headers(Some("text/html"))),
            Err(SseTransportError::NotEventStream { content_type }) if content_type == "text/html"
        ));
    }

    #[test]
    fn config_debug_hides_header_values() {
        let mut config = SseClientConfig::new("http://127.0.0.1:1/sse");
        config
            .headers
            .insert("authorization", HeaderValue::from_static("Bearer secret"));
        let shown = format!("{config:?}");
        assert!(
            shown.contains("authorization") && !shown.contains("secret"),
            "{shown}"
        );
    }
}

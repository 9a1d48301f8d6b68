//! Errors of the legacy SSE transport. The variants follow what a caller does about them:
//! `Unauthorized` becomes an auth failure, `Http` and `Request` an unreachable or failing server,
//! `NoEndpoint`, `BadEndpoint` and `NotEventStream` a server that does not speak this transport,
//! and `StreamClosed` a session that has to be reconnected.

use http::StatusCode;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SseTransportError {
    #[error("invalid MCP server URL {url:?}")]
    InvalidUrl {
        url: String,
        #[source]
        source: url::ParseError,
    },
    /// HTTP 401 or 403, on the stream or on a POST.
    #[error("the MCP server refused the credentials (HTTP {status})")]
    Unauthorized {
        status: StatusCode,
        /// The `WWW-Authenticate` challenge, when the server sent one.
        www_authenticate: Option<String>,
    },
    /// Any other non-2xx answer. A 404 on a POST usually means the server forgot the session.
    /// The body is not kept: the URL may lead to a service that is not an MCP server at all,
    /// and its pages must not come back to whoever configured the URL.
    #[error("the MCP server answered HTTP {status}")]
    Http { status: StatusCode },
    /// The request could not be made, or the stream broke while the client waited for the
    /// endpoint.
    #[error("HTTP request to the MCP server failed")]
    Request(#[source] reqwest::Error),
    #[error("the MCP server answered with content type {content_type:?}, not an event stream")]
    NotEventStream { content_type: String },
    /// The stream ended, or the connect timeout passed, before the `endpoint` event.
    #[error("the MCP server sent no `endpoint` event before the stream ended or the timeout")]
    NoEndpoint,
    #[error("the MCP server sent an unusable message endpoint {endpoint:?}")]
    BadEndpoint {
        endpoint: String,
        #[source]
        reason: EndpointError,
    },
    #[error("an SSE event from the MCP server exceeded the limit of {limit} bytes")]
    EventTooLarge { limit: usize },
    /// The transport was closed, or the server ended the stream: nothing sent now could be
    /// answered.
    #[error("the SSE stream to the MCP server is closed")]
    StreamClosed,
    #[error("could not encode a JSON-RPC message")]
    Json(#[source] serde_json::Error),
}

/// Why the `endpoint` event's URI was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EndpointError {
    #[error("the endpoint is empty")]
    Empty,
    #[error("the endpoint is not a valid URI reference")]
    Invalid(#[source] url::ParseError),
    #[error("the endpoint's origin {endpoint_origin} differs from the stream's {stream_origin}")]
    CrossOrigin {
        endpoint_origin: String,
        stream_origin: String,
    },
}

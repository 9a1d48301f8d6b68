//! rmcp's reqwest client for Streamable HTTP, taught one more way servers say "your session is
//! gone".
//!
//! The specification answers an unknown session id with HTTP 404, which rmcp turns into a new
//! session and one retry of the request. Servers built on the TypeScript SDK, the reference
//! server among them, answer 400 with an id-less JSON-RPC error ("Bad Request: No valid
//! session ID provided") instead; rmcp cannot route that error to any request, so the call
//! would hang until its timeout. Such a request was not processed, so reporting it as an
//! expired session is both accurate and safe to retry.
//!
//! It also keeps response bodies out of errors: rmcp quotes a refused request's body whole
//! ("HTTP 401: <20 KB>"); we keep the status (see [`crate::upstream_text`]).
//!
//! For a server with OAuth sign-in its requests go through rmcp's [`AuthClient`]
//! (rmcp::transport::AuthClient), which adds the person's token and refreshes it; a challenge
//! the server answers with is remembered for the sign-in it calls for.
//!
//! Its requests share the server's connections with every other session to it
//! ([`crate::transport::upstream_limit`]), and an answer it cannot read fails its request at
//! once ([`crate::transport::unreadable`]). Streamed messages in the 2025-11-25 tasks dialect
//! are rewritten into what rmcp's types keep ([`crate::transport::legacy_tasks`]); an answer
//! sent as one JSON body is decoded by rmcp whole and is not.

use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use sse_stream::{Error as SseError, Sse};
use tokio::sync::OwnedSemaphorePermit;

use crate::oauth::Authorized;
use crate::transport::legacy_tasks;
use crate::transport::unreadable::answered;
use crate::transport::upstream_limit::{UpstreamLimit, holding};
use crate::upstream_text::{short_text, without_body};

#[derive(Clone)]
pub(crate) struct SessionAwareClient {
    http: reqwest::Client,
    auth: Option<Authorized>,
    limit: UpstreamLimit,
}

impl SessionAwareClient {
    pub(crate) fn new(
        http: reqwest::Client,
        auth: Option<Authorized>,
        limit: UpstreamLimit,
    ) -> Self {
        Self { http, auth, limit }
    }

    /// A connection of the server's share for a request; answers and notifications go at once
    /// (see [`crate::transport::upstream_limit`]).
    async fn permit(&self, message: &ClientJsonRpcMessage) -> Option<OwnedSemaphorePermit> {
        match message {
            ClientJsonRpcMessage::Request(_) => self.limit.acquire().await,
            _ => None,
        }
    }

    /// Remembers the challenge of a refusal, for the sign-in it calls for.
    fn noted<T>(
        &self,
        result: Result<T, StreamableHttpError<reqwest::Error>>,
    ) -> Result<T, StreamableHttpError<reqwest::Error>> {
        if let (Err(error), Some(auth)) = (&result, &self.auth) {
            match error {
                StreamableHttpError::AuthRequired(e) => auth.remember(&e.www_authenticate_header),
                StreamableHttpError::InsufficientScope(e) => {
                    auth.remember(&e.www_authenticate_header);
                }
                _ => {}
            }
        }
        result
    }
}

/// The same request through the authorizing client when there is one.
macro_rules! send {
    ($self:ident, $method:ident ( $($arg:expr),* )) => {
        $self.noted(match &$self.auth {
            Some(auth) => auth.client.$method($($arg),*).await,
            None => $self.http.$method($($arg),*).await,
        })
    };
}

/// An id-less JSON-RPC error about the session, to a request that carried one, means the
/// server no longer knows the session. A streamed answer keeps `permit` until it ends; any
/// other answer was read whole, and its connection is free again.
fn check_session(
    had_session: bool,
    response: StreamableHttpPostResponse,
    permit: Option<OwnedSemaphorePermit>,
) -> Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>> {
    match response {
        StreamableHttpPostResponse::Json(ServerJsonRpcMessage::Error(error), _)
            if had_session
                && error.id.is_none()
                && error.error.message.to_ascii_lowercase().contains("session") =>
        {
            Err(StreamableHttpError::SessionExpired)
        }
        StreamableHttpPostResponse::Sse(stream, session) => Ok(StreamableHttpPostResponse::Sse(
            holding(answered(legacy_tasks::events(stream)), permit),
            session,
        )),
        other => Ok(other),
    }
}

/// The error without the response body rmcp quotes in it.
fn unquoted(error: StreamableHttpError<reqwest::Error>) -> StreamableHttpError<reqwest::Error> {
    match error {
        StreamableHttpError::UnexpectedServerResponse(text) => {
            StreamableHttpError::UnexpectedServerResponse(without_body(&text).into())
        }
        StreamableHttpError::UnexpectedContentType(Some(content_type)) => {
            StreamableHttpError::UnexpectedContentType(Some(short_text(&content_type, 100)))
        }
        other => other,
    }
}

impl StreamableHttpClient for SessionAwareClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let had_session = session_id.is_some();
        let permit = self.permit(&message).await;
        let response = send!(
            self,
            post_message(uri, message, session_id, auth_header, custom_headers)
        )
        .map_err(unquoted)?;
        check_session(had_session, response, permit)
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let had_session = session_id.is_some();
        let permit = self.permit(&message).await;
        let response = send!(
            self,
            post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size
            )
        )
        .map_err(unquoted)?;
        check_session(had_session, response, permit)
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        send!(
            self,
            delete_session(uri, session_id, auth_header, custom_headers)
        )
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<Self::Error>> {
        send!(
            self,
            get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
        )
        .map(|stream| answered(legacy_tasks::events(stream)))
        .map_err(unquoted)
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<Self::Error>> {
        send!(
            self,
            get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size
            )
        )
        .map(|stream| answered(legacy_tasks::events(stream)))
        .map_err(unquoted)
    }
}

//! What every request to the MCP endpoint passes before rmcp sees it: the caller, the view,
//! the session's owner. Refusals here are ordinary API errors (`{code, message, timestamp}`).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{FromRequestParts as _, RawPathParams, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use futures::StreamExt as _;
use switchboard_core::ErrorCode;
use switchboard_gateway::{CallLog, Scope, wire_rewrite};
use switchboard_store::StoreError;

use super::sessions::{Checked, Owner, Sessions};
use crate::auth::Caller;
use crate::error::ApiError;
use crate::state::AppState;
use crate::stream_auth::TokenWatch;

/// The header a session's requests carry (Streamable HTTP, 2025-03-26 and later).
const SESSION_HEADER: &str = "mcp-session-id";

/// What the admission layer needs.
pub(crate) struct Endpoint {
    pub state: AppState,
    pub sessions: Sessions,
}

/// The admission layer (an axum `from_fn` middleware on the endpoint's routes).
pub(crate) async fn admit(
    State(endpoint): State<Arc<Endpoint>>,
    params: RawPathParams,
    request: Request,
    next: Next,
) -> Response {
    let path_view = params
        .iter()
        .find(|(name, _)| *name == "name")
        .map(|(_, value)| value.to_owned());
    match endpoint.admit(path_view, request, next).await {
        Ok(response) => response,
        Err(error) => refusal(error),
    }
}

impl Endpoint {
    async fn admit(
        &self,
        path_view: Option<String>,
        request: Request,
        next: Next,
    ) -> Result<Response, ApiError> {
        let (mut parts, body) = request.into_parts();
        let caller = Caller::from_request_parts(&mut parts, &self.state).await?;
        let view = view_of(path_view.as_deref(), token_view(&caller))?;
        if let Some(name) = &path_view {
            self.check_view_exists(&caller, name).await?;
        }
        let owner = Owner {
            user: caller.user.id.clone(),
            view: view.clone(),
        };
        let session = parts
            .headers
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        if let Some(id) = &session
            && self.sessions.check(id, &owner) == Checked::Foreign
        {
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                "this MCP session was opened by another caller or for another view",
            )
            .key("error.msg.mcp_session_foreign"));
        }
        let mut initialize = false;
        let body = if parts.method == Method::POST {
            // The body was read whole by the front door (`guard::body`); this is a copy of a
            // reference.
            let bytes = axum::body::to_bytes(body, usize::MAX)
                .await
                .unwrap_or_default();
            if is_batch(&bytes) {
                return Ok(batch_refused());
            }
            initialize = wire_rewrite::is_initialize(&bytes);
            // What rmcp's types cannot carry of the 2025-11-25 tasks (see the gateway's
            // `wire_rewrite`).
            match wire_rewrite::client_message(&bytes) {
                Some(rewritten) => Body::from(rewritten),
                None => Body::from(bytes),
            }
        } else {
            body
        };
        let deleting = parts.method == Method::DELETE;
        let standing = parts.method == Method::GET;
        let user = caller.user.id.clone();
        parts.extensions.insert(Scope {
            user: caller.user,
            view,
        });
        if parts.method == Method::POST {
            // Where the gateway sends the request's log lines (see `CallStreams`).
            parts.extensions.insert(CallLog::default());
        }
        let mut response = next.run(Request::from_parts(parts, body)).await;
        if initialize {
            response = initialized(response).await;
        }
        // The standing GET stream lives only as long as the token that opened it, as
        // `/api/events` does (see `crate::stream_auth`). A POST answered as SSE ends with its
        // call (within the call's timeout), and watching each would cost a task per call.
        let response = match caller.token {
            Some(token) if standing && is_event_stream(&response) => watched(
                response,
                TokenWatch::start(
                    Arc::clone(&self.state.store),
                    token,
                    user,
                    self.state.config.stream_auth.recheck,
                ),
            ),
            _ => response,
        };
        match session {
            Some(id) => {
                if deleting && response.status().is_success() {
                    self.sessions.forget(&id);
                }
            }
            None => {
                let opened = response
                    .headers()
                    .get(SESSION_HEADER)
                    .and_then(|v| v.to_str().ok());
                if let Some(opened) = opened {
                    let max = self.state.limits.max_mcp_sessions;
                    if !self.sessions.bind(opened, owner, max).await {
                        return Err(too_many_sessions(max));
                    }
                }
            }
        }
        Ok(response)
    }

    /// A view named in the path must be the caller's (404 otherwise, before any MCP message).
    async fn check_view_exists(&self, caller: &Caller, name: &str) -> Result<(), ApiError> {
        match self.state.store.view_by_name(&caller.user.id, name).await {
            Ok(_) => Ok(()),
            Err(StoreError::NotFound { .. }) => Err(ApiError::new(
                ErrorCode::NotFound,
                format!("no MCP view named {name:?}"),
            )
            .key("error.msg.mcp_view_not_found")
            .param("name", name)),
            Err(error) => Err(error.into()),
        }
    }
}

/// The name of the view a view-scoped token is limited to.
fn token_view(caller: &Caller) -> Option<&str> {
    caller.view_name.as_deref()
}

/// The view a request is for: the path's (`/mcp/v/{name}`), else the token's. A view-scoped
/// token may name only its own view in the path.
fn view_of(path: Option<&str>, token: Option<&str>) -> Result<Option<String>, ApiError> {
    match (path, token) {
        (Some(path), Some(token)) if path != token => Err(ApiError::new(
            ErrorCode::Forbidden,
            format!("this API token is limited to the MCP view {token:?}: use it at /mcp or /mcp/v/{token}"),
        )
        .key("error.msg.view_token_forbidden")
        .param("view", token)),
        (Some(name), _) | (None, Some(name)) => Ok(Some(name.to_owned())),
        (None, None) => Ok(None),
    }
}

/// Whether `body` is a JSON-RPC batch (an array), which MCP has not had since 2025-06-18.
fn is_batch(body: &[u8]) -> bool {
    body.iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'[')
}

/// A batch answered as JSON-RPC answers what it cannot take: an Invalid Request error.
fn batch_refused() -> Response {
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": -32600,
            "message": "JSON-RPC batches are not supported: send one message per request",
        },
    });
    (StatusCode::BAD_REQUEST, axum::Json(error)).into_response()
}

/// The most of an `initialize` answer read to rewrite it (it is one short message).
const MAX_INITIALIZE_ANSWER: usize = 1 << 20;

/// The answer to an `initialize`, with the gateway's 2025-11-25 `tasks` capability where the
/// client looks for it (see the gateway's `wire_rewrite`). Its body is one message (or a
/// priming event and one message) and ends with it, so it is read whole.
async fn initialized(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_INITIALIZE_ANSWER).await else {
        tracing::warn!("mcp: an initialize answer could not be read whole");
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            "the initialize answer was lost",
        )
            .into_response();
    };
    match wire_rewrite::server_body(&bytes) {
        Some(rewritten) => {
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from(rewritten))
        }
        None => Response::from_parts(parts, Body::from(bytes)),
    }
}

fn is_event_stream(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// `response` with its body ended (cleanly, without a further event) once `watch` says the
/// token that opened it no longer opens the account.
fn watched(response: Response, watch: TokenWatch) -> Response {
    let (parts, body) = response.into_parts();
    let stream = futures::stream::unfold(
        (body.into_data_stream(), watch),
        |(mut body, watch)| async move {
            tokio::select! {
                () = watch.ended.cancelled() => None,
                chunk = body.next() => chunk.map(|chunk| (chunk, (body, watch))),
            }
        },
    );
    Response::from_parts(parts, Body::from_stream(stream))
}

fn too_many_sessions(max: usize) -> ApiError {
    crate::limits::rate_limited(
        "error.msg.too_many_mcp_sessions",
        &format!("at most {max} MCP sessions may be open at once; close one first"),
        std::time::Duration::from_secs(1),
    )
    .param("limit", max)
}

/// An error answer; a 401 also names the scheme, as MCP clients expect.
fn refusal(error: ApiError) -> Response {
    let mut response = error.into_response();
    if response.status() == StatusCode::UNAUTHORIZED {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_comes_from_the_path_or_the_token() {
        assert_eq!(view_of(None, None).unwrap(), None);
        assert_eq!(view_of(Some("a"), None).unwrap().as_deref(), Some("a"));
        assert_eq!(view_of(None, Some("t")).unwrap().as_deref(), Some("t"));
        assert_eq!(view_of(Some("t"), Some("t")).unwrap().as_deref(), Some("t"));
        let refused = view_of(Some("other"), Some("t")).unwrap_err();
        assert_eq!(refused.code, ErrorCode::Forbidden);
    }
}

//! A request's body, read whole within a time limit before any handler sees it.
//!
//! hyper bounds how long a request's header may take (`header_read_timeout`) but not its
//! body: a client could send a body a byte at a time and hold a connection and a task for as
//! long as it liked. Every route takes a JSON body (bounded by `max_body_bytes`), so reading it
//! here first costs nothing a handler would not spend, and the answers are ours: 408
//! `REQUEST_TIMEOUT` with the connection closed when the body is late, 413 when it is too
//! large, 400 when the client broke it off.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use switchboard_core::ErrorCode;

use crate::error::ApiError;

/// How a body is read: within `timeout` of the header, at most `max_bytes`.
#[derive(Debug, Clone, Copy)]
pub struct BodyRules {
    pub timeout: Duration,
    pub max_bytes: usize,
}

/// Reads the body of `request` under `rules`, then hands the request on with it.
pub async fn read_body(State(rules): State<BodyRules>, request: Request, next: Next) -> Response {
    if !super::layer::has_body(request.headers()) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    match tokio::time::timeout(rules.timeout, collect(body, rules.max_bytes)).await {
        Ok(Ok(bytes)) => next.run(Request::from_parts(parts, bytes)).await,
        Ok(Err(refusal)) => refusal.into_response(),
        Err(_) => late(rules.timeout),
    }
}

async fn collect(body: Body, max_bytes: usize) -> Result<Body, ApiError> {
    let mut stream = body.into_data_stream();
    // Most bodies come in one chunk, handed on as it is; only more are copied together.
    let mut chunks: Vec<Bytes> = Vec::new();
    let mut length = 0;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|error| {
            ApiError::new(
                ErrorCode::ValidationError,
                format!("the body could not be read: {error}"),
            )
            .key("error.msg.body_unreadable")
            .param("detail", error)
        })?;
        length += chunk.len();
        if length > max_bytes {
            return Err(too_large(max_bytes));
        }
        chunks.push(chunk);
    }
    Ok(match chunks.len() {
        0 => Body::empty(),
        1 => Body::from(chunks.swap_remove(0)),
        _ => Body::from(chunks.concat()),
    })
}

/// 413: the body is over the limit.
pub fn too_large(limit: usize) -> ApiError {
    ApiError::new(
        ErrorCode::PayloadTooLarge,
        format!("the body is larger than this server takes ({limit} bytes at most)"),
    )
    .key("error.msg.body_too_large")
    .param("limit", limit)
}

/// 408, and the connection closed: the rest of a late body is not waited for.
fn late(timeout: Duration) -> Response {
    let limit = humantime::format_duration(timeout).to_string();
    let mut response = ApiError::new(
        ErrorCode::RequestTimeout,
        format!("the request body did not arrive within {limit}"),
    )
    .key("error.msg.body_read_timeout")
    .param("limit", limit)
    .into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

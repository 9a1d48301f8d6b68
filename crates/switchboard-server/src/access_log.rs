//! One log line per request: method, path, status, time. Never headers (they carry the
//! bearer token), query strings or bodies. Successful requests log at debug, client errors at
//! info and server errors at warn, so a production log at info shows what went wrong.

use std::time::Instant;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;

pub async fn log_request(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let started = Instant::now();
    let response = next.run(request).await;
    let status = response.status().as_u16();
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    if response.status().is_server_error() {
        tracing::warn!(%method, %path, status, elapsed_ms, "request failed");
    } else if response.status().is_client_error() {
        tracing::info!(%method, %path, status, elapsed_ms, "request refused");
    } else {
        tracing::debug!(%method, %path, status, elapsed_ms, "request");
    }
    response
}

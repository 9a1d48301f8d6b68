//! `GET /metrics`: Prometheus scrapes it. Unauthenticated, as scrapers expect; the labels hold
//! server ids, tool names and outcomes, never arguments or secrets.

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use switchboard_core::ErrorCode;

use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new().route("/metrics", get(metrics))
}

async fn metrics(State(state): State<AppState>) -> Result<impl IntoResponse, ApiError> {
    let text = state
        .metrics
        .encode()
        .map_err(|e| ApiError::new(ErrorCode::InternalError, format!("metrics: {e}")))?;
    Ok((
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        text,
    ))
}

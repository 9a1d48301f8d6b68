//! `GET /metrics`: Prometheus scrapes it. Unauthenticated, as scrapers expect; the labels hold
//! server ids, tool names and outcomes, never arguments or secrets.

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use switchboard_core::ErrorCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(metrics))
}

#[utoipa::path(get, path = "/metrics", tag = "operations", responses((status = 200, description = "Prometheus metrics (OpenMetrics text)", content_type = "application/openmetrics-text")))]
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

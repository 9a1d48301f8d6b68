//! `GET /metrics`: Prometheus scrapes it. The labels hold every tenant's server ids and tool
//! names (never arguments or secrets), so on the API's address it takes an admin's token (in
//! single-user mode the local user is that admin). With `--metrics-listen` it is served on
//! that address instead, without a token as scrapers expect, and not on the API's.

use axum::Extension;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use switchboard_core::ErrorCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::routes::responses::Unauthorized;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(metrics))
}

/// Marks requests that came in on the metrics' own listen address.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OwnListener;

#[utoipa::path(
    get,
    path = "/metrics",
    tag = "operations",
    responses(
        (status = 200, description = "Prometheus metrics (OpenMetrics text)", content_type = "application/openmetrics-text"),
        Unauthorized,
        (status = 403, description = "Not an admin", body = ErrorBody),
        (status = 404, description = "Metrics are served on their own address", body = ErrorBody),
    ),
)]
async fn metrics(
    State(state): State<AppState>,
    own_listener: Option<Extension<OwnListener>>,
    request: axum::extract::Request,
) -> Result<impl IntoResponse, ApiError> {
    if own_listener.is_none() {
        if state.config.guard.metrics_listen.is_some() {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                "metrics are served on their own address (--metrics-listen)",
            )
            .key("error.msg.metrics_elsewhere"));
        }
        // Authenticated only here: a scrape on the metrics' own address carries no token and
        // must not count as a failed sign-in.
        let (mut parts, _) = request.into_parts();
        let caller = <Caller as axum::extract::FromRequestParts<AppState>>::from_request_parts(
            &mut parts, &state,
        )
        .await?;
        caller.require_admin("reading the metrics")?;
    }
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

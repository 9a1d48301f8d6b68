//! Liveness and readiness.

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(live))
        .routes(routes!(ready))
}

/// How the process is.
#[derive(Serialize, utoipa::ToSchema)]
struct Health {
    /// `ok` (liveness) or `ready` (readiness).
    status: &'static str,
}

/// Liveness: the process is up.
#[utoipa::path(
    get,
    path = "/healthz",
    tag = "health",
    operation_id = "liveness",
    security(()),
    responses((status = 200, description = "The process is up", body = Health)),
)]
async fn live() -> Json<Health> {
    Json(Health { status: "ok" })
}

/// Ready when the store answers.
#[utoipa::path(
    get,
    path = "/readyz",
    tag = "health",
    operation_id = "readiness",
    security(()),
    responses(
        (status = 200, description = "The store answers", body = Health),
        (status = 500, description = "The store did not answer", body = ErrorBody),
    ),
)]
async fn ready(State(state): State<AppState>) -> Result<Json<Health>, ApiError> {
    state.store.users().await?;
    Ok(Json(Health { status: "ready" }))
}

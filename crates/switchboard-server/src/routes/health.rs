//! Liveness and readiness.

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(live))
        .routes(routes!(ready))
}

/// Liveness: the process is up.
#[utoipa::path(get, path = "/healthz", tag = "health", operation_id = "liveness", responses((status = 200, description = "The process is up", body = serde_json::Value)))]
async fn live() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

/// Ready when the store answers.
#[utoipa::path(get, path = "/readyz", tag = "health", operation_id = "readiness", responses((status = 200, description = "The store answers", body = serde_json::Value), (status = 500, description = "The store did not answer", body = crate::error::ErrorBody)))]
async fn ready(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    state.store.users().await?;
    Ok(Json(json!({"status": "ready"})))
}

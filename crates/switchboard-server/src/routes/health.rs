//! Liveness and readiness.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(|| async { Json(json!({"status": "ok"})) }))
        .route("/readyz", get(ready))
}

/// Ready when the store answers.
async fn ready(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    state.store.users().await?;
    Ok(Json(json!({"status": "ready"})))
}

//! LLM providers: `openai` (any OpenAI-compatible endpoint) or `anthropic`. API keys are
//! masked on every read; an update that sends the mask back keeps the stored key.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use switchboard_store::{Provider, ProviderConfig};

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/providers", get(list).post(create))
        .route("/api/providers/{id}", get(read).put(update).delete(remove))
}

async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<Provider>>, ApiError> {
    Ok(axum::Json(state.store.providers(&caller.user.id).await?))
}

async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Json(config): Json<ProviderConfig>,
) -> Result<(StatusCode, axum::Json<Provider>), ApiError> {
    let created = state
        .store
        .create_provider(&caller.user.id, &config)
        .await?;
    Ok((StatusCode::CREATED, axum::Json(created)))
}

async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<Provider>, ApiError> {
    Ok(axum::Json(
        state.store.provider(&caller.user.id, &id).await?,
    ))
}

async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(config): Json<ProviderConfig>,
) -> Result<axum::Json<Provider>, ApiError> {
    Ok(axum::Json(
        state
            .store
            .update_provider(&caller.user.id, &id, &config)
            .await?,
    ))
}

async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.store.delete_provider(&caller.user.id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
